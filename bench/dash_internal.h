/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_BENCH_DASH_INTERNAL_H
#define GPUISO_BENCH_DASH_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "common/atomic_file.h"
#include "dash.h"
#include "findings.h"
#include "history.h"

/*
 * What the dashboard's files share, a section each:
 *
 *   dash.c            the site: its pages in order, the frame every page
 *                     shares, the pages' names and the cells that link them
 *   dash_chart.c      static charts (inline SVG), numbers as people read them
 *   dash_plot.c       live plots (uPlot), and the site's assets
 *   dash_series.c     a row per series, the pages of benchmarks and series
 *   dash_alarm.c      changes as cells and tables, the alarms by cause
 *   dash_overview.c   the overview (index.html)
 *   dash_replay.c     the pages of replay benchmarks: latency and progress
 *   dash_campaigns.c  the page of campaigns and sweeps and their findings
 *   dash_finding.c    a page per finding, linked with the alarms
 */

/* Revisions the progress bars, and runs the campaigns page, show at most (the most recent). */
#define DASH_RUNS_LISTED 20

/* The colours of worse, better, and neither (acknowledged, or the machine's). */
#define DASH_RED "#d62728"
#define DASH_GREEN "#2ca02c"
#define DASH_GREY "#888"

/* A page being written. */
struct page {
	struct atomic_file file; /* write to file.f */
	int charts;              /* static charts written (the tests' count) */
};

/* The site being written and what it is made of. */
struct site {
	struct store *s;
	const char *dir;
	const struct dash_opts *o;
	struct history h;
	struct findings findings; /* of the stored campaigns and sweeps, with their states */
	size_t pages;
};

/* --- the site, its pages' frame and names (dash.c) --- */

/** dash_esc() - @s as HTML text, escaped; nothing for NULL. @f: the page; @s: the text. */
void dash_esc(FILE *f, const char *s);

/**
 * dash_rev_cell() - a revision, linked to --rev-url when the user gave one.
 * @st: the site.
 * @f: the page.
 * @rev: the revision.
 */
void dash_rev_cell(const struct site *st, FILE *f, const char *rev);

/**
 * dash_page_open() - open a page, its head, navigation and title written.
 * @p: out: the page.
 * @dir: the site's folder.
 * @name: the page's file name.
 * @title: its title (text).
 * @head: more of its <head> (HTML), or "".
 *
 * Return: 0 or a negative errno.
 */
int dash_page_open(struct page *p, const char *dir, const char *name, const char *title,
		   const char *head);

/**
 * dash_page_close() - end a page and put it in place.
 * @p: the page.
 *
 * Return: 0 or a negative errno.
 */
int dash_page_close(struct page *p);

/**
 * dash_slug() - @name with every byte but letters, digits, "." and "-" as "_",
 * for a file name or an id.
 * @out: out: the slug.
 * @len: size of @out.
 * @name: the name.
 */
void dash_slug(char *out, size_t len, const char *name);

/**
 * dash_bench_file() - the file name of @benchmark's page, bench-ID.html.
 * @out: out: the name.
 * @len: size of @out.
 * @benchmark: the benchmark's identity.
 */
void dash_bench_file(char *out, size_t len, const char *benchmark);

/**
 * dash_series_file() - the file name of @sr's page, series-ID-METRIC.html.
 * @out: out: the name.
 * @len: size of @out.
 * @sr: the series.
 */
void dash_series_file(char *out, size_t len, const struct series *sr);

/**
 * dash_bench_label() - a benchmark's short label: its kind and what it ran,
 * by base name ("results desktop (lda-chain)").
 * @out: out: the label.
 * @len: size of @out.
 * @benchmark: the benchmark's identity.
 */
void dash_bench_label(char *out, size_t len, const char *benchmark);

/**
 * dash_benchmark_cell() - a table cell of @benchmark by its short label,
 * linking its page, the full identity on hover.
 * @f: the page.
 * @benchmark: the benchmark's identity.
 */
void dash_benchmark_cell(FILE *f, const char *benchmark);

/**
 * dash_series_cell() - a table cell of @sr's metric, linking its page.
 * @f: the page.
 * @sr: the series.
 */
void dash_series_cell(FILE *f, const struct series *sr);

/* --- static charts (dash_chart.c) --- */

/* Padding of a chart (not of a sparkline) around its plotting area, in pixels. */
#define DASH_PAD_L 70
#define DASH_PAD_R 16
#define DASH_PAD_T 14
#define DASH_PAD_B 34

/* The colours of a chart's lines, in turn. */
extern const char *const dash_colors[];

/* One line of a chart. */
struct dash_chart_line {
	const double *y; /* n values at x = 0 .. n-1 (or at @x) */
	const double *x;
	size_t n;
	const char *color;
	bool dashed;
	const char *label;
};

/* A vertical dashed line of a chart (a change), with what it marks on hover. */
struct dash_chart_mark {
	size_t at;         /* x position (index) */
	const char *label;
	const char *color;
};

/* A chart's frame. */
struct dash_chart {
	int w, h;
	bool log_y;
	const char *y_unit;
	const char *const *x_labels; /* one per x index, or NULL */
	const struct dash_chart_mark *marks;
	size_t nmarks;
	bool points; /* draw a dot at each value */
	bool spark;  /* a sparkline: no axes, no padding */
};

/**
 * dash_fmt_value() - a value as people read it: whole numbers in full with
 * thousands separators (8,408,630, never 8.40863e+06), others to 4
 * significant digits.
 * @buf: out: the text.
 * @len: size of @buf.
 * @v: the value.
 */
void dash_fmt_value(char *buf, size_t len, double v);

/**
 * dash_chart() - a static chart (inline SVG) of @lines, counted in @p->charts.
 * @p: the page.
 * @c: the chart's frame.
 * @lines: its lines.
 * @nlines: how many.
 */
void dash_chart(struct page *p, const struct dash_chart *c, const struct dash_chart_line *lines,
		size_t nlines);

/* --- series, and the pages of benchmarks and series (dash_series.c) --- */

/* The head of a table of series rows, after its benchmark column if any. */
extern const char dash_series_head[];

/**
 * dash_series_row() - one row of a series: [benchmark,] metric, history,
 * latest, vs previous, vs best, unit, state.
 * @p: the page.
 * @sr: the series (with at least one revision).
 * @with_benchmark: with the benchmark's cell first.
 *
 * Return: 0 or a negative errno.
 */
int dash_series_row(struct page *p, const struct series *sr, bool with_benchmark);

/**
 * dash_bench_page() - the page of one benchmark: every series of it.
 * @st: the site.
 * @first: the index in @st->h of its first series.
 * @end: the index after its last.
 *
 * Return: 0 or a negative errno.
 */
int dash_bench_page(struct site *st, size_t first, size_t end);

/**
 * dash_series_page() - the page of one series: its history, its changes.
 * @st: the site.
 * @sr: the series (with at least one revision).
 *
 * Return: 0 or a negative errno.
 */
int dash_series_page(struct site *st, const struct series *sr);

/* --- changes and alarms (dash_alarm.c) --- */

/**
 * dash_change_cell() - a relative change from @from to @to as a table cell,
 * with an arrow; red or green only where it is a claimed change of @sr.
 * @f: the page.
 * @sr: the series.
 * @from: the value before.
 * @to: the value after.
 * @c: the change of @sr it is, or NULL for none.
 */
void dash_change_cell(FILE *f, const struct series *sr, double from, double to,
		      const struct history_change *c);

/**
 * dash_changes_table() - a table of changes: each with the series'
 * benchmark and metric, or of one series. The overview's: the alarms of
 * one cause (@cause, a series of it), or the acknowledged changes (@acked).
 * @st: the site.
 * @f: the page.
 * @only: the one series whose every change is listed, or NULL.
 * @acked: without @only: the acknowledged changes.
 * @cause: without @only or @acked: a series whose alarm's cause is listed.
 */
void dash_changes_table(const struct site *st, FILE *f, const struct series *only, bool acked,
			const struct series *cause);

/**
 * dash_alarm_causes() - the alarms, one row per cause (an input changed, the
 * code, measured changes, each at a revision; its id from dash_alarm_id()):
 * how many series moved and the worst change, the findings new at its
 * revision, the series themselves behind it.
 * @st: the site.
 * @f: the page.
 */
void dash_alarm_causes(const struct site *st, FILE *f);

/**
 * dash_alarm_of() - the change that raised @sr's alarm: its last.
 * @sr: the series.
 *
 * Return: the change, or NULL when @sr has no alarm.
 */
const struct history_change *dash_alarm_of(const struct series *sr);

/**
 * dash_alarm_head() - whether series @i of @st carries an alarm whose cause
 * no series before it had: the overview's row of that cause.
 * @st: the site.
 * @i: the series' index in @st->h.
 *
 * Return: true when it does.
 */
bool dash_alarm_head(const struct site *st, size_t i);

/**
 * dash_same_cause() - whether two series' alarms have one cause at one revision.
 * @a: a series.
 * @b: another.
 *
 * Return: true when both have an alarm, at one revision, of one cause.
 */
bool dash_same_cause(const struct series *a, const struct series *b);

/**
 * dash_cause_of() - what moved @sr at its alarm, in words: an input that
 * changed at that revision, the machine, else the code (an exact metric) or
 * a measured change of level.
 * @sr: a series with an alarm.
 * @buf: out: the words.
 * @len: size of @buf.
 */
void dash_cause_of(const struct series *sr, char *buf, size_t len);

/**
 * dash_alarm_id() - the id of the overview's row of @sr's alarm cause,
 * "alarm-REV-DIGEST": the same for the same cause at the same revision on
 * every build of the site, so that other pages can link it.
 * @sr: a series with an alarm.
 * @buf: out: the id.
 * @len: size of @buf.
 */
void dash_alarm_id(const struct series *sr, char *buf, size_t len);

/* --- the overview (dash_overview.c) --- */

/**
 * dash_overview_page() - index.html: the alarms by cause, the acknowledged
 * changes, then the main series of every benchmark.
 * @st: the site.
 *
 * Return: 0 or a negative errno.
 */
int dash_overview_page(struct site *st);

/* --- the pages of replay benchmarks (dash_replay.c) --- */

/**
 * dash_replay_pages() - latency.html (latency percentiles of the latest
 * revision against the one before) and progress.html (how power
 * transitions ended), a section per replay benchmark.
 * @st: the site.
 *
 * Return: 0 or a negative errno.
 */
int dash_replay_pages(struct site *st);

/* --- campaigns and sweeps (dash_campaigns.c) --- */

/* A stored run, as the campaigns page lists it. */
struct dash_run_ref {
	long long id;
	char kind[16], rev[48], date[32];
};

/* The stored runs, in the store's order. */
struct dash_run_list {
	struct dash_run_ref *r;
	size_t n, cap;
};

/**
 * dash_list_run() - store_runs()'s callback: append @run to @ctx.
 * @run: the run.
 * @ctx: a struct dash_run_list.
 *
 * Return: 0 or -ENOMEM.
 */
int dash_list_run(const struct store_run *run, void *ctx);

/**
 * dash_campaigns_page() - campaigns.html: the latest campaigns and sweeps,
 * each with its findings (new, known, gone), then its failing runs.
 * @st: the site.
 * @l: the stored runs.
 *
 * Return: 0 or a negative errno.
 */
int dash_campaigns_page(struct site *st, const struct dash_run_list *l);

/* --- the pages of findings (dash_finding.c) --- */

/**
 * dash_alarm_findings() - in the overview's row of an alarm cause, the
 * findings that appeared (new) at its revision, each linking its page;
 * nothing when there is none.
 * @st: the site.
 * @f: the page.
 * @head: the index in @st->h of the cause's first series (dash_alarm_head()).
 */
void dash_alarm_findings(const struct site *st, FILE *f, size_t head);

/**
 * dash_finding_pages() - a page for each signature any stored run listed.
 * @st: the site.
 *
 * Return: 0 or a negative errno.
 */
int dash_finding_pages(struct site *st);

/* --- live plots (dash_plot.c) --- */

/* One line (or a layer of stacked bars) of a live plot. */
struct dash_plot_line {
	const char *label, *color;
	const double *y; /* a value per x; NAN for none */
	bool dashed;
	bool points;     /* its values as points, without a line (a revision's runs) */
};

/* A vertical dashed line before x index @at (a change). */
struct dash_plot_mark {
	size_t at;
	const char *color;
};

/* A live plot's data. */
struct dash_plot {
	const char *unit;            /* of the values */
	const char *xname;           /* what x is, for the legend ("revision") */
	bool log_y;                  /* a log scale (values up to 0 are not drawn) */
	bool stacked;                /* the lines are bars stacked from 0 (their sums drawn) */
	int w, h;                    /* at most (the page may be narrower) */
	size_t n;                    /* values per line */
	const double *x;             /* the x of each value, or NULL for 0 .. n-1 */
	const char *const *xlabels;  /* a label per x, on the axis and in the legend */
	const char *const *xinfo;    /* more of each x for the legend (a date), or NULL */
	const struct dash_plot_line *lines;
	size_t nlines;
	const struct dash_plot_mark *marks;
	size_t nmarks;
};

/*
 * What a page with live plots adds to its <head>: uPlot and the plots'
 * script (dash_plot.js), from the site's assets.
 */
extern const char dash_plot_head[];

/**
 * dash_plot() - a live plot after a static chart: its data in a div,
 * dash_plot.js's gpuisoPlot() after it, which builds the plot with uPlot
 * and hides the chart. Without JavaScript the chart stays.
 * @f: the page.
 * @p: the plot.
 */
void dash_plot(FILE *f, const struct dash_plot *p);

/**
 * dash_plot_assets() - the files live plots need, in @dir/assets: uPlot,
 * its licence, and dash_plot.js. The site works offline.
 * @dir: the site's folder.
 *
 * Return: 0 or a negative errno.
 */
int dash_plot_assets(const char *dir);

#endif
