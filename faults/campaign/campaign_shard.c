/* SPDX-License-Identifier: MIT */
/*
 * A campaign in shards (shard.h; docs/slurm.md). Its runs, in the
 * campaign's order, are split into contiguous parts of about equal expected
 * cost, a run's cost being the size of its trace's files; each shard runs
 * its part into the shared output folder, where each run's outcome record
 * (record.c) already makes it resumable. OUT/shards/I-of-N names the
 * campaign file for the merge, which writes the summary once every run's
 * record is there, and lists the runs that are not, shard by shard.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "common/atomic_file.h"
#include "common/digest.h"
#include "common/path.h"
#include "faults/campaign/campaign_internal.h"
#include "faults/campaign/shard.h"

/* What defines the campaign's work: its runs and what defines each. */
static uint64_t work_of(const struct campaign *c)
{
	uint64_t w = DIGEST_FOLD(DIGEST_FNV_BASIS, c->njobs);

	for (size_t i = 0; i < c->njobs; i++)
		w = DIGEST_FOLD(w, c->jobs[i].key);
	return w;
}

/* Each run's shard: parts of about equal size of the traces' files. */
static int owners_of(const struct campaign *c, uint32_t count, uint32_t **owner, char *err,
		     size_t errlen)
{
	uint64_t *bytes = calloc(c->ntraces, sizeof(*bytes));
	uint64_t *cost = calloc(c->njobs ? c->njobs : 1, sizeof(*cost));
	int rc = bytes && cost ? 0 : -ENOMEM;

	*owner = calloc(c->njobs ? c->njobs : 1, sizeof(**owner));
	if (!*owner)
		rc = -ENOMEM;
	for (size_t i = 0; !rc && i < c->ntraces; i++) {
		rc = path_bytes(c->traces[i].path, &bytes[i]);
		if (rc)
			snprintf(err, errlen, "campaign: %s: %s", c->traces[i].path, strerror(-rc));
	}
	for (size_t i = 0; !rc && i < c->njobs; i++)
		cost[i] = bytes[c->jobs[i].trace];
	if (!rc)
		shard_split(cost, c->njobs, count, *owner);
	free(cost);
	free(bytes);
	if (rc) {
		free(*owner);
		*owner = NULL;
	}
	return rc;
}

int campaign_shard_begin(struct campaign *c, const char *file, const struct shard *sh, char *err,
			 size_t errlen)
{
	struct shard_header h = { .sh = *sh, .work = work_of(c) };
	char path[PATH_MAX + 32], abs[PATH_MAX], *text = NULL;
	uint32_t *owner = NULL;
	size_t len = 0;
	FILE *f;
	int rc = owners_of(c, sh->count, &owner, err, errlen);

	if (rc)
		return rc;
	for (size_t i = 0; i < c->njobs; i++)
		c->jobs[i].other = owner[i] != sh->index;
	free(owner);
	snprintf(h.kind, sizeof(h.kind), "campaign");
	rc = realpath(file, abs) ? shard_field_add(&h, "campaign", abs) : -errno;
	if (!rc)
		rc = shard_path(c->out, sh, path, sizeof(path));
	if (!rc)
		rc = path_mkdir_parent(path);
	if (!rc && !(f = open_memstream(&text, &len)))
		rc = -ENOMEM;
	if (!rc) {
		shard_header_write(f, &h);
		rc = fclose(f) ? -ENOMEM : atomic_file_write(path, text, len);
	}
	if (!rc)
		rc = shard_summary_remove(c->out);
	if (rc && !*err)
		snprintf(err, errlen, "campaign: %s/shards: %s", c->out, strerror(-rc));
	free(text);
	shard_header_free(&h);
	return rc;
}

/*
 * The runs without an outcome: a line per shard in @err, every one in
 * OUT/shards/missing. Return: -ENODATA.
 */
static int merge_missing(const struct campaign *c, const bool *done, const uint32_t *owner,
			 uint32_t count, char *err, size_t errlen)
{
	FILE *all = shard_missing_begin(c->out), *f;
	char *ids = NULL;
	size_t len = 0;

	for (uint32_t k = 0; k < count; k++) {
		const struct shard sh = { k, count };
		size_t missing = 0, of = 0;

		f = open_memstream(&ids, &len);
		if (!f)
			break;
		for (size_t i = 0; i < c->njobs; i++) {
			if (owner[i] != k)
				continue;
			of++;
			if (done[i])
				continue;
			if (all)
				fprintf(all, "shard %u/%u: %s\n", k, count, c->jobs[i].id);
			if (missing++ < SHARD_MISSING_SHOWN)
				fprintf(f, "%s%s", missing > 1 ? ", " : "", c->jobs[i].id);
		}
		if (missing > SHARD_MISSING_SHOWN)
			fputs(", ...", f);
		fclose(f);
		if (missing)
			shard_missing_say(err, errlen, &sh, missing, of, "", ids);
		free(ids);
		ids = NULL;
	}
	return shard_missing_end(all, c->out, err, errlen);
}

int campaign_merge(const char *out, const struct shard_header *h, unsigned int jobs,
		   FILE *progress, const char *program, struct campaign_totals *t, char *err,
		   size_t errlen)
{
	const char *file = shard_field(h, "campaign");
	struct campaign *c = calloc(1, sizeof(*c));
	uint32_t *owner = NULL;
	bool *done = NULL, all_done = true;
	int rc;

	memset(t, 0, sizeof(*t));
	if (!c)
		return -ENOMEM;
	if (!file) {
		snprintf(err, errlen, "merge: %s/shards: a campaign shard's header names no campaign", out);
		rc = -EINVAL;
		goto free_campaign;
	}
	rc = campaign_load(file, c, err, errlen);
	if (rc)
		goto free_campaign;
	c->program = program;
	c->workers = jobs;
	c->progress = progress;
	if (!realpath(out, c->out)) {
		rc = -errno;
		snprintf(err, errlen, "merge: %s: %s", out, strerror(-rc));
		goto free_campaign;
	}
	if (work_of(c) != h->work) {
		snprintf(err, errlen, "merge: %s: the campaign changed since its shards ran (its runs "
			 "are not theirs): run them again", file);
		rc = -EINVAL;
		goto free_campaign;
	}
	done = calloc(c->njobs ? c->njobs : 1, sizeof(*done));
	rc = done ? owners_of(c, h->sh.count, &owner, err, errlen) : -ENOMEM;
	if (rc)
		goto free_campaign;
	for (size_t i = 0; i < c->njobs; i++) {
		done[i] = campaign_job_finished(c, &c->jobs[i]);
		all_done &= done[i];
	}
	rc = all_done ? campaign_summary_write(c, t, err, errlen)
		      : merge_missing(c, done, owner, h->sh.count, err, errlen);
free_campaign:
	free(owner);
	free(done);
	campaign_free(c);
	return rc;
}
