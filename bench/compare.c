/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/array.h"
#include "common/types.h"
#include "compare.h"

/* Samples a side before a measured series is judged without --threshold. */
#define COMPARE_MIN_SAMPLES 3
/* Revisions of history before their noise counts. */
#define COMPARE_MIN_HISTORY 4

/* --- sample sets --- */

/*
 * The sample of @name of @benchmark (NULL: of any benchmark, the first). A
 * set holds one sample a benchmark and name, so with @benchmark the search
 * may begin anywhere: at *@next (when @next is not NULL), which then becomes
 * the place after the one found, as the series of one run and the next
 * come in the same order.
 */
static struct compare_sample *sample_find(const struct compare_sample_set *set,
					  const char *benchmark, const char *name, size_t *next)
{
	size_t from = benchmark && next && *next < set->n ? *next : 0;

	for (size_t k = 0; k < set->n; k++) {
		size_t i = from + k < set->n ? from + k : from + k - set->n;

		if (!strcmp(set->s[i].name, name) && (!benchmark || !strcmp(set->s[i].benchmark, benchmark))) {
			if (next)
				*next = i + 1;
			return &set->s[i];
		}
	}
	return NULL;
}

/* compare_sample_set_add(), searching from *@next (sample_find()); the sample in *@out. */
static int sample_add(struct compare_sample_set *set, const char *benchmark, enum run_kind kind,
		      const char *name, const char *unit, double value, uint64_t ops, size_t *next,
		      struct compare_sample **out)
{
	struct compare_sample *s = sample_find(set, benchmark, name, next);

	if (!s) {
		if (array_reserve(&set->s, &set->cap, set->n, sizeof(*set->s)))
			return -ENOMEM;
		s = &set->s[set->n];
		*s = (struct compare_sample){ .name = strdup(name), .benchmark = strdup(benchmark),
					      .kind = kind, .ops = UINT64_MAX };
		if (!s->name || !s->benchmark) {
			free(s->name);
			free(s->benchmark);
			return -ENOMEM;
		}
		snprintf(s->unit, sizeof(s->unit), "%s", unit);
		if (next)
			*next = set->n + 1;
		set->n++;
	}
	if (array_reserve(&s->v, &s->cap, s->n, sizeof(*s->v)))
		return -ENOMEM;
	s->v[s->n++] = value;
	s->ops = GPUISO_MIN(s->ops, ops);
	*out = s;
	return 0;
}

int compare_sample_set_add(struct compare_sample_set *set, const char *benchmark,
			   enum run_kind kind, const char *name, const char *unit, double value,
			   uint64_t ops)
{
	struct compare_sample *s;

	return sample_add(set, benchmark, kind, name, unit, value, ops, NULL, &s);
}

/* Note what @s's newest run ran: the code and inputs of all its runs, while they agree. */
static int sample_ran(struct compare_sample *s, const struct run_record *rec)
{
	char *ran = NULL;

	if (s->mixed)
		return 0;
	if (!rec->code) {
		s->mixed = true;
		return 0;
	}
	if (asprintf(&ran, "%s\n%s", rec->code, rec->inputs ? rec->inputs : "") < 0)
		return -ENOMEM;
	if (s->ran && strcmp(s->ran, ran))
		s->mixed = true;
	if (!s->ran) {
		s->ran = ran;
		return 0;
	}
	free(ran);
	return 0;
}

int compare_sample_set_add_run(struct compare_sample_set *set, const struct run_record *rec)
{
	const char *benchmark = rec->benchmark ? rec->benchmark : run_kind_name(rec->kind);
	size_t next = 0;

	for (size_t i = 0; i < rec->nmetrics; i++) {
		const struct run_metric *m = &rec->metrics[i];
		uint64_t ops = UINT64_MAX;
		struct compare_sample *s;
		char count[160];
		int rc;

		if (metric_support(m->name, count, sizeof(count)) && count[0]) {
			double c = runfile_value(rec, count);

			/* an operation that did not happen is not written: no operation */
			ops = isnan(c) || c < 0 ? 0 : (uint64_t)c;
		}
		rc = sample_add(set, benchmark, rec->kind, m->name, m->unit, m->value, ops, &next, &s) ?:
		     sample_ran(s, rec);
		if (rc)
			return rc;
	}
	return 0;
}

size_t compare_sample_set_benchmarks(const struct compare_sample_set *set, const char **one)
{
	size_t n = 0;

	*one = NULL;
	for (size_t i = 0; i < set->n; i++) {
		bool seen = false;

		for (size_t k = 0; k < i && !seen; k++)
			seen = !strcmp(set->s[k].benchmark, set->s[i].benchmark);
		n += !seen;
		if (!*one)
			*one = set->s[i].benchmark;
	}
	return n;
}

void compare_sample_set_free(struct compare_sample_set *set)
{
	for (size_t i = 0; i < set->n; i++) {
		free(set->s[i].benchmark);
		free(set->s[i].name);
		free(set->s[i].ran);
		free(set->s[i].v);
	}
	free(set->s);
	*set = (struct compare_sample_set){ 0 };
}

/* --- comparing --- */

const char *compare_verdict_name(enum compare_verdict v)
{
	static const char *const names[] = { "same", "improved", "REGRESSED", "changed",
					     "only before", "only after", "not judged", "VARIES" };

	return names[v];
}

double compare_rel_change(double before, double after)
{
	if (before == after)
		return 0;
	if (before == 0)
		return after > 0 ? INFINITY : -INFINITY;
	return (after - before) / fabs(before);
}

enum compare_verdict compare_change_verdict(const char *name, const char *unit, double change)
{
	enum metric_better b = metric_better(name, unit);

	if (change == 0)
		return COMPARE_SAME;
	if (b == METRIC_BETTER_NONE)
		return COMPARE_CHANGED;
	return (change > 0) == (b == METRIC_BETTER_HIGHER) ? COMPARE_IMPROVED : COMPARE_REGRESSED;
}

static bool all_equal(const double *v, size_t n)
{
	for (size_t i = 1; i < n; i++)
		if (v[i] != v[0])
			return false;
	return true;
}

/* An exact series: any difference is a change; samples that differ within a side are not exact. */
static void judge_exact(struct compare_row *r, const struct compare_sample *b,
			const struct compare_sample *a)
{
	r->exact = true;
	if (!all_equal(b->v, b->n) || !all_equal(a->v, a->n)) {
		r->verdict = COMPARE_VARIES;
		snprintf(r->why, sizeof(r->why), "exact, yet its %s samples differ",
			 all_equal(b->v, b->n) ? "after" : "before");
		return;
	}
	r->verdict = compare_change_verdict(r->name, r->unit, r->change);
}

/*
 * A measured series: whether it can be judged at all; if so, its p-value
 * (to be adjusted with the others) and its confidence interval.
 */
static int judge_measured(struct compare_row *r, const struct compare_sample *b,
			  const struct compare_sample *a, const struct compare_opts *o)
{
	char count[160];
	uint64_t needed = metric_support(r->name, count, sizeof(count));
	struct compare_series_noise noise = { 0 };
	double lo, hi;
	int rc;

	r->verdict = COMPARE_UNJUDGED;
	if (needed == METRIC_NEVER_JUDGED) {
		snprintf(r->why, sizeof(r->why), "a maximum: never judged");
		return 0;
	}
	if (needed && GPUISO_MIN(a->ops, b->ops) < needed) {
		snprintf(r->why, sizeof(r->why), "%s needs %llu operations a run (had %llu)",
			 strrchr(r->name, '.') + 1, (unsigned long long)needed,
			 (unsigned long long)GPUISO_MIN(a->ops, b->ops));
		return 0;
	}
	if (o->code_tracked && !b->mixed && !a->mixed && b->ran && a->ran && !strcmp(b->ran, a->ran)) {
		snprintf(r->why, sizeof(r->why), "same code and inputs: a difference is the machine's");
		return 0;
	}
	if (b->n < COMPARE_MIN_SAMPLES || a->n < COMPARE_MIN_SAMPLES) {
		if (o->threshold_set) {
			r->verdict = fabs(r->change) > o->threshold
					     ? compare_change_verdict(r->name, r->unit, r->change)
					     : COMPARE_SAME;
			return 0;
		}
		snprintf(r->why, sizeof(r->why), "too few samples to judge (%zu/%zu, %d a side)", b->n,
			 a->n, COMPARE_MIN_SAMPLES);
		return 0;
	}
	r->p = stats_mann_whitney_p(b->v, b->n, a->v, a->n);
	rc = o->noise ? o->noise(r->benchmark, r->name, &noise, o->noise_ctx) : -ENOENT;
	if (rc && rc != -ENOENT)
		return rc;
	if (!rc && noise.revisions >= COMPARE_MIN_HISTORY && r->before > 0 && r->after > 0) {
		double t = noise.sigma > 0 ? log(r->after / r->before) / (noise.sigma * sqrt(2))
					   : r->after == r->before ? 0 : INFINITY;

		r->p = fmax(r->p, stats_student_t_sf2(t, (double)noise.revisions - 1));
		r->history = true;
	}
	if (!stats_welch_ci(b->v, b->n, a->v, a->n, 0.95, &lo, &hi)) {
		r->ci_lo = lo;
		r->ci_hi = hi;
	}
	r->verdict = COMPARE_SAME; /* until the adjusted p says otherwise */
	return 0;
}

static int judge(struct compare_row *r, const struct compare_sample *b,
		 const struct compare_sample *a, const struct compare_opts *o)
{
	r->before = stats_median(b->v, b->n);
	r->after = stats_median(a->v, a->n);
	r->change = compare_rel_change(r->before, r->after);
	r->nbefore = b->n;
	r->nafter = a->n;
	if (metric_class(b->kind, b->name) == METRIC_EXACT) {
		judge_exact(r, b, a);
		return 0;
	}
	return judge_measured(r, b, a, o);
}

/* Adjust the p-values of the judged measured rows together, then decide them. */
static int decide_measured(struct compare_row *rows, size_t n, const struct compare_opts *o)
{
	double *p = calloc(n ? n : 1, sizeof(*p));
	size_t m = 0;
	int rc;

	if (!p)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		if (!isnan(rows[i].p))
			p[m++] = rows[i].p;
	rc = stats_benjamini_hochberg(p, m);
	m = 0;
	for (size_t i = 0; !rc && i < n; i++) {
		struct compare_row *r = &rows[i];

		if (isnan(r->p))
			continue;
		r->p = p[m++];
		if (r->p < o->alpha && fabs(r->change) >= o->threshold)
			r->verdict = compare_change_verdict(r->name, r->unit, r->change);
	}
	free(p);
	return rc;
}

static int row_rank(const struct compare_row *r)
{
	static const int rank[] = { [COMPARE_REGRESSED] = 0, [COMPARE_IMPROVED] = 1, [COMPARE_CHANGED] = 2,
				    [COMPARE_VARIES] = 3, [COMPARE_ONLY_BEFORE] = 4, [COMPARE_ONLY_AFTER] = 5,
				    [COMPARE_UNJUDGED] = 6, [COMPARE_SAME] = 7 };

	return rank[r->verdict];
}

static int cmp_row(const void *x, const void *y)
{
	const struct compare_row *a = x, *b = y;
	int c = strcmp(a->benchmark, b->benchmark);

	if (c)
		return c;
	if (row_rank(a) != row_rank(b))
		return row_rank(a) - row_rank(b);
	return strcmp(a->name, b->name);
}

int compare_sets(const struct compare_sample_set *before, const struct compare_sample_set *after,
		 const struct compare_opts *o, struct compare_row **rows, size_t *nrows)
{
	struct compare_row *out = calloc(before->n + after->n + 1, sizeof(*out));
	size_t n = 0, next = 0;
	int rc = 0;

	if (!out)
		return -ENOMEM;
	for (size_t i = 0; !rc && i < before->n; i++) {
		const struct compare_sample *b = &before->s[i];
		const struct compare_sample *a =
			sample_find(after, o->across ? NULL : b->benchmark, b->name, &next);
		struct compare_row *r = &out[n];

		if (o->glob && fnmatch(o->glob, b->name, 0))
			continue;
		*r = (struct compare_row){ .benchmark = b->benchmark, .name = b->name, .unit = b->unit,
					   .change = NAN, .p = NAN, .ci_lo = NAN, .ci_hi = NAN };
		if (a) {
			rc = judge(r, b, a, o);
		} else {
			r->before = stats_median(b->v, b->n);
			r->nbefore = b->n;
			r->verdict = COMPARE_ONLY_BEFORE;
		}
		n++;
	}
	next = 0;
	for (size_t i = 0; !rc && i < after->n; i++) {
		const struct compare_sample *a = &after->s[i];

		if ((o->glob && fnmatch(o->glob, a->name, 0)) ||
		    sample_find(before, o->across ? NULL : a->benchmark, a->name, &next))
			continue;
		out[n++] = (struct compare_row){ .benchmark = a->benchmark, .name = a->name,
						 .unit = a->unit,
						 .after = stats_median(a->v, a->n),
						 .nafter = a->n, .change = NAN, .p = NAN, .ci_lo = NAN,
						 .ci_hi = NAN, .verdict = COMPARE_ONLY_AFTER };
	}
	if (!rc)
		rc = decide_measured(out, n, o);
	if (rc) {
		free(out);
		return rc;
	}
	qsort(out, n, sizeof(*out), cmp_row);
	*rows = out;
	*nrows = n;
	return 0;
}

static void fmt_value(char *buf, size_t len, double v, size_t n)
{
	if (!n)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.6g", v);
}

/* The test column: how the row was judged. */
static void fmt_test(char *buf, size_t len, const struct compare_row *r, const struct compare_opts *o)
{
	if (r->verdict == COMPARE_UNJUDGED || r->verdict == COMPARE_VARIES)
		snprintf(buf, len, "%s", r->why);
	else if (r->exact)
		snprintf(buf, len, "exact");
	else if (!isnan(r->p) && !isnan(r->ci_lo))
		snprintf(buf, len, "U%s p=%.2g (%zu/%zu), CI %+.1f%%..%+.1f%%",
			 r->history ? "+history" : "", r->p, r->nbefore, r->nafter, 100 * r->ci_lo,
			 100 * r->ci_hi);
	else if (!isnan(r->p))
		snprintf(buf, len, "U%s p=%.2g (%zu/%zu)", r->history ? "+history" : "", r->p,
			 r->nbefore, r->nafter);
	else if (r->nbefore && r->nafter)
		snprintf(buf, len, "threshold %.0f%% (%zu/%zu)", 100 * o->threshold, r->nbefore,
			 r->nafter);
	else
		snprintf(buf, len, "-");
}

size_t compare_print(const struct compare_row *rows, size_t n, const struct compare_opts *o, FILE *f)
{
	size_t regressions = 0, hidden = 0, within = 0;
	const char *benchmark = NULL;
	int w = 6;

	for (size_t i = 0; i < n; i++)
		if (o->all || rows[i].verdict != COMPARE_SAME)
			w = GPUISO_MAX(w, (int)strlen(rows[i].name));
	for (size_t i = 0; i < n; i++) {
		const struct compare_row *r = &rows[i];
		char before[32], after[32], change[16], test[160];

		regressions += r->verdict == COMPARE_REGRESSED;
		within += !r->exact && !isnan(r->p) && !r->history;
		if (!o->all && r->verdict == COMPARE_SAME) {
			hidden++;
			continue;
		}
		if (!benchmark || strcmp(benchmark, r->benchmark)) {
			benchmark = r->benchmark;
			fprintf(f, "%s%s\n", i ? "\n" : "", benchmark);
			fprintf(f, "  %-*s  %12s  %12s  %9s  %-10s  %s\n", w, "metric", "before", "after",
				"change", "verdict", "test");
		}
		fmt_value(before, sizeof(before), r->before, r->nbefore);
		fmt_value(after, sizeof(after), r->after, r->nafter);
		if (isnan(r->change))
			snprintf(change, sizeof(change), "-");
		else
			snprintf(change, sizeof(change), "%+.1f%%", 100 * r->change);
		fmt_test(test, sizeof(test), r, o);
		fprintf(f, "  %-*s  %12s  %12s  %9s  %-10s  %s\n", w, r->name, before, after, change,
			compare_verdict_name(r->verdict), test);
	}
	if (hidden)
		fprintf(f, "(%zu series unchanged; --all shows them)\n", hidden);
	if (within)
		fprintf(f, "(%zu measured series judged on this comparison's samples alone: runs of one "
			   "session vary less than runs of different days; compare --db judges them "
			   "against their history too)\n", within);
	fprintf(f, "%zu regression%s\n", regressions, regressions == 1 ? "" : "s");
	return regressions;
}
