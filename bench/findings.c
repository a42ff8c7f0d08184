/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fnmatch.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/array.h"
#include "common/digest.h"
#include "common/u64map.h"
#include "findings.h"

const char *finding_state_name(enum finding_state state)
{
	static const char *const names[] = { "new", "known", "gone" };

	return names[state];
}

static char *dup_opt(const char *s, bool *oom)
{
	char *d = s ? strdup(s) : NULL;

	if (s && !d)
		*oom = true;
	return d;
}

static void finding_clear(struct judged_finding *f)
{
	run_finding_free(&f->f);
	free(f->since_rev);
	free(f->since_date);
}

/* Append a copy of @src to @run's findings, in @state; 0 or -ENOMEM. */
static int finding_add(struct findings_run *run, const struct run_finding *src,
		       enum finding_state state)
{
	struct judged_finding *f;

	if (array_reserve(&run->f, &run->cap, run->n, sizeof(*run->f)))
		return -ENOMEM;
	f = &run->f[run->n++];
	*f = (struct judged_finding){ .state = state };
	return run_finding_copy(&f->f, src);
}

struct loader {
	struct findings *fs;
	const char *glob;
};

/* A row of store_findings(): a run begins, or one more finding of the run being read. */
static int take_row(const struct store_finding_row *row, void *ctx)
{
	struct loader *ld = ctx;
	struct findings *fs = ld->fs;
	struct findings_run *run = fs->n ? &fs->runs[fs->n - 1] : NULL;
	const char *series = row->benchmark ? row->benchmark : row->kind;
	bool oom = false;

	if (ld->glob && fnmatch(ld->glob, series, 0))
		return 0;
	if (!run || run->id != row->run) {
		if (array_reserve(&fs->runs, &fs->cap, fs->n, sizeof(*fs->runs)))
			return -ENOMEM;
		run = &fs->runs[fs->n++];
		*run = (struct findings_run){ .id = row->run, .recorded = row->nfindings >= 0 };
		if (run_kind_parse(row->kind, &run->kind))
			run->kind = RUN_CAMPAIGN;
		run->series = dup_opt(series, &oom);
		run->rev = dup_opt(row->git_rev, &oom);
		run->date = dup_opt(row->date ? row->date : "", &oom);
		if (oom)
			return -ENOMEM;
	}
	return row->f ? finding_add(run, row->f, FINDING_NEW) : 0;
}

/* The key of a signature in a map of signatures. */
static uint64_t sig_key(const char *signature)
{
	uint64_t k = digest_bytes(signature, strlen(signature));

	return k == UINT64_MAX ? 0 : k;
}

static bool has_signature(const struct findings_run *run, const char *signature)
{
	for (size_t i = 0; i < run->n; i++)
		if (run->f[i].state != FINDING_GONE && !strcmp(run->f[i].f.signature, signature))
			return true;
	return false;
}

/* Say @f was seen first (known) or last (gone) at @at. */
static int since(struct judged_finding *f, const struct findings_run *at)
{
	bool oom = false;

	f->since_rev = dup_opt(at->rev, &oom);
	f->since_date = dup_opt(at->date, &oom);
	return oom ? -ENOMEM : 0;
}

/* The new findings first, then the known ones, each in the summary's order. */
static int order_by_state(struct findings_run *run)
{
	struct judged_finding *sorted;
	size_t k = 0;

	if (!run->n)
		return 0;
	sorted = malloc(run->n * sizeof(*sorted));
	if (!sorted)
		return -ENOMEM;
	for (int st = FINDING_NEW; st <= FINDING_GONE; st++)
		for (size_t i = 0; i < run->n; i++)
			if (run->f[i].state == (enum finding_state)st)
				sorted[k++] = run->f[i];
	memcpy(run->f, sorted, run->n * sizeof(*sorted));
	free(sorted);
	return 0;
}

/* The states of the findings of the runs [@first, @end), one series in run order. */
static int judge_series(struct findings *fs, size_t first, size_t end)
{
	struct u64map seen = { 0 }; /* signature -> the index of the first run that had it */
	const struct findings_run *prev = NULL;
	int rc = 0;

	for (size_t r = first; !rc && r < end; prev = &fs->runs[r], r++) {
		struct findings_run *run = &fs->runs[r];
		size_t own = run->n;

		if (!run->recorded)
			continue;
		for (size_t i = 0; !rc && i < own; i++) {
			struct judged_finding *f = &run->f[i];
			uint64_t *at = u64map_get(&seen, sig_key(f->f.signature));

			if (at) {
				f->state = FINDING_KNOWN;
				rc = since(f, &fs->runs[*at]);
				run->nknown++;
			} else {
				rc = u64map_put(&seen, sig_key(f->f.signature), r);
				run->nnew++;
			}
		}
		/* gone: what the run before had (a run that said nothing: nothing is gone) */
		for (size_t i = 0; !rc && prev && prev->recorded && i < prev->n; i++) {
			const struct judged_finding *g = &prev->f[i];

			if (g->state == FINDING_GONE || has_signature(run, g->f.signature))
				continue;
			rc = finding_add(run, &g->f, FINDING_GONE);
			if (!rc)
				rc = since(&run->f[run->n - 1], prev);
			run->ngone++;
		}
		if (!rc)
			rc = order_by_state(run);
	}
	u64map_fini(&seen);
	return rc;
}

int findings_load(struct store *s, const char *series, struct findings *out)
{
	struct loader ld = { .fs = out, .glob = series };
	int rc;

	*out = (struct findings){ 0 };
	rc = store_findings(s, take_row, &ld);
	for (size_t i = 0, first = 0; !rc && i < out->n; i++) {
		if (i + 1 == out->n || strcmp(out->runs[i + 1].series, out->runs[first].series)) {
			rc = judge_series(out, first, i + 1);
			first = i + 1;
		}
	}
	return rc;
}

/*
 * Give the findings of @f (@n of them) that are @gone or not their
 * contexts from stored run @id's summary, by signature.
 */
static int contexts_from(struct store *s, long long id, struct judged_finding *f, size_t n,
			 bool gone)
{
	struct run_record rec;
	char *json = NULL, why[256];
	int rc = store_run_json(s, id, &json);

	if (rc)
		return rc == -ENOENT ? 0 : rc;
	rc = runfile_parse("stored run", json, &rec, why, sizeof(why));
	free(json);
	if (rc)
		return rc == -ENOMEM ? rc : 0; /* does not read: nothing is known of them */
	for (size_t i = 0; !rc && i < n; i++) {
		if ((f[i].state == FINDING_GONE) != gone)
			continue;
		for (size_t k = 0; !rc && k < rec.nfindings; k++) {
			const struct run_finding *src = &rec.findings[k];
			struct run_finding copy;

			if (!src->ncontexts || strcmp(src->signature, f[i].f.signature))
				continue;
			/* the copy's own fields are the table's: only its contexts are taken */
			rc = run_finding_copy(&copy, &(struct run_finding){ .contexts = src->contexts,
									     .ncontexts = src->ncontexts });
			f[i].f.contexts = copy.contexts;
			f[i].f.ncontexts = copy.ncontexts;
		}
	}
	runfile_free(&rec);
	return rc;
}

int findings_contexts(struct store *s, struct findings *fs, struct findings_run *run)
{
	int rc;

	if (run->contexts_read || !run->n)
		return 0;
	run->contexts_read = true;
	rc = contexts_from(s, run->id, run->f, run->n, false);
	/* the gone ones are the run before's, the one before it in @fs */
	if (!rc && run->ngone && run > fs->runs)
		rc = contexts_from(s, run[-1].id, run->f, run->n, true);
	return rc;
}

const struct findings_run *findings_run_of(const struct findings *fs, long long id)
{
	for (size_t i = 0; i < fs->n; i++)
		if (fs->runs[i].id == id)
			return &fs->runs[i];
	return NULL;
}

void findings_free(struct findings *fs)
{
	for (size_t i = 0; i < fs->n; i++) {
		struct findings_run *run = &fs->runs[i];

		for (size_t k = 0; k < run->n; k++)
			finding_clear(&run->f[k]);
		free(run->f);
		free(run->series);
		free(run->rev);
		free(run->date);
	}
	free(fs->runs);
	*fs = (struct findings){ 0 };
}
