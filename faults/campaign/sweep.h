/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_FAULTS_SWEEP_H
#define GPUISO_FAULTS_SWEEP_H

#include <stdio.h>

#include "common/types.h"
#include "faults/campaign/shard.h"
#include "faults/faults.h"
#include "replay/replay.h"
#include "replay/verdict.h"

/*
 * Fail-nth sweeps: count every hit of every injection point a trace
 * reaches, then fail each hit in turn and classify the outcome.
 */

enum sweep_outcome {
	SWEEP_RECOVERED = 0,
	SWEEP_RESET = 1,
	SWEEP_VIOLATION = 2,
	SWEEP_CRASH = 3,
	SWEEP_HUNG = 4,   /* killed by the parent: no progress, or past --run-timeout */
	SWEEP_NOUTCOMES
};

/* The outcomes' names, as summary.json and summary.txt write them (sweep_report.c). */
extern const char *const sweep_outcome_names[SWEEP_NOUTCOMES];

struct sweep_opts {
	const char *trace;     /* a CTF folder (or a folder above it), or a trace.dat file */
	const char *const *maps; /* import maps for a foreign trace (replay --map), or NULL */
	size_t nmaps;          /* at most REPLAY_MAX_MAPS */
	const char *scenario;  /* scenario file, or NULL for the built-in default */
	const char *points;    /* glob of point names, or NULL for all */
	const char *faults;    /* a base plan every run (the unfailed one too) replays under, or NULL */
	const char *out;       /* output folder: OUT/summary.json */
	unsigned int jobs;     /* concurrent children (>= 1) */
	bool from_scratch;     /* rerun the whole trace per hit (the baseline) instead of branching at it */
	bool fork;             /* fork a process at each hit rather than branch in persistent workers */
	enum trace_covers covers; /* what the trace covers (replay --trace-covers) */
	/* a run still going after this long is killed (hung); 0: no limit */
	unsigned int run_timeout_s;
	/* a run that makes no progress for this long is killed (hung); 0: 60 s */
	unsigned int stall_timeout_s;
	/*
	 * a part of the runs only, booked in OUT/shards/I-of-N (resumed when
	 * it is there), for gpuiso merge to report; count 0: all of them,
	 * reported at the end
	 */
	struct shard shard;
	FILE *progress;        /* progress lines, or NULL */
	FILE *report;          /* the findings at the end, a line each, or NULL */
	const char *program;   /* the gpuiso reproducers name (an absolute path), or NULL: "gpuiso" */
};

struct sweep_totals {
	uint64_t hits, runs, recovered, reset, violation, crash, hung;
	uint64_t met;      /* forked runs that stopped where they met the unfailed run */
	uint64_t followed; /* ... where they met an earlier forked run (and took its outcome) */
	size_t findings;   /* failing runs grouped by what broke (OUT/summary.txt) */
	uint64_t shard_runs; /* a shard: its runs (runs: those it ran this time) ... */
	uint64_t resumed;    /* ... and those an earlier invocation had booked */
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

/**
 * sweep_merge() - merge the shards of a sweep in OUT (every OUT/shards/I-of-N
 * of the work @h describes) into the OUT/summary.json and OUT/summary.txt a
 * sweep of all runs would have written, findings and reproducers included.
 * @out: the output folder.
 * @h: the header of one of its shards (shard_find()).
 * @jobs: children trimming the findings' reproducers at once (>= 1).
 * @progress: progress lines, or NULL.
 * @report: the findings, a line each, or NULL.
 * @program: the gpuiso the reproducers name (an absolute path), or NULL: "gpuiso".
 * @t: out: totals, as sweep_run() gives them.
 * @err: out: what went wrong; for missing runs, a line per shard that has
 *       them, saying which (all of them in OUT/shards/missing).
 * @errlen: size of @err.
 *
 * Return: 0, -ENODATA (runs are missing: nothing written but the list),
 * -EINVAL (the shards do not describe the same work as their inputs do
 * now, or cannot be read), other negative errno.
 */
int sweep_merge(const char *out, const struct shard_header *h, unsigned int jobs, FILE *progress,
		FILE *report, const char *program, struct sweep_totals *t, char *err,
		size_t errlen);

/* One run's record in a shard's journal (sweep_journal_read()). */
struct sweep_record {
	uint64_t run;         /* its index among the sweep's runs, in the order the replay hits them */
	enum fp_point point;
	uint64_t nth;
	enum sweep_outcome outcome;
	bool has_verdict;     /* it said what it found (not after a crash or a hang) */
	struct verdict verdict;
};

/**
 * sweep_journal_records() - read the records of a shard's journal
 * (OUT/shards/I-of-N of a sweep), after its header (shard_header_read()),
 * up to the first one that is cut short or malformed: a shard killed while
 * writing leaves one at the end.
 * @f: the journal, just after its header.
 * @each: called with each whole record; a non-zero return stops the
 *        reading and is returned.
 * @arg: passed to @each.
 * @good: out: the offset just after the last whole record (or the header).
 *
 * Return: 0, or what @each returned.
 */
int sweep_journal_records(FILE *f, int (*each)(void *arg, const struct sweep_record *r), void *arg,
			  off_t *good);

#endif
