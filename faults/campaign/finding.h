/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_FAULTS_FINDING_H
#define GPUISO_FAULTS_FINDING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/json.h"
#include "replay/verdict.h"

/*
 * Findings: the runs of a sweep or a campaign that did not recover,
 * grouped by what broke. A finding's signature is the injected point, the
 * outcome, and the first violation's code or the invariants broken: nothing
 * that moves between nights (hit numbers, event indices, paths), so the
 * results store can tell a new finding from a known one. The operations
 * the fault was injected in are its contexts: one root cause met in eight
 * operations is one finding with eight contexts, not eight findings
 * (docs/campaign-format.md, "Findings").
 */

/* Who broke what a finding reports (docs/model.md, "Who broke it"). */
enum finding_blame {
	FINDING_BLAME_FAULT,  /* the OS side's direct consequence of the injected fault */
	FINDING_BLAME_DRIVER, /* the driver broke one of its rules */
	FINDING_BLAME_MODEL,  /* gpuiso itself: an impossible state, a crash, a hang */
};

/* One failing run, as grouped. */
struct finding_run {
	const char *point;   /* the injected point, or NULL (none was injected) */
	const char *op;      /* the operation it was injected in ("teardown"), or NULL (at start) */
	bool unrecorded;     /* whether and where it was injected is not known (point, op NULL) */
	const char *outcome; /* "reset", "violation", "crash", "hung", "failed" */
	const struct verdict *verdict; /* what it found, or NULL (it crashed, hung, or said nothing) */
};

/* Where a finding's fault was injected: an operation, and its runs there. */
struct finding_context {
	const char *op;             /* the operation ("teardown"), or NULL (at start) */
	uint64_t runs;
	uint64_t nth_min, nth_max;  /* the hits its runs failed (sweeps) */
};

/* More than a trace's kinds of operation, "start" and "teardown". */
#define FINDING_MAX_CONTEXTS 64

struct finding {
	uint64_t signature;   /* FNV-1a of key */
	char key[160];        /* point|outcome|what: what the signature hashes */
	char title[320];      /* one line a person reads (its contexts named) */
	enum finding_blame blame;
	const char *outcome;
	char code[32];        /* the first violation's, or "" */
	uint32_t broken;      /* invariants broken (verdict.broken) */
	const char *point, *op; /* @op: the context of its first run */
	uint64_t runs;
	uint64_t nth_min, nth_max;  /* the hits its runs failed (sweeps) */
	size_t first;         /* the caller's index of the run with the smallest nth */
	struct finding_context ctx[FINDING_MAX_CONTEXTS]; /* by operation name, start last */
	size_t nctx;
	char what[128];       /* what broke, as the title ends */
};

/* A finding's trimmed reproducer (replay/trim.h), checked to reproduce it. */
struct finding_trim {
	char trace[4096];     /* the trimmed trace's folder */
	uint64_t events, of;  /* its events, and the trace's */
};

struct finding_set {
	struct finding *v;
	size_t n, cap;
};

/**
 * finding_add() - count run @run in the finding it belongs to, new or not.
 * @set: the findings so far.
 * @r: the run.
 * @nth: the hit it failed, or 0.
 * @run: the caller's index of the run.
 *
 * Return: 0 or -ENOMEM.
 */
int finding_add(struct finding_set *set, const struct finding_run *r, uint64_t nth, size_t run);

/**
 * finding_cmp() - qsort() order of findings, most telling first: gpuiso's
 * own bugs, then the driver's, then the faults'; then more runs first;
 * then by key, so that the order does not depend on the order of the runs.
 * @a: a struct finding.
 * @b: another.
 *
 * Return: < 0 when @a comes first, > 0 when @b does, 0 for the same key.
 */
int finding_cmp(const void *a, const void *b);

/**
 * finding_set_free() - free the findings.
 * @set: the set (all zero, or filled by finding_add()).
 */
void finding_set_free(struct finding_set *set);

/**
 * finding_blame_name() - "fault", "driver" or "model".
 * @b: the blame.
 *
 * Return: the name.
 */
const char *finding_blame_name(enum finding_blame b);

/**
 * finding_json() - one finding as an object of a summary's "findings".
 * @j: the writer.
 * @f: the finding.
 * @with_nth: write its range of hits (a sweep's).
 * @reproduce: the command that reproduces it (on the trimmed trace when
 *             there is one), or NULL.
 * @trim: its trimmed trace, or NULL (none).
 * @full: with @trim: the command on the whole trace.
 */
void finding_json(struct json *j, const struct finding *f, bool with_nth, const char *reproduce,
		  const struct finding_trim *trim, const char *full);

/**
 * finding_section() - the heading of the section finding @i of a set in
 * finding_cmp() order starts, if it starts one: the actionable findings
 * (gpuiso's own, the driver's) are set apart from the expected
 * consequences of the injected faults.
 * @set: the findings, sorted.
 * @i: one of them.
 *
 * Return: the heading (one line, no line break), or NULL.
 */
const char *finding_section(const struct finding_set *set, size_t i);

/**
 * finding_contexts_text() - "   in OP (N runs, hits A..B), ...": a finding's
 * contexts as a line of a summary's text, when there are more than one.
 * @f: where to write.
 * @fd: the finding.
 * @with_nth: with each context's range of hits (a sweep's).
 */
void finding_contexts_text(FILE *f, const struct finding *fd, bool with_nth);

/**
 * finding_verdict_json() - a run's verdict as keys of the current object:
 * "findings" (the first ones), "findings_total" and "invariants_broken".
 * @j: the writer.
 * @v: the verdict.
 */
void finding_verdict_json(struct json *j, const struct verdict *v);

#endif
