/* SPDX-License-Identifier: MIT */
/*
 * Campaigns: bad files are refused before anything runs; good ones leave a
 * results JSON per run, a summary that does not depend on --jobs or on
 * resuming, and for every failed run a command that reproduces it.
 *
 * Each test works in /tmp/gpuiso-campaign-<pid> (Criterion runs each test in
 * a process of its own), with small traces generated there: a 300-event
 * power-cycle trace replays in well under a second on default.yaml.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "faults/campaign/campaign.h"
#include "faults/campaign/shard.h"
#include "replay/ctf.h"
#include "tests/common/jsonq.h"
#include "tests/faults/campaign/procs.h"

#define CMD_LEN (4 * PATH_MAX)

static void work_dir(char *buf, size_t len)
{
	snprintf(buf, len, "/tmp/gpuiso-campaign-%d", (int)getpid());
}

/* work_dir()/@rel */
static void at(char *buf, size_t len, const char *rel)
{
	char dir[64];

	work_dir(dir, sizeof(dir));
	cr_assert_lt(snprintf(buf, len, "%s/%s", dir, rel), (int)len, "%s: too long", rel);
}

/* gpuiso, by its real path: the one reproduce commands name */
static const char *bin(void)
{
	static char path[PATH_MAX];
	const char *b = getenv("GPUISO_BIN");

	cr_assert(b && getenv("GPUISO_SOURCE_ROOT"), "GPUISO_BIN and GPUISO_SOURCE_ROOT must be set");
	cr_assert_not_null(realpath(b, path), "%s", b);
	return path;
}

static void setup(void)
{
	char dir[64], cache[128];

	work_dir(dir, sizeof(dir));
	cr_assert_eq(mkdir(dir, 0755), 0, "mkdir %s: %s", dir, strerror(errno));
	/* the replay cache of the generated traces goes away with them */
	at(cache, sizeof(cache), "cache");
	setenv("XDG_CACHE_HOME", cache, 1);
	/* relative paths in campaigns must not find anything from here */
	cr_assert_eq(chdir("/"), 0);
	/*
	 * With LTTNG_UST_REGISTER_TIMEOUT=0, main() runs while LTTng-UST's
	 * listener threads still allocate; a campaign forks its runs within
	 * milliseconds, and GCC 12's ASan allocator is not fork-safe: a child
	 * can inherit its lock held and hang. The default makes main() wait
	 * until those threads are parked (at once when no session daemon runs).
	 */
	unsetenv("LTTNG_UST_REGISTER_TIMEOUT");
}

static void teardown(void)
{
	char dir[64], cmd[128];

	work_dir(dir, sizeof(dir));
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd))
		fprintf(stderr, "could not remove %s\n", dir);
}

TestSuite(campaign, .init = setup, .fini = teardown, .timeout = 120);

/* Run a shell command; its exit status, and its stdout (and stderr) in @out. */
static int sh(const char *cmd, char *out, size_t len)
{
	FILE *p = popen(cmd, "r");
	size_t n = 0;
	int status;

	cr_assert_not_null(p, "popen %s", cmd);
	if (out) {
		n = fread(out, 1, len - 1, p);
		out[n] = '\0';
	}
	while (fgetc(p) != EOF)
		;
	status = pclose(p);
	cr_assert(WIFEXITED(status), "%s: died (status %#x)", cmd, status);
	return WEXITSTATUS(status);
}

/* A power-cycle trace of @events events in work_dir()/@name. */
static void gen_trace(const char *name, unsigned int events)
{
	char dir[PATH_MAX], cmd[CMD_LEN], out[4096];

	at(dir, sizeof(dir), name);
	snprintf(cmd, sizeof(cmd), "%s trace gen --profile power-cycle --events %u --seed 1 -o %s 2>&1",
		 bin(), events, dir);
	cr_assert_eq(sh(cmd, out, sizeof(out)), 0, "%s: %s", cmd, out);
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	cr_assert_not_null(f, "%s: %s", path, strerror(errno));
	fputs(text, f);
	cr_assert_eq(fclose(f), 0);
}

/* The whole file (free() it), or NULL when it cannot be read. */
static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t len = 0;
	FILE *m;
	int ch;

	if (!f)
		return NULL;
	m = open_memstream(&buf, &len);
	cr_assert_not_null(m);
	while ((ch = fgetc(f)) != EOF)
		fputc(ch, m);
	fclose(f);
	fclose(m);
	return buf;
}

static bool exists(const char *path)
{
	struct stat st;

	return !stat(path, &st);
}

/* A campaign file work_dir()/@name: the campaign: mapping's body is @body. */
static void write_campaign(const char *name, const char *body)
{
	char path[PATH_MAX], *text;

	at(path, sizeof(path), name);
	cr_assert(asprintf(&text, "campaign:\n%s", body) > 0);
	write_text(path, text);
	free(text);
}

/* The scenario every test campaign replays on (fast: one adapter). */
#define SCENARIO_FMT "%s/traces/scenarios/default.yaml"
#define SCENARIO_ARG getenv("GPUISO_SOURCE_ROOT")

/* Run campaign work_dir()/@file into work_dir()/@out through the library. */
static int run_lib(const char *file, const char *out, unsigned int jobs, FILE *progress,
		   struct campaign_totals *t, char *err, size_t errlen)
{
	char fpath[PATH_MAX], opath[PATH_MAX];
	struct campaign_opts o = { .file = fpath, .out = opath, .jobs = jobs, .progress = progress };

	at(fpath, sizeof(fpath), file);
	at(opath, sizeof(opath), out);
	return campaign_run(&o, t, err, errlen);
}

/* A JSON value at @path in @doc, which must be there. */
static void get(const char *doc, const char *path, char *out, size_t len)
{
	cr_assert(jsonq_get(doc, path, out, len), "no %s in %s", path, doc);
}

static char *summary_of(const char *out)
{
	char path[PATH_MAX], rel[PATH_MAX];
	char *doc;

	snprintf(rel, sizeof(rel), "%s/summary.json", out);
	at(path, sizeof(path), rel);
	doc = slurp(path);
	cr_assert_not_null(doc, "no %s", path);
	cr_assert(jsonq_valid(doc), "not JSON: %s", doc);
	return doc;
}

static void expect_totals(const char *doc, const char *runs, const char *passed,
			  const char *failed)
{
	char v[64];

	get(doc, "schema", v, sizeof(v));
	cr_assert_str_eq(v, "gpuiso-campaign/1");
	get(doc, "runs", v, sizeof(v));
	cr_assert_str_eq(v, runs, "runs: %s in %s", v, doc);
	get(doc, "passed", v, sizeof(v));
	cr_assert_str_eq(v, passed, "passed: %s in %s", v, doc);
	get(doc, "failed", v, sizeof(v));
	cr_assert_str_eq(v, failed, "failed: %s in %s", v, doc);
}

/*
 * Two runs over one small trace: one passes (chunked path), one leaks
 * mappings; half the unmaps fail, so how many depends on the seed.
 */
static void two_run_campaign(const char *name, const char *seeds)
{
	char trace[PATH_MAX], body[2 * PATH_MAX + 512];

	at(trace, sizeof(trace), "power-cycle");
	snprintf(body, sizeof(body),
		 "  name: two\n"
		 "  traces: [%s]\n"
		 "  scenario: " SCENARIO_FMT "\n"
		 "  seeds: %s\n"
		 "  runs:\n"
		 "    - {name: pin-fails, faults: [{point: fbsave/pin, probability: 1}]}\n"
		 "    - name: unmap-fails\n"
		 "      faults:\n"
		 "        - point: iommu/unmap\n"
		 "          probability: 50%%\n",
		 trace, SCENARIO_ARG, seeds);
	write_campaign(name, body);
}

/* ---- bad campaign files ------------------------------------------------------ */

Test(campaign, malformed_files_say_where_and_run_nothing)
{
	static const struct {
		const char *body, *where;
	} cases[] = {
		{ "  bogus: 1\n  traces: [TRACE]\n  runs: [{name: a}]\n",
		  "bad.yaml:2:3: error: campaign: unknown key 'bogus'" },
		{ "  seeds: [1, x]\n  traces: [TRACE]\n  runs: [{name: a}]\n",
		  "bad.yaml:2:14: error: campaign.seeds[1]: invalid integer 'x'" },
		{ "  traces: TRACE\n  runs: [{name: a}]\n",
		  "bad.yaml:2:11: error: campaign.traces: expected a sequence" },
		{ "  repetitions: 0\n  traces: [TRACE]\n  runs: [{name: a}]\n",
		  "bad.yaml:2:16: error: campaign.repetitions: takes 1 to 1000" },
		{ "  runs:\n    - name: a\n      faults: [{point: nope, probability: 1}]\n  traces: [TRACE]\n",
		  "bad.yaml:4:24: error: campaign.runs[0].faults[0].point: 'nope' names no injection point" },
		{ "  runs:\n    - name: a\n      pressure: [{at: {event: 5}, commit_available: 120%}]\n  traces: [TRACE]\n",
		  "bad.yaml:4:53: error: campaign.runs[0].pressure[0].commit_available: '120%' is not a percent" },
		{ "  invariants: [no_leaks, nonsense]\n  traces: [TRACE]\n  runs: [{name: a}]\n",
		  "bad.yaml:2:26: error: campaign.invariants[1]: unknown invariant 'nonsense'" },
		{ "  traces: [no-such-trace]\n  runs: [{name: a}]\n",
		  "bad.yaml:2:12: error: campaign.traces[0]: 'no-such-trace' is not a trace folder" },
		{ "  runs: [{name: a}, {name: a}]\n  traces: [TRACE]\n",
		  "bad.yaml:2:28: error: campaign.runs[1].name: run 'a' is named twice" },
		{ "  runs: [{faults: []}]\n  traces: [TRACE]\n",
		  "bad.yaml:2:10: error: campaign.runs[0]: a run needs a 'name'" },
		{ "  runs: [{name: a b}]\n  traces: [TRACE]\n",
		  "bad.yaml:2:17: error: campaign.runs[0].name: 'a b' is not a run name" },
		{ "  traces: [TRACE]\n", "bad.yaml:2:3: error: campaign: needs 'runs'" },
		{ "  trace_covers: all\n  runs: [{name: a}]\n  traces: [TRACE]\n",
		  "bad.yaml:2:17: error: campaign.trace_covers: takes window or life, not 'all'" },
	};
	char trace[PATH_MAX], out[PATH_MAX], err[8192];
	struct campaign_totals t;

	gen_trace("power-cycle", 300);
	at(trace, sizeof(trace), "power-cycle");
	at(out, sizeof(out), "out");
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char body[2 * PATH_MAX], *p;

		/* the trace goes last in every case, so positions do not depend on its path */
		snprintf(body, sizeof(body), "%s", cases[i].body);
		p = strstr(body, "TRACE");
		if (p) {
			char rest[PATH_MAX];

			snprintf(rest, sizeof(rest), "%s", p + 5);
			snprintf(p, sizeof(body) - (size_t)(p - body), "%s%s", trace, rest);
		}
		write_campaign("bad.yaml", body);
		cr_assert_eq(run_lib("bad.yaml", "out", 1, NULL, &t, err, sizeof(err)), -EINVAL,
			     "case %zu: %s", i, err);
		cr_assert(strstr(err, cases[i].where), "case %zu: expected '%s' in:\n%s", i,
			  cases[i].where, err);
		cr_assert_not(exists(out), "case %zu: %s was created", i, out);
		cr_assert_eq(t.runs, 0);
	}
}

Test(campaign, bad_file_exits_2_from_the_command)
{
	char cmd[CMD_LEN], file[PATH_MAX], out[PATH_MAX], text[8192];

	write_campaign("bad.yaml", "  traces: [nope]\n  runs: [{name: a}]\n  extra: 1\n");
	at(file, sizeof(file), "bad.yaml");
	at(out, sizeof(out), "out");
	snprintf(cmd, sizeof(cmd), "%s campaign run %s -o %s 2>&1", bin(), file, out);
	cr_assert_eq(sh(cmd, text, sizeof(text)), 2, "%s", text);
	cr_assert(strstr(text, "bad.yaml:2:12: error: campaign.traces[0]"), "%s", text);
	cr_assert(strstr(text, "bad.yaml:4:3: error: campaign: unknown key 'extra'"), "%s", text);
	cr_assert_not(exists(out));
	/* a missing campaign file is bad input too */
	snprintf(cmd, sizeof(cmd), "%s campaign run %s.missing -o %s 2>&1", bin(), file, out);
	cr_assert_eq(sh(cmd, text, sizeof(text)), 2, "%s", text);
	cr_assert(strstr(text, "cannot open"), "%s", text);
}

Test(campaign, sample_campaign_is_valid)
{
	char file[PATH_MAX], err[8192];
	struct campaign_opts o = { .file = file, .out = "/dev/null/out", .jobs = 1 };
	struct campaign_totals t;

	/* an output folder that cannot be made: the file is read, checked, and nothing runs */
	snprintf(file, sizeof(file), "%s/traces/campaigns/nightly-pin.yaml",
		 getenv("GPUISO_SOURCE_ROOT"));
	cr_assert_eq(campaign_run(&o, &t, err, sizeof(err)), -ENOTDIR, "%s", err);
	cr_assert(strstr(err, "cannot create the output folder"), "%s", err);
}

Test(campaign, check_reads_the_file_and_runs_nothing)
{
	char file[PATH_MAX], err[8192];

	snprintf(file, sizeof(file), "%s/traces/campaigns/nightly-pin.yaml",
		 getenv("GPUISO_SOURCE_ROOT"));
	cr_assert_eq(campaign_check(file, err, sizeof(err)), 0, "%s", err);
	cr_assert_str_eq(err, "");
	write_campaign("bad.yaml", "  traces: [nope]\n  runs: [{name: a}]\n");
	at(file, sizeof(file), "bad.yaml");
	cr_assert_eq(campaign_check(file, err, sizeof(err)), -EINVAL, "%s", err);
	cr_assert(strstr(err, "bad.yaml:2:12: error: campaign.traces[0]"), "%s", err);
}

/*
 * A seed listed twice is said at each repeat, the largest seed too; a
 * campaign of as many seeds as it may run reads at the pace of its file
 * (the check for repeats was quadratic: 6.5 million seeds, which are too
 * many runs, never got as far as being told so).
 */
Test(campaign, seeds_listed_twice_are_said_and_many_seeds_read, .timeout = 120)
{
	char file[PATH_MAX], err[8192], *body;
	FILE *m;
	size_t len;

	write_campaign("twice.yaml", "  traces: [../../traces/power-cycle]\n"
		       "  seeds: [1, 18446744073709551615, 2, 1, 18446744073709551615]\n"
		       "  runs: [{name: a}]\n");
	at(file, sizeof(file), "twice.yaml");
	cr_assert_eq(campaign_check(file, err, sizeof(err)), -EINVAL, "%s", err);
	cr_assert(strstr(err, "twice.yaml:3:39: error: campaign.seeds[3]: seed 1 is listed twice"),
		  "%s", err);
	cr_assert(strstr(err, "campaign.seeds[4]: seed 18446744073709551615 is listed twice"),
		  "%s", err);
	m = open_memstream(&body, &len);
	cr_assert_not_null(m);
	fprintf(m, "  traces: [%s/traces/power-cycle]\n  seeds: [", getenv("GPUISO_SOURCE_ROOT"));
	for (unsigned int i = 1; i <= 100000; i++)
		fprintf(m, "%s%u", i > 1 ? ", " : "", i);
	fprintf(m, "]\n  runs: [{name: a}]\n");
	cr_assert_eq(fclose(m), 0);
	write_campaign("many.yaml", body);
	free(body);
	at(file, sizeof(file), "many.yaml");
	cr_assert_eq(campaign_check(file, err, sizeof(err)), 0, "%s", err);
}

/* ---- good ones ---------------------------------------------------------------- */

Test(campaign, passing_campaign)
{
	char cmd[CMD_LEN], file[PATH_MAX], out[PATH_MAX], path[PATH_MAX], text[8192], v[256];
	char body[PATH_MAX + 512], *doc, *res;

	gen_trace("power-cycle", 300);
	/* the trace is relative: found from the campaign file's folder */
	snprintf(body, sizeof(body),
		 "  name: all-pass\n  traces: [power-cycle]\n  scenario: " SCENARIO_FMT "\n  seeds: [1, 2]\n"
		 "  runs:\n    - {name: pin-fails, faults: [{point: fbsave/pin, probability: 1}]}\n"
		 "  invariants: [no_leaks, no_stale_mappings, no_dma_to_unmapped, baseline_restored,"
		 " vram_restored, forward_progress]\n",
		 SCENARIO_ARG);
	write_campaign("pass.yaml", body);
	at(file, sizeof(file), "pass.yaml");
	at(out, sizeof(out), "out");
	snprintf(cmd, sizeof(cmd), "%s campaign run %s -o %s 2>&1", bin(), file, out);
	cr_assert_eq(sh(cmd, text, sizeof(text)), 0, "%s", text);
	cr_assert(strstr(text, "2 runs (0 resumed), 2 passed, 0 failed"), "%s", text);

	doc = summary_of("out");
	expect_totals(doc, "2", "2", "0");
	get(doc, "name", v, sizeof(v));
	cr_assert_str_eq(v, "all-pass");
	cr_assert_not(jsonq_get(doc, "failures.0", v, sizeof(v)), "%s", doc);
	free(doc);

	/* each run has its results: the pin failed every time, the chunked path saved the day */
	for (int seed = 1; seed <= 2; seed++) {
		snprintf(v, sizeof(v), "out/runs/pin-fails-power-cycle-s%d.json", seed);
		at(path, sizeof(path), v);
		res = slurp(path);
		cr_assert_not_null(res, "no %s", path);
		cr_assert(jsonq_valid(res));
		get(res, "run.seed", v, sizeof(v));
		cr_assert_eq(atoi(v), seed);
		get(res, "power.pinned", v, sizeof(v));
		cr_assert_str_eq(v, "0", "%s", res);
		get(res, "power.chunked", v, sizeof(v));
		cr_assert_neq(atoi(v), 0, "%s", res);
		get(res, "invariants.no_stale_mappings", v, sizeof(v));
		cr_assert_str_eq(v, "true");
		free(res);
		snprintf(v, sizeof(v), "out/runs/pin-fails-power-cycle-s%d.faults.yaml", seed);
		at(path, sizeof(path), v);
		cr_assert(exists(path), "no %s", path);
	}
	at(path, sizeof(path), "out/summary.txt");
	res = slurp(path);
	cr_assert_not_null(res);
	cr_assert(strstr(res, "pin-fails  power-cycle  2     passed"), "%s", res);
	free(res);
}

/* @cmd, which names the binary that ran it, with @extra after it. */
static void with_bin(char *buf, size_t len, const char *cmd, const char *extra)
{
	cr_assert(!strncmp(cmd, bin(), strlen(bin())) &&
		  !strncmp(cmd + strlen(bin()), " replay ", 8), "%s", cmd);
	snprintf(buf, len, "%s%s", cmd, extra);
}

Test(campaign, failing_run_reproduces)
{
	char cmd[CMD_LEN], file[PATH_MAX], out[PATH_MAX], path[PATH_MAX], repro[CMD_LEN];
	char text[65536], v[1024], w[1024], reason[1024];
	static const char *const same[] = {
		"faults.violations.0.code",  "faults.violations.0.event",
		"faults.violations.0.detail", "faults.injected.iommu/unmap",
		"invariants.no_stale_mappings", "run.seed",
		"run.faults", "power.transitions",
	};
	char *doc, *ran, *again;

	gen_trace("power-cycle", 300);
	two_run_campaign("fail.yaml", "[3]");
	at(file, sizeof(file), "fail.yaml");
	at(out, sizeof(out), "out");
	snprintf(cmd, sizeof(cmd), "%s campaign run %s -o %s --jobs 2 2>&1", bin(), file, out);
	cr_assert_eq(sh(cmd, text, sizeof(text)), 1, "%s", text);

	doc = summary_of("out");
	expect_totals(doc, "2", "1", "1");
	get(doc, "failures.0.run", v, sizeof(v));
	cr_assert_str_eq(v, "unmap-fails");
	get(doc, "failures.0.seed", v, sizeof(v));
	cr_assert_str_eq(v, "3");
	get(doc, "failures.0.id", v, sizeof(v));
	cr_assert_str_eq(v, "unmap-fails-power-cycle-s3");
	get(doc, "failures.0.reason", reason, sizeof(reason));
	cr_assert(strstr(reason, "invariant no_stale_mappings broken"), "%s", reason);
	cr_assert(strstr(reason, "MAPPING_LEAK"), "%s", reason);
	cr_assert_not(jsonq_get(doc, "failures.1", v, sizeof(v)));
	get(doc, "failures.0.reproduce", repro, sizeof(repro));
	free(doc);

	/* the command, as given, fails the same way */
	with_bin(cmd, sizeof(cmd), repro, " 2>&1");
	cr_assert_eq(sh(cmd, text, sizeof(text)), 1, "%s\n%s", cmd, text);
	cr_assert(strstr(text, "MAPPING_LEAK at event"), "%s", text);
	cr_assert(strstr(text, "invariant broken: no_stale_mappings"), "%s", text);

	/* and it is the same run: same violation, same failures injected */
	at(path, sizeof(path), "again.json");
	snprintf(text, sizeof(text), " --json %s >/dev/null 2>&1", path);
	with_bin(cmd, sizeof(cmd), repro, text);
	cr_assert_eq(sh(cmd, NULL, 0), 1, "%s", cmd);
	again = slurp(path);
	at(path, sizeof(path), "out/runs/unmap-fails-power-cycle-s3.json");
	ran = slurp(path);
	cr_assert(ran && again && jsonq_valid(ran) && jsonq_valid(again));
	for (size_t i = 0; i < sizeof(same) / sizeof(same[0]); i++) {
		get(ran, same[i], v, sizeof(v));
		get(again, same[i], w, sizeof(w));
		cr_assert_str_eq(v, w, "%s: campaign %s, reproduce %s", same[i], v, w);
	}
	free(ran);
	free(again);
}

static int leaky_next(void *ctx, struct wl_event *e)
{
	unsigned int *n = ctx;

	if (*n == 2)
		return 0;
	++*n;
	*e = (struct wl_event){ .ts = 1000 * *n, .kind = WL_ALLOC_MDL,
				.v = { [WL_ID] = *n, [WL_BYTES] = 4096 } };
	return 1;
}

/*
 * A trace that never frees its two MDLs: a window by default (the run
 * passes, its leftovers counted), leaks with trace_covers: life, which the
 * reproduce command says too; changing the key reruns finished runs.
 */
Test(campaign, trace_covers_decides_whether_leftovers_fail_a_run)
{
	char cmd[CMD_LEN], file[PATH_MAX], trace[PATH_MAX], path[PATH_MAX], repro[CMD_LEN];
	char out[PATH_MAX], again[CMD_LEN], body[PATH_MAX + 256], text[65536], v[1024], err[256] = "";
	unsigned int n = 0;
	char *doc, *res;

	at(trace, sizeof(trace), "leaky");
	cr_assert_eq(ctf_write(trace, leaky_next, &n, err, sizeof(err)), 0, "%s", err);
	at(file, sizeof(file), "covers.yaml");
	at(out, sizeof(out), "out");
	snprintf(cmd, sizeof(cmd), "%s campaign run %s -o %s 2>&1", bin(), file, out);
	for (int life = 0; life < 2; life++) {
		snprintf(body, sizeof(body), "  traces: [leaky]\n  runs: [{name: plain}]\n%s",
			 life ? "  trace_covers: life\n" : "");
		write_campaign("covers.yaml", body);
		cr_assert_eq(sh(cmd, text, sizeof(text)), life, "%s", text);
		cr_assert(strstr(text, life ? "1 runs (0 resumed), 0 passed, 1 failed" :
					      "1 runs (0 resumed), 1 passed, 0 failed"), "%s", text);
		doc = summary_of("out");
		get(doc, "trace_covers", v, sizeof(v));
		cr_assert_str_eq(v, life ? "life" : "window");
		at(path, sizeof(path), "out/runs/plain-leaky-s0.json");
		res = slurp(path);
		cr_assert_not_null(res);
		get(res, "run.trace_covers", v, sizeof(v));
		cr_assert_str_eq(v, life ? "life" : "window");
		get(res, "events.left_live", v, sizeof(v));
		cr_assert_str_eq(v, "2");
		free(res);
		if (!life) {
			free(doc);
			continue;
		}
		get(doc, "failures.0.reason", v, sizeof(v));
		cr_assert(strstr(v, "invariant no_leaks broken; 2 violations: HANDLE_LEAK at event 0 "
				    "(id 1 created by alloc_mdl at 1000 ns: "), "%s", v);
		get(doc, "failures.0.reproduce", repro, sizeof(repro));
		cr_assert(strstr(repro, " --trace-covers life"), "%s", repro);
		/* no fault was injected, and the record says so */
		get(doc, "failures.0.injected", v, sizeof(v));
		cr_assert_str_eq(v, "null");
		get(doc, "failures.0.injected_known", v, sizeof(v));
		cr_assert_str_eq(v, "true");
		get(doc, "findings.0.title", v, sizeof(v));
		cr_assert_str_eq(v, "no fault injected \u2192 HANDLE_LEAK at teardown");
		free(doc);
		with_bin(again, sizeof(again), repro, " 2>&1");
		cr_assert_eq(sh(again, text, sizeof(text)), 1, "%s\n%s", again, text);
		cr_assert(strstr(text, "left live by the trace: 2 objects, leaked"), "%s", text);
	}
}

/* ---- why each run failed, and findings ----------------------------------------- */

/*
 * The same failure found by a campaign (its first unmap fails) and by a
 * sweep (the run that fails unmap hit 1) is one finding: one signature, so
 * that the store and the dashboard see one thing whichever found it.
 */
Test(campaign, a_campaign_and_a_sweep_give_a_failure_one_signature)
{
	char trace[PATH_MAX], body[2 * PATH_MAX + 256], err[4096], cmd[CMD_LEN], log[8192];
	char sweep[PATH_MAX], csig[32], ckey[256], path[64], v[256];
	struct campaign_totals t;
	bool same = false;
	char *doc;

	gen_trace("power-cycle", 300);
	at(trace, sizeof(trace), "power-cycle");
	snprintf(body, sizeof(body),
		 "  traces: [%s]\n  scenario: " SCENARIO_FMT "\n  seeds: [1]\n"
		 "  runs:\n    - {name: first-unmap-fails, faults: [{point: iommu/unmap, nth: 1}]}\n",
		 trace, SCENARIO_ARG);
	write_campaign("one.yaml", body);
	cr_assert_eq(run_lib("one.yaml", "camp", 1, NULL, &t, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(t.findings, 1);
	doc = summary_of("camp");
	get(doc, "findings.0.signature", csig, sizeof(csig));
	get(doc, "findings.0.key", ckey, sizeof(ckey));
	free(doc);
	cr_assert(strstr(ckey, "|violation|"), "%s", ckey);

	at(sweep, sizeof(sweep), "sweep");
	snprintf(cmd, sizeof(cmd), "%s sweep %s --scenario " SCENARIO_FMT " --points iommu/unmap "
		 "-o %s -q 2>&1", bin(), trace, SCENARIO_ARG, sweep);
	cr_assert_eq(sh(cmd, log, sizeof(log)), 1, "%s", log);
	doc = summary_of("sweep");
	for (int i = 0; !same; i++) {
		snprintf(path, sizeof(path), "findings.%d.nth.min", i);
		cr_assert(jsonq_get(doc, path, v, sizeof(v)), "no finding of hit 1: %s", doc);
		if (strcmp(v, "1"))
			continue;
		snprintf(path, sizeof(path), "findings.%d.signature", i);
		get(doc, path, v, sizeof(v));
		cr_assert_str_eq(v, csig, "the campaign's key: %s", ckey);
		same = true;
	}
	free(doc);
}

/*
 * Three seeds of a run that fails every unmap (seeds do not change an nth
 * rule: the three runs break the same way) and one that passes: the
 * three are one finding, each failure says where it injected and what it
 * found.
 */
Test(campaign, runs_that_fail_the_same_way_are_one_finding)
{
	char trace[PATH_MAX], body[2 * PATH_MAX + 512], err[4096], key[64], v[1024], ts[64];
	char cmd[CMD_LEN], file[PATH_MAX], out[PATH_MAX], text[8192], path[PATH_MAX];
	struct campaign_totals t;
	char *doc, *res;

	gen_trace("power-cycle", 300);
	at(trace, sizeof(trace), "power-cycle");
	snprintf(body, sizeof(body),
		 "  traces: [%s]\n  scenario: " SCENARIO_FMT "\n  seeds: [1, 2, 3]\n"
		 "  runs:\n"
		 "    - {name: pin-fails, faults: [{point: fbsave/pin, probability: 1}]}\n"
		 "    - {name: unmaps-fail, faults: [{point: iommu/unmap, nth: 1, every: 1}]}\n",
		 trace, SCENARIO_ARG);
	write_campaign("same.yaml", body);
	cr_assert_eq(run_lib("same.yaml", "out", 2, NULL, &t, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(t.failed, 3);
	cr_assert_eq(t.findings, 1);

	doc = summary_of("out");
	expect_totals(doc, "6", "3", "3");
	get(doc, "findings.0.title", v, sizeof(v));
	cr_assert_str_eq(v, "iommu/unmap during free_mdl \u2192 MAPPING_LEAK at teardown");
	get(doc, "findings.0.blame", v, sizeof(v));
	cr_assert_str_eq(v, "fault");
	get(doc, "findings.0.runs", v, sizeof(v));
	cr_assert_str_eq(v, "3");
	get(doc, "findings.0.outcome", v, sizeof(v));
	cr_assert_str_eq(v, "violation", "named as a sweep names it");
	/* trimmed, its draws held where they fell: a plan of hits beside the trimmed trace */
	get(doc, "findings.0.trimmed.of", v, sizeof(v));
	cr_assert_str_eq(v, "300");
	get(doc, "findings.0.trimmed.events", v, sizeof(v));
	cr_assert_lt(strtoull(v, NULL, 10), 300, "%s", v);
	get(doc, "findings.0.trimmed.reproduce_whole", v, sizeof(v));
	cr_assert(strstr(v, "/runs/unmaps-fail-power-cycle-s1.faults.yaml --seed 1"), "%s", v);
	get(doc, "findings.0.reproduce", v, sizeof(v));
	cr_assert(strstr(v, "/findings/") && strstr(v, "/trace.faults.yaml") &&
		  !strstr(v, "--seed"), "%s", v);
	cr_assert(!strncmp(v, "gpuiso ", 7), "%s", v);
	snprintf(cmd, sizeof(cmd), "%s %s 2>&1", bin(), v + 7);
	cr_assert_eq(sh(cmd, text, sizeof(text)), 1, "%s\n%s", cmd, text);
	cr_assert(strstr(text, "MAPPING_LEAK"), "%s", text);
	cr_assert_not(jsonq_get(doc, "findings.0.nth", v, sizeof(v)), "a campaign has no hits");
	cr_assert_not(jsonq_get(doc, "findings.1", v, sizeof(v)), "%s", doc);

	for (int i = 0; i < 3; i++) {
		snprintf(key, sizeof(key), "failures.%d.injected.point", i);
		get(doc, key, v, sizeof(v));
		cr_assert_str_eq(v, "iommu/unmap");
		snprintf(key, sizeof(key), "failures.%d.injected.nth", i);
		get(doc, key, v, sizeof(v));
		cr_assert_str_eq(v, "1");
		snprintf(key, sizeof(key), "failures.%d.injected.operation", i);
		get(doc, key, v, sizeof(v));
		cr_assert_str_eq(v, "free_mdl");
		snprintf(key, sizeof(key), "failures.%d.injected.site", i);
		get(doc, key, v, sizeof(v));
		cr_assert_str_eq(v, "dom_unmap");
		snprintf(key, sizeof(key), "failures.%d.injected.ts_ns", i);
		get(doc, key, v, sizeof(v));
		cr_assert_gt(strtoull(v, NULL, 10), 0, "%s", v);
		snprintf(key, sizeof(key), "failures.%d.verdict_recorded", i);
		get(doc, key, v, sizeof(v));
		cr_assert_str_eq(v, "true");
		snprintf(key, sizeof(key), "failures.%d.findings.0.code", i);
		get(doc, key, v, sizeof(v));
		cr_assert_str_eq(v, "MAPPING_LEAK");
		snprintf(key, sizeof(key), "failures.%d.invariants_broken.0", i);
		get(doc, key, v, sizeof(v));
		cr_assert_str_eq(v, "no_stale_mappings");
	}
	/* the finding's time is the run's own: the results JSON says the same */
	get(doc, "failures.0.findings.0.ts_ns", ts, sizeof(ts));
	get(doc, "failures.0.findings_total", v, sizeof(v));
	cr_assert_str_eq(v, "1");
	at(path, sizeof(path), "out/runs/unmaps-fail-power-cycle-s1.json");
	res = slurp(path);
	cr_assert(res && jsonq_valid(res));
	get(res, "faults.violations.0.ts_ns", v, sizeof(v));
	cr_assert_str_eq(ts, v);
	free(res);
	free(doc);

	/* the text has the finding first, and the command says how many */
	at(path, sizeof(path), "out/summary.txt");
	doc = slurp(path);
	cr_assert_not_null(doc);
	cr_assert(strstr(doc, "3 failed, 1 finding\n\nexpected: what the injected faults cause "
			 "(blame: fault)\n\n1. iommu/unmap during free_mdl \u2192 MAPPING_LEAK at "
			 "teardown\n   blame: fault; 3 runs\n   reproduce: gpuiso replay "),
		  "%s", doc);
	cr_assert_lt(strstr(doc, "1. iommu/unmap"), strstr(doc, "run "), "%s", doc);
	free(doc);
	at(file, sizeof(file), "same.yaml");
	at(out, sizeof(out), "again");
	snprintf(cmd, sizeof(cmd), "%s campaign run %s -o %s 2>&1", bin(), file, out);
	cr_assert_eq(sh(cmd, text, sizeof(text)), 1, "%s", text);
	cr_assert(strstr(text, "6 runs (0 resumed), 3 passed, 3 failed, 1 finding; "), "%s", text);
}

/* The outcome record of work_dir()/@rel as the previous gpuiso wrote it: its first five lines. */
static void record_of_old(const char *rel)
{
	char path[PATH_MAX], key[64], results[64], what[16], reason[1024], text[2048];
	FILE *f;

	at(path, sizeof(path), rel);
	f = fopen(path, "r");
	cr_assert_not_null(f, "%s: %s", path, strerror(errno));
	cr_assert(fgets(text, sizeof(text), f) && !strcmp(text, "gpuiso-campaign-run/1\n"), "%s", text);
	cr_assert(fgets(key, sizeof(key), f) && fgets(results, sizeof(results), f) &&
		  fgets(what, sizeof(what), f) && fgets(reason, sizeof(reason), f));
	cr_assert(fgets(text, sizeof(text), f) && !strncmp(text, "verdict ", 8),
		  "the record has no verdict: %s", text);
	fclose(f);
	snprintf(text, sizeof(text), "gpuiso-campaign-run/1\n%s%s%s%s", key, results, what, reason);
	write_text(path, text);
}

/*
 * A campaign whose records were written before they kept verdicts still
 * resumes, and its summary says what is not recorded instead of making it
 * up: no verdict, no injection, and a finding that says so.
 */
Test(campaign, records_without_a_verdict_still_resume)
{
	char err[4096], v[1024], path[PATH_MAX];
	struct campaign_totals t;
	char *doc, *lines = NULL;
	size_t len = 0;
	FILE *progress;

	gen_trace("power-cycle", 300);
	two_run_campaign("old.yaml", "[3]");
	cr_assert_eq(run_lib("old.yaml", "out", 1, NULL, &t, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(t.failed, 1);
	doc = summary_of("out");
	get(doc, "findings.0.title", v, sizeof(v));
	cr_assert(!strncmp(v, "iommu/unmap during ", 19), "%s", v);
	free(doc);

	record_of_old("out/runs/unmap-fails-power-cycle-s3.outcome");
	record_of_old("out/runs/pin-fails-power-cycle-s3.outcome");
	progress = open_memstream(&lines, &len);
	cr_assert_not_null(progress);
	cr_assert_eq(run_lib("old.yaml", "out", 1, progress, &t, err, sizeof(err)), 0, "%s", err);
	fclose(progress);
	cr_assert_eq(t.resumed, 2, "%s", lines);
	cr_assert_eq(t.failed, 1);
	cr_assert_eq(t.findings, 1);
	cr_assert(strstr(lines, "unmap-fails power-cycle s3: failed (resumed) (invariant "
				"no_stale_mappings broken"), "%s", lines);
	free(lines);

	doc = summary_of("out");
	get(doc, "failures.0.verdict_recorded", v, sizeof(v));
	cr_assert_str_eq(v, "false");
	get(doc, "failures.0.injected_known", v, sizeof(v));
	cr_assert_str_eq(v, "false");
	get(doc, "failures.0.injected", v, sizeof(v));
	cr_assert_str_eq(v, "null");
	cr_assert_not(jsonq_get(doc, "failures.0.findings", v, sizeof(v)), "%s", doc);
	cr_assert_not(jsonq_get(doc, "failures.0.invariants_broken", v, sizeof(v)), "%s", doc);
	get(doc, "failures.0.reason", v, sizeof(v));
	cr_assert(strstr(v, "MAPPING_LEAK"), "the reason is kept: %s", v);
	get(doc, "findings.0.title", v, sizeof(v));
	cr_assert_str_eq(v, "injection not recorded \u2192 failed");
	get(doc, "findings.0.point", v, sizeof(v));
	cr_assert_str_eq(v, "null");
	get(doc, "findings.0.code", v, sizeof(v));
	cr_assert_str_eq(v, "null");
	get(doc, "findings.0.runs", v, sizeof(v));
	cr_assert_str_eq(v, "1");
	free(doc);
	at(path, sizeof(path), "out/summary.txt");
	doc = slurp(path);
	cr_assert(doc && strstr(doc, "; verdict not recorded (an older gpuiso ran it)\n"), "%s",
		  doc ? doc : "(none)");
	free(doc);
}

/* The failures of a summary, without the paths that name its folder. */
static void failures_of(const char *doc, char *buf, size_t len)
{
	char v[1024], key[64];
	size_t off = 0;

	buf[0] = '\0';
	for (int i = 0;; i++) {
		static const char *const fields[] = { "run", "seed", "id", "reason" };

		snprintf(key, sizeof(key), "failures.%d", i);
		if (!jsonq_get(doc, key, v, sizeof(v)))
			break;
		for (size_t f = 0; f < sizeof(fields) / sizeof(fields[0]); f++) {
			snprintf(key, sizeof(key), "failures.%d.%s", i, fields[f]);
			get(doc, key, v, sizeof(v));
			off += (size_t)snprintf(buf + off, len - off, "%s|", v);
			cr_assert_lt(off, len);
		}
		off += (size_t)snprintf(buf + off, len - off, "\n");
	}
}

Test(campaign, jobs_do_not_change_the_summary)
{
	char err[4096], f1[8192], f2[8192];
	struct campaign_totals t1, t2;
	char *s1, *s2;

	gen_trace("power-cycle", 300);
	two_run_campaign("jobs.yaml", "[1, 2]");
	cr_assert_eq(run_lib("jobs.yaml", "one", 1, NULL, &t1, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(run_lib("jobs.yaml", "two", 2, NULL, &t2, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(t1.runs, 4);
	cr_assert_eq(t1.passed, 2);
	cr_assert_eq(t1.failed, 2);
	cr_assert_eq(t2.runs, t1.runs);
	cr_assert_eq(t2.passed, t1.passed);
	cr_assert_eq(t2.failed, t1.failed);
	s1 = summary_of("one");
	s2 = summary_of("two");
	expect_totals(s1, "4", "2", "2");
	expect_totals(s2, "4", "2", "2");
	failures_of(s1, f1, sizeof(f1));
	failures_of(s2, f2, sizeof(f2));
	cr_assert_str_eq(f1, f2);
	cr_assert(strstr(f1, "unmap-fails|1|unmap-fails-power-cycle-s1|"), "%s", f1);
	cr_assert(strstr(f1, "unmap-fails|2|unmap-fails-power-cycle-s2|"), "%s", f1);
	free(s1);
	free(s2);
}

static ino_t inode_of(const char *path)
{
	struct stat st;

	cr_assert_eq(stat(path, &st), 0, "%s: %s", path, strerror(errno));
	return st.st_ino;
}

Test(campaign, resume_runs_only_what_is_missing)
{
	char err[4096], pass[PATH_MAX], fail[PATH_MAX], summary[PATH_MAX];
	struct campaign_totals t;
	char *before, *after, *lines = NULL;
	size_t len = 0;
	FILE *progress;
	ino_t kept;

	gen_trace("power-cycle", 300);
	two_run_campaign("resume.yaml", "[1]");
	cr_assert_eq(run_lib("resume.yaml", "out", 1, NULL, &t, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(t.runs, 2);
	cr_assert_eq(t.resumed, 0);
	before = summary_of("out");
	at(pass, sizeof(pass), "out/runs/pin-fails-power-cycle-s1.json");
	at(fail, sizeof(fail), "out/runs/unmap-fails-power-cycle-s1.json");
	at(summary, sizeof(summary), "out/summary.json");
	kept = inode_of(pass);

	/* as if killed before the last run finished */
	cr_assert_eq(unlink(fail), 0);
	cr_assert_eq(unlink(summary), 0);
	progress = open_memstream(&lines, &len);
	cr_assert_not_null(progress);
	cr_assert_eq(run_lib("resume.yaml", "out", 2, progress, &t, err, sizeof(err)), 0, "%s", err);
	fclose(progress);
	cr_assert_eq(t.runs, 2);
	cr_assert_eq(t.resumed, 1);
	cr_assert_eq(t.passed, 1);
	cr_assert_eq(t.failed, 1);
	cr_assert(strstr(lines, "[1/2] pin-fails power-cycle s1: passed (resumed)\n"), "%s", lines);
	cr_assert(strstr(lines, "[2/2] unmap-fails power-cycle s1: failed (invariant no_stale_mappings"),
		  "%s", lines);
	cr_assert_eq(inode_of(pass), kept, "the finished run was run again");
	cr_assert(exists(fail));
	after = summary_of("out");
	cr_assert_str_eq(after, before);
	free(after);

	/* nothing left to do */
	cr_assert_eq(run_lib("resume.yaml", "out", 1, NULL, &t, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(t.resumed, 2);
	after = summary_of("out");
	cr_assert_str_eq(after, before);
	free(after);
	free(before);
	free(lines);
}

Test(campaign, corrupt_or_changed_runs_are_redone)
{
	char err[4096], json[PATH_MAX], trace[PATH_MAX], body[2 * PATH_MAX], v[64];
	struct campaign_totals t;
	struct stat st;
	char *res;

	gen_trace("power-cycle", 300);
	at(trace, sizeof(trace), "power-cycle");
	snprintf(body, sizeof(body),
		 "  traces: [%s]\n  scenario: " SCENARIO_FMT "\n  seeds: [5]\n"
		 "  runs: [{name: pin-fails, faults: [{point: fbsave/pin, probability: 1}]}]\n",
		 trace, SCENARIO_ARG);
	write_campaign("redo.yaml", body);
	cr_assert_eq(run_lib("redo.yaml", "out", 1, NULL, &t, err, sizeof(err)), 0, "%s", err);
	at(json, sizeof(json), "out/runs/pin-fails-power-cycle-s5.json");
	cr_assert_eq(stat(json, &st), 0);

	/* a results file cut short is not a finished run */
	cr_assert_eq(truncate(json, st.st_size / 2), 0);
	cr_assert_eq(run_lib("redo.yaml", "out", 1, NULL, &t, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(t.resumed, 0);
	cr_assert_eq(t.passed, 1);
	res = slurp(json);
	cr_assert(res && jsonq_valid(res));
	free(res);
	cr_assert_eq(run_lib("redo.yaml", "out", 1, NULL, &t, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(t.resumed, 1);

	/* nor is one of a run the campaign file no longer describes */
	snprintf(body, sizeof(body),
		 "  traces: [%s]\n  scenario: " SCENARIO_FMT "\n  seeds: [5]\n"
		 "  runs: [{name: pin-fails, faults: [{point: fbsave/pin, nth: 1}]}]\n",
		 trace, SCENARIO_ARG);
	write_campaign("redo.yaml", body);
	cr_assert_eq(run_lib("redo.yaml", "out", 1, NULL, &t, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(t.resumed, 0);
	res = slurp(json);
	cr_assert_not_null(res);
	get(res, "faults.injected.fbsave/pin", v, sizeof(v));
	cr_assert_str_eq(v, "1", "%s", res);
	free(res);
}

/*
 * A campaign of a short trace (300 events) and a long one (@big events) run
 * by `sh -c "@limits; exec gpuiso campaign run … --jobs 2 @options"`: the
 * long run dies (its reason starts with @reason), the short one finishes,
 * the campaign goes on and reports.
 */
static void the_long_run_dies(unsigned int big_events, const char *limits, const char *options,
			      const char *reason)
{
	char cmd[CMD_LEN], file[PATH_MAX], out[PATH_MAX], small[PATH_MAX], big[PATH_MAX];
	char body[3 * PATH_MAX], text[8192], v[1024], path[PATH_MAX];
	char *doc;

	gen_trace("small", 300);
	gen_trace("big", big_events);
	at(small, sizeof(small), "small");
	at(big, sizeof(big), "big");
	snprintf(body, sizeof(body),
		 "  traces: [%s, %s]\n  scenario: " SCENARIO_FMT "\n  seeds: [1]\n  runs: [{name: plain}]\n", small,
		 big, SCENARIO_ARG);
	write_campaign("dies.yaml", body);
	at(file, sizeof(file), "dies.yaml");
	at(out, sizeof(out), "out");
	snprintf(cmd, sizeof(cmd), "%s; exec %s campaign run %s -o %s --jobs 2 %s 2>&1", limits, bin(), file,
		 out, options);
	cr_assert_eq(sh(cmd, text, sizeof(text)), 1, "%s", text);
	doc = summary_of("out");
	expect_totals(doc, "2", "1", "1");
	get(doc, "failures.0.id", v, sizeof(v));
	cr_assert_str_eq(v, "plain-big-s1");
	get(doc, "failures.0.reason", v, sizeof(v));
	cr_assert(!strncmp(v, reason, strlen(reason)), "%s", v);
	get(doc, "failures.0.results", v, sizeof(v));
	cr_assert_str_eq(v, "null");
	get(doc, "failures.0.reproduce", v, sizeof(v));
	cr_assert(strstr(v, "--seed 1"), "%s", v);
	/* it died without saying where it injected or what it found */
	get(doc, "failures.0.injected_known", v, sizeof(v));
	cr_assert_str_eq(v, "false");
	get(doc, "failures.0.verdict_recorded", v, sizeof(v));
	cr_assert_str_eq(v, "true");
	cr_assert_not(jsonq_get(doc, "failures.0.findings", v, sizeof(v)), "%s", doc);
	get(doc, "findings.0.blame", v, sizeof(v));
	cr_assert_str_eq(v, "model");
	get(doc, "findings.0.runs", v, sizeof(v));
	cr_assert_str_eq(v, "1");
	free(doc);
	at(path, sizeof(path), "out/runs/plain-small-s1.json");
	cr_assert(exists(path));
	at(path, sizeof(path), "out/runs/plain-big-s1.json");
	cr_assert_not(exists(path));
}

/*
 * A real crash, without a hook in the code: under a 64 KiB file-size limit
 * the long replay (20,000 events) is killed by SIGXFSZ while it writes its
 * compiled replay cache (~180 KiB), the short one (a cache file of ~3 KiB,
 * results of ~7 KiB) finishes.
 */
Test(campaign, a_crash_fails_one_run_not_the_campaign)
{
	the_long_run_dies(20000, "ulimit -c 0; ulimit -f 64", "", "crashed: signal ");
}

/*
 * No hook in the code either: the long replay (3,000,000 events, about 3 s in
 * the test builds here, which are the ones this runs in) cannot end within
 * --run-timeout 1; the short one does. The long one is killed and fails as hung.
 */
Test(campaign, a_run_past_its_time_limit_fails_as_hung)
{
	the_long_run_dies(3000000, "true", "--run-timeout 1",
			  "hung: still running after 1 s (--run-timeout), killed");
}

/* ---- runs that hang, and a campaign that is killed ------------------------------ */

/* Seconds on CLOCK_MONOTONIC. */
static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Start `gpuiso campaign run work_dir()/@file -o work_dir()/out @options` (output in out.log). */
static pid_t start_campaign(const char *file, const char *options)
{
	char cmd[CMD_LEN], path[PATH_MAX], out[PATH_MAX], log[PATH_MAX];
	pid_t pid;

	at(path, sizeof(path), file);
	at(out, sizeof(out), "out");
	at(log, sizeof(log), "out.log");
	snprintf(cmd, sizeof(cmd), "%s campaign run %s -o %s %s >%s 2>&1", bin(), path, out, options,
		 log);
	pid = procs_start(cmd);
	cr_assert_gt(pid, 0);
	return pid;
}

/* Wait up to 10 s until @parent has @n runs going; their pids into @out. */
static void runs_of(pid_t parent, pid_t *out, size_t n)
{
	for (int i = 0; i < 2000; i++) {
		if (procs_children(parent, "campaign-run", out, n) == n)
			return;
		usleep(5000);
	}
	kill(parent, SIGKILL);
	cr_assert_fail("campaign %d never had %zu runs named campaign-run going", (int)parent, n);
}

/*
 * Without --run-timeout, a run that makes no progress is found by the
 * watchdog: the big trace's run (1,000,000 events, some seconds) is stopped
 * (SIGSTOP: a stopped process makes no progress, as a deadlocked one) while
 * it replays. Nothing else would ever end it. With --stall-timeout 2 it is
 * killed two seconds or so later (2 s, not 1: the small run must show its
 * first beat within the limit, on a loaded machine too) and fails as hung, with its reproduce
 * command; the campaign goes on to the small trace's run, and reports.
 */
Test(campaign, a_run_that_stops_moving_is_killed_as_hung)
{
	char trace[PATH_MAX], small[PATH_MAX], body[3 * PATH_MAX], v[1024], path[PATH_MAX];
	pid_t campaign, run;
	double t0, took;
	int status;
	char *doc;

	gen_trace("big", 1000000);
	gen_trace("small", 300);
	at(trace, sizeof(trace), "big");
	at(small, sizeof(small), "small");
	snprintf(body, sizeof(body),
		 "  traces: [%s, %s]\n  scenario: " SCENARIO_FMT "\n  seeds: [1]\n  runs: [{name: plain}]\n",
		 trace, small, SCENARIO_ARG);
	write_campaign("stall.yaml", body);
	campaign = start_campaign("stall.yaml", "--jobs 1 --stall-timeout 2");
	runs_of(campaign, &run, 1);
	cr_assert_eq(kill(run, SIGSTOP), 0);
	t0 = mono_s();
	if (!procs_wait(campaign, 30000, &status)) {
		kill(run, SIGKILL);
		kill(campaign, SIGKILL);
		waitpid(campaign, &status, 0);
		cr_assert_fail("the campaign still waits for its stopped run after 30 s");
	}
	took = mono_s() - t0;
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 1, "status %#x", status);
	/* 1 to 1.25 stall limits, and the small run: well under 10 s on any machine here */
	cr_assert_lt(took, 10.0, "found and finished after %.1f s", took);
	cr_assert_not(procs_alive(run), "the stopped run %d is still there", (int)run);
	doc = summary_of("out");
	expect_totals(doc, "2", "1", "1");
	get(doc, "hung", v, sizeof(v));
	cr_assert_str_eq(v, "1");
	get(doc, "failures.0.id", v, sizeof(v));
	cr_assert_str_eq(v, "plain-big-s1");
	get(doc, "failures.0.outcome", v, sizeof(v));
	cr_assert_str_eq(v, "hung");
	get(doc, "failures.0.reason", v, sizeof(v));
	cr_assert(!strncmp(v, "hung: no progress for 2 s (after ", 33), "%s", v);
	get(doc, "failures.0.results", v, sizeof(v));
	cr_assert_str_eq(v, "null");
	get(doc, "failures.0.reproduce", v, sizeof(v));
	cr_assert(strstr(v, "gpuiso replay ") && strstr(v, "--seed 1"), "%s", v);
	get(doc, "findings.0.title", v, sizeof(v));
	cr_assert_str_eq(v, "injection not recorded \u2192 hung");
	get(doc, "findings.0.outcome", v, sizeof(v));
	cr_assert_str_eq(v, "hung");
	free(doc);
	at(path, sizeof(path), "out/runs/plain-small-s1.json");
	cr_assert(exists(path));
	at(path, sizeof(path), "out/runs/plain-big-s1.outcome");
	doc = slurp(path);
	cr_assert(doc && strstr(doc, "\noutcome hung\n") &&
		  strstr(doc, "\nverdict none\ninjected unknown\n"), "%s", doc ? doc : "(none)");
	free(doc);
	at(path, sizeof(path), "out.log");
	doc = slurp(path);
	cr_assert(doc && strstr(doc, "1 passed, 1 failed (1 hung)"), "%s", doc ? doc : "(none)");
	free(doc);
}

/*
 * A campaign killed (SIGKILL: it can do nothing about it) while its two
 * runs replay takes them with it. This process is a child subreaper, so
 * the orphaned runs become its children and how they ended can be seen.
 */
Test(campaign, killing_the_campaign_leaves_no_run_behind)
{
	char trace[PATH_MAX], body[2 * PATH_MAX];
	pid_t campaign, runs[2];
	int status;

	cr_assert_eq(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
	gen_trace("big", 1000000);
	at(trace, sizeof(trace), "big");
	snprintf(body, sizeof(body),
		 "  traces: [%s]\n  scenario: " SCENARIO_FMT "\n  seeds: [1, 2]\n  runs: [{name: plain}]\n",
		 trace, SCENARIO_ARG);
	write_campaign("killed.yaml", body);
	campaign = start_campaign("killed.yaml", "--jobs 2");
	runs_of(campaign, runs, 2);
	cr_assert_eq(kill(campaign, SIGKILL), 0);
	cr_assert_eq(waitpid(campaign, &status, 0), campaign);
	for (size_t i = 0; i < 2; i++) {
		if (!procs_wait(runs[i], 5000, &status)) {
			kill(runs[i], SIGKILL); /* not left behind by a failing test either */
			waitpid(runs[i], &status, 0);
			cr_assert_fail("run %d outlived its campaign by 5 s", (int)runs[i]);
		}
		cr_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL, "status %#x", status);
	}
}

/* ---- shards and their merge ------------------------------------------------ */

/* Shard @i of @n of campaign work_dir()/@file into work_dir()/@out; its totals. */
static struct campaign_totals run_shard(const char *file, const char *out, uint32_t i, uint32_t n)
{
	char fpath[PATH_MAX], opath[PATH_MAX], err[4096] = "";
	struct campaign_opts o = { .file = fpath, .out = opath, .jobs = 2, .shard = { i, n } };
	struct campaign_totals t;

	at(fpath, sizeof(fpath), file);
	at(opath, sizeof(opath), out);
	cr_assert_eq(campaign_run(&o, &t, err, sizeof(err)), 0, "shard %u/%u: %s", i, n, err);
	return t;
}

/* gpuiso merge work_dir()/@out: its return, and its message in @err. */
static int merge_lib(const char *out, struct campaign_totals *t, char *err, size_t errlen)
{
	char opath[PATH_MAX];
	struct shard_header h;
	int rc;

	at(opath, sizeof(opath), out);
	*err = '\0';
	rc = shard_find(opath, &h, err, errlen);
	if (rc)
		return rc;
	cr_assert_str_eq(h.kind, "campaign");
	rc = campaign_merge(opath, &h, 1, NULL, NULL, t, err, errlen);
	shard_header_free(&h);
	return rc;
}

/* work_dir()/@out/@name and work_dir()/@ref/@name hold the same bytes. */
static void same_file(const char *out, const char *ref, const char *name)
{
	char a[PATH_MAX], b[PATH_MAX], rel[PATH_MAX];
	char *x, *y;

	snprintf(rel, sizeof(rel), "%s/%s", out, name);
	at(a, sizeof(a), rel);
	snprintf(rel, sizeof(rel), "%s/%s", ref, name);
	at(b, sizeof(b), rel);
	x = slurp(a);
	y = slurp(b);
	cr_assert(x && y, "%s or %s missing", a, b);
	cr_assert_str_eq(x, y, "%s and %s differ", a, b);
	free(x);
	free(y);
}

Test(campaign, shards_merge_into_the_summary_of_one_run)
{
	char err[4096], one[PATH_MAX], kept[PATH_MAX], outcome[PATH_MAX], summary[PATH_MAX];
	struct campaign_totals t, whole;
	unsigned int runs = 0;

	gen_trace("power-cycle", 300);
	two_run_campaign("shards.yaml", "[1, 2, 3]");
	/* the summary names its folder: one run into "out", kept aside, then the shards into "out" */
	cr_assert_eq(run_lib("shards.yaml", "out", 2, NULL, &whole, err, sizeof(err)), 0, "%s", err);
	at(one, sizeof(one), "out");
	at(kept, sizeof(kept), "one");
	cr_assert_eq(rename(one, kept), 0);
	for (uint32_t i = 0; i < 4; i++) {
		t = run_shard("shards.yaml", "out", i, 4);
		cr_assert_eq(t.resumed, 0);
		runs += t.shard_runs;
	}
	cr_assert_eq(runs, whole.runs, "the shards ran %u runs, not %u", runs, whole.runs);
	cr_assert_eq(merge_lib("out", &t, err, sizeof(err)), 0, "%s", err);
	cr_assert(t.runs == whole.runs && t.failed == whole.failed && t.findings == whole.findings);
	same_file("out", "one", "summary.json");
	same_file("out", "one", "summary.txt");

	/* a run's outcome lost: the merge names it and its shard, and writes no summary */
	at(outcome, sizeof(outcome), "out/runs/unmap-fails-power-cycle-s2.outcome");
	cr_assert_eq(unlink(outcome), 0);
	cr_assert_eq(merge_lib("out", &t, err, sizeof(err)), -ENODATA, "merged: %s", err);
	cr_assert(strstr(err, "merge: shard ") && strstr(err, "unmap-fails-power-cycle-s2"), "%s", err);
	cr_assert(strstr(err, "1 of its"), "%s", err);
	at(summary, sizeof(summary), "out/summary.json");
	cr_assert(!exists(summary), "an incomplete merge left a summary");
	/* its shard, started again, runs it alone */
	for (uint32_t i = 0, again = 0; i < 4; i++) {
		t = run_shard("shards.yaml", "out", i, 4);
		again += t.shard_runs - t.resumed;
		if (i == 3)
			cr_assert_eq(again, 1, "%u runs ran again", again);
	}
	cr_assert_eq(merge_lib("out", &t, err, sizeof(err)), 0, "%s", err);
	same_file("out", "one", "summary.json");
	same_file("out", "one", "summary.txt");

	/* the campaign changed since: its shards' runs are not its runs */
	two_run_campaign("shards.yaml", "[1, 2, 4]");
	cr_assert_eq(merge_lib("out", &t, err, sizeof(err)), -EINVAL, "merged: %s", err);
	cr_assert(strstr(err, "changed since its shards ran"), "%s", err);
}

/*
 * Shard 0's file is another campaign's (copied in): the merge names it and
 * the campaign it is of, and refuses, rather than take that campaign's
 * runs for this folder's and call them missing.
 */
Test(campaign, a_foreign_shard_file_is_named_and_not_taken_on)
{
	char err[4096], from[PATH_MAX], to[PATH_MAX], other[PATH_MAX], summary[PATH_MAX];
	struct campaign_totals t;

	gen_trace("power-cycle", 300);
	two_run_campaign("this.yaml", "[1]");
	two_run_campaign("that.yaml", "[7]");
	run_shard("this.yaml", "out", 0, 2);
	run_shard("this.yaml", "out", 1, 2);
	run_shard("that.yaml", "other", 0, 2);
	at(from, sizeof(from), "other/shards/0-of-2");
	at(to, sizeof(to), "out/shards/0-of-2");
	cr_assert_eq(rename(from, to), 0);
	at(other, sizeof(other), "that.yaml");

	cr_assert_eq(merge_lib("out", &t, err, sizeof(err)), -EINVAL, "merged: %s", err);
	cr_assert(strstr(err, "shard files of 2 different works"), "%s", err);
	cr_assert(strstr(err, "/shards/0-of-2: campaign work ") && strstr(err, other), "%s", err);
	cr_assert(strstr(err, "/shards/1-of-2: campaign work ") && strstr(err, "this.yaml"), "%s",
		  err);
	cr_assert_null(strstr(err, "missing"), "%s", err);
	at(summary, sizeof(summary), "out/summary.json");
	cr_assert(!exists(summary), "a summary of either campaign was written");
	/* the shard of this campaign run again rewrites its file: the merge is whole */
	run_shard("this.yaml", "out", 0, 2);
	cr_assert_eq(merge_lib("out", &t, err, sizeof(err)), 0, "%s", err);
	cr_assert(exists(summary));
}

Test(campaign, a_shard_exits_0_and_the_merge_judges)
{
	char file[PATH_MAX], out[PATH_MAX], cmd[CMD_LEN], log[8192];
	int status;

	gen_trace("power-cycle", 300);
	two_run_campaign("cli.yaml", "[1]");
	at(file, sizeof(file), "cli.yaml");
	at(out, sizeof(out), "cli");
	for (int i = 0; i < 2; i++) {
		snprintf(cmd, sizeof(cmd), "%s campaign run %s -o %s --shard %d/2 2>&1", bin(), file, out, i);
		status = sh(cmd, log, sizeof(log));
		cr_assert_eq(status, 0, "%s: exit %d: %s", cmd, status, log);
		cr_assert(strstr(log, "campaign: shard "), "%s", log);
	}
	snprintf(cmd, sizeof(cmd), "%s merge %s 2>&1", bin(), out);
	status = sh(cmd, log, sizeof(log));
	cr_assert_eq(status, 1, "exit %d: %s", status, log);
	cr_assert(strstr(log, "2 runs (0 resumed), 1 passed, 1 failed"), "%s", log);
	snprintf(cmd, sizeof(cmd), "%s campaign run %s -o %s --shard 1/0 2>&1", bin(), file, out);
	status = sh(cmd, log, sizeof(log));
	cr_assert_eq(status, 2, "exit %d: %s", status, log);
}
