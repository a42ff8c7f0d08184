/* SPDX-License-Identifier: MIT */
/*
 * Run watchdogs (watch.h). The parent samples a run's beat count each time
 * it looks; a count unchanged since the last look for the stall limit
 * means no progress. It looks at least four times per stall limit, so a
 * stalled run is found between 1 and 1.25 stall limits after its last beat
 * (later if the parent looks less often: a look after more than half the
 * limit starts the limit anew, as the whole process group may have been
 * stopped meanwhile).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "common/clock.h"
#include "common/types.h"
#include "faults/campaign/watch.h"

static uint64_t now_ms(void)
{
	return clock_mono_ns() / 1000000u;
}

int watch_init(struct watch *w, size_t n, unsigned int stall_s, unsigned int limit_s)
{
	void *m;

	memset(w, 0, sizeof(*w));
	m = mmap(NULL, n * sizeof(*w->beat), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
		 -1, 0);
	if (m == MAP_FAILED)
		return -ENOMEM;
	w->run = calloc(n, sizeof(*w->run));
	if (!w->run) {
		munmap(m, n * sizeof(*w->beat));
		return -ENOMEM;
	}
	w->beat = m;
	w->n = n;
	w->stall_s = stall_s ? stall_s : WATCH_STALL_S;
	w->limit_s = limit_s;
	return 0;
}

void watch_fini(struct watch *w)
{
	if (w->beat)
		munmap(w->beat, w->n * sizeof(*w->beat));
	free(w->run);
	memset(w, 0, sizeof(*w));
}

void watch_start(struct watch *w, size_t i)
{
	uint64_t t = now_ms();

	atomic_store(&w->beat[i].beats, 0);
	atomic_store(&w->beat[i].events, 0);
	atomic_store(&w->beat[i].runs, 0);
	atomic_store(&w->beat[i].between, 0);
	w->run[i] = (struct watch_run){ .on = true, .start_ms = t, .moved_ms = t, .looked_ms = t };
}

void watch_stop(struct watch *w, size_t i)
{
	w->run[i].on = false;
}

/* Shorten *@wait_ms to @ms (a wait of -1 is for ever). */
static void wait_at_most(int *wait_ms, uint64_t ms)
{
	int m = ms > 86400000u ? 86400000 : (int)ms;

	if (*wait_ms < 0 || m < *wait_ms)
		*wait_ms = m;
}

enum watch_verdict watch_check(struct watch *w, size_t i, int *wait_ms)
{
	struct watch_run *r = &w->run[i];
	uint64_t beats, runs, t = now_ms(), stall = w->stall_s * 1000ull;

	if (!r->on)
		return WATCH_MOVING;
	beats = atomic_load_explicit(&w->beat[i].beats, memory_order_relaxed);
	runs = atomic_load_explicit(&w->beat[i].runs, memory_order_relaxed);
	if (runs != r->runs || atomic_load_explicit(&w->beat[i].between, memory_order_relaxed)) {
		/* another run began, or none is going on: the limit is each run's */
		r->runs = runs;
		r->start_ms = t;
	}
	/*
	 * Not looked at for half the stall limit, when a quarter was asked: this
	 * process was stopped (^Z stops the runs too), or busy. The run gets a
	 * stall limit from now rather than be judged on a time nobody watched.
	 */
	if (beats != r->seen || t - r->looked_ms > stall / 2) {
		r->seen = beats;
		r->moved_ms = t;
	}
	r->looked_ms = t;
	if (w->limit_s && t - r->start_ms >= w->limit_s * 1000ull)
		return WATCH_OVERTIME;
	if (t - r->moved_ms >= stall)
		return WATCH_STALLED;
	/* a quarter of the stall limit between looks, or less to meet a limit on time */
	wait_at_most(wait_ms, GPUISO_MIN(stall / 4, r->moved_ms + stall - t) + 1);
	if (w->limit_s)
		wait_at_most(wait_ms, r->start_ms + w->limit_s * 1000ull - t + 1);
	return WATCH_MOVING;
}

uint64_t watch_events(const struct watch *w, size_t i)
{
	return atomic_load_explicit(&w->beat[i].events, memory_order_relaxed);
}
