/* SPDX-License-Identifier: MIT */
/*
 * Trimming a trace (trim.h): ddmin over the units of trim_units.c, each
 * candidate replayed from memory, the result written as CTF and replayed
 * from disk before it is reported.
 */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/clock.h"
#include "common/digest.h"
#include "common/u64map.h"
#include "faults/plan.h"
#include "replay/ctf.h"
#include "replay/command.h"
#include "replay/trim.h"
#include "replay/trim_internal.h"

/* At most this long between progress lines. */
#define TRIM_PROGRESS_NS 2000000000ull

/* Where a hit of the failure's point happens, as trim.where counts it. */
#define TRIM_AT_START 0 /* before the first event (the adapters starting) */
/* i + 1: during original event i; events + 1: after the last (leftovers, teardown) */

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
	struct u64map tried;       /* candidate digest -> 1 + (reproduces ? 1 + its N' : 0) */
	struct verdict v0;         /* the trace's */
	uint64_t where, rank;      /* the failure: where, and which hit of the point there */
	uint64_t nth;              /* N' of the units in cur */
	/* during a replay */
	bool counting;             /* the trace's own replay: fail hit o->nth, note where it is */
	uint64_t at, hits_at;      /* where the replay is, and the point's hits there so far */
	uint64_t injected;         /* the hit failed, or 0 */
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

/* The replay's hook before each event: the candidate's event @index is original event orig[@index]. */
static void trim_before_event(const struct replay_engine *e, uint64_t index, void *arg)
{
	struct trim *t = arg;

	(void)e;
	t->at = t->orig[index] + 1;
	t->hits_at = 0;
}

/* The replay's hook after the last event: what fails from here fails at the end. */
static void trim_after_events(const struct replay_engine *e, void *arg)
{
	struct trim *t = arg;

	(void)e;
	t->at = t->evs.n + 1;
	t->hits_at = 0;
}

/* The observed point's hook: fail the failure's hit, wherever it is now. */
static bool trim_observe(void *arg, enum fp_point p, uint64_t hit)
{
	struct trim *t = arg;

	(void)p;
	t->hits_at++;
	if (t->counting) {
		if (hit != t->o->nth)
			return false;
		t->where = t->at;
		t->rank = t->hits_at;
	} else if (t->injected || t->at != t->where || t->hits_at != t->rank) {
		return false;
	}
	t->injected = hit;
	return true;
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
		.covers = o->covers, .notrace = true, .untimed = true, .faults = o->base,
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
	if (o->base)
		fault_plan_arm(o->base, &fp);
	ro.fp = &fp;
	if (o->fail) {
		fp_arm(&fp, o->point, &observe);
		fp.observe = trim_observe;
		fp.observe_arg = t;
		ro.fp = &fp;
	}
	t->at = TRIM_AT_START;
	t->hits_at = 0;
	t->injected = 0;
	t->replays++;
	if (o->beat)
		o->beat(o->beat_arg);
	rc = replay_run_events(&ro, t->cand, t->ncand, &res, rep);
	*repro = false;
	if (rc && (t->counting || rep->failure != REPLAY_BAD_INPUT)) {
		rc = trim_fail(t, rep->failure == REPLAY_BAD_INPUT ? -EINVAL : rc, "trim: %s: %s",
			       o->trace, rep->error);
	} else if (!rc) {
		verdict_of(&res, &v);
		if (t->counting)
			t->v0 = v;
		*repro = verdict_same(&v, &t->v0) && (!o->fail || t->injected);
	} else {
		rc = 0; /* a candidate the engine refuses as input does not reproduce */
	}
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
 * dropped some of @set) and t->nth its N'.
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
		if (*repro)
			t->nth = *seen - 2;
	} else {
		if (t->replays >= t->max_replays) {
			t->budget_spent = true;
			*repro = false;
			return 0;
		}
		rc = trim_replay(t, repro);
		if (rc)
			return rc;
		if (u64map_put(&t->tried, h == UINT64_MAX ? 0 : h, *repro ? 2 + t->injected : 1))
			return trim_fail(t, -ENOMEM, "trim: out of memory");
		if (*repro)
			t->nth = t->injected;
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
		rc = trim_fail(t, rep->failure == REPLAY_BAD_INPUT ? -EINVAL : rc, "trim: %s: %s",
			       o->trace, rep->error);
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
	if (!t->must || !t->keep || !t->cur || !t->cand || !t->orig || u64map_init(&t->tried))
		return trim_fail(t, -ENOMEM, "trim: out of memory for %zu events", t->evs.n);
	for (size_t u = 0; u < t->units.nunits; u++)
		t->keep[u] = true;
	t->counting = true;
	rc = trim_replay(t, &repro);
	t->counting = false;
	if (rc)
		return rc;
	if (o->fail && !t->injected)
		return trim_fail(t, -EINVAL, "trim: %s: %s is hit fewer than %llu times in the trace: "
				 "nothing fails", o->trace, fp_point_name(o->point),
				 (unsigned long long)o->nth);
	if (t->v0.outcome == VERDICT_RECOVERED)
		return trim_fail(t, -EINVAL, "trim: %s: nothing to trim: the run recovers", o->trace);
	t->nth = t->injected;
	for (size_t u = 0; u < t->units.nunits; u++)
		t->cur[t->ncur++] = (uint32_t)u;
	if (o->fail && t->where > TRIM_AT_START && t->where <= t->evs.n) {
		t->must[t->units.unit_of[t->where - 1]] = true;
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
			trim_first_code(&t->v0), o->fail ? "" : ", with no failure injected");
	return 0;
}

/*
 * The trimmed trace from disk, as `gpuiso replay OUT --fail-nth POINT:N'`
 * replays it: the same verdict, and the one failure at the copy of the
 * original's event.
 */
static int trim_check(struct trim *t)
{
	const struct trim_opts *o = t->o;
	struct replay_report *rep = calloc(1, sizeof(*rep));
	struct replay_opts ro = { .trace = o->out, .scn = o->scn, .scenario_path = o->scenario_path,
				  .covers = o->covers, .notrace = true, .untimed = true,
				  .faults = o->base };
	struct fault_plan plan = { 0 };
	uint64_t at = UINT64_MAX;
	struct results res;
	struct verdict v;
	struct fp_ctx fp;
	char spec[96] = "";
	int rc;

	if (!rep)
		return trim_fail(t, -ENOMEM, "trim: out of memory");
	if (o->fail) {
		snprintf(spec, sizeof(spec), "%s:%llu", fp_point_name(o->point),
			 (unsigned long long)t->nth);
		if (fault_plan_fail_nth(&plan, spec)) {
			free(rep);
			return trim_fail(t, -EPROTO, "trim: --fail-nth %s does not parse", spec);
		}
		/* as replay --faults BASE --fail-nth P:N arms them: the base, then the hit */
		if (o->base)
			fault_plan_arm(o->base, &fp);
		else
			memset(&fp, 0, sizeof(fp));
		fp_arm(&fp, o->point, &plan.rule[o->point]);
		ro.fp = &fp;
		for (size_t i = 0; i < t->ncand; i++)
			if (t->orig[i] + 1 == t->where)
				at = i;
	}
	t->replays++;
	if (o->beat)
		o->beat(o->beat_arg);
	rc = replay_run(&ro, &res, rep);
	if (rc) {
		rc = trim_fail(t, -EPROTO, "trim: the trimmed trace %s does not replay from disk: %s",
			       o->out, rep->error);
		goto fini;
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
	else if (o->fail && (fp.injected[o->point] != 1 || fp.first_at[o->point].nth != t->nth ||
			     (at != UINT64_MAX && fp.first_at[o->point].event != at)))
		rc = trim_fail(t, -EPROTO, "trim: the trimmed trace %s with --fail-nth %s fails %llu "
			       "hits, the first at event %llu, not the one hit at event %llu; it is "
			       "left there, but is no reproducer", o->out, spec,
			       (unsigned long long)fp.injected[o->point],
			       (unsigned long long)fp.first_at[o->point].event,
			       (unsigned long long)at);
fini:
	results_fini(&res);
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
}

int trim_run(const struct trim_opts *o, struct trim_result *r, char *err, size_t errlen)
{
	struct trim t = { .o = o, .err = err, .errlen = errlen, .t0 = clock_mono_ns(),
			  .max_replays = o->max_replays ? o->max_replays : TRIM_MAX_REPLAYS };
	uint32_t *part = NULL;
	uint64_t kept_units = 0;
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
	rc = trim_check(&t);
	if (rc)
		goto free_part;
	for (size_t u = 0; u < t.units.nunits; u++)
		kept_units += t.keep[u];
	*r = (struct trim_result){ .events = t.evs.n, .kept = t.ncand, .units = t.units.nunits,
				   .kept_units = kept_units, .nth = o->fail ? t.nth : 0,
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
	const struct replay_command c = {
		.program = o->program, .trace = o->out, .scenario = o->scenario_path,
		.faults = o->base_path,
		.covers = o->covers, .fail = o->fail, .point = o->point, .nth = r->nth,
	};

	return replay_command_write(f, &c);
}
