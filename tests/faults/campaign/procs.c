/* SPDX-License-Identifier: MIT */
#include "procs.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

pid_t procs_start(const char *cmd)
{
	char *full;
	pid_t pid;

	if (asprintf(&full, "exec %s", cmd) < 0)
		return -1;
	pid = fork();
	if (!pid) {
		execl("/bin/sh", "sh", "-c", full, (char *)NULL);
		_exit(127);
	}
	free(full);
	return pid;
}

/* The state letter and parent of @pid (/proc/PID/stat); false when it is gone. */
static bool stat_of(pid_t pid, char *state, pid_t *ppid, char *comm, size_t len)
{
	char path[64], line[512], *open, *close;
	FILE *f;
	int pp;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return false;
	if (!fgets(line, sizeof(line), f)) {
		fclose(f);
		return false;
	}
	fclose(f);
	/* "PID (COMM) S PPID ...": COMM may hold anything, up to the last ')' */
	open = strchr(line, '(');
	close = strrchr(line, ')');
	if (!open || !close || sscanf(close + 1, " %c %d", state, &pp) != 2)
		return false;
	*ppid = pp;
	snprintf(comm, len, "%.*s", (int)(close - open - 1), open + 1);
	return true;
}

size_t procs_children(pid_t parent, const char *name, pid_t *out, size_t max)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	size_t n = 0;

	if (!d)
		return 0;
	while (n < max && (e = readdir(d))) {
		char state, comm[64], *end;
		long pid = strtol(e->d_name, &end, 10);
		pid_t ppid;

		if (*end || pid <= 0 || !stat_of((pid_t)pid, &state, &ppid, comm, sizeof(comm)))
			continue;
		if (ppid == parent && state != 'Z' && !strcmp(comm, name))
			out[n++] = (pid_t)pid;
	}
	closedir(d);
	return n;
}

bool procs_wait(pid_t pid, int ms, int *status)
{
	for (int waited = 0;; waited += 10) {
		pid_t r = waitpid(pid, status, WNOHANG);

		if (r == pid)
			return true;
		if (r < 0 || waited >= ms)
			return false;
		usleep(10000);
	}
}

bool procs_alive(pid_t pid)
{
	char state, comm[64];
	pid_t ppid;

	return stat_of(pid, &state, &ppid, comm, sizeof(comm)) && state != 'Z';
}
