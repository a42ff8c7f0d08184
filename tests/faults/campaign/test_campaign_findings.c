/* SPDX-License-Identifier: MIT */
/*
 * Why each run of a campaign failed, and its findings: one signature for a
 * failure whether a campaign or a sweep found it, and runs that fail the
 * same way grouped into one finding. A folder per test as in
 * test_campaign.c (campaign_fixture.h).
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
#include "tests/common/jsonq.h"
#include "tests/faults/campaign/campaign_fixture.h"

TestSuite(campaign, .init = setup, .fini = teardown, .timeout = 120);

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
