/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_FAULTS_SWEEP_H
#define GPUISO_FAULTS_SWEEP_H

#include <stdio.h>

#include "common/types.h"
#include "replay/replay.h"

/*
 * Fail-nth sweeps: count every hit of every injection point a trace
 * reaches, then fail each hit in turn and classify the outcome.
 */

struct sweep_opts {
	const char *trace;
	const char *scenario;  /* scenario file, or NULL for the built-in default */
	const char *points;    /* glob of point names, or NULL for all */
	const char *faults;    /* a base plan every run (the unfailed one too) replays under, or NULL */
	const char *out;       /* output folder: OUT/summary.json */
	unsigned int jobs;     /* concurrent children (>= 1) */
	bool from_scratch;     /* rerun the whole trace per hit (the baseline) instead of forking at it */
	enum trace_covers covers; /* what the trace covers (replay --trace-covers) */
	/* a run still going after this long is killed (hung); 0: no limit */
	unsigned int run_timeout_s;
	/* a run that makes no progress for this long is killed (hung); 0: 60 s */
	unsigned int stall_timeout_s;
	FILE *progress;        /* progress lines, or NULL */
	FILE *report;          /* the findings at the end, a line each, or NULL */
};

struct sweep_totals {
	uint64_t hits, runs, recovered, reset, violation, crash, hung;
	uint64_t met;      /* forked runs that stopped where they met the unfailed run */
	uint64_t followed; /* ... where they met an earlier forked run (and took its outcome) */
	size_t findings;   /* failing runs grouped by what broke (OUT/summary.txt) */
	double seconds;
};

/**
 * sweep_run() - run a sweep and write OUT/summary.json (gpuiso-sweep/1).
 * @o: options.
 * @t: out: totals.
 * @err: out: what went wrong.
 * @errlen: size of @err.
 *
 * Return: 0, -EINVAL (bad input: @err says where), other negative errno.
 */
int sweep_run(const struct sweep_opts *o, struct sweep_totals *t, char *err, size_t errlen);

#endif
