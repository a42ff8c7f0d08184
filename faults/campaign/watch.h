/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_FAULTS_WATCH_H
#define GPUISO_FAULTS_WATCH_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Watching runs that are child processes. A run says it is moving by
 * counting, in memory it shares with the parent: one beat per event it
 * begins, and one at each step of its own (starting, writing its results).
 * The parent looks at the counts whenever it waits, and kills (SIGKILL) a
 * run whose count has not moved for the stall limit, or that has gone on
 * longer than the run limit. The parent decides because a child cannot:
 * one deadlocked at its first malloc() (a lock some thread of the parent
 * held at fork()) runs no timer of its own. A slow run that is still
 * moving is never killed by the stall limit.
 */

/* No progress for this long, by default: a run is hung (docs/campaign-format.md). */
#define WATCH_STALL_S 60u

/* What a run shares with its parent (one per slot, in a shared mapping). */
struct watch_beat {
	_Atomic uint64_t beats;   /* anything it did */
	_Atomic uint64_t events;  /* events begun */
	_Atomic uint64_t runs;    /* runs begun, by a process that does many (watch_run_begins()) */
	_Atomic uint32_t between; /* ... which is between two of them now (watch_run_ends()) */
};

/* The parent's view of one slot. */
struct watch_run {
	bool on;
	uint64_t seen;           /* beats when last looked at */
	uint64_t runs;           /* runs begun, when last looked at */
	uint64_t start_ms, moved_ms;
	uint64_t looked_ms;      /* when last looked at */
};

struct watch {
	struct watch_beat *beat;  /* n, shared with every child forked after watch_init() */
	struct watch_run *run;    /* n */
	size_t n;
	unsigned int stall_s;     /* > 0 */
	unsigned int limit_s;     /* 0: none */
};

enum watch_verdict {
	WATCH_MOVING = 0,
	WATCH_STALLED,   /* no beat for stall_s */
	WATCH_OVERTIME,  /* still running after limit_s */
};

/**
 * watch_init() - slots for @n runs at a time, shared with the children forked from now on.
 * @w: the watch.
 * @n: slots (>= 1).
 * @stall_s: the stall limit in seconds, or 0 for WATCH_STALL_S.
 * @limit_s: the run limit in seconds, or 0 for none.
 *
 * Return: 0 or -ENOMEM.
 */
int watch_init(struct watch *w, size_t n, unsigned int stall_s, unsigned int limit_s);

/**
 * watch_fini() - unmap the slots.
 * @w: the watch (may be all zero).
 */
void watch_fini(struct watch *w);

/**
 * watch_start() - in the parent, before forking the run of slot @i: its clocks start.
 * @w: the watch.
 * @i: the slot.
 */
void watch_start(struct watch *w, size_t i);

/**
 * watch_stop() - in the parent: slot @i's run has ended.
 * @w: the watch.
 * @i: the slot.
 */
void watch_stop(struct watch *w, size_t i);

/**
 * watch_check() - in the parent: how slot @i's run is doing.
 * @w: the watch.
 * @i: the slot (a stopped one is moving).
 * @wait_ms: in: how long the caller means to wait (-1: for ever); out: at
 *           most how long it may wait before it looks again.
 *
 * Return: WATCH_MOVING, or why the run should be killed.
 */
enum watch_verdict watch_check(struct watch *w, size_t i, int *wait_ms);

/**
 * watch_events() - the events slot @i's run had begun.
 * @w: the watch.
 * @i: the slot.
 */
uint64_t watch_events(const struct watch *w, size_t i);

/**
 * watch_beat() - in a run: it did something (a step of its own).
 * @b: its slot, or NULL (not a watched run).
 */
static inline void watch_beat(struct watch_beat *b)
{
	if (b)
		atomic_fetch_add_explicit(&b->beats, 1, memory_order_relaxed);
}

/**
 * watch_run_begins() - in a process that does many runs: it begins another.
 * The run limit is then each run's: counted from when the parent first
 * sees the run begun, which is at most one look (a quarter of the stall
 * limit, or less) after it began.
 * @b: its slot.
 */
static inline void watch_run_begins(struct watch_beat *b)
{
	atomic_fetch_add_explicit(&b->runs, 1, memory_order_relaxed);
	atomic_store_explicit(&b->between, 0, memory_order_relaxed);
	atomic_fetch_add_explicit(&b->beats, 1, memory_order_relaxed);
}

/**
 * watch_run_ends() - in a process that does many runs: it is between two
 * (or before its first), where no run limit applies; the stall limit does.
 * @b: its slot.
 */
static inline void watch_run_ends(struct watch_beat *b)
{
	atomic_store_explicit(&b->between, 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&b->beats, 1, memory_order_relaxed);
}

/**
 * watch_event() - in a run: it begins an event.
 * @b: its slot, or NULL (not a watched run).
 */
static inline void watch_event(struct watch_beat *b)
{
	if (!b)
		return;
	atomic_fetch_add_explicit(&b->events, 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&b->beats, 1, memory_order_relaxed);
}

#endif
