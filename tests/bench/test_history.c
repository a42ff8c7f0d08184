/* SPDX-License-Identifier: MIT */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/changes.h"
#include "bench/history.h"

static char dir[64], db[128];
static struct store *store;

static void setup(void)
{
	char err[256];

	strcpy(dir, "/tmp/gpuiso-history-XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
	snprintf(db, sizeof(db), "%s/runs.sqlite", dir);
	cr_assert_eq(store_open(db, true, &store, err, sizeof(err)), 0, "%s", err);
}

static void teardown(void)
{
	char cmd[128];

	store_close(store);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	cr_assert_eq(system(cmd), 0);
}

TestSuite(history, .init = setup, .fini = teardown);

#define BENCH "results trace=t backend=sim host=h"

/* Store one run of revision @rev, by @code: device time @modeled, wall clock @wall over @ops operations. */
static void run_by(const char *code, const char *rev, int day, int rep, double modeled, double wall,
		   double ops, const char *inputs)
{
	struct run_metric m[] = {
		{ (char *)"ops.a.modeled_ns.p99", modeled, "ns" },
		{ (char *)"ops.a.latency_ns.p50", wall, "ns" },
		{ (char *)"ops.a.latency_ns.p99", wall * 2, "ns" },
		{ (char *)"ops.a.latency_ns.max", wall * 9, "ns" },
		{ (char *)"ops.a.count", ops, "count" },
	};
	char key[64], date[32], err[256];
	struct run_record r = { .kind = RUN_RESULTS, .key = key, .git_rev = (char *)rev, .date = date,
				.json = (char *)"{}", .benchmark = (char *)BENCH, .inputs = (char *)inputs,
				.code = (char *)code, .metrics = m, .nmetrics = 5 };
	size_t added;

	snprintf(key, sizeof(key), "%s-%d", rev, rep);
	snprintf(date, sizeof(date), "2026-%02d-%02dT00:00:0%dZ", 1 + day / 28, 1 + day % 28, rep);
	cr_assert_eq(store_add(store, &r, 1, &added, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(added, 1);
}

/* A run of unknown code. */
static void run(const char *rev, int day, int rep, double modeled, double wall, double ops,
		const char *inputs)
{
	run_by(NULL, rev, day, rep, modeled, wall, ops, inputs);
}

static const struct history_opts opts = { .alpha = 0.01, .threshold = 0.10 };

static const struct series *series(const struct history *h, const char *metric)
{
	const struct series *sr = history_find(h, BENCH, metric);

	cr_assert_not_null(sr, "no series %s", metric);
	return sr;
}

Test(history, an_exact_series_changes_where_a_revision_differs_and_says_why)
{
	static const char *const before = "t=00000000000000aa\nscn=0000000000000001\n";
	static const char *const after = "t=00000000000000aa\nscn=0000000000000002\n";
	struct store_ack ack = { "*", "ops.a.modeled_ns.*", "r04", "slower clock", NULL };
	struct history h;
	const struct series *sr;
	char rev[8], err[256];

	for (int d = 0; d < 8; d++) {
		snprintf(rev, sizeof(rev), "r%02d", d);
		for (int rep = 0; rep < 3; rep++)
			run(rev, d, rep, d < 4 ? 1000 : 1001, 500, 200, d < 4 ? before : after);
	}
	cr_assert_eq(history_load(store, &opts, &h), 0);
	sr = series(&h, "ops.a.modeled_ns.p99");
	cr_assert_eq(sr->nrevs, 8, "three runs a revision are its samples");
	cr_assert_eq(sr->nchanges, 1, "+0.1%% is a change of an exact metric");
	cr_assert_eq(sr->changes[0].at, 4);
	cr_assert_str_eq(sr->revs[sr->changes[0].at].rev, "r04");
	cr_assert_str_eq(sr->revs[4].changed, "scn", "what changed under its name");
	cr_assert_null(sr->revs[5].changed);
	cr_assert(isnan(sr->changes[0].p));
	cr_assert(sr->alarm);
	cr_assert_eq(history_alarms(&h), 1);
	history_free(&h);

	cr_assert_eq(store_ack_add(store, &ack, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(history_load(store, &opts, &h), 0);
	sr = series(&h, "ops.a.modeled_ns.p99");
	cr_assert_str_eq(sr->changes[0].ack_note, "slower clock");
	cr_assert_not(sr->alarm, "acknowledged");
	history_free(&h);

	/* a later change of the same series alarms again; an input no longer read is named too */
	run("r08", 8, 0, 1002, 500, 200, "t=00000000000000aa\n");
	run("r09", 9, 0, 1002, 500, 200, "scn=0000000000000002\nt=00000000000000aa\n");
	cr_assert_eq(history_load(store, &opts, &h), 0);
	sr = series(&h, "ops.a.modeled_ns.p99");
	cr_assert_eq(sr->nchanges, 2);
	cr_assert(sr->alarm);
	cr_assert_str_eq(sr->revs[8].changed, "scn");
	cr_assert_str_eq(sr->revs[9].changed, "scn");
	history_free(&h);
}

Test(history, a_measured_series_changes_by_level_not_by_night)
{
	struct history h;
	const struct series *sr;
	char rev[8];

	/* twelve revisions of noise around 500 ns, then six at 1000 */
	for (int d = 0; d < 18; d++) {
		snprintf(rev, sizeof(rev), "r%02d", d);
		for (int rep = 0; rep < 3; rep++)
			run(rev, d, rep, 1000, (d < 12 ? 500 : 1000) + (d * 37 + rep * 11) % 60, 200, NULL);
	}
	cr_assert_eq(history_load(store, &opts, &h), 0);
	sr = series(&h, "ops.a.latency_ns.p50");
	cr_assert_eq(sr->nchanges, 1);
	cr_assert_str_eq(sr->revs[sr->changes[0].at].rev, "r12");
	cr_assert_eq(sr->changes[0].verdict, COMPARE_REGRESSED);
	cr_assert(sr->changes[0].ci_lo > 0.5 && sr->changes[0].ci_hi < 1.5, "%g..%g",
		  sr->changes[0].ci_lo, sr->changes[0].ci_hi);
	cr_assert_lt(sr->changes[0].p, 0.01);
	/* p99 over 200 operations is judged; a maximum never */
	cr_assert_str_eq(series(&h, "ops.a.latency_ns.p99")->unjudged, "");
	cr_assert(strstr(series(&h, "ops.a.latency_ns.max")->unjudged, "maximum"));
	cr_assert_eq(series(&h, "ops.a.latency_ns.max")->nchanges, 0);
	cr_assert_eq(h.searched, 2, "p50 and p99 are the family");
	history_free(&h);
}

Test(history, a_small_step_or_a_thin_percentile_is_not_a_change)
{
	struct history_opts only = opts;
	struct history h;
	const struct series *sr;
	char rev[8];

	/* +5%, steady: real maybe, under the threshold; 50 operations make no p99 */
	for (int d = 0; d < 12; d++) {
		snprintf(rev, sizeof(rev), "r%02d", d);
		for (int rep = 0; rep < 3; rep++)
			run(rev, d, rep, 1000, d < 6 ? 1000 : 1050, 50, NULL);
	}
	only.metric = "ops.a.latency_ns.p*";
	cr_assert_eq(history_load(store, &only, &h), 0);
	cr_assert_eq(h.n, 2, "the glob shows p50 and p99");
	sr = series(&h, "ops.a.latency_ns.p50");
	cr_assert_eq(sr->nchanges, 0);
	sr = series(&h, "ops.a.latency_ns.p99");
	cr_assert(strstr(sr->unjudged, "p99 needs 100 operations a run (had 50)"), "%s", sr->unjudged);
	cr_assert_eq(h.searched, 1, "the count is read from the store, shown or not");
	history_free(&h);
}

Test(history, noise_is_measured_on_the_revisions_not_compared)
{
	struct history h;
	struct compare_series_noise n;
	struct history_noise_ctx nc = { &h, "r00", "r05" };
	char rev[8];

	for (int d = 0; d < 6; d++) {
		snprintf(rev, sizeof(rev), "r%02d", d);
		/* r00 and r05 far off; the four between at 100 and 200, alternately */
		run(rev, d, 0, 1000, d == 0 ? 10 : d == 5 ? 100000 : d % 2 ? 100 : 200, 200, NULL);
	}
	cr_assert_eq(history_load(store, &opts, &h), 0);
	cr_assert_eq(history_noise(BENCH, "ops.a.latency_ns.p50", &n, &nc), 0);
	cr_assert_eq(n.revisions, 4);
	/* the log of 100, 200, 100, 200: sd = ln 2 / 2 * sqrt(4/3) */
	cr_assert_float_eq(n.sigma, log(2) / 2 * sqrt(4.0 / 3), 1e-9);
	cr_assert_eq(history_noise(BENCH, "ops.none", &n, &nc), -ENOENT);
	history_free(&h);
}

Test(history, changes_as_json_say_exact_or_p)
{
	char path[160], text[4096];
	struct history h;
	size_t len;
	FILE *f;

	for (int d = 0; d < 4; d++)
		run(d < 2 ? (d ? "r1" : "r0") : (d == 2 ? "r2" : "r3"), d, 0, d < 2 ? 10 : 20, 5, 5, NULL);
	cr_assert_eq(history_load(store, &opts, &h), 0);
	snprintf(path, sizeof(path), "%s/changes.json", dir);
	cr_assert_eq(changes_write_json(&h, path), 0);
	f = fopen(path, "r");
	len = fread(text, 1, sizeof(text) - 1, f);
	text[len] = '\0';
	fclose(f);
	cr_assert(strstr(text, "\"alarms\": 1") && strstr(text, "\"metric\": \"ops.a.modeled_ns.p99\"") &&
		  strstr(text, "\"last_good\": \"r1\"") && strstr(text, "\"revision\": \"r2\"") &&
		  strstr(text, "\"p\": \"exact\"") && strstr(text, "\"ci\": null") &&
		  strstr(text, "\"alarm\": true"), "%s", text);
	history_free(&h);
}

/* Wall clock that moves while the code and inputs stay: the machine's, no alarm. */
Test(history, a_measured_change_of_the_same_code_is_the_machines)
{
	struct history h;
	const struct series *sr;
	char rev[8];

	for (int d = 0; d < 12; d++) {
		snprintf(rev, sizeof(rev), "r%02d", d);
		for (int rep = 0; rep < 3; rep++)
			run_by("tree1 release", rev, d, rep, 1000, (d < 6 ? 500 : 1000) + rep, 200, "t=1\n");
	}
	cr_assert_eq(history_load(store, &opts, &h), 0);
	sr = series(&h, "ops.a.latency_ns.p50");
	cr_assert_eq(sr->nchanges, 1, "listed");
	cr_assert(sr->changes[0].machine);
	cr_assert_eq(sr->changes[0].verdict, COMPARE_REGRESSED);
	cr_assert_not(sr->alarm, "not the code's");
	cr_assert_eq(history_alarms(&h), 0);
	history_free(&h);

	/* the same step where the code changed is the code's */
	for (int d = 12; d < 18; d++) {
		snprintf(rev, sizeof(rev), "r%02d", d);
		for (int rep = 0; rep < 3; rep++)
			run_by(d < 15 ? "tree1 release" : "tree2 release", rev, d, rep, d < 15 ? 1000 : 1001,
			       (d < 15 ? 1000 : 2000) + rep, 200, "t=1\n");
	}
	cr_assert_eq(history_load(store, &opts, &h), 0);
	sr = series(&h, "ops.a.latency_ns.p50");
	cr_assert_eq(sr->nchanges, 2);
	cr_assert_not(sr->changes[1].machine);
	cr_assert(sr->alarm);
	/* an exact change of the same code on the same inputs would be a defect: it alarms */
	sr = series(&h, "ops.a.modeled_ns.p99");
	cr_assert_eq(sr->nchanges, 1);
	cr_assert_not(sr->changes[0].machine, "tree2 made it");
	history_free(&h);
}

Test(history, an_exact_change_of_the_same_code_is_not_deterministic)
{
	struct history h;
	const struct series *sr;

	run_by("tree1 release", "r0", 0, 0, 1000, 500, 200, "t=1\n");
	run_by("tree1 release", "r1", 1, 0, 1001, 500, 200, "t=1\n");
	cr_assert_eq(history_load(store, &opts, &h), 0);
	sr = series(&h, "ops.a.modeled_ns.p99");
	cr_assert_eq(sr->nchanges, 1);
	cr_assert(sr->changes[0].machine);
	cr_assert(sr->alarm, "exact figures of the same code and inputs must not move");
	cr_assert(strstr(change_cause(sr, &sr->changes[0]), "NOT DETERMINISTIC"));
	history_free(&h);
}

/* Store a run of @benchmark: revision @rev on @date, inputs and code (or NULL), values of @names. */
static void run_of(const char *benchmark, const char *rev, const char *date, const char *inputs,
		   const char *code, const char *const *names, double value)
{
	struct run_metric m[8];
	char key[96], err[256];
	struct run_record r = { .kind = RUN_RESULTS, .key = key, .git_rev = (char *)rev,
				.date = (char *)date, .json = (char *)"{}", .benchmark = (char *)benchmark,
				.inputs = (char *)inputs, .code = (char *)code, .metrics = m };
	size_t added;

	for (; names[r.nmetrics]; r.nmetrics++)
		m[r.nmetrics] = (struct run_metric){ (char *)names[r.nmetrics], value + (double)r.nmetrics,
						     "count" };
	snprintf(key, sizeof(key), "%s %s", benchmark, date);
	cr_assert_eq(store_add(store, &r, 1, &added, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(added, 1);
}

/*
 * The store hands its values over run by run: each goes into the series of
 * its benchmark and metric, in run order (date, then when added), whatever
 * each run holds and in whatever order the runs were added.
 */
Test(history, a_series_is_one_metric_of_one_benchmark_whatever_the_runs_hold)
{
	static const char *const ac[] = { "a", "c", NULL }, *const abc[] = { "a", "b", "c", NULL };
	static const char *const c[] = { "c", NULL }, *const a[] = { "a", NULL };
	struct history_opts only_b = opts;
	struct history h;
	const struct series *sr;

	/* added out of date order: the dates decide */
	run_of("results trace=y", "r2", "2026-01-03T00:00:00Z", "t=2\n", NULL, abc, 30);
	run_of("results trace=y", "r1", "2026-01-01T00:00:00Z", "t=1\n", "tree1", ac, 10);
	run_of("results trace=x", "r1", "2026-01-01T00:00:00Z", NULL, NULL, abc, 100);
	/* a run without b, of the revision before's again; then a run without inputs or code */
	run_of("results trace=y", "r2", "2026-01-02T00:00:00Z", "t=3\n", "tree2", c, 20);
	run_of("results trace=y", "r1", "2026-01-04T00:00:00Z", "t=1\n", "tree1", a, 40);
	run_of("results trace=y", "r1", "2026-01-05T00:00:00Z", NULL, NULL, abc, 50);
	cr_assert_eq(history_load(store, &opts, &h), 0);
	cr_assert_eq(h.n, 6, "three metrics of two benchmarks");
	for (size_t i = 1; i < h.n; i++)
		cr_assert_lt(strcmp(h.s[i - 1].benchmark, h.s[i].benchmark) ?: strcmp(h.s[i - 1].metric, h.s[i].metric),
			     0, "in order");
	cr_assert_null(history_find(&h, "results trace=y", "d"));
	cr_assert_null(history_find(&h, "results trace=z", "a"));

	/* a: r1 (10), r2 (30), r1 again (40, 50): a revision back is a revision of its own */
	sr = history_find(&h, "results trace=y", "a");
	cr_assert_not_null(sr);
	cr_assert_eq(sr->nrevs, 3);
	cr_assert_str_eq(sr->revs[0].rev, "r1");
	cr_assert_str_eq(sr->revs[1].rev, "r2");
	cr_assert_str_eq(sr->revs[2].rev, "r1");
	cr_assert_eq(sr->revs[2].n, 2);
	cr_assert_eq(sr->revs[2].v[0], 40);
	cr_assert_eq(sr->revs[2].v[1], 50);
	cr_assert_eq(sr->revs[2].value, 45);
	cr_assert_str_eq(sr->revs[2].date, "2026-01-04T00:00:00Z", "the date of its first run");
	cr_assert_str_eq(sr->revs[2].inputs, "t=1\n", "of its last run that says them");
	cr_assert_str_eq(sr->revs[2].code, "tree1");
	cr_assert_str_eq(sr->revs[1].inputs, "t=2\n");
	cr_assert_null(sr->revs[1].code);
	cr_assert_str_eq(sr->revs[1].changed, "t");

	/* b: first in the third run; not in the fourth and fifth */
	sr = history_find(&h, "results trace=y", "b");
	cr_assert_not_null(sr);
	cr_assert_eq(sr->nrevs, 2);
	cr_assert_str_eq(sr->revs[0].rev, "r2");
	cr_assert_eq(sr->revs[0].v[0], 31);
	cr_assert_str_eq(sr->revs[1].rev, "r1");
	cr_assert_eq(sr->revs[1].v[0], 51);

	/* c: r1 (11), r2 (20, 32), r1 (52): two runs of r2 in a row are its samples */
	sr = history_find(&h, "results trace=y", "c");
	cr_assert_not_null(sr);
	cr_assert_eq(sr->nrevs, 3);
	cr_assert_eq(sr->revs[0].v[0], 11);
	cr_assert_eq(sr->revs[1].n, 2);
	cr_assert_eq(sr->revs[1].v[0], 20);
	cr_assert_eq(sr->revs[1].v[1], 32);
	cr_assert_str_eq(sr->revs[1].inputs, "t=2\n", "the last of its runs");
	cr_assert_str_eq(sr->revs[1].code, "tree2", "the last of its runs that says it");
	cr_assert_eq(sr->revs[2].v[0], 52);

	/* the other benchmark's series of the same metrics are its own */
	sr = history_find(&h, "results trace=x", "c");
	cr_assert_not_null(sr);
	cr_assert_eq(sr->nrevs, 1);
	cr_assert_eq(sr->revs[0].v[0], 102);
	cr_assert_null(sr->revs[0].inputs);
	history_free(&h);

	/* a glob keeps its series; the others are still loaded to count the family */
	only_b.metric = "b";
	cr_assert_eq(history_load(store, &only_b, &h), 0);
	cr_assert_eq(h.n, 2);
	cr_assert_str_eq(h.s[0].benchmark, "results trace=x");
	cr_assert_str_eq(h.s[1].benchmark, "results trace=y");
	cr_assert_not_null(history_find(&h, "results trace=y", "b"));
	cr_assert_null(history_find(&h, "results trace=y", "a"));
	history_free(&h);
}

/* A run of a kind a newer gpuiso stored: its benchmark's values are no series this one judges. */
Test(history, a_run_of_an_unknown_kind_starts_no_series)
{
	static const char *const a[] = { "a", NULL };
	struct history h;
	sqlite3 *other;

	run_of("results trace=y", "r1", "2026-01-01T00:00:00Z", NULL, NULL, a, 10);
	cr_assert_eq(sqlite3_open(db, &other), SQLITE_OK);
	cr_assert_eq(sqlite3_exec(other,
				  "INSERT INTO runs (id, key, kind, git_rev, date, json, added, benchmark)"
				  " VALUES (7, 'k7', 'future', 'r1', '2026-01-02T00:00:00Z', '{}', '', 'future x=1');"
				  "INSERT INTO metrics VALUES (7, 'a', 1, 'count'), (7, 'b', 2, 'count');",
				  NULL, NULL, NULL), SQLITE_OK, "%s", sqlite3_errmsg(other));
	sqlite3_close(other);
	cr_assert_eq(history_load(store, &opts, &h), 0);
	cr_assert_eq(h.n, 1);
	cr_assert_not_null(history_find(&h, "results trace=y", "a"));
	cr_assert_eq(history_find(&h, "results trace=y", "a")->nrevs, 1);
	history_free(&h);
}
