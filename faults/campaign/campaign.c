/* SPDX-License-Identifier: MIT */
/*
 * Fault-injection campaigns (docs/campaign-format.md, "Campaigns").
 *
 * The whole campaign file is read and checked first: a bad one runs
 * nothing. Then every (run, trace, seed, repetition) is replayed in a child
 * process of its own, at most --jobs at a time, so that a crash costs one
 * run and not the campaign. Each run leaves its files in DIR/runs: the
 * results JSON, a standalone faults file (what the reproduce command
 * replays) and an outcome record. Every file is written atomically, and the
 * summary is rebuilt from the outcome records at the end, which is what
 * makes a killed campaign resumable without losing finished runs.
 *
 * The parent watches each child's progress (watch.h) and kills one that has
 * stopped moving, or is still going after --run-timeout: that run fails as
 * hung, and the campaign goes on. No child outlives the parent.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/atomic_file.h"
#include "common/host.h"
#include "common/json.h"
#include "common/path.h"
#include "core/scenario.h"
#include "faults/campaign/campaign_internal.h"
#include "faults/campaign/pool.h"
#include "faults/plan.h"
#include "replay/replay.h"

/* Progress lines: "[3/12] pin-always-fails power-cycle s2: passed". */
struct progress {
	FILE *f;
	size_t done;
};

/* ---- the children ---------------------------------------------------------- */

static void progress_line(struct progress *pg, const struct campaign *c, const struct camp_job *j,
			  const struct camp_outcome *oc)
{
	pg->done++;
	if (!pg->f)
		return;
	fprintf(pg->f, "[%zu/%zu] %s %s s%llu", pg->done, c->njobs, c->runs[j->run].name,
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

/* Start run @job in a child process of its own, in slot @i. */
static int spawn(const struct campaign *c, size_t job, struct pool *p, size_t i,
		 struct progress *pg)
{
	const struct camp_job *j = &c->jobs[job];
	char path[CAMPAIGN_RUN_PATH_LEN];
	pid_t pid;

	/* what an earlier attempt left must not pass for this one's */
	if (!campaign_job_path(c, j, ".outcome", path, sizeof(path)))
		unlink(path);
	if (!campaign_job_path(c, j, ".json", path, sizeof(path)))
		unlink(path);
	if (pg->f)
		fflush(pg->f);
	pid = pool_fork(p, i, job, "campaign-run");
	if (!pid)
		_exit(campaign_child_run(c, j, pool_beat(p, i)));
	return pid < 0 ? pid : 0;
}

/* What run_pool() passes the pool for each run that ended. */
struct reaping {
	const struct campaign *c;
	struct progress *pg;
};

/* The child of slot @i ended with @status: its outcome, and its progress line. */
static void reap(void *arg, const struct pool *p, size_t i, int status)
{
	const struct reaping *r = arg;
	const struct camp_job *j = &r->c->jobs[p->slots[i].job];
	struct camp_outcome oc;

	campaign_judge_end(r->c, p, i, status);
	progress_line(r->pg, r->c, j,
		      campaign_outcome_read(r->c, j, &oc) && oc.key == j->key ? &oc : NULL);
}

/* The next run to start at or after @from, or njobs. */
static size_t next_job(const struct campaign *c, size_t from)
{
	while (from < c->njobs && c->jobs[from].resumed)
		from++;
	return from;
}

/* Run every run not resumed, at most @jobs at a time, each in its own child. */
static int run_pool(const struct campaign *c, unsigned int jobs, struct progress *pg, char *err,
		    size_t errlen)
{
	struct reaping r = { .c = c, .pg = pg };
	size_t next = next_job(c, 0), active = 0;
	struct pool p = { 0 };
	int rc;

	rc = pool_init(&p, jobs, c->stall_timeout_s, c->run_timeout_s);
	if (rc)
		return rc;
	for (;;) {
		for (size_t i = 0; i < jobs && !rc && next < c->njobs; i++) {
			if (p.slots[i].pid)
				continue;
			rc = spawn(c, next, &p, i, pg);
			if (rc) {
				/* the runs under way still finish; the rest wait for a resume */
				snprintf(err, errlen, "campaign: cannot start run %s: %s", c->jobs[next].id,
					 strerror(-rc));
				break;
			}
			active++;
			next = next_job(c, next + 1);
		}
		if (!active)
			break;
		active -= pool_wait(&p, reap, &r);
	}
	pool_fini(&p);
	return rc;
}

/* ---- before and after ------------------------------------------------------ */

static int prepare_output(struct campaign *c, const char *out, char *err, size_t errlen)
{
	char runs[PATH_MAX + 8];
	int rc = path_mkdir_p(out);

	if (!rc && !realpath(out, c->out))
		rc = -errno;
	if (!rc && snprintf(runs, sizeof(runs), "%s/runs", c->out) >= (int)sizeof(runs))
		rc = -ENAMETOOLONG;
	if (!rc && mkdir(runs, 0755) && errno != EEXIST)
		rc = -errno;
	if (rc)
		snprintf(err, errlen, "campaign: %s: cannot create the output folder: %s", out,
			 strerror(-rc));
	return rc;
}

/* Write every run's faults file; find the runs an earlier invocation finished. */
static int prepare_runs(struct campaign *c, struct campaign_totals *t, struct progress *pg,
			char *err, size_t errlen)
{
	for (size_t i = 0; i < c->njobs; i++) {
		struct camp_job *j = &c->jobs[i];
		struct camp_outcome oc;
		int rc = campaign_faults_write(c, j, err, errlen);

		if (rc)
			return rc;
		j->resumed = campaign_job_finished(c, j);
		if (!j->resumed)
			continue;
		t->resumed++;
		progress_line(pg, c, j, campaign_outcome_read(c, j, &oc) ? &oc : NULL);
	}
	return 0;
}

/* The summary, rebuilt from the outcome records of every run. */
struct summary {
	const struct campaign *c;
	struct camp_outcome *oc;  /* per run */
	char **reproduce;    /* per run: the command, for failed runs */
	unsigned int passed, failed, hung;
};

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
	json_str(j, "id", job->id);
	json_str(j, "trace", c->traces[job->trace].path);
	json_u64(j, "rep", job->rep);
	if (s->oc[i].has_results && !campaign_job_path(c, job, ".json", results, sizeof(results)))
		json_str(j, "results", results);
	else
		json_null(j, "results");
	json_obj_end(j);
}

static void fill_summary(struct json *j, const void *ctx)
{
	const struct summary *s = ctx;
	const struct campaign *c = s->c;
	char host[256];

	json_obj_begin(j, NULL);
	json_str(j, "schema", "gpuiso-campaign/1");
	json_str(j, "name", c->name);
	json_str(j, "host", host_name(host, sizeof(host)));
	json_obj_begin(j, "inputs");
	for (size_t i = 0; i < c->ntraces; i++)
		json_input(j, c->traces[i].path);
	if (c->has_scenario)
		json_input(j, c->scenario);
	json_obj_end(j);
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
		wrun = MAX(wrun, (int)strlen(c->runs[i].name));
	for (size_t i = 0; i < c->ntraces; i++)
		wtrace = MAX(wtrace, (int)strlen(c->traces[i].base));
	for (size_t i = 0; i < c->nseeds; i++)
		wseed = MAX(wseed, snprintf(seed, sizeof(seed), "%llu", (unsigned long long)c->seeds[i]));
	fprintf(f, "%-*s  %-*s  %-*s  %s%-7s  %s\n", wrun, "run", wtrace, "trace", wseed, "seed",
		c->reps > 1 ? "rep    " : "", "outcome", "reason");
	for (size_t i = 0; i < c->njobs; i++) {
		const struct camp_job *j = &c->jobs[i];

		fprintf(f, "%-*s  %-*s  %-*llu  ", wrun, c->runs[j->run].name, wtrace,
			c->traces[j->trace].base, wseed, (unsigned long long)j->seed);
		if (c->reps > 1)
			fprintf(f, "%-5u  ", j->rep);
		if (s->oc[i].failed)
			fprintf(f, "%-7s  %s\n", s->oc[i].hung ? "hung" : "failed", s->oc[i].reason);
		else
			fputs("passed\n", f);
	}
}

static int write_table(const struct summary *s, const char *path)
{
	char *text = NULL;
	size_t len;
	FILE *f;
	int rc;

	f = open_memstream(&text, &len);
	if (!f)
		return -ENOMEM;
	fprintf(f, "campaign %s: %zu runs, %u passed, %u failed", s->c->name, s->c->njobs,
		s->passed, s->failed);
	if (s->hung)
		fprintf(f, " (%u hung)", s->hung);
	fputs("\n\n", f);
	table_rows(s, f);
	if (s->failed)
		fputs("\nreproduce:\n", f);
	for (size_t i = 0; i < s->c->njobs; i++)
		if (s->oc[i].failed)
			fprintf(f, "  %s\n", s->reproduce[i]);
	if (fclose(f)) {
		free(text);
		return -ENOMEM;
	}
	rc = atomic_file_write(path, text, len);
	free(text);
	return rc;
}

static int collect_outcomes(struct summary *s)
{
	const struct campaign *c = s->c;

	for (size_t i = 0; i < c->njobs; i++) {
		const struct camp_job *j = &c->jobs[i];
		struct camp_outcome *oc = &s->oc[i];

		if (!campaign_outcome_read(c, j, oc) || oc->key != j->key) {
			*oc = (struct camp_outcome){ .failed = true };
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

static int write_summary(const struct campaign *c, struct campaign_totals *t, char *err,
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
	if (rc)
		goto free_summary;
	t->runs = (unsigned int)c->njobs;
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
	for (size_t i = 0; s.reproduce && i < c->njobs; i++)
		free(s.reproduce[i]);
	free(s.reproduce);
	free(s.oc);
	return rc;
}

int campaign_run(const struct campaign_opts *o, struct campaign_totals *t, char *err,
		 size_t errlen)
{
	struct progress pg = { .f = o->progress };
	struct campaign *c;
	int rc;

	memset(t, 0, sizeof(*t));
	if (errlen)
		err[0] = '\0';
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	rc = campaign_load(o->file, c, err, errlen);
	if (rc)
		goto free_campaign;
	c->run_timeout_s = o->run_timeout_s;
	c->stall_timeout_s = o->stall_timeout_s;
	rc = prepare_output(c, o->out, err, errlen);
	if (!rc)
		rc = prepare_runs(c, t, &pg, err, errlen);
	if (!rc)
		rc = run_pool(c, o->jobs ? o->jobs : 1, &pg, err, errlen);
	if (!rc)
		rc = write_summary(c, t, err, errlen);
free_campaign:
	campaign_free(c);
	return rc;
}
