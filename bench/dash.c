/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fnmatch.h>
#include <libfyaml.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/array.h"
#include "common/types.h"
#include "compare.h"
#include "dash.h"

/* Runs a chart or table shows at most (the most recent). */
#define DASH_HISTORY 200
#define DASH_RUNS_LISTED 20
/* A latest-vs-previous change smaller than this is shown as unchanged. */
#define DASH_THRESHOLD 0.10

static const char *const colors[] = { "#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd",
				      "#8c564b", "#e377c2", "#17becf", "#7f7f7f" };
#define RED "#d62728"
#define GREEN "#2ca02c"
#define GREY "#888"

/* --- output helpers --- */

struct page {
	FILE *f;
	char path[4096], tmp[4112];
	int charts;
};

static void esc(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		default: fputc(*s, f);
		}
	}
}

static const char style[] =
	"body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222;max-width:1200px}"
	"nav a{margin-right:16px}table{border-collapse:collapse;margin:12px 0}"
	"td,th{padding:3px 10px;border-bottom:1px solid #eee;text-align:right}"
	"td:first-child,th:first-child{text-align:left}tr.bad{background:#fde8e8}"
	"tr.good{background:#e8f6e8}.bad{color:" RED "}.good{color:" GREEN "}"
	".banner{padding:10px 14px;border-radius:6px;font-size:16px;margin:12px 0}"
	".banner.bad{background:" RED ";color:#fff}.banner.good{background:" GREEN ";color:#fff}"
	"code{background:#f4f4f4;padding:1px 4px;word-break:break-all}svg{display:block}";

/*
 * For tests in a real browser: every chart's data must have a non-empty
 * box once laid out; the count goes to the body's data attributes.
 */
static const char drawn_script[] =
	"<script>(function(){var c=document.querySelectorAll('svg[data-chart]'),d=0;"
	"c.forEach(function(s){var p=s.querySelector('.data');if(p){var b=p.getBBox();"
	"if(b.width>0||b.height>0)d++;}});document.body.setAttribute('data-charts',c.length);"
	"document.body.setAttribute('data-charts-drawn',d);})();</script>";

static int page_open(struct page *p, const char *dir, const char *name, const char *title)
{
	snprintf(p->path, sizeof(p->path), "%s/%s", dir, name);
	snprintf(p->tmp, sizeof(p->tmp), "%s.tmp", p->path);
	p->charts = 0;
	p->f = fopen(p->tmp, "w");
	if (!p->f)
		return -errno;
	fprintf(p->f, "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>gpuiso: ");
	esc(p->f, title);
	fprintf(p->f, "</title><style>%s</style></head>\n<body>\n<nav><a href=\"index.html\">overview</a>"
		      "<a href=\"latency.html\">latency</a><a href=\"progress.html\">forward progress</a>"
		      "<a href=\"campaigns.html\">campaigns</a></nav>\n<h1>", style);
	esc(p->f, title);
	fprintf(p->f, "</h1>\n");
	return 0;
}

static int page_close(struct page *p)
{
	int rc = 0;

	fprintf(p->f, "%s\n</body></html>\n", drawn_script);
	if (ferror(p->f))
		rc = -EIO;
	if (fclose(p->f) && !rc)
		rc = -errno;
	if (!rc && rename(p->tmp, p->path))
		rc = -errno;
	if (rc)
		remove(p->tmp);
	return rc;
}

/* --- charts --- */

struct line {
	const double *y; /* n values at x = 0 .. n-1 (or at @x) */
	const double *x;
	size_t n;
	const char *color;
	bool dashed;
	const char *label;
};

struct mark {
	size_t at;         /* x position (index) */
	const char *label;
	const char *color;
};

struct chart {
	int w, h;
	bool log_y;
	const char *y_unit;
	const char *const *x_labels; /* one per x index, or NULL */
	const struct mark *marks;
	size_t nmarks;
	bool points; /* draw a dot at each value */
	bool spark;  /* a sparkline: no axes, no padding */
};

#define PAD_L 70
#define PAD_R 16
#define PAD_T 14
#define PAD_B 34

static int pad(const struct chart *c, int full)
{
	return c->spark ? 3 : full;
}

static double ty(const struct chart *c, double v, double lo, double hi)
{
	double f;

	if (c->log_y) {
		v = log10(MAX(v, 1e-12));
		lo = log10(MAX(lo, 1e-12));
		hi = log10(MAX(hi, 1e-12));
	}
	f = hi > lo ? (v - lo) / (hi - lo) : 0.5;
	return pad(c, PAD_T) + (1 - f) * (c->h - pad(c, PAD_T) - pad(c, PAD_B));
}

static double tx(const struct chart *c, double x, double xmax)
{
	return pad(c, PAD_L) + (xmax > 0 ? x / xmax : 0.5) * (c->w - pad(c, PAD_L) - pad(c, PAD_R));
}

static void fmt_num(char *buf, size_t len, double v)
{
	double a = fabs(v);

	if (a >= 1e9)
		snprintf(buf, len, "%.3gG", v / 1e9);
	else if (a >= 1e6)
		snprintf(buf, len, "%.3gM", v / 1e6);
	else if (a >= 1e4)
		snprintf(buf, len, "%.3gk", v / 1e3);
	else
		snprintf(buf, len, "%.4g", v);
}

static void chart(struct page *p, const struct chart *c, const struct line *lines, size_t nlines)
{
	FILE *f = p->f;
	double lo = INFINITY, hi = -INFINITY, xmax = 0;
	char num[32];

	for (size_t i = 0; i < nlines; i++) {
		for (size_t k = 0; k < lines[i].n; k++) {
			double v = lines[i].y[k], x = lines[i].x ? lines[i].x[k] : (double)k;

			if (c->log_y && v <= 0)
				continue;
			lo = MIN(lo, v);
			hi = MAX(hi, v);
			xmax = MAX(xmax, x);
		}
	}
	if (lo > hi)
		lo = hi = 0;
	if (!c->log_y) {
		double span = hi - lo ? hi - lo : fabs(hi) ? fabs(hi) : 1;

		lo = lo >= 0 && lo - span * 0.1 < 0 ? 0 : lo - span * 0.1;
		hi += span * 0.1;
	}
	p->charts++;
	fprintf(f, "<svg data-chart width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\">\n",
		c->w, c->h, c->w, c->h);
	/* axes with three y ticks */
	fprintf(f, "<g stroke=\"#ccc\" font-size=\"11\" fill=\"#555\">\n");
	for (int t = 0; !c->spark && t <= 2; t++) {
		double v = c->log_y ? pow(10, log10(MAX(lo, 1e-12)) +
						       t * (log10(MAX(hi, 1e-12)) - log10(MAX(lo, 1e-12))) / 2)
				    : lo + t * (hi - lo) / 2;
		double y = ty(c, v, lo, hi);

		fmt_num(num, sizeof(num), v);
		fprintf(f, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\"/>"
			   "<text stroke=\"none\" x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s%s%s</text>\n",
			PAD_L, c->w - PAD_R, y, y, PAD_L - 6, y + 4, num, c->y_unit ? " " : "",
			c->y_unit ? c->y_unit : "");
	}
	if (c->x_labels && !c->spark && nlines) {
		size_t n = lines[0].n, step = n > 8 ? (n + 7) / 8 : 1;

		for (size_t k = 0; k < n; k += step) {
			fprintf(f, "<text stroke=\"none\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">",
				tx(c, lines[0].x ? lines[0].x[k] : (double)k, xmax), c->h - 10);
			esc(f, c->x_labels[k]);
			fprintf(f, "</text>\n");
		}
	}
	fprintf(f, "</g>\n");
	for (size_t i = 0; i < c->nmarks; i++) {
		double x = tx(c, (double)c->marks[i].at - 0.5, xmax);

		fprintf(f, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\" stroke=\"%s\" stroke-width=\"2\""
			   " stroke-dasharray=\"4 3\"><title>", x, x, pad(c, PAD_T), c->h - pad(c, PAD_B),
			c->marks[i].color);
		esc(f, c->marks[i].label);
		fprintf(f, "</title></line>\n");
	}
	fprintf(f, "<g class=\"data\" fill=\"none\" stroke-width=\"2\">\n");
	for (size_t i = 0; i < nlines; i++) {
		const struct line *l = &lines[i];

		fprintf(f, "<polyline stroke=\"%s\"%s points=\"", l->color,
			l->dashed ? " stroke-dasharray=\"6 4\"" : "");
		for (size_t k = 0; k < l->n; k++) {
			double x = l->x ? l->x[k] : (double)k;

			if (c->log_y && l->y[k] <= 0)
				continue;
			fprintf(f, "%.1f,%.1f ", tx(c, x, xmax), ty(c, l->y[k], lo, hi));
		}
		fprintf(f, "\"><title>");
		esc(f, l->label);
		fprintf(f, "</title></polyline>\n");
		/* one value is a dot, or there would be nothing to see */
		for (size_t k = 0; (c->points || l->n == 1) && k < l->n; k++)
			fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" fill=\"%s\"/>\n",
				tx(c, l->x ? l->x[k] : (double)k, xmax), ty(c, l->y[k], lo, hi), l->color);
	}
	fprintf(f, "</g></svg>\n");
}

/* --- metric histories --- */

struct history {
	char *name;
	char unit[16];
	enum metric_better better;
	double *v;
	char **rev;
	size_t n, cap, rev_cap;
	struct change_point cps[16];
	int ncps;
	enum verdict latest;     /* latest against previous */
	enum verdict last_shift; /* the last change point's direction, V_SAME if none */
};

static int history_point(const struct store_point *pt, void *ctx)
{
	struct history *h = ctx;

	if (array_reserve(&h->v, &h->cap, h->n, sizeof(*h->v)) ||
	    array_reserve(&h->rev, &h->rev_cap, h->n, sizeof(*h->rev)))
		return -ENOMEM;
	h->rev[h->n] = strdup(pt->git_rev ? pt->git_rev : "?");
	if (!h->rev[h->n])
		return -ENOMEM;
	h->v[h->n] = pt->value;
	h->n++;
	return 0;
}

static void history_free(struct history *h)
{
	for (size_t i = 0; i < h->n; i++)
		free(h->rev[i]);
	free(h->rev);
	free(h->v);
	free(h->name);
}

struct site {
	struct store *s;
	const char *dir;
	const struct dash_opts *o;
	struct history *h;
	size_t nh, caph;
	size_t pages;
	char *err;
	size_t errlen;
};

static enum verdict judge_change(const struct history *h, double before, double after, bool significant)
{
	double change = before ? (after - before) / fabs(before) : after ? INFINITY : 0;

	if (!significant || change == 0 || h->better == BETTER_NONE)
		return V_SAME;
	return (change > 0) == (h->better == BETTER_HIGHER) ? V_IMPROVED : V_REGRESSED;
}

static int load_metric(const char *name, const char *unit, void *ctx)
{
	struct site *st = ctx;
	struct history *h;
	size_t first;
	int rc;

	if (metric_better(name, unit) == BETTER_NONE)
		return 0; /* counts of what the workload did: not a measure of gpuiso */
	if (array_reserve(&st->h, &st->caph, st->nh, sizeof(*st->h)))
		return -ENOMEM;
	h = &st->h[st->nh];
	*h = (struct history){ .name = strdup(name), .better = metric_better(name, unit) };
	if (!h->name)
		return -ENOMEM;
	st->nh++;
	snprintf(h->unit, sizeof(h->unit), "%s", unit);
	rc = store_series(st->s, name, history_point, h);
	if (rc)
		return rc;
	/* only the most recent runs are charted and searched */
	if (h->n > DASH_HISTORY) {
		first = h->n - DASH_HISTORY;
		for (size_t i = 0; i < first; i++)
			free(h->rev[i]);
		memmove(h->v, h->v + first, DASH_HISTORY * sizeof(*h->v));
		memmove(h->rev, h->rev + first, DASH_HISTORY * sizeof(*h->rev));
		h->n = DASH_HISTORY;
	}
	h->ncps = change_points(h->v, h->n, st->o->alpha, 3, h->cps, 16);
	if (h->ncps < 0)
		return h->ncps;
	if (h->n >= 2) {
		double a = h->v[h->n - 2], b = h->v[h->n - 1];

		h->latest = judge_change(h, a, b, a != b && fabs(b - a) > DASH_THRESHOLD * fabs(a));
	}
	if (h->ncps) {
		const struct change_point *cp = &h->cps[h->ncps - 1];

		h->last_shift = judge_change(h, cp->before, cp->after, true);
	}
	return 0;
}

/*
 * Whether one run's value means something on its own: modeled device time,
 * counts and verdicts are the same on every run of the same code; wall-clock
 * figures vary, and only a detected change of level counts for them.
 */
static bool deterministic(const struct history *h)
{
	return strstr(h->name, "modeled_ns") || !strcmp(h->unit, "count") ||
	       !strcmp(h->unit, "bool") || !strcmp(h->unit, "bytes");
}

static bool bad(const struct history *h)
{
	return h->last_shift == V_REGRESSED || (deterministic(h) && h->latest == V_REGRESSED);
}

/* The metrics the overview shows (every one keeps its own page). */
static bool headline(const char *name)
{
	static const char *const globs[] = {
		"ops.*.latency_ns.p50", "ops.*.latency_ns.p99", "ops.*.modeled_ns.p99", "ops.*.errors",
		"power.*", "invariants.*", "faults.*", "campaign.*", "sweep.*",
	};

	if (strncmp(name, "ops.", 4) && strncmp(name, "power.", 6) && strncmp(name, "invariants.", 11) &&
	    strncmp(name, "faults.", 7))
		return true; /* benchmarks */
	for (size_t i = 0; i < sizeof(globs) / sizeof(globs[0]); i++)
		if (!fnmatch(globs[i], name, 0))
			return !strstr(name, "time_to_complete") || strstr(name, "p99");
	return false;
}

static int cmp_history(const void *x, const void *y)
{
	const struct history *a = x, *b = y;

	if (bad(a) != bad(b))
		return bad(b) - bad(a);
	return strcmp(a->name, b->name);
}

static void slug(char *out, size_t len, const char *name)
{
	size_t i = 0;

	for (; *name && i + 1 < len; name++)
		out[i++] = (*name >= 'a' && *name <= 'z') || (*name >= '0' && *name <= '9') ||
					   (*name >= 'A' && *name <= 'Z') || *name == '.' || *name == '-'
				   ? *name
				   : '_';
	out[i] = '\0';
}

static double best_of(const struct history *h)
{
	double best = h->v[0];

	for (size_t i = 1; i < h->n; i++)
		best = h->better == BETTER_HIGHER ? MAX(best, h->v[i]) : MIN(best, h->v[i]);
	return best;
}

/* A change from @from to @to: an arrow for its sign, red or green for worse or better. */
static void change_cell(FILE *f, const struct history *h, double from, double to)
{
	double change = from ? (to - from) / fabs(from) : 0;
	bool big = from ? fabs(change) > DASH_THRESHOLD : to != 0;
	enum verdict v = judge_change(h, from, to, deterministic(h) && big);
	const char *arrow = to > from ? "&#9650; " : to < from ? "&#9660; " : "";

	fprintf(f, "<td class=\"%s\">%s", v == V_REGRESSED ? "bad" : v == V_IMPROVED ? "good" : "", arrow);
	if (from)
		fprintf(f, "%+.1f%%</td>", 100 * change);
	else
		fprintf(f, "%s</td>", to ? "from 0" : "+0.0%");
}

static struct mark *marks_of(const struct history *h, char labels[][96])
{
	struct mark *m = calloc((size_t)h->ncps + 1, sizeof(*m));

	for (int i = 0; m && i < h->ncps; i++) {
		const struct change_point *cp = &h->cps[i];
		enum verdict v = judge_change(h, cp->before, cp->after, true);

		snprintf(labels[i], 96, "change at %s: %.4g -> %.4g (p=%.2g)", h->rev[cp->index],
			 cp->before, cp->after, cp->p);
		m[i] = (struct mark){ cp->index, labels[i], v == V_REGRESSED ? RED : v == V_IMPROVED ? GREEN : GREY };
	}
	return m;
}

static int write_metric_page(struct site *st, const struct history *h)
{
	char file[256], s[200], labels[16][96];
	struct page p;
	struct mark *marks = marks_of(h, labels);
	struct line l = { .y = h->v, .n = h->n, .color = bad(h) ? RED : colors[0], .label = h->name };
	struct chart c = { .w = 1100, .h = 360, .y_unit = h->unit, .x_labels = (const char *const *)h->rev,
			   .marks = marks, .nmarks = (size_t)h->ncps, .points = true };
	int rc;

	if (!marks)
		return -ENOMEM;
	slug(s, sizeof(s), h->name);
	snprintf(file, sizeof(file), "metric-%s.html", s);
	rc = page_open(&p, st->dir, file, h->name);
	if (rc)
		goto free_marks;
	fprintf(p.f, "<p>%s is better %s. %zu runs; dashed lines mark detected changes of level "
		     "(E-divisive means, t-test p &lt; %g): red worse, green better.</p>\n",
		h->unit, h->better == BETTER_HIGHER ? "higher" : "lower", h->n, st->o->alpha);
	chart(&p, &c, &l, 1);
	fprintf(p.f, "<table><tr><th>change at revision</th><th>before</th><th>after</th><th>change</th><th>p</th></tr>\n");
	for (int i = 0; i < h->ncps; i++) {
		const struct change_point *cp = &h->cps[i];
		enum verdict v = judge_change(h, cp->before, cp->after, true);

		fprintf(p.f, "<tr class=\"%s\"><td><code>", v == V_REGRESSED ? "bad" : v == V_IMPROVED ? "good" : "");
		esc(p.f, h->rev[cp->index]);
		fprintf(p.f, "</code></td><td>%.6g</td><td>%.6g</td>", cp->before, cp->after);
		change_cell(p.f, h, cp->before, cp->after);
		fprintf(p.f, "<td>%.2g</td></tr>\n", cp->p);
	}
	fprintf(p.f, "</table>\n");
	rc = page_close(&p);
	st->pages += !rc;
free_marks:
	free(marks);
	return rc;
}

static int write_index(struct site *st)
{
	struct page p;
	size_t regressions = 0;
	int rc = page_open(&p, st->dir, "index.html", "performance overview");

	if (rc)
		return rc;
	for (size_t i = 0; i < st->nh; i++)
		regressions += bad(&st->h[i]);
	fprintf(p.f, "<p>Latest run against the previous and the best, per metric. Red: worse, by a "
		     "detected change of level (any metric) or by more than %.0f%% from one run to the "
		     "next (modeled device time, counts and checks, which do not vary between runs). "
		     "Every metric has a page with its history; this table shows the main ones.</p>\n",
		100 * DASH_THRESHOLD);
	if (!st->nh)
		fprintf(p.f, "<p>The store holds no runs yet: <code>gpuiso store add DB RESULTS.json</code>.</p>\n");
	else if (regressions)
		fprintf(p.f, "<div class=\"banner bad\">&#9650; %zu metric%s got worse (latest run, or the last detected change)</div>\n",
			regressions, regressions == 1 ? "" : "s");
	else
		fprintf(p.f, "<div class=\"banner good\">No regression: every metric is as good as before</div>\n");
	fprintf(p.f, "<table><tr><th>metric</th><th>history</th><th>latest</th><th>vs previous</th>"
		     "<th>vs best</th><th>unit</th></tr>\n");
	for (size_t i = 0; i < st->nh; i++) {
		const struct history *h = &st->h[i];
		char s[200], labels[16][96];

		if (!headline(h->name))
			continue;
		struct mark *marks = marks_of(h, labels);
		struct line l = { .y = h->v, .n = h->n, .color = bad(h) ? RED : colors[0], .label = h->name };
		struct chart c = { .w = 220, .h = 40, .marks = marks, .nmarks = (size_t)h->ncps, .spark = true };

		if (!marks)
			return -ENOMEM;
		slug(s, sizeof(s), h->name);
		fprintf(p.f, "<tr class=\"%s\"><td><a href=\"metric-%s.html\">", bad(h) ? "bad" : "", s);
		esc(p.f, h->name);
		fprintf(p.f, "</a></td><td>");
		chart(&p, &c, &l, 1);
		fprintf(p.f, "</td><td>%.6g</td>", h->v[h->n - 1]);
		if (h->n >= 2)
			change_cell(p.f, h, h->v[h->n - 2], h->v[h->n - 1]);
		else
			fprintf(p.f, "<td>-</td>");
		change_cell(p.f, h, best_of(h), h->v[h->n - 1]);
		fprintf(p.f, "<td>%s</td></tr>\n", h->unit);
		free(marks);
	}
	fprintf(p.f, "</table>\n");
	rc = page_close(&p);
	st->pages += !rc;
	return rc;
}

/* --- pages from the stored JSON of runs --- */

struct run_ref {
	long long id;
	char kind[16], rev[48], date[32], label[160];
};

struct run_list {
	struct run_ref *r;
	size_t n, cap;
};

static int list_run(const struct store_run *run, void *ctx)
{
	struct run_list *l = ctx;
	struct run_ref *r;

	if (array_reserve(&l->r, &l->cap, l->n, sizeof(*l->r)))
		return -ENOMEM;
	r = &l->r[l->n++];
	r->id = run->id;
	snprintf(r->kind, sizeof(r->kind), "%s", run->kind);
	snprintf(r->rev, sizeof(r->rev), "%s", run->git_rev ? run->git_rev : "?");
	snprintf(r->date, sizeof(r->date), "%s", run->date ? run->date : "");
	snprintf(r->label, sizeof(r->label), "%s", run->campaign ? run->campaign
						    : run->trace   ? run->trace
								   : run->kind);
	return 0;
}

static struct fy_document *run_doc(struct store *s, long long id)
{
	struct fy_parse_cfg cfg = { .flags = FYPCF_QUIET | FYPCF_JSON_FORCE };
	struct fy_document *d;
	char *json;

	if (store_run_json(s, id, &json))
		return NULL;
	/* the document keeps pointing into the text it was built from: it takes it */
	d = fy_document_build_from_malloc_string(&cfg, json, FY_NT);
	if (!d)
		free(json);
	return d;
}

static double num_at(struct fy_node *n, const char *path)
{
	struct fy_node *v = fy_node_by_path(n, path, FY_NT, FYNWF_DONT_FOLLOW);
	const char *s = v && fy_node_is_scalar(v) ? fy_node_get_scalar0(v) : NULL;

	return s ? strtod(s, NULL) : NAN;
}

static const char *str_at(struct fy_node *n, const char *path)
{
	struct fy_node *v = fy_node_by_path(n, path, FY_NT, FYNWF_DONT_FOLLOW);

	return v && fy_node_is_scalar(v) ? fy_node_get_scalar0(v) : NULL;
}

/* The last two runs of @kind, newest first. */
static size_t last_of_kind(const struct run_list *l, const char *kind, const struct run_ref **out, size_t max)
{
	size_t n = 0;

	for (size_t i = l->n; i-- > 0 && n < max;)
		if (!strcmp(l->r[i].kind, kind))
			out[n++] = &l->r[i];
	return n;
}

static int write_latency(struct site *st, const struct run_list *l)
{
	static const char *const pcts[] = { "p50", "p90", "p99", "p999", "max" };
	static const char *const pct_labels[] = { "p50", "p90", "p99", "p99.9", "max" };
	static const double nines[] = { 0.301, 1, 2, 3, 4 }; /* -log10(1 - p) */
	const struct run_ref *runs[2];
	size_t nruns = last_of_kind(l, "results", runs, 2);
	struct fy_document *docs[2] = { NULL, NULL };
	struct page p;
	int rc = page_open(&p, st->dir, "latency.html", "latency percentiles");

	if (rc)
		return rc;
	if (!nruns) {
		fprintf(p.f, "<p>No replay results stored yet.</p>\n");
		return page_close(&p) ?: (st->pages++, 0);
	}
	for (size_t i = 0; i < nruns; i++)
		docs[i] = run_doc(st->s, runs[i]->id);
	fprintf(p.f, "<p>Wall-clock latency per operation at p50, p90, p99, p99.9 and max (log scale), "
		     "latest run (solid, <code>");
	esc(p.f, runs[0]->rev);
	fprintf(p.f, "</code>)");
	if (nruns == 2) {
		fprintf(p.f, " against the one before (dashed, <code>");
		esc(p.f, runs[1]->rev);
		fprintf(p.f, "</code>)");
	}
	fprintf(p.f, ".</p>\n");
	if (docs[0]) {
		struct fy_node *ops = fy_node_by_path(fy_document_root(docs[0]), "/ops", FY_NT, 0);
		struct fy_node_pair *pair;
		void *it = NULL;

		while (ops && (pair = fy_node_mapping_iterate(ops, &it)) != NULL) {
			const char *op = fy_node_get_scalar0(fy_node_pair_key(pair));
			double y[2][5], x[5];
			struct line lines[2];
			size_t nl = 0;
			char path[160];
			struct chart c = { .w = 360, .h = 200, .log_y = true, .y_unit = "ns",
					   .x_labels = pct_labels };

			if (!op || num_at(fy_node_pair_value(pair), "count") <= 0)
				continue;
			for (size_t r = 0; r < 2 && docs[r]; r++) {
				for (size_t k = 0; k < 5; k++) {
					snprintf(path, sizeof(path), "/ops/%s/latency_ns/%s", op, pcts[k]);
					y[r][k] = num_at(fy_document_root(docs[r]), path);
					x[k] = nines[k];
				}
				if (isnan(y[r][0]))
					continue;
				lines[nl++] = (struct line){ .y = y[r], .x = x, .n = 5, .color = colors[1 - r],
							     .dashed = r == 1, .label = r ? "previous" : "latest" };
			}
			fprintf(p.f, "<div style=\"display:inline-block;margin:6px\"><b>");
			esc(p.f, op);
			fprintf(p.f, "</b>");
			chart(&p, &c, lines, nl);
			fprintf(p.f, "</div>\n");
		}
	}
	for (size_t i = 0; i < nruns; i++)
		fy_document_destroy(docs[i]);
	rc = page_close(&p);
	st->pages += !rc;
	return rc;
}

static int write_progress(struct site *st, const struct run_list *l)
{
	static const char *const dirs[] = { "to_d3", "to_d0" };
	static const char *const paths[] = { "pinned", "chunked", "reset" };
	static const char *const path_colors[] = { GREEN, "#ff7f0e", RED };
	const struct run_ref *runs[DASH_RUNS_LISTED];
	size_t n = last_of_kind(l, "results", runs, DASH_RUNS_LISTED);
	struct page p;
	int rc = page_open(&p, st->dir, "progress.html", "forward progress of power transitions");

	if (rc)
		return rc;
	fprintf(p.f, "<p>Per replay (oldest left), how power transitions ended: "
		     "<span class=\"good\">pinned</span> (the whole save area locked at once), "
		     "<span style=\"color:#ff7f0e\">chunked</span> (forward progress through the small "
		     "buffer) or <span class=\"bad\">reset</span> (no progress: the adapter lost its state).</p>\n");
	for (size_t d = 0; d < 2; d++) {
		int w = 1100, h = 180, bar = n ? (w - PAD_L - PAD_R) / (int)n : 0;

		fprintf(p.f, "<h2>%s</h2>\n", d ? "power up (D3 to D0: restore)" : "power down (D0 to D3: save)");
		p.charts++;
		fprintf(p.f, "<svg data-chart width=\"%d\" height=\"%d\"><g class=\"data\">\n", w, h);
		for (size_t i = 0; i < n; i++) {
			struct fy_document *doc = run_doc(st->s, runs[n - 1 - i]->id);
			double total, y = h - PAD_B;
			char path[64];

			if (!doc)
				continue;
			snprintf(path, sizeof(path), "/power/%s/transitions", dirs[d]);
			total = num_at(fy_document_root(doc), path);
			for (size_t k = 0; total > 0 && k < 3; k++) {
				double v, bh;

				snprintf(path, sizeof(path), "/power/%s/%s", dirs[d], paths[k]);
				v = num_at(fy_document_root(doc), path);
				if (isnan(v) || v <= 0)
					continue;
				bh = v / total * (h - PAD_T - PAD_B);
				y -= bh;
				fprintf(p.f, "<rect x=\"%d\" y=\"%.1f\" width=\"%d\" height=\"%.1f\" fill=\"%s\">"
					     "<title>%s: %.0f of %.0f</title></rect>\n",
					PAD_L + (int)i * bar, y, MAX(bar - 2, 1), bh, path_colors[k], paths[k], v, total);
			}
			fy_document_destroy(doc);
		}
		fprintf(p.f, "</g></svg>\n");
	}
	rc = page_close(&p);
	st->pages += !rc;
	return rc;
}

static void failures_table(FILE *f, struct fy_node *root, bool sweep)
{
	struct fy_node *fails = fy_node_by_path(root, "/failures", FY_NT, 0);
	struct fy_node *item;
	void *it = NULL;

	if (!fails || !fy_node_sequence_item_count(fails)) {
		fprintf(f, "<p class=\"good\">No failing run.</p>\n");
		return;
	}
	fprintf(f, "<table><tr><th>%s</th><th>%s</th><th>reproduce</th></tr>\n", sweep ? "point, hit" : "run",
		sweep ? "outcome" : "reason");
	while ((item = fy_node_sequence_iterate(fails, &it)) != NULL) {
		fprintf(f, "<tr class=\"bad\"><td>");
		if (sweep) {
			esc(f, str_at(item, "/point"));
			fprintf(f, " #");
			esc(f, str_at(item, "/nth"));
		} else {
			esc(f, str_at(item, "/id") ? str_at(item, "/id") : str_at(item, "/run"));
		}
		fprintf(f, "</td><td>");
		esc(f, str_at(item, sweep ? "/outcome" : "/reason"));
		fprintf(f, "</td><td style=\"text-align:left\"><code>");
		esc(f, str_at(item, "/reproduce"));
		fprintf(f, "</code></td></tr>\n");
	}
	fprintf(f, "</table>\n");
}

static int write_campaigns(struct site *st, const struct run_list *l)
{
	struct page p;
	size_t shown = 0;
	int rc = page_open(&p, st->dir, "campaigns.html", "campaigns and sweeps");

	if (rc)
		return rc;
	for (size_t i = l->n; i-- > 0 && shown < DASH_RUNS_LISTED;) {
		const struct run_ref *r = &l->r[i];
		bool sweep = !strcmp(r->kind, "sweep");
		struct fy_document *doc;
		struct fy_node *root;

		if (!sweep && strcmp(r->kind, "campaign"))
			continue;
		doc = run_doc(st->s, r->id);
		if (!doc)
			continue;
		root = fy_document_root(doc);
		shown++;
		fprintf(p.f, "<h2>%s ", sweep ? "sweep" : "campaign");
		esc(p.f, sweep ? str_at(root, "/trace") : str_at(root, "/name"));
		fprintf(p.f, "</h2>\n<p>%s, revision <code>", r->date);
		esc(p.f, r->rev);
		if (sweep)
			fprintf(p.f, "</code>, baseline %s</p>\n", str_at(root, "/baseline") ? str_at(root, "/baseline") : "?");
		else
			fprintf(p.f, "</code>: %.0f runs, <span class=\"good\">%.0f passed</span>, "
				     "<span class=\"%s\">%.0f failed</span></p>\n",
				num_at(root, "/runs"), num_at(root, "/passed"),
				num_at(root, "/failed") > 0 ? "bad" : "good", num_at(root, "/failed"));
		failures_table(p.f, root, sweep);
		fy_document_destroy(doc);
	}
	if (!shown)
		fprintf(p.f, "<p>No campaign or sweep stored yet.</p>\n");
	rc = page_close(&p);
	st->pages += !rc;
	return rc;
}

int dash_write(struct store *s, const char *dir, const struct dash_opts *o, size_t *pages, char *err,
	       size_t errlen)
{
	struct site st = { .s = s, .dir = dir, .o = o, .err = err, .errlen = errlen };
	struct run_list runs = { 0 };
	int rc;

	*pages = 0;
	if (mkdir(dir, 0777) && errno != EEXIST) {
		rc = -errno;
		snprintf(err, errlen, "%s: cannot create: %s", dir, strerror(-rc));
		return rc;
	}
	rc = store_metric_names(s, load_metric, &st);
	if (!rc)
		rc = store_runs(s, list_run, &runs);
	if (rc) {
		snprintf(err, errlen, "reading the store: %s", strerror(-rc));
		goto free_all;
	}
	qsort(st.h, st.nh, sizeof(*st.h), cmp_history);
	rc = write_index(&st);
	for (size_t i = 0; !rc && i < st.nh; i++)
		rc = write_metric_page(&st, &st.h[i]);
	if (!rc)
		rc = write_latency(&st, &runs);
	if (!rc)
		rc = write_progress(&st, &runs);
	if (!rc)
		rc = write_campaigns(&st, &runs);
	if (rc)
		snprintf(err, errlen, "%s: writing the site: %s", dir, strerror(-rc));
free_all:
	for (size_t i = 0; i < st.nh; i++)
		history_free(&st.h[i]);
	free(st.h);
	free(runs.r);
	*pages = st.pages;
	return rc;
}
