/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_FAULTS_CAMPAIGN_INTERNAL_H
#define GPUISO_FAULTS_CAMPAIGN_INTERNAL_H

/*
 * What the files of a campaign share (campaign.h is the public side). Each
 * file has one job, and each uses only those above it:
 *
 *   campaign_file.c  read and check a campaign file; plan its runs (ids, keys)
 *   record.c         a run's files in DIR/runs: faults file, outcome record
 *   judge.c          a run's outcome: from its results, or from how it ended
 *   report.c         progress lines; the findings, their reproducers trimmed
 *                    (finding_trim.h, shared with sweeps); summary.json and
 *                    summary.txt
 *   campaign_shard.c a shard's part of the runs; campaign_merge()
 *   campaign.c       campaign_run(): the above, with the process pool (pool.h)
 */

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "campaign.h"
#include "core/scenario.h"
#include "faults/faults.h"
#include "faults/campaign/pool.h"
#include "faults/plan.h"
#include "replay/replay.h"
#include "replay/verdict.h"

#define CAMPAIGN_NAME_LEN 64      /* a run's name, a trace's folder name in run ids */
#define CAMPAIGN_ID_LEN 200       /* <run>-<trace>-s<seed>[-r<rep>] */
#define CAMPAIGN_REASON_LEN 512
#define CAMPAIGN_OUTCOME_SCHEMA "gpuiso-campaign-run/1"
#define CAMPAIGN_RUN_PATH_LEN (PATH_MAX + CAMPAIGN_ID_LEN + 32)

/* The invariants a campaign may require (replay/engine_findings.c engine_finish()). */
#define CAMPAIGN_NINVARIANTS 6
extern const char *const campaign_invariants[CAMPAIGN_NINVARIANTS];

/* One entry of runs: its name, its plan, and that plan as a standalone file. */
struct camp_run {
	char name[CAMPAIGN_NAME_LEN];
	struct fault_plan plan;
	char *faults_yaml; /* faults: and pressure: as the campaign gave them (malloc) */
};

/* One entry of traces: a CTF folder or a trace.dat file, and the import maps it replays through. */
struct camp_trace {
	char path[PATH_MAX];  /* absolute */
	char base[CAMPAIGN_NAME_LEN];  /* its name in run ids: the entry's name, or the folder's or file's */
	char *maps[REPLAY_MAX_MAPS];   /* its import maps, absolute (malloc), in order */
	size_t nmaps;
	uint64_t maps_hash;  /* of their text: an edited map makes finished runs stale */
};

/* One replay of the campaign. */
struct camp_job {
	size_t run, trace;
	uint64_t seed;
	uint32_t rep;   /* 1-based */
	char id[CAMPAIGN_ID_LEN];
	uint64_t key;   /* what defines the run: a finished one is resumed only if it matches */
	bool resumed;
	bool other;     /* another shard's run */
};

/* What an outcome record says of a run's verdict, or of where it injected first. */
enum camp_known {
	CAMP_NOT_RECORDED = 0, /* nothing: the record was written by a gpuiso before these lines */
	CAMP_UNKNOWN,          /* the run ended without saying (crashed, hung, or not replayed) */
	CAMP_KNOWN,            /* recorded */
};

/* Where a run's first failure was injected (struct fp_injection, as recorded). */
struct camp_injection {
	enum camp_known known;
	bool any;             /* known: a failure was injected, and the rest says where */
	enum fp_point point;
	uint64_t nth, event, ts;
	char op[48];          /* its operation, or "" (at start) */
	char site[64];        /* the function of the model that asked, or "" */
};

/* The outcome record DIR/runs/<id>.outcome: written when a run ends. */
struct camp_outcome {
	uint64_t key;
	bool has_results;  /* <id>.json was written, and hashes to @results */
	uint64_t results;
	bool failed;
	bool hung;         /* failed: it made no progress, or ran out of time, and was killed */
	char reason[CAMPAIGN_REASON_LEN];
	enum camp_known has_verdict; /* CAMP_KNOWN: @verdict is the run's (it replayed to the end) */
	struct verdict verdict;
	struct camp_injection injected;
};

struct campaign {
	const char *program;   /* the gpuiso reproducers name, or NULL: "gpuiso" (not owned) */
	unsigned int workers;  /* processes at once (campaign_opts.jobs; 0: one) */
	FILE *progress;        /* progress lines, or NULL */
	char name[128];
	char folder[PATH_MAX]; /* the campaign file's folder: relative paths fall back to it */
	struct camp_trace *traces;
	size_t ntraces;
	bool has_scenario;
	char scenario[PATH_MAX];
	uint64_t scenario_hash;  /* of its text: an edited scenario makes finished runs stale */
	struct scenario scn;
	uint64_t *seeds;
	size_t nseeds;
	uint32_t reps;
	struct camp_run *runs;
	size_t nruns;
	bool required[CAMPAIGN_NINVARIANTS];
	enum trace_covers covers; /* what its traces cover (trace_covers:, default window) */
	struct camp_job *jobs;
	size_t njobs;
	char out[PATH_MAX];      /* the output folder, absolute */
	char scn_err[4096];      /* the scenario's own errors, shown after the campaign's */
	char maps_err[4096];     /* ... and the import maps' */
	int maps_rc;             /* an import_map_load() that failed for the machine, or 0 */
	int scn_rc;              /* scenario_load()'s return */
	unsigned int run_timeout_s;   /* campaign_opts.run_timeout_s */
	unsigned int stall_timeout_s; /* campaign_opts.stall_timeout_s (0: WATCH_STALL_S) */
};

/* Progress lines: "[3/12] pin-always-fails power-cycle s2: passed". */
struct camp_progress {
	FILE *f;     /* or NULL: none are written */
	size_t done;
	size_t total; /* the runs to count to: all, or a shard's */
};

/* ---- campaign_file.c ---------------------------------------------------- */

/**
 * campaign_load() - read and check the whole campaign file, and plan its
 * runs: every (run, trace, seed, repetition), with its id and key.
 * @file: the campaign YAML.
 * @c: out: the campaign (all zero on entry; campaign_free() it whatever
 *     this returns).
 * @err: out: "FILE:LINE:COL: error: ..." lines, then the scenario's own.
 * @errlen: size of @err.
 *
 * Return: 0, -EINVAL (a missing or malformed file: @err says where), -ENOMEM.
 */
int campaign_load(const char *file, struct campaign *c, char *err, size_t errlen);

/**
 * campaign_free() - free a campaign and what it holds.
 * @c: from calloc(), loaded or not.
 */
void campaign_free(struct campaign *c);

/* ---- record.c ----------------------------------------------------------- */

/**
 * campaign_job_path() - the path of one of a run's files: DIR/runs/ID@suffix.
 * @c: the campaign (its output folder set).
 * @j: the run.
 * @suffix: ".json", ".faults.yaml" or ".outcome".
 * @buf: out: the path.
 * @len: size of @buf.
 *
 * Return: 0 or -ENAMETOOLONG.
 */
int campaign_job_path(const struct campaign *c, const struct camp_job *j, const char *suffix,
		      char *buf, size_t len);

/**
 * campaign_reproduce_cmd() - the shell command that replays run @j alone:
 * "gpuiso replay TRACE [--map M]... [--scenario S] --faults DIR/runs/ID.faults.yaml
 * --seed N [--trace-covers life]".
 * @c: the campaign.
 * @j: the run.
 * @out: out: the command (malloc).
 *
 * Return: 0, -ENAMETOOLONG or -ENOMEM.
 */
int campaign_reproduce_cmd(const struct campaign *c, const struct camp_job *j, char **out);

/**
 * campaign_one_line() - keep a text on one line: records and comments are line based.
 * @s: the text, changed in place (line breaks become spaces).
 */
void campaign_one_line(char *s);

/**
 * campaign_faults_write() - write DIR/runs/ID.faults.yaml, then read it back
 * as `gpuiso replay --faults` will: the reproduce command must replay
 * exactly this run's plan.
 * @c: the campaign.
 * @j: the run.
 * @err: out: what went wrong (set only when it is empty).
 * @errlen: size of @err.
 *
 * Return: 0, -ENOTRECOVERABLE (it reads back otherwise: gpuiso's own
 * bug), other negative errno.
 */
int campaign_faults_write(const struct campaign *c, const struct camp_job *j, char *err,
			  size_t errlen);

/**
 * campaign_outcome_write() - write the outcome record DIR/runs/ID.outcome:
 * the five lines an older gpuiso wrote too, then the run's verdict (unless
 * it is CAMP_NOT_RECORDED) and where it injected first (likewise).
 * @c: the campaign.
 * @j: the run.
 * @oc: its outcome (its reason on one line: campaign_one_line()).
 *
 * Return: 0, -ENOMEM, or the negative errno of writing it.
 */
int campaign_outcome_write(const struct campaign *c, const struct camp_job *j,
			   const struct camp_outcome *oc);

/**
 * campaign_outcome_read() - read the outcome record DIR/runs/ID.outcome.
 * @c: the campaign.
 * @j: the run.
 * @oc: out: the outcome (its key is the record's: compare it with @j's);
 *      an older gpuiso's record has neither verdict nor injection
 *      (CAMP_NOT_RECORDED).
 *
 * Return: true, or false when it is missing or not an outcome record.
 */
bool campaign_outcome_read(const struct campaign *c, const struct camp_job *j,
			   struct camp_outcome *oc);

/**
 * campaign_job_finished() - whether an earlier invocation finished run @j:
 * its record has @j's key and its results are intact.
 * @c: the campaign.
 * @j: the run.
 *
 * Return: true when it need not run again.
 */
bool campaign_job_finished(const struct campaign *c, const struct camp_job *j);

/* ---- judge.c ------------------------------------------------------------ */

/**
 * campaign_child_run() - in the child of run @j: replay it, write its
 * results JSON, judge them and write its outcome record, beating @beat as
 * it goes.
 * @c: the campaign.
 * @j: the run.
 * @beat: its slot's beat (pool_beat()).
 *
 * A run fails for each invariant the campaign requires that it broke, for
 * the verifier's violations, and when its trace could not be replayed.
 *
 * Return: 0, or the errno (positive: it becomes the child's exit status)
 * of what could not be written.
 */
int campaign_child_run(const struct campaign *c, const struct camp_job *j,
		       struct watch_beat *beat);

/**
 * campaign_judge_end() - in the parent: judge a run from how its child
 * ended, and write its outcome record when the child could not (killed as
 * hung, crashed, or exited with an errno).
 * @c: the campaign.
 * @p: the pool.
 * @i: the run's slot (its job, and why it was killed).
 * @status: the child's wait status.
 */
void campaign_judge_end(const struct campaign *c, const struct pool *p, size_t i, int status);

/* ---- report.c ----------------------------------------------------------- */

/**
 * campaign_progress_line() - count run @j as done, and say how it ended:
 * "[3/12] pin-always-fails power-cycle s2: passed".
 * @pg: the progress lines.
 * @c: the campaign.
 * @j: the run.
 * @oc: its outcome, or NULL when none was recorded.
 */
void campaign_progress_line(struct camp_progress *pg, const struct campaign *c,
			    const struct camp_job *j, const struct camp_outcome *oc);

/**
 * campaign_summary_write() - write DIR/summary.json and DIR/summary.txt,
 * rebuilt from the outcome records of every run.
 * @c: the campaign.
 * @t: out: its totals.
 * @err: out: what could not be written.
 * @errlen: size of @err.
 *
 * Return: 0, or a negative errno.
 */
int campaign_summary_write(const struct campaign *c, struct campaign_totals *t, char *err,
			   size_t errlen);

/**
 * campaign_judge() - whether a replayed run failed, and why: the invariants
 * the campaign requires that it broke, an internal error of the model
 * (invariant model_sound, whatever the file requires: never hidden), and
 * the verifier's violations.
 * @c: the campaign.
 * @res: the run's results.
 * @oc: out: failed and reason (the rest is left as it is).
 */
void campaign_judge(const struct campaign *c, const struct results *res, struct camp_outcome *oc);

/* ---- campaign_shard.c --------------------------------------------------- */

/**
 * campaign_shard_begin() - mark the runs that are not shard @sh's, and write
 * OUT/shards/I-of-N, which names the campaign for the merge. A summary of
 * an earlier run is removed: the merge writes the next one.
 * @c: the campaign, its output folder made.
 * @file: its file, as campaign_load() was given it.
 * @sh: the shard.
 * @err: out: what went wrong.
 * @errlen: size of @err.
 *
 * Return: 0, or a negative errno.
 */
int campaign_shard_begin(struct campaign *c, const char *file, const struct shard *sh, char *err,
			 size_t errlen);

#endif
