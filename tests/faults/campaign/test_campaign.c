/* SPDX-License-Identifier: MIT */
/*
 * Campaigns: good ones leave a results JSON per run, a summary that does not
 * depend on --jobs or on resuming, and for every failed run a command that
 * reproduces it; a crashed or hung run fails alone, and no run outlives a
 * killed campaign.
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
#include "tests/faults/campaign/campaign_fixture.h"

TestSuite(campaign, .init = setup, .fini = teardown, .timeout = 120);

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
