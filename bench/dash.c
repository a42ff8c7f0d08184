/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/atomic_file.h"
#include "common/digest.h"
#include "common/failure.h"
#include "dash_internal.h"

/*
 * The dashboard's site (dash.h): its pages, written in order; the frame
 * every page shares (its head, navigation and style, and the count of its
 * charts for tests); the pages' file names, and the cells that link them.
 */

/* --- the frame of every page --- */

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
	"tr.good{background:#e8f6e8}.bad{color:" DASH_RED "}.good{color:" DASH_GREEN "}"
	".banner{padding:10px 14px;border-radius:6px;font-size:16px;margin:12px 0}"
	".banner.bad{background:" DASH_RED ";color:#fff}.banner.good{background:" DASH_GREEN ";color:#fff}"
	"code{background:#f4f4f4;padding:1px 4px;word-break:break-all}svg{display:block}"
	"td.l,th.l{text-align:left}code.rev{word-break:normal;white-space:nowrap}"
	"td.bench{max-width:320px;font-size:12px}"
	".badge{display:inline-block;padding:1px 8px;border-radius:9px;font-size:12px;font-weight:600;"
	"color:#fff}.badge.new{background:" DASH_RED "}.badge.known{background:#ff7f0e}"
	".badge.gone{background:" DASH_GREEN "}tr.finding.new{background:#fde8e8}tr.finding.gone{color:" DASH_GREY "}"
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

/* --- the pages' names, and the cells that link them --- */

void dash_slug(char *out, size_t len, const char *name)
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
void dash_bench_file(char *out, size_t len, const char *benchmark)
{
	snprintf(out, len, "bench-%08llx.html",
		 (unsigned long long)(digest_bytes(benchmark, strlen(benchmark)) & 0xffffffffu));
}

/* A series' page: series-ID-METRIC.html. */
void dash_series_file(char *out, size_t len, const struct series *sr)
{
	char s[200];

	dash_slug(s, sizeof(s), sr->metric);
	snprintf(out, len, "series-%08llx-%s.html",
		 (unsigned long long)(digest_bytes(sr->benchmark, strlen(sr->benchmark)) & 0xffffffffu),
		 s);
}

void dash_rev_cell(const struct site *st, FILE *f, const char *rev)
{
	const char *u = st->o->rev_url, *at = u ? strstr(u, "%s") : NULL;
	char url[1024];

	if (u) {
		/* the revision where the URL's %s is: the URL is not a format (dash --rev-url) */
		if (at)
			snprintf(url, sizeof(url), "%.*s%s%s", (int)(at - u), u, rev, at + 2);
		else
			snprintf(url, sizeof(url), "%s", u);
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
void dash_bench_label(char *out, size_t len, const char *benchmark)
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
void dash_benchmark_cell(FILE *f, const char *benchmark)
{
	char file[64], label[160];

	dash_bench_file(file, sizeof(file), benchmark);
	dash_bench_label(label, sizeof(label), benchmark);
	fprintf(f, "<td class=\"bench l\"><a href=\"%s\" title=\"", file);
	dash_esc(f, benchmark);
	fprintf(f, "\">");
	dash_esc(f, label);
	fprintf(f, "</a></td>");
}

void dash_series_cell(FILE *f, const struct series *sr)
{
	char file[256];

	dash_series_file(file, sizeof(file), sr);
	fprintf(f, "<td class=\"l\"><a href=\"%s\">", file);
	dash_esc(f, sr->metric);
	fprintf(f, "</a></td>");
}

/* --- the site --- */

int dash_write(struct store *s, const char *dir, const struct dash_opts *o, size_t *pages, char *err,
	       size_t errlen)
{
	struct site st = { .s = s, .dir = dir, .o = o };
	struct dash_run_list runs = { 0 };
	int rc;

	*pages = 0;
	if (mkdir(dir, 0777) && errno != EEXIST) {
		rc = -errno;
		snprintf(err, errlen, "%s: cannot create: %s", dir, strerror(-rc));
		return failure_output(rc);
	}
	rc = history_load(s, &o->history, &st.h);
	if (!rc)
		rc = store_runs(s, dash_list_run, &runs);
	if (!rc)
		rc = findings_load(s, NULL, &st.findings);
	if (rc) {
		snprintf(err, errlen, "%s", *store_error(s) ? store_error(s) : strerror(-rc));
		goto free_all;
	}
	rc = dash_plot_assets(dir);
	if (!rc)
		rc = dash_overview_page(&st);
	for (size_t i = 0, first = 0; !rc && i < st.h.n; i++) {
		if (i + 1 == st.h.n || strcmp(st.h.s[i + 1].benchmark, st.h.s[first].benchmark)) {
			rc = dash_bench_page(&st, first, i + 1);
			first = i + 1;
		}
	}
	for (size_t i = 0; !rc && i < st.h.n; i++)
		if (st.h.s[i].nrevs)
			rc = dash_series_page(&st, &st.h.s[i]);
	if (!rc)
		rc = dash_replay_pages(&st);
	if (!rc)
		rc = dash_campaigns_page(&st, &runs);
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
