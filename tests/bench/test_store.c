/* SPDX-License-Identifier: MIT */
#include <criterion/criterion.h>
#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/store.h"

static char dir[64], db[128];

static void setup(void)
{
	strcpy(dir, "/tmp/gpuiso-store-XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
	snprintf(db, sizeof(db), "%s/runs.sqlite", dir);
}

static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	cr_assert_eq(system(cmd), 0);
}

TestSuite(store, .init = setup, .fini = teardown);

static struct run_metric metrics[] = {
	{ (char *)"ops.a.latency_ns.p99", 100, "ns" },
	{ (char *)"invariants.no_leaks", 1, "bool" },
};

#define BENCH_A "results trace=t backend=sim host=h"

static struct run_record record(const char *key, const char *rev, const char *date, double p99)
{
	static struct run_metric m[8][2];
	static int next;
	struct run_metric *mine = m[next++ % 8];

	memcpy(mine, metrics, sizeof(metrics));
	mine[0].value = p99;
	return (struct run_record){ .kind = RUN_RESULTS, .key = (char *)key, .git_rev = (char *)rev,
				    .date = (char *)date, .host = (char *)"h", .json = (char *)"{}",
				    .benchmark = (char *)BENCH_A, .metrics = mine, .nmetrics = 2 };
}

static int count_run(const struct store_run *r, void *ctx)
{
	(void)r;
	(*(int *)ctx)++;
	return 0;
}

static int runs_in(const char *path)
{
	struct store *s;
	char err[256];
	int n = 0;

	cr_assert_eq(store_open(path, false, &s, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(store_runs(s, count_run, &n), 0);
	store_close(s);
	return n;
}

/* The points of one series, from every stored value; and how many series there are. */
struct pts {
	const char *benchmark, *metric;
	double v[8];
	char rev[8][16];
	char inputs[8][64];
	int n;
	char series[8][160];
	int nseries;
};

static int take_point(const struct store_row *row, void *ctx)
{
	struct pts *p = ctx;
	char name[160];
	int i;

	snprintf(name, sizeof(name), "%s|%s", row->benchmark, row->metric);
	for (i = 0; i < p->nseries && strcmp(p->series[i], name); i++)
		;
	if (i == p->nseries && p->nseries < 8)
		snprintf(p->series[p->nseries++], sizeof(p->series[0]), "%s", name);
	if (strcmp(row->benchmark, p->benchmark) || strcmp(row->metric, p->metric))
		return 0;
	p->v[p->n] = row->value;
	snprintf(p->rev[p->n], sizeof(p->rev[0]), "%s", row->git_rev);
	snprintf(p->inputs[p->n], sizeof(p->inputs[0]), "%s", row->inputs ? row->inputs : "");
	p->n++;
	return 0;
}

static struct pts series(struct store *s, const char *benchmark, const char *metric)
{
	struct pts p = { .benchmark = benchmark, .metric = metric };

	cr_assert_eq(store_points(s, take_point, &p), 0);
	return p;
}

struct revruns {
	int runs;
	double p99;
	char benchmark[128];
};

static int take_run(const struct run_record *rec, void *ctx)
{
	struct revruns *rr = ctx;

	rr->runs++;
	snprintf(rr->benchmark, sizeof(rr->benchmark), "%s", rec->benchmark);
	for (size_t i = 0; i < rec->nmetrics; i++)
		if (!strcmp(rec->metrics[i].name, "ops.a.latency_ns.p99"))
			rr->p99 = rec->metrics[i].value;
	return 0;
}

Test(store, add_list_series_and_the_same_run_twice)
{
	struct run_record r[] = { record("k2", "r2", "2026-11-02T00:00:00Z", 120),
				  record("k1", "r1", "2026-11-01T00:00:00Z", 100) };
	struct store *s;
	struct pts p;
	struct revruns rr = { 0 };
	char err[256];
	size_t added;

	cr_assert_eq(store_open(db, false, &s, err, sizeof(err)), -ENOENT);
	cr_assert_eq(store_open(db, true, &s, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(store_add(s, r, 2, &added, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(added, 2);
	cr_assert_eq(store_add(s, r, 2, &added, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(added, 0, "adding the same runs again changes nothing");
	p = series(s, BENCH_A, "ops.a.latency_ns.p99");
	cr_assert_eq(p.n, 2);
	cr_assert_eq(p.v[0], 100, "in date order");
	cr_assert_str_eq(p.rev[1], "r2");
	p = series(s, "results trace=other", "ops.a.latency_ns.p99");
	cr_assert_eq(p.n, 0, "a series is one benchmark's");
	cr_assert_eq(store_rev_runs(s, "r2", take_run, &rr), 0);
	cr_assert_eq(rr.runs, 1);
	cr_assert_eq(rr.p99, 120);
	cr_assert_str_eq(rr.benchmark, BENCH_A);
	store_close(s);
	cr_assert_eq(runs_in(db), 2);
}

/* The schema as version 1 shipped it, frozen here: a store made by that gpuiso. */
static const char schema_v1[] =
	"CREATE TABLE runs (id INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE, kind TEXT NOT NULL,"
	" git_rev TEXT, date TEXT NOT NULL, host TEXT, backend TEXT, trace TEXT, scenario TEXT,"
	" json TEXT NOT NULL, added TEXT NOT NULL);"
	"CREATE TABLE metrics (run INTEGER NOT NULL REFERENCES runs(id), name TEXT NOT NULL,"
	" value REAL NOT NULL, unit TEXT NOT NULL, PRIMARY KEY (run, name));"
	"INSERT INTO runs VALUES (1, 'old', 'results', 'r0', '2026-10-01T00:00:00Z', 'h', 'sim',"
	" '/t', NULL, '{}', '2026-10-01T00:00:00Z');"
	"INSERT INTO metrics VALUES (1, 'ops.a.latency_ns.p99', 90, 'ns');"
	"PRAGMA user_version = 1; PRAGMA application_id = 1735423337;";

static void exec_sql(const char *path, const char *sql)
{
	sqlite3 *h;

	cr_assert_eq(sqlite3_open(path, &h), SQLITE_OK);
	cr_assert_eq(sqlite3_exec(h, sql, NULL, NULL, NULL), SQLITE_OK, "%s", sqlite3_errmsg(h));
	sqlite3_close(h);
}

Test(store, a_version_1_store_is_upgraded_in_place)
{
	struct run_record r = record("new", "r1", "2026-11-01T00:00:00Z", 95);
	struct store *s;
	struct pts p;
	char err[256];
	size_t added;

	exec_sql(db, schema_v1);
	cr_assert_eq(store_open(db, false, &s, err, sizeof(err)), 0, "%s", err);
	r.campaign = (char *)"nightly"; /* the column version 2 added */
	cr_assert_eq(store_add(s, &r, 1, &added, err, sizeof(err)), 0, "%s", err);
	/* a run whose JSON says nothing is a benchmark of its kind alone */
	p = series(s, "results", "ops.a.latency_ns.p99");
	cr_assert_eq(p.n, 1, "the old run is still there");
	cr_assert_eq(p.v[0], 90);
	store_close(s);
	exec_sql(db, "SELECT 1"); /* still a valid database */
}

/* The schema as version 2 shipped it, frozen here, with a run as gpuiso then stored it. */
static const char schema_v2[] =
	"CREATE TABLE runs (id INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE, kind TEXT NOT NULL,"
	" git_rev TEXT, date TEXT NOT NULL, host TEXT, backend TEXT, trace TEXT, scenario TEXT,"
	" json TEXT NOT NULL, added TEXT NOT NULL, campaign TEXT);"
	"CREATE TABLE metrics (run INTEGER NOT NULL REFERENCES runs(id), name TEXT NOT NULL,"
	" value REAL NOT NULL, unit TEXT NOT NULL, PRIMARY KEY (run, name));"
	"CREATE INDEX metrics_by_name ON metrics(name, run);"
	"CREATE INDEX runs_by_rev ON runs(git_rev);"
	"INSERT INTO runs VALUES (1, 'results/a', 'results', 'r0', '2026-10-01T00:00:00Z', 'ci1', 'sim',"
	" 'traces/desktop', 'traces/scenarios/default.yaml', '{\"schema\":\"gpuiso-results/1\","
	"\"run\":{\"id\":\"a\",\"started\":\"2026-10-01T00:00:00Z\",\"git_rev\":\"r0\","
	"\"host\":\"ci1\",\"backend\":\"sim\",\"trace\":\"traces/desktop\","
	"\"scenario\":\"traces/scenarios/default.yaml\",\"faults\":null,\"seed\":0,\"maps\":[]},"
	"\"ops\":{\"a\":{\"count\":5}}}', '2026-10-01T00:00:00Z', NULL);"
	"INSERT INTO runs VALUES (2, 'results/b', 'results', 'r0', '2026-10-01T00:00:01Z', 'ci1', 'sim',"
	" 'traces/game', NULL, '{\"schema\":\"gpuiso-results/1\","
	"\"run\":{\"id\":\"b\",\"started\":\"2026-10-01T00:00:01Z\",\"git_rev\":\"r0\","
	"\"host\":\"ci1\",\"backend\":\"sim\",\"trace\":\"traces/game\","
	"\"scenario\":null,\"faults\":null,\"seed\":0,\"maps\":[]},"
	"\"ops\":{\"a\":{\"count\":7}}}', '2026-10-01T00:00:01Z', NULL);"
	"INSERT INTO metrics VALUES (1, 'ops.a.count', 5, 'count');"
	"INSERT INTO metrics VALUES (2, 'ops.a.count', 7, 'count');"
	"PRAGMA user_version = 2; PRAGMA application_id = 1735423337;";

/* Runs stored before benchmarks existed get theirs from their JSON: two traces, two series. */
Test(store, a_version_2_store_gets_its_benchmarks_from_the_stored_json)
{
	struct store *s;
	struct pts p;
	char err[256];

	exec_sql(db, schema_v2);
	cr_assert_eq(store_open(db, false, &s, err, sizeof(err)), 0, "%s", err);
	p = series(s, "results trace=traces/desktop scenario=traces/scenarios/default.yaml"
		      " backend=sim host=ci1", "ops.a.count");
	cr_assert_eq(p.nseries, 2, "ops.a.count of desktop and of game are two series");
	cr_assert_eq(p.n, 1);
	cr_assert_eq(p.v[0], 5);
	p = series(s, "results trace=traces/game backend=sim host=ci1", "ops.a.count");
	cr_assert_eq(p.n, 1);
	cr_assert_eq(p.v[0], 7);
	store_close(s);
}

/* What a run read is kept with it, and an acknowledgement is kept as given. */
static int take_ack(const struct store_ack *a, void *ctx)
{
	snprintf(ctx, 128, "%s|%s|%s|%s", a->benchmark, a->metric, a->rev, a->note);
	return 0;
}

Test(store, inputs_and_acknowledgements_are_kept)
{
	struct run_record r = record("k", "r1", "2026-11-01T00:00:00Z", 1);
	struct store_ack a = { "*desktop*", "ops.*", "r1", "faster clock", NULL };
	struct pts p;
	struct store *s;
	char err[256], got[128] = "";
	size_t added;

	r.inputs = (char *)"traces/desktop=0123456789abcdef\n";
	cr_assert_eq(store_open(db, true, &s, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(store_add(s, &r, 1, &added, err, sizeof(err)), 0, "%s", err);
	p = series(s, BENCH_A, "ops.a.latency_ns.p99");
	cr_assert_str_eq(p.inputs[0], "traces/desktop=0123456789abcdef\n");
	cr_assert_eq(store_ack_add(s, &a, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(store_acks(s, take_ack, got), 0);
	cr_assert_str_eq(got, "*desktop*|ops.*|r1|faster clock");
	store_close(s);
}

Test(store, newer_foreign_and_corrupt_files_are_refused_untouched)
{
	struct store *s;
	char err[256], path[160];
	FILE *f;

	exec_sql(db, "CREATE TABLE t (x); PRAGMA user_version = 99; PRAGMA application_id = 1735423337;");
	cr_assert_eq(store_open(db, false, &s, err, sizeof(err)), -EPROTO);
	cr_assert(strstr(err, "newer") && strstr(err, "99"), "%s", err);
	snprintf(path, sizeof(path), "%s/other.sqlite", dir);
	exec_sql(path, "CREATE TABLE notes (x)");
	cr_assert_eq(store_open(path, false, &s, err, sizeof(err)), -EINVAL);
	cr_assert(strstr(err, "not a gpuiso store"), "%s", err);
	snprintf(path, sizeof(path), "%s/junk.sqlite", dir);
	f = fopen(path, "w");
	for (int i = 0; i < 200; i++)
		fputs("this is not a database at all ", f);
	fclose(f);
	cr_assert_eq(store_open(path, false, &s, err, sizeof(err)), -EINVAL);
	cr_assert(strstr(err, "junk.sqlite"), "%s", err);
}

/* A current store is only read by readers: beside a writer, or when empty, it is not written. */
Test(store, readers_do_not_write)
{
	struct run_record r = record("k", "r1", "2026-11-01T00:00:00Z", 1);
	struct store *s;
	sqlite3 *writer;
	char err[256], path[160];
	size_t added;
	FILE *f;

	cr_assert_eq(store_open(db, true, &s, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(store_add(s, &r, 1, &added, err, sizeof(err)), 0, "%s", err);
	store_close(s);
	/* a writer in the middle of its transaction (what store add does) */
	cr_assert_eq(sqlite3_open(db, &writer), SQLITE_OK);
	cr_assert_eq(sqlite3_exec(writer, "BEGIN IMMEDIATE", NULL, NULL, NULL), SQLITE_OK);
	cr_assert_eq(runs_in(db), 1);
	sqlite3_exec(writer, "ROLLBACK", NULL, NULL, NULL);
	sqlite3_close(writer);

	/* an empty file is no store for a reader, and stays empty */
	snprintf(path, sizeof(path), "%s/empty.sqlite", dir);
	f = fopen(path, "w");
	fclose(f);
	cr_assert_eq(store_open(path, false, &s, err, sizeof(err)), -EINVAL);
	cr_assert(strstr(err, "empty"), "%s", err);
	f = fopen(path, "r");
	cr_assert_eq(fgetc(f), EOF);
	fclose(f);
}

Test(store, a_locked_store_is_busy_and_keeps_what_it_had)
{
	struct run_record r = record("k", "r1", "2026-11-01T00:00:00Z", 1);
	struct store *s;
	sqlite3 *other;
	char err[256];
	size_t added;

	cr_assert_eq(store_open(db, true, &s, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(sqlite3_open(db, &other), SQLITE_OK);
	cr_assert_eq(sqlite3_exec(other, "BEGIN EXCLUSIVE", NULL, NULL, NULL), SQLITE_OK);
	store_set_busy_wait(s, 50);
	cr_assert_eq(store_add(s, &r, 1, &added, err, sizeof(err)), -EBUSY);
	cr_assert(strstr(err, "locked"), "%s", err);
	sqlite3_exec(other, "ROLLBACK", NULL, NULL, NULL);
	sqlite3_close(other);
	cr_assert_eq(store_add(s, &r, 1, &added, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(added, 1);
	store_close(s);
}

/* A schema version below any gpuiso's is no store, not an index below the migrations. */
Test(store, a_negative_schema_version_is_refused)
{
	struct store *s;
	char err[256];

	exec_sql(db, "CREATE TABLE t (x); PRAGMA user_version = -1; PRAGMA application_id = 1735423337;");
	cr_assert_eq(store_open(db, false, &s, err, sizeof(err)), -EINVAL);
	cr_assert(strstr(err, "schema version -1"), "%s", err);
	exec_sql(db, "PRAGMA user_version = -2147483648");
	cr_assert_eq(store_open(db, true, &s, err, sizeof(err)), -EINVAL);
}

/* --- findings of campaigns and sweeps --- */

/* The findings rows of a store, flattened: "RUN:NFINDINGS:SIGNATURE|TITLE|..." a line. */
static int take_finding(const struct store_finding_row *row, void *ctx)
{
	char *out = ctx;
	size_t len = strlen(out);
	const struct run_finding *f = row->f;

	if (f)
		snprintf(out + len, 4096 - len, "%lld:%lld:%s|%s|%s|%s|%s|%s|%s|%s|%lld|%lld-%lld|%s|%s|%lld/%lld\n",
			 row->run, row->nfindings, f->signature, f->title, f->blame, f->outcome,
			 f->code ? f->code : "null", f->invariants, f->point ? f->point : "null",
			 f->operation ? f->operation : "null", f->runs, f->nth_min, f->nth_max,
			 f->reproduce, f->trimmed ? f->trimmed : "null", f->trimmed_events,
			 f->trimmed_of);
	else
		snprintf(out + len, 4096 - len, "%lld:%lld:%s %s\n", row->run, row->nfindings, row->kind,
			 row->benchmark);
	return 0;
}

static const char campaign_json[] =
	"{\"schema\":\"gpuiso-campaign/1\",\"name\":\"nightly\",\"host\":\"h\",\"runs\":3,\"passed\":1,"
	"\"failed\":2,\"failures\":[],\"findings\":["
	"{\"signature\":\"3f9a0c1d22e4b870\",\"key\":\"k1\",\"title\":\"unmap \\u2192 leak\","
	"\"blame\":\"fault\",\"outcome\":\"failed\",\"code\":\"MAPPING_LEAK\",\"invariants\":"
	"[\"no_stale_mappings\"],\"point\":\"iommu/unmap\",\"operation\":\"free_mdl\",\"runs\":2,"
	"\"reproduce\":\"gpuiso replay /t\",\"trimmed\":null},"
	"{\"signature\":\"00000000000000ff\",\"key\":\"k2\",\"title\":\"hung\",\"blame\":\"none\","
	"\"outcome\":\"hung\",\"code\":null,\"invariants\":[],\"point\":null,\"operation\":null,"
	"\"runs\":1,\"reproduce\":\"r2\",\"trimmed\":{\"trace\":\"/o/t\",\"events\":4,\"of\":10}}]}";

static const char campaign_rows[] =
	"1:2:3f9a0c1d22e4b870|unmap \xe2\x86\x92 leak|fault|failed|MAPPING_LEAK|no_stale_mappings|"
	"iommu/unmap|free_mdl|2|0-0|gpuiso replay /t|null|0/0\n"
	"1:2:00000000000000ff|hung|none|hung|null||null|null|1|0-0|r2|/o/t|4/10\n";

Test(store, findings_are_kept_with_their_run)
{
	struct run_record r;
	struct store *s;
	char err[512], rows[4096] = "";
	size_t added;

	cr_assert_eq(runfile_parse("c.json", campaign_json, &r, err, sizeof(err)), 0, "%s", err);
	r.key = strdup("campaign/1");
	r.date = strdup("2026-11-01T00:00:00Z");
	cr_assert_eq(store_open(db, true, &s, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(store_add(s, &r, 1, &added, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(store_add(s, &r, 1, &added, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(added, 0);
	cr_assert_eq(store_findings(s, take_finding, rows), 0);
	cr_assert_str_eq(rows, campaign_rows, "each once, as the file lists them");
	store_close(s);
	runfile_free(&r);
}

/*
 * The schema as version 3 shipped it, frozen here, with runs as gpuiso then
 * stored them: a campaign from before findings, one whose summary lists
 * findings (version 3 kept them only in its JSON), a replay.
 */
static const char schema_v3_head[] =
	"CREATE TABLE runs (id INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE, kind TEXT NOT NULL,"
	" git_rev TEXT, date TEXT NOT NULL, host TEXT, backend TEXT, trace TEXT, scenario TEXT,"
	" json TEXT NOT NULL, added TEXT NOT NULL, campaign TEXT, benchmark TEXT, inputs TEXT,"
	" code TEXT);"
	"CREATE TABLE metrics (run INTEGER NOT NULL REFERENCES runs(id), name TEXT NOT NULL,"
	" value REAL NOT NULL, unit TEXT NOT NULL, PRIMARY KEY (run, name));"
	"CREATE INDEX metrics_by_name ON metrics(name, run);"
	"CREATE INDEX runs_by_rev ON runs(git_rev);"
	"CREATE INDEX runs_by_benchmark ON runs(benchmark, date, id);"
	"CREATE TABLE acks (id INTEGER PRIMARY KEY, benchmark TEXT NOT NULL, metric TEXT NOT NULL,"
	" rev TEXT NOT NULL, note TEXT NOT NULL, added TEXT NOT NULL);"
	"INSERT INTO runs VALUES (1, 'campaign/old', 'campaign', 'r0', '2026-10-01T00:00:00Z', 'h',"
	" NULL, NULL, NULL, '{\"schema\":\"gpuiso-campaign/1\",\"name\":\"nightly\",\"host\":\"h\","
	"\"runs\":2,\"passed\":1,\"failed\":1,\"failures\":[{\"id\":\"a\",\"reason\":\"why\"}]}',"
	" '2026-10-01T00:00:00Z', 'nightly', 'campaign name=nightly host=h', NULL, NULL);"
	"INSERT INTO metrics VALUES (1, 'campaign.failed', 1, 'count');"
	"INSERT INTO runs VALUES (3, 'results/x', 'results', 'r0', '2026-10-01T00:00:00Z', 'h',"
	" 'sim', '/t', NULL, '{}', '2026-10-01T00:00:00Z', NULL, 'results', NULL, NULL);"
	"INSERT INTO runs VALUES (2, 'campaign/new', 'campaign', 'r1', '2026-10-02T00:00:00Z', 'h',"
	" NULL, NULL, NULL, '";
static const char schema_v3_tail[] =
	"', '2026-10-02T00:00:00Z', 'nightly', 'campaign name=nightly host=h', NULL, NULL);"
	"PRAGMA user_version = 3; PRAGMA application_id = 1735423337;";

static int user_version(const char *path)
{
	sqlite3 *h;
	sqlite3_stmt *st;
	int v;

	cr_assert_eq(sqlite3_open(path, &h), SQLITE_OK);
	cr_assert_eq(sqlite3_prepare_v2(h, "PRAGMA user_version", -1, &st, NULL), SQLITE_OK);
	cr_assert_eq(sqlite3_step(st), SQLITE_ROW);
	v = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(h);
	return v;
}

Test(store, a_version_3_store_gets_the_findings_of_its_campaigns)
{
	char sql[8192], err[256], rows[4096] = "";
	struct store *s;

	/* SQL quotes: ' doubled (there is none in the JSON) */
	snprintf(sql, sizeof(sql), "%s%s%s", schema_v3_head, campaign_json, schema_v3_tail);
	exec_sql(db, sql);
	cr_assert_eq(store_open(db, false, &s, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(store_findings(s, take_finding, rows), 0);
	store_close(s);
	cr_assert_eq(user_version(db), STORE_SCHEMA_VERSION);
	cr_assert_eq(STORE_SCHEMA_VERSION, 4);
	/* the old one records none (-1), by benchmark then date; replays have none */
	cr_assert(!strncmp(rows, "1:-1:campaign campaign name=nightly host=h\n", 43), "%s", rows);
	char expect[1024];

	snprintf(expect, sizeof(expect), "%s", campaign_rows);
	for (char *line = expect; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL)
		*line = '2'; /* run 2 here */
	cr_assert_str_eq(rows + 43, expect, "the stored summary's findings, from its JSON");
	/* opening it again changes nothing */
	rows[0] = '\0';
	cr_assert_eq(store_open(db, false, &s, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(store_findings(s, take_finding, rows), 0);
	store_close(s);
	cr_assert(strstr(rows, "2:2:00000000000000ff") && !strstr(strstr(rows, "2:2:0000") + 1, "2:2:0000"));
}

/*
 * tests/data/stores/v2-damaged-sweep.sqlite copied to @to: a version-2 store
 * as gpuiso wrote it, one byte of run 3's JSON (a sweep) changed; with
 * @mended, that byte put back.
 */
static void v2_fixture(const char *to, bool mended)
{
	const char *root = getenv("GPUISO_SOURCE_ROOT");
	char from[512], buf[256 * 1024], *at;
	size_t len;
	FILE *f;

	cr_assert_not_null(root, "GPUISO_SOURCE_ROOT must be set");
	snprintf(from, sizeof(from), "%s/tests/data/stores/v2-damaged-sweep.sqlite", root);
	f = fopen(from, "rb");
	cr_assert_not_null(f, "%s", from);
	len = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	cr_assert(len > 0 && len < sizeof(buf));
	at = memmem(buf, len, "\"hits\"; 3", 9);
	cr_assert_not_null(at, "the damaged byte");
	if (mended)
		at[6] = ':';
	f = fopen(to, "wb");
	cr_assert_not_null(f);
	cr_assert_eq(fwrite(buf, 1, len, f), len);
	cr_assert_eq(fclose(f), 0);
}

/* "ID KIND BENCHMARK METRICS" a line per run. */
static int list_run(const struct store_run *r, void *ctx)
{
	size_t used = strlen(ctx);

	snprintf((char *)ctx + used, 2048 - used, "%lld %s %s %lld\n", r->id, r->kind, r->benchmark,
		 r->nmetrics);
	return 0;
}

#define V2_RUNS_READ                                                                   \
	"1 results results trace=traces/desktop backend=sim host=vm 234\n"             \
	"2 results results trace=traces/power-cycle backend=sim host=vm 248\n"

/*
 * A store of an earlier gpuiso with one run whose stored JSON no longer
 * reads: the upgrade carries every run over, the damaged one a benchmark
 * of its kind alone with its metrics, and is done (it used to end in
 * "schema upgrade: not an error").
 */
Test(store, a_version_2_store_with_a_damaged_run_is_upgraded_whole)
{
	char err[256], runs[2048] = "";
	struct store *s;

	v2_fixture(db, false);
	cr_assert_eq(store_open(db, false, &s, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(store_runs(s, list_run, runs), 0);
	store_close(s);
	cr_assert_str_eq(runs, V2_RUNS_READ "3 sweep sweep 6\n");
	cr_assert_eq(user_version(db), STORE_SCHEMA_VERSION);

	/* the same store undamaged: the sweep is of its trace and scenario */
	v2_fixture(db, true);
	runs[0] = '\0';
	cr_assert_eq(store_open(db, false, &s, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(store_runs(s, list_run, runs), 0);
	store_close(s);
	cr_assert_str_eq(runs, V2_RUNS_READ
			 "3 sweep sweep trace=/tmp/gpuiso-v2/traces/power-cycle "
			 "scenario=/tmp/gpuiso-v2/traces/scenarios/lda-chain.yaml 6\n");
}

/* Tables without a schema version: a store whose user_version was reset, damaged, refused untouched. */
Test(store, a_reset_schema_version_is_a_damaged_store)
{
	struct run_record r = record("k", "r1", "2026-11-01T00:00:00Z", 1);
	char err[256];
	struct store *s;
	size_t added;

	cr_assert_eq(store_open(db, true, &s, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(store_add(s, &r, 1, &added, err, sizeof(err)), 0, "%s", err);
	store_close(s);
	exec_sql(db, "PRAGMA user_version = 0");
	for (int create = 0; create < 2; create++) {
		cr_assert_eq(store_open(db, create, &s, err, sizeof(err)), -EINVAL, "%s", err);
		cr_assert(strstr(err, db) && strstr(err, "damaged") && strstr(err, "user_version"),
			  "%s", err);
	}
	cr_assert_eq(user_version(db), 0, "untouched");
	exec_sql(db, "PRAGMA user_version = 4");
	cr_assert_eq(runs_in(db), 1);
}

/* A store is made whole where it is made, or not at all. */
Test(store, a_new_store_leaves_nothing_else_and_none_where_it_cannot_be)
{
	char err[256], path[192], cmd[256];
	struct store *s;

	cr_assert_eq(store_open(db, true, &s, err, sizeof(err)), 0, "%s", err);
	store_close(s);
	snprintf(cmd, sizeof(cmd), "test \"$(ls -A %s)\" = runs.sqlite", dir);
	cr_assert_eq(system(cmd), 0, "no temporary left beside the store");
	cr_assert_eq(user_version(db), STORE_SCHEMA_VERSION);
	snprintf(path, sizeof(path), "%s/no/such/folder.sqlite", dir);
	cr_assert_eq(store_open(path, true, &s, err, sizeof(err)), -EIO);
	cr_assert(strstr(err, path) && strstr(err, "No such file"), "%s", err);
	cr_assert_eq(store_open(dir, true, &s, err, sizeof(err)), -EINVAL, "a folder is no store");
	cr_assert_neq(access(path, F_OK), 0);
}
