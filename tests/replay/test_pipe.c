/* SPDX-License-Identifier: MIT */
/* The two-thread pipe: order, bounded hand-over, errors. */
#include <criterion/criterion.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

#include "replay/pipe.h"

/* What the executing thread saw. */
struct seen {
	pthread_t self;     /* the thread that pushed */
	uint64_t n;         /* events executed */
	bool in_order;      /* each index one more than the last, each ts its index */
	bool other_thread;  /* every one ran on another thread than the pusher */
	uint64_t fail_at;   /* index to fail at with -EIO (UINT64_MAX: never) */
};

static int record(void *ctx, uint64_t index, const struct wl_event *e)
{
	struct seen *s = ctx;

	s->in_order &= index == s->n && e->ts == index && e->v[WL_ID] == index * 3;
	s->other_thread &= !pthread_equal(pthread_self(), s->self);
	if (index == s->fail_at)
		return -EIO;
	s->n++;
	return 0;
}

static struct wl_event event(uint64_t i)
{
	struct wl_event e = { .ts = i, .kind = WL_FENCE_CREATE };

	e.v[WL_ID] = i * 3;
	return e;
}

Test(pipe, every_event_runs_once_in_order_on_the_other_thread)
{
	struct seen s = { .self = pthread_self(), .in_order = true, .other_thread = true,
			  .fail_at = UINT64_MAX };
	const uint64_t n = 100003; /* many batches, the last one partial */
	struct pipe *p;

	cr_assert_eq(pipe_start(record, &s, &p), 0);
	for (uint64_t i = 0; i < n; i++) {
		struct wl_event e = event(i);

		cr_assert_eq(pipe_push(p, i, &e), 0);
	}
	cr_assert_eq(pipe_finish(p), 0);
	cr_assert_eq(s.n, n);
	cr_assert(s.in_order);
	cr_assert(s.other_thread);
}

Test(pipe, nothing_pushed_finishes_clean)
{
	struct seen s = { .self = pthread_self(), .in_order = true, .fail_at = UINT64_MAX };
	struct pipe *p;

	cr_assert_eq(pipe_start(record, &s, &p), 0);
	cr_assert_eq(pipe_finish(p), 0);
	cr_assert_eq(s.n, 0);
	cr_assert_eq(pipe_finish(NULL), 0);
}

Test(pipe, an_error_stops_execution_and_reaches_the_pusher)
{
	struct seen s = { .self = pthread_self(), .in_order = true, .fail_at = 5000 };
	struct pipe *p;
	uint64_t i;
	int rc = 0;

	cr_assert_eq(pipe_start(record, &s, &p), 0);
	for (i = 0; i < 1000000 && !rc; i++) {
		struct wl_event e = event(i);

		rc = pipe_push(p, i, &e);
	}
	cr_assert_eq(rc, -EIO, "the pusher hears of the error");
	cr_assert_lt(i, 1000000, "and stops long before the end");
	cr_assert_eq(pipe_finish(p), -EIO);
	cr_assert_eq(s.n, 5000, "nothing after the failed event ran");
	cr_assert(s.in_order);
}

Test(pipe, an_error_in_the_last_batch_comes_from_finish)
{
	struct seen s = { .self = pthread_self(), .in_order = true, .fail_at = 7 };
	struct pipe *p;

	cr_assert_eq(pipe_start(record, &s, &p), 0);
	for (uint64_t i = 0; i < 10; i++) {
		struct wl_event e = event(i);

		cr_assert_eq(pipe_push(p, i, &e), 0, "a partial batch is not handed over yet");
	}
	cr_assert_eq(pipe_finish(p), -EIO);
	cr_assert_eq(s.n, 7);
}
