/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_COMMON_PROGRESS_H
#define GPUISO_COMMON_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/*
 * How far long work has got, for whoever watches it. On a terminal, one
 * line redrawn in place: a bar when the total is known. Anywhere else (a
 * cron mail, a Slurm log), a plain line every PROGRESS_LINE_S seconds.
 * Work that ends before the first report prints nothing, and a progress
 * without a stream prints nothing at all. The worker calls progress_tick()
 * as often as it likes: most calls cost a test of a counter.
 */

#define PROGRESS_BAR_S 0.25  /* between redraws on a terminal */
#define PROGRESS_LINE_S 10.0 /* between lines elsewhere */

struct progress {
	FILE *f;           /* NULL: silent */
	bool tty;          /* @f is a terminal: a line redrawn */
	bool drawn;        /* something is on that line */
	const char *what;  /* the work, e.g. "replay" */
	const char *unit;  /* what is counted, e.g. "events" */
	uint64_t total;    /* 0 when unknown */
	double t0, next_s; /* CLOCK_MONOTONIC seconds: the start, the next report */
	double interval_s; /* between reports (set by progress_begin()) */
	char note[96];     /* said after the count (e.g. "12 not recovered"), or empty */
};

/**
 * progress_begin() - start reporting.
 * @p: the progress.
 * @f: where to report (stderr, as a rule), or NULL for nothing.
 * @what: the work, as the report's first word (kept, not copied).
 * @unit: what is counted (kept, not copied).
 * @total: how many there will be, or 0 when that is not known.
 */
void progress_begin(struct progress *p, FILE *f, const char *what, const char *unit,
		    uint64_t total);

/**
 * progress_show() - report @done if the interval has passed.
 * @p: the progress.
 * @done: how many are done.
 */
void progress_show(struct progress *p, uint64_t done);

/**
 * progress_tick() - progress_show() once every 4096 units (a clock read
 * per unit would cost more than many units do).
 * @p: the progress.
 * @done: how many are done.
 */
static inline void progress_tick(struct progress *p, uint64_t done)
{
	if (p->f && !(done & 4095))
		progress_show(p, done);
}

/**
 * progress_end() - stop reporting: a bar on a terminal is cleared (what
 * follows says how the work ended).
 * @p: the progress.
 */
void progress_end(struct progress *p);

#endif
