/* SPDX-License-Identifier: MIT */
/*
 * What a campaign tells its user: a progress line as each run ends, and at
 * the end DIR/summary.json and DIR/summary.txt, rebuilt from the outcome
 * records of every run (record.c): its failed runs grouped into findings
 * (finding.h), then every run, with the command that reproduces each
 * failed one.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/atomic_file.h"
#include "common/host.h"
#include "common/json.h"
#include "faults/campaign/campaign_internal.h"
#include "faults/campaign/finding.h"
#include "faults/campaign/finding_trim.h"
#include "faults/campaign/pool.h"

void campaign_progress_line(struct camp_progress *pg, const struct campaign *c,
			    const struct camp_job *j, const struct camp_outcome *oc)
{
	pg->done++;
	if (!pg->f)
		return;
	fprintf(pg->f, "[%zu/%zu] %s %s s%llu", pg->done, pg->total, c->runs[j->run].name,
		c->traces[j->trace].base, (unsigned long long)j->seed);
	if (c->reps > 1)
		fprintf(pg->f, " r%u", j->rep);
	if (!oc)
		fputs(": failed (no outcome recorded)", pg->f);
	else
		fprintf(pg->f, ": %s%s%s%s%s", oc->hung ? "hung" : oc->failed ? "failed" : "passed",
			j->resumed ? " (resumed)" : "", oc->failed ? " (" : "",
			oc->failed ? oc->reason : "", oc->failed ? ")" : "");
	fputc('\n', pg->f);
	fflush(pg->f);
}

/* The summary, rebuilt from the outcome records of every run. */
struct summary {
	const struct campaign *c;
	struct camp_outcome *oc;  /* per run */
	char **reproduce;    /* per run: the command, for failed runs */
	unsigned int passed, failed, hung;
	struct finding_set findings; /* of the failed runs, in finding_cmp() order */
	struct finding_repro *repro; /* per finding: on its trimmed trace, or its first run's */
	struct fault_plan plan;      /* trim_opts_fill()'s: a finding's first run's, seeded */
	char plan_path[CAMPAIGN_RUN_PATH_LEN]; /* ... and its file */
};

/* Where run @i injected first, as the keys "injected" and "injected_known". */
static void injected_json(struct json *j, const struct camp_injection *in)
{
	if (in->known == CAMP_KNOWN && in->any) {
		json_obj_begin(j, "injected");
		json_str(j, "point", fp_point_name(in->point));
		json_u64(j, "nth", in->nth);
		json_u64(j, "event", in->event);
		json_u64(j, "ts_ns", in->ts);
		json_str(j, "operation", in->op[0] ? in->op : NULL);
		json_str(j, "site", in->site[0] ? in->site : NULL);
		json_obj_end(j);
	} else {
		json_null(j, "injected");
	}
	json_bool(j, "injected_known", in->known == CAMP_KNOWN);
}

static void fill_failure(struct json *j, const struct summary *s, size_t i)
{
	const struct campaign *c = s->c;
	const struct camp_job *job = &c->jobs[i];
	char results[CAMPAIGN_RUN_PATH_LEN];

	json_obj_begin(j, NULL);
	json_str(j, "run", c->runs[job->run].name);
	json_u64(j, "seed", job->seed);
	json_str(j, "outcome", s->oc[i].hung ? "hung" : "failed");
	json_str(j, "reason", s->oc[i].reason);
	json_str(j, "reproduce", s->reproduce[i]);
	injected_json(j, &s->oc[i].injected);
	json_bool(j, "verdict_recorded", s->oc[i].has_verdict != CAMP_NOT_RECORDED);
	if (s->oc[i].has_verdict == CAMP_KNOWN)
		finding_verdict_json(j, &s->oc[i].verdict);
	json_str(j, "id", job->id);
	json_str(j, "trace", c->traces[job->trace].path);
	json_arr_begin(j, "maps");
	for (size_t m = 0; m < c->traces[job->trace].nmaps; m++)
		json_str(j, NULL, c->traces[job->trace].maps[m]);
	json_arr_end(j);
	json_u64(j, "rep", job->rep);
	if (s->oc[i].has_results && !campaign_job_path(c, job, ".json", results, sizeof(results)))
		json_str(j, "results", results);
	else
		json_null(j, "results");
	json_obj_end(j);
}

/* Input @k of a trace entry: its trace (0), or its map k - 1. */
static const char *input_at(const struct camp_trace *t, size_t k)
{
	return k ? t->maps[k - 1] : t->path;
}

/* Whether @path is an input listed before input @k of entry @i. */
static bool input_before(const struct campaign *c, size_t i, size_t k, const char *path)
{
	for (size_t a = 0; a <= i; a++)
		/* cppcheck-suppress arrayIndexThenCheck ; a <= i, an entry of the campaign */
		for (size_t b = 0; b <= c->traces[a].nmaps && (a < i || b < k); b++)
			if (!strcmp(input_at(&c->traces[a], b), path))
				return true;
	return false;
}

/* The inputs: each trace and map once (entries may share them), then the scenario. */
static void inputs_json(struct json *j, const struct campaign *c)
{
	json_obj_begin(j, "inputs");
	for (size_t i = 0; i < c->ntraces; i++) {
		for (size_t k = 0; k <= c->traces[i].nmaps; k++) {
			const char *path = input_at(&c->traces[i], k);

			if (!input_before(c, i, k, path))
				json_input(j, path);
		}
	}
	if (c->has_scenario)
		json_input(j, c->scenario);
	json_obj_end(j);
}

static void fill_summary(struct json *j, const void *ctx)
{
	const struct summary *s = ctx;
	const struct campaign *c = s->c;
	char host[256];

	json_obj_begin(j, NULL);
	json_str(j, "schema", "gpuiso-campaign/1");
	results_build_json(j);
	json_str(j, "name", c->name);
	json_str(j, "host", host_name(host, sizeof(host)));
	inputs_json(j, c);
	json_u64(j, "runs", c->njobs);
	json_u64(j, "passed", s->passed);
	json_u64(j, "failed", s->failed);
	json_u64(j, "hung", s->hung);
	json_str(j, "trace_covers", trace_covers_name(c->covers));
	json_arr_begin(j, "invariants");
	for (size_t i = 0; i < CAMPAIGN_NINVARIANTS; i++)
		if (c->required[i])
			json_str(j, NULL, campaign_invariants[i]);
	json_arr_end(j);
	json_arr_begin(j, "findings");
	for (size_t i = 0; i < s->findings.n; i++) {
		const struct finding_repro *r = &s->repro[i];

		finding_json(j, &s->findings.v[i], false, r->cmd, r->trimmed ? &r->trim : NULL,
			     r->whole);
	}
	json_arr_end(j);
	json_arr_begin(j, "failures");
	for (size_t i = 0; i < c->njobs; i++)
		if (s->oc[i].failed)
			fill_failure(j, s, i);
	json_arr_end(j);
	json_obj_end(j);
}

/* The human table: run, trace, seed, (rep,) outcome, reason. */
static void table_rows(const struct summary *s, FILE *f)
{
	const struct campaign *c = s->c;
	int wrun = 3, wtrace = 5, wseed = 4;
	char seed[24];

	for (size_t i = 0; i < c->nruns; i++)
		wrun = GPUISO_MAX(wrun, (int)strlen(c->runs[i].name));
	for (size_t i = 0; i < c->ntraces; i++)
		wtrace = GPUISO_MAX(wtrace, (int)strlen(c->traces[i].base));
	for (size_t i = 0; i < c->nseeds; i++)
		wseed = GPUISO_MAX(wseed, snprintf(seed, sizeof(seed), "%llu", (unsigned long long)c->seeds[i]));
	fprintf(f, "%-*s  %-*s  %-*s  %s%-7s  %s\n", wrun, "run", wtrace, "trace", wseed, "seed",
		c->reps > 1 ? "rep    " : "", "outcome", "reason");
	for (size_t i = 0; i < c->njobs; i++) {
		const struct camp_job *j = &c->jobs[i];

		fprintf(f, "%-*s  %-*s  %-*llu  ", wrun, c->runs[j->run].name, wtrace,
			c->traces[j->trace].base, wseed, (unsigned long long)j->seed);
		if (c->reps > 1)
			fprintf(f, "%-5u  ", j->rep);
		if (s->oc[i].failed)
			fprintf(f, "%-7s  %s%s\n", s->oc[i].hung ? "hung" : "failed", s->oc[i].reason,
				s->oc[i].has_verdict == CAMP_NOT_RECORDED ?
				"; verdict not recorded (an older gpuiso ran it)" : "");
		else
			fputs("passed\n", f);
	}
}

/* The findings, each with its blame, its runs and the command that reproduces its first. */
static void findings_text(const struct summary *s, FILE *f)
{
	for (size_t i = 0; i < s->findings.n; i++) {
		const struct finding *fd = &s->findings.v[i];

		if (finding_section(&s->findings, i))
			fprintf(f, "%s\n\n", finding_section(&s->findings, i));
		fprintf(f, "%zu. %s\n   blame: %s; %llu run%s\n", i + 1, fd->title,
			finding_blame_name(fd->blame), (unsigned long long)fd->runs,
			fd->runs == 1 ? "" : "s");
		finding_contexts_text(f, fd, false);
		finding_repro_text(f, &s->repro[i]);
		fputc('\n', f);
	}
}

static int write_table(const struct summary *s, const char *path)
{
	struct atomic_file af;
	FILE *f;
	int rc = atomic_file_open(&af, path);

	if (rc)
		return rc;
	f = af.f;
	fprintf(f, "campaign %s: %zu runs, %u passed, %u failed", s->c->name, s->c->njobs,
		s->passed, s->failed);
	if (s->hung)
		fprintf(f, " (%u hung)", s->hung);
	fprintf(f, ", %zu finding%s\n\n", s->findings.n, s->findings.n == 1 ? "" : "s");
	findings_text(s, f);
	table_rows(s, f);
	if (s->failed)
		fputs("\nreproduce:\n", f);
	for (size_t i = 0; i < s->c->njobs; i++)
		if (s->oc[i].failed)
			fprintf(f, "  %s\n", s->reproduce[i]);
	return atomic_file_commit(&af);
}

/*
 * A failed run's outcome as a sweep names it, so that the same failure has
 * the same signature whichever found it: its verdict's (violation or
 * reset) when it replayed to the end, hung when it was killed, and failed
 * only when it could not be replayed at all (a sweep has no such run).
 */
static const char *outcome_of(const struct camp_outcome *oc)
{
	if (oc->hung)
		return "hung";
	if (oc->has_verdict == CAMP_KNOWN && oc->verdict.outcome != VERDICT_RECOVERED)
		return verdict_outcome_name(oc->verdict.outcome);
	return "failed";
}

/*
 * Group the failed runs into findings: by where each injected first and
 * what it found (a run whose record does not say where is grouped as
 * such), in finding_cmp() order; a finding's first run is its first in
 * the campaign's order.
 */
static int findings_build(struct summary *s)
{
	for (size_t i = 0; i < s->c->njobs; i++) {
		const struct camp_outcome *oc = &s->oc[i];
		const struct camp_injection *in = &oc->injected;
		bool at = in->known == CAMP_KNOWN && in->any;
		const struct finding_run r = {
			.point = at ? fp_point_name(in->point) : NULL,
			.op = at && in->op[0] ? in->op : NULL,
			.unrecorded = in->known != CAMP_KNOWN,
			.outcome = outcome_of(oc),
			.verdict = oc->has_verdict == CAMP_KNOWN ? &oc->verdict : NULL,
		};
		int rc;

		if (!oc->failed)
			continue;
		rc = finding_add(&s->findings, &r, 0, i);
		if (rc)
			return rc;
	}
	if (s->findings.n)
		qsort(s->findings.v, s->findings.n, sizeof(*s->findings.v), finding_cmp);
	return 0;
}

/* Finding @i's trimming (finding_trimmer.opts): its first run, under the plan it drew from. */
static void trim_opts_fill(void *arg, size_t i, struct trim_opts *to)
{
	struct summary *s = arg;
	const struct campaign *c = s->c;
	const struct camp_job *j = &c->jobs[s->findings.v[i].first];
	const struct camp_trace *t = &c->traces[j->trace];

	/* the run's rules with its seed, as campaign_child_run() armed them */
	s->plan = c->runs[j->run].plan;
	fault_plan_seed(&s->plan, j->seed);
	if (campaign_job_path(c, j, ".faults.yaml", s->plan_path, sizeof(s->plan_path)))
		s->plan_path[0] = '\0';
	*to = (struct trim_opts){
		.trace = t->path, .scn = &c->scn, .scenario_path = c->has_scenario ? c->scenario : NULL,
		.program = c->program, .maps = (const char *const *)t->maps, .nmaps = t->nmaps,
		.covers = c->covers, .cache = true, .base = &s->plan, .base_path = s->plan_path,
	};
}

/* Each finding's reproducer: its first run's, then trimmed (DIR/findings, made anew). */
static int findings_reproduce(struct summary *s, char *err, size_t errlen)
{
	const struct campaign *c = s->c;
	struct finding_trimmer ft = {
		.findings = &s->findings, .out = c->out, .who = "campaign", .progress = c->progress,
		.exit_error = ESRCH, .opts = trim_opts_fill, .arg = s,
	};
	struct pool pool = { 0 };
	int rc;

	s->repro = calloc(s->findings.n ? s->findings.n : 1, sizeof(*s->repro));
	if (!s->repro)
		return -ENOMEM;
	for (size_t i = 0; i < s->findings.n; i++) {
		size_t first = s->findings.v[i].first;
		struct finding_repro *r = &s->repro[i];

		r->whole = strdup(s->reproduce[first]);
		if (!r->whole)
			return -ENOMEM;
		if (s->oc[first].has_verdict != CAMP_KNOWN)
			snprintf(r->why, sizeof(r->why), "not trimmed: its run %s",
				 s->oc[first].hung ? "hung" : "did not replay to its end");
	}
	rc = pool_init(&pool, c->workers ? c->workers : 1, c->stall_timeout_s, c->run_timeout_s);
	if (rc)
		return rc;
	ft.pool = &pool;
	ft.repro = s->repro;
	rc = finding_trim_all(&ft, err, errlen);
	pool_fini(&pool);
	return rc;
}

static int collect_outcomes(struct summary *s)
{
	const struct campaign *c = s->c;

	for (size_t i = 0; i < c->njobs; i++) {
		const struct camp_job *j = &c->jobs[i];
		struct camp_outcome *oc = &s->oc[i];

		if (!campaign_outcome_read(c, j, oc) || oc->key != j->key) {
			/* nothing was recorded, by this gpuiso or an older one */
			*oc = (struct camp_outcome){ .failed = true, .has_verdict = CAMP_UNKNOWN,
						     .injected = { .known = CAMP_UNKNOWN } };
			snprintf(oc->reason, sizeof(oc->reason), "no outcome recorded");
		}
		if (oc->failed) {
			int rc = campaign_reproduce_cmd(c, j, &s->reproduce[i]);

			if (rc)
				return rc;
			s->failed++;
			s->hung += oc->hung;
		} else {
			s->passed++;
		}
	}
	return 0;
}

int campaign_summary_write(const struct campaign *c, struct campaign_totals *t, char *err,
			   size_t errlen)
{
	struct summary s = { .c = c };
	char path[PATH_MAX + 16];
	int rc = -ENOMEM;

	s.oc = calloc(c->njobs, sizeof(*s.oc));
	s.reproduce = calloc(c->njobs, sizeof(*s.reproduce));
	if (!s.oc || !s.reproduce)
		goto free_summary;
	rc = collect_outcomes(&s);
	if (!rc)
		rc = findings_build(&s);
	if (!rc)
		rc = findings_reproduce(&s, err, errlen);
	if (rc)
		goto free_summary;
	t->runs = (unsigned int)c->njobs;
	t->findings = (unsigned int)s.findings.n;
	t->passed = s.passed;
	t->failed = s.failed;
	t->hung = s.hung;
	snprintf(path, sizeof(path), "%s/summary.json", c->out);
	rc = json_write_file(path, fill_summary, &s);
	if (!rc) {
		snprintf(path, sizeof(path), "%s/summary.txt", c->out);
		rc = write_table(&s, path);
	}
	if (rc)
		snprintf(err, errlen, "campaign: %s: cannot write: %s", path, strerror(-rc));
free_summary:
	finding_repro_free(s.repro, s.findings.n);
	finding_set_free(&s.findings);
	for (size_t i = 0; s.reproduce && i < c->njobs; i++)
		free(s.reproduce[i]);
	free(s.reproduce);
	free(s.oc);
	return rc;
}
