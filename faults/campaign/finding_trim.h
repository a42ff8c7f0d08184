/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_FAULTS_CAMPAIGN_FINDING_TRIM_H
#define GPUISO_FAULTS_CAMPAIGN_FINDING_TRIM_H

#include <stdbool.h>
#include <stdio.h>

#include "faults/campaign/finding.h"
#include "faults/campaign/pool.h"
#include "replay/trim.h"

/*
 * A finding's reproducer, trimmed (replay/trim.h) in a child of a pool of
 * its own, so that a trim that crashes or hangs costs that finding's
 * trimmed trace and not the sweep or campaign: what sweeps and campaigns
 * share once their findings are known.
 */

/*
 * Replays one finding's trimming may spend: a trim that needs more writes
 * the smallest trace it found so far (checked all the same), so a sweep or
 * campaign is never held up for long by its findings.
 */
#define FINDING_TRIM_REPLAYS 1000

/* How a finding is reproduced: on its trimmed trace when it could be trimmed. */
struct finding_repro {
	char *cmd;        /* the command (on the trimmed trace, checked), or NULL (out of memory) */
	char *whole;      /* the command on the whole trace (the caller's, malloc'ed) */
	bool trimmed;
	struct finding_trim trim;
	char why[4608];   /* not trimmed: why (the caller may say it first: not tried) */
};

/* What finding_trim_all() needs of its caller. */
struct finding_trimmer {
	const struct finding_set *findings;
	struct finding_repro *repro;  /* per finding */
	struct pool *pool;            /* its free slots run the trims */
	const char *out;              /* finding F's trimmed trace: OUT/findings/SIGNATURE/trace */
	const char *who;              /* "sweep", "campaign": for progress lines */
	FILE *progress;               /* progress lines, or NULL */
	int exit_error;               /* a child's exit status when it cannot report */
	/* finding @i's trim, but for what finding_trim_all() sets (out, budget, beat) */
	void (*opts)(void *arg, size_t i, struct trim_opts *to);
	void *arg;
};

/**
 * finding_trim_all() - trim each finding's reproducer into OUT/findings
 * (made anew), and give each finding the command that reproduces it: on
 * its trimmed trace, checked from disk, or else its whole one.
 * @ft: the findings, the pool and the caller's trim options; a finding
 *      whose repro.why the caller has set is not trimmed.
 * @err: out: why it stopped.
 * @errlen: size of @err.
 *
 * Beside each trimmed trace TRACE, its events as text are written to
 * TRACE.txt (as `gpuiso trace dump` writes them). A finding that could not
 * be trimmed says why in its repro.why.
 *
 * Return: 0, or a negative errno of removing the last findings, waiting or
 * the pool.
 */
int finding_trim_all(const struct finding_trimmer *ft, char *err, size_t errlen);

/**
 * finding_repro_text() - a finding's reproducer in a summary.txt: the
 * command, then on what trace it runs (the trimmed one, with the command on
 * the whole trace; or the whole one, and why).
 * @f: where.
 * @r: the reproducer.
 */
void finding_repro_text(FILE *f, const struct finding_repro *r);

/**
 * finding_repro_free() - free the commands of @n reproducers, and the array.
 * @r: from calloc(), or NULL.
 * @n: how many.
 */
void finding_repro_free(struct finding_repro *r, size_t n);

#endif
