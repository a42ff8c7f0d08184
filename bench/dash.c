/* SPDX-License-Identifier: MIT */
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/array.h"
#include "common/atomic_file.h"
#include "common/digest.h"
#include "common/types.h"
#include "changes.h"
#include "dash_internal.h"

/* Revisions the progress bars, and runs the campaigns page, show at most (the most recent). */
#define DASH_RUNS_LISTED 20

static const char *const colors[] = { "#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd",
				      "#8c564b", "#e377c2", "#17becf", "#7f7f7f" };
#define RED "#d62728"
#define GREEN "#2ca02c"
#define GREY "#888"

/* --- output helpers --- */

void dash_esc(FILE *f, const char *s)
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
	"code{background:#f4f4f4;padding:1px 4px;word-break:break-all}svg{display:block}"
	"td.l,th.l{text-align:left}code.rev{word-break:normal;white-space:nowrap}"
	"td.bench{max-width:320px;font-size:12px}"
	".badge{display:inline-block;padding:1px 8px;border-radius:9px;font-size:12px;font-weight:600;"
	"color:#fff}.badge.new{background:" RED "}.badge.known{background:#ff7f0e}"
	".badge.gone{background:" GREEN "}tr.finding.new{background:#fde8e8}tr.finding.gone{color:" GREY "}"
	"td.l code{font-size:12px}details{margin:6px 0 28px}summary{cursor:pointer}";

/*
 * For tests in a real browser: every chart's data must have a non-empty
 * box once laid out (a static chart a live plot replaced, the plot right
 * after it, counts by the plot's canvas); the counts go to the body's data
 * attributes.
 */
static const char drawn_script[] =
	"<script>(function(){var c=document.querySelectorAll('svg[data-chart]'),d=0;"
	"c.forEach(function(s){var n=s.nextElementSibling,"
	"l=n&&n.classList.contains('plot')?n.querySelector('.uplot canvas'):null;"
	"if(l){if(l.width>0&&l.height>0)d++;return;}var p=s.querySelector('.data');"
	"if(p){var b=p.getBBox();if(b.width>0||b.height>0)d++;}});"
	"document.body.setAttribute('data-charts',c.length);"
	"document.body.setAttribute('data-charts-drawn',d);})();</script>";

int dash_page_open(struct page *p, const char *dir, const char *name, const char *title,
		     const char *head)
{
	char path[PATH_MAX];
	int rc;

	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	p->charts = 0;
	rc = atomic_file_open(&p->file, path);
	if (rc)
		return rc;
	fprintf(p->file.f, "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>gpuiso: ");
	dash_esc(p->file.f, title);
	fprintf(p->file.f, "</title>%s<style>%s</style></head>\n<body>\n<nav><a href=\"index.html\">overview</a>"
		      "<a href=\"latency.html\">latency</a><a href=\"progress.html\">forward progress</a>"
		      "<a href=\"campaigns.html\">campaigns</a></nav>\n<h1>", head, style);
	dash_esc(p->file.f, title);
	fprintf(p->file.f, "</h1>\n");
	return 0;
}

int dash_page_close(struct page *p)
{
	fprintf(p->file.f, "%s\n</body></html>\n", drawn_script);
	return atomic_file_commit(&p->file);
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
		v = log10(GPUISO_MAX(v, 1e-12));
		lo = log10(GPUISO_MAX(lo, 1e-12));
		hi = log10(GPUISO_MAX(hi, 1e-12));
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

/*
 * A value as people read it: whole numbers in full with thousands
 * separators (8,408,630, never 8.40863e+06), others to 4 significant digits.
 */
static void fmt_value(char *buf, size_t len, double v)
{
	char digits[64], *out = buf;
	size_t n, lead;

	if (!isfinite(v) || fabs(v) >= 1e18 || v != floor(v)) {
		snprintf(buf, len, "%.4g", v);
		return;
	}
	n = (size_t)snprintf(digits, sizeof(digits), "%.0f", fabs(v));
	if (len < n + n / 3 + 2) {
		snprintf(buf, len, "%.0f", v);
		return;
	}
	if (v < 0)
		*out++ = '-';
	lead = n % 3 ? n % 3 : 3;
	for (size_t i = 0; i < n; i++) {
		if (i >= lead && (i - lead) % 3 == 0)
			*out++ = ',';
		*out++ = digits[i];
	}
	*out = '\0';
}

static void chart(struct page *p, const struct chart *c, const struct line *lines, size_t nlines)
{
	FILE *f = p->file.f;
	double lo = INFINITY, hi = -INFINITY, xmax = 0;
	char num[32];

	for (size_t i = 0; i < nlines; i++) {
		for (size_t k = 0; k < lines[i].n; k++) {
			double v = lines[i].y[k], x = lines[i].x ? lines[i].x[k] : (double)k;

			if (c->log_y && v <= 0)
				continue;
			lo = GPUISO_MIN(lo, v);
			hi = GPUISO_MAX(hi, v);
			xmax = GPUISO_MAX(xmax, x);
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
		double v = c->log_y ? pow(10, log10(GPUISO_MAX(lo, 1e-12)) +
						       t * (log10(GPUISO_MAX(hi, 1e-12)) - log10(GPUISO_MAX(lo, 1e-12))) / 2)
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
			dash_esc(f, c->x_labels[k]);
			fprintf(f, "</text>\n");
		}
	}
	fprintf(f, "</g>\n");
	for (size_t i = 0; i < c->nmarks; i++) {
		double x = tx(c, (double)c->marks[i].at - 0.5, xmax);

		fprintf(f, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\" stroke=\"%s\" stroke-width=\"2\""
			   " stroke-dasharray=\"4 3\"><title>", x, x, pad(c, PAD_T), c->h - pad(c, PAD_B),
			c->marks[i].color);
		dash_esc(f, c->marks[i].label);
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
		dash_esc(f, l->label);
		fprintf(f, "</title></polyline>\n");
		/* one value is a dot, or there would be nothing to see */
		for (size_t k = 0; (c->points || l->n == 1) && k < l->n; k++)
			fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" fill=\"%s\"/>\n",
				tx(c, l->x ? l->x[k] : (double)k, xmax), ty(c, l->y[k], lo, hi), l->color);
	}
	fprintf(f, "</g></svg>\n");
}

/* --- the site and its names --- */

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

/* A benchmark's page: bench-ID.html, ID from the digest of its identity. */
static void bench_file(char *out, size_t len, const char *benchmark)
{
	snprintf(out, len, "bench-%08llx.html",
		 (unsigned long long)(digest_bytes(benchmark, strlen(benchmark)) & 0xffffffffu));
}

/* A series' page: series-ID-METRIC.html. */
static void series_file(char *out, size_t len, const struct series *sr)
{
	char s[200];

	slug(s, sizeof(s), sr->metric);
	snprintf(out, len, "series-%08llx-%s.html",
		 (unsigned long long)(digest_bytes(sr->benchmark, strlen(sr->benchmark)) & 0xffffffffu),
		 s);
}

void dash_rev_cell(const struct site *st, FILE *f, const char *rev)
{
	char url[1024];

	if (st->o->rev_url) {
		snprintf(url, sizeof(url), st->o->rev_url, rev);
		fprintf(f, "<a href=\"");
		dash_esc(f, url);
		fprintf(f, "\">");
	}
	fprintf(f, "<code class=\"rev\">%.12s</code>", rev);
	if (st->o->rev_url)
		fprintf(f, "</a>");
}

/* The last part of a path, without ".yaml". */
static void base_name(char *out, size_t len, const char *path, size_t n)
{
	const char *at = path;

	for (size_t i = 0; i < n; i++)
		if (path[i] == '/' && i + 1 < n)
			at = path + i + 1;
	n -= (size_t)(at - path);
	if (n > 5 && !strncmp(at + n - 5, ".yaml", 5))
		n -= 5;
	snprintf(out, len, "%.*s", (int)n, at);
}

/*
 * A benchmark's short label: its kind and what it ran by base name, e.g.
 * "results desktop (lda-chain)" for "results trace=traces/desktop
 * scenario=/abs/traces/scenarios/lda-chain.yaml backend=sim host=h".
 */
static void bench_label(char *out, size_t len, const char *benchmark)
{
	static const char *const whats[] = { "trace=", "campaign=", "name=", "suite=" };
	char what[96] = "", scenario[96] = "";
	const char *w = benchmark;
	size_t n;

	while (*w) {
		n = strcspn(w, " ");
		for (size_t i = 0; i < sizeof(whats) / sizeof(whats[0]); i++)
			if (!what[0] && !strncmp(w, whats[i], strlen(whats[i])))
				base_name(what, sizeof(what), w + strlen(whats[i]), n - strlen(whats[i]));
		if (!strncmp(w, "scenario=", 9))
			base_name(scenario, sizeof(scenario), w + 9, n - 9);
		w += n + (w[n] == ' ');
	}
	n = strcspn(benchmark, " ");
	snprintf(out, len, "%.*s%s%s%s%s%s", (int)n, benchmark, what[0] ? " " : "", what,
		 scenario[0] ? " (" : "", scenario, scenario[0] ? ")" : "");
}

/* A benchmark by its short label, the full identity on hover and on its page. */
static void benchmark_cell(FILE *f, const char *benchmark)
{
	char file[64], label[160];

	bench_file(file, sizeof(file), benchmark);
	bench_label(label, sizeof(label), benchmark);
	fprintf(f, "<td class=\"bench l\"><a href=\"%s\" title=\"", file);
	dash_esc(f, benchmark);
	fprintf(f, "\">");
	dash_esc(f, label);
	fprintf(f, "</a></td>");
}

static void series_cell(FILE *f, const struct series *sr)
{
	char file[256];

	series_file(file, sizeof(file), sr);
	fprintf(f, "<td class=\"l\"><a href=\"%s\">", file);
	dash_esc(f, sr->metric);
	fprintf(f, "</a></td>");
}

/* --- charts of series --- */

/* The per-revision values of a series, and their revisions as labels. */
struct points {
	double *y;
	const char **x;
};

static int points_of(const struct series *sr, struct points *p)
{
	p->y = calloc(sr->nrevs + 1, sizeof(*p->y));
	p->x = calloc(sr->nrevs + 1, sizeof(*p->x));
	if (!p->y || !p->x) {
		free(p->y);
		free(p->x);
		return -ENOMEM;
	}
	for (size_t i = 0; i < sr->nrevs; i++) {
		p->y[i] = sr->revs[i].value;
		p->x[i] = sr->revs[i].rev;
	}
	return 0;
}

static const char *change_color(const struct series *sr, const struct history_change *c)
{
	if (!history_change_claims(sr, c))
		return GREY;
	return c->verdict == COMPARE_REGRESSED ? RED : c->verdict == COMPARE_IMPROVED ? GREEN : GREY;
}

/* A chart of @sr's per-revision values with its changes marked. */
static int series_chart(struct page *p, const struct series *sr, int w, int h, bool spark)
{
	struct mark *marks = calloc(sr->nchanges + 1, sizeof(*marks));
	char (*labels)[192] = calloc(sr->nchanges + 1, sizeof(*labels));
	struct points pts;
	int rc = marks && labels ? points_of(sr, &pts) : -ENOMEM;

	if (!rc) {
		struct line l = { .y = pts.y, .n = sr->nrevs, .color = sr->alarm ? RED : colors[0],
				  .label = sr->metric };
		struct chart c = { .w = w, .h = h, .y_unit = spark ? NULL : sr->unit,
				   .x_labels = spark ? NULL : pts.x, .marks = marks,
				   .nmarks = sr->nchanges, .points = !spark, .spark = spark };

		for (size_t i = 0; i < sr->nchanges; i++) {
			const struct history_change *ch = &sr->changes[i];
			char before[32], after[32];

			fmt_value(before, sizeof(before), ch->before);
			fmt_value(after, sizeof(after), ch->after);
			snprintf(labels[i], sizeof(labels[i]), "change at %.12s: %s -> %s %s (%+.2g%%)",
				 sr->revs[ch->at].rev, before, after, sr->unit, 100 * ch->change);
			marks[i] = (struct mark){ ch->at, labels[i], change_color(sr, ch) };
		}
		chart(p, &c, &l, 1);
		free(pts.y);
		free(pts.x);
	}
	free(marks);
	free(labels);
	return rc;
}

/* The most runs any revision of @sr has, when more than one (else 0: no points beside the median). */
static size_t runs_per_rev(const struct series *sr)
{
	size_t runs = 0;

	for (size_t i = 0; i < sr->nrevs; i++)
		runs = GPUISO_MAX(runs, sr->revs[i].n);
	return runs > 1 ? runs : 0;
}

/*
 * The live plot of @sr, after its static chart: the median of each
 * revision as a line, each of its runs as a point beside it, its changes
 * as dashed lines in their colours, the revision and its date in the
 * legend.
 */
static int series_plot(FILE *f, const struct series *sr)
{
	size_t runs = runs_per_rev(sr);
	struct dash_plot_mark *marks = calloc(sr->nchanges + 1, sizeof(*marks));
	const char **dates = calloc(sr->nrevs + 1, sizeof(*dates));
	struct dash_plot_line *lines = calloc(runs + 1, sizeof(*lines));
	char (*labels)[24] = calloc(runs + 1, sizeof(*labels));
	double *y = calloc(runs * sr->nrevs + 1, sizeof(*y));
	struct points pts;
	int rc = marks && dates && lines && labels && y ? points_of(sr, &pts) : -ENOMEM;

	if (!rc) {
		lines[0] = (struct dash_plot_line){ .label = "median", .color = sr->alarm ? RED : colors[0],
						    .y = pts.y };
		for (size_t k = 0; k < runs; k++) {
			snprintf(labels[k], sizeof(labels[k]), "run %zu", k + 1);
			lines[k + 1] = (struct dash_plot_line){ .label = labels[k], .color = GREY,
								.y = y + k * sr->nrevs, .points = true };
			for (size_t i = 0; i < sr->nrevs; i++)
				y[k * sr->nrevs + i] = k < sr->revs[i].n ? sr->revs[i].v[k] : NAN;
		}
		for (size_t i = 0; i < sr->nchanges; i++)
			marks[i] = (struct dash_plot_mark){ sr->changes[i].at, change_color(sr, &sr->changes[i]) };
		for (size_t i = 0; i < sr->nrevs; i++)
			dates[i] = sr->revs[i].date;
		dash_plot(f, &(struct dash_plot){ .unit = sr->unit, .xname = "revision", .w = 1100, .h = 360,
						  .n = sr->nrevs, .xlabels = pts.x, .xinfo = dates,
						  .lines = lines, .nlines = runs + 1, .marks = marks,
						  .nmarks = sr->nchanges });
		free(pts.y);
		free(pts.x);
	}
	free(y);
	free(labels);
	free(lines);
	free(dates);
	free(marks);
	return rc;
}

/* The best per-revision value of a series. */
static double best_of(const struct series *sr)
{
	enum metric_better b = metric_better(sr->metric, sr->unit);
	double best = sr->revs[0].value;

	for (size_t i = 1; i < sr->nrevs; i++)
		best = b == BETTER_HIGHER ? GPUISO_MAX(best, sr->revs[i].value)
					  : GPUISO_MIN(best, sr->revs[i].value);
	return best;
}

/* A relative change, with an arrow; red or green only where it is a claimed change of @sr. */
static void change_cell(FILE *f, const struct series *sr, double from, double to,
			const struct history_change *c)
{
	const char *cls = !c || !history_change_claims(sr, c) ? ""
			  : c->verdict == COMPARE_REGRESSED		  ? "bad"
			  : c->verdict == COMPARE_IMPROVED		  ? "good" : "";
	const char *arrow = to > from ? "&#9650; " : to < from ? "&#9660; " : "";

	char delta[64];

	fprintf(f, "<td class=\"%s\">%s", cls, arrow);
	fmt_value(delta, sizeof(delta), fabs(to - from));
	if (to == from)
		fprintf(f, "unchanged</td>");
	else if (from && fabs(100 * (to - from) / from) >= 0.05)
		fprintf(f, "%+.1f%%</td>", 100 * (to - from) / fabs(from));
	else if (from)
		/* a relative change that rounds to zero says nothing: the absolute one, and its unit */
		fprintf(f, "%s%s %s (%+.2g%%)</td>", to < from ? "-" : "+", delta, sr->unit,
			100 * (to - from) / fabs(from));
	else
		fprintf(f, "%s</td>", to ? "from 0" : "+0.0%");
}

/* The change of @sr at its latest revision, if it has one. */
static const struct history_change *latest_change(const struct series *sr)
{
	const struct history_change *c = sr->nchanges ? &sr->changes[sr->nchanges - 1] : NULL;

	return c && c->at + 1 == sr->nrevs ? c : NULL;
}

static const char *state_of(const struct series *sr)
{
	if (sr->alarm)
		return "ALARM";
	if (sr->varies)
		return "VARIES";
	if (sr->unjudged[0])
		return sr->unjudged;
	if (sr->nchanges && sr->changes[sr->nchanges - 1].ack_note)
		return "acknowledged";
	if (sr->nchanges && !history_change_claims(sr, &sr->changes[sr->nchanges - 1]))
		return "changed with the machine";
	return sr->exact ? "exact" : "measured";
}

/* One row of a series: [benchmark,] metric, history, latest, vs previous, vs best, unit, state. */
static int series_row(struct page *p, const struct series *sr, bool with_benchmark)
{
	FILE *f = p->file.f;
	const struct history_rev *last = &sr->revs[sr->nrevs - 1];
	char value[64];
	int rc;

	fprintf(f, "<tr class=\"%s\" data-benchmark=\"", sr->alarm ? "bad" : "");
	dash_esc(f, sr->benchmark);
	fprintf(f, "\" data-metric=\"");
	dash_esc(f, sr->metric);
	fprintf(f, "\">");
	if (with_benchmark)
		benchmark_cell(f, sr->benchmark);
	series_cell(f, sr);
	fprintf(f, "<td>");
	rc = series_chart(p, sr, 220, 40, true);
	fmt_value(value, sizeof(value), last->value);
	fprintf(f, "</td><td>%s</td>", value);
	if (sr->nrevs >= 2)
		change_cell(f, sr, sr->revs[sr->nrevs - 2].value, last->value, latest_change(sr));
	else
		fprintf(f, "<td>-</td>");
	change_cell(f, sr, best_of(sr), last->value, NULL);
	fprintf(f, "<td>%s</td><td>", sr->unit);
	dash_esc(f, state_of(sr));
	fprintf(f, "</td></tr>\n");
	return rc;
}

static const char series_head[] =
	"<th class=\"l\">metric</th><th>history (per revision)</th><th>latest</th><th>vs previous</th>"
	"<th>vs best</th><th>unit</th><th>state</th></tr>\n";

/* --- pages --- */

/* The metrics the overview shows (every series keeps its page). */
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

/* Why a change happened, as far as known: inputs changed, the machine, an acknowledgement. */
static void why_cell(FILE *f, const struct series *sr, const struct history_change *c)
{
	const char *sep = "";

	fprintf(f, "<td class=\"l\">");
	if (sr->revs[c->at].changed) {
		fprintf(f, "input changed: ");
		dash_esc(f, sr->revs[c->at].changed);
		sep = "; ";
	}
	if (c->machine) {
		fputs(sep, f);
		dash_esc(f, change_cause(sr, c));
		sep = "; ";
	}
	if (c->ack_note) {
		fprintf(f, "%sacknowledged: ", sep);
		dash_esc(f, c->ack_note);
	}
	fprintf(f, "</td>");
}

/*
 * A table of changes: each with the series' benchmark and metric, or of
 * one series. The overview's: the alarms of one cause (@cause, a series of
 * it), or the acknowledged changes (@acked).
 */
static void changes_table(const struct site *st, FILE *f, const struct series *only, bool acked,
			  const struct series *cause)
{
	fprintf(f, "<table><tr>%s<th>last good</th><th>first bad</th><th>before</th><th>after</th>"
		   "<th>change</th><th>test</th><th class=\"l\">why</th></tr>\n",
		only ? "" : "<th class=\"l\">benchmark</th><th class=\"l\">metric</th>");
	for (size_t i = 0; i < st->h.n; i++) {
		const struct series *sr = &st->h.s[i];

		if (only && sr != only)
			continue;
		for (size_t k = 0; k < sr->nchanges; k++) {
			const struct history_change *c = &sr->changes[k];
			bool alarm = sr->alarm && k + 1 == sr->nchanges;
			char test[96], before[64], after[64];

			/* the overview: alarms of a cause, or acknowledged changes; a series page: all */
			if (!only && (acked ? !c->ack_note : !alarm || !dash_same_cause(sr, cause)))
				continue;
			fprintf(f, "<tr class=\"%s\">", alarm ? "bad" : "");
			if (!only) {
				benchmark_cell(f, sr->benchmark);
				series_cell(f, sr);
			}
			fprintf(f, "<td>");
			dash_rev_cell(st, f, sr->revs[c->at - 1].rev);
			fprintf(f, "</td><td>");
			dash_rev_cell(st, f, sr->revs[c->at].rev);
			fmt_value(before, sizeof(before), c->before);
			fmt_value(after, sizeof(after), c->after);
			fprintf(f, "</td><td>%s</td><td>%s</td>", before, after);
			change_cell(f, sr, c->before, c->after, c);
			fprintf(f, "<td>");
			dash_esc(f, change_label(sr, c, test, sizeof(test)));
			fprintf(f, "</td>");
			why_cell(f, sr, c);
			fprintf(f, "</tr>\n");
		}
	}
	fprintf(f, "</table>\n");
}

const struct history_change *dash_alarm_of(const struct series *sr)
{
	return sr->alarm ? &sr->changes[sr->nchanges - 1] : NULL;
}

/* Alarms of one cause at one revision are one row of the overview. */
void dash_cause_of(const struct series *sr, char *buf, size_t len)
{
	const struct history_change *c = dash_alarm_of(sr);

	if (sr->revs[c->at].changed)
		snprintf(buf, len, "input changed: %s", sr->revs[c->at].changed);
	else if (c->machine)
		snprintf(buf, len, "%s", change_cause(sr, c));
	else
		snprintf(buf, len, "%s", sr->exact ? "the code changed" : "measured changes of level");
}

bool dash_same_cause(const struct series *a, const struct series *b)
{
	const struct history_change *ca = dash_alarm_of(a), *cb = dash_alarm_of(b);
	char x[512], y[512];

	if (!ca || !cb || strcmp(a->revs[ca->at].rev, b->revs[cb->at].rev))
		return false;
	dash_cause_of(a, x, sizeof(x));
	dash_cause_of(b, y, sizeof(y));
	return !strcmp(x, y);
}

bool dash_alarm_head(const struct site *st, size_t i)
{
	const struct series *sr = &st->h.s[i];
	size_t k;

	for (k = 0; dash_alarm_of(sr) && k < i && !dash_same_cause(&st->h.s[k], sr); k++)
		;
	return dash_alarm_of(sr) && k == i;
}

void dash_alarm_id(const struct series *sr, char *buf, size_t len)
{
	char cause[512], rev[64];

	dash_cause_of(sr, cause, sizeof(cause));
	slug(rev, sizeof(rev), sr->revs[dash_alarm_of(sr)->at].rev);
	snprintf(buf, len, "alarm-%s-%08llx", rev,
		 (unsigned long long)(digest_bytes(cause, strlen(cause)) & 0xffffffffu));
}

/*
 * The alarms, one row per cause (an input changed, the code, measured
 * changes, each at a revision; its id from dash_alarm_id()): how many
 * series moved and the worst change, the findings new at its revision,
 * the series themselves behind it (<details>).
 */
static void alarm_causes(const struct site *st, FILE *f)
{
	fprintf(f, "<table><tr><th class=\"l\">cause</th><th>first bad</th><th>series</th>"
		   "<th>worst</th><th class=\"l\">benchmarks</th></tr>\n");
	for (size_t i = 0; i < st->h.n; i++) {
		const struct series *sr = &st->h.s[i], *worst = sr;
		const char *bench = NULL;
		char cause[512], label[160], id[96];
		size_t n = 0, nbench = 0;

		if (!dash_alarm_head(st, i))
			continue; /* no alarm, or its cause was said at its first series */
		for (size_t k = i; k < st->h.n; k++) {
			const struct series *o = &st->h.s[k];

			if (!dash_same_cause(o, sr))
				continue;
			n++;
			/* series come benchmark by benchmark */
			nbench += !bench || strcmp(bench, o->benchmark);
			bench = o->benchmark;
			if (fabs(dash_alarm_of(o)->change) > fabs(dash_alarm_of(worst)->change))
				worst = o;
		}
		dash_cause_of(sr, cause, sizeof(cause));
		dash_alarm_id(sr, id, sizeof(id));
		fprintf(f, "<tr class=\"bad\" id=\"%s\"><td class=\"l\">", id);
		dash_esc(f, cause);
		fprintf(f, "</td><td>");
		dash_rev_cell(st, f, sr->revs[dash_alarm_of(sr)->at].rev);
		fprintf(f, "</td><td>%zu</td>", n);
		change_cell(f, worst, dash_alarm_of(worst)->before, dash_alarm_of(worst)->after,
			    dash_alarm_of(worst));
		bench_label(label, sizeof(label), worst->benchmark);
		fprintf(f, "<td class=\"l\">%zu benchmark%s; the worst: <span title=\"", nbench,
			nbench == 1 ? "" : "s");
		dash_esc(f, worst->benchmark);
		fprintf(f, "\">");
		dash_esc(f, label);
		fprintf(f, "</span> ");
		dash_esc(f, worst->metric);
		fprintf(f, "</td></tr>\n<tr><td colspan=\"5\" class=\"l\">");
		dash_alarm_findings(st, f, i);
		fprintf(f, "<details><summary>the %zu series</summary>\n", n);
		changes_table(st, f, NULL, false, sr);
		fprintf(f, "</details></td></tr>\n");
	}
	fprintf(f, "</table>\n");
}

/*
 * Finding a series among many: words that must all be in its benchmark or
 * metric, and a metric family; "N of M series" says how many are shown.
 * index.html#filter=WORDS opens it filtered. Without JavaScript: nothing
 * is hidden.
 */
static const char filter_box[] =
	"<p class=\"filter\"><input id=\"filter\" type=\"search\" size=\"40\" "
	"placeholder=\"filter: words of a benchmark or metric (game p99)\"> <select id=\"family\">"
	"<option value=\"\">every metric</option><option value=\"ops.\">operations</option>"
	"<option value=\"power.\">power</option><option value=\"invariants.\">invariants</option>"
	"<option value=\"faults.\">faults</option><option value=\"campaign.\">campaigns</option>"
	"<option value=\"sweep.\">sweeps</option></select> <span id=\"shown\"></span></p>\n"
	"<script>window.addEventListener('DOMContentLoaded',function(){"
	"var f=document.getElementById('filter'),g=document.getElementById('family'),"
	"s=document.getElementById('shown'),rows=[].slice.call(document.querySelectorAll('tr[data-metric]'));"
	"function apply(){var w=f.value.toLowerCase().split(/\\s+/).filter(Boolean),m=g.value,n=0;"
	"rows.forEach(function(r){var t=(r.getAttribute('data-benchmark')+' '+r.getAttribute('data-metric')).toLowerCase(),"
	"ok=w.every(function(x){return t.indexOf(x)>=0;})&&r.getAttribute('data-metric').indexOf(m)==0;"
	"r.style.display=ok?'':'none';n+=ok?1:0;});s.textContent=n+' of '+rows.length+' series';"
	"document.body.setAttribute('data-shown',n);}"
	"var h=decodeURIComponent(location.hash.slice(1));if(h.indexOf('filter=')==0)f.value=h.slice(7);"
	"f.addEventListener('input',apply);g.addEventListener('change',apply);apply();});</script>\n";

static int write_index(struct site *st)
{
	size_t alarms = history_alarms(&st->h), acked = 0;
	char head[96];
	struct page p;
	int rc;

	snprintf(head, sizeof(head), "<meta name=\"gpuiso-regressions\" content=\"%zu\">", alarms);
	rc = dash_page_open(&p, st->dir, "index.html", "performance overview", head);
	if (rc)
		return rc;
	for (size_t i = 0; i < st->h.n; i++)
		for (size_t k = 0; k < st->h.s[i].nchanges; k++)
			acked += st->h.s[i].changes[k].ack_note != NULL;
	fprintf(p.file.f, "<p>Each series is one metric of one benchmark (what was run, with which "
		     "inputs, on which host), one value per revision: the median of its runs. Exact "
		     "metrics (modeled time, counts, checks) change wherever a revision differs from "
		     "the one before; measured ones (wall clock) where E-divisive means finds a change "
		     "of level of at least %.0f%%. An alarm is a series whose last change made it "
		     "worse and was not acknowledged (<code>gpuiso ack</code>).</p>\n",
		100 * st->o->history.threshold);
	if (!st->h.n)
		fprintf(p.file.f, "<p>The store holds no runs yet: <code>gpuiso store add DB RESULTS.json</code>.</p>\n");
	else if (alarms)
		fprintf(p.file.f, "<div class=\"banner bad\">&#9650; %zu series got worse (unacknowledged)</div>\n",
			alarms);
	else
		fprintf(p.file.f, "<div class=\"banner good\">No regression: no series got worse unacknowledged</div>\n");
	if (alarms) {
		fprintf(p.file.f, "<h2>Alarms, by cause</h2>\n");
		alarm_causes(st, p.file.f);
	}
	if (acked) {
		fprintf(p.file.f, "<h2>Acknowledged changes</h2>\n");
		changes_table(st, p.file.f, NULL, true, NULL);
	}
	fprintf(p.file.f, "<h2>Series by benchmark</h2>\n%s<table><tr><th class=\"l\">benchmark</th>%s",
		filter_box, series_head);
	for (size_t i = 0; !rc && i < st->h.n; i++) {
		const struct series *sr = &st->h.s[i];

		if (headline(sr->metric) && sr->nrevs)
			rc = series_row(&p, sr, true);
	}
	fprintf(p.file.f, "</table>\n");
	rc = dash_page_close(&p) ?: rc;
	st->pages += !rc;
	return rc;
}

static int write_bench_page(struct site *st, size_t first, size_t end)
{
	const char *benchmark = st->h.s[first].benchmark;
	char file[64];
	struct page p;
	int rc;

	bench_file(file, sizeof(file), benchmark);
	rc = dash_page_open(&p, st->dir, file, benchmark, "");
	if (rc)
		return rc;
	fprintf(p.file.f, "<p>Every series of this benchmark, one value per revision.</p>\n"
		     "<table><tr>%s", series_head);
	for (size_t i = first; !rc && i < end; i++)
		if (st->h.s[i].nrevs)
			rc = series_row(&p, &st->h.s[i], false);
	fprintf(p.file.f, "</table>\n");
	rc = dash_page_close(&p) ?: rc;
	st->pages += !rc;
	return rc;
}

static int write_series_page(struct site *st, const struct series *sr)
{
	char file[256], title[512];
	struct page p;
	int rc;

	series_file(file, sizeof(file), sr);
	snprintf(title, sizeof(title), "%s", sr->metric);
	rc = dash_page_open(&p, st->dir, file, title, dash_plot_head);
	if (rc)
		return rc;
	fprintf(p.file.f, "<p>Benchmark: ");
	dash_esc(p.file.f, sr->benchmark);
	fprintf(p.file.f, ".<br>%s is better %s. %zu revisions. ", sr->unit,
		metric_better(sr->metric, sr->unit) == BETTER_HIGHER ? "higher" : "lower", sr->nrevs);
	if (sr->exact)
		fprintf(p.file.f, "An exact metric: every change from one revision to the next is marked.%s",
			sr->varies ? " <b class=\"bad\">Yet the runs of some revision differ: not exact.</b>" : "");
	else if (sr->unjudged[0])
		fprintf(p.file.f, "A measured metric, not judged: %s.", sr->unjudged);
	else
		fprintf(p.file.f, "A measured metric: each value is the median of the revision's runs; "
			     "dashed lines mark changes of level (E-divisive means, t-test p &lt; %g / %zu "
			     "series, at least %.0f%%).",
			st->o->history.alpha, st->h.searched, 100 * st->o->history.threshold);
	fprintf(p.file.f, " Red: worse; green: better; grey: acknowledged or neither.</p>\n");
	rc = series_chart(&p, sr, 1100, 360, false);
	rc = rc ?: series_plot(p.file.f, sr);
	if (sr->nchanges)
		changes_table(st, p.file.f, sr, false, NULL);
	else
		fprintf(p.file.f, "<p>No change of level.</p>\n");
	rc = dash_page_close(&p) ?: rc;
	st->pages += !rc;
	return rc;
}

/* The value of @benchmark's series @metric at revision @rev, or NAN. */
static double value_at(const struct site *st, const char *benchmark, const char *metric,
		       const char *rev)
{
	const struct series *sr = history_find(&st->h, benchmark, metric);

	for (size_t i = 0; sr && i < sr->nrevs; i++)
		if (!strcmp(sr->revs[i].rev, rev))
			return sr->revs[i].value;
	return NAN;
}

/* Each replay benchmark once: calls @fn with the first series of each. */
static int each_replay_benchmark(struct site *st, struct page *p,
				 int (*fn)(struct site *st, struct page *p, const char *benchmark))
{
	const char *done = NULL;
	int rc = 0, shown = 0;

	for (size_t i = 0; !rc && i < st->h.n; i++) {
		const struct series *sr = &st->h.s[i];

		if (sr->kind != RUN_RESULTS || (done && !strcmp(done, sr->benchmark)))
			continue;
		done = sr->benchmark;
		fprintf(p->file.f, "<h2>");
		dash_esc(p->file.f, sr->benchmark);
		fprintf(p->file.f, "</h2>\n");
		rc = fn(st, p, sr->benchmark);
		shown++;
	}
	if (!shown)
		fprintf(p->file.f, "<p>No replay results stored yet.</p>\n");
	return rc;
}

/*
 * The latency percentiles of @benchmark's operation @op (its name, @oplen
 * bytes) at its latest revision and the one before (of @sr, its p50
 * series), a chart and a live plot: solid the latest, dashed the one
 * before.
 */
static void latency_op(struct site *st, struct page *p, const char *benchmark, const struct series *sr,
		       const char *op, int oplen)
{
	static const char *const pcts[] = { "p50", "p90", "p99", "p999", "max" };
	static const char *const pct_labels[] = { "p50", "p90", "p99", "p99.9", "max" };
	static const double nines[] = { 0.301, 1, 2, 3, 4 }; /* -log10(1 - p) */
	struct chart c = { .w = 360, .h = 200, .log_y = true, .y_unit = "ns", .x_labels = pct_labels };
	struct dash_plot_line plot[2];
	struct line lines[2];
	double y[2][5];
	char metric[200];
	size_t nl = 0;

	for (size_t r = 0; r < 2 && r < sr->nrevs; r++) {
		const char *rev = sr->revs[sr->nrevs - 1 - r].rev;

		for (size_t k = 0; k < 5; k++) {
			snprintf(metric, sizeof(metric), "ops.%.*s.latency_ns.%s", oplen, op, pcts[k]);
			y[r][k] = value_at(st, benchmark, metric, rev);
		}
		lines[nl] = (struct line){ .y = y[r], .x = nines, .n = 5, .color = colors[1 - r],
					   .dashed = r == 1, .label = rev };
		plot[nl++] = (struct dash_plot_line){ .label = rev, .color = colors[1 - r], .y = y[r],
						      .dashed = r == 1 };
	}
	fprintf(p->file.f, "<div style=\"display:inline-block;margin:6px\"><b>%.*s</b>", oplen, op);
	chart(p, &c, lines, nl);
	dash_plot(p->file.f, &(struct dash_plot){ .unit = "ns", .xname = "percentile", .log_y = true,
						  .w = 360, .h = 220, .n = 5, .x = nines,
						  .xlabels = pct_labels, .lines = plot, .nlines = nl });
	/* which line is which revision */
	fprintf(p->file.f, "<small><span style=\"color:%s\">&#9473;&#9473; ", colors[1]);
	dash_esc(p->file.f, lines[0].label);
	fprintf(p->file.f, "</span> (latest)");
	if (nl > 1) {
		fprintf(p->file.f, " <span style=\"color:%s\">&#9476;&#9476; ", colors[0]);
		dash_esc(p->file.f, lines[1].label);
		fprintf(p->file.f, "</span> (the one before)");
	}
	fprintf(p->file.f, "</small></div>\n");
}

static int latency_of(struct site *st, struct page *p, const char *benchmark)
{
	for (size_t i = 0; i < st->h.n; i++) {
		const struct series *sr = &st->h.s[i];
		const char *op = sr->metric + 4;

		if (strcmp(sr->benchmark, benchmark) || fnmatch("ops.*.latency_ns.p50", sr->metric, 0) ||
		    !sr->nrevs)
			continue;
		latency_op(st, p, benchmark, sr, op, (int)(strchr(op, '.') - op));
	}
	return 0;
}

static const char *const progress_paths[] = { "pinned", "chunked", "reset" };
static const char *const progress_colors[] = { GREEN, "#ff7f0e", RED };

/* The transitions of one direction at the revisions shown: per revision, its total and each path's. */
struct dash_transitions {
	size_t n;
	const char **revs;
	double *total;
	double *path[3]; /* pinned, chunked, reset */
};

/*
 * The last (at most DASH_RUNS_LISTED) revisions of @tr, @benchmark's
 * power.transitions, and how its transitions towards @dir ended.
 */
static int progress_load(const struct site *st, const char *benchmark, const struct series *tr,
			 const char *dir, struct dash_transitions *pr)
{
	size_t first = tr->nrevs > DASH_RUNS_LISTED ? tr->nrevs - DASH_RUNS_LISTED : 0;
	char metric[64];

	pr->n = tr->nrevs - first;
	pr->revs = calloc(pr->n, sizeof(*pr->revs));
	pr->total = calloc(4 * pr->n, sizeof(*pr->total));
	if (!pr->revs || !pr->total)
		return -ENOMEM;
	for (size_t k = 0; k < 3; k++)
		pr->path[k] = pr->total + (k + 1) * pr->n;
	for (size_t i = 0; i < pr->n; i++) {
		pr->revs[i] = tr->revs[first + i].rev;
		snprintf(metric, sizeof(metric), "power.%s.transitions", dir);
		pr->total[i] = value_at(st, benchmark, metric, pr->revs[i]);
		for (size_t k = 0; k < 3; k++) {
			snprintf(metric, sizeof(metric), "power.%s.%s", dir, progress_paths[k]);
			pr->path[k][i] = value_at(st, benchmark, metric, pr->revs[i]);
		}
	}
	return 0;
}

/* @pr as stacked bars of the shares of each path, each labelled with its revision and count. */
static void progress_bars(struct page *p, const struct dash_transitions *pr)
{
	int w = 1100, h = 160, bar = (w - PAD_L - PAD_R) / (int)pr->n;
	/* a revision label under a bar every @step bars, so that labels do not overlap */
	size_t step = (size_t)(64 + bar - 1) / (size_t)GPUISO_MAX(bar, 1);

	p->charts++;
	fprintf(p->file.f, "<svg data-chart width=\"%d\" height=\"%d\"><g class=\"data\">\n", w, h);
	for (size_t i = 0; i < pr->n; i++) {
		double total = pr->total[i], y = h - PAD_B;

		if (i % step == 0 || i + 1 == pr->n)
			fprintf(p->file.f, "<text x=\"%d\" y=\"%d\" font-size=\"10\" fill=\"#555\">%.7s</text>\n",
				PAD_L + (int)i * bar, h - PAD_B + 14, pr->revs[i]);
		if (total > 0 && (i % step == 0 || i + 1 == pr->n))
			fprintf(p->file.f, "<text x=\"%d\" y=\"%d\" font-size=\"9\" fill=\"#555\">%.0f "
				      "transition%s</text>\n", PAD_L + (int)i * bar, h - PAD_B + 26, total,
				total == 1 ? "" : "s");
		for (size_t k = 0; total > 0 && k < 3; k++) {
			double v = pr->path[k][i], bh;

			if (isnan(v) || v <= 0)
				continue;
			bh = v / total * (h - PAD_T - PAD_B);
			y -= bh;
			fprintf(p->file.f, "<rect x=\"%d\" y=\"%.1f\" width=\"%d\" height=\"%.1f\" fill=\"%s\">"
				      "<title>%.12s %s: %.0f of %.0f</title></rect>\n",
				PAD_L + (int)i * bar, y, GPUISO_MAX(bar - 2, 1), bh, progress_colors[k], pr->revs[i],
				progress_paths[k], v, total);
		}
	}
	fprintf(p->file.f, "</g></svg>\n");
}

/* @pr as a live plot: each path's transitions as stacked bars, the revision and total in the legend. */
static int progress_plot(struct page *p, const struct dash_transitions *pr)
{
	char (*labels)[16] = calloc(pr->n, sizeof(*labels)), (*totals)[32] = calloc(pr->n, sizeof(*totals));
	const char **xlabels = calloc(pr->n, sizeof(*xlabels)), **xinfo = calloc(pr->n, sizeof(*xinfo));
	struct dash_plot_line lines[3];
	int rc = labels && totals && xlabels && xinfo ? 0 : -ENOMEM;

	for (size_t i = 0; !rc && i < pr->n; i++) {
		snprintf(labels[i], sizeof(labels[i]), "%.12s", pr->revs[i]);
		snprintf(totals[i], sizeof(totals[i]), "%.0f transition%s", pr->total[i],
			 pr->total[i] == 1 ? "" : "s");
		xlabels[i] = labels[i];
		xinfo[i] = isnan(pr->total[i]) ? NULL : totals[i];
	}
	for (size_t k = 0; k < 3; k++)
		lines[k] = (struct dash_plot_line){ .label = progress_paths[k], .color = progress_colors[k],
						    .y = pr->path[k] };
	if (!rc)
		dash_plot(p->file.f, &(struct dash_plot){ .unit = "transitions", .xname = "revision",
							  .stacked = true, .w = 1100, .h = 220, .n = pr->n,
							  .xlabels = xlabels, .xinfo = xinfo, .lines = lines,
							  .nlines = 3 });
	free(labels);
	free(totals);
	free(xlabels);
	free(xinfo);
	return rc;
}

static int progress_of(struct site *st, struct page *p, const char *benchmark)
{
	static const char *const dirs[] = { "to_d3", "to_d0" };
	const struct series *tr = history_find(&st->h, benchmark, "power.transitions");
	int rc = 0;

	if (!tr || !tr->nrevs || !tr->revs[tr->nrevs - 1].value) {
		fprintf(p->file.f, "<p>No power transitions.</p>\n");
		return 0;
	}
	for (size_t d = 0; !rc && d < 2; d++) {
		struct dash_transitions pr = { 0 };

		fprintf(p->file.f, "<h3>%s</h3>\n", d ? "power up (D3 to D0: restore)" : "power down (D0 to D3: save)");
		rc = progress_load(st, benchmark, tr, dirs[d], &pr);
		if (!rc) {
			progress_bars(p, &pr);
			rc = progress_plot(p, &pr);
		}
		free(pr.revs);
		free(pr.total);
	}
	return rc;
}

/* A page of sections per replay benchmark: @intro (HTML), then @fn's part of each. */
static int write_replay_page(struct site *st, const char *file, const char *title, const char *intro,
			     int (*fn)(struct site *st, struct page *p, const char *benchmark))
{
	struct page p;
	int rc = dash_page_open(&p, st->dir, file, title, dash_plot_head);

	if (rc)
		return rc;
	fprintf(p.file.f, "<p>%s</p>\n", intro);
	rc = each_replay_benchmark(st, &p, fn);
	rc = dash_page_close(&p) ?: rc;
	st->pages += !rc;
	return rc;
}

/* --- pages from the stored JSON of runs --- */

struct run_ref {
	long long id;
	char kind[16], rev[48], date[32];
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
	return 0;
}

static void failures_table(FILE *f, const struct run_record *rec, bool sweep)
{
	if (!rec->nfailures) {
		fprintf(f, "<p class=\"good\">No failing run.</p>\n");
		return;
	}
	fprintf(f, "<table><tr><th>%s</th><th>%s</th><th>reproduce</th></tr>\n", sweep ? "point, hit" : "run",
		sweep ? "outcome" : "reason");
	for (size_t i = 0; i < rec->nfailures; i++) {
		const struct run_failure *fl = &rec->failures[i];

		fprintf(f, "<tr class=\"bad\"><td>");
		dash_esc(f, fl->what);
		fprintf(f, "</td><td>");
		dash_esc(f, fl->why);
		fprintf(f, "</td><td style=\"text-align:left\"><code>");
		dash_esc(f, fl->reproduce);
		fprintf(f, "</code></td></tr>\n");
	}
	fprintf(f, "</table>\n");
}

/*
 * For tests in a real browser: how many findings' state badges there are,
 * and how many have a non-empty box (are shown) once laid out.
 */
static const char badges_script[] =
	"<script>(function(){var b=document.querySelectorAll('tr.finding .badge'),s=0;"
	"b.forEach(function(e){var r=e.getBoundingClientRect();if(r.width>0&&r.height>0)s++;});"
	"document.body.setAttribute('data-badges',b.length);"
	"document.body.setAttribute('data-badges-shown',s);})();</script>";

static void badge(FILE *f, enum finding_state state)
{
	fprintf(f, "<span class=\"badge %s\">%s</span>", finding_state_name(state),
		finding_state_name(state));
}

/* One finding: its state, what it is, who is to blame, how many runs, how to reproduce it. */
static void finding_row(const struct site *st, FILE *f, const struct judged_finding *fd, bool sweep)
{
	const struct run_finding *r = &fd->f;

	fprintf(f, "<tr class=\"finding %s\" data-signature=\"", finding_state_name(fd->state));
	dash_esc(f, r->signature);
	fprintf(f, "\" data-state=\"%s\"><td class=\"l\">", finding_state_name(fd->state));
	badge(f, fd->state);
	if (fd->state != FINDING_NEW) {
		fprintf(f, "<br><small>%s ", fd->state == FINDING_KNOWN ? "since" : "last in");
		if (fd->since_rev)
			dash_rev_cell(st, f, fd->since_rev);
		else
			dash_esc(f, fd->since_date);
		fprintf(f, "</small>");
	}
	fprintf(f, "</td><td class=\"l\"><a href=\"finding-");
	dash_esc(f, r->signature);
	fprintf(f, ".html\">");
	dash_esc(f, r->title);
	fprintf(f, "</a><br><small><code>");
	dash_esc(f, r->signature);
	fprintf(f, "</code> ");
	dash_esc(f, r->outcome);
	if (r->invariants && *r->invariants) {
		fprintf(f, "; broke ");
		dash_esc(f, r->invariants);
	}
	fprintf(f, "</small></td><td class=\"l\">");
	dash_esc(f, r->blame);
	fprintf(f, "</td><td>%lld</td>", r->runs);
	if (sweep)
		fprintf(f, "<td>%lld&ndash;%lld</td>", r->nth_min, r->nth_max);
	fprintf(f, "<td class=\"l\"><code>");
	dash_esc(f, r->reproduce);
	fprintf(f, "</code></td><td class=\"l\">");
	if (r->trimmed) {
		fprintf(f, "<code>");
		dash_esc(f, r->trimmed);
		fprintf(f, "</code><br><small>%lld of %lld events</small>", r->trimmed_events,
			r->trimmed_of);
	} else {
		fprintf(f, "&ndash;");
	}
	fprintf(f, "</td></tr>\n");
}

/* The findings of a campaign or sweep run (new, known, then gone), or why there are none. */
static void findings_table(const struct site *st, FILE *f, const struct findings_run *run,
			   bool sweep)
{
	if (!run || !run->recorded) {
		fprintf(f, "<p class=\"nofindings\">No findings recorded: this summary was written "
			   "before campaigns and sweeps grouped their failing runs into findings, so "
			   "nothing is known of them (not that there are none). Its failing runs are "
			   "below.</p>\n");
		return;
	}
	if (!run->nnew && !run->nknown)
		fprintf(f, "<p class=\"good\">No findings.</p>\n");
	else
		fprintf(f, "<p>%zu finding%s: <span class=\"%s\">%zu new</span>, %zu known.",
			run->nnew + run->nknown, run->nnew + run->nknown == 1 ? "" : "s",
			run->nnew ? "bad" : "", run->nnew, run->nknown);
	if (run->ngone)
		fprintf(f, "%s<span class=\"good\">%zu gone</span> since the run before.",
			run->nnew || run->nknown ? " " : "<p>", run->ngone);
	if (run->nnew || run->nknown || run->ngone)
		fprintf(f, "</p>\n");
	if (!run->n)
		return;
	fprintf(f, "<table class=\"findings\"><tr><th class=\"l\">state</th><th class=\"l\">finding</th>"
		   "<th class=\"l\">blame</th><th>runs</th>%s<th class=\"l\">reproduce</th>"
		   "<th class=\"l\">trimmed trace</th></tr>\n",
		sweep ? "<th>hits failed</th>" : "");
	for (size_t i = 0; i < run->n; i++)
		finding_row(st, f, &run->f[i], sweep);
	fprintf(f, "</table>\n");
}

static int write_campaigns(struct site *st, const struct run_list *l)
{
	struct page p;
	size_t shown = 0;
	int rc = dash_page_open(&p, st->dir, "campaigns.html", "campaigns and sweeps", "");

	if (rc)
		return rc;
	fprintf(p.file.f, "<p>The latest campaigns and sweeps, most recent first. Each lists its "
		     "findings first (its failing runs grouped by what broke, one signature each): ");
	badge(p.file.f, FINDING_NEW);
	fprintf(p.file.f, " when no earlier run of its series (a campaign by name, a sweep by trace "
		     "and scenario, on one host) had it, ");
	badge(p.file.f, FINDING_KNOWN);
	fprintf(p.file.f, " when one did, ");
	badge(p.file.f, FINDING_GONE);
	fprintf(p.file.f, " when the run before had it and this one does not. Its failing runs "
		     "follow, on demand.</p>\n");
	for (size_t i = l->n; i-- > 0 && shown < DASH_RUNS_LISTED;) {
		const struct run_ref *r = &l->r[i];
		bool sweep = !strcmp(r->kind, "sweep");
		const struct findings_run *run;
		struct run_record rec;
		char *json = NULL, why[256];

		if (!sweep && strcmp(r->kind, "campaign"))
			continue;
		shown++;
		/* a store edited by hand may hold what does not read */
		if (store_run_json(st->s, r->id, &json) ||
		    runfile_parse("stored run", json, &rec, why, sizeof(why))) {
			fprintf(p.file.f, "<h2>%s</h2>\n<p class=\"bad\">%s, revision <code>", r->kind, r->date);
			dash_esc(p.file.f, r->rev);
			fprintf(p.file.f, "</code>: its stored JSON does not read (the store was edited?)</p>\n");
			free(json);
			continue;
		}
		free(json);
		fprintf(p.file.f, "<h2>%s ", sweep ? "sweep" : "campaign");
		dash_esc(p.file.f, sweep ? rec.trace : rec.campaign);
		fprintf(p.file.f, "</h2>\n<p>%s, revision <code>", r->date);
		dash_esc(p.file.f, r->rev);
		if (sweep)
			fprintf(p.file.f, "</code>, baseline %s</p>\n", rec.baseline ? rec.baseline : "?");
		else
			fprintf(p.file.f, "</code>: %.0f runs, <span class=\"good\">%.0f passed</span>, "
				     "<span class=\"%s\">%.0f failed</span></p>\n",
				runfile_value(&rec, "campaign.runs"), runfile_value(&rec, "campaign.passed"),
				runfile_value(&rec, "campaign.failed") > 0 ? "bad" : "good",
				runfile_value(&rec, "campaign.failed"));
		run = findings_run_of(&st->findings, r->id);
		findings_table(st, p.file.f, run, sweep);
		fprintf(p.file.f, "<details%s><summary>%zu failing %s%s</summary>\n",
			run && run->recorded ? "" : " open", rec.nfailures, sweep ? "hit" : "run",
			rec.nfailures == 1 ? "" : "s");
		failures_table(p.file.f, &rec, sweep);
		fprintf(p.file.f, "</details>\n");
		runfile_free(&rec);
	}
	if (!shown)
		fprintf(p.file.f, "<p>No campaign or sweep stored yet.</p>\n");
	fprintf(p.file.f, "%s\n", badges_script);
	rc = dash_page_close(&p);
	st->pages += !rc;
	return rc;
}

int dash_write(struct store *s, const char *dir, const struct dash_opts *o, size_t *pages, char *err,
	       size_t errlen)
{
	struct site st = { .s = s, .dir = dir, .o = o };
	struct run_list runs = { 0 };
	int rc;

	*pages = 0;
	if (mkdir(dir, 0777) && errno != EEXIST) {
		rc = -errno;
		snprintf(err, errlen, "%s: cannot create: %s", dir, strerror(-rc));
		return rc;
	}
	rc = history_load(s, &o->history, &st.h);
	if (!rc)
		rc = store_runs(s, list_run, &runs);
	if (!rc)
		rc = findings_load(s, NULL, &st.findings);
	if (rc) {
		snprintf(err, errlen, "%s", *store_error(s) ? store_error(s) : strerror(-rc));
		goto free_all;
	}
	rc = dash_plot_assets(dir);
	if (!rc)
		rc = write_index(&st);
	for (size_t i = 0, first = 0; !rc && i < st.h.n; i++) {
		if (i + 1 == st.h.n || strcmp(st.h.s[i + 1].benchmark, st.h.s[first].benchmark)) {
			rc = write_bench_page(&st, first, i + 1);
			first = i + 1;
		}
	}
	for (size_t i = 0; !rc && i < st.h.n; i++)
		if (st.h.s[i].nrevs)
			rc = write_series_page(&st, &st.h.s[i]);
	if (!rc)
		rc = write_replay_page(&st, "latency.html", "latency percentiles",
				       "Per replay benchmark and operation, wall-clock latency at p50, p90, "
				       "p99, p99.9 and max (log scale; medians of each revision's runs): the "
				       "latest revision (solid) against the one before (dashed).",
				       latency_of);
	if (!rc)
		rc = write_replay_page(&st, "progress.html", "forward progress of power transitions",
				       "Per replay benchmark and revision (oldest left), how power "
				       "transitions ended: <span class=\"good\">pinned</span> (the whole save "
				       "area locked at once), <span style=\"color:#ff7f0e\">chunked</span> "
				       "(forward progress through the small buffer) or <span class=\"bad\">"
				       "reset</span> (no progress: the adapter lost its state).",
				       progress_of);
	if (!rc)
		rc = write_campaigns(&st, &runs);
	if (!rc)
		rc = dash_finding_pages(&st);
	if (rc)
		snprintf(err, errlen, "%s: writing the site: %s", dir, strerror(-rc));
free_all:
	findings_free(&st.findings);
	history_free(&st.h);
	free(runs.r);
	*pages = st.pages;
	return rc;
}
