/* SPDX-License-Identifier: MIT */
/*
 * The dashboard in a real browser: headless Chromium loads every page from
 * disk; a page passes when the browser logs no console message and every
 * chart's data was laid out with a non-empty box (the pages count them).
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "run_gpuiso.h"

static char tdir[64];

static void setup(void)
{
	strcpy(tdir, "/tmp/gpuiso-dash-XXXXXX");
	cr_assert_not_null(mkdtemp(tdir));
}

static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", tdir);
	cr_assert_eq(system(cmd), 0);
}

TestSuite(dash, .init = setup, .fini = teardown, .timeout = 300);

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	cr_assert_not_null(f, "%s", path);
	fputs(text, f);
	fclose(f);
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = calloc(1, 4 << 20);
	size_t n;

	cr_assert_not_null(f, "%s", path);
	n = fread(buf, 1, (4 << 20) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

struct loaded {
	char *dom;
	int console; /* console messages the browser logged */
	int charts, drawn;
};

/* Load @page in headless Chromium with a fresh profile: its DOM after scripts ran, its console. */
static struct loaded browse(const char *page, const char *screenshot)
{
	char cmd[2048], dom[256], log[256], *text, *at;
	struct loaded l = { 0 };
	static int n;
	int rc;

	snprintf(dom, sizeof(dom), "%s/dom-%d.html", tdir, n);
	snprintf(log, sizeof(log), "%s/console-%d.txt", tdir, n);
	snprintf(cmd, sizeof(cmd),
		 "timeout 120 chromium --headless --no-sandbox --disable-gpu --user-data-dir=%s/profile-%d "
		 "--enable-logging=stderr --v=0 --window-size=1280,1600 %s%s --dump-dom 'file://%s' >%s 2>%s",
		 tdir, n, screenshot ? "--screenshot=" : "", screenshot ? screenshot : "", page, dom, log);
	n++;
	rc = system(cmd);
	cr_assert_eq(rc, 0, "chromium failed (%d): %s", rc, cmd);
	l.dom = slurp(dom);
	text = slurp(log);
	for (at = text; (at = strstr(at, ":CONSOLE")); at++)
		l.console++;
	if (l.console)
		fprintf(stderr, "%s: console:\n%s\n", page, text);
	free(text);
	at = strstr(l.dom, "data-charts=\"");
	if (at)
		sscanf(at, "data-charts=\"%d\" data-charts-drawn=\"%d\"", &l.charts, &l.drawn);
	return l;
}

/* The checker itself must be able to fail. */
Test(dash, the_browser_check_catches_errors_and_empty_charts)
{
	char page[256];
	struct loaded l;

	snprintf(page, sizeof(page), "%s/broken.html", tdir);
	write_file(page, "<!doctype html><html><body><svg data-chart width=\"100\" height=\"50\">"
			 "<g class=\"data\"></g></svg><script>undefined_function();"
			 "document.body.setAttribute('data-charts',1);"
			 "document.body.setAttribute('data-charts-drawn',0);</script></body></html>");
	l = browse(page, NULL);
	cr_assert_gt(l.console, 0, "an uncaught error is a console message");
	free(l.dom);
}

/* One run of benchmark @trace at revision @rev: alloc_mdl's device time @modeled, @reset resets. */
static void results(const char *path, const char *trace, const char *rev, int day, int rep,
		    double modeled, int reset)
{
	char text[2048];

	snprintf(text, sizeof(text),
		 "{\"schema\":\"gpuiso-results/1\",\"run\":{\"id\":\"%s-%d-%d\",\"started\":\"2026-11-%02dT01:00:0%dZ\","
		 "\"git_rev\":\"%s\",\"host\":\"h\",\"backend\":\"sim\",\"trace\":\"%s\","
		 "\"scenario\":null,\"faults\":null,\"seed\":0},\"ops\":{"
		 "\"alloc_mdl\":{\"count\":10,\"errors\":0,\"latency_ns\":{\"p50\":%d,\"p90\":800,\"p99\":900,"
		 "\"p999\":1500,\"max\":2000,\"mean\":600},\"modeled_ns\":{\"p50\":100,\"p90\":200,"
		 "\"p99\":%g,\"p999\":%g,\"max\":%g,\"mean\":150}},"
		 "\"free_mdl\":{\"count\":10,\"errors\":0,\"latency_ns\":{\"p50\":300,\"p90\":400,\"p99\":500,"
		 "\"p999\":600,\"max\":700,\"mean\":350},\"modeled_ns\":{\"p50\":50,\"p90\":60,\"p99\":70,"
		 "\"p999\":80,\"max\":90,\"mean\":55}}},"
		 "\"power\":{\"transitions\":8,\"completed\":%d,\"reset\":%d,\"pinned\":5,\"chunked\":%d,"
		 "\"chunks\":40,\"bytes\":8388608,\"longest_stall_ns\":9000,"
		 "\"to_d3\":{\"transitions\":4,\"completed\":%d,\"pinned\":2,\"chunked\":%d,\"reset\":%d},"
		 "\"to_d0\":{\"transitions\":4,\"completed\":4,\"pinned\":3,\"chunked\":1,\"reset\":0},"
		 "\"time_to_complete_ns\":{\"p50\":1,\"p90\":1,\"p99\":1,\"p999\":1,\"max\":1,\"mean\":1}},"
		 "\"faults\":{\"injected\":{},\"violations\":[]},\"invariants\":{\"no_leaks\":true}}\n",
		 trace, day, rep, day, rep, rev, trace, 500 + (day * 7 + rep * 3) % 40, modeled, modeled,
		 modeled, 8 - reset, reset, 3 - reset, 4 - reset, 2 - reset, reset);
	write_file(path, text);
}

/* The page an index link to a series of @metric leads to, found in the index. */
static void series_page(const char *index, const char *metric, char *out, size_t len)
{
	char needle[256];
	const char *at, *end;

	snprintf(needle, sizeof(needle), "-%s.html\">", metric);
	at = strstr(index, needle);
	cr_assert_not_null(at, "no link to %s", metric);
	end = at + strlen(needle) - 2;
	while (at > index && at[-1] != '"')
		at--;
	snprintf(out, len, "%.*s", (int)(end - at), at);
}

/* A live plot's legend (uPlot's markup, built by the page's scripts) names @label. */
static void plotted(const char *dom, const char *label, const char *what)
{
	const char *legend = strstr(dom, "class=\"u-legend");
	char needle[128];

	snprintf(needle, sizeof(needle), "<div class=\"u-label\">%s</div>", label);
	cr_assert(legend && strstr(legend, needle), "%s: no %s in a plot's legend", what, label);
}

Test(dash, every_page_loads_and_draws_in_chromium)
{
	char db[256], site[256], path[512], shot[512], rev[16], page[256], bench[64], *index;
	const char *artefacts = getenv("GPUISO_ARTEFACTS"), *at;
	struct loaded l;
	struct run r;

	snprintf(db, sizeof(db), "%s/runs.sqlite", tdir);
	snprintf(site, sizeof(site), "%s/site", tdir);
	snprintf(path, sizeof(path), "%s/in", tdir);
	mkdir(path, 0777);
	/*
	 * Twelve nights of two benchmarks, three runs a night; from the ninth,
	 * desktop's alloc_mdl costs 40% more device time. Game never changes.
	 */
	for (int i = 0; i < 12; i++) {
		snprintf(rev, sizeof(rev), "rev%02d", i);
		for (int rep = 0; rep < 3; rep++) {
			snprintf(path, sizeof(path), "%s/in/d%02d-%d.json", tdir, i, rep);
			results(path, "traces/desktop", rev, i + 1, rep, i < 8 ? 1000 : 1400, 0);
			snprintf(path, sizeof(path), "%s/in/g%02d-%d.json", tdir, i, rep);
			results(path, "traces/game", rev, i + 1, rep, 1000, 0);
		}
	}
	snprintf(path, sizeof(path), "%s/in/campaign.json", tdir);
	write_file(path, "{\"schema\":\"gpuiso-campaign/1\",\"name\":\"nightly-pin\",\"runs\":3,\"passed\":2,"
			 "\"failed\":1,\"invariants\":[],\"failures\":[{\"id\":\"pin-fails-desktop-s1\","
			 "\"run\":\"pin-fails\",\"seed\":1,\"reason\":\"forward_progress does not hold\","
			 "\"reproduce\":\"gpuiso replay traces/desktop --faults x.yaml --seed 1\"}]}");
	snprintf(path, sizeof(path), "%s/in", tdir);
	RUN(&r, "store", "add", db, path);
	cr_assert_eq(r.status, 0, "%s", r.err);
	RUN(&r, "dash", db, "-o", site, "--rev-url", "https://git.example/gpuiso/commit/%s");
	cr_assert_eq(r.status, 0, "%s", r.err);

	snprintf(path, sizeof(path), "%s/index.html", site);
	index = slurp(path);
	series_page(index, "ops.alloc_mdl.modeled_ns.p99", page, sizeof(page));
	/* a benchmark's page, linked from its rows: bench-XXXXXXXX.html */
	at = strstr(index, "<a href=\"bench-");
	cr_assert_not_null(at);
	snprintf(bench, sizeof(bench), "%.19s", at + 9);
	const char *const pages[] = { "index.html", "latency.html", "progress.html", page, bench };

	for (size_t i = 0; i < sizeof(pages) / sizeof(pages[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", site, pages[i]);
		snprintf(shot, sizeof(shot), "%s/dash-%s.png", artefacts ? artefacts : tdir, "index");
		l = browse(path, i == 0 ? shot : NULL);
		cr_assert_eq(l.console, 0, "%s logged to the console", pages[i]);
		cr_assert_gt(l.charts, 0, "%s has charts", pages[i]);
		cr_assert_eq(l.drawn, l.charts, "%s: %d of %d charts drawn", pages[i], l.drawn, l.charts);
		if (i == 0) {
			/* the regression is red before anyone reads a number, and counted for scripts */
			cr_assert(strstr(l.dom, "class=\"banner bad\""), "no red banner");
			cr_assert(strstr(l.dom, "<meta name=\"gpuiso-regressions\" content=\"3\">"),
				  "alloc_mdl's modeled p99, p999 and max are the alarms");
			/* one row for the one cause, its series behind it, the revision linked */
			at = strstr(l.dom, "<tr class=\"bad\" id=\"alarm-rev08-");
			cr_assert_not_null(at, "the alarm's row has an id others can link");
			cr_assert(!strncmp(strchr(at + 30, '"'), "\"><td class=\"l\">the code changed</td><td>"
				  "<a href=\"https://git.example/gpuiso/commit/rev08\">", 70),
				  "the alarm says its cause and where, with a link to the revision: %.200s", at);
			cr_assert_null(strstr(l.dom, "alarm-findings"), "no finding, no line for them");
			cr_assert(strstr(l.dom, "</a></td><td>3</td><td class=\"bad\">\u25b2 +40.0%</td>"),
				  "how many series moved, and the worst change: %.400s",
				  strstr(l.dom, "the code changed"));
			cr_assert(strstr(l.dom, "1 benchmark; the worst: <span title=\"results "
						"trace=traces/desktop backend=sim host=h\">results desktop</span>"),
				  "a short label, the identity on hover");
			cr_assert(strstr(l.dom, "<details><summary>the 3 series</summary>"), "the series on demand");
			/* grouped by benchmark, each row naming it: game's rows are there, none red */
			cr_assert(strstr(l.dom, "<tr class=\"bad\" data-benchmark=\"results trace=traces/desktop"),
				  "the regressed series' row is not red");
			cr_assert(strstr(l.dom, "<tr class=\"\" data-benchmark=\"results trace=traces/game"),
				  "game's series are listed apart");
			cr_assert_null(strstr(l.dom, "<tr class=\"bad\" data-benchmark=\"results trace=traces/game"),
				       "game did not change");
		}
		if (i == 3) {
			cr_assert(strstr(l.dom, "<code class=\"rev\">rev08</code>"),
				  "the change names its revision");
			/* the live plot was built by its script: uPlot's own markup, a canvas */
			cr_assert(strstr(l.dom, "data-plots=\"1\""), "no plot built");
			cr_assert(strstr(l.dom, "class=\"uplot") && strstr(l.dom, "<canvas"),
				  "no uPlot markup after the scripts ran");
			cr_assert(strstr(l.dom, "rev08 (2026-11-09") || strstr(l.dom, "u-legend"),
				  "the legend for hover values");
		}
		if (i == 1) {
			cr_assert(strstr(l.dom, "rev11</span> (latest)") &&
				  strstr(l.dom, "rev10</span> (the one before)"), "which line is which");
			/* a live plot per benchmark and operation, both revisions on it */
			cr_assert(strstr(l.dom, "data-plots=\"4\""), "two benchmarks, two operations: %s",
				  strstr(l.dom, "<body"));
			cr_assert(strstr(l.dom, "class=\"uplot") && strstr(l.dom, "<canvas"),
				  "no uPlot markup after the scripts ran");
			plotted(l.dom, "rev11", "the latest revision in the plot's legend");
			plotted(l.dom, "rev10", "and the one before");
			plotted(l.dom, "percentile", "the x of the hover values");
		}
		if (i == 2) {
			cr_assert(strstr(l.dom, ">rev11</text>") && strstr(l.dom, " transitions</text>"),
				  "the bars name their revisions and counts");
			/* a live plot per benchmark and direction: the three paths stacked */
			cr_assert(strstr(l.dom, "data-plots=\"4\""), "two benchmarks, two directions: %s",
				  strstr(l.dom, "<body"));
			cr_assert(strstr(l.dom, "class=\"uplot") && strstr(l.dom, "<canvas"),
				  "no uPlot markup after the scripts ran");
			plotted(l.dom, "pinned", "each path in the plot's legend");
			plotted(l.dom, "chunked", "each path in the plot's legend");
			plotted(l.dom, "reset", "each path in the plot's legend");
		}
		if (i == 4)
			cr_assert(strstr(l.dom, "results trace=traces/desktop") ||
				  strstr(l.dom, "results trace=traces/game"), "a benchmark's page");
		free(l.dom);
	}
	free(index);
	/* index.html#filter=WORDS: only the series with every word, and how many */
	snprintf(path, sizeof(path), "%s/index.html#filter=traces/game%%20p99", site);
	l = browse(path, NULL);
	cr_assert_eq(l.console, 0);
	cr_assert(strstr(l.dom, "data-shown=\"6\""), "game's six p99 series: %.300s",
		  strstr(l.dom, "id=\"shown\""));
	cr_assert(strstr(l.dom, "<span id=\"shown\">6 of 63 series"), "the count is said");
	cr_assert(strstr(l.dom, "data-benchmark=\"results trace=traces/desktop backend=sim host=h\" "
				"data-metric=\"ops.alloc_mdl.latency_ns.p99\" style=\"display: none;\""),
		  "desktop's rows are hidden");
	free(l.dom);
	snprintf(path, sizeof(path), "%s/campaigns.html", site);
	l = browse(path, NULL);
	cr_assert_eq(l.console, 0);
	cr_assert(strstr(l.dom, "gpuiso replay traces/desktop --faults x.yaml --seed 1"),
		  "the reproducer is listed");
	free(l.dom);
	snprintf(shot, sizeof(shot), "%s/dash-index.png", artefacts ? artefacts : tdir);
	cr_assert_eq(access(shot, F_OK), 0, "screenshot %s", shot);
	/* the plots work offline: the library and its licence are in the site */
	snprintf(path, sizeof(path), "%s/assets/uPlot.iife.min.js", site);
	cr_assert_eq(access(path, R_OK), 0, "%s", path);
	snprintf(path, sizeof(path), "%s/assets/uPlot-LICENSE", site);
	index = slurp(path);
	cr_assert(strstr(index, "The MIT License"), "%s", index);
	free(index);
}

/*
 * A summary of campaign @name (or, @sweep, a sweep of /abs/trace) with
 * @failed of its 4 runs failed, listing a finding for each 4-hex-digit
 * word of @sigs (NULL: a summary written before findings), each met in
 * two operations when @contexts (else written before contexts), its file
 * modified at day @day (the store tells two runs of the same content by
 * it).
 */
static void summary_of(const char *path, bool sweep, const char *name, int failed, const char *sigs,
		       bool contexts, int day)
{
	const struct timespec t[2] = { { 1790000000 + day * 86400, 0 }, { 1790000000 + day * 86400, 0 } };
	FILE *f = fopen(path, "w");

	cr_assert_not_null(f, "%s", path);
	if (sweep)
		fprintf(f, "{\"schema\":\"gpuiso-sweep/1\",\"trace\":\"/abs/trace\",\"scenario\":\"/abs/s.yaml\","
			   "\"host\":\"h\",\"baseline\":\"recovered\",\"points\":{},\"failures\":[{\"point\":"
			   "\"iommu/unmap\",\"nth\":1,\"outcome\":\"violation\",\"reproduce\":\"gpuiso replay "
			   "/abs/trace --fail-nth iommu/unmap:1\"}]");
	else
		fprintf(f, "{\"schema\":\"gpuiso-campaign/1\",\"name\":\"%s\",\"host\":\"h\",\"runs\":4,"
			   "\"passed\":%d,\"failed\":%d,\"failures\":[{\"id\":\"pin-desktop-s1\",\"run\":\"pin\","
			   "\"seed\":1,\"outcome\":\"failed\",\"reason\":\"forward_progress does not hold\","
			   "\"reproduce\":\"gpuiso replay /abs/desktop --seed 1\"}]", name, 4 - failed, failed);
	if (sigs) {
		fprintf(f, ",\"findings\":[");
		for (const char *at = sigs; *at; at += at[4] ? 5 : 4) {
			fprintf(f, "%s{\"signature\":\"000000000000%.4s\",\"key\":\"k\","
				   "\"title\":\"finding %.4s: iommu/unmap \\u2192 <b>leak</b>\",\"blame\":\"fault\","
				   "\"outcome\":\"%s\",\"code\":\"MAPPING_LEAK\",\"invariants\":[\"no_leaks\"],"
				   "\"point\":\"iommu/unmap\",\"operation\":\"free_mdl\",\"runs\":2788,%s"
				   "\"reproduce\":\"gpuiso replay /abs/trace --fail-nth iommu/unmap:%.4s\","
				   "\"trimmed\":{\"trace\":\"/abs/OUT/findings/%.4s/trace\",\"events\":41,"
				   "\"of\":10000}",
				at == sigs ? "" : ",", at, at, sweep ? "violation" : "failed",
				sweep ? "\"nth\":{\"min\":1,\"max\":2788}," : "", at, at);
			if (contexts && sweep)
				fprintf(f, ",\"contexts\":[{\"operation\":\"free_mdl\",\"runs\":2000,\"nth\":"
					   "{\"min\":1,\"max\":2000}},{\"operation\":\"power\",\"runs\":788,"
					   "\"nth\":{\"min\":5,\"max\":2788}}]");
			else if (contexts)
				fprintf(f, ",\"contexts\":[{\"operation\":\"free_mdl\",\"runs\":2000},"
					   "{\"operation\":\"start\",\"runs\":788}]");
			fprintf(f, "}");
		}
		fprintf(f, "]");
	}
	fprintf(f, "}\n");
	fclose(f);
	cr_assert_eq(utimensat(AT_FDCWD, path, t, 0), 0);
}

/* summary_of() of campaign "nightly", 3 runs failed, findings without contexts. */
static void summary(const char *path, bool sweep, const char *sigs, int day)
{
	summary_of(path, sweep, "nightly", 3, sigs, false, day);
}

/* The part of @dom from @from to the next section (<h2>): a copy. */
static char *section(const char *dom, const char *from)
{
	const char *at = strstr(dom, from), *end;

	cr_assert_not_null(at, "no section %s", from);
	end = strstr(at + 1, "<h2>");
	return strndup(at, end ? (size_t)(end - at) : strlen(at));
}

/* Whether @sec lists finding @sig (4 hex digits) in @state. */
static bool listed(const char *sec, const char *sig, const char *state)
{
	char row[160];

	snprintf(row, sizeof(row), "<tr class=\"finding %s\" data-signature=\"000000000000%s\" "
				   "data-state=\"%s\">", state, sig, state);
	return strstr(sec, row) != NULL;
}

Test(dash, campaigns_show_findings_new_known_and_gone_in_chromium)
{
	char db[256], site[256], path[512], day[32], *sec;
	const char *at;
	struct loaded l;
	struct run r;
	int badges = -1, shown = -1;
	/* nights 1-4 of campaign nightly: from before findings, then A B, A B, A D */
	static const char *const nights[] = { NULL, "aaaa bbbb", "aaaa bbbb", "aaaa dddd" };

	snprintf(db, sizeof(db), "%s/runs.sqlite", tdir);
	snprintf(site, sizeof(site), "%s/site", tdir);
	for (int i = 0; i < 4; i++) {
		snprintf(path, sizeof(path), "%s/night%d.json", tdir, i + 1);
		summary(path, false, nights[i], i + 1);
		snprintf(day, sizeof(day), "2026-11-%02dT02:00:00Z", i + 1);
		RUN(&r, "store", "add", db, path, "--date", day, "--rev", day + 8);
		cr_assert_eq(r.status, 0, "%s", r.err);
		cr_assert(strstr(r.out, "1 run added"), "night %d: %s", i + 1, r.out);
	}
	snprintf(path, sizeof(path), "%s/sweep.json", tdir);
	summary(path, true, "eeee", 5);
	RUN(&r, "store", "add", db, path, "--date", "2026-11-05T02:00:00Z", "--rev", "05");
	cr_assert_eq(r.status, 0, "%s", r.err);
	RUN(&r, "dash", db, "-o", site);
	cr_assert_eq(r.status, 0, "%s", r.err);

	snprintf(path, sizeof(path), "%s/campaigns.html", site);
	l = browse(path, NULL);
	cr_assert_eq(l.console, 0);
	/* every state badge is drawn where it can be seen, not folded away */
	at = strstr(l.dom, "data-badges=\"");
	cr_assert_not_null(at, "the page counts its badges");
	sscanf(at, "data-badges=\"%d\" data-badges-shown=\"%d\"", &badges, &shown);
	cr_assert_eq(badges, 1 + 3 + 2 + 2, "the sweep's, then nights 4, 3 and 2: %d", badges);
	cr_assert_eq(shown, badges, "%d of %d badges shown", shown, badges);

	sec = section(l.dom, "2026-11-04T02:00:00Z");
	cr_assert(listed(sec, "dddd", "new"), "night 4: dddd is new: %s", sec);
	cr_assert(listed(sec, "aaaa", "known"), "night 4: aaaa is known: %s", sec);
	cr_assert(listed(sec, "bbbb", "gone"), "night 4: bbbb is gone: %s", sec);
	cr_assert_not(listed(sec, "aaaa", "new") || listed(sec, "bbbb", "known"), "%s", sec);
	cr_assert(strstr(sec, "<span class=\"badge new\">new</span>"), "%s", sec);
	cr_assert(strstr(sec, "since <code class=\"rev\">02T02:00:00Z</code>"),
		  "known since the first night that recorded it: %s", sec);
	cr_assert(strstr(sec, "last in <code class=\"rev\">03T02:00:00Z</code>"), "gone after: %s", sec);
	cr_assert(strstr(sec, "finding dddd: iommu/unmap \xe2\x86\x92 &lt;b&gt;leak&lt;/b&gt;"),
		  "the title, UTF-8 kept, markup escaped: %s", sec);
	cr_assert(strstr(sec, "gpuiso replay /abs/trace --fail-nth iommu/unmap:dddd"), "%s", sec);
	cr_assert(strstr(sec, "/abs/OUT/findings/dddd/trace"), "the trimmed trace: %s", sec);
	cr_assert(strstr(sec, "<details><summary>1 failing run</summary>"),
		  "the failing runs, on demand: %s", sec);
	free(sec);

	sec = section(l.dom, "2026-11-03T02:00:00Z");
	cr_assert(listed(sec, "aaaa", "known") && listed(sec, "bbbb", "known"),
		  "the same summary a second night: all known: %s", sec);
	cr_assert_null(strstr(sec, "data-state=\"new\""), "%s", sec);
	cr_assert_null(strstr(sec, "data-state=\"gone\""), "%s", sec);
	free(sec);

	sec = section(l.dom, "2026-11-02T02:00:00Z");
	cr_assert(listed(sec, "aaaa", "new") && listed(sec, "bbbb", "new"),
		  "after a night that recorded none: new: %s", sec);
	free(sec);

	sec = section(l.dom, "2026-11-01T02:00:00Z");
	cr_assert(strstr(sec, "No findings recorded"), "an old summary says so: %s", sec);
	cr_assert_null(strstr(sec, "No findings.<"), "and does not pretend there are none");
	cr_assert(strstr(sec, "<details open=\"\">") || strstr(sec, "<details open>"),
		  "its failing runs are shown at once: %s", sec);
	cr_assert(strstr(sec, "gpuiso replay /abs/desktop --seed 1"), "%s", sec);
	free(sec);

	sec = section(l.dom, "sweep /abs/trace");
	cr_assert(listed(sec, "eeee", "new"), "%s", sec);
	cr_assert(strstr(sec, "<td>1\xe2\x80\x93" "2788</td>"), "the sweep's hits: %s", sec);
	free(sec);
	cr_assert(strstr(l.dom, "<a href=\"finding-000000000000aaaa.html\">"), "a finding links its page");
	free(l.dom);

	/* a finding's page: where it was seen first and last, and in how many runs */
	snprintf(path, sizeof(path), "%s/finding-000000000000aaaa.html", site);
	l = browse(path, NULL);
	cr_assert_eq(l.console, 0);
	sec = strstr(l.dom, "first seen");
	cr_assert(sec && strstr(sec, "02T02:00:00Z</code> 2026-11-02T02:00:00Z"), "%s", l.dom);
	sec = strstr(l.dom, "last seen");
	cr_assert(sec && strstr(sec, "04T02:00:00Z</code> 2026-11-04T02:00:00Z"), "%s", l.dom);
	cr_assert(strstr(l.dom, "3 stored runs"), "nights 2, 3 and 4: %s", l.dom);
	cr_assert(strstr(l.dom, "gpuiso replay /abs/trace --fail-nth iommu/unmap:aaaa"), "%s", l.dom);
	cr_assert(strstr(l.dom, "no longer at <code>/abs/OUT/findings/aaaa/trace</code>"),
		  "a trimmed trace that is gone is said, not linked: %s", l.dom);
	cr_assert_null(strstr(l.dom, "class=\"contexts\""), "a summary from before contexts: none shown");
	cr_assert_null(strstr(l.dom, "Alarms where it appeared"), "no alarm, no heading: %s", l.dom);
	free(l.dom);
	/* bbbb: gone at night 4, so its last sighting is night 3 */
	snprintf(path, sizeof(path), "%s/finding-000000000000bbbb.html", site);
	l = browse(path, NULL);
	sec = strstr(l.dom, "last seen");
	cr_assert(sec && strstr(sec, "03T02:00:00Z</code> 2026-11-03T02:00:00Z"), "%s", l.dom);
	cr_assert(strstr(l.dom, "<td>gone</td>"), "the night it went is listed: %s", l.dom);
	free(l.dom);
}

/*
 * Five nights of two traces on one scenario file; on the fourth the file
 * changed and both traces' modeled costs rose by 1,000 ns of 8.4 million.
 * The overview shows one alarm row for that cause, with the six series
 * behind it, and changes that round to +0.0% as the nanoseconds they are.
 */
Test(dash, one_changed_input_is_one_alarm_row_in_numbers_people_read)
{
	static const char *const traces[] = { "traces/desktop", "traces/game" };
	char db[256], site[256], path[512], text[2048], *index;
	struct run r;

	snprintf(db, sizeof(db), "%s/cause.sqlite", tdir);
	snprintf(site, sizeof(site), "%s/cause-site", tdir);
	snprintf(path, sizeof(path), "%s/cause", tdir);
	mkdir(path, 0777);
	for (int night = 0; night < 5; night++)
		for (size_t t = 0; t < 2; t++) {
			double modeled = night < 3 ? 8408630 : 8409630;

			snprintf(text, sizeof(text),
				 "{\"schema\":\"gpuiso-results/1\",\"run\":{\"id\":\"c%d-%zu\","
				 "\"started\":\"2026-11-%02dT01:00:00Z\",\"git_rev\":\"rev%d\",\"host\":\"h\","
				 "\"backend\":\"sim\",\"trace\":\"%s\",\"scenario\":\"/abs/s.yaml\",\"faults\":null,"
				 "\"seed\":0,\"inputs\":{\"/abs/s.yaml\":\"%s\"}},\"ops\":{\"alloc_mdl\":{"
				 "\"count\":10,\"errors\":0,\"modeled_ns\":{\"p50\":100,\"p90\":200,\"p99\":%.0f,"
				 "\"p999\":%.0f,\"max\":%.0f,\"mean\":150}}},\"invariants\":{\"no_leaks\":true}}\n",
				 night, t, night + 1, night, traces[t],
				 night < 3 ? "1111111111111111" : "2222222222222222", modeled, modeled,
				 modeled);
			snprintf(path, sizeof(path), "%s/cause/n%d-%zu.json", tdir, night, t);
			write_file(path, text);
		}
	snprintf(path, sizeof(path), "%s/cause", tdir);
	RUN(&r, "store", "add", db, path);
	cr_assert_eq(r.status, 0, "%s", r.err);
	RUN(&r, "dash", db, "-o", site);
	cr_assert_eq(r.status, 0, "%s", r.err);
	snprintf(path, sizeof(path), "%s/index.html", site);
	index = slurp(path);
	cr_assert(strstr(index, "<td class=\"l\">input changed: /abs/s.yaml</td>"), "%s", index);
	cr_assert_null(strstr(strstr(index, "input changed: /abs/s.yaml</td>") + 1,
			      "<tr class=\"bad\"><td class=\"l\">input changed"),
		       "one row for the one cause: %s", index);
	cr_assert(strstr(index, "</a></td><td>6</td>") || strstr(index, "</code></td><td>6</td>"),
		  "six series moved: %s", index);
	cr_assert(strstr(index, "2 benchmarks; the worst: "), "%s", index);
	cr_assert(strstr(index, "<details><summary>the 6 series</summary>"), "%s", index);
	cr_assert(strstr(index, "+1,000 ns (+0.012%)"), "an absolute change, with its unit: %s", index);
	cr_assert(strstr(index, "<td>8,408,630</td><td>8,409,630</td>"), "values in full: %s", index);
	cr_assert_null(strstr(index, "e+06"), "no scientific notation for nanoseconds: %.200s",
		       strstr(index, "e+06") - 100);
	free(index);
}

/* The id of the overview's row of the alarm at @rev (its cause's row): a copy, or NULL. */
static char *alarm_row(const char *dom, const char *rev)
{
	char needle[64];
	const char *at;

	snprintf(needle, sizeof(needle), "<tr class=\"bad\" id=\"alarm-%s-", rev);
	at = strstr(dom, needle);
	return at ? strndup(at + 20, strcspn(at + 20, "\"")) : NULL;
}

/* The overview's row of alarm @id and the cell below it, up to its series (<details>): a copy. */
static char *alarm_section(const char *dom, const char *id)
{
	char needle[128];
	const char *at, *end;

	snprintf(needle, sizeof(needle), "id=\"%s\"", id);
	at = strstr(dom, needle);
	cr_assert_not_null(at, "no row %s", id);
	end = strstr(at, "<details>");
	cr_assert_not_null(end);
	return strndup(at, (size_t)(end - at));
}

/*
 * Six nights: from the fourth (rev03), desktop's modeled cost rises (an
 * alarm: the code changed) and campaign nightly finds bbbb, a sweep eeee;
 * from the fifth (rev04) campaign other fails one run more (an alarm of
 * its own) and finds dddd, while nightly finds ffff. Each alarm row links
 * the findings new at its revision (a campaign's alarm only its own); each
 * such finding's page links the row back; revisions link through
 * --rev-url; a finding's operations are a table.
 */
Test(dash, alarms_and_findings_link_each_other_in_chromium)
{
	static const char *const nightly[] = { "aaaa", "aaaa", "aaaa", "aaaa bbbb", "aaaa bbbb ffff",
					       "aaaa bbbb ffff" };
	static const char *const other[] = { "cccc", "cccc", "cccc", "cccc", "cccc dddd", "cccc dddd" };
	char db[256], site[256], path[512], rev[16], day[32], *id03, *id04, *sec, *index;
	struct loaded l;
	struct run r;

	snprintf(db, sizeof(db), "%s/runs.sqlite", tdir);
	snprintf(site, sizeof(site), "%s/site", tdir);
	for (int i = 0; i < 6; i++) {
		snprintf(rev, sizeof(rev), "rev%02d", i);
		snprintf(day, sizeof(day), "2026-11-%02dT02:00:00Z", i + 1);
		snprintf(path, sizeof(path), "%s/d%d.json", tdir, i);
		results(path, "traces/desktop", rev, i + 1, 0, i < 3 ? 1000 : 1400, 0);
		RUN(&r, "store", "add", db, path);
		cr_assert_eq(r.status, 0, "%s", r.err);
		snprintf(path, sizeof(path), "%s/n%d.json", tdir, i);
		summary_of(path, false, "nightly", 3, nightly[i], false, i + 1);
		RUN(&r, "store", "add", db, path, "--rev", rev, "--date", day);
		cr_assert_eq(r.status, 0, "%s", r.err);
		snprintf(path, sizeof(path), "%s/o%d.json", tdir, i);
		summary_of(path, false, "other", i < 4 ? 1 : 2, other[i], true, i + 1);
		RUN(&r, "store", "add", db, path, "--rev", rev, "--date", day);
		cr_assert_eq(r.status, 0, "%s", r.err);
	}
	snprintf(path, sizeof(path), "%s/sweep.json", tdir);
	summary_of(path, true, NULL, 0, "eeee", true, 4);
	RUN(&r, "store", "add", db, path, "--rev", "rev03", "--date", "2026-11-04T03:00:00Z");
	cr_assert_eq(r.status, 0, "%s", r.err);
	RUN(&r, "dash", db, "-o", site, "--rev-url", "https://git.example/gpuiso/commit/%s");
	cr_assert_eq(r.status, 0, "%s", r.err);

	snprintf(path, sizeof(path), "%s/index.html", site);
	l = browse(path, NULL);
	cr_assert_eq(l.console, 0);
	index = l.dom;
	id03 = alarm_row(index, "rev03");
	id04 = alarm_row(index, "rev04");
	cr_assert(id03 && id04, "an alarm at rev03 and one at rev04: %s", index);
	/* rev03: desktop's alarm, no campaign's: every finding new at rev03 */
	sec = alarm_section(index, id03);
	cr_assert(strstr(sec, "the code changed"), "%s", sec);
	cr_assert(strstr(sec, "New findings at this revision: "), "%s", sec);
	cr_assert(strstr(sec, "<a class=\"finding\" href=\"finding-000000000000bbbb.html\">finding bbbb: "
			      "iommu/unmap \u2192 &lt;b&gt;leak&lt;/b&gt;</a>"), "nightly's new finding: %s", sec);
	cr_assert(strstr(sec, "href=\"finding-000000000000eeee.html\""), "the sweep's: %s", sec);
	cr_assert_null(strstr(sec, "finding-000000000000aaaa.html"), "aaaa is not new at rev03: %s", sec);
	cr_assert_null(strstr(sec, "finding-000000000000dddd.html"), "dddd is new at rev04: %s", sec);
	free(sec);
	/* rev04: campaign other's alarm: its own new finding, not nightly's */
	sec = alarm_section(index, id04);
	cr_assert(strstr(sec, "href=\"finding-000000000000dddd.html\""), "%s", sec);
	cr_assert_null(strstr(sec, "finding-000000000000ffff.html"),
		       "nightly's finding is not other campaign's alarm: %s", sec);
	free(sec);

	/* bbbb's page: the alarm where it appeared, linked to its row, the revision to --rev-url */
	snprintf(path, sizeof(path), "%s/finding-000000000000bbbb.html", site);
	l = browse(path, NULL);
	cr_assert_eq(l.console, 0);
	sec = strstr(l.dom, "<h2>Alarms where it appeared</h2>");
	cr_assert_not_null(sec, "%s", l.dom);
	snprintf(path, sizeof(path), "<a class=\"alarm\" href=\"index.html#%s\">the code changed</a>", id03);
	cr_assert(strstr(sec, path), "%s in %s", path, sec);
	cr_assert(strstr(sec, "<a href=\"https://git.example/gpuiso/commit/rev03\"><code class=\"rev\">"
			      "rev03</code></a>"), "the revision linked: %s", sec);
	cr_assert_null(strstr(sec, id04), "%s", sec);
	cr_assert_null(strstr(l.dom, "class=\"contexts\""), "nightly's summaries list no contexts");
	free(l.dom);
	/* dddd's: other's alarm; and the operations it was met in, a campaign's without hits */
	snprintf(path, sizeof(path), "%s/finding-000000000000dddd.html", site);
	l = browse(path, NULL);
	cr_assert_eq(l.console, 0);
	snprintf(path, sizeof(path), "href=\"index.html#%s\"", id04);
	cr_assert(strstr(l.dom, path), "%s in %s", path, l.dom);
	cr_assert(strstr(l.dom, "<table class=\"contexts\"><tbody><tr><th class=\"l\">operation</th>"
				"<th>runs</th></tr>\n<tr><td class=\"l\">free_mdl</td><td>2000</td></tr>\n"
				"<tr><td class=\"l\">start</td><td>788</td></tr>"), "%s", l.dom);
	free(l.dom);
	/* eeee's: a sweep's operations with their hits */
	snprintf(path, sizeof(path), "%s/finding-000000000000eeee.html", site);
	l = browse(path, NULL);
	cr_assert_eq(l.console, 0);
	cr_assert(strstr(l.dom, "<h2>The operations it was met in</h2>"), "%s", l.dom);
	cr_assert(strstr(l.dom, "<tr><td class=\"l\">free_mdl</td><td>2000</td><td>1\u20132000</td></tr>\n"
				"<tr><td class=\"l\">power</td><td>788</td><td>5\u20132788</td></tr>"),
		  "%s", l.dom);
	snprintf(path, sizeof(path), "href=\"index.html#%s\"", id03);
	cr_assert(strstr(l.dom, path), "the sweep's finding and desktop's alarm: %s", l.dom);
	free(l.dom);
	/* aaaa appeared at rev00 and ffff at rev04 in nightly: no alarm of theirs, no heading */
	for (int i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/finding-000000000000%s.html", site, i ? "ffff" : "aaaa");
		l = browse(path, NULL);
		cr_assert_eq(l.console, 0);
		cr_assert_null(strstr(l.dom, "Alarms where it appeared"), "%s", l.dom);
		free(l.dom);
	}
	free(index);
	free(id03);
	free(id04);
}

/*
 * A real campaign whose finding is trimmed: its page carries the trimmed
 * trace's CTF files, its events inline, and the plan of hits it fails
 * under, inline and copied beside the trace's folder.
 */
Test(dash, a_trimmed_campaign_finding_carries_its_trace_and_plan_in_chromium)
{
	char trace[256], camp[256], out[256], db[256], site[256], path[600], text[1024], *page, *sig;
	struct loaded l;
	struct run r;

	snprintf(trace, sizeof(trace), "%s/pc", tdir);
	snprintf(camp, sizeof(camp), "%s/camp.yaml", tdir);
	snprintf(out, sizeof(out), "%s/out", tdir);
	snprintf(db, sizeof(db), "%s/runs.sqlite", tdir);
	snprintf(site, sizeof(site), "%s/site", tdir);
	RUN(&r, "trace", "gen", "--profile", "power-cycle", "--events", "500", "-o", trace, "-q");
	cr_assert_eq(r.status, 0, "%s", r.err);
	snprintf(text, sizeof(text), "campaign:\n  name: unmaps\n  traces: [%s]\n  seeds: [7]\n"
		 "  runs:\n    - {name: some-fail, faults: [{point: iommu/unmap, probability: 10%%}]}\n",
		 trace);
	write_file(camp, text);
	RUN(&r, "campaign", "run", camp, "-o", out, "-q");
	cr_assert_eq(r.status, 1, "a finding: %s", r.err);
	snprintf(path, sizeof(path), "%s/summary.json", out);
	RUN(&r, "store", "add", db, path, "--rev", "rev01", "--date", "2026-11-01T02:00:00Z");
	cr_assert_eq(r.status, 0, "%s", r.err);
	RUN(&r, "dash", db, "-o", site);
	cr_assert_eq(r.status, 0, "%s", r.err);

	page = slurp(path);
	sig = strstr(page, "\"signature\": \"");
	cr_assert_not_null(sig, "%s", page);
	sig += strlen("\"signature\": \"");
	cr_assert(strstr(page, "trace.faults.yaml"), "the reproducer replays the plan: %s", page);
	snprintf(path, sizeof(path), "%s/finding-%.16s.html", site, sig);
	l = browse(path, NULL);
	cr_assert_eq(l.console, 0);
	snprintf(text, sizeof(text), "<a href=\"findings-%.16s/\">", sig);
	cr_assert(strstr(l.dom, text), "the trimmed trace's files: %s", l.dom);
	cr_assert(strstr(l.dom, "<pre class=\"events\">"), "its events inline: %s", l.dom);
	snprintf(text, sizeof(text), "<a href=\"findings-%.16s.faults.yaml\">", sig);
	cr_assert(strstr(l.dom, text), "the plan, linked: %s", l.dom);
	cr_assert(strstr(l.dom, "<pre class=\"plan\">") && strstr(l.dom, "hits: ["),
		  "the plan inline: %s", l.dom);
	snprintf(path, sizeof(path), "%s/findings-%.16s.faults.yaml", site, sig);
	cr_assert_eq(access(path, R_OK), 0, "copied: %s", path);
	snprintf(path, sizeof(path), "%s/findings-%.16s/metadata", site, sig);
	cr_assert_eq(access(path, R_OK), 0, "the CTF copied: %s", path);
	free(l.dom);
	free(page);
}
