/* SPDX-License-Identifier: MIT */
#include "child.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "types.h"

/* How a parser or decoder dies; a sanitizer's handlers of them stay out of the child. */
static const int fatal_signals[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };

int child_tie(pid_t parent, const char *name)
{
	if (name)
		prctl(PR_SET_NAME, name); /* a name is for people: no failure matters */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL))
		return -errno;
	/* the parent may have died between fork() and here: then no signal comes */
	return getppid() == parent ? 0 : -ESRCH;
}

pid_t child_fork(const char *name)
{
	struct rlimit no_core = { 0, 0 };
	pid_t parent = getpid();
	pid_t pid = fork();

	if (pid != 0)
		return pid;
	if (child_tie(parent, name))
		_exit(127);
	setrlimit(RLIMIT_CORE, &no_core);
	for (size_t i = 0; i < ARRAY_SIZE(fatal_signals); i++)
		signal(fatal_signals[i], SIG_DFL);
	return 0;
}

bool child_ends_within(pid_t pid, unsigned int ms)
{
	struct pollfd pfd = { .fd = pidfd_open(pid, 0), .events = POLLIN };
	int rc;

	if (pfd.fd < 0)
		return true;
	do
		rc = poll(&pfd, 1, (int)ms);
	while (rc < 0 && errno == EINTR);
	close(pfd.fd);
	return rc != 0;
}

int child_reap(pid_t pid, uint64_t *peak_rss)
{
	struct rusage ru;
	int status;

	while (wait4(pid, &status, 0, &ru) < 0)
		if (errno != EINTR)
			return -1;
	if (peak_rss)
		*peak_rss = (uint64_t)ru.ru_maxrss * 1024;
	return status;
}

const char *child_died_of(int status, char *buf, size_t len)
{
	if (WIFSIGNALED(status))
		snprintf(buf, len, "crashed (%s)", strsignal(WTERMSIG(status)));
	else if (WIFEXITED(status))
		snprintf(buf, len, "exited with status %d", WEXITSTATUS(status));
	else
		snprintf(buf, len, "ended with wait status %#x", (unsigned int)status);
	return buf;
}
