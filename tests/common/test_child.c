/* SPDX-License-Identifier: MIT */
/*
 * child_tie(): a tied child is killed when its parent dies, even when its
 * parent had died already when it asked; it carries the name it was given.
 *
 * The test process makes itself a child subreaper, so that a grandchild
 * whose parent dies becomes its child, and how it ended can be waited for.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/child.h"

static void subreaper(void)
{
	cr_assert_eq(prctl(PR_SET_CHILD_SUBREAPER, 1), 0, "%s", strerror(errno));
}

TestSuite(child, .init = subreaper, .timeout = 30);

/* Read one pid from @fd. */
static pid_t read_pid(int fd)
{
	pid_t pid = 0;

	cr_assert_eq(read(fd, &pid, sizeof(pid)), (ssize_t)sizeof(pid));
	return pid;
}

/* /proc/@pid/comm, without its newline. */
static void comm_of(pid_t pid, char *buf, size_t len)
{
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	f = fopen(path, "r");
	cr_assert_not_null(f, "%s: %s", path, strerror(errno));
	cr_assert_not_null(fgets(buf, (int)len, f));
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
}

/*
 * A middle process forks a tied grandchild that waits for ever and tells
 * its pid; the middle one is killed; the grandchild (ours now) must end by
 * SIGKILL on its own.
 */
Test(child, a_tied_child_dies_with_its_parent)
{
	int fds[2], status;
	pid_t middle, grandchild;
	char name[32];

	cr_assert_eq(pipe(fds), 0);
	middle = fork();
	cr_assert_geq(middle, 0);
	if (!middle) {
		pid_t self = getpid(), pid = fork();

		if (!pid) {
			if (child_tie(self, "tied-child"))
				_exit(2);
			if (write(fds[1], &(pid_t){ getpid() }, sizeof(pid_t)) < 0)
				_exit(3);
			for (;;)
				pause();
		}
		for (;;)
			pause();
	}
	grandchild = read_pid(fds[0]);
	comm_of(grandchild, name, sizeof(name));
	cr_assert_str_eq(name, "tied-child");
	cr_assert_eq(kill(middle, SIGKILL), 0);
	cr_assert_eq(waitpid(middle, &status, 0), middle);
	/* the subreaper's child now: it must end without being told, at once */
	for (int i = 0; i < 500 && !waitpid(grandchild, &status, WNOHANG); i++)
		usleep(10000);
	if (kill(grandchild, 0) == 0 && !waitpid(grandchild, &status, WNOHANG)) {
		kill(grandchild, SIGKILL); /* not left behind by a failing test either */
		waitpid(grandchild, &status, 0);
		cr_assert_fail("the child outlived its parent by 5 s");
	}
	cr_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL, "status %#x", status);
}

/* A child whose parent is not the one it names (it died already) is told to leave. */
Test(child, a_child_whose_parent_is_gone_is_told)
{
	int status;
	pid_t pid = fork();

	cr_assert_geq(pid, 0);
	if (!pid)
		_exit(child_tie(getppid() + 1, NULL) == -ESRCH ? 0 : 1);
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %#x", status);
}

/* A child that is done is seen gone at once; one that lives on, after the wait. */
Test(child, ends_within_waits_for_the_end_and_no_longer)
{
	uint64_t peak = 0;
	pid_t pid = fork();
	int status;

	cr_assert_geq(pid, 0);
	if (!pid) {
		pause();
		_exit(0);
	}
	cr_assert_not(child_ends_within(pid, 200), "a child that lives on was seen gone");
	cr_assert_eq(kill(pid, SIGTERM), 0);
	cr_assert(child_ends_within(pid, 10000), "a killed child was not seen gone");
	/* not reaped by it: child_reap() still gets its status, and its peak RSS */
	status = child_reap(pid, &peak);
	cr_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM, "status %#x", status);
	cr_assert_gt(peak, 0);
}
