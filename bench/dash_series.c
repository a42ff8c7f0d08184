/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/types.h"
#include "dash_internal.h"

/*
 * The series on the dashboard: a row per series (its history as a
 * sparkline, its latest value against the one before and the best, its
 * state), the page of each benchmark (the rows of its series) and of each
 * series (its history as a chart and a live plot, and its changes).
 */

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
		return DASH_GREY;
	return c->verdict == COMPARE_REGRESSED ? DASH_RED
	       : c->verdict == COMPARE_IMPROVED ? DASH_GREEN : DASH_GREY;
}

/* A chart of @sr's per-revision values with its changes marked. */
static int series_chart(struct page *p, const struct series *sr, int w, int h, bool spark)
{
	struct dash_chart_mark *marks = calloc(sr->nchanges + 1, sizeof(*marks));
	char (*labels)[192] = calloc(sr->nchanges + 1, sizeof(*labels));
	struct points pts;
	int rc = marks && labels ? points_of(sr, &pts) : -ENOMEM;

	if (!rc) {
		struct dash_chart_line l = { .y = pts.y, .n = sr->nrevs,
					     .color = sr->alarm ? DASH_RED : dash_colors[0],
					     .label = sr->metric };
		struct dash_chart c = { .w = w, .h = h, .y_unit = spark ? NULL : sr->unit,
					.x_labels = spark ? NULL : pts.x, .marks = marks,
					.nmarks = sr->nchanges, .points = !spark, .spark = spark };

		for (size_t i = 0; i < sr->nchanges; i++) {
			const struct history_change *ch = &sr->changes[i];
			char before[32], after[32];

			dash_fmt_value(before, sizeof(before), ch->before);
			dash_fmt_value(after, sizeof(after), ch->after);
			snprintf(labels[i], sizeof(labels[i]), "change at %.12s: %s -> %s %s (%+.2g%%)",
				 sr->revs[ch->at].rev, before, after, sr->unit, 100 * ch->change);
			marks[i] = (struct dash_chart_mark){ ch->at, labels[i], change_color(sr, ch) };
		}
		dash_chart(p, &c, &l, 1);
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
		lines[0] = (struct dash_plot_line){ .label = "median",
						    .color = sr->alarm ? DASH_RED : dash_colors[0],
						    .y = pts.y };
		for (size_t k = 0; k < runs; k++) {
			snprintf(labels[k], sizeof(labels[k]), "run %zu", k + 1);
			lines[k + 1] = (struct dash_plot_line){ .label = labels[k], .color = DASH_GREY,
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
		best = b == METRIC_BETTER_HIGHER ? GPUISO_MAX(best, sr->revs[i].value)
					  : GPUISO_MIN(best, sr->revs[i].value);
	return best;
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
int dash_series_row(struct page *p, const struct series *sr, bool with_benchmark)
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
		dash_benchmark_cell(f, sr->benchmark);
	dash_series_cell(f, sr);
	fprintf(f, "<td>");
	rc = series_chart(p, sr, 220, 40, true);
	dash_fmt_value(value, sizeof(value), last->value);
	fprintf(f, "</td><td>%s</td>", value);
	if (sr->nrevs >= 2)
		dash_change_cell(f, sr, sr->revs[sr->nrevs - 2].value, last->value, latest_change(sr));
	else
		fprintf(f, "<td>-</td>");
	dash_change_cell(f, sr, best_of(sr), last->value, NULL);
	fprintf(f, "<td>%s</td><td>", sr->unit);
	dash_esc(f, state_of(sr));
	fprintf(f, "</td></tr>\n");
	return rc;
}

const char dash_series_head[] =
	"<th class=\"l\">metric</th><th>history (per revision)</th><th>latest</th><th>vs previous</th>"
	"<th>vs best</th><th>unit</th><th>state</th></tr>\n";

/* --- pages --- */

int dash_bench_page(struct site *st, size_t first, size_t end)
{
	const char *benchmark = st->h.s[first].benchmark;
	char file[64];
	struct page p;
	int rc;

	dash_bench_file(file, sizeof(file), benchmark);
	rc = dash_page_open(&p, st->dir, file, benchmark, "");
	if (rc)
		return rc;
	fprintf(p.file.f, "<p>Every series of this benchmark, one value per revision.</p>\n"
		     "<table><tr>%s", dash_series_head);
	for (size_t i = first; !rc && i < end; i++)
		if (st->h.s[i].nrevs)
			rc = dash_series_row(&p, &st->h.s[i], false);
	fprintf(p.file.f, "</table>\n");
	rc = dash_page_close(&p) ?: rc;
	st->pages += !rc;
	return rc;
}

int dash_series_page(struct site *st, const struct series *sr)
{
	char file[256], title[512];
	struct page p;
	int rc;

	dash_series_file(file, sizeof(file), sr);
	snprintf(title, sizeof(title), "%s", sr->metric);
	rc = dash_page_open(&p, st->dir, file, title, dash_plot_head);
	if (rc)
		return rc;
	fprintf(p.file.f, "<p>Benchmark: ");
	dash_esc(p.file.f, sr->benchmark);
	fprintf(p.file.f, ".<br>%s is better %s. %zu revisions. ", sr->unit,
		metric_better(sr->metric, sr->unit) == METRIC_BETTER_HIGHER ? "higher" : "lower", sr->nrevs);
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
		dash_changes_table(st, p.file.f, sr, false, NULL);
	else
		fprintf(p.file.f, "<p>No change of level.</p>\n");
	rc = dash_page_close(&p) ?: rc;
	st->pages += !rc;
	return rc;
}
