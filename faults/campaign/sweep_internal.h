/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_FAULTS_SWEEP_INTERNAL_H
#define GPUISO_FAULTS_SWEEP_INTERNAL_H

/*
 * What the files of a sweep share (sweep.h is the public side). Each file
 * has one job, and each uses only those above it:
 *
 *   sweep_report.c  findings and their trimmed reproducers, summary.json,
 *                   summary.txt and the command's finding lines
 *   sweep.c         sweep_run(): the counting pass, the runs (forked at each
 *                   hit or from scratch) in the pool, their outcomes booked;
 *                   then the report, or the shard's journal
 *   sweep_shard.c   a shard's part of the runs and its journal
 *                   (OUT/shards/I-of-N); sweep_merge(): the report from
 *                   every shard's journal
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/scenario.h"
#include "faults/faults.h"
#include "faults/plan.h"
#include "faults/campaign/finding.h"
#include "faults/campaign/meet.h"
#include "faults/campaign/pool.h"
#include "faults/campaign/sweep.h"
#include "replay/verdict.h"


/*
 * A child's exit status is SWEEP_EXIT_BASE + its outcome: far from the small
 * codes a stray exit() elsewhere would use, so those count as crashes, as
 * does SWEEP_EXIT_ERROR (the child's replay stopped with an error: it
 * "exited abnormally", like its reproducer would).
 */
#define SWEEP_EXIT_BASE 100
#define SWEEP_EXIT_ERROR 99

/* Where a hit was, as the counting replay saw it: the same in every run up to it. */
struct sweep_hit {
	uint64_t event, ts;
	const char *op;    /* the operation being executed, or NULL (at start) */
	const char *site;  /* the function of the model that asked */
};

/* A run that did not recover: its hit, its outcome, and what it found. */
struct sweep_failure {
	enum fp_point point;
	uint64_t nth;
	enum sweep_outcome outcome;
	uint32_t run;
	bool has_verdict;     /* the run said what it found (not after a crash or a hang) */
	struct verdict verdict;
};

/* How a finding is reproduced: on its trimmed trace when it could be trimmed. */
struct sweep_repro {
	char *cmd;        /* the command (on the trimmed trace, checked), or NULL (out of memory) */
	char *whole;      /* the command on the whole trace */
	bool trimmed;
	struct finding_trim trim;
	char why[4608];   /* not trimmed: why */
};

/* The trace's events, as the counting replay read them (replay_report's counts). */
struct sweep_events {
	uint64_t total, used, ignored, unmatched;
};

/* One run: the hit it fails and, once it has ended, how. */
struct sweep_run {
	enum fp_point point;
	uint64_t nth;
	enum sweep_outcome outcome;
	bool ended;
	bool follows;   /* it stopped where another run had been: that run's outcome is its own */
	bool again;     /* ... one that crashed: it runs again, from the start */
	bool skip;      /* another shard's, or booked in this shard's journal already */
	uint32_t failure; /* 1 + its index in sweep.failures, or 0 */
};

/* Everything a sweep knows; passed to the observe hook as its argument. */
struct sweep {
	const struct sweep_opts *o;
	char *trace, *scenario;  /* absolute paths, for reproducers that work from any folder */
	char *faults;            /* ... and the base plan's, or NULL */
	char **maps;             /* ... and the import maps' (o->nmaps of them), or NULL */
	char *out;               /* ... and the output folder's (trimmed traces go below it) */
	struct scenario scn;
	struct fault_plan base;  /* every run's rules and pressure (--faults; none armed without) */
	bool selected[FP_NPOINTS];
	uint64_t hits[FP_NPOINTS];                    /* from the counting pass */
	struct sweep_hit *where[FP_NPOINTS];          /* ... and where each hit was (shared: */
	size_t where_cap[FP_NPOINTS];                 /*  array_reserve_shared()) */
	struct fp_ctx *count_fp;                      /* the counting pass's (its hook reads it) */
	struct finding_set findings;
	struct sweep_repro *repro;                    /* per finding */
	uint64_t outcomes[FP_NPOINTS][SWEEP_NOUTCOMES];
	enum sweep_outcome baseline;                  /* of the run where nothing fails */
	struct sweep_failure *failures;
	size_t nfailures, failures_cap;               /* failures: array_reserve_shared() */
	struct pool pool;                             /* o->jobs slots; a slot's job is its run */
	struct watch_beat *beat;                      /* a child: its slot's */
	struct sweep_run *runs;   /* total of them, in the order the replay hits them */
	size_t runs_cap;
	uint64_t ended, spawned, total;               /* runs reaped, forked, in all */
	uint64_t todo;     /* runs this invocation does (total, or its shard's not yet booked) */
	uint64_t resumed;  /* its shard's runs an earlier invocation booked */
	uint64_t seen;     /* hits the fork pass has reached */
	uint64_t nevents;  /* the trace's events (the counting pass) */
	struct sweep_events events; /* ... and how many became workload events */
	uint64_t met;      /* runs that stopped where they met the unfailed run */
	uint64_t followed; /* ... where they met an earlier run */
	uint64_t *digests;    /* the unfailed run's state before each event, or NULL */
	uint64_t ndigests;
	struct meet_table meet;   /* states forked runs reached, while forking with digests */
	uint32_t run;         /* a child: its run ... */
	size_t slot;          /* ... and its slot in the pool */
	uint64_t event;       /* events begun so far in this process's replay */
	uint64_t next_check;  /* a child: the event before which it compares states next ... */
	uint64_t check_step;  /* ... and the distance to the one after */
	uint64_t next_progress;                       /* in runs */
	double t0, next_progress_s;                   /* in seconds (CLOCK_MONOTONIC) */
	bool cached;    /* the trace is in the replay cache (the last replay read or wrote it) */
	bool uncacheable; /* the counting replay could not write it: the runs do without */
	bool forking;   /* fork at each hit (else rerun from scratch) */
	bool in_child;  /* this process is a child: hits pass, nothing forks */
	bool merging;   /* sweep_merge(): runs come from the shards' journals */
	int journal;    /* a shard: its journal, open for appending; or -1 */
	uint64_t work;  /* what defines the work, as the shards' headers say it */
	int error;      /* the first fork/wait error (negative errno), or 0 */
	char *err;
	size_t errlen;
};

/* ---- sweep.c ---------------------------------------------------------------- */

/**
 * sweep_init() - an empty sweep, ready for sweep_plan().
 * @s: the sweep.
 * @o: its options (must outlive it).
 * @err: where what goes wrong is said.
 * @errlen: size of @err.
 */
void sweep_init(struct sweep *s, const struct sweep_opts *o, char *err, size_t errlen);

/**
 * sweep_plan() - check the options, load the inputs and run the counting
 * pass: every run (hit) the sweep has, in the order the replay hits them.
 * @s: the sweep, from sweep_init().
 *
 * Return: 0, -EINVAL (bad input: @s->err says where), other negative errno.
 */
int sweep_plan(struct sweep *s);

/**
 * sweep_book() - count run @r's outcome, and list it as a failure (with
 * what it found) when it did not recover; a shard also adds it to its
 * journal.
 * @s: the sweep.
 * @r: the run.
 * @oc: its outcome.
 * @v: its verdict, or NULL when it said none (it crashed or hung).
 */
void sweep_book(struct sweep *s, uint32_t r, enum sweep_outcome oc, const struct verdict *v);

/**
 * sweep_totals_fill() - the totals of what has been booked.
 * @s: the sweep.
 * @t: out: its totals.
 */
void sweep_totals_fill(const struct sweep *s, struct sweep_totals *t);

/**
 * sweep_free() - free what a sweep holds; no child is left.
 * @s: the sweep, from sweep_init().
 */
void sweep_free(struct sweep *s);

/* ---- sweep_shard.c ---------------------------------------------------------- */

/**
 * sweep_shard_begin() - after the counting pass: the runs that are not this
 * shard's are skipped, and so are those its journal (OUT/shards/I-of-N)
 * has booked already when it is of the same work; the journal is made anew
 * otherwise, and kept open (and locked) for sweep_shard_add().
 * @s: the sweep, its options naming a shard.
 *
 * Return: 0, -EBUSY (another process runs this shard), other negative errno
 * (@s->err says what).
 */
int sweep_shard_begin(struct sweep *s);

/**
 * sweep_shard_add() - append run @r's record to the shard's journal: one
 * write, so that a shard killed at any time leaves whole records behind
 * (and at most a cut one at the end, dropped when it resumes).
 * @s: the sweep.
 * @r: the run.
 * @oc: its outcome.
 * @v: its verdict, or NULL.
 *
 * Return: 0, or a negative errno.
 */
int sweep_shard_add(struct sweep *s, uint32_t r, enum sweep_outcome oc, const struct verdict *v);

/**
 * sweep_shard_end() - flush the journal to its file system and close it.
 * @s: the sweep.
 *
 * Return: 0, or a negative errno (@s->err says what).
 */
int sweep_shard_end(struct sweep *s);

/* ---- sweep_report.c --------------------------------------------------------- */

/**
 * sweep_summary_write() - sort the failures, group them into findings, trim
 * each finding's reproducer (OUT/findings, made anew), and write
 * OUT/summary.json and OUT/summary.txt.
 * @s: the sweep, every run of it ended and booked.
 *
 * Return: 0, or a negative errno (@s->err says what).
 */
int sweep_summary_write(struct sweep *s);

/**
 * sweep_report_findings() - the findings, one line each, then the points no
 * run reached, for the command's output.
 * @s: the sweep, after sweep_summary_write().
 * @f: where to write them.
 */
void sweep_report_findings(const struct sweep *s, FILE *f);

#endif
