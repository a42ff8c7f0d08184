/* SPDX-License-Identifier: MIT */
/*
 * What a sweep's failing runs become: findings grouped by cause, each with
 * a reproducer on a trimmed trace that fails the same way, one finding for
 * one cause met in many operations, and a base plan that reaches the
 * chunked save and its resets.
 */
#include <criterion/criterion.h>
#include <limits.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/json.h"
#include "core/scenario.h"
#include "faults/campaign/shard.h"
#include "faults/campaign/sweep.h"
#include "replay/replay.h"
#include "tests/common/jsonq.h"
#include "tests/faults/campaign/sweep_fixture.h"

TestSuite(sweep, .init = setup, .fini = teardown, .timeout = 240);

/* Run a reproduce command (gpuiso replay …): its exit status and whether its output says @what. */
static int run_reproducer(const char *repro, const char *what, bool *said)
{
	const char *bin = getenv("GPUISO_BIN");
	char cmd[8192], line[1024];
	FILE *p;
	int status;

	cr_assert_not_null(bin, "GPUISO_BIN must be set");
	snprintf(cmd, sizeof(cmd), "%s%s 2>&1", bin, repro + strlen("gpuiso"));
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	*said = false;
	while (fgets(line, sizeof(line), p))
		*said |= strstr(line, what) != NULL;
	status = pclose(p);
	cr_assert(WIFEXITED(status), "%s: died", repro);
	return WEXITSTATUS(status);
}

/*
 * Thousands of failing runs, a handful of findings: each titled with its
 * code, its runs adding up to the failures, and a reproducer on a trimmed
 * trace of at most 1% of the events that breaks the same way.
 */
Test(sweep, failing_runs_are_findings_with_trimmed_reproducers)
{
	const char *root = getenv("GPUISO_SOURCE_ROOT");
	char *trace = trace_gen("pc2000", 2000, 1), *out = path_in_tmp("findings"), *scn, *fs, *doc;
	char path[96], val[4096], title[512], code[64], outcome[32];
	uint64_t runs = 0, failures = 0;
	struct sweep_totals t;
	size_t i;

	cr_assert_not_null(root, "GPUISO_SOURCE_ROOT must be set");
	cr_assert(asprintf(&scn, "%s/traces/scenarios/lda-chain.yaml", root) > 0);
	fs = sweep(trace, scn, NULL, PERSIST, out, &t);
	doc = slurp(fs);
	cr_assert(jsonq_valid(doc));
	for (; snprintf(path, sizeof(path), "failures.%llu.point", (unsigned long long)failures),
	       jsonq_get(doc, path, val, sizeof(val)); failures++)
		;
	cr_assert_eq(failures, t.reset + t.violation + t.crash + t.hung);
	cr_assert_gt(failures, 200, "the trace is known to fail hundreds of runs");
	cr_assert(t.findings >= 2 && t.findings <= 12, "%zu findings", t.findings);
	for (i = 0; snprintf(path, sizeof(path), "findings.%zu.title", i),
		    jsonq_get(doc, path, title, sizeof(title)); i++) {
		char repro[4096], trimmed[4096], blame[16];
		uint64_t events, of;
		bool said;
		int rc;

		text_unescape(title);
		snprintf(path, sizeof(path), "findings.%zu.outcome", i);
		cr_assert(jsonq_get(doc, path, outcome, sizeof(outcome)));
		snprintf(path, sizeof(path), "findings.%zu.code", i);
		cr_assert(jsonq_get(doc, path, code, sizeof(code)));
		snprintf(path, sizeof(path), "findings.%zu.blame", i);
		cr_assert(jsonq_get(doc, path, blame, sizeof(blame)));
		cr_assert(!strcmp(blame, "fault") || !strcmp(blame, "driver") ||
			  !strcmp(blame, "model"), "%s", blame);
		runs += get_u64(doc, "findings.%s.runs", (snprintf(val, sizeof(val), "%zu", i), val));
		/* the title names what broke: the code, or the reset */
		if (!strcmp(outcome, "violation")) {
			cr_assert_neq(strcmp(code, "null"), 0, "%s: no code", title);
			text_unescape(code);
			cr_assert(strstr(title, code), "%s does not name %s", title, code);
		} else {
			cr_assert_str_eq(outcome, "reset", "%s", title);
			cr_assert(strstr(title, "adapter reset"), "%s", title);
		}
		/* trimmed to at most 1% of the events, and it reproduces */
		snprintf(path, sizeof(path), "findings.%zu.trimmed.trace", i);
		cr_assert(jsonq_get(doc, path, trimmed, sizeof(trimmed)), "%s: not trimmed", title);
		events = get_u64(doc, "findings.%s.trimmed.events", val);
		of = get_u64(doc, "findings.%s.trimmed.of", val);
		cr_assert_eq(of, 2000);
		cr_assert_leq(events * 100, of, "%s: %llu events kept", title, (unsigned long long)events);
		snprintf(path, sizeof(path), "findings.%zu.reproduce", i);
		cr_assert(jsonq_get(doc, path, repro, sizeof(repro)));
		text_unescape(repro);
		text_unescape(trimmed);
		cr_assert(strstr(repro, trimmed), "%s does not replay %s", repro, trimmed);
		{
			/* its events as text beside it, as trace dump writes them */
			char txt_path[4200], *txt;

			snprintf(txt_path, sizeof(txt_path), "%s.txt", trimmed);
			txt = slurp(txt_path);
			cr_assert_not_null(txt, "no %s", txt_path);
			cr_assert_eq(strncmp(txt, "# gpuiso workload trace, text form", 34), 0, "%s", txt);
			free(txt);
		}
		rc = run_reproducer(repro, !strcmp(outcome, "violation") ? code : "1 reset", &said);
		cr_assert_eq(rc, !strcmp(outcome, "violation") ? 1 : 0, "%s: exit %d", repro, rc);
		cr_assert(said, "%s: does not show %s", repro, code);
	}
	cr_assert_eq(i, t.findings);
	cr_assert_eq(runs, failures, "the findings hold %llu runs of %llu", (unsigned long long)runs,
		     (unsigned long long)failures);
	free(doc);
	free(fs);
	free(scn);
	free(out);
	free(trace);
}

/*
 * Every unmap of a 3,000-event power-cycle trace failed in turn: the leaks
 * they leave are one root cause, whatever operation the unmap was in, so
 * one finding with its contexts (not one per operation); the contexts hold
 * all its runs, and the text names them.
 */
Test(sweep, one_cause_in_many_operations_is_one_finding_with_contexts)
{
	char *trace = trace_gen("pc3000", 3000, 1), *out = path_in_tmp("contexts"), *fs, *doc, *txt;
	char path[96], val[512];
	uint64_t ctx_runs = 0;
	struct sweep_totals t;
	size_t n;

	fs = sweep(trace, NULL, "iommu/unmap", PERSIST, out, &t);
	doc = slurp(fs);
	free(fs);
	cr_assert(jsonq_valid(doc));
	cr_assert_eq(t.findings, 1, "%zu findings: %s", t.findings, doc);
	cr_assert(jsonq_get(doc, "findings.0.code", val, sizeof(val)));
	cr_assert_str_eq(val, "MAPPING_LEAK");
	cr_assert(jsonq_get(doc, "findings.0.key", val, sizeof(val)));
	cr_assert_str_eq(val, "iommu/unmap|violation|MAPPING_LEAK at teardown");
	for (n = 0; snprintf(path, sizeof(path), "findings.0.contexts.%zu.operation", n),
		    jsonq_get(doc, path, val, sizeof(val)); n++)
		ctx_runs += get_u64(doc, "findings.0.contexts.%s.runs",
				    (snprintf(val, sizeof(val), "%zu", n), val));
	cr_assert_geq(n, 5, "only %zu contexts", n);
	cr_assert_eq(ctx_runs, get_u64(doc, "findings.0.%s", "runs"));
	cr_assert_eq(ctx_runs, t.violation, "every failed unmap is in it");
	cr_assert(jsonq_get(doc, "findings.0.title", val, sizeof(val)));
	text_unescape(val);
	cr_assert(strstr(val, "iommu/unmap during ") && strstr(val, " more \u2192 MAPPING_LEAK"),
		  "%s", val);
	free(doc);
	cr_assert(asprintf(&fs, "%s/summary.txt", out) > 0);
	txt = slurp(fs);
	cr_assert(strstr(txt, "\n   in alloc_destroy (") && strstr(txt, "), free_mdl ("), "%s", txt);
	free(txt);
	free(fs);
	free(out);
	free(trace);
}

/* A sweep on a plan where every pin fails reaches the chunked save, and its resets. */
Test(sweep, a_base_plan_reaches_the_chunked_save_and_its_resets)
{
	char *trace = trace_gen("pc300", 300, 3), *scn = scenario_write("small.yaml", "1MiB");
	char *plain = path_in_tmp("plain"), *based = path_in_tmp("based"), *base = path_in_tmp("pin.yaml");
	char err[1024] = "", val[4096], repro[4096], *doc, *fs;
	struct sweep_opts o = { .trace = trace, .scenario = scn, .points = "fbsave/*", .jobs = 2 };
	struct sweep_totals t;
	FILE *f = fopen(base, "w");
	bool said, found = false;

	cr_assert_not_null(f);
	fputs("faults:\n  - {point: fbsave/pin, probability: 1}\n", f);
	cr_assert_eq(fclose(f), 0);
	/* alone, the trace never reaches a chunk: the sweep says so, and what would */
	fs = sweep(trace, scn, "fbsave/*", PERSIST, plain, &t);
	doc = slurp(fs);
	cr_assert_eq(get_u64(doc, "points.%s.hits", "fbsave/map_chunk"), 0);
	cr_assert(jsonq_get(doc, "unreached.0.point", val, sizeof(val)));
	cr_assert_str_eq(val, "fbsave/map_chunk");
	cr_assert(jsonq_get(doc, "unreached.0.hint", val, sizeof(val)));
	cr_assert(strstr(val, "fbsave/pin"), "%s", val);
	free(doc);
	free(fs);
	/* on the base plan it does: each chunk is hit, and failing one resets the adapter */
	o.out = based;
	o.faults = base;
	cr_assert_eq(sweep_run(&o, &t, err, sizeof(err)), 0, "%s", err);
	cr_assert(asprintf(&fs, "%s/summary.json", based) > 0);
	doc = slurp(fs);
	cr_assert_not(jsonq_get(doc, "points.fbsave/pin", val, sizeof(val)),
		      "a point the base plan arms was swept");
	cr_assert_gt(get_u64(doc, "points.%s.hits", "fbsave/map_chunk"), 0);
	cr_assert_gt(get_u64(doc, "points.%s.reset", "fbsave/map_chunk"), 0);
	cr_assert_not(jsonq_get(doc, "unreached.0.point", val, sizeof(val)));
	for (size_t i = 0; !found && snprintf(val, sizeof(val), "findings.%zu.title", i) &&
			   jsonq_get(doc, val, repro, sizeof(repro)); i++) {
		char path[64];

		text_unescape(repro);
		if (strncmp(repro, "fbsave/map_chunk during power", 29) || !strstr(repro, "adapter reset"))
			continue;
		found = true;
		snprintf(path, sizeof(path), "findings.%zu.reproduce", i);
		cr_assert(jsonq_get(doc, path, repro, sizeof(repro)));
		text_unescape(repro);
		cr_assert(strstr(repro, " --faults "), "%s", repro);
		cr_assert_eq(run_reproducer(repro, "1 reset", &said), 0, "%s", repro);
		cr_assert(said, "%s: no reset", repro);
	}
	cr_assert(found, "no finding for the chunk failures: %s", doc);
	/* the base plan's own point is not there to sweep */
	o.points = "fbsave/pin";
	cr_assert_eq(sweep_run(&o, &t, err, sizeof(err)), -EINVAL);
	cr_assert(strstr(err, "base plan"), "%s", err);
	free(doc);
	free(fs);
	free(base);
	free(based);
	free(plain);
	free(scn);
	free(trace);
}
