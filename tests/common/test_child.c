/* SPDX-License-Identifier: MIT */
/*
 * child_tie(): a tied child is killed when its parent dies, even when its
 * parent had died already when it asked; it carries the name it was given.
 *
 * child_pace_check() judges a child by its CPU time and progress.
 *
 * The test process makes itself a child subreaper, so that a grandchild
 * whose parent dies becomes its child, and how it ended can be waited for.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
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

/*
 * child_pace_check(): a child is judged by its own CPU time and its
 * progress, never by how long its parent waited while it could not run.
 */

/* Check @pid every 50 ms, as its parent would while waiting, until a verdict or @max_ms. */
static enum child_pace_verdict pace_until(struct child_pace *p, const _Atomic uint64_t *mark,
					  unsigned int spin_s, unsigned int stuck_s,
					  unsigned int max_ms)
{
	enum child_pace_verdict v = CHILD_MOVING;

	for (unsigned int ms = 0; ms < max_ms && v == CHILD_MOVING; ms += 50) {
		usleep(50 * 1000);
		v = child_pace_check(p, mark ? atomic_load(mark) : 0, 50 * 1000000ull, spin_s,
				     stuck_s);
	}
	return v;
}

static _Atomic uint64_t *shared_counter(void)
{
	_Atomic uint64_t *c = mmap(NULL, sizeof(*c), PROT_READ | PROT_WRITE,
				   MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	cr_assert_neq(c, MAP_FAILED);
	atomic_store(c, 0);
	return c;
}

/* A child that waits for ever (for a signal). */
static pid_t waiting_child(void)
{
	pid_t pid = fork();

	cr_assert_geq(pid, 0);
	if (!pid) {
		pause();
		_exit(0);
	}
	return pid;
}

/* A child that burns CPU time without moving on spins: its input's doing. */
Test(child, a_child_burning_cpu_without_progress_spins)
{
	struct child_pace p;
	char why[160];
	pid_t pid = fork();

	cr_assert_geq(pid, 0);
	if (!pid)
		for (;;)
			;
	child_pace_start(&p, pid);
	cr_assert_eq(pace_until(&p, NULL, 1, 1, 20000), CHILD_SPINNING);
	cr_assert(strstr(child_pace_say(&p, CHILD_SPINNING, why, sizeof(why)),
			 "s of CPU time without moving on"), "%s", why);
	kill(pid, SIGKILL);
	child_reap(pid, NULL);
}

/* One that burns as much, but moves on, is moving for as long as it does. */
Test(child, a_child_that_moves_on_is_never_judged)
{
	_Atomic uint64_t *mark = shared_counter();
	struct child_pace p;
	pid_t pid = fork();

	cr_assert_geq(pid, 0);
	if (!pid)
		for (uint64_t i = 0;; i++)
			if (!(i % 1000000))
				atomic_fetch_add(mark, 1);
	child_pace_start(&p, pid);
	cr_assert_eq(pace_until(&p, mark, 1, 1, 3000), CHILD_MOVING);
	kill(pid, SIGKILL);
	child_reap(pid, NULL);
	munmap(mark, sizeof(*mark));
}

/*
 * One that neither runs nor moves on (stopped here; deadlocked, in the
 * case this is for) is stuck: not its input's doing. It never spins.
 */
Test(child, a_child_that_neither_runs_nor_moves_is_stuck)
{
	struct child_pace p;
	char why[160];
	pid_t pid = waiting_child();

	child_pace_start(&p, pid);
	cr_assert_eq(pace_until(&p, NULL, 1, 1, 20000), CHILD_STUCK);
	child_pace_say(&p, CHILD_STUCK, why, sizeof(why));
	cr_assert(strstr(why, "neither ran nor moved on for 1 s (state S"), "%s", why);
	kill(pid, SIGSTOP);
	child_pace_start(&p, pid);
	cr_assert_eq(pace_until(&p, NULL, 1, 1, 20000), CHILD_STUCK);
	cr_assert(strstr(child_pace_say(&p, CHILD_STUCK, why, sizeof(why)), "(state T"), "%s",
		  why);
	kill(pid, SIGKILL);
	child_reap(pid, NULL);
}

/* Waiting the parent did not do (it was busy elsewhere) does not count towards stuck. */
Test(child, only_time_waited_for_it_counts)
{
	struct child_pace p;
	pid_t pid = waiting_child();

	child_pace_start(&p, pid);
	for (int i = 0; i < 40; i++) {
		usleep(50 * 1000);
		cr_assert_eq(child_pace_check(&p, 0, 0, 1, 1), CHILD_MOVING);
	}
	kill(pid, SIGKILL);
	child_reap(pid, NULL);
}
