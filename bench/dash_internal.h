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
 * What the dashboard's files share (dash.c the overview and series pages,
 * dash_finding.c the pages of findings, dash_plot.c the live plots): the
 * site being written, its pages, its live plots, and the alarms by cause.
 */

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
