/* SPDX-License-Identifier: MIT */
/*
 * Sweeps and campaigns of another tool's trace: a trace.dat recorded with
 * ftrace (tests/data/ftrace/host-v7.dat), replayed through an import map
 * (tests/data/maps/page-alloc-mdl.yaml). The runs use the trace's events as
 * `gpuiso replay FILE --map MAP` does, their reproduce commands carry the
 * map and reproduce, work of other maps is kept apart (shards, resumed
 * runs), and what is neither a trace folder nor a trace.dat is refused.
 *
 * Each test works in /tmp/gpuiso-maps-<pid>, through gpuiso as users run it
 * (GPUISO_BIN), from the root folder.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/scenario.h"
#include "replay/replay.h"
#include "tests/common/jsonq.h"

#define CMD_LEN (8 * PATH_MAX)

/* The recording's events, as `gpuiso trace info` counts them. */
#define DAT_EVENTS 1938

static char dat[PATH_MAX], map[PATH_MAX];

/* snprintf() into the array @buf, which must hold it all. */
#define FMT(buf, ...)                                                                 \
	cr_assert_lt(snprintf(buf, sizeof(buf), __VA_ARGS__), (int)sizeof(buf), "%s: too long", #buf)

static void work_dir(char *buf, size_t len)
{
	snprintf(buf, len, "/tmp/gpuiso-maps-%d", (int)getpid());
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

	cr_assert_not_null(b, "GPUISO_BIN must be set");
	cr_assert_not_null(realpath(b, path), "%s", b);
	return path;
}

static void setup(void)
{
	const char *root = getenv("GPUISO_SOURCE_ROOT");
	char dir[64], given[PATH_MAX];

	cr_assert_not_null(root, "GPUISO_SOURCE_ROOT must be set");
	work_dir(dir, sizeof(dir));
	cr_assert_eq(mkdir(dir, 0755), 0, "mkdir %s: %s", dir, strerror(errno));
	/* the reproduce commands carry absolute paths: compare them so */
	FMT(given, "%s/tests/data/ftrace/host-v7.dat", root);
	cr_assert_not_null(realpath(given, dat), "%s", given);
	FMT(given, "%s/tests/data/maps/page-alloc-mdl.yaml", root);
	cr_assert_not_null(realpath(given, map), "%s", given);
	/* relative paths in campaigns must not find anything from here */
	cr_assert_eq(chdir("/"), 0);
	/* these suites fork: main() waits for LTTng-UST's threads (see campaign_fixture.c) */
	unsetenv("LTTNG_UST_REGISTER_TIMEOUT");
}

static void teardown(void)
{
	char dir[64], cmd[128];

	work_dir(dir, sizeof(dir));
	FMT(cmd, "rm -rf %s", dir);
	if (system(cmd))
		fprintf(stderr, "could not remove %s\n", dir);
}

TestSuite(maps, .init = setup, .fini = teardown, .timeout = 240);

/* Run a shell command: its exit status, its stdout and stderr in @out. */
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

/* `gpuiso ARGS 2>&1`: its exit status and output. */
static int gpuiso(char *out, size_t len, const char *args)
{
	char cmd[CMD_LEN];

	FMT(cmd, "%s %s 2>&1", bin(), args);
	return sh(cmd, out, len);
}

/* The whole file (free() it); it must be there. */
static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long n;

	cr_assert_not_null(f, "%s: %s", path, strerror(errno));
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc((size_t)n + 1);
	cr_assert_not_null(buf);
	cr_assert_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static void write_text(const char *path, const char *text, const char *mode)
{
	FILE *f = fopen(path, mode);

	cr_assert_not_null(f, "%s: %s", path, strerror(errno));
	fputs(text, f);
	cr_assert_eq(fclose(f), 0);
}

/* work_dir()/@rel's JSON document (free() it): valid JSON. */
static char *json_at(const char *rel)
{
	char path[PATH_MAX];
	char *doc;

	at(path, sizeof(path), rel);
	doc = slurp(path);
	cr_assert(jsonq_valid(doc), "%s: not JSON", path);
	return doc;
}

static void get(const char *doc, const char *path, char *out, size_t len)
{
	cr_assert(jsonq_get(doc, path, out, len), "no %s", path);
}

static uint64_t get_u64(const char *doc, const char *path)
{
	char v[64];

	get(doc, path, v, sizeof(v));
	return strtoull(v, NULL, 10);
}

/* What a replay of the recording through the map did, from its results JSON. */
struct ran {
	uint64_t total, used, alloc_mdl, free_mdl;
};

static struct ran ran_of(const char *doc)
{
	return (struct ran){ .total = get_u64(doc, "events.total"),
			     .used = get_u64(doc, "events.used"),
			     .alloc_mdl = get_u64(doc, "ops.alloc_mdl.count"),
			     .free_mdl = get_u64(doc, "ops.free_mdl.count") };
}

/* `gpuiso replay DAT --map MAP`: what it did. */
static struct ran plain_replay(void)
{
	char args[CMD_LEN], json[PATH_MAX], log[8192];
	struct ran r;
	char *doc;
	int status;

	at(json, sizeof(json), "plain.json");
	FMT(args, "replay %s --map %s --json %s", dat, map, json);
	status = gpuiso(log, sizeof(log), args);
	cr_assert_eq(status, 0, "exit %d: %s", status, log);
	doc = json_at("plain.json");
	r = ran_of(doc);
	free(doc);
	cr_assert_eq(r.total, DAT_EVENTS);
	cr_assert_gt(r.used, 0, "the map took no event");
	cr_assert_gt(r.alloc_mdl, 0);
	return r;
}

/* The hits of @point in a replay through the library: a count of its own. */
static uint64_t hits_of(enum fp_point point)
{
	const char *maps[] = { map };
	struct replay_report *rep = calloc(1, sizeof(*rep));
	struct fp_ctx fp = { 0 };
	struct scenario scn;
	struct replay_opts o = { .trace = dat, .maps = maps, .nmaps = 1, .scn = &scn, .cache = true,
				 .fp = &fp };
	struct results res;

	cr_assert_not_null(rep);
	cr_assert_eq(scenario_defaults(&scn), 0);
	cr_assert_eq(replay_run(&o, &res, rep), 0, "%s", rep->error);
	results_fini(&res);
	scenario_free(&scn);
	free(rep);
	return fp.hits[point];
}

/*
 * Run @repro (a `gpuiso replay ...` reproduce command) with --json
 * work_dir()/@json: it exits @want and says @what, and its operations are
 * @plain's.
 */
static void reproduces(const char *repro, int want, const char *what, const struct ran *plain,
		       const char *json)
{
	char cmd[CMD_LEN], path[PATH_MAX], log[65536];
	struct ran r;
	char *doc;
	int status;

	cr_assert(!strncmp(repro, bin(), strlen(bin())) &&
		  !strncmp(repro + strlen(bin()), " replay ", 8), "%s", repro);
	at(path, sizeof(path), json);
	FMT(cmd, "%s --json %s 2>&1", repro, path);
	status = sh(cmd, log, sizeof(log));
	cr_assert_eq(status, want, "%s: exit %d: %s", cmd, status, log);
	cr_assert(strstr(log, what), "%s: does not say %s: %s", cmd, what, log);
	doc = json_at(json);
	r = ran_of(doc);
	free(doc);
	cr_assert(r.total == plain->total && r.used == plain->used &&
		  r.alloc_mdl == plain->alloc_mdl && r.free_mdl == plain->free_mdl,
		  "%s: %llu events, %llu used, %llu alloc_mdl, %llu free_mdl; the plain replay: "
		  "%llu, %llu, %llu, %llu", repro, (unsigned long long)r.total,
		  (unsigned long long)r.used, (unsigned long long)r.alloc_mdl,
		  (unsigned long long)r.free_mdl, (unsigned long long)plain->total,
		  (unsigned long long)plain->used, (unsigned long long)plain->alloc_mdl,
		  (unsigned long long)plain->free_mdl);
}

/* Whether a JSON document lists @path among its inputs, with a digest, once. */
static bool has_input(const char *doc, const char *path)
{
	char key[PATH_MAX + 8];
	const char *at = doc;
	int n = 0;

	FMT(key, "\"%s\": \"", path);
	while ((at = strstr(at, key))) {
		n++;
		at += strlen(key);
	}
	return n == 1;
}

/* ---- sweeps ----------------------------------------------------------------- */

/*
 * A sweep of the trace.dat through the map: its runs replay the events the
 * map takes (as many as the plain replay uses, each hit of an independent
 * count swept), the summary names the map as an input, and each failure's
 * reproduce command carries --map and breaks as the sweep said, with the
 * plain replay's operations.
 */
Test(maps, a_sweep_of_a_trace_dat_replays_through_its_map)
{
	char args[CMD_LEN], out[PATH_MAX], log[65536], v[PATH_MAX], repro[CMD_LEN], want[PATH_MAX];
	struct ran plain = plain_replay();
	uint64_t hits = hits_of(FP_IOMMU_UNMAP);
	char *doc;
	int status;

	cr_assert_gt(hits, 0, "the replay through the map unmaps nothing");
	at(out, sizeof(out), "sweep");
	FMT(args, "sweep %s --map %s --points iommu/unmap -o %s --jobs 2", dat, map,
		 out);
	status = gpuiso(log, sizeof(log), args);
	/* a failed unmap leaves its mapping behind: every run is a violation */
	cr_assert_eq(status, 1, "exit %d: %s", status, log);
	doc = json_at("sweep/summary.json");
	cr_assert_eq(get_u64(doc, "events.total"), plain.total);
	cr_assert_eq(get_u64(doc, "events.used"), plain.used, "the sweep used %llu events, the "
		     "replay %llu", (unsigned long long)get_u64(doc, "events.used"),
		     (unsigned long long)plain.used);
	cr_assert_eq(get_u64(doc, "points.iommu/unmap.hits"), hits);
	cr_assert_eq(get_u64(doc, "points.iommu/unmap.violation"), hits);
	get(doc, "maps.0", v, sizeof(v));
	cr_assert_str_eq(v, map);
	cr_assert_not(jsonq_get(doc, "maps.1", v, sizeof(v)));
	cr_assert(has_input(doc, map) && has_input(doc, dat), "inputs: %s", doc);
	/* the first failure and the last, on the whole trace */
	for (int k = 0; k < 2; k++) {
		uint64_t i = k ? hits - 1 : 0;
		char path[64], code[64];

		FMT(path, "failures.%llu.reproduce", (unsigned long long)i);
		get(doc, path, repro, sizeof(repro));
		FMT(want, "%s replay %s --map %s ", bin(), dat, map);
		cr_assert(!strncmp(repro, want, strlen(want)), "%s", repro);
		FMT(path, "failures.%llu.findings.0.code", (unsigned long long)i);
		get(doc, path, code, sizeof(code));
		reproduces(repro, 1, code, &plain, "repro.json");
	}
	/* a finding's command replays its trimmed trace (gpuiso's own events), or the whole one */
	if (!jsonq_get(doc, "findings.0.trimmed.reproduce_whole", repro, sizeof(repro)))
		get(doc, "findings.0.reproduce", repro, sizeof(repro));
	FMT(want, "%s replay %s --map %s ", bin(), dat, map);
	cr_assert(!strncmp(repro, want, strlen(want)), "%s", repro);
	free(doc);
}

/*
 * Without a map a trace.dat gives no workload event: the sweep says so (it
 * tests only the adapters' start and end) and its summary counts them.
 */
Test(maps, a_sweep_without_a_map_says_it_uses_no_event)
{
	char args[CMD_LEN], out[PATH_MAX], log[65536];
	char *doc;
	int status;

	at(out, sizeof(out), "bare");
	FMT(args, "sweep %s --points adapter/enable -o %s", dat, out);
	status = gpuiso(log, sizeof(log), args);
	cr_assert_eq(status, 0, "exit %d: %s", status, log);
	cr_assert(strstr(log, "none of the trace's 1938 events is a workload event") &&
		  strstr(log, "--map"), "%s", log);
	doc = json_at("bare/summary.json");
	cr_assert_eq(get_u64(doc, "events.total"), DAT_EVENTS);
	cr_assert_eq(get_u64(doc, "events.used"), 0);
	cr_assert_eq(get_u64(doc, "events.ignored"), DAT_EVENTS);
	free(doc);
}

/* Sweep shard @i of 2 through @maparg into work_dir()/shards: its exit status. */
static int sweep_shard(int i, const char *maparg, char *log, size_t len)
{
	char args[CMD_LEN], out[PATH_MAX];

	at(out, sizeof(out), "shards");
	FMT(args, "sweep %s --map %s --points iommu/unmap -o %s --shard %d/2",
		 dat, maparg, out, i);
	return gpuiso(log, len, args);
}

/*
 * Shards of a sweep through other maps are other work: the merge refuses
 * them (exit 2) and says which map each ran with; with the same map they
 * merge, the merge reading the map back from their headers. A map edited
 * after its shards ran makes them stale.
 */
Test(maps, sweep_shards_through_other_maps_do_not_merge)
{
	char other[PATH_MAX], mine[PATH_MAX], out[PATH_MAX], args[CMD_LEN], log[65536], v[PATH_MAX];
	struct ran plain = plain_replay();
	char *text = slurp(map), *doc;
	int status;

	at(other, sizeof(other), "other.yaml");
	at(mine, sizeof(mine), "mine.yaml");
	write_text(other, text, "w");
	write_text(mine, text, "w");
	free(text);
	at(out, sizeof(out), "shards");
	FMT(args, "merge %s", out);

	status = sweep_shard(0, mine, log, sizeof(log));
	cr_assert_eq(status, 0, "exit %d: %s", status, log);
	status = sweep_shard(1, other, log, sizeof(log));
	cr_assert_eq(status, 0, "exit %d: %s", status, log);
	status = gpuiso(log, sizeof(log), args);
	cr_assert_eq(status, 2, "merged: exit %d: %s", status, log);
	cr_assert(strstr(log, "different works"), "%s", log);
	FMT(v, "map %s", other);
	cr_assert(strstr(log, v), "%s", log);
	FMT(v, "map %s", mine);
	cr_assert(strstr(log, v), "%s", log);

	/* shard 1 again through the same map: one work, merged as one sweep */
	status = sweep_shard(1, mine, log, sizeof(log));
	cr_assert_eq(status, 0, "exit %d: %s", status, log);
	status = gpuiso(log, sizeof(log), args);
	cr_assert_eq(status, 1, "exit %d: %s", status, log);
	doc = json_at("shards/summary.json");
	get(doc, "maps.0", v, sizeof(v));
	cr_assert_str_eq(v, mine);
	cr_assert_eq(get_u64(doc, "events.used"), plain.used);
	get(doc, "failures.0.reproduce", v, sizeof(v));
	cr_assert(strstr(v, " --map "), "%s", v);
	cr_assert(strstr(v, mine), "%s", v);
	free(doc);

	/* the map edited since: the shards' work is not what it gives now */
	write_text(mine, "# edited\n", "a");
	status = gpuiso(log, sizeof(log), args);
	cr_assert_eq(status, 2, "merged: exit %d: %s", status, log);
	cr_assert(strstr(log, "an input changed"), "%s", log);
}

/*
 * What is neither a trace folder nor a trace.dat is refused before any
 * run, saying so (exit 2); so are maps that cannot be read, and more maps
 * than replay takes.
 */
Test(maps, sweep_refuses_what_is_not_a_trace)
{
	char text[PATH_MAX], out[PATH_MAX], args[CMD_LEN], log[65536], many[CMD_LEN] = "";
	int status;

	at(text, sizeof(text), "notes.txt");
	write_text(text, "not a trace\n", "w");
	at(out, sizeof(out), "bad");
	FMT(args, "sweep %s --map %s -o %s", text, map, out);
	status = gpuiso(log, sizeof(log), args);
	cr_assert_eq(status, 2, "exit %d: %s", status, log);
	cr_assert(strstr(log, text) && strstr(log, "neither a trace folder nor a trace file (a trace.dat, an .etl file)"),
		  "%s", log);

	FMT(args, "sweep %s --map %s -o %s", dat, text, out);
	status = gpuiso(log, sizeof(log), args);
	cr_assert_eq(status, 2, "exit %d: %s", status, log);
	cr_assert(strstr(log, "notes.txt:1:1: error"), "%s", log);

	FMT(args, "sweep %s --map %s/no-such.yaml -o %s", dat, out, out);
	status = gpuiso(log, sizeof(log), args);
	cr_assert_eq(status, 2, "exit %d: %s", status, log);
	cr_assert(strstr(log, "no-such.yaml"), "%s", log);

	for (int i = 0; i < 9; i++)
		snprintf(many + strlen(many), sizeof(many) - strlen(many), " --map %s", map);
	FMT(args, "sweep %s%s -o %s", dat, many, out);
	status = gpuiso(log, sizeof(log), args);
	cr_assert_eq(status, 2, "exit %d: %s", status, log);
	cr_assert(strstr(log, "at most 8 --map files"), "%s", log);
}

/* ---- campaigns -------------------------------------------------------------- */

/* Campaign work_dir()/@name: its traces: line is @traces; a run failing the 5th unmap, and a clean one. */
static void write_campaign(const char *name, const char *traces)
{
	char path[PATH_MAX], *text;

	at(path, sizeof(path), name);
	cr_assert(asprintf(&text, "campaign:\n"
				  "  traces: %s\n"
				  "  runs:\n"
				  "    - {name: unmap5, faults: [{point: iommu/unmap, nth: 5}]}\n"
				  "    - {name: clean}\n", traces) > 0);
	write_text(path, text, "w");
	free(text);
}

/* `gpuiso campaign run work_dir()/@name -o work_dir()/@out [@extra]`: exit status and output. */
static int campaign(const char *name, const char *out, const char *extra, char *log, size_t len)
{
	char file[PATH_MAX], dir[PATH_MAX], args[CMD_LEN];

	at(file, sizeof(file), name);
	at(dir, sizeof(dir), out);
	FMT(args, "campaign run %s -o %s --jobs 2 %s", file, dir, extra);
	return gpuiso(log, len, args);
}

/*
 * A campaign of the trace.dat through a map (a trace entry with maps: the
 * map found as trace paths are, from the campaign's folder): the clean run
 * uses the events the plain replay uses, the failing run's reproduce
 * command carries --map and breaks the same way, the summary names the
 * map; runs of the same trace through an edited map are not resumed, nor
 * are shards of the campaign merged after it.
 */
Test(maps, a_campaign_of_a_trace_dat_replays_through_its_maps)
{
	char mine[PATH_MAX], traces[3 * PATH_MAX], log[65536], v[PATH_MAX], repro[CMD_LEN];
	char args[CMD_LEN], out[PATH_MAX];
	struct ran plain = plain_replay(), clean;
	char *text = slurp(map), *doc;
	int status;

	at(mine, sizeof(mine), "mine.yaml");
	write_text(mine, text, "w");
	free(text);
	/* the old form (a bare path) stays valid: the same trace again, named apart */
	FMT(traces, "[{path: %s, maps: [mine.yaml]}, {path: %s, name: raw}]",
		 dat, dat);
	write_campaign("c.yaml", traces);
	status = campaign("c.yaml", "out", "", log, sizeof(log));
	cr_assert_eq(status, 1, "exit %d: %s", status, log);
	cr_assert(strstr(log, "4 runs (0 resumed), 3 passed, 1 failed"), "%s", log);

	doc = json_at("out/runs/clean-host-v7.dat-s0.json");
	clean = ran_of(doc);
	free(doc);
	cr_assert(clean.used == plain.used && clean.alloc_mdl == plain.alloc_mdl &&
		  clean.free_mdl == plain.free_mdl, "the run used %llu events, the replay %llu",
		  (unsigned long long)clean.used, (unsigned long long)plain.used);
	doc = json_at("out/runs/clean-raw-s0.json");
	cr_assert_eq(get_u64(doc, "events.used"), 0, "a trace.dat without maps uses no event");
	free(doc);

	doc = json_at("out/summary.json");
	get(doc, "failures.0.id", v, sizeof(v));
	cr_assert_str_eq(v, "unmap5-host-v7.dat-s0");
	get(doc, "failures.0.maps.0", v, sizeof(v));
	cr_assert_str_eq(v, mine);
	cr_assert(has_input(doc, mine) && has_input(doc, dat), "inputs: %s", doc);
	get(doc, "failures.0.reproduce", repro, sizeof(repro));
	FMT(v, "%s replay %s --map %s ", bin(), dat, mine);
	cr_assert(!strncmp(repro, v, strlen(v)), "%s", repro);
	free(doc);
	reproduces(repro, 1, "MAPPING_LEAK at event", &plain, "repro.json");
	doc = json_at("out/runs/unmap5-host-v7.dat-s0.json");
	clean = ran_of(doc);
	cr_assert_eq(clean.used, plain.used);
	get(doc, "faults.violations.0.detail", v, sizeof(v));
	free(doc);
	doc = json_at("repro.json");
	get(doc, "faults.violations.0.detail", repro, sizeof(repro));
	cr_assert_str_eq(v, repro);
	free(doc);

	/* resumed while the map is the same; the map edited, its trace's runs run again */
	status = campaign("c.yaml", "out", "", log, sizeof(log));
	cr_assert(strstr(log, "4 runs (4 resumed)"), "exit %d: %s", status, log);
	write_text(mine, "# edited\n", "a");
	status = campaign("c.yaml", "out", "", log, sizeof(log));
	cr_assert(strstr(log, "4 runs (2 resumed)"), "exit %d: %s", status, log);

	/* shards merge; edited again since they ran, they are not the campaign's runs */
	for (int i = 0; i < 2; i++) {
		char shard[16];

		FMT(shard, "--shard %d/2", i);
		status = campaign("c.yaml", "shards", shard, log, sizeof(log));
		cr_assert_eq(status, 0, "exit %d: %s", status, log);
	}
	at(out, sizeof(out), "shards");
	FMT(args, "merge %s", out);
	status = gpuiso(log, sizeof(log), args);
	cr_assert_eq(status, 1, "exit %d: %s", status, log);
	write_text(mine, "# edited again\n", "a");
	status = gpuiso(log, sizeof(log), args);
	cr_assert_eq(status, 2, "merged: exit %d: %s", status, log);
	cr_assert(strstr(log, "changed since its shards ran"), "%s", log);
}

/*
 * A trace entry that is neither a trace folder nor a trace.dat, or whose
 * maps are missing or malformed, is an error naming file:line:col (exit
 * 2), and nothing runs.
 */
Test(maps, a_campaign_refuses_what_is_not_a_trace)
{
	static const struct {
		const char *traces, *says;
	} cases[] = {
		{ "[notes.txt]", "c.yaml:2:12: error: campaign.traces[0]: 'notes.txt' (" },
		{ "[{path: notes.txt}]", "c.yaml:2:19: error: campaign.traces[0].path: 'notes.txt' (" },
		{ "[{path: DAT, maps: [no-such.yaml]}]", "campaign.traces[0].maps[0]: cannot find 'no-such.yaml'" },
		{ "[{path: DAT, maps: [notes.txt]}]", "notes.txt:1:1: error" },
		{ "[{maps: [MAP]}]", "c.yaml:2:12: error: campaign.traces[0]: a trace entry needs a 'path'" },
		{ "[{path: DAT, name: a b}]", "campaign.traces[0].name: 'a b' is not a trace name" },
		{ "[DAT, {path: DAT, maps: [MAP]}]", "campaign.traces[1]: 'host-v7.dat' has the name of" },
	};
	char text[PATH_MAX], out[PATH_MAX], log[65536];

	at(text, sizeof(text), "notes.txt");
	write_text(text, "not a trace\n", "w");
	at(out, sizeof(out), "out");
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char traces[4 * PATH_MAX] = "";
		const char *p = cases[i].traces;
		int status;

		/* DAT and MAP stand for the recording and the map, after any position checked */
		while (*p) {
			const char *sub = !strncmp(p, "DAT", 3) ? dat : !strncmp(p, "MAP", 3) ? map : NULL;
			size_t n = strlen(traces);

			if (sub) {
				snprintf(traces + n, sizeof(traces) - n, "%s", sub);
				p += 3;
			} else {
				traces[n] = *p++;
				traces[n + 1] = '\0';
			}
		}
		write_campaign("c.yaml", traces);
		status = campaign("c.yaml", "out", "", log, sizeof(log));
		cr_assert_eq(status, 2, "case %zu: exit %d: %s", i, status, log);
		cr_assert(strstr(log, cases[i].says), "case %zu: expected '%s' in:\n%s", i,
			  cases[i].says, log);
		cr_assert(access(out, F_OK), "case %zu: %s was made", i, out);
	}
	/* said of a file that is there: neither a trace folder nor a trace.dat */
	write_campaign("c.yaml", "[notes.txt]");
	campaign("c.yaml", "out", "", log, sizeof(log));
	cr_assert(strstr(log, "is neither a trace folder nor a trace file (a trace.dat, an .etl file)"), "%s", log);
}
