/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/types.h"
#include "dash_internal.h"

/*
 * The dashboard's pages of replay benchmarks, a section per benchmark:
 * latency.html, the latency percentiles of each operation at the latest
 * revision against the one before; progress.html, how power transitions
 * ended, revision by revision.
 */

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
	struct dash_chart c = { .w = 360, .h = 200, .log_y = true, .y_unit = "ns", .x_labels = pct_labels };
	struct dash_plot_line plot[2];
	struct dash_chart_line lines[2];
	double y[2][5];
	char metric[200];
	size_t nl = 0;

	for (size_t r = 0; r < 2 && r < sr->nrevs; r++) {
		const char *rev = sr->revs[sr->nrevs - 1 - r].rev;

		for (size_t k = 0; k < 5; k++) {
			snprintf(metric, sizeof(metric), "ops.%.*s.latency_ns.%s", oplen, op, pcts[k]);
			y[r][k] = value_at(st, benchmark, metric, rev);
		}
		lines[nl] = (struct dash_chart_line){ .y = y[r], .x = nines, .n = 5,
						      .color = dash_colors[1 - r], .dashed = r == 1,
						      .label = rev };
		plot[nl++] = (struct dash_plot_line){ .label = rev, .color = dash_colors[1 - r], .y = y[r],
						      .dashed = r == 1 };
	}
	fprintf(p->file.f, "<div style=\"display:inline-block;margin:6px\"><b>%.*s</b>", oplen, op);
	dash_chart(p, &c, lines, nl);
	dash_plot(p->file.f, &(struct dash_plot){ .unit = "ns", .xname = "percentile", .log_y = true,
						  .w = 360, .h = 220, .n = 5, .x = nines,
						  .xlabels = pct_labels, .lines = plot, .nlines = nl });
	/* which line is which revision */
	fprintf(p->file.f, "<small><span style=\"color:%s\">&#9473;&#9473; ", dash_colors[1]);
	dash_esc(p->file.f, lines[0].label);
	fprintf(p->file.f, "</span> (latest)");
	if (nl > 1) {
		fprintf(p->file.f, " <span style=\"color:%s\">&#9476;&#9476; ", dash_colors[0]);
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
static const char *const progress_colors[] = { DASH_GREEN, "#ff7f0e", DASH_RED };

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
	int w = 1100, h = 160, bar = (w - DASH_PAD_L - DASH_PAD_R) / (int)pr->n;
	/* a revision label under a bar every @step bars, so that labels do not overlap */
	size_t step = (size_t)(64 + bar - 1) / (size_t)GPUISO_MAX(bar, 1);

	p->charts++;
	fprintf(p->file.f, "<svg data-chart width=\"%d\" height=\"%d\"><g class=\"data\">\n", w, h);
	for (size_t i = 0; i < pr->n; i++) {
		double total = pr->total[i], y = h - DASH_PAD_B;

		if (i % step == 0 || i + 1 == pr->n)
			fprintf(p->file.f, "<text x=\"%d\" y=\"%d\" font-size=\"10\" fill=\"#555\">%.7s</text>\n",
				DASH_PAD_L + (int)i * bar, h - DASH_PAD_B + 14, pr->revs[i]);
		if (total > 0 && (i % step == 0 || i + 1 == pr->n))
			fprintf(p->file.f, "<text x=\"%d\" y=\"%d\" font-size=\"9\" fill=\"#555\">%.0f "
				      "transition%s</text>\n", DASH_PAD_L + (int)i * bar, h - DASH_PAD_B + 26,
				total, total == 1 ? "" : "s");
		for (size_t k = 0; total > 0 && k < 3; k++) {
			double v = pr->path[k][i], bh;

			if (isnan(v) || v <= 0)
				continue;
			bh = v / total * (h - DASH_PAD_T - DASH_PAD_B);
			y -= bh;
			fprintf(p->file.f, "<rect x=\"%d\" y=\"%.1f\" width=\"%d\" height=\"%.1f\" fill=\"%s\">"
				      "<title>%.12s %s: %.0f of %.0f</title></rect>\n",
				DASH_PAD_L + (int)i * bar, y, GPUISO_MAX(bar - 2, 1), bh, progress_colors[k],
				pr->revs[i], progress_paths[k], v, total);
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

int dash_replay_pages(struct site *st)
{
	int rc;

	rc = write_replay_page(st, "latency.html", "latency percentiles",
			       "Per replay benchmark and operation, wall-clock latency at p50, p90, "
			       "p99, p99.9 and max (log scale; medians of each revision's runs): the "
			       "latest revision (solid) against the one before (dashed).",
			       latency_of);
	if (!rc)
		rc = write_replay_page(st, "progress.html", "forward progress of power transitions",
				       "Per replay benchmark and revision (oldest left), how power "
				       "transitions ended: <span class=\"good\">pinned</span> (the whole save "
				       "area locked at once), <span style=\"color:#ff7f0e\">chunked</span> "
				       "(forward progress through the small buffer) or <span class=\"bad\">"
				       "reset</span> (no progress: the adapter lost its state).",
				       progress_of);
	return rc;
}
