/* SPDX-License-Identifier: MIT */
/*
 * Trimming a trace (trim.h): ddmin over the units of trim_units.c, each
 * candidate replayed from memory, the result written as CTF and replayed
 * from disk before it is reported.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/array.h"
#include "common/atomic_file.h"
#include "common/clock.h"
#include "common/digest.h"
#include "common/failure.h"
#include "common/u64map.h"
#include "faults/plan.h"
#include "replay/ctf.h"
#include "replay/command.h"
#include "replay/trim.h"
#include "replay/trim_internal.h"

/* At most this long between progress lines. */
#define TRIM_PROGRESS_NS 2000000000ull

/* Where a failure happens, as trim.at counts it. */
#define TRIM_AT_START 0 /* before the first event (the adapters starting) */
/* i + 1: during original event i; events + 1: after the last (leftovers, teardown) */

/* A failure of the trace's own run, held where it fell in every candidate. */
struct trim_fixed {
	enum fp_point point;
	uint64_t where;  /* trim.at when it failed */
	uint64_t rank;   /* which of the point's hits there (from 1) */
	uint64_t nth;    /* its hit number in the last run, or 0: that run did not reach it */
};

struct trim {
	const struct trim_opts *o;
	struct replay_events evs;  /* the trace's */
	struct trim_units units;
	bool *must;                /* per unit: in every candidate (the failure's event, what it needs) */
	bool *keep;                /* per unit: in the candidate being tried */
	uint32_t *cur;             /* the units ddmin still keeps, besides the must ones */
	size_t ncur;
	size_t nmust;              /* units in must */
	struct wl_event *cand;     /* the candidate's events */
	uint32_t *orig;            /* candidate event -> original event */
	size_t ncand;
	size_t next;               /* the next of cand to write */
	struct u64map tried;       /* candidate digest -> 1 + reproduces */
	struct verdict v0;         /* the trace's */
	struct trim_fixed *fixed;  /* the trace's own run's failures, by (where, point, rank) */
	size_t nfixed, fixed_cap;
	size_t target;             /* o->fail: the one of o->point's hit o->nth */
	struct pressure_step *steps; /* the base's pressure steps, at the candidate's events */
	struct fault_plan pressure;  /* a plan of only those (o->base) */
	bool plan_out;             /* the reproducer's plan is written beside the trimmed trace */
	/* during a replay */
	bool counting;             /* the trace's own run: its plan as drawn, failures noted */
	bool nomem;                /* a failure could not be noted */
	bool stray;                /* the check from disk failed a hit the last replay did not */
	struct fp_ctx *fp;         /* the replay's */
	uint64_t at;               /* where the replay is */
	uint64_t hits0[FP_NPOINTS]; /* each point's hits before it got there */
	uint64_t replays, max_replays;
	bool budget_spent;
	uint64_t t0, next_progress;
	char *err;
	size_t errlen;
};

static int trim_fail(struct trim *t, int rc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Say what went wrong into t->err; returns @rc. */
static int trim_fail(struct trim *t, int rc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(t->err, t->errlen, fmt, ap);
	va_end(ap);
	return rc;
}

/* The replay is at @at: each point's hits count from here. */
static void trim_move(struct trim *t, uint64_t at)
{
	t->at = at;
	memcpy(t->hits0, t->fp->hits, sizeof(t->hits0));
}

/* The replay's hook before each event: the candidate's event @index is original event orig[@index]. */
static void trim_before_event(const struct replay_engine *e, uint64_t index, void *arg)
{
	struct trim *t = arg;

	(void)e;
	trim_move(t, t->orig[index] + 1);
}

/* The replay's hook after the last event: what fails from here fails at the end. */
static void trim_after_events(const struct replay_engine *e, void *arg)
{
	struct trim *t = arg;

	(void)e;
	trim_move(t, t->evs.n + 1);
}

static int trim_fixed_cmp(const void *a, const void *b)
{
	const struct trim_fixed *x = a, *y = b;

	if (x->where != y->where)
		return x->where < y->where ? -1 : 1;
	if (x->point != y->point)
		return x->point < y->point ? -1 : 1;
	return x->rank < y->rank ? -1 : x->rank > y->rank;
}

/* The trace's own run injected a failure (fp_ctx.injected_hook): note where. */
static void trim_injected(void *arg, const struct fp_injection *in)
{
	struct trim *t = arg;

	if (array_reserve(&t->fixed, &t->fixed_cap, t->nfixed, sizeof(*t->fixed))) {
		t->nomem = true;
		return;
	}
	t->fixed[t->nfixed++] = (struct trim_fixed){
		.point = in->point, .where = t->at, .rank = in->nth - t->hits0[in->point],
		.nth = in->nth,
	};
}

/* A candidate's observed hit (fp_ctx.observe): it fails if the trace's own run failed it there. */
static bool trim_observe(void *arg, enum fp_point p, uint64_t hit)
{
	struct trim *t = arg;
	const struct trim_fixed key = { .point = p, .where = t->at, .rank = hit - t->hits0[p] };
	struct trim_fixed *f = bsearch(&key, t->fixed, t->nfixed, sizeof(*f), trim_fixed_cmp);

	if (!f)
		return false;
	f->nth = hit;
	return true;
}

/*
 * The base's pressure steps at the candidate's events: a step before
 * original event E applies before the first kept event at or after E.
 */
static void trim_pressure(struct trim *t)
{
	const struct fault_plan *base = t->o->base;

	for (size_t k = 0; base && k < base->nsteps; k++) {
		size_t lo = 0, hi = t->ncand;

		t->steps[k] = base->steps[k];
		if (base->steps[k].by_time)
			continue;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (t->orig[mid] < base->steps[k].at)
				lo = mid + 1;
			else
				hi = mid;
		}
		t->steps[k].at = lo;
	}
}

/* The events of the units in t->keep, into t->cand and t->orig. */
static void trim_gather(struct trim *t)
{
	t->ncand = 0;
	for (size_t i = 0; i < t->evs.n; i++) {
		if (!t->keep[t->units.unit_of[i]])
			continue;
		t->cand[t->ncand] = t->evs.ev[i];
		t->cand[t->ncand].flags = 0; /* as the trimmed trace will read */
		t->orig[t->ncand++] = (uint32_t)i;
	}
	trim_pressure(t);
}

static const char *trim_first_code(const struct verdict *v)
{
	return v->kept ? v->findings[0].code : "nothing";
}

/*
 * Replay the events of t->keep from memory. *@repro: whether the run broke
 * as the trace's did (t->counting: the trace's own run, which sets t->v0).
 * Return: 0, or a negative errno when the replay could not run (the
 * machine; or, for the trace's own run, its events).
 */
static int trim_replay(struct trim *t, bool *repro)
{
	const struct trim_opts *o = t->o;
	struct replay_report *rep = calloc(1, sizeof(*rep));
	const struct fp_rule observe = { .observe = true };
	struct replay_opts ro = {
		.trace = o->trace, .scn = t->o->scn, .scenario_path = o->scenario_path,
		.covers = o->covers, .notrace = true, .untimed = true,
		.faults = o->base ? &t->pressure : NULL,
		.before_event = trim_before_event, .before_event_arg = t,
		.after_events = trim_after_events, .after_events_arg = t,
	};
	struct results res;
	struct verdict v;
	struct fp_ctx fp;
	int rc;

	if (!rep)
		return trim_fail(t, -ENOMEM, "trim: out of memory");
	trim_gather(t);
	memset(&fp, 0, sizeof(fp));
	if (t->counting) {
		/* as replay --faults BASE --fail-nth P:N arms them: the base, then the hit */
		if (o->base)
			fault_plan_arm(o->base, &fp);
		if (o->fail)
			fp_arm(&fp, o->point, &(const struct fp_rule){ .nth = o->nth });
		fp.injected_hook = trim_injected;
		fp.injected_arg = t;
	} else {
		for (size_t i = 0; i < t->nfixed; i++) {
			t->fixed[i].nth = 0;
			fp_arm(&fp, t->fixed[i].point, &observe);
		}
		fp.observe = trim_observe;
		fp.observe_arg = t;
	}
	ro.fp = t->fp = &fp;
	memset(t->hits0, 0, sizeof(t->hits0));
	t->at = TRIM_AT_START;
	t->replays++;
	if (o->beat)
		o->beat(o->beat_arg);
	rc = replay_run_events(&ro, t->cand, t->ncand, &res, rep);
	*repro = false;
	if (t->nomem) {
		rc = trim_fail(t, -ENOMEM, "trim: out of memory");
	} else if (rc && (t->counting || failure_of(rc) != FAILURE_INPUT)) {
		rc = trim_fail(t, rc, "trim: %s: %s", o->trace, rep->error);
	} else if (!rc) {
		verdict_of(&res, &v);
		if (t->counting)
			t->v0 = v;
		*repro = verdict_same(&v, &t->v0) &&
			 (t->counting || !o->fail || t->fixed[t->target].nth);
	} else {
		rc = 0; /* a candidate the engine refuses as input does not reproduce */
	}
	t->fp = NULL;
	results_fini(&res);
	free(rep);
	return rc;
}

/* A progress line, at most every TRIM_PROGRESS_NS. */
static void trim_progress(struct trim *t)
{
	uint64_t now = clock_mono_ns();

	if (!t->o->progress || now < t->next_progress)
		return;
	t->next_progress = now + TRIM_PROGRESS_NS;
	fprintf(t->o->progress, "trim: %llu replays (%.1f s): %zu of %zu units left\n",
		(unsigned long long)t->replays, (double)(now - t->t0) / 1e9, t->ncur + t->nmust,
		t->units.nunits);
}

/*
 * Does the candidate of the must units and @n units of @set reproduce?
 * When it does, t->cur becomes what it kept (the units it needs may have
 * dropped some of @set).
 */
static int trim_test(struct trim *t, const uint32_t *set, size_t n, bool *repro)
{
	uint64_t h = DIGEST_FNV_BASIS, *seen;
	int rc;

	memcpy(t->keep, t->must, t->units.nunits * sizeof(*t->keep));
	for (size_t i = 0; i < n; i++)
		t->keep[set[i]] = true;
	trim_units_close(&t->units, t->keep);
	for (size_t u = 0; u < t->units.nunits; u++)
		if (t->keep[u])
			h = digest_combine(h, u);
	seen = u64map_get(&t->tried, h == UINT64_MAX ? 0 : h);
	if (seen) {
		*repro = *seen > 1;
	} else {
		if (t->replays >= t->max_replays) {
			t->budget_spent = true;
			*repro = false;
			return 0;
		}
		rc = trim_replay(t, repro);
		if (rc)
			return rc;
		if (u64map_put(&t->tried, h == UINT64_MAX ? 0 : h, 1 + *repro))
			return trim_fail(t, -ENOMEM, "trim: out of memory");
	}
	if (*repro) {
		t->ncur = 0;
		for (size_t u = 0; u < t->units.nunits; u++)
			if (t->keep[u] && !t->must[u])
				t->cur[t->ncur++] = (uint32_t)u;
	}
	trim_progress(t);
	return 0;
}

/*
 * ddmin (Zeller and Hildebrandt, "Simplifying and Isolating
 * Failure-Inducing Input", 2002) over t->cur: try each of @n parts, then
 * each part's complement; on a success go on with what reproduced, else
 * split finer, until the parts are single units and none can go.
 */
static int trim_ddmin(struct trim *t, uint32_t *part)
{
	size_t n = 2;
	bool repro;
	int rc;

	/* often the failure's own event and what it needs are enough */
	if ((rc = trim_test(t, NULL, 0, &repro)))
		return rc;
	while (t->ncur >= 2 && !t->budget_spent) {
		size_t m = t->ncur;
		bool reduced = false;

		for (size_t i = 0; i < n && !reduced && !t->budget_spent; i++) {
			size_t from = i * m / n, to = (i + 1) * m / n;

			memcpy(part, t->cur + from, (to - from) * sizeof(*part));
			if ((rc = trim_test(t, part, to - from, &reduced)))
				return rc;
			if (reduced)
				n = 2;
		}
		for (size_t i = 0; n > 2 && i < n && !reduced && !t->budget_spent; i++) {
			size_t from = i * m / n, to = (i + 1) * m / n;

			memcpy(part, t->cur, from * sizeof(*part));
			memcpy(part + from, t->cur + to, (m - to) * sizeof(*part));
			if ((rc = trim_test(t, part, m - (to - from), &reduced)))
				return rc;
			if (reduced)
				n = n - 1 > 2 ? n - 1 : 2;
		}
		if (reduced)
			continue;
		if (n >= m)
			break;
		n = 2 * n < m ? 2 * n : m;
	}
	return 0;
}

/* The next event of the trimmed trace (a wl_next_fn over t->cand). */
static int trim_next(void *ctx, struct wl_event *e)
{
	struct trim *t = ctx;

	if (t->next >= t->ncand)
		return 0;
	*e = t->cand[t->next++];
	return 1;
}

/* @dir must not exist, or be an empty folder; said before any work. */
static int trim_out_free(struct trim *t, const char *dir)
{
	struct dirent *de;
	struct stat st;
	DIR *d;

	if (stat(dir, &st))
		return 0;
	if (!S_ISDIR(st.st_mode))
		return trim_fail(t, -EEXIST, "trim: %s exists and is not a folder", dir);
	d = opendir(dir);
	if (!d)
		return trim_fail(t, -errno, "trim: %s: %s", dir, strerror(errno));
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			break;
	closedir(d);
	return de ? trim_fail(t, -EEXIST, "trim: %s exists and is not empty", dir) : 0;
}

/* The trace's events, and its own run: the verdict to reproduce and where the failure is. */
static int trim_start(struct trim *t)
{
	const struct trim_opts *o = t->o;
	struct replay_report *rep = calloc(1, sizeof(*rep));
	struct replay_opts ro = { .trace = o->trace, .scn = o->scn, .cache = o->cache,
				  .cache_dir = o->cache_dir, .maps = o->maps, .nmaps = o->nmaps };
	size_t nunits;
	bool repro;
	int rc;

	if (!rep)
		return trim_fail(t, -ENOMEM, "trim: out of memory");
	rc = replay_read(&ro, &t->evs, rep);
	if (rc) {
		rc = trim_fail(t, rc, "trim: %s: %s", o->trace, rep->error);
	} else if (rep->discarded || rep->lost_packets) {
		rc = trim_fail(t, -EINVAL, "trim: %s: the tracer lost %llu events and %llu packets: "
			       "a trimmed trace could not keep what the loss did; trim a complete trace",
			       o->trace, (unsigned long long)rep->discarded,
			       (unsigned long long)rep->lost_packets);
	}
	free(rep);
	if (rc)
		return rc;
	rc = trim_units_build(t->evs.ev, t->evs.n, &t->units);
	if (rc)
		return trim_fail(t, rc, "trim: %s: %s events: %s", o->trace, rc == -E2BIG ?
				 "too many" : "grouping the", strerror(-rc));
	nunits = t->units.nunits ? t->units.nunits : 1;
	t->must = calloc(nunits, sizeof(*t->must));
	t->keep = calloc(nunits, sizeof(*t->keep));
	t->cur = calloc(nunits, sizeof(*t->cur));
	t->cand = calloc(t->evs.n ? t->evs.n : 1, sizeof(*t->cand));
	t->orig = calloc(t->evs.n ? t->evs.n : 1, sizeof(*t->orig));
	t->steps = calloc(o->base && o->base->nsteps ? o->base->nsteps : 1, sizeof(*t->steps));
	if (!t->must || !t->keep || !t->cur || !t->cand || !t->orig || !t->steps ||
	    u64map_init(&t->tried))
		return trim_fail(t, -ENOMEM, "trim: out of memory for %zu events", t->evs.n);
	t->pressure = (struct fault_plan){ .steps = t->steps, .nsteps = o->base ? o->base->nsteps : 0 };
	for (size_t u = 0; u < t->units.nunits; u++)
		t->keep[u] = true;
	t->counting = true;
	rc = trim_replay(t, &repro);
	t->counting = false;
	if (rc)
		return rc;
	/* every candidate looks its failures up by where they fell */
	if (t->nfixed)
		qsort(t->fixed, t->nfixed, sizeof(*t->fixed), trim_fixed_cmp);
	for (t->target = 0; o->fail && t->target < t->nfixed; t->target++)
		if (t->fixed[t->target].point == o->point && t->fixed[t->target].nth == o->nth)
			break;
	if (o->fail && t->target == t->nfixed)
		return trim_fail(t, -EINVAL, "trim: %s: %s is hit fewer than %llu times in the trace: "
				 "nothing fails", o->trace, fp_point_name(o->point),
				 (unsigned long long)o->nth);
	if (t->v0.outcome == VERDICT_RECOVERED)
		return trim_fail(t, -EINVAL, "trim: %s: nothing to trim: the run recovers", o->trace);
	for (size_t u = 0; u < t->units.nunits; u++)
		t->cur[t->ncur++] = (uint32_t)u;
	if (o->fail && t->fixed[t->target].where > TRIM_AT_START &&
	    t->fixed[t->target].where <= t->evs.n) {
		t->must[t->units.unit_of[t->fixed[t->target].where - 1]] = true;
		trim_units_need_all(&t->units, t->must);
		t->ncur = 0;
		for (size_t u = 0; u < t->units.nunits; u++) {
			t->nmust += t->must[u];
			if (!t->must[u])
				t->cur[t->ncur++] = (uint32_t)u;
		}
	}
	if (o->progress)
		fprintf(o->progress, "trim: %zu events in %zu units; the run ends in %s (first %s)%s\n",
			t->evs.n, t->units.nunits, verdict_outcome_name(t->v0.outcome),
			trim_first_code(&t->v0), t->nfixed ? "" : ", with no failure injected");
	return 0;
}

/*
 * Whether the reproducer needs a plan of its own: the base's rules drew
 * failures by counts the trimmed trace no longer has, and its pressure
 * steps at events counted the trace's events.
 */
static bool trim_plan_needed(const struct trim_opts *o)
{
	if (!o->base)
		return false;
	for (int p = 0; p < FP_NPOINTS; p++)
		if (o->base->armed[p])
			return true;
	for (size_t k = 0; k < o->base->nsteps; k++)
		if (!o->base->steps[k].by_time)
			return true;
	return false;
}

/* OUT.faults.yaml, the plan of the trimmed run (t->plan_out): its failures' hits and pressure. */
static int trim_plan_path(const struct trim_opts *o, char *buf, size_t len)
{
	return snprintf(buf, len, "%s.faults.yaml", o->out) >= (int)len ? -ENAMETOOLONG : 0;
}

/*
 * The plan of the trimmed run: the hits its failures fell on in the last
 * replay (of what was kept) and the base's pressure at its events, written
 * to trim_plan_path().
 */
static int trim_plan_write(struct trim *t)
{
	const struct trim_opts *o = t->o;
	struct fault_plan plan = { .steps = t->steps, .nsteps = t->pressure.nsteps };
	struct atomic_file af;
	char path[PATH_MAX];
	int rc;

	for (size_t i = 0; i < t->nfixed; i++) {
		const struct trim_fixed *f = &t->fixed[i];
		struct fp_rule *r = &plan.rule[f->point];

		if (!f->nth)
			continue;
		if (r->nhits == FP_RULE_HITS)
			return trim_fail(t, -E2BIG, "trim: the trimmed run fails %s more than %d times: "
					 "a faults file lists no more hits of a point",
					 fp_point_name(f->point), FP_RULE_HITS);
		plan.armed[f->point] = true;
		r->hits[r->nhits++] = f->nth;
	}
	rc = trim_plan_path(o, path, sizeof(path));
	if (!rc)
		rc = atomic_file_open(&af, path);
	if (rc)
		return trim_fail(t, rc, "trim: %s.faults.yaml: %s", o->out, strerror(-rc));
	fprintf(af.f, "# The failures and pressure of the trimmed run of %s, where they fell\n"
		"# in its whole run (gpuiso trace trim).\n", o->trace);
	rc = fault_plan_write(af.f, &plan);
	if (rc)
		atomic_file_abort(&af);
	else
		rc = atomic_file_commit(&af);
	return rc ? trim_fail(t, rc, "trim: writing %s: %s", path, strerror(-rc)) : 0;
}

/* A failure of the check from disk (fp_ctx.injected_hook): one of the last replay's, or not. */
static void trim_checked(void *arg, const struct fp_injection *in)
{
	struct trim *t = arg;

	for (size_t i = 0; i < t->nfixed; i++)
		if (t->fixed[i].point == in->point && t->fixed[i].nth == in->nth)
			return;
	t->stray = true;
}

/*
 * The trimmed trace from disk, as its reproducer replays it: `gpuiso
 * replay OUT --faults OUT.faults.yaml` when a plan was written, else
 * `--faults BASE --fail-nth POINT:N'`. The same verdict, and the same
 * failures: those of the last replay from memory (at the same hits of the
 * same events), and no other.
 */
static int trim_check(struct trim *t)
{
	const struct trim_opts *o = t->o;
	struct replay_report *rep = calloc(1, sizeof(*rep));
	struct replay_opts ro = { .trace = o->out, .scn = o->scn, .scenario_path = o->scenario_path,
				  .covers = o->covers, .notrace = true, .untimed = true,
				  .faults = o->base };
	struct fault_plan plan = { 0 };
	uint64_t want = 0;
	struct results res;
	struct verdict v;
	struct fp_ctx fp;
	char path[PATH_MAX], perr[1024] = "";
	int rc;

	if (!rep)
		return trim_fail(t, -ENOMEM, "trim: out of memory");
	if (t->plan_out) {
		rc = trim_plan_path(o, path, sizeof(path));
		if (!rc)
			rc = fault_plan_load(path, &plan, perr, sizeof(perr));
		if (rc) {
			rc = trim_fail(t, -EPROTO, "trim: the plan written, %s.faults.yaml, does not "
				       "read back: %s", o->out, perr[0] ? perr : strerror(-rc));
			goto free_plan;
		}
		fault_plan_arm(&plan, &fp);
		ro.faults = &plan;
	} else if (o->base) {
		fault_plan_arm(o->base, &fp);
	} else {
		memset(&fp, 0, sizeof(fp));
	}
	/* as replay --fail-nth P:N' arms it: the point's rule replaced */
	if (o->fail && !t->plan_out)
		fp_arm(&fp, o->point, &(const struct fp_rule){ .nth = t->fixed[t->target].nth });
	fp.injected_hook = trim_checked;
	fp.injected_arg = t;
	ro.fp = &fp;
	for (size_t i = 0; i < t->nfixed; i++)
		want += t->fixed[i].nth != 0;
	t->stray = false;
	t->replays++;
	if (o->beat)
		o->beat(o->beat_arg);
	rc = replay_run(&ro, &res, rep);
	if (rc) {
		rc = trim_fail(t, -EPROTO, "trim: the trimmed trace %s does not replay from disk: %s",
			       o->out, rep->error);
		goto fini_results;
	}
	verdict_of(&res, &v);
	if (rep->events != t->ncand || rep->used != t->ncand)
		rc = trim_fail(t, -EPROTO, "trim: the trimmed trace %s holds %llu events (%llu used), "
			       "not the %zu written", o->out, (unsigned long long)rep->events,
			       (unsigned long long)rep->used, t->ncand);
	else if (!verdict_same(&v, &t->v0))
		rc = trim_fail(t, -EPROTO, "trim: the trimmed trace %s does not reproduce from disk: "
			       "its run ends in %s (first %s), the trace's in %s (first %s); it is "
			       "left there, but is no reproducer", o->out,
			       verdict_outcome_name(v.outcome), trim_first_code(&v),
			       verdict_outcome_name(t->v0.outcome), trim_first_code(&t->v0));
	else if (t->stray || fp.ninjections != want)
		rc = trim_fail(t, -EPROTO, "trim: the trimmed trace %s from disk fails %llu hits, "
			       "not the %llu of its replay from memory%s; it is left there, but is no "
			       "reproducer", o->out, (unsigned long long)fp.ninjections,
			       (unsigned long long)want, t->stray ? ", and others" : "");
fini_results:
	results_fini(&res);
free_plan:
	fault_plan_free(&plan);
	free(rep);
	return rc;
}

static void trim_free(struct trim *t)
{
	replay_events_free(&t->evs);
	trim_units_free(&t->units);
	u64map_fini(&t->tried);
	free(t->must);
	free(t->keep);
	free(t->cur);
	free(t->cand);
	free(t->orig);
	free(t->fixed);
	free(t->steps);
}

int trim_run(const struct trim_opts *o, struct trim_result *r, char *err, size_t errlen)
{
	struct trim t = { .o = o, .err = err, .errlen = errlen, .t0 = clock_mono_ns(),
			  .max_replays = o->max_replays ? o->max_replays : TRIM_MAX_REPLAYS };
	uint32_t *part = NULL;
	uint64_t kept_units = 0;
	bool repro;
	int rc;

	memset(r, 0, sizeof(*r));
	err[0] = '\0';
	if (!o->trace || !o->out || !o->scn || (o->fail && (o->point >= FP_NPOINTS || !o->nth)))
		return trim_fail(&t, -EINVAL, "trim: a trace, an output folder, a scenario and, "
				 "with a failure, a point and its hit (from 1) are needed");
	rc = trim_out_free(&t, o->out);
	if (!rc)
		rc = trim_start(&t);
	if (rc)
		goto free_trim;
	part = malloc((t.units.nunits ? t.units.nunits : 1) * sizeof(*part));
	if (!part) {
		rc = trim_fail(&t, -ENOMEM, "trim: out of memory");
		goto free_trim;
	}
	rc = trim_ddmin(&t, part);
	if (rc)
		goto free_part;
	/* the candidate of what ddmin kept, written */
	memcpy(t.keep, t.must, t.units.nunits * sizeof(*t.keep));
	for (size_t i = 0; i < t.ncur; i++)
		t.keep[t.cur[i]] = true;
	trim_gather(&t);
	rc = ctf_write(o->out, trim_next, &t, err, errlen);
	if (rc) {
		char why[512];

		snprintf(why, sizeof(why), "%s", err[0] ? err : strerror(-rc));
		rc = trim_fail(&t, rc, "trim: writing %s: %s", o->out, why);
		goto free_part;
	}
	/* its failures' hits, for the reproducer: the last replay's */
	rc = trim_replay(&t, &repro);
	if (!rc && !repro)
		rc = trim_fail(&t, -EPROTO, "trim: what was kept no longer reproduces from memory");
	t.plan_out = trim_plan_needed(o);
	if (!rc && t.plan_out)
		rc = trim_plan_write(&t);
	if (!rc)
		rc = trim_check(&t);
	if (rc)
		goto free_part;
	for (size_t u = 0; u < t.units.nunits; u++)
		kept_units += t.keep[u];
	*r = (struct trim_result){ .events = t.evs.n, .kept = t.ncand, .units = t.units.nunits,
				   .kept_units = kept_units,
				   .nth = o->fail ? t.fixed[t.target].nth : 0, .plan = t.plan_out,
				   .verdict = t.v0, .replays = t.replays,
				   .budget_spent = t.budget_spent };
	if (o->progress && t.budget_spent)
		fprintf(o->progress, "trim: the budget of %llu replays is spent: a smaller trace may "
			"reproduce too\n", (unsigned long long)t.max_replays);
free_part:
	free(part);
free_trim:
	r->replays = t.replays;
	r->seconds = (double)(clock_mono_ns() - t.t0) / 1e9;
	trim_free(&t);
	return rc;
}

int trim_reproducer(const struct trim_opts *o, const struct trim_result *r, FILE *f)
{
	char plan[PATH_MAX];
	const struct replay_command c = {
		.program = o->program, .trace = o->out, .scenario = o->scenario_path,
		.faults = r->plan ? plan : o->base_path, .covers = o->covers,
		.fail = o->fail && !r->plan, .point = o->point, .nth = r->nth,
	};

	if (r->plan && trim_plan_path(o, plan, sizeof(plan)))
		return -ENAMETOOLONG;
	return replay_command_write(f, &c);
}
