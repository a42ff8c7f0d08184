/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_FAULTS_SWEEP_INTERNAL_H
#define GPUISO_FAULTS_SWEEP_INTERNAL_H

/*
 * What the files of a sweep share (sweep.h is the public side). Each file
 * has one job, and each uses only those above it:
 *
 *   sweep_load.c    sweep_prepare(): the options checked, the inputs loaded
 *                   (import maps, base plan, scenario), the points selected
 *                   and the output folder made, before any replay
 *   sweep_report.c  findings and their trimmed reproducers, summary.json,
 *                   summary.txt and the command's finding lines
 *   sweep.c         sweep_run(): the counting pass, the runs (forked at each
 *                   hit or from scratch) in the pool, their outcomes booked;
 *                   then the report, or the shard's journal
 *   sweep_persist.c the runs branched at each hit in persistent workers,
 *                   which restore a snapshot (common/snap.h) after each
 *   sweep_shard.c   a shard's part of the runs and its journal
 *                   (OUT/shards/I-of-N); sweep_merge(): the report from
 *                   every shard's journal
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/progress.h"
#include "core/scenario.h"
#include "faults/faults.h"
#include "faults/plan.h"
#include "faults/campaign/finding.h"
#include "faults/campaign/finding_trim.h"
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
/* added to the status of a run that stopped where it met the unfailed run */
#define SWEEP_EXIT_MET 8
/* the status of a run that stopped where an earlier run had been (meet_follow()) */
#define SWEEP_EXIT_FOLLOWS (SWEEP_EXIT_BASE + 16)

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
	struct finding_repro *repro;                  /* per finding */
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
	double t0;                                    /* the start (CLOCK_MONOTONIC seconds) */
	struct progress runs_progress;                /* of the runs ended */
	bool cached;    /* the trace is in the replay cache (the last replay read or wrote it) */
	bool uncacheable; /* the counting replay could not write it: the runs do without */
	bool forking;   /* fork at each hit (else rerun from scratch) */
	bool persisting; /* ... or rather branch at each hit in persistent workers */
	struct sweep_persist *persist; /* a persistent worker: its state; NULL elsewhere */
	bool in_child;  /* this process is a child: hits pass, nothing forks */
	bool merging;   /* sweep_merge(): runs come from the shards' journals */
	int journal;    /* a shard: its journal, open for appending; or -1 */
	uint64_t work;  /* what defines the work, as the shards' headers say it */
	int error;      /* the first fork/wait error (negative errno), or 0 */
	char *err;
	size_t errlen;
};

/* ---- sweep_load.c ----------------------------------------------------------- */

/**
 * sweep_prepare() - everything that can be wrong before a replay: check the
 * options, find the trace, read the import maps and the base plan, select
 * the points, make the output folder, load the scenario, take the absolute
 * paths reproducers name, and make the pool of the runs.
 * @s: the sweep, from sweep_init().
 *
 * Return: 0, -EINVAL (bad input: @s->err says where), other negative errno.
 */
int sweep_prepare(struct sweep *s);

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

/**
 * sweep_replay() - run one replay with @fp. A run that has begun (in a
 * child, or branched in a worker) leaves through sweep_run_leave() and
 * does not return.
 * @s: the sweep.
 * @fp: its fault rules and observer.
 * @before_event: called before each event (progress, meets, the counting pass's digests).
 * @outcome: out: the replay's outcome.
 *
 * Return: 0, -EINVAL (bad input: @s->err says where), other negative errno.
 */
int sweep_replay(struct sweep *s, struct fp_ctx *fp,
		 void (*before_event)(const struct replay_engine *, uint64_t, void *),
		 enum sweep_outcome *outcome);

/**
 * sweep_fp_observe() - arm @fp with the base plan's rules and every
 * selected point observed through @observe.
 * @s: the sweep.
 * @fp: out: the rules.
 * @observe: called at each hit of a selected point.
 * @arg: for @observe.
 */
void sweep_fp_observe(const struct sweep *s, struct fp_ctx *fp,
		      bool (*observe)(void *, enum fp_point, uint64_t), void *arg);

/**
 * sweep_fork_event() - before each event of the replay that runs branch at
 * its hits: progress, and where a run that has begun meets another.
 * @e: the engine.
 * @index: the event's index.
 * @arg: the sweep.
 */
void sweep_fork_event(const struct replay_engine *e, uint64_t index, void *arg);

/**
 * sweep_hit_expected() - check that hit @hit of @p is run @run, where the
 * counting pass had it; say otherwise in @s->err and @s->error.
 * @s: the sweep.
 * @run: the hits reached so far in this replay, this one left out.
 * @p: the point.
 * @hit: its hit count.
 *
 * Return: true when it is.
 */
bool sweep_hit_expected(struct sweep *s, uint64_t run, enum fp_point p, uint64_t hit);

/**
 * sweep_hits_check() - after a replay that ran every hit: each point was
 * hit as often as in the counting pass (else @s->error and @s->err say so).
 * @s: the sweep.
 * @fp: the replay's rules, with their hit counts.
 */
void sweep_hits_check(struct sweep *s, const struct fp_ctx *fp);

/**
 * sweep_meet_init() - the table of states runs reach, when there are digests to meet.
 * @s: the sweep, after its counting pass.
 *
 * Return: 0 or -ENOMEM.
 */
int sweep_meet_init(struct sweep *s);

/**
 * sweep_run_leave() - a run that has begun ends: leave with @status (an
 * exit status SWEEP_EXIT_BASE + outcome, with SWEEP_EXIT_MET added when
 * it met the unfailed run, SWEEP_EXIT_FOLLOWS or SWEEP_EXIT_ERROR) and
 * what it found. A forked child exits; a branch in a worker goes back to
 * where it was branched. Does not return.
 * @s: the sweep.
 * @status: the status.
 * @v: its verdict, or NULL (one that recovered is not sent).
 */
_Noreturn void sweep_run_leave(struct sweep *s, int status, const struct verdict *v);

/**
 * sweep_run_ended() - book run @r, which ended with @status (as
 * sweep_run_leave() said it, or a wait status): its outcome, or that it
 * follows another run (booked by book_followers()).
 * @s: the sweep.
 * @r: the run.
 * @status: a wait status.
 * @killed: the watch killed it (hung).
 * @v: the verdict it sent, or NULL.
 */
void sweep_run_ended(struct sweep *s, uint32_t r, int status, bool killed, const struct verdict *v);

/**
 * sweep_progress() - the runs ended, and how many did not recover, as a
 * progress report (common/progress.h): a bar on a terminal, else a line
 * every few seconds.
 * @s: the sweep.
 */
void sweep_progress(struct sweep *s);

/**
 * sweep_reap_all() - wait for every child and book it; when waiting fails, kill the rest.
 * @s: the sweep.
 *
 * Return: 0 or a negative errno.
 */
int sweep_reap_all(struct sweep *s);

/* ---- sweep_persist.c -------------------------------------------------------- */

/**
 * sweep_persist_available() - whether runs can branch in persistent workers
 * here; where they cannot, say why on the progress stream (or stderr).
 * @s: the sweep, after its counting pass.
 *
 * Return: true when they can.
 */
bool sweep_persist_available(struct sweep *s);

/**
 * sweep_persist_pass() - every run of the sweep, branched at its hit in a
 * worker that replays the trace once and restores its snapshot after each
 * run; a worker that crashes or hangs is replaced, its run booked as such,
 * and the rest of its runs done by the next. Each run is booked as it ends.
 * @s: the sweep, after its counting pass.
 *
 * Return: 0, or a negative errno (@s->err says what).
 */
int sweep_persist_pass(struct sweep *s);

/**
 * sweep_persist_leave() - in a worker's branch: book the run's @status and
 * @v for the parent, and go back to where the branch began.
 * @s: the sweep.
 * @status: as sweep_run_leave().
 * @v: the verdict, or NULL.
 */
_Noreturn void sweep_persist_leave(struct sweep *s, int status, const struct verdict *v);

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
