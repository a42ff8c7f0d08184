/* SPDX-License-Identifier: MIT */
/*
 * The run watchdog: a run whose beats move is moving however long it takes,
 * one whose beats stop is stalled after the stall limit, one past the run
 * limit is overtime (each run's, for a process that does many); beats from a forked child reach the parent; the parent
 * is told to look again soon enough to see each of these in time.
 */
#include <criterion/criterion.h>
#include <sys/wait.h>
#include <unistd.h>

#include "faults/campaign/watch.h"

TestSuite(watch, .timeout = 30);

/* Look at slot @i every 100 ms, as asked, until it is stalled: after how long (ms). */
static int stalled_after_ms(struct watch *w, size_t i)
{
	int wait_ms, looks = 0;

	do {
		usleep(100000);
		looks++;
		wait_ms = -1;
		cr_assert_leq(looks, 30, "never stalled");
	} while (watch_check(w, i, &wait_ms) == WATCH_MOVING);
	return looks * 100;
}

Test(watch, a_moving_run_is_never_stalled_a_still_one_is)
{
	struct watch w;
	int wait_ms = -1, ms;

	cr_assert_eq(watch_init(&w, 2, 1, 0), 0);
	watch_start(&w, 1);
	/* 1.5 s of beats, more than the stall limit: still moving */
	for (int i = 0; i < 15; i++) {
		watch_event(&w.beat[1]);
		usleep(100000);
		wait_ms = -1;
		cr_assert_eq(watch_check(&w, 1, &wait_ms), WATCH_MOVING, "at %d00 ms", i + 1);
		/* a quarter of the stall limit at most between looks */
		cr_assert(wait_ms > 0 && wait_ms <= 251, "wait %d ms", wait_ms);
	}
	cr_assert_eq(watch_events(&w, 1), 15);
	/* then nothing, looked at as often as asked: stalled after the limit, not before */
	ms = stalled_after_ms(&w, 1);
	cr_assert(ms >= 1000 && ms <= 1300, "stalled after %d ms of a 1 s limit", ms);
	/* a slot not started is nobody's: moving, and no reason to look */
	wait_ms = -1;
	cr_assert_eq(watch_check(&w, 0, &wait_ms), WATCH_MOVING);
	cr_assert_eq(wait_ms, -1);
	watch_fini(&w);
}

Test(watch, beats_of_a_forked_child_are_seen_and_a_run_limit_ends_it)
{
	struct watch w;
	int wait_ms = -1, status;
	pid_t pid;

	cr_assert_eq(watch_init(&w, 1, 60, 1), 0);
	cr_assert_eq(w.stall_s, 60);
	watch_start(&w, 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (!pid) {
		for (int i = 0; i < 7; i++)
			watch_event(&w.beat[0]);
		watch_beat(&w.beat[0]);
		_exit(0);
	}
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert_eq(watch_events(&w, 0), 7);
	cr_assert_eq(watch_check(&w, 0, &wait_ms), WATCH_MOVING);
	/* the run limit (1 s) comes before a quarter of the stall limit (15 s) */
	cr_assert(wait_ms > 0 && wait_ms <= 1001, "wait %d ms", wait_ms);
	usleep(1050000);
	watch_event(&w.beat[0]);
	cr_assert_eq(watch_check(&w, 0, &wait_ms), WATCH_OVERTIME);
	watch_stop(&w, 0);
	cr_assert_eq(watch_check(&w, 0, &wait_ms), WATCH_MOVING);
	watch_fini(&w);
}

/* A process that does many runs: the run limit is each run's, from when it was seen begun. */
Test(watch, the_run_limit_of_a_process_of_many_runs_is_each_runs)
{
	struct watch w;
	int wait_ms = -1;

	cr_assert_eq(watch_init(&w, 1, 60, 1), 0);
	watch_start(&w, 0);
	/* 2 s in runs of 0.5 s each, looked at between them: never overtime */
	for (int i = 0; i < 4; i++) {
		watch_run_begins(&w.beat[0]);
		cr_assert_eq(watch_check(&w, 0, &wait_ms), WATCH_MOVING, "run %d", i);
		usleep(500000);
		watch_event(&w.beat[0]);
	}
	/* between runs (replaying towards the next hit) for longer than the limit: no run to time */
	watch_run_ends(&w.beat[0]);
	for (int i = 0; i < 3; i++) {
		usleep(500000);
		watch_event(&w.beat[0]);
		cr_assert_eq(watch_check(&w, 0, &wait_ms), WATCH_MOVING, "between runs, %d", i);
	}
	/* then one run of more than the limit: overtime */
	watch_run_begins(&w.beat[0]);
	cr_assert_eq(watch_check(&w, 0, &wait_ms), WATCH_MOVING);
	usleep(1050000);
	watch_event(&w.beat[0]);
	cr_assert_eq(watch_check(&w, 0, &wait_ms), WATCH_OVERTIME);
	watch_fini(&w);
}

Test(watch, no_stall_limit_given_means_the_default)
{
	struct watch w;

	cr_assert_eq(watch_init(&w, 1, 0, 0), 0);
	cr_assert_eq(w.stall_s, WATCH_STALL_S);
	watch_fini(&w);
}

/* A parent not looking for long (^Z stopped it and its runs) judges no run on that time. */
Test(watch, a_long_time_unwatched_is_not_a_stall)
{
	struct watch w;
	int wait_ms = -1, ms;

	cr_assert_eq(watch_init(&w, 1, 1, 0), 0);
	watch_start(&w, 0);
	watch_event(&w.beat[0]);
	cr_assert_eq(watch_check(&w, 0, &wait_ms), WATCH_MOVING);
	usleep(1500000); /* stopped: no look, no beat, for more than the stall limit */
	wait_ms = -1;
	cr_assert_eq(watch_check(&w, 0, &wait_ms), WATCH_MOVING);
	/* from then on, a run that does not move is stalled a limit later */
	ms = stalled_after_ms(&w, 0);
	cr_assert(ms >= 1000 && ms <= 1300, "stalled after %d ms of a 1 s limit", ms);
	watch_fini(&w);
}
