/* SPDX-License-Identifier: MIT */
/* store add/list, compare, changes and dash as a user runs them. */
#include <criterion/criterion.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "run_gpuiso.h"
#include "tests/common/jsonq.h"

static char tdir[64];

static void setup(void)
{
	strcpy(tdir, "/tmp/gpuiso-measure-XXXXXX");
	cr_assert_not_null(mkdtemp(tdir));
}

static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", tdir);
	cr_assert_eq(system(cmd), 0);
}

TestSuite(measure, .init = setup, .fini = teardown);

/* A path in the test's folder; valid until the 16th call after it. */
static const char *tpath(const char *name)
{
	static char paths[16][256];
	static int next;
	char *p = paths[next++ % 16];

	snprintf(p, sizeof(paths[0]), "%s/%s", tdir, name);
	return p;
}

#define DB_PATH(db) \
	char db[256];   \
	snprintf(db, sizeof(db), "%s/runs.sqlite", tdir)

/*
 * A results file of revision @rev whose alloc_mdl costs @modeled ns (p99) of
 * device time and @latency ns (p50) of wall-clock time.
 */
static const char *results_file_timed(const char *name, const char *rev, int day, double modeled,
				      double latency)
{
	const char *path = tpath(name);
	FILE *f = fopen(path, "w");

	cr_assert_not_null(f);
	fprintf(f,
		"{\"schema\":\"gpuiso-results/1\",\"run\":{\"id\":\"%s\",\"started\":\"2026-11-%02dT00:00:00Z\","
		"\"git_rev\":\"%s\",\"host\":\"h\",\"backend\":\"sim\",\"trace\":\"traces/desktop\","
		"\"scenario\":null,\"faults\":null,\"seed\":0},"
		"\"ops\":{\"alloc_mdl\":{\"count\":10,\"errors\":0,"
		"\"latency_ns\":{\"p50\":%g,\"p90\":800,\"p99\":900,\"p999\":950,\"max\":990,\"mean\":600},"
		"\"modeled_ns\":{\"p50\":%g,\"p90\":%g,\"p99\":%g,\"p999\":%g,\"max\":%g,\"mean\":%g}}},"
		"\"power\":{\"transitions\":4,\"completed\":4,\"reset\":0,\"pinned\":3,\"chunked\":1,"
		"\"chunks\":16,\"bytes\":1048576,\"longest_stall_ns\":5000,"
		"\"to_d3\":{\"transitions\":2,\"completed\":2,\"pinned\":1,\"chunked\":1,\"reset\":0},"
		"\"to_d0\":{\"transitions\":2,\"completed\":2,\"pinned\":2,\"chunked\":0,\"reset\":0},"
		"\"time_to_complete_ns\":{\"p50\":100,\"p90\":100,\"p99\":100,\"p999\":100,\"max\":100,\"mean\":100}},"
		"\"faults\":{\"injected\":{},\"violations\":[]},\"invariants\":{\"no_leaks\":true}}\n",
		name, day, rev, latency, modeled / 2, modeled, modeled, modeled, modeled, modeled / 2);
	fclose(f);
	return path;
}

static const char *results_file(const char *name, const char *rev, int day, double modeled)
{
	return results_file_timed(name, rev, day, modeled, 500);
}

static int stored_runs(const char *db)
{
	sqlite3 *h;
	sqlite3_stmt *st;
	int n = -1;

	/* read-write: a writer's hot journal is rolled back, as the next user's open does */
	cr_assert_eq(sqlite3_open_v2(db, &h, SQLITE_OPEN_READWRITE, NULL), SQLITE_OK);
	if (sqlite3_prepare_v2(h, "SELECT count(*) FROM runs", -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(h);
	return n;
}

Test(measure, store_add_list_and_bad_input_keeps_the_store)
{
	DB_PATH(db);
	struct run r;
	FILE *f;

	RUN(&r, "store", "add", db, results_file("a.json", "r1", 1, 1000),
	    results_file("b.json", "r2", 2, 1000));
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_assert(strstr(r.out, "2 runs added, 0 already stored"), "%s", r.out);
	RUN(&r, "store", "add", db, tpath("a.json"));
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_assert(strstr(r.out, "0 runs added, 1 already stored"), "%s", r.out);
	RUN(&r, "store", "list", db);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_assert(strstr(r.out, "2026-11-01T00:00:00Z  results   r1"), "%s", r.out);

	/* a good file and a truncated one: neither is stored, the error says where */
	f = fopen(tpath("bad.json"), "w");
	fputs("{\"schema\": \"gpuiso-results/1\",\n \"run\": {\"id\": ", f);
	fclose(f);
	RUN(&r, "store", "add", db, results_file("c.json", "r3", 3, 1000), tpath("bad.json"));
	cr_assert_eq(r.status, 2);
	cr_assert(strstr(r.err, "bad.json:") && strstr(r.err, "error"), "%s", r.err);
	cr_assert_eq(stored_runs(db), 2);
	f = fopen(tpath("new.json"), "w");
	fputs("{\"schema\": \"gpuiso-results/7\"}", f);
	fclose(f);
	RUN(&r, "store", "add", db, tpath("new.json"));
	cr_assert_eq(r.status, 2);
	cr_assert(strstr(r.err, "newer"), "%s", r.err);
	RUN(&r, "store", "list", tpath("a.json"));
	cr_assert_eq(r.status, 2, "a JSON file is not a store");
	cr_assert(strstr(r.err, "not a gpuiso store"), "%s", r.err);
	RUN(&r, "store", "list", tpath("none.sqlite"));
	cr_assert_eq(r.status, 2);
	cr_assert_eq(stored_runs(db), 2);
}

/* A campaign summary @name listing a finding for each of @sigs (4-hex-digit words). */
static const char *campaign_file(const char *name, const char *sigs)
{
	const char *path = tpath(name);
	FILE *f = fopen(path, "w");

	cr_assert_not_null(f);
	fprintf(f, "{\"schema\":\"gpuiso-campaign/1\",\"name\":\"nightly\",\"host\":\"h\",\"runs\":4,"
		   "\"passed\":1,\"failed\":3,\"failures\":[],\"findings\":[");
	for (const char *at = sigs; *at; at += at[4] ? 5 : 4)
		fprintf(f, "%s{\"signature\":\"000000000000%.4s\",\"key\":\"k\",\"title\":\"finding %.4s\","
			   "\"blame\":\"driver\",\"outcome\":\"failed\",\"code\":null,\"invariants\":[],"
			   "\"point\":null,\"operation\":null,\"runs\":3,\"reproduce\":\"gpuiso replay %.4s\","
			   "\"trimmed\":null}", at == sigs ? "" : ",", at, at, at);
	fprintf(f, "]}\n");
	fclose(f);
	return path;
}

Test(measure, store_findings_says_what_is_new_known_and_gone)
{
	DB_PATH(db);
	struct run r;

	RUN(&r, "store", "add", db, campaign_file("n1.json", "aaaa bbbb"), "--rev", "rev1", "--date",
	    "2026-11-01T00:00:00Z");
	cr_assert_eq(r.status, 0, "%s", r.err);
	RUN(&r, "store", "add", db, campaign_file("n2.json", "aaaa cccc"), "--rev", "rev2", "--date",
	    "2026-11-02T00:00:00Z");
	cr_assert_eq(r.status, 0, "%s", r.err);
	char value[128];

	RUN(&r, "store", "findings", db);
	cr_assert_eq(r.status, 1, "a new finding fails the gate: %s", r.err);
	cr_assert(strstr(r.out, "1 new finding in the latest runs: exit 1"), "%s", r.out);
	cr_assert(strstr(r.out, "campaign name=nightly host=h\n"
				"  2026-11-02T00:00:00Z  revision rev2: 2 findings: 1 new, 1 known, 1 gone\n"
				"    new    000000000000cccc  driver  3 runs  finding cccc\n"
				"           gpuiso replay cccc\n"
				"    known  000000000000aaaa  driver  3 runs  finding aaaa  (since rev1)\n"
				"           gpuiso replay aaaa\n"
				"    gone   000000000000bbbb  driver  3 runs  finding bbbb  (last in rev1)\n"),
		  "%s", r.out);
	cr_assert_null(strstr(r.out, "rev1:"), "the latest run only: %s", r.out);
	RUN(&r, "store", "findings", db, "--all");
	cr_assert(strstr(r.out, "revision rev1: 2 findings: 2 new, 0 known, 0 gone"), "%s", r.out);

	RUN(&r, "store", "findings", db, "--json");
	cr_assert_eq(r.status, 1, "%s", r.err);
	cr_assert(jsonq_valid(r.out), "%s", r.out);
	cr_assert(jsonq_get(r.out, "schema", value, sizeof(value)));
	cr_assert_str_eq(value, "gpuiso-store-findings/1");
	cr_assert(jsonq_get(r.out, "new_in_latest", value, sizeof(value)));
	cr_assert_str_eq(value, "1");
	cr_assert(jsonq_get(r.out, "series.0.series", value, sizeof(value)));
	cr_assert_str_eq(value, "campaign name=nightly host=h");
	cr_assert(jsonq_get(r.out, "series.0.runs.0.git_rev", value, sizeof(value)));
	cr_assert_str_eq(value, "rev2", "the latest run only");
	cr_assert_not(jsonq_get(r.out, "series.0.runs.1.git_rev", value, sizeof(value)));
	cr_assert(jsonq_get(r.out, "series.0.runs.0.findings.0.state", value, sizeof(value)));
	cr_assert_str_eq(value, "new");
	cr_assert(jsonq_get(r.out, "series.0.runs.0.findings.0.signature", value, sizeof(value)));
	cr_assert_str_eq(value, "000000000000cccc");
	cr_assert(jsonq_get(r.out, "series.0.runs.0.findings.1.since_rev", value, sizeof(value)));
	cr_assert_str_eq(value, "rev1");
	cr_assert(jsonq_get(r.out, "series.0.runs.0.findings.0.contexts", value, sizeof(value)));
	cr_assert_str_eq(value, "null", "a summary from before contexts: none known");
	RUN(&r, "store", "findings", db, "--json", "--all");
	cr_assert(jsonq_get(r.out, "series.0.runs.1.git_rev", value, sizeof(value)));
	cr_assert_str_eq(value, "rev2");

	/* the same findings again: nothing new, the gate passes */
	RUN(&r, "store", "add", db, campaign_file("n3.json", "aaaa cccc"), "--rev", "rev3", "--date",
	    "2026-11-03T00:00:00Z");
	cr_assert_eq(r.status, 0, "%s", r.err);
	RUN(&r, "store", "findings", db);
	cr_assert_eq(r.status, 0, "%s", r.out);
	RUN(&r, "store", "list", db, "--json");
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_assert(jsonq_valid(r.out), "%s", r.out);
	cr_assert(jsonq_get(r.out, "schema", value, sizeof(value)));
	cr_assert_str_eq(value, "gpuiso-store-list/1");
	cr_assert(jsonq_get(r.out, "runs.2.git_rev", value, sizeof(value)));
	cr_assert_str_eq(value, "rev3");
	cr_assert(jsonq_get(r.out, "runs.0.kind", value, sizeof(value)));
	cr_assert_str_eq(value, "campaign");
	cr_assert_not(jsonq_get(r.out, "runs.3.id", value, sizeof(value)));
	RUN(&r, "store", "findings", db, "--series", "sweep *");
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_assert(strstr(r.out, "no campaign or sweep stored in the series asked for"), "%s", r.out);
	RUN(&r, "store", "findings", tpath("none.sqlite"));
	cr_assert_eq(r.status, 2);
}

Test(measure, a_real_replay_and_its_folder_are_stored)
{
	DB_PATH(db);
	struct run r;
	const char *line;
	long column;
	FILE *f;

	mkdir(tpath("out"), 0777);
	RUN(&r, "replay", "traces/power-cycle", "--json", tpath("out/replay.json"));
	cr_assert_lt(r.status, 2, "%s", r.err);
	/* and a bench file from a machine with a long name */
	f = fopen(tpath("out/bench.json"), "w");
	cr_assert_not_null(f);
	fputs("{\"schema\":\"gpuiso-bench/1\",\"host\":\"a-build-machine-with-a-long-name\",\"git_rev\":null,"
	      "\"metrics\":{\"x.y_ns\":{\"value\":1,\"unit\":\"ns\"}}}\n", f);
	fclose(f);
	RUN(&r, "store", "add", db, tpath("out"), "--campaign", "manual");
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_assert(strstr(r.out, "2 runs added"), "%s", r.out);
	RUN(&r, "store", "list", db);
	/* the columns line up whatever the host's name: the last one starts where its heading does */
	column = strstr(r.out, "campaign or trace") - r.out;
	for (line = strchr(r.out, '\n') + 1; *line; line = strchr(line, '\n') + 1)
		cr_assert_eq(strstr(line, "manual") - line, column, "%s", r.out);
}

Test(measure, compare_is_a_ci_gate)
{
	struct run r;

	results_file("before.json", "r1", 1, 1000);
	RUN(&r, "compare", tpath("before.json"), results_file("worse.json", "r2", 2, 1300));
	cr_assert_eq(r.status, 1, "%s%s", r.out, r.err);
	cr_assert(strstr(r.out, "ops.alloc_mdl.modeled_ns.p99") && strstr(r.out, "+30.0%") &&
		  strstr(r.out, "REGRESSED") && strstr(r.out, "exact"), "%s", r.out);
	RUN(&r, "compare", tpath("before.json"), results_file("better.json", "r2", 2, 700));
	cr_assert_eq(r.status, 0, "%s", r.out);
	cr_assert(strstr(r.out, "improved"), "%s", r.out);
	/* modeled time is exact: no threshold makes a change of it noise */
	RUN(&r, "compare", tpath("before.json"), tpath("worse.json"), "--threshold", "50");
	cr_assert_eq(r.status, 1, "%s", r.out);
	RUN(&r, "compare", tpath("before.json"));
	cr_assert_eq(r.status, 2);
	RUN(&r, "compare", tpath("before.json"), tpath("missing.json"));
	cr_assert_eq(r.status, 2);
}

/* One wall-clock sample a side is shown, never a verdict; unless a threshold is asked for. */
Test(measure, one_wall_clock_sample_a_side_is_not_judged)
{
	struct run r;

	results_file_timed("one.json", "r1", 1, 1000, 500);
	results_file_timed("two.json", "r2", 2, 1000, 5000);
	RUN(&r, "compare", tpath("one.json"), tpath("two.json"));
	cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
	cr_assert(strstr(r.out, "ops.alloc_mdl.latency_ns.p50") && strstr(r.out, "+900.0%") &&
		  strstr(r.out, "too few samples to judge (1/1, 3 a side)"), "%s", r.out);
	/* p99 over 10 operations, and a maximum, are never judged */
	RUN(&r, "compare", tpath("one.json"), tpath("two.json"), "--threshold", "10");
	cr_assert_eq(r.status, 1, "an explicit threshold gates: %s", r.out);
	cr_assert(strstr(r.out, "threshold 10% (1/1)"), "%s", r.out);
}

Test(measure, compare_revisions_in_a_store_with_repeated_samples)
{
	DB_PATH(db);
	char name[32];
	struct run r;

	/* five runs per revision: bbbb's wall clock is twice aaaa's, every time */
	for (int i = 0; i < 5; i++) {
		snprintf(name, sizeof(name), "a%d.json", i);
		results_file_timed(name, "aaaa1111", 1, 1000, 500 + i);
		snprintf(name, sizeof(name), "b%d.json", i);
		results_file_timed(name, "bbbb2222", 2, 1000, 1000 + i);
		RUN(&r, "store", "add", db, tpath(name));
		cr_assert_eq(r.status, 0, "%s", r.err);
	}
	for (int i = 0; i < 5; i++) {
		snprintf(name, sizeof(name), "a%d.json", i);
		RUN(&r, "store", "add", db, tpath(name));
		cr_assert_eq(r.status, 0, "%s", r.err);
	}
	RUN(&r, "compare", "--db", db, "aaaa", "bbbb", "--metric", "ops.alloc_mdl.*");
	cr_assert_eq(r.status, 1, "%s%s", r.out, r.err);
	cr_assert(strstr(r.out, "ops.alloc_mdl.latency_ns.p50") && strstr(r.out, "U p=") &&
		  strstr(r.out, "REGRESSED"), "%s", r.out);
	cr_assert(strstr(r.out, "results trace=traces/desktop backend=sim host=h"),
		  "the benchmark is named: %s", r.out);
	RUN(&r, "compare", "--db", db, "aaaa", "cccc");
	cr_assert_eq(r.status, 2);
	cr_assert(strstr(r.err, "no stored run of revision 'cccc'"), "%s", r.err);
	/* a prefix of several revisions is not the union of them */
	results_file("c.json", "aaaa3333", 3, 1000);
	RUN(&r, "store", "add", db, tpath("c.json"));
	cr_assert_eq(r.status, 0, "%s", r.err);
	RUN(&r, "compare", "--db", db, "aaaa", "bbbb");
	cr_assert_eq(r.status, 2, "%s", r.out);
	cr_assert(strstr(r.err, "'aaaa' is ambiguous") && strstr(r.err, "aaaa1111") &&
		  strstr(r.err, "aaaa3333"), "%s", r.err);
	/* a glob that matches nothing is no passed gate */
	RUN(&r, "compare", "--db", db, "aaaa1", "bbbb", "--metric", "ops.no_such_op.*");
	cr_assert_eq(r.status, 2, "%s", r.out);
	cr_assert(strstr(r.err, "matches no metric"), "%s", r.err);
}

Test(measure, changes_name_the_revision_where_a_level_changed)
{
	DB_PATH(db);
	char name[32], rev[32];
	struct run r;

	/* device time steps up at rev09; wall clock wanders but keeps its level */
	for (int i = 0; i < 16; i++) {
		snprintf(name, sizeof(name), "n%02d.json", i);
		snprintf(rev, sizeof(rev), "rev%02d", i);
		results_file_timed(name, rev, i + 1, i < 9 ? 1000 : 1400, 500 + (i * 7) % 11);
	}
	RUN(&r, "store", "add", db, tdir);
	cr_assert_eq(r.status, 0, "%s", r.err);
	RUN(&r, "changes", db, "--metric", "ops.alloc_mdl.*");
	cr_assert_eq(r.status, 1, "the last change made it worse: %s%s", r.out, r.err);
	cr_assert(strstr(r.out, "ops.alloc_mdl.modeled_ns.p99") && strstr(r.out, "rev08") &&
		  strstr(r.out, "rev09") && strstr(r.out, "REGRESSED") && strstr(r.out, "ALARM"),
		  "%s", r.out);
	cr_assert_null(strstr(r.out, "latency_ns"), "noise is no change: %s", r.out);
	RUN(&r, "changes", db, "--metric", "invariants.*");
	cr_assert_eq(r.status, 0, "%s", r.out);
	cr_assert(strstr(r.out, "0 changes"), "%s", r.out);
	RUN(&r, "changes", db, "--metric", "invariantz.*");
	cr_assert_eq(r.status, 2, "%s", r.out);
	cr_assert(strstr(r.err, "no stored series matches"), "%s", r.err);
	/* the JSON says the same, for scripts */
	RUN(&r, "changes", db, "--metric", "ops.alloc_mdl.modeled_ns.p99", "--json", "-");
	cr_assert_eq(r.status, 1, "%s", r.err);
	cr_assert(strstr(r.out, "\"schema\": \"gpuiso-changes/1\"") && strstr(r.out, "\"alarms\": 1") &&
		  strstr(r.out, "\"revision\": \"rev09\"") && strstr(r.out, "\"last_good\": \"rev08\"") &&
		  strstr(r.out, "\"p\": \"exact\"") && strstr(r.out, "\"acknowledged\": false"),
		  "%s", r.out);
	/* acknowledged, it no longer fails the gate; an acknowledgement of nothing is refused */
	RUN(&r, "ack", db, "--metric", "ops.alloc_mdl.modeled_ns.*", "--rev", "rev10", "--note", "x");
	cr_assert_eq(r.status, 2, "no change at rev10: %s", r.err);
	RUN(&r, "ack", db, "--metric", "ops.alloc_mdl.modeled_ns.*", "--rev", "rev09", "--note",
	    "bigger pages cost more");
	cr_assert_eq(r.status, 0, "%s", r.err);
	RUN(&r, "changes", db, "--metric", "ops.alloc_mdl.*");
	cr_assert_eq(r.status, 0, "%s", r.out);
	cr_assert(strstr(r.out, "acknowledged: bigger pages cost more"), "%s", r.out);
	/* a site that cannot be written: the environment, as for every other output */
	RUN(&r, "dash", db, "-o", "/nonexistent/gpuiso-site");
	cr_assert_eq(r.status, 3, "%s", r.err);
	RUN(&r, "dash", db, "-o", tpath("site"), "--rev-url", "https://x/%d");
	cr_assert_eq(r.status, 2, "a URL that is no format for a revision: %s", r.err);
}

/* A writer killed at any moment leaves the store as before or with everything. */
Test(measure, a_writer_killed_midway_loses_nothing)
{
	const char *bin = getenv("GPUISO_BIN");
	DB_PATH(db);
	char name[32], dir[256];
	struct run r;

	RUN(&r, "store", "add", db, results_file("first.json", "r0", 1, 1000));
	cr_assert_eq(r.status, 0, "%s", r.err);
	snprintf(dir, sizeof(dir), "%s", tpath("many"));
	mkdir(dir, 0777);
	for (int i = 0; i < 300; i++) {
		snprintf(name, sizeof(name), "many/m%03d.json", i);
		results_file(name, "r1", 2, 1000 + i);
	}
	for (int attempt = 0; attempt < 12; attempt++) {
		int n, status;
		pid_t pid = fork();

		if (!pid) {
			execl(bin, "gpuiso", "store", "add", db, dir, (char *)NULL);
			_exit(127);
		}
		usleep((useconds_t)(attempt * 15000));
		kill(pid, SIGKILL);
		cr_assert_eq(waitpid(pid, &status, 0), pid);
		n = stored_runs(db);
		cr_assert(n == 1 || n == 301, "after a kill at %d ms: %d runs", attempt * 15, n);
		RUN(&r, "store", "list", db);
		cr_assert_eq(r.status, 0, "the store still opens: %s", r.err);
		if (n == 301)
			break;
	}
	RUN(&r, "store", "add", db, dir);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_assert_eq(stored_runs(db), 301);
}

Test(measure, the_nightly_job_stores_and_publishes)
{
	const char *root = getenv("GPUISO_SOURCE_ROOT"), *bin = getenv("GPUISO_BIN");
	char cmd[1024], site[256];
	DB_PATH(db);

	snprintf(site, sizeof(site), "%s/site", tdir);
	snprintf(cmd, sizeof(cmd), "GPUISO=%s %s/scripts/nightly -d %s -o %s --no-bench >%s/log 2>&1",
		 bin, root, db, site, tdir);
	for (int night = 1; night <= 2; night++) {
		int rc = system(cmd);

		if (rc) { /* the cause is at the end of what the job said */
			char log[3001] = "";
			FILE *f = fopen(tpath("log"), "r");

			if (f && fseek(f, -3000, SEEK_END)) /* a shorter log: all of it */
				rewind(f);
			if (f) {
				log[fread(log, 1, sizeof(log) - 1, f)] = '\0';
				fclose(f);
			}
			cr_assert_fail("night %d: exit %d: %s\n%s", night, WIFEXITED(rc) ? WEXITSTATUS(rc) : -1,
				       cmd, log);
		}
		/* five replays of five repeats and the campaign summary per night */
		cr_assert_eq(stored_runs(db), 26 * night);
	}
	snprintf(cmd, sizeof(cmd), "grep -q 'campaign nightly-pin' %s/campaigns.html", site);
	cr_assert_eq(system(cmd), 0, "the campaign is published");
	snprintf(cmd, sizeof(cmd), "grep -q '<meta name=\"gpuiso-regressions\" content=\"0\">' %s/index.html",
		 site);
	cr_assert_eq(system(cmd), 0, "two nights of the same code: no alarm");
}

/* Run SQL on a store as the sqlite3 shell would (no foreign keys enforced). */
static void store_sql(const char *db, const char *sql)
{
	sqlite3 *h;

	cr_assert_eq(sqlite3_open(db, &h), SQLITE_OK);
	cr_assert_eq(sqlite3_exec(h, sql, NULL, NULL, NULL), SQLITE_OK, "%s", sqlite3_errmsg(h));
	sqlite3_close(h);
}

/* Damage a user can do to a store with the sqlite3 shell is read, not crashed on. */
Test(measure, a_store_edited_by_hand_is_read_not_crashed_on)
{
	DB_PATH(db);
	char cmd[512];
	struct run r;
	FILE *f;

	f = fopen(tpath("campaign.json"), "w");
	cr_assert_not_null(f);
	fputs("{\"schema\":\"gpuiso-campaign/1\",\"name\":\"c\",\"runs\":1,\"passed\":0,\"failed\":1,"
	      "\"failures\":[{\"id\":\"x\",\"reason\":\"r\",\"reproduce\":\"gpuiso replay t\"}]}\n", f);
	fclose(f);
	RUN(&r, "store", "add", db, results_file("a.json", "r1", 1, 1000), results_file("b.json", "r2", 2, 1000),
	    tpath("campaign.json"));
	cr_assert_eq(r.status, 0, "%s", r.err);
	/* one byte of a stored run's JSON changed: SQLite does not check row contents */
	store_sql(db, "UPDATE runs SET json = replace(json, '\"failures\":[', '\"failures\":[[') "
		      "WHERE kind = 'campaign'");
	/* a run deleted without its metrics, as the shell does */
	store_sql(db, "DELETE FROM runs WHERE key = 'results/a.json'");
	RUN(&r, "dash", db, "-o", tpath("site"));
	cr_assert_eq(r.status, 0, "%s", r.err);
	snprintf(cmd, sizeof(cmd), "grep -q 'its stored JSON does not read' %s", tpath("site/campaigns.html"));
	cr_assert_eq(system(cmd), 0, "the damaged run is said, not dropped");
	RUN(&r, "changes", db);
	cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
	RUN(&r, "compare", "--db", db, "r2", "r2");
	cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
	/* a schema version no gpuiso wrote: refused, not indexed with */
	store_sql(db, "PRAGMA user_version = -1");
	RUN(&r, "store", "list", db);
	cr_assert_eq(r.status, 2, "%s", r.err);
	cr_assert(strstr(r.err, db) && strstr(r.err, "-1"), "%s", r.err);
}

/* A store damaged past its header: every reader says so, naming it, and exits 2. */
Test(measure, a_damaged_store_is_bad_input_named_by_every_reader)
{
	DB_PATH(db);
	unsigned char junk[16];
	struct stat st;
	struct run r;
	FILE *f;

	RUN(&r, "store", "add", db, results_file("a.json", "r1", 1, 1000), results_file("b.json", "r2", 2, 1000));
	cr_assert_eq(r.status, 0, "%s", r.err);
	/* the header page stays: it opens; every other page's header is junk */
	memset(junk, 0xff, sizeof(junk));
	cr_assert_eq(stat(db, &st), 0);
	f = fopen(db, "r+");
	cr_assert_not_null(f);
	for (long at = 4096; at < st.st_size; at += 4096) {
		fseek(f, at, SEEK_SET);
		fwrite(junk, 1, sizeof(junk), f);
	}
	fclose(f);
	for (int reader = 0; reader < 4; reader++) {
		if (reader == 0)
			RUN(&r, "store", "list", db);
		else if (reader == 1)
			RUN(&r, "changes", db);
		else if (reader == 2)
			RUN(&r, "dash", db, "-o", tpath("site"));
		else
			RUN(&r, "compare", "--db", db, "r1", "r2");
		cr_assert_eq(r.status, 2, "reader %d: %s", reader, r.err);
		cr_assert(strstr(r.err, db) && strstr(r.err, "corrupt"), "reader %d: %s", reader, r.err);
	}
}

/* @name in the test's folder holding @text. */
static const char *text_file(const char *name, const char *text)
{
	const char *path = tpath(name);
	FILE *f = fopen(path, "w");

	cr_assert_not_null(f);
	fputs(text, f);
	cr_assert_eq(fclose(f), 0);
	return path;
}

/* Night @night of campaign c.yaml into the store, as revision r<night>. */
static void night(const char *db, int night)
{
	char out[32], summary[48], rev[8], date[32];
	struct run r;

	snprintf(out, sizeof(out), "night%d", night);
	snprintf(summary, sizeof(summary), "night%d/summary.json", night);
	snprintf(rev, sizeof(rev), "r%d", night);
	snprintf(date, sizeof(date), "2026-11-0%dT00:00:00Z", night);
	RUN(&r, "campaign", "run", tpath("c.yaml"), "-o", tpath(out));
	cr_assert_eq(r.status, 1, "the campaign fails a run every night: %s%s", r.out, r.err);
	cr_assert(strstr(r.out, ", 1 finding;"), "%s", r.out);
	RUN(&r, "store", "add", db, tpath(summary), "--rev", rev, "--date", date);
	cr_assert_eq(r.status, 0, "%s", r.err);
}

/*
 * Real campaigns, nightly: the same campaign twice finds nothing new the
 * second night; the scenario changed (a driver that now reports DMA
 * remapping, and still calls the WDDM 2.4 callbacks) gives a new finding
 * at that revision, and the old one is gone.
 */
Test(measure, a_campaign_night_after_night_says_new_only_when_it_is)
{
	char scenario[8192], *s;
	size_t n;
	DB_PATH(db);
	struct run r;
	FILE *f;

	RUN(&r, "trace", "gen", "--profile", "power-cycle", "--events", "300", "--seed", "1", "-o",
	    tpath("pc"));
	cr_assert_eq(r.status, 0, "%s", r.err);
	f = fopen("traces/scenarios/default.yaml", "r");
	cr_assert_not_null(f, "run from the source root");
	n = fread(scenario, 1, sizeof(scenario) - 1, f);
	fclose(f);
	scenario[n] = '\0';
	text_file("s.yaml", scenario);
	text_file("c.yaml", "campaign:\n  name: nights\n  traces: [pc]\n  scenario: s.yaml\n"
			    "  runs:\n    - name: unmap-fails\n"
			    "      faults: [{point: iommu/unmap, nth: 1}]\n");
	night(db, 1);
	night(db, 2);
	RUN(&r, "store", "findings", db);
	cr_assert(strstr(r.out, "revision r2: 1 finding: 0 new, 1 known, 0 gone\n"
				"    known  "), "%s", r.out);
	cr_assert(strstr(r.out, "MAPPING_LEAK at teardown  (since r1)"), "%s", r.out);
	/* the driver now reports DXGK_IOMMU_CAPS: its WDDM 2.4 callbacks are refused */
	s = strstr(scenario, "wddm: \"2.9\"");
	cr_assert_not_null(s);
	memcpy(s, "wddm: \"3.0\"", 11);
	s = strstr(scenario, "iommu_linear_remap: false");
	cr_assert_not_null(s);
	memcpy(s, "iommu_linear_remap: true ", 25);
	text_file("s.yaml", scenario);
	night(db, 3);
	RUN(&r, "store", "findings", db);
	cr_assert_eq(r.status, 1, "%s", r.err);
	cr_assert(strstr(r.out, "revision r3: 1 finding: 1 new, 0 known, 1 gone\n"), "%s", r.out);
	cr_assert(strstr(r.out, "    new    "), "%s", r.out);
	cr_assert(strstr(r.out, "driver  1 run  iommu/unmap during fence_destroy \u2192 DEPRECATED_CALLBACK\n"),
		  "%s", r.out);
	cr_assert(strstr(r.out, "    gone   "), "%s", r.out);
	cr_assert(strstr(r.out, "MAPPING_LEAK at teardown  (last in r2)"), "%s", r.out);
}

/* The whole of @path, NUL-terminated (free() it). */
static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	char buf[4096];
	size_t n;

	cr_assert_not_null(f, "%s", path);
	cr_assert_not_null(out);
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		fwrite(buf, 1, n, out);
	fclose(f);
	fclose(out);
	return text;
}

/*
 * Paths are bytes, JSON is UTF-8: the results, trace information and sweep
 * summary of a trace whose folder's name is not UTF-8 are JSON, the store
 * takes them, and keeps the path as it was: two paths that differ only in
 * such a byte stay two.
 */
Test(measure, paths_that_are_not_utf8_are_json_and_stored_as_they_are)
{
	static const char *const byte[] = { "\xff", "\xfe" };
	DB_PATH(db);
	char name[32], json[32], trace[2][256], *doc;
	sqlite3_stmt *st;
	struct run r;
	sqlite3 *h;
	int n = 0;

	for (int i = 0; i < 2; i++) {
		snprintf(name, sizeof(name), "tr%s\xfe", byte[i]);
		snprintf(trace[i], sizeof(trace[i]), "%s", tpath(name));
		RUN(&r, "trace", "gen", "--profile", "remap", "--events", "100", "-o", trace[i]);
		cr_assert_eq(r.status, 0, "%s", r.err);
		snprintf(json, sizeof(json), "results-%d.json", i);
		RUN(&r, "replay", trace[i], "--json", tpath(json));
		cr_assert_lt(r.status, 2, "%s", r.err);
		doc = slurp(tpath(json));
		cr_assert(jsonq_valid(doc), "replay --json: not JSON: %s", doc);
		cr_assert(strstr(doc, i ? "tr\\udcfe\\udcfe" : "tr\\udcff\\udcfe"), "%s", doc);
		free(doc);
	}
	RUN(&r, "trace", "info", trace[0], "--json");
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_assert(jsonq_valid(r.out), "trace info --json: not JSON: %s", r.out);
	RUN(&r, "sweep", trace[0], "--scenario", "traces/scenarios/lda-chain.yaml", "--points",
	    "domain/*", "-o", tpath("sweep\xff"));
	cr_assert_lt(r.status, 2, "%s", r.err);
	doc = slurp(tpath("sweep\xff/summary.json"));
	cr_assert(jsonq_valid(doc), "summary.json: not JSON: %s", doc);
	free(doc);

	RUN(&r, "store", "add", db, tpath("results-0.json"), tpath("results-1.json"),
	    tpath("sweep\xff/summary.json"));
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_assert(strstr(r.out, "3 runs added"), "%s", r.out);
	cr_assert_eq(sqlite3_open(db, &h), SQLITE_OK);
	cr_assert_eq(sqlite3_prepare_v2(h, "SELECT trace, inputs FROM runs ORDER BY id", -1, &st, NULL),
		     SQLITE_OK);
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *t = (const char *)sqlite3_column_text(st, 0);
		const char *inputs = (const char *)sqlite3_column_text(st, 1);

		cr_assert_str_eq(t, trace[n % 2 ? 1 : 0], "run %d", n);
		cr_assert(inputs && !strncmp(inputs, t, strlen(t)) && inputs[strlen(t)] == '=',
			  "run %d: %s", n, inputs);
		n++;
	}
	sqlite3_finalize(st);
	cr_assert_eq(sqlite3_prepare_v2(h, "SELECT count(DISTINCT benchmark) FROM runs", -1, &st, NULL),
		     SQLITE_OK);
	cr_assert_eq(sqlite3_step(st), SQLITE_ROW);
	cr_assert_eq(sqlite3_column_int(st, 0), 3);
	sqlite3_finalize(st);
	sqlite3_close(h);
	cr_assert_eq(n, 3);
}

/*
 * A store of an earlier gpuiso (schema version 2) with one byte of a
 * sweep's stored JSON changed (tests/data/stores/): whichever reader opens
 * it first upgrades it whole, says which run it kept out and why, and
 * reads it; SQLite's "not an error" is never the message.
 */
Test(measure, a_damaged_run_of_an_old_store_is_kept_out_and_said)
{
	DB_PATH(db);
	char cmd[1024];
	struct run r;

	for (int reader = 0; reader < 3; reader++) {
		snprintf(cmd, sizeof(cmd), "cp '%s/tests/data/stores/v2-damaged-sweep.sqlite' %s",
			 getenv("GPUISO_SOURCE_ROOT"), db);
		cr_assert_eq(system(cmd), 0);
		if (reader == 0)
			RUN(&r, "store", "list", db);
		else if (reader == 1)
			RUN(&r, "changes", db);
		else
			RUN(&r, "dash", db, "-o", tpath("site"));
		cr_assert_eq(r.status, 0, "reader %d: %s", reader, r.err);
		cr_assert(strstr(r.err, db) && strstr(r.err, "run 3 kept out") &&
			  strstr(r.err, "stored JSON does not read (run 3:8:13: error:"),
			  "reader %d: %s", reader, r.err);
		cr_assert_null(strstr(r.err, "not an error"), "reader %d: %s", reader, r.err);
	}
	/* the upgrade is done once: said once */
	RUN(&r, "store", "list", db);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_assert_str_eq(r.err, "");
	cr_assert(strstr(r.out, "traces/desktop") && strstr(r.out, "traces/power-cycle") &&
		  strstr(r.out, "sweep "), "every run is kept: %s", r.out);
}

/*
 * A store written before gpuiso read the contexts of findings
 * (tests/data/stores/): they are read from its stored summary, no upgrade,
 * and listed as summary.txt lists them.
 */
Test(measure, contexts_of_a_store_written_before_them_are_listed)
{
	DB_PATH(db);
	char cmd[1024], value[128];
	struct run r;

	snprintf(cmd, sizeof(cmd), "cp '%s/tests/data/stores/v4-sweep-contexts.sqlite' %s",
		 getenv("GPUISO_SOURCE_ROOT"), db);
	cr_assert_eq(system(cmd), 0);
	RUN(&r, "store", "findings", db);
	cr_assert_eq(r.status, 1, "its finding is new: %s", r.err);
	cr_assert_str_eq(r.err, "", "no upgrade, nothing to say");
	cr_assert(strstr(r.out, "MAPPING_LEAK at teardown\n"
				"           in alloc_destroy (2 runs, hits 22..34), fence_destroy (5 runs, "
				"hits 4..32), free_contiguous (6 runs, hits 10..35), free_mdl (11 runs, hits "
				"2..30), power (8 runs, hits 1..28), teardown (3 runs, hits 36..38), transfer "
				"(1 run, hits 8..8), unmap_mdl (2 runs, hits 3..29)\n"
				"           /"), "the contexts under the title: %s", r.out);
	RUN(&r, "store", "findings", db, "--json");
	cr_assert_eq(r.status, 1, "%s", r.err);
	cr_assert(jsonq_valid(r.out), "%s", r.out);
	cr_assert(jsonq_get(r.out, "series.0.runs.0.findings.0.contexts.0.operation", value,
			    sizeof(value)), "%s", r.out);
	cr_assert_str_eq(value, "alloc_destroy");
	cr_assert(jsonq_get(r.out, "series.0.runs.0.findings.0.contexts.7.nth_max", value, sizeof(value)));
	cr_assert_str_eq(value, "29");
	cr_assert(jsonq_get(r.out, "series.0.runs.0.findings.0.contexts.6.runs", value, sizeof(value)));
	cr_assert_str_eq(value, "1");
	cr_assert_not(jsonq_get(r.out, "series.0.runs.0.findings.0.contexts.8", value, sizeof(value)));
}

/* A store whose schema version was reset under its tables is a damaged store: bad input, untouched. */
Test(measure, a_reset_schema_version_is_a_damaged_store)
{
	DB_PATH(db);
	struct run r;

	RUN(&r, "store", "add", db, results_file("a.json", "r1", 1, 1000));
	cr_assert_eq(r.status, 0, "%s", r.err);
	store_sql(db, "PRAGMA user_version = 0");
	RUN(&r, "store", "list", db);
	cr_assert_eq(r.status, 2, "%s", r.err);
	cr_assert(strstr(r.err, db) && strstr(r.err, "damaged"), "%s", r.err);
	cr_assert_null(strstr(r.err, "already exists"), "%s", r.err);
	RUN(&r, "store", "add", db, results_file("b.json", "r2", 2, 1000));
	cr_assert_eq(r.status, 2, "%s", r.err);
	store_sql(db, "PRAGMA user_version = 4");
	cr_assert_eq(stored_runs(db), 1);
}

/* The first line of @path, or "" (static). */
static const char *first_line(const char *path)
{
	static char line[1024];
	FILE *f = fopen(path, "r");

	line[0] = '\0';
	if (f) {
		if (!fgets(line, sizeof(line), f))
			line[0] = '\0';
		fclose(f);
	}
	line[strcspn(line, "\n")] = '\0';
	return line;
}

/*
 * store add where the store cannot be made (a read-only folder, a full
 * disk; in a mount namespace): the machine's trouble, exit 3, and no store
 * left behind half made (an empty file, "not a gpuiso store" ever after).
 */
Test(measure, a_store_that_cannot_be_made_is_the_environment_and_leaves_nothing)
{
	char cmd[4096], small[256];
	int status;

	snprintf(small, sizeof(small), "%s", tpath("small"));
	results_file("a.json", "r1", 1, 1000);
	snprintf(cmd, sizeof(cmd),
		 "mkdir -p %s && unshare -m sh -c 'mount -t tmpfs -o size=256k tmpfs %s && "
		 "mkdir %s/ro && mount -t tmpfs -o ro,size=64k tmpfs %s/ro && "
		 "\"%s\" store add %s/ro/runs.sqlite %s 2>%s; echo $? >%s; "
		 "dd if=/dev/zero of=%s/fill bs=4k 2>/dev/null; "
		 "\"%s\" store add %s/runs.sqlite %s 2>%s; echo $? >%s; "
		 "echo $(ls -A %s) / $(ls -A %s/ro) >%s'",
		 small, small, small, small, getenv("GPUISO_BIN"), small, tpath("a.json"),
		 tpath("ro.err"), tpath("ro.rc"), small, getenv("GPUISO_BIN"), small, tpath("a.json"),
		 tpath("full.err"), tpath("full.rc"), small, small, tpath("ls"));
	status = system(cmd);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "unshare/mount: %d", status);
	cr_assert_str_eq(first_line(tpath("ro.rc")), "3", "%s", first_line(tpath("ro.err")));
	cr_assert(strstr(first_line(tpath("ro.err")), "Read-only file system"), "%s",
		  first_line(tpath("ro.err")));
	cr_assert_str_eq(first_line(tpath("full.rc")), "3", "%s", first_line(tpath("full.err")));
	cr_assert(strstr(first_line(tpath("full.err")), "full"), "%s", first_line(tpath("full.err")));
	cr_assert_str_eq(first_line(tpath("ls")), "fill ro /", "nothing left behind");
}
