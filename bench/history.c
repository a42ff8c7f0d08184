/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/array.h"
#include "common/digest_path.h"
#include "common/types.h"
#include "history.h"

/* Shortest level on either side of a measured change, in revisions. */
#define HISTORY_MIN_SEGMENT 3
#define HISTORY_MAX_CHANGES 16

/* --- loading --- */

static char *dup_str(const char *s)
{
	return strdup(s ? s : "");
}

/* An input of two runs: its path and its digest in each ("" where the run did not read it). */
struct input_pair {
	char path[512];
	char digest[2][DIGEST_HEX_LEN];
};

/* Add the "PATH=DIGEST" lines of @list as side @side of @in; the number of inputs. */
static size_t read_inputs(const char *list, int side, struct input_pair *in, size_t n, size_t max)
{
	for (const char *line = list; *line;) {
		size_t len = strcspn(line, "\n"), k;
		const char *eq = memrchr(line, '=', len);

		if (eq) {
			size_t plen = GPUISO_MIN((size_t)(eq - line), sizeof(in->path) - 1);

			for (k = 0; k < n && (strlen(in[k].path) != plen || strncmp(in[k].path, line, plen)); k++)
				;
			if (k == n && n < max)
				in[n++] = (struct input_pair){ 0 };
			if (k < n) {
				memcpy(in[k].path, line, plen);
				snprintf(in[k].digest[side], DIGEST_HEX_LEN, "%.*s", (int)(len - plen - 1), eq + 1);
			}
		}
		line += len + (line[len] == '\n');
	}
	return n;
}

/*
 * Which inputs differ between two runs' lists of digests: their paths,
 * ", " between them, in *@out; NULL when the lists are the same or one is
 * unknown. Return: 0, -ENOMEM.
 */
static int inputs_changed(const char *before, const char *after, char **out)
{
	struct input_pair in[32];
	size_t n, len = 0;
	FILE *f;

	*out = NULL;
	if (!before || !after || !strcmp(before, after))
		return 0;
	n = read_inputs(after, 1, in, read_inputs(before, 0, in, 0, ARRAY_SIZE(in)), ARRAY_SIZE(in));
	f = open_memstream(out, &len);
	if (!f)
		return -ENOMEM;
	for (size_t k = 0; k < n; k++)
		if (strcmp(in[k].digest[0], in[k].digest[1]))
			fprintf(f, "%s%s", ftell(f) ? ", " : "", in[k].path);
	if (fclose(f) || !len) { /* no memory, or the same inputs in another order */
		free(*out);
		*out = NULL;
		return len ? -ENOMEM : 0;
	}
	return 0;
}

/*
 * Loading. The store hands over every value by benchmark, then run by run,
 * each run's by metric name; each benchmark keeps its series sorted by
 * metric, so that a run's values are found in their series by walking that
 * list beside them (one comparison a value when the runs of a benchmark hold
 * the same metrics), by bisection otherwise. A run's revision, date, inputs
 * and code are kept once for all of its series (struct load_run).
 */

/* The benchmark whose runs are being loaded: its series, by metric. */
struct load_bench {
	char *name;
	size_t *by_metric; /* positions in h->s */
	size_t n, cap;
};

/* The run being loaded: its strings, kept in the history, shared by its revisions. */
struct load_run {
	long long id;
	struct load_bench *bench; /* NULL: a run of no benchmark, not loaded */
	bool known_kind;          /* a kind this gpuiso judges: its values can start a series */
	enum run_kind kind;
	const char *rev, *date, *inputs, *code;
};

struct load_ctx {
	struct history *h;
	struct load_bench *benches;
	size_t nbenches, benches_cap;
	struct load_run run;
	bool begun;               /* a run was begun: @run is one */
	size_t next;              /* where the run's next value is likely to be in its benchmark's list */
};

/*
 * *@at := @value as the history keeps it: @last when equal to it (the run
 * before's), else a copy the history owns; NULL for NULL. Return: 0, -ENOMEM.
 */
static int keep_str(struct history *h, const char *last, const char *value, const char **at)
{
	char *copy;

	if (!value || (last && !strcmp(last, value))) {
		*at = value ? last : NULL;
		return 0;
	}
	if (array_reserve(&h->strs, &h->strs_cap, h->nstrs, sizeof(*h->strs)))
		return -ENOMEM;
	copy = strdup(value);
	if (!copy)
		return -ENOMEM;
	h->strs[h->nstrs++] = copy;
	*at = copy;
	return 0;
}

/* The benchmark named @name: the current one, one seen before, or a new one (NULL: no memory). */
static struct load_bench *bench_of(struct load_ctx *lc, const char *name)
{
	struct load_bench *b = lc->run.bench;

	if (b && !strcmp(b->name, name))
		return b;
	for (size_t i = 0; i < lc->nbenches; i++) /* runs come by benchmark: seldom */
		if (!strcmp(lc->benches[i].name, name))
			return &lc->benches[i];
	if (array_reserve(&lc->benches, &lc->benches_cap, lc->nbenches, sizeof(*lc->benches)))
		return NULL;
	b = &lc->benches[lc->nbenches];
	*b = (struct load_bench){ .name = strdup(name) };
	if (!b->name)
		return NULL;
	lc->nbenches++;
	return b;
}

/* A new run begins at @row: what its values share. Return: 0, -ENOMEM. */
static int run_begin(struct load_ctx *lc, const struct store_row *row)
{
	struct load_run *r = &lc->run, last = *r;

	r->id = row->run;
	lc->begun = true;
	lc->next = 0;
	if (!row->benchmark) {
		r->bench = NULL;
		return 0;
	}
	r->bench = bench_of(lc, row->benchmark);
	if (!r->bench)
		return -ENOMEM;
	r->known_kind = !run_kind_parse(row->kind, &r->kind);
	return keep_str(lc->h, last.rev, row->git_rev ? row->git_rev : "?", &r->rev) ?:
	       keep_str(lc->h, last.date, row->date ? row->date : "", &r->date) ?:
	       keep_str(lc->h, last.inputs, row->inputs, &r->inputs) ?:
	       keep_str(lc->h, last.code, row->code, &r->code);
}

/* A new series for @row, at @pos of its benchmark's list. */
static struct series *series_new(struct load_ctx *lc, const struct store_row *row, size_t pos)
{
	struct history *h = lc->h;
	struct load_bench *b = lc->run.bench;
	struct series *sr;

	if (array_reserve(&h->s, &h->cap, h->n, sizeof(*h->s)) ||
	    array_reserve(&b->by_metric, &b->cap, b->n, sizeof(*b->by_metric)))
		return NULL;
	sr = &h->s[h->n];
	*sr = (struct series){ .benchmark = dup_str(row->benchmark), .metric = dup_str(row->metric),
			       .kind = lc->run.kind,
			       .exact = metric_class(lc->run.kind, row->metric) == METRIC_EXACT };
	snprintf(sr->unit, sizeof(sr->unit), "%s", row->unit ? row->unit : "");
	if (!sr->benchmark || !sr->metric) {
		free(sr->benchmark);
		free(sr->metric);
		return NULL;
	}
	memmove(&b->by_metric[pos + 1], &b->by_metric[pos], (b->n - pos) * sizeof(*b->by_metric));
	b->by_metric[pos] = h->n++;
	b->n++;
	return sr;
}

/*
 * The series of @row's metric in its run's benchmark: where the run's last
 * value's series was followed by it, or found by bisection, or new. NULL
 * with *@rc 0: not a series (a kind this gpuiso does not know); with *@rc
 * -ENOMEM: no memory.
 */
static struct series *series_of(struct load_ctx *lc, const struct store_row *row, int *rc)
{
	struct load_bench *b = lc->run.bench;
	struct series *s = lc->h->s;
	size_t lo = 0, hi = b->n;

	if (lc->next < b->n && !strcmp(s[b->by_metric[lc->next]].metric, row->metric))
		return &s[b->by_metric[lc->next++]];
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(s[b->by_metric[mid]].metric, row->metric);

		if (!c) {
			lc->next = mid + 1;
			return &s[b->by_metric[mid]];
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lc->run.known_kind)
		return NULL; /* a kind this gpuiso does not know: not a series it can judge */
	s = series_new(lc, row, lo);
	if (!s) {
		*rc = -ENOMEM;
		return NULL;
	}
	lc->next = lo + 1;
	return s;
}

/* One value into its series: a new revision when the run's differs from the series' last one's. */
static int add_point(struct series *sr, const struct load_run *run, double value)
{
	struct history_rev *r = sr->nrevs ? &sr->revs[sr->nrevs - 1] : NULL;

	if (!r || (r->rev != run->rev && strcmp(r->rev, run->rev))) {
		if (array_reserve(&sr->revs, &sr->revs_cap, sr->nrevs, sizeof(*sr->revs)))
			return -ENOMEM;
		r = &sr->revs[sr->nrevs++];
		*r = (struct history_rev){ .rev = run->rev, .date = run->date };
	}
	if (array_reserve(&sr->values, &sr->values_cap, sr->nvalues, sizeof(*sr->values)))
		return -ENOMEM;
	sr->values[sr->nvalues++] = value;
	r->n++;
	/* the inputs and code of its last run that says them */
	if (run->inputs)
		r->inputs = run->inputs;
	if (run->code)
		r->code = run->code;
	return 0;
}

/* Each revision's values, value, and what changed in its inputs. */
static int settle(struct series *sr)
{
	const double *v = sr->values;

	for (size_t i = 0; i < sr->nrevs; i++) {
		struct history_rev *r = &sr->revs[i];

		r->v = v;
		v += r->n;
		r->value = stats_median(r->v, r->n);
		if (isnan(r->value))
			return -ENOMEM;
		for (size_t k = 1; sr->exact && k < r->n; k++)
			sr->varies |= r->v[k] != r->v[0];
		if (i && inputs_changed(sr->revs[i - 1].inputs, r->inputs, &r->changed))
			return -ENOMEM;
	}
	return 0;
}

static int load_row(const struct store_row *row, void *ctx)
{
	struct load_ctx *lc = ctx;
	struct series *sr;
	int rc = 0;

	if ((!lc->begun || row->run != lc->run.id) && (rc = run_begin(lc, row)))
		return rc;
	if (!lc->run.bench || !row->metric)
		return 0;
	sr = series_of(lc, row, &rc);
	return sr ? add_point(sr, &lc->run, row->value) : rc;
}

/*
 * Whether a measured series can be searched: a maximum never is, a
 * percentile only where every run of the benchmark had the operations for
 * it; if not, why not goes into its unjudged.
 */
static bool searchable(const struct history *h, struct series *sr)
{
	char count[160];
	uint64_t needed = metric_support(sr->metric, count, sizeof(count));
	const struct series *cs;
	double fewest = INFINITY;

	if (needed == METRIC_NEVER_JUDGED) {
		snprintf(sr->unjudged, sizeof(sr->unjudged), "a maximum: never judged");
		return false;
	}
	if (!needed || !count[0])
		return true;
	cs = history_find(h, sr->benchmark, count);
	for (size_t i = 0; cs && i < cs->nvalues; i++)
		fewest = fmin(fewest, cs->values[i]);
	if (fewest >= (double)needed)
		return true;
	snprintf(sr->unjudged, sizeof(sr->unjudged), "%s needs %llu operations a run (had %.0f)",
		 strrchr(sr->metric, '.') + 1, (unsigned long long)needed, isfinite(fewest) ? fewest : 0);
	return false;
}

static void series_free(struct series *sr)
{
	for (size_t k = 0; k < sr->nrevs; k++)
		free(sr->revs[k].changed);
	free(sr->revs);
	free(sr->values);
	free(sr->changes);
	free(sr->benchmark);
	free(sr->metric);
}

static int cmp_series(const void *x, const void *y)
{
	const struct series *a = x, *b = y;
	int c = strcmp(a->benchmark, b->benchmark);

	return c ? c : strcmp(a->metric, b->metric);
}

/*
 * Every series is loaded, in order (history_find() bisects): the measured
 * ones that can be searched are the family their significance is corrected
 * for, whatever the globs show. Then only those the globs match are kept.
 */
static int load(struct store *s, const struct history_opts *o, struct history *h)
{
	struct load_ctx lc = { .h = h };
	size_t kept = 0;
	int rc = store_points(s, load_row, &lc);

	for (size_t i = 0; i < lc.nbenches; i++) {
		free(lc.benches[i].name);
		free(lc.benches[i].by_metric);
	}
	free(lc.benches);
	if (h->n) /* no series: no array at all */
		qsort(h->s, h->n, sizeof(*h->s), cmp_series);
	for (size_t i = 0; !rc && i < h->n; i++)
		if (!h->s[i].exact && searchable(h, &h->s[i]))
			h->searched++;
	for (size_t i = 0; i < h->n; i++) {
		struct series *sr = &h->s[i];

		if ((o->metric && fnmatch(o->metric, sr->metric, 0)) ||
		    (o->benchmark && fnmatch(o->benchmark, sr->benchmark, 0)))
			series_free(sr);
		else
			h->s[kept++] = *sr;
	}
	h->n = kept;
	for (size_t i = 0; !rc && i < h->n; i++)
		rc = settle(&h->s[i]);
	return rc;
}

static int load_ack(const struct store_ack *a, void *ctx)
{
	struct history *h = ctx;
	struct history_ack *k;

	if (array_reserve(&h->acks, &h->acks_cap, h->nacks, sizeof(*h->acks)))
		return -ENOMEM;
	k = &h->acks[h->nacks++];
	*k = (struct history_ack){ dup_str(a->benchmark), dup_str(a->metric), dup_str(a->rev),
				   dup_str(a->note), dup_str(a->added) };
	return k->benchmark && k->metric && k->rev && k->note && k->added ? 0 : -ENOMEM;
}

/* --- changes --- */

struct series *history_find(const struct history *h, const char *benchmark, const char *metric)
{
	const struct series key = { .benchmark = (char *)benchmark, .metric = (char *)metric };

	return h->n ? bsearch(&key, h->s, h->n, sizeof(*h->s), cmp_series) : NULL;
}

/* The note of the latest acknowledgement of a change of @sr at @rev, or NULL. */
static const char *history_acked(const struct history *h, const struct series *sr, const char *rev)
{
	for (size_t i = h->nacks; i-- > 0;) {
		const struct history_ack *a = &h->acks[i];

		if (!strcmp(a->rev, rev) && !fnmatch(a->benchmark, sr->benchmark, 0) &&
		    !fnmatch(a->metric, sr->metric, 0))
			return a->note;
	}
	return NULL;
}

static struct history_change *new_change(struct series *sr)
{
	struct history_change *c;

	if (array_reserve(&sr->changes, &sr->changes_cap, sr->nchanges, sizeof(*sr->changes)))
		return NULL;
	c = &sr->changes[sr->nchanges++];
	*c = (struct history_change){ .ci_lo = NAN, .ci_hi = NAN, .p = NAN };
	return c;
}

/* Whether two strings are both known and equal, or both unknown. */
static bool same_or_both_null(const char *a, const char *b)
{
	return a && b ? !strcmp(a, b) : a == b;
}

/* Whether the revisions [@s, @e) all ran one known code on the same inputs. */
static bool same_code(const struct series *sr, size_t s, size_t e)
{
	for (size_t i = s; i < e; i++)
		if (!sr->revs[i].code || !same_or_both_null(sr->revs[i].code, sr->revs[s].code) ||
		    !same_or_both_null(sr->revs[i].inputs, sr->revs[s].inputs))
			return false;
	return true;
}

/* An exact series changes wherever a revision's value differs from the one before. */
static int exact_changes(struct series *sr)
{
	for (size_t i = 1; i < sr->nrevs; i++) {
		double before = sr->revs[i - 1].value, after = sr->revs[i].value;
		struct history_change *c;

		if (before == after)
			continue;
		c = new_change(sr);
		if (!c)
			return -ENOMEM;
		c->at = i;
		c->before = before;
		c->after = after;
		c->change = compare_rel_change(before, after);
		c->machine = same_code(sr, i - 1, i + 1); /* then it is not deterministic */
	}
	return 0;
}

/* A measured series: E-divisive over its per-revision medians, at @alpha. */
static int measured_changes(struct series *sr, double alpha, double threshold)
{
	struct stats_change_point cps[HISTORY_MAX_CHANGES];
	double *x = calloc(sr->nrevs ? sr->nrevs : 1, sizeof(*x));
	int found;

	if (!x)
		return -ENOMEM;
	for (size_t i = 0; i < sr->nrevs; i++)
		x[i] = sr->revs[i].value;
	found = stats_change_points(x, sr->nrevs, alpha, HISTORY_MIN_SEGMENT, cps,
				    HISTORY_MAX_CHANGES);
	for (int i = 0; i < found; i++) {
		size_t s = i ? cps[i - 1].index : 0, at = cps[i].index;
		size_t e = i + 1 < found ? cps[i + 1].index : sr->nrevs;
		double change = compare_rel_change(cps[i].before, cps[i].after), lo, hi;
		struct history_change *c;

		if (fabs(change) < threshold)
			continue; /* real, maybe, but too small to act on */
		c = new_change(sr);
		if (!c) {
			found = -ENOMEM;
			break;
		}
		*c = (struct history_change){ .at = at, .before = cps[i].before, .after = cps[i].after,
					      .change = change, .p = cps[i].p, .ci_lo = NAN,
					      .ci_hi = NAN };
		/*
		 * Where the level changed is known to a revision or two: the code
		 * and inputs must have stayed through a level's length around it.
		 */
		c->machine = same_code(sr, at - GPUISO_MIN(at - s, HISTORY_MIN_SEGMENT),
				       at + GPUISO_MIN(e - at, HISTORY_MIN_SEGMENT));
		if (!stats_welch_ci(x + s, at - s, x + at, e - at, 0.95, &lo, &hi)) {
			c->ci_lo = lo;
			c->ci_hi = hi;
		}
	}
	free(x);
	return found < 0 ? found : 0;
}

bool history_change_claims(const struct series *sr, const struct history_change *c)
{
	return !c->ack_note && !(c->machine && !sr->exact);
}

static void judge_series(const struct history *h, struct series *sr)
{
	for (size_t i = 0; i < sr->nchanges; i++) {
		struct history_change *c = &sr->changes[i];

		c->verdict = compare_change_verdict(sr->metric, sr->unit, c->change);
		c->ack_note = history_acked(h, sr, sr->revs[c->at].rev);
	}
	if (sr->nchanges) {
		const struct history_change *last = &sr->changes[sr->nchanges - 1];

		sr->alarm = last->verdict == COMPARE_REGRESSED && history_change_claims(sr, last);
	}
}

int history_load(struct store *s, const struct history_opts *o, struct history *h)
{
	double alpha;
	int rc;

	*h = (struct history){ 0 };
	rc = load(s, o, h);
	if (!rc)
		rc = store_acks(s, load_ack, h);
	if (rc)
		return rc;
	/* every measured series is searched: chance alone passes alpha in some of many */
	alpha = o->alpha / (double)(h->searched ? h->searched : 1);
	for (size_t i = 0; !rc && i < h->n; i++) {
		struct series *sr = &h->s[i];

		if (sr->exact)
			rc = exact_changes(sr);
		else if (!sr->unjudged[0])
			rc = measured_changes(sr, alpha, o->threshold);
		judge_series(h, sr);
	}
	return rc;
}

void history_free(struct history *h)
{
	for (size_t i = 0; i < h->n; i++)
		series_free(&h->s[i]);
	free(h->s);
	for (size_t i = 0; i < h->nacks; i++) {
		free(h->acks[i].benchmark);
		free(h->acks[i].metric);
		free(h->acks[i].rev);
		free(h->acks[i].note);
		free(h->acks[i].added);
	}
	free(h->acks);
	for (size_t i = 0; i < h->nstrs; i++)
		free(h->strs[i]);
	free(h->strs);
	*h = (struct history){ 0 };
}

size_t history_alarms(const struct history *h)
{
	size_t n = 0;

	for (size_t i = 0; i < h->n; i++)
		n += h->s[i].alarm;
	return n;
}

/* --- comparing two revisions of a store --- */

static int add_run(const struct run_record *rec, void *ctx)
{
	return compare_sample_set_add_run(ctx, rec);
}

int history_samples(struct store *s, const char *before, const char *after,
		    struct compare_sample_set *b, struct compare_sample_set *a)
{
	int rc = store_rev_runs(s, before, add_run, b);

	return rc ? rc : store_rev_runs(s, after, add_run, a);
}

int history_noise(const char *benchmark, const char *metric, struct compare_series_noise *out,
		  void *ctx)
{
	const struct history_noise_ctx *nc = ctx;
	const struct series *sr = history_find(nc->h, benchmark, metric);
	double sum = 0, sum2 = 0;
	size_t n = 0;

	*out = (struct compare_series_noise){ 0 };
	for (size_t i = 0; sr && i < sr->nrevs; i++) {
		const struct history_rev *r = &sr->revs[i];
		double l;

		if (!strcmp(r->rev, nc->before) || !strcmp(r->rev, nc->after) || r->value <= 0)
			continue;
		l = log(r->value);
		sum += l;
		sum2 += l * l;
		n++;
	}
	if (n < 2)
		return -ENOENT;
	out->sigma = sqrt(fmax(0, (sum2 - sum * sum / (double)n) / (double)(n - 1)));
	out->revisions = n;
	return 0;
}

/* One side of a comparison from a file or a folder of run files. */
static int side_files(const char *what, struct compare_sample_set *set, char *err, size_t errlen)
{
	struct runfile_set fs = { 0 };
	int rc = runfile_read_path(what, &fs, err, errlen);

	for (size_t i = 0; !rc && i < fs.n; i++)
		rc = compare_sample_set_add_run(set, &fs.r[i]);
	if (!rc && !fs.n) {
		snprintf(err, errlen, "%s: no run file in it", what);
		rc = -ENOENT;
	}
	runfile_set_free(&fs);
	return rc;
}

int history_sides_load(struct history_sides *cs, struct store *s, char *const sides[2],
		       struct compare_opts *o, char *err, size_t errlen)
{
	const struct history_opts ho = HISTORY_OPTS_DEFAULT;
	int rc;

	memset(cs, 0, sizeof(*cs));
	if (!s) {
		rc = side_files(sides[0], &cs->before, err, errlen);
		if (!rc)
			rc = side_files(sides[1], &cs->after, err, errlen);
		/* two files of two benchmarks: the user compares them on purpose */
		if (!rc && compare_sample_set_benchmarks(&cs->before, &cs->across[0]) == 1 &&
		    compare_sample_set_benchmarks(&cs->after, &cs->across[1]) == 1 &&
		    strcmp(cs->across[0], cs->across[1]))
			o->across = true;
		else
			cs->across[0] = cs->across[1] = NULL;
		return rc;
	}
	for (int i = 0; i < 2; i++) {
		rc = store_rev_resolve(s, sides[i], cs->rev[i], sizeof(cs->rev[i]), err, errlen);
		if (rc)
			return rc;
	}
	rc = history_samples(s, cs->rev[0], cs->rev[1], &cs->before, &cs->after);
	if (!rc)
		rc = history_load(s, &ho, &cs->h);
	if (rc) {
		snprintf(err, errlen, "%s", *store_error(s) ? store_error(s) : strerror(-rc));
		return rc;
	}
	cs->nc = (struct history_noise_ctx){ &cs->h, cs->rev[0], cs->rev[1] };
	o->noise = history_noise;
	o->noise_ctx = &cs->nc;
	o->code_tracked = true;
	return 0;
}

void history_sides_free(struct history_sides *cs)
{
	compare_sample_set_free(&cs->before);
	compare_sample_set_free(&cs->after);
	history_free(&cs->h);
}
