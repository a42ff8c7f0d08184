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
 *   report.c         progress lines, summary.json and summary.txt
 *   campaign.c       campaign_run(): the above, with the process pool (pool.h)
 */

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "campaign.h"
#include "core/scenario.h"
#include "faults/plan.h"
#include "replay/replay.h"

#define CAMPAIGN_NAME_LEN 64      /* a run's name, a trace's folder name in run ids */
#define CAMPAIGN_ID_LEN 200       /* <run>-<trace>-s<seed>[-r<rep>] */
#define CAMPAIGN_REASON_LEN 512
#define CAMPAIGN_OUTCOME_SCHEMA "gpuiso-campaign-run/1"
#define CAMPAIGN_RUN_PATH_LEN (PATH_MAX + CAMPAIGN_ID_LEN + 32)

/* The invariants a campaign may require (replay/engine.c engine_finish()). */
#define CAMPAIGN_NINVARIANTS 6
extern const char *const campaign_invariants[CAMPAIGN_NINVARIANTS];

/* One entry of runs: its name, its plan, and that plan as a standalone file. */
struct camp_run {
	char name[CAMPAIGN_NAME_LEN];
	struct fault_plan plan;
	char *faults_yaml; /* faults: and pressure: as the campaign gave them (malloc) */
};

struct camp_trace {
	char path[PATH_MAX];  /* absolute */
	char base[CAMPAIGN_NAME_LEN];  /* its folder name, as run ids carry it */
};

/* One replay of the campaign. */
struct camp_job {
	size_t run, trace;
	uint64_t seed;
	uint32_t rep;   /* 1-based */
	char id[CAMPAIGN_ID_LEN];
	uint64_t key;   /* what defines the run: a finished one is resumed only if it matches */
	bool resumed;
};

/* The outcome record DIR/runs/<id>.outcome: written when a run ends. */
struct camp_outcome {
	uint64_t key;
	bool has_results;  /* <id>.json was written, and hashes to @results */
	uint64_t results;
	bool failed;
	bool hung;         /* failed: it made no progress, or ran out of time, and was killed */
	char reason[CAMPAIGN_REASON_LEN];
};

struct campaign {
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
	unsigned int run_timeout_s;   /* campaign_opts.run_timeout_s */
	unsigned int stall_timeout_s; /* campaign_opts.stall_timeout_s (0: WATCH_STALL_S) */
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

#endif
