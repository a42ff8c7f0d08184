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
#include "runfile_files.h"

TestSuite(runfile, .init = setup, .fini = teardown);

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
