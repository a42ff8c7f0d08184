/* SPDX-License-Identifier: MIT */
/*
 * Hostile input (common/yaml_trial.c): bytes libfyaml cannot be given are
 * refused with where, those it crashes or hangs on are bad input, and the
 * trial parse's child is judged by its pace, not by the clock.
 */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/failure.h"
#include "yaml_files.h"

TestSuite(yaml_trial, .init = make_dir, .fini = remove_dir);

/* @bytes (@n of them) as a file: its open fails with -EINVAL and the one error says @want. */
static void refused_bytes(const char *name, const char *bytes, size_t n, const char *want)
{
	char path[192], err[1024];
	struct yaml_doc *d = NULL;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	cr_assert(not(eq(ptr, f, NULL)));
	cr_assert(eq(sz, fwrite(bytes, 1, n, f), n));
	cr_assert(eq(int, fclose(f), 0));
	cr_assert(eq(int, yaml_open(path, &d), -EINVAL), "%s", name);
	cr_assert(eq(int, yaml_close(d, err, sizeof(err)), -EINVAL));
	cr_assert(strstr(err, path) && strstr(err, want), "%s: %s", name, err);
	unlink(path);
}

/*
 * Bytes on which libfyaml 0.7.12 hangs ("%\xac") or crashes ("? s:\t\0",
 * "? a:\t?") are bad input, said with where, in bounded time, and this
 * process lives on.
 */
Test(yaml_trial, hostile_bytes_are_refused_with_where)
{
	refused_bytes("hang.yaml", "%\xac", 2, ":1:2: error: not UTF-8 text (byte 0xac, offset 1)");
	refused_bytes("nul.yaml", "? s:\t\0", 6, ":1:6: error: a NUL byte (offset 5)");
	refused_bytes("crash.yaml", "? a:\t?", 6,
		      ":1:5: error: cannot use tab for indentation of block entry; then the YAML parser "
		      "(libfyaml) crashed");
	refused_bytes("overlong.yaml", "a: \xc0\xaf\n", 6, ":1:4: error: not UTF-8 text (byte 0xc0");
	refused_bytes("surrogate.yaml", "a: b\nc: \xed\xa0\x80\n", 11, ":2:4: error: not UTF-8");
}

/*
 * The trial parse's child is watched by its pace, not the clock. Here it is
 * stopped as soon as it is seen (as a child waiting for a core, or blocked,
 * would be), by a thread of this process, for @stop_s seconds (0: for good).
 */
struct trial_stopper {
	pthread_t thread;
	unsigned int stop_s;
	pid_t stopped;
};

/* The pid of the child named yaml-trial of this process's main thread, or 0. */
static pid_t trial_child_pid(void)
{
	char path[128], comm[32] = "";
	pid_t pid = 0, found = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)getpid(), (int)getpid());
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (!found && fscanf(f, "%d", &pid) == 1) {
		FILE *c;

		snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
		c = fopen(path, "r");
		if (c && fgets(comm, sizeof(comm), c) && !strcmp(comm, "yaml-trial\n"))
			found = pid;
		if (c)
			fclose(c);
	}
	fclose(f);
	return found;
}

/* A valid file large enough (a few MB) that its parse lasts long enough to be caught. */
static const char *write_large_file(const char *name)
{
	static char text[4 << 20];
	size_t used = 0;

	for (unsigned int i = 0; used + 64 < sizeof(text); i++)
		used += (size_t)snprintf(text + used, sizeof(text) - used, "- {k: %u, v: %u}\n", i,
					 i + 1);
	return write_file(name, text);
}

static void *stop_trial(void *arg)
{
	struct trial_stopper *s = arg;
	pid_t pid = 0;

	for (int i = 0; i < 2000000 && !pid; i++)
		pid = trial_child_pid();
	if (!pid || kill(pid, SIGSTOP))
		return NULL;
	s->stopped = pid;
	if (s->stop_s) {
		sleep(s->stop_s);
		kill(pid, SIGCONT);
	}
	return NULL;
}

/*
 * A parse that cannot run for longer than any clock-based limit gpuiso had
 * (10 s) is not taken for a bad file: when it runs again, it finishes.
 */
Test(yaml_trial, a_trial_parse_that_waits_long_is_not_blamed, .timeout = 60)
{
	const char *path = write_large_file("slow.yaml");
	struct trial_stopper s = { .stop_s = 12 };
	struct yaml_doc *d = NULL;
	char err[1024];
	time_t t0 = time(NULL);

	cr_assert_eq(pthread_create(&s.thread, NULL, stop_trial, &s), 0);
	cr_assert(eq(int, yaml_open(path, &d), 0));
	pthread_join(s.thread, NULL);
	cr_assert_gt(s.stopped, 0, "the trial child was never seen");
	cr_assert_geq(time(NULL) - t0, 12);
	cr_assert(eq(int, yaml_close(d, err, sizeof(err)), 0), "%s", err);
}

/*
 * One that neither runs nor reads on for 30 s (stopped for good here) is
 * stuck: that is said, and it is not the file's doing (-ECHILD, whatever
 * the reader of the file reports besides).
 */
Test(yaml_trial, a_stuck_trial_parse_is_not_the_files_doing, .timeout = 90)
{
	const char *path = write_large_file("stuck.yaml");
	struct trial_stopper s = { .stop_s = 0 };
	struct yaml_doc *d = NULL;
	char err[1024];

	cr_assert_eq(pthread_create(&s.thread, NULL, stop_trial, &s), 0);
	cr_assert(eq(int, yaml_open(path, &d), -ECHILD));
	pthread_join(s.thread, NULL);
	cr_assert_gt(s.stopped, 0, "the trial child was never seen");
	cr_assert(yaml_failed(d));
	cr_assert(eq(int, yaml_close(d, err, sizeof(err)), -ECHILD));
	cr_assert(strstr(err, path) && strstr(err, "neither ran nor moved on for 30 s (state T") &&
		  strstr(err, "not the file's doing"), "%s", err);
	cr_assert_eq(failure_of(-ECHILD), FAILURE_ENVIRONMENT);
}
