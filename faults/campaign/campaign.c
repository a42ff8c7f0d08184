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

#include "common/failure.h"
#include "common/path.h"
#include "faults/campaign/campaign_internal.h"
#include "faults/campaign/pool.h"

/* Start run @job in a child process of its own, in slot @i. */
static int spawn(const struct campaign *c, size_t job, struct pool *p, size_t i)
{
	const struct camp_job *j = &c->jobs[job];
	char path[CAMPAIGN_RUN_PATH_LEN];
	pid_t pid;

	/* what an earlier attempt left must not pass for this one's */
	if (!campaign_job_path(c, j, ".outcome", path, sizeof(path)))
		unlink(path);
	if (!campaign_job_path(c, j, ".json", path, sizeof(path)))
		unlink(path);
	pid = pool_fork(p, i, job, "campaign-run", ESRCH);
	/* _exit: the parent's atexit handlers and buffers are not the child's */
	if (!pid)
		_exit(campaign_child_run(c, j, pool_beat(p, i)));
	return pid < 0 ? pid : 0;
}

/* What run_pool() passes the pool for each run that ended. */
struct reaping {
	const struct campaign *c;
	struct camp_progress *pg;
};

/* The child of slot @i ended with @status: its outcome, and its progress line. */
static void reap(void *arg, const struct pool *p, size_t i, int status)
{
	const struct reaping *r = arg;
	const struct camp_job *j = &r->c->jobs[p->slots[i].job];
	struct camp_outcome oc;

	campaign_judge_end(r->c, p, i, status);
	campaign_progress_line(r->pg, r->c, j,
		      campaign_outcome_read(r->c, j, &oc) && oc.key == j->key ? &oc : NULL);
}

/* The next run to start at or after @from, or njobs. */
static size_t next_job(const struct campaign *c, size_t from)
{
	while (from < c->njobs && (c->jobs[from].resumed || c->jobs[from].other))
		from++;
	return from;
}

/* Run every run not resumed, at most @jobs at a time, each in its own child. */
static int run_pool(const struct campaign *c, unsigned int jobs, struct camp_progress *pg,
		    char *err, size_t errlen)
{
	struct reaping r = { .c = c, .pg = pg };
	size_t next = next_job(c, 0);
	struct pool p = { 0 };
	int rc, wrc;

	rc = pool_init(&p, jobs, c->stall_timeout_s, c->run_timeout_s);
	if (rc)
		return rc;
	for (;;) {
		for (size_t i = 0; i < jobs && !rc && next < c->njobs; i++) {
			if (p.slots[i].pid)
				continue;
			rc = spawn(c, next, &p, i);
			if (rc) {
				/* the runs under way still finish; the rest wait for a resume */
				snprintf(err, errlen, "campaign: cannot start run %s: %s", c->jobs[next].id,
					 strerror(-rc));
				break;
			}
			next = next_job(c, next + 1);
		}
		if (!p.running)
			break;
		wrc = pool_wait(&p, reap, &r);
		if (wrc) {
			/* the runs under way have no outcome: a resume runs them again */
			snprintf(err, errlen, "campaign: waiting for the runs: %s", strerror(-wrc));
			pool_kill_all(&p);
			rc = wrc;
			break;
		}
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
	return failure_output(rc);
}

/* Write every run's faults file; find the runs an earlier invocation finished. */
static int prepare_runs(struct campaign *c, struct campaign_totals *t,
			struct camp_progress *pg, char *err, size_t errlen)
{
	for (size_t i = 0; i < c->njobs; i++) {
		struct camp_job *j = &c->jobs[i];
		struct camp_outcome oc;
		int rc;

		if (j->other)
			continue;
		rc = campaign_faults_write(c, j, err, errlen);
		if (rc)
			return rc;
		j->resumed = campaign_job_finished(c, j);
		if (!j->resumed)
			continue;
		t->resumed++;
		campaign_progress_line(pg, c, j, campaign_outcome_read(c, j, &oc) ? &oc : NULL);
	}
	return 0;
}

int campaign_run(const struct campaign_opts *o, struct campaign_totals *t, char *err,
		 size_t errlen)
{
	struct camp_progress pg = { .f = o->progress };
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
	c->program = o->program;
	c->workers = o->jobs;
	c->progress = o->progress;
	c->run_timeout_s = o->run_timeout_s;
	c->stall_timeout_s = o->stall_timeout_s;
	rc = prepare_output(c, o->out, err, errlen);
	if (!rc && o->shard.count)
		rc = campaign_shard_begin(c, o->file, &o->shard, err, errlen);
	for (size_t i = 0; i < c->njobs; i++)
		pg.total += !c->jobs[i].other;
	if (!rc)
		rc = prepare_runs(c, t, &pg, err, errlen);
	if (!rc)
		rc = run_pool(c, o->jobs ? o->jobs : 1, &pg, err, errlen);
	/* a shard's runs are summed up by the merge, with every other shard's */
	if (!rc && !o->shard.count)
		rc = campaign_summary_write(c, t, err, errlen);
	if (o->shard.count)
		t->shard_runs = (unsigned int)pg.total;
free_campaign:
	campaign_free(c);
	return rc;
}
