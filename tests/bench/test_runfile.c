/* SPDX-License-Identifier: MIT */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench/runfile.h"

static char dir[] = "/tmp/gpuiso-runfile-XXXXXX";

static void setup(void)
{
	strcpy(dir, "/tmp/gpuiso-runfile-XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
}

static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	cr_assert_eq(system(cmd), 0);
}

TestSuite(runfile, .init = setup, .fini = teardown);

static const char *file_with(const char *name, const char *text)
{
	static char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs(text, f);
	fclose(f);
	return path;
}

static const struct run_metric *metric(const struct run_record *r, const char *name)
{
	for (size_t i = 0; i < r->nmetrics; i++)
		if (!strcmp(r->metrics[i].name, name))
			return &r->metrics[i];
	return NULL;
}

static const char results[] =
	"{\"schema\": \"gpuiso-results/1\",\n"
	" \"run\": {\"id\": \"r-1\", \"started\": \"2026-11-01T00:00:00Z\", \"git_rev\": \"abc\",\n"
	"         \"host\": \"h\", \"backend\": \"sim\", \"trace\": \"/t\", \"scenario\": null,\n"
	"         \"faults\": null, \"seed\": 0},\n"
	" \"ops\": {\"alloc_mdl\": {\"count\": 5, \"errors\": 1,\n"
	"   \"latency_ns\": {\"p50\": 100, \"p99\": 900, \"overflow\": 2},\n"
	"   \"modeled_ns\": {\"p99\": 1234.5}}},\n"
	" \"power\": {\"transitions\": 2, \"longest_stall_ns\": 77, \"to_d3\": {\"reset\": 1}},\n"
	" \"faults\": {\"injected\": {\"fbsave/pin\": 3}, \"violations\": [{\"code\": \"X\"}]},\n"
	" \"invariants\": {\"no_leaks\": true, \"forward_progress\": false}}\n";

Test(runfile, results_become_tags_and_flat_metrics)
{
	struct run_record r;
	char err[512];

	cr_assert_eq(runfile_read(file_with("r.json", results), &r, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(r.kind, RUN_RESULTS);
	cr_assert_str_eq(r.key, "results/r-1");
	cr_assert_str_eq(r.git_rev, "abc");
	cr_assert_str_eq(r.date, "2026-11-01T00:00:00Z");
	cr_assert_null(r.scenario, "null is unknown");
	cr_assert_float_eq(metric(&r, "ops.alloc_mdl.modeled_ns.p99")->value, 1234.5, 1e-9);
	cr_assert_str_eq(metric(&r, "ops.alloc_mdl.latency_ns.p50")->unit, "ns");
	cr_assert_str_eq(metric(&r, "ops.alloc_mdl.count")->unit, "count");
	cr_assert_eq(metric(&r, "ops.alloc_mdl.latency_ns.overflow")->value, 2);
	cr_assert_str_eq(metric(&r, "ops.alloc_mdl.latency_ns.overflow")->unit, "count",
			 "values counted, not a time");
	cr_assert_str_eq(metric(&r, "power.longest_stall_ns")->unit, "ns");
	cr_assert_eq(metric(&r, "power.to_d3.reset")->value, 1);
	cr_assert_eq(metric(&r, "faults.injected.fbsave/pin")->value, 3);
	cr_assert_eq(metric(&r, "faults.violations")->value, 1, "a list counts as its length");
	cr_assert_eq(metric(&r, "invariants.no_leaks")->value, 1);
	cr_assert_eq(metric(&r, "invariants.forward_progress")->value, 0);
	cr_assert_str_eq(metric(&r, "invariants.no_leaks")->unit, "bool");
	cr_assert_null(metric(&r, "run.seed"), "run info is tags, not metrics");
	cr_assert(strstr(r.json, "\"r-1\""));
	cr_assert_str_eq(r.benchmark, "results trace=/t backend=sim host=h");
	cr_assert_null(r.inputs);
	cr_assert_null(r.code);
	runfile_free(&r);
}

/* What a run was: its benchmark's names, what its inputs held, the code that ran. */
Test(runfile, identity_inputs_and_code)
{
	static const char text[] =
		"{\"schema\": \"gpuiso-results/1\",\n"
		" \"run\": {\"id\": \"r-2\", \"started\": \"2026-11-01T00:00:00Z\", \"git_rev\": \"abc\",\n"
		"         \"code\": \"601e634d962d\", \"build\": \"release gcc-12.2.0\",\n"
		"         \"host\": \"h\", \"backend\": \"sim\", \"trace\": \"traces/desktop\",\n"
		"         \"scenario\": \"s.yaml\", \"faults\": \"f.yaml\", \"seed\": 7,\n"
		"         \"maps\": [\"m1.yaml\", \"m2.yaml\"],\n"
		"         \"inputs\": {\"traces/desktop\": \"9c743eef1261380f\", \"s.yaml\": \"0000000000000001\"}},\n"
		" \"ops\": {}}\n";
	struct run_record r;
	char err[512];

	cr_assert_eq(runfile_read(file_with("id.json", text), &r, err, sizeof(err)), 0, "%s", err);
	cr_assert_str_eq(r.benchmark, "results trace=traces/desktop scenario=s.yaml backend=sim "
				      "faults=f.yaml seed=7 map=m1.yaml map=m2.yaml host=h");
	cr_assert_str_eq(r.inputs, "traces/desktop=9c743eef1261380f\ns.yaml=0000000000000001\n");
	cr_assert_str_eq(r.code, "601e634d962d release gcc-12.2.0");
	runfile_free(&r);
	/* a replay of the adapters' whole life is a benchmark of its own; a window is the default */
	for (int life = 0; life < 2; life++) {
		char covered[sizeof(text) + 64], *at;

		snprintf(covered, sizeof(covered), "%s", text);
		at = strstr(covered, "\"seed\": 7,");
		cr_assert_not_null(at);
		snprintf(at, sizeof(covered) - (size_t)(at - covered), "\"trace_covers\": \"%s\",%s",
			 life ? "life" : "window", strstr(text, "\"seed\": 7,"));
		cr_assert_eq(runfile_read(file_with("cov.json", covered), &r, err, sizeof(err)), 0,
			     "%s", err);
		cr_assert_str_eq(r.benchmark, life ? "results trace=traces/desktop scenario=s.yaml "
						     "backend=sim faults=f.yaml seed=7 map=m1.yaml "
						     "map=m2.yaml covers=life host=h" :
						     "results trace=traces/desktop scenario=s.yaml "
						     "backend=sim faults=f.yaml seed=7 map=m1.yaml "
						     "map=m2.yaml host=h");
		runfile_free(&r);
	}
	/* inputs that are not {PATH: DIGEST} are refused with where */
	cr_assert_eq(runfile_read(file_with("bad.json", "{\"schema\": \"gpuiso-campaign/1\", \"name\": \"n\",\n"
								  " \"inputs\": [1, 2]}"),
				  &r, err, sizeof(err)),
		     -EINVAL);
	cr_assert(strstr(err, "bad.json:2:") && strstr(err, "inputs"), "%s", err);
}

/*
 * Paths that are not UTF-8, as gpuiso writes them (common/json.h: each such
 * byte as \udcXX), read back as the same bytes: tags, benchmark, inputs,
 * maps; two paths that differ only there are two benchmarks; and what goes
 * wrong after such an escape is still said at its own column.
 */
Test(runfile, paths_that_are_not_utf8_read_back_as_their_bytes)
{
	static const char text[] =
		"{\"schema\": \"gpuiso-results/1\",\n"
		" \"run\": {\"id\": \"r-3\", \"started\": \"2026-11-01T00:00:00Z\", \"host\": \"h\",\n"
		"         \"backend\": \"sim\", \"trace\": \"/t/tr\\udc%s\", \"scenario\": \"s\\u00e9.yaml\",\n"
		"         \"maps\": [\"m\\udcff.yaml\"],\n"
		"         \"inputs\": {\"/t/tr\\udc%s\": \"9c743eef1261380f\"}},\n"
		" \"ops\": {}}\n";
	struct run_record r, again;
	char doc[1024], err[512];

	snprintf(doc, sizeof(doc), text, "ff", "ff");
	cr_assert_eq(runfile_read(file_with("ff.json", doc), &r, err, sizeof(err)), 0, "%s", err);
	cr_assert_str_eq(r.trace, "/t/tr\xff");
	cr_assert_str_eq(r.scenario, "s\xc3\xa9.yaml");
	cr_assert_str_eq(r.benchmark,
			 "results trace=/t/tr\xff scenario=s\xc3\xa9.yaml backend=sim map=m\xff.yaml host=h");
	cr_assert_str_eq(r.inputs, "/t/tr\xff=9c743eef1261380f\n");
	/* the store keeps the text and reads it again */
	cr_assert_eq(runfile_parse("stored run", r.json, &again, err, sizeof(err)), 0, "%s", err);
	cr_assert_str_eq(again.benchmark, r.benchmark);
	runfile_free(&again);
	snprintf(doc, sizeof(doc), text, "fe", "fe");
	cr_assert_eq(runfile_read(file_with("fe.json", doc), &again, err, sizeof(err)), 0, "%s", err);
	cr_assert_str_eq(again.trace, "/t/tr\xfe");
	cr_assert_str_neq(again.benchmark, r.benchmark);
	runfile_free(&again);
	runfile_free(&r);

	/* an error after an escape is at its column, as if the escape were any other */
	snprintf(doc, sizeof(doc),
		 "{\"schema\": \"gpuiso-campaign/1\", \"name\": \"n\\udcff\", \"inputs\": {\"p\\udcfe\": [1]}}");
	cr_assert_eq(runfile_read(file_with("bad.json", doc), &r, err, sizeof(err)), -EINVAL);
	cr_assert(strstr(err, "bad.json:1:74:") && strstr(err, "inputs"), "%s", err);
}

Test(runfile, bench_campaign_and_sweep_files)
{
	struct run_record r;
	char err[512];

	cr_assert_eq(runfile_read(file_with("b.json",
					    "{\"schema\":\"gpuiso-bench/1\",\"host\":\"h\",\"git_rev\":\"r\","
					    "\"metrics\":{\"sim.map_ns\":{\"value\":12.5,\"unit\":\"ns\"}}}"),
				  &r, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(r.kind, RUN_BENCH);
	cr_assert_eq(r.nmetrics, 1);
	cr_assert_str_eq(r.metrics[0].name, "sim.map_ns");
	cr_assert(!strncmp(r.key, "bench/", 6));
	runfile_free(&r);
	cr_assert_eq(runfile_read(file_with("c.json",
					    "{\"schema\":\"gpuiso-campaign/1\",\"name\":\"nightly\",\"runs\":4,"
					    "\"passed\":3,\"failed\":1,\"failures\":[]}"),
				  &r, err, sizeof(err)), 0, "%s", err);
	cr_assert_str_eq(r.campaign, "nightly");
	cr_assert_eq(metric(&r, "campaign.failed")->value, 1);
	cr_assert_eq(runfile_value(&r, "campaign.runs"), 4);
	cr_assert(isnan(runfile_value(&r, "campaign.none")));
	cr_assert_eq(r.nfailures, 0);
	runfile_free(&r);
	cr_assert_eq(runfile_read(file_with("c2.json",
					    "{\"schema\":\"gpuiso-campaign/1\",\"name\":\"n\",\"runs\":2,"
					    "\"passed\":0,\"failed\":2,\"failures\":[{\"id\":\"r-s1\",\"run\":\"r\","
					    "\"reason\":\"why\",\"reproduce\":\"gpuiso replay t\"},{\"run\":\"q\"}]}"),
				  &r, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(r.nfailures, 2);
	cr_assert_str_eq(r.failures[0].what, "r-s1");
	cr_assert_str_eq(r.failures[0].why, "why");
	cr_assert_str_eq(r.failures[0].reproduce, "gpuiso replay t");
	cr_assert_str_eq(r.failures[1].what, "q");
	cr_assert_null(r.failures[1].why);
	runfile_free(&r);
	cr_assert_eq(runfile_read(file_with("s.json",
					    "{\"schema\":\"gpuiso-sweep/1\",\"trace\":\"/t\",\"points\":"
					    "{\"iommu/map\":{\"hits\":9,\"violation\":2}},\"failures\":[1,2]}"),
				  &r, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(metric(&r, "sweep.iommu/map.violation")->value, 2);
	cr_assert_eq(metric(&r, "sweep.failures")->value, 2);
	cr_assert_str_eq(r.benchmark, "sweep trace=/t");
	runfile_free(&r);
	cr_assert_eq(runfile_read(file_with("s2.json",
					    "{\"schema\":\"gpuiso-sweep/1\",\"trace\":\"/t\",\"host\":\"h\","
					    "\"trace_covers\":\"life\",\"points\":{},\"failures\":[]}"),
				  &r, err, sizeof(err)), 0, "%s", err);
	cr_assert_str_eq(r.benchmark, "sweep trace=/t covers=life host=h");
	cr_assert_null(r.baseline);
	runfile_free(&r);
	/* a sweep through import maps is another benchmark than one through others */
	cr_assert_eq(runfile_read(file_with("s4.json",
					    "{\"schema\":\"gpuiso-sweep/1\",\"trace\":\"/t.dat\",\"host\":\"h\","
					    "\"maps\":[\"/m1.yaml\",\"/m2.yaml\"],\"points\":{},\"failures\":[]}"),
				  &r, err, sizeof(err)), 0, "%s", err);
	cr_assert_str_eq(r.benchmark, "sweep trace=/t.dat map=/m1.yaml map=/m2.yaml host=h");
	runfile_free(&r);
	cr_assert_eq(runfile_read(file_with("s3.json",
					    "{\"schema\":\"gpuiso-sweep/1\",\"trace\":\"/t\",\"baseline\":\"recovered\","
					    "\"points\":{},\"failures\":[{\"point\":\"iommu/unmap\",\"nth\":3,"
					    "\"outcome\":\"violation\",\"reproduce\":\"gpuiso replay /t\"}]}"),
				  &r, err, sizeof(err)), 0, "%s", err);
	cr_assert_str_eq(r.baseline, "recovered");
	cr_assert_eq(r.nfailures, 1);
	cr_assert_str_eq(r.failures[0].what, "iommu/unmap #3");
	cr_assert_str_eq(r.failures[0].why, "violation");
	cr_assert_str_eq(r.failures[0].reproduce, "gpuiso replay /t");
	runfile_free(&r);
}

Test(runfile, bad_files_say_why_and_where)
{
	struct run_record r;
	char err[512];

	cr_assert_eq(runfile_read(file_with("t.json", "{\"schema\": \"gpuiso-results/1\",\n \"ops\": {"),
				  &r, err, sizeof(err)), -EINVAL);
	cr_assert(strstr(err, "t.json:"), "%s", err);
	cr_assert_eq(runfile_read(file_with("f.json", "{\"name\": \"something else\"}"), &r, err,
				  sizeof(err)), -EINVAL);
	cr_assert(strstr(err, "f.json:1:1") && strstr(err, "not a gpuiso run file"), "%s", err);
	cr_assert_eq(runfile_read(file_with("n.json", "{\n  \"schema\": \"gpuiso-results/2\"}"), &r,
				  err, sizeof(err)), -EPROTO);
	cr_assert(strstr(err, "n.json:2:") && strstr(err, "newer"), "%s", err);
	cr_assert_eq(runfile_read(file_with("m.json", "{\"schema\": \"gpuiso-bench/1\", \"metrics\": "
						      "{\"x\": {\"value\": \"fast\", \"unit\": \"ns\"}}}"),
				  &r, err, sizeof(err)), -EINVAL);
	cr_assert(strstr(err, "metrics.x"), "%s", err);
	cr_assert_eq(runfile_read(file_with("e.json", ""), &r, err, sizeof(err)), -EINVAL);
	cr_assert_eq(runfile_read("/nonexistent/x.json", &r, err, sizeof(err)), -ENOENT);

	/* numbers that are not finite, metrics that are not numbers, dates that are not dates */
	cr_assert_eq(runfile_read(file_with("i.json", "{\"schema\": \"gpuiso-bench/1\", \"metrics\": "
						      "{\"x\": {\"value\": 1e999, \"unit\": \"ns\"}}}"),
				  &r, err, sizeof(err)), -EINVAL);
	cr_assert(strstr(err, "metrics.x"), "%s", err);
	char text[sizeof(results) + 16];
	const char *at = strstr(results, "\"count\": 5");

	snprintf(text, sizeof(text), "%.*s\"count\": \"many\"%s", (int)(at - results), results,
		 at + strlen("\"count\": 5"));
	cr_assert_eq(runfile_read(file_with("c.json", text), &r, err, sizeof(err)), -EINVAL);
	cr_assert(strstr(err, "c.json:5:") && strstr(err, "ops.alloc_mdl.count: expected a finite number"),
		  "%s", err);
	at = strstr(results, "2026-11-01T00:00:00Z");
	snprintf(text, sizeof(text), "%.*s2026-13-45T99:00:00Z%s", (int)(at - results), results,
		 at + strlen("2026-11-01T00:00:00Z"));
	cr_assert_eq(runfile_read(file_with("d.json", text), &r, err, sizeof(err)), -EINVAL);
	cr_assert(strstr(err, "d.json:2:") && strstr(err, "run.started"), "%s", err);
	cr_assert(runfile_date_ok("2026-11-01T00:00:00Z"));
	cr_assert(runfile_date_ok("2026-11-01T00:00:00.125Z"));
	cr_assert_not(runfile_date_ok("yesterday"));
	cr_assert_not(runfile_date_ok("2026-11-01"));
	cr_assert_not(runfile_date_ok("2026-11-01T00:00:00+01:00"));
	/* two digits a field, four for the year, nothing before or between */
	static const char *const bad[] = {
		" 2026-11-01T00:00:00Z", "2026-1-01T00:00:00Z ", "2026-11-01T 0:00:00Z",
		"2026-11-01T00:00:00 Z", "+2026-11-01T00:00:00Z", "2026-11-01T00:00:00.Z",
		"2026-11-01t00:00:00Z", "2026-11-01T00:00:00Zx", "02026-11-01T00:00:00Z",
		"2026-11-01T00:00:60.5.5Z", "2026-11-01T24:00:00Z", "2026-11-01T00:0:000Z",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		cr_assert_not(runfile_date_ok(bad[i]), "'%s' was taken", bad[i]);
}

/* The key of @path after setting its modification time to @sec + @nsec. */
static char *key_at(const char *path, time_t sec, long nsec)
{
	const struct timespec t[2] = { { sec, nsec }, { sec, nsec } };
	struct run_record r;
	char err[512], *key;

	cr_assert_eq(utimensat(AT_FDCWD, path, t, 0), 0);
	cr_assert_eq(runfile_read(path, &r, err, sizeof(err)), 0, "%s", err);
	key = strdup(r.key);
	runfile_free(&r);
	return key;
}

Test(runfile, the_same_summary_written_twice_in_a_second_is_two_runs)
{
	const char *path = file_with("c.json", "{\"schema\":\"gpuiso-campaign/1\",\"name\":\"n\","
					       "\"runs\":1,\"passed\":1,\"failed\":0,\"failures\":[]}");
	char *first = key_at(path, 1700000000, 100000000);
	char *again = key_at(path, 1700000000, 100000000);
	char *later = key_at(path, 1700000000, 700000000);

	cr_assert_str_eq(first, again, "the same file read twice is one run");
	cr_assert_str_neq(first, later, "written again 0.6 s later: another run");
	free(first);
	free(again);
	free(later);
}

/* A campaign summary with findings, one a line from line 3 (for FILE:LINE:COL). */
static const char campaign_findings[] =
	"{\"schema\": \"gpuiso-campaign/1\", \"name\": \"nightly\", \"runs\": 3, \"passed\": 1,\n"
	" \"failed\": 2, \"failures\": [], \"findings\": [\n"
	"  {\"signature\": \"3f9a0c1d22e4b870\", \"key\": \"iommu/unmap|free_mdl|violation|MAPPING_LEAK\", \"title\": \"iommu/unmap during free_mdl \\u2192 MAPPING_LEAK\", \"blame\": \"fault\", \"outcome\": \"failed\", \"code\": \"MAPPING_LEAK\", \"invariants\": [\"no_stale_mappings\", \"no_leaks\"], \"point\": \"iommu/unmap\", \"operation\": \"free_mdl\", \"runs\": 2, \"reproduce\": \"gpuiso replay /t --faults /f.yaml --seed 1\", \"trimmed\": null, \"later\": {\"any\": [1]}},\n"
	"  {\"signature\": \"00000000000000ff\", \"key\": \"k\", \"title\": \"hung\", \"blame\": \"none\", \"outcome\": \"hung\", \"code\": null, \"invariants\": [], \"point\": null, \"operation\": null, \"runs\": 1, \"reproduce\": \"r\", \"trimmed\": {\"trace\": \"/o/findings/00000000000000ff/trace\", \"events\": 41, \"of\": 10000}}\n"
	" ]}\n";

Test(runfile, findings_of_a_campaign_are_read_and_kept)
{
	struct run_record r;
	char err[512];

	cr_assert_eq(runfile_read(file_with("c.json", campaign_findings), &r, err, sizeof(err)), 0,
		     "%s", err);
	cr_assert(r.findings_recorded);
	cr_assert_eq(r.nfindings, 2);
	cr_assert_str_eq(r.findings[0].signature, "3f9a0c1d22e4b870");
	cr_assert_str_eq(r.findings[0].key, "iommu/unmap|free_mdl|violation|MAPPING_LEAK");
	cr_assert_str_eq(r.findings[0].title, "iommu/unmap during free_mdl \xe2\x86\x92 MAPPING_LEAK",
			 "the arrow is UTF-8");
	cr_assert_str_eq(r.findings[0].blame, "fault");
	cr_assert_str_eq(r.findings[0].outcome, "failed");
	cr_assert_str_eq(r.findings[0].code, "MAPPING_LEAK");
	cr_assert_str_eq(r.findings[0].invariants, "no_stale_mappings,no_leaks");
	cr_assert_str_eq(r.findings[0].point, "iommu/unmap");
	cr_assert_str_eq(r.findings[0].operation, "free_mdl");
	cr_assert_eq(r.findings[0].runs, 2);
	cr_assert_eq(r.findings[0].nth_min, 0, "no hits in a campaign");
	cr_assert_str_eq(r.findings[0].reproduce, "gpuiso replay /t --faults /f.yaml --seed 1");
	cr_assert_null(r.findings[0].trimmed);
	cr_assert_null(r.findings[1].code);
	cr_assert_null(r.findings[1].point);
	cr_assert_str_eq(r.findings[1].invariants, "");
	cr_assert_str_eq(r.findings[1].trimmed, "/o/findings/00000000000000ff/trace");
	cr_assert_eq(r.findings[1].trimmed_events, 41);
	cr_assert_eq(r.findings[1].trimmed_of, 10000);
	runfile_free(&r);
	/* a summary from before findings records none: that is not "none found" */
	cr_assert_eq(runfile_read(file_with("old.json", "{\"schema\":\"gpuiso-campaign/1\",\"name\":\"n\","
							"\"runs\":1,\"passed\":1,\"failed\":0,\"failures\":[]}"),
				  &r, err, sizeof(err)), 0, "%s", err);
	cr_assert_not(r.findings_recorded);
	cr_assert_eq(r.nfindings, 0);
	runfile_free(&r);
	cr_assert_eq(runfile_read(file_with("none.json", "{\"schema\":\"gpuiso-campaign/1\",\"name\":\"n\","
							 "\"runs\":1,\"passed\":1,\"failed\":0,\"failures\":[],"
							 "\"findings\":[]}"),
				  &r, err, sizeof(err)), 0, "%s", err);
	cr_assert(r.findings_recorded, "an empty list: none found");
	runfile_free(&r);
}

Test(runfile, findings_of_a_sweep_have_their_hits)
{
	struct run_record r;
	char err[512];

	cr_assert_eq(runfile_read(file_with("s.json",
					    "{\"schema\":\"gpuiso-sweep/1\",\"trace\":\"/t\",\"points\":{},"
					    "\"failures\":[],\"findings\":[{\"signature\":\"0123456789abcdef\","
					    "\"key\":\"k\",\"title\":\"t\",\"blame\":\"driver\",\"outcome\":"
					    "\"violation\",\"code\":\"X\",\"invariants\":[],\"point\":\"iommu/map\","
					    "\"operation\":null,\"runs\":2788,\"nth\":{\"min\":1,\"max\":2788},"
					    "\"reproduce\":\"gpuiso replay /t --fail-nth iommu/map:1\","
					    "\"trimmed\":null}]}"),
				  &r, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(r.nfindings, 1);
	cr_assert_eq(r.findings[0].nth_min, 1);
	cr_assert_eq(r.findings[0].nth_max, 2788);
	cr_assert_eq(r.findings[0].runs, 2788);
	cr_assert_null(r.findings[0].operation);
	cr_assert_eq(r.findings[0].ncontexts, 0, "a summary from before contexts has none");
	runfile_free(&r);
}

/* A sweep's finding met in two operations, one a line from line 3 (for FILE:LINE:COL). */
static const char sweep_contexts[] =
	"{\"schema\": \"gpuiso-sweep/1\", \"trace\": \"/t\", \"points\": {}, \"failures\": [],\n"
	" \"findings\": [{\"signature\": \"0123456789abcdef\", \"key\": \"k\", \"title\": \"t\", \"blame\": \"fault\", \"outcome\": \"violation\", \"code\": \"MAPPING_LEAK\", \"invariants\": [], \"point\": \"iommu/unmap\", \"operation\": \"power\", \"runs\": 5, \"nth\": {\"min\": 1, \"max\": 38},\n"
	"  \"contexts\": [{\"operation\": \"free_mdl\", \"runs\": 3, \"nth\": {\"min\": 2, \"max\": 30}},\n"
	"   {\"operation\": \"power\", \"runs\": 2, \"nth\": {\"min\": 1, \"max\": 28}}],\n"
	"  \"reproduce\": \"r\", \"trimmed\": null}]}\n";

Test(runfile, contexts_of_a_finding_are_read_and_copied)
{
	struct run_finding copy;
	struct run_record r;
	char err[512];

	cr_assert_eq(runfile_read(file_with("s.json", sweep_contexts), &r, err, sizeof(err)), 0, "%s",
		     err);
	cr_assert_eq(r.nfindings, 1);
	cr_assert_eq(r.findings[0].ncontexts, 2);
	cr_assert_str_eq(r.findings[0].contexts[0].operation, "free_mdl");
	cr_assert_eq(r.findings[0].contexts[0].runs, 3);
	cr_assert_eq(r.findings[0].contexts[0].nth_min, 2);
	cr_assert_eq(r.findings[0].contexts[0].nth_max, 30);
	cr_assert_str_eq(r.findings[0].contexts[1].operation, "power");
	cr_assert_eq(r.findings[0].contexts[1].nth_max, 28);
	cr_assert_eq(run_finding_copy(&copy, &r.findings[0]), 0);
	runfile_free(&r);
	/* the copy is its own: the record it came from is gone */
	cr_assert_eq(copy.ncontexts, 2);
	cr_assert_str_eq(copy.contexts[1].operation, "power");
	cr_assert_str_eq(copy.signature, "0123456789abcdef");
	cr_assert_str_eq(copy.code, "MAPPING_LEAK");
	run_finding_free(&copy);
	cr_assert_null(copy.contexts, "freed and zeroed");
	/* a campaign's contexts have no hits */
	char text[4096];
	const char *at = strstr(campaign_findings, "\"reproduce\": \"gpuiso replay /t");

	snprintf(text, sizeof(text), "%.*s\"contexts\": [{\"operation\": \"start\", \"runs\": 2}], %s",
		 (int)(at - campaign_findings), campaign_findings, at);
	cr_assert_eq(runfile_read(file_with("c.json", text), &r, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(r.findings[0].ncontexts, 1);
	cr_assert_str_eq(r.findings[0].contexts[0].operation, "start");
	cr_assert_eq(r.findings[0].contexts[0].nth_max, 0);
	runfile_free(&r);
}

/*
 * @base with the first @from from its "findings" on replaced by @to, read:
 * refused with an error at c.json:@line: (then the column) saying @what.
 */
static void refused(const char *base, const char *from, const char *to, int line, const char *what)
{
	char text[4096], err[1024], where[32];
	const char *at = strstr(strstr(base, "\"findings\""), from);
	struct run_record r;

	cr_assert_not_null(at, "%s", from);
	snprintf(text, sizeof(text), "%.*s%s%s", (int)(at - base), base, to, at + strlen(from));
	cr_assert_eq(runfile_read(file_with("c.json", text), &r, err, sizeof(err)), -EINVAL,
		     "%s -> %s was taken", from, to);
	snprintf(where, sizeof(where), "c.json:%d:", line);
	cr_assert(strstr(err, where), "%s -> %s: expected %s in: %s", from, to, where, err);
	cr_assert(strstr(err, what), "%s -> %s: expected '%s' in: %s", from, to, what, err);
}

Test(runfile, bad_findings_are_refused_with_where)
{
	const char *c = campaign_findings;
	static const char sweep[] =
		"{\"schema\": \"gpuiso-sweep/1\", \"trace\": \"/t\", \"points\": {}, \"failures\": [],\n"
		" \"findings\": [{\"signature\": \"0123456789abcdef\", \"key\": \"k\", \"title\": \"t\",\n"
		"  \"blame\": \"model\", \"outcome\": \"crash\", \"code\": null, \"invariants\": [],\n"
		"  \"point\": \"p\", \"operation\": null, \"runs\": 3,\n"
		"  \"nth\": {\"min\": 2, \"max\": 4},\n"
		"  \"reproduce\": \"r\", \"trimmed\": null}]}\n";
	char err[512];
	struct run_record r;

	cr_assert_eq(runfile_read(file_with("s.json", sweep), &r, err, sizeof(err)), 0, "%s", err);
	runfile_free(&r);
	refused(c, "\"findings\": [", "\"findings\": 5, \"x\": [", 2, "findings: expected a list");
	refused(c, "\"3f9a0c1d22e4b870\"", "\"3F9A0C1D22E4B870\"", 3, "findings[0].signature: expected 16 lowercase hex digits");
	refused(c, "\"3f9a0c1d22e4b870\"", "\"3f9a0c1d\"", 3, "findings[0].signature");
	refused(c, "\"3f9a0c1d22e4b870\"", "12", 3, "findings[0].signature: wrong type");
	refused(c, "\"00000000000000ff\"", "\"3f9a0c1d22e4b870\"", 4, "findings[1].signature: 3f9a0c1d22e4b870 is findings[0]'s too");
	refused(c, "\"blame\": \"fault\"", "\"blame\": \"cosmic rays\"", 3, "findings[0].blame: expected one of fault, driver, model, none");
	refused(c, "\"outcome\": \"hung\"", "\"outcome\": \"crash\"", 4, "findings[1].outcome: expected one of reset, violation, failed, hung");
	refused(c, "\"title\": \"hung\", ", "", 4, "findings[1].title: missing");
	refused(c, "\"code\": null", "\"code\": 7", 4, "findings[1].code: wrong type, expected a string or null");
	refused(c, "\"runs\": 2", "\"runs\": \"two\"", 3, "findings[0].runs");
	refused(c, "\"runs\": 1", "\"runs\": 0", 4, "findings[1].runs: wrong value, expected an integer of at least 1");
	refused(c, "[\"no_stale_mappings\", ", "[3, ", 3, "findings[0].invariants[0]: expected an invariant's name");
	refused(c, "\"invariants\": []", "\"invariants\": \"none\"", 4, "findings[1].invariants: wrong type");
	refused(c, "\"events\": 41", "\"events\": -1", 4, "findings[1].trimmed.events");
	refused(c, "\"of\": 10000", "\"of\": 40", 4, "findings[1].trimmed.of: 40 is below events (41)");
	refused(c, "\"trimmed\": null", "\"trimmed\": \"/x\"", 3, "findings[0].trimmed: expected null or");
	refused(c, "{\"signature\": \"00", "7, {\"signature\": \"00", 4, "findings[1]: expected an object");
	refused(sweep, "\"nth\": {\"min\": 2, \"max\": 4},", "", 2, "findings[0].nth: missing");
	/* a finding listed twice is named by its place in the file, refused ones before it counted */
	char twice[4096];
	const char *second = strstr(c, "\n  {\"signature\": \"00");

	snprintf(twice, sizeof(twice), "%.*s\n  7,%.*s,%s", (int)(second - c), c,
		 (int)(strstr(second, "\n ]") - second), second, second);
	cr_assert_eq(runfile_read(file_with("c.json", twice), &r, err, sizeof(err)), -EINVAL);
	cr_assert(strstr(err, "c.json:4:") && strstr(err, "c.json:6:") &&
		  strstr(err, "findings[3].signature: 00000000000000ff is findings[2]'s too"), "%s", err);
	refused(sweep, "\"max\": 4", "\"max\": 1", 5, "findings[0].nth.max: 1 is below min (2)");
	refused(sweep, "\"min\": 2", "\"min\": 0", 5, "findings[0].nth.min");
	refused(sweep, "\"outcome\": \"crash\"", "\"outcome\": \"failed\"", 3, "findings[0].outcome: expected one of reset, violation, crash, hung");
	refused(sweep_contexts, "\"contexts\": [", "\"contexts\": 3, \"x\": [", 3, "findings[0].contexts: expected a list");
	refused(sweep_contexts, "\"contexts\": [", "\"contexts\": [], \"x\": [", 3, "findings[0].contexts: expected a list");
	refused(sweep_contexts, "{\"operation\": \"free_mdl\"", "{\"operation\": null", 3, "findings[0].contexts[0]: expected {\"operation\"");
	refused(sweep_contexts, "\"runs\": 2, \"nth\"", "\"runs\": 0, \"nth\"", 4, "findings[0].contexts[1].runs: wrong value");
	refused(sweep_contexts, ", \"nth\": {\"min\": 1, \"max\": 28}", "", 4, "findings[0].contexts[1].nth: missing");
	refused(sweep_contexts, "\"max\": 30", "\"max\": 1", 3, "findings[0].contexts[0].nth.max: 1 is below min (2)");
}
