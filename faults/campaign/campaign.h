/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_FAULTS_CAMPAIGN_H
#define GPUISO_FAULTS_CAMPAIGN_H

#include <stdio.h>

#include "common/types.h"

/*
 * Fault-injection campaigns (docs/campaign-format.md): traces x seeds x runs
 * (each a faults plan and pressure schedule), executed by N worker processes
 * into an output folder; resumable. A run that stops making progress is
 * killed and fails as hung.
 */

struct campaign_opts {
	const char *file;  /* the campaign YAML */
	const char *out;   /* output folder */
	unsigned int jobs; /* worker processes (>= 1) */
	/* a run still going after this long is killed and fails as hung; 0: no limit */
	unsigned int run_timeout_s;
	/* a run that makes no progress for this long is killed and fails as hung; 0: 60 s */
	unsigned int stall_timeout_s;
	FILE *progress;    /* progress lines (a terminal), or NULL */
};

struct campaign_totals {
	unsigned int runs, passed, failed, resumed;
	unsigned int hung; /* of the failed: killed for making no progress or running out of time */
	unsigned int findings; /* the failed runs grouped by what broke (summary.json "findings") */
};

/**
 * campaign_run() - run (or resume) a campaign.
 * @o: options.
 * @t: out: totals.
 * @err: out: what went wrong ("FILE:LINE:COL: error: ..." lines for a bad campaign file).
 * @errlen: size of @err.
 *
 * Return: 0 when every run was executed (failures are findings in @t), -EINVAL
 * for a malformed campaign (nothing ran), other negative errno.
 */
int campaign_run(const struct campaign_opts *o, struct campaign_totals *t, char *err,
		 size_t errlen);

/**
 * campaign_check() - read and check a campaign file, running nothing: what
 * campaign_run() does first (the traces and scenario it names are looked
 * up, and the scenario loaded).
 * @file: the campaign YAML.
 * @err: out: "FILE:LINE:COL: error: ..." lines when it is malformed.
 * @errlen: size of @err.
 *
 * Return: 0 for a file campaign_run() would run, -EINVAL for a malformed
 * one, -ENOMEM.
 */
int campaign_check(const char *file, char *err, size_t errlen);

#endif
