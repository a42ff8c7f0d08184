/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/array.h"
#include "common/types.h"
#include "compare.h"

/* --- sample sets --- */

static struct sample *sample_find(const struct sample_set *set, const char *name)
{
	for (size_t i = 0; i < set->n; i++)
		if (!strcmp(set->s[i].name, name))
			return &set->s[i];
	return NULL;
}

int sample_set_add(struct sample_set *set, const char *name, const char *unit, double value)
{
	struct sample *s = sample_find(set, name);

	if (!s) {
		if (array_reserve(&set->s, &set->cap, set->n, sizeof(*set->s)))
			return -ENOMEM;
		s = &set->s[set->n];
		*s = (struct sample){ .name = strdup(name) };
		if (!s->name)
			return -ENOMEM;
		snprintf(s->unit, sizeof(s->unit), "%s", unit);
		set->n++;
	}
	if (array_reserve(&s->v, &s->cap, s->n, sizeof(*s->v)))
		return -ENOMEM;
	s->v[s->n++] = value;
	return 0;
}

int sample_set_add_run(struct sample_set *set, const struct run_record *rec)
{
	for (size_t i = 0; i < rec->nmetrics; i++) {
		int rc = sample_set_add(set, rec->metrics[i].name, rec->metrics[i].unit,
					rec->metrics[i].value);

		if (rc)
			return rc;
	}
	return 0;
}

void sample_set_free(struct sample_set *set)
{
	for (size_t i = 0; i < set->n; i++) {
		free(set->s[i].name);
		free(set->s[i].v);
	}
	free(set->s);
	*set = (struct sample_set){ 0 };
}

/* --- comparing --- */

const char *verdict_name(enum verdict v)
{
	static const char *const names[] = { "same", "improved", "REGRESSED", "changed",
					     "only before", "only after" };

	return names[v];
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(const double *v, size_t n)
{
	double *c = malloc(n * sizeof(*c)), m;

	if (!c)
		return NAN;
	memcpy(c, v, n * sizeof(*c));
	qsort(c, n, sizeof(*c), cmp_double);
	m = n % 2 ? c[n / 2] : (c[n / 2 - 1] + c[n / 2]) / 2;
	free(c);
	return m;
}

static double rel_change(double before, double after)
{
	if (before == after)
		return 0;
	if (before == 0)
		return after > 0 ? INFINITY : -INFINITY;
	return (after - before) / fabs(before);
}

/* Which way a significant change went, for this metric. */
static enum verdict direction(const char *name, const char *unit, double change)
{
	enum metric_better b = metric_better(name, unit);

	if (b == BETTER_NONE)
		return V_CHANGED;
	return (change > 0) == (b == BETTER_HIGHER) ? V_IMPROVED : V_REGRESSED;
}

static void judge(struct compare_row *r, const struct sample *b, const struct sample *a,
		  const struct compare_opts *o)
{
	bool significant;

	r->before = median(b->v, b->n);
	r->after = median(a->v, a->n);
	r->change = rel_change(r->before, r->after);
	r->nbefore = b->n;
	r->nafter = a->n;
	r->p = NAN;
	if (b->n >= 2 && a->n >= 2) {
		r->p = mann_whitney_p(b->v, b->n, a->v, a->n);
		significant = r->p < o->alpha && r->change != 0;
	} else {
		significant = fabs(r->change) > o->threshold;
	}
	r->verdict = significant ? direction(r->name, r->unit, r->change) : V_SAME;
}

static int row_rank(const struct compare_row *r)
{
	static const int rank[] = { [V_REGRESSED] = 0, [V_IMPROVED] = 1, [V_CHANGED] = 2,
				    [V_ONLY_BEFORE] = 3, [V_ONLY_AFTER] = 4, [V_SAME] = 5 };

	return rank[r->verdict];
}

static int cmp_row(const void *x, const void *y)
{
	const struct compare_row *a = x, *b = y;

	if (row_rank(a) != row_rank(b))
		return row_rank(a) - row_rank(b);
	return strcmp(a->name, b->name);
}

int compare_sets(const struct sample_set *before, const struct sample_set *after,
		 const struct compare_opts *o, struct compare_row **rows, size_t *nrows)
{
	struct compare_row *out = calloc(before->n + after->n + 1, sizeof(*out));
	size_t n = 0;

	if (!out)
		return -ENOMEM;
	for (size_t i = 0; i < before->n; i++) {
		const struct sample *b = &before->s[i], *a = sample_find(after, b->name);
		struct compare_row *r = &out[n];

		if (o->glob && fnmatch(o->glob, b->name, 0))
			continue;
		*r = (struct compare_row){ .name = b->name, .unit = b->unit, .change = NAN, .p = NAN };
		if (a) {
			judge(r, b, a, o);
		} else {
			r->before = median(b->v, b->n);
			r->nbefore = b->n;
			r->verdict = V_ONLY_BEFORE;
		}
		n++;
	}
	for (size_t i = 0; i < after->n; i++) {
		const struct sample *a = &after->s[i];

		if ((o->glob && fnmatch(o->glob, a->name, 0)) || sample_find(before, a->name))
			continue;
		out[n++] = (struct compare_row){ .name = a->name, .unit = a->unit,
						 .after = median(a->v, a->n), .nafter = a->n,
						 .change = NAN, .p = NAN, .verdict = V_ONLY_AFTER };
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

size_t compare_print(const struct compare_row *rows, size_t n, const struct compare_opts *o, FILE *f)
{
	size_t regressions = 0, hidden = 0;
	int w = 6;

	for (size_t i = 0; i < n; i++)
		if (o->all || rows[i].verdict != V_SAME)
			w = MAX(w, (int)strlen(rows[i].name));
	fprintf(f, "%-*s  %12s  %12s  %9s  %-22s  %s\n", w, "metric", "before", "after", "change",
		"test", "verdict");
	for (size_t i = 0; i < n; i++) {
		const struct compare_row *r = &rows[i];
		char before[32], after[32], change[16], test[40];

		regressions += r->verdict == V_REGRESSED;
		if (!o->all && r->verdict == V_SAME) {
			hidden++;
			continue;
		}
		fmt_value(before, sizeof(before), r->before, r->nbefore);
		fmt_value(after, sizeof(after), r->after, r->nafter);
		if (isnan(r->change))
			snprintf(change, sizeof(change), "-");
		else
			snprintf(change, sizeof(change), "%+.1f%%", 100 * r->change);
		if (!isnan(r->p))
			snprintf(test, sizeof(test), "U test p=%.3g (%zu/%zu)", r->p, r->nbefore,
				 r->nafter);
		else if (r->nbefore && r->nafter)
			snprintf(test, sizeof(test), "threshold %.0f%%", 100 * o->threshold);
		else
			snprintf(test, sizeof(test), "-");
		fprintf(f, "%-*s  %12s  %12s  %9s  %-22s  %s\n", w, r->name, before, after, change,
			test, verdict_name(r->verdict));
	}
	if (hidden)
		fprintf(f, "(%zu metrics unchanged; --all shows them)\n", hidden);
	fprintf(f, "%zu regression%s\n", regressions, regressions == 1 ? "" : "s");
	return regressions;
}

/* --- history --- */

/* A metric's history: values (for the search) and where each came from. */
struct series {
	double *v;
	size_t n, cap;
	struct { char rev[48], date[32]; } *from;
	size_t from_cap;
};

static int series_add(const struct store_point *pt, void *ctx)
{
	struct series *s = ctx;

	if (array_reserve(&s->v, &s->cap, s->n, sizeof(*s->v)) ||
	    array_reserve(&s->from, &s->from_cap, s->n, sizeof(*s->from)))
		return -ENOMEM;
	s->v[s->n] = pt->value;
	snprintf(s->from[s->n].rev, sizeof(s->from[0].rev), "%s", pt->git_rev ? pt->git_rev : "?");
	snprintf(s->from[s->n].date, sizeof(s->from[0].date), "%s", pt->date ? pt->date : "");
	s->n++;
	return 0;
}

struct changes_ctx {
	struct store *store;
	const char *glob;
	double alpha;
	struct history_change *out;
	size_t n, cap;
};

#define MAX_CHANGES_PER_METRIC 16

static int metric_changes(const char *name, const char *unit, void *ctx)
{
	struct changes_ctx *cc = ctx;
	struct change_point cps[MAX_CHANGES_PER_METRIC];
	struct series s = { 0 };
	int found, rc;

	if (cc->glob && fnmatch(cc->glob, name, 0))
		return 0;
	rc = store_series(cc->store, name, series_add, &s);
	found = rc ? rc : change_points(s.v, s.n, cc->alpha, 3, cps, MAX_CHANGES_PER_METRIC);
	for (int i = 0; i < found; i++) {
		struct history_change *h;

		if (array_reserve(&cc->out, &cc->cap, cc->n, sizeof(*cc->out))) {
			found = -ENOMEM;
			break;
		}
		h = &cc->out[cc->n++];
		*h = (struct history_change){ .cp = cps[i] };
		snprintf(h->metric, sizeof(h->metric), "%s", name);
		snprintf(h->unit, sizeof(h->unit), "%s", unit);
		snprintf(h->rev, sizeof(h->rev), "%s", s.from[cps[i].index].rev);
		snprintf(h->date, sizeof(h->date), "%s", s.from[cps[i].index].date);
		h->change = rel_change(cps[i].before, cps[i].after);
		h->verdict = direction(name, unit, h->change);
	}
	free(s.v);
	free(s.from);
	return found < 0 ? found : 0;
}

int store_changes(struct store *s, const char *glob, double alpha, struct history_change **out,
		  size_t *n)
{
	struct changes_ctx cc = { .store = s, .glob = glob, .alpha = alpha };
	int rc = store_metric_names(s, metric_changes, &cc);

	if (rc) {
		free(cc.out);
		return rc;
	}
	*out = cc.out;
	*n = cc.n;
	return 0;
}
