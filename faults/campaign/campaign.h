/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_FAULTS_CAMPAIGN_H
#define GPUISO_FAULTS_CAMPAIGN_H

#include <stdio.h>

#include "common/types.h"
#include "faults/campaign/shard.h"

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
	/*
	 * a part of the runs only, for gpuiso merge to report (no summary;
	 * OUT/shards/I-of-N says what campaign it is part of); count 0: all
	 */
	struct shard shard;
	FILE *progress;    /* progress lines, or NULL */
	const char *program; /* the gpuiso reproducers name (an absolute path), or NULL: "gpuiso" */
};

struct campaign_totals {
	unsigned int runs, passed, failed, resumed;
	unsigned int hung; /* of the failed: killed for making no progress or running out of time */
	unsigned int findings; /* the failed runs grouped by what broke (summary.json "findings") */
	unsigned int shard_runs; /* a shard: its runs (and no summary: the rest is 0 but resumed) */
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

/**
 * campaign_merge() - merge the shards of a campaign in OUT: when every run
 * of the campaign @h names has its outcome recorded, write the summary a
 * campaign run of all of them would have written.
 * @out: the output folder.
 * @h: the header of one of its shards (shard_find()).
 * @jobs: processes that trim the findings at once (0: one).
 * @progress: progress lines of the trimming, or NULL.
 * @program: the gpuiso the reproducers name (an absolute path), or NULL: "gpuiso".
 * @t: out: totals, as campaign_run() gives them.
 * @err: out: what went wrong; for missing runs, a line per shard that has
 *       them, saying which (all of them in OUT/shards/missing).
 * @errlen: size of @err.
 *
 * Return: 0, -ENODATA (runs are missing: nothing written but the list),
 * -EINVAL (the campaign file is malformed, or changed since the shards
 * ran), other negative errno.
 */
int campaign_merge(const char *out, const struct shard_header *h, unsigned int jobs,
		   FILE *progress, const char *program, struct campaign_totals *t, char *err,
		   size_t errlen);

#endif
