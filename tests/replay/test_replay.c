/* SPDX-License-Identifier: MIT */
/* Whole replays: generated traces through the model, the cache, bad input, import maps. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/digest_path.h"
#include "core/scenario.h"
#include "replay/cache.h"
#include "replay/ctf.h"
#include "replay/gen.h"
#include "replay/replay.h"
#include "tests/common/jsonq.h"

static char tmp[] = "/tmp/gpuiso-replay-XXXXXX";

static void setup(void)
{
	cr_assert_not_null(mkdtemp(tmp));
}

static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmp);
	cr_assert_eq(system(cmd), 0);
}

TestSuite(replay, .init = setup, .fini = teardown);

static const char *src(const char *rel)
{
	static char path[1024];
	const char *root = getenv("GPUISO_SOURCE_ROOT");

	snprintf(path, sizeof(path), "%s/%s", root ? root : ".", rel);
	return path;
}

static void generate(const char *profile, uint64_t events, const char *dir)
{
	char err[256] = "";
	struct gen *g;

	cr_assert_eq(gen_create(profile, events, 7, &g), 0);
	cr_assert_eq(ctf_write(dir, gen_next, g, err, sizeof(err)), 0, "%s", err);
	gen_destroy(g);
}

/* Replay @trace on the scenario file @scn_rel (NULL: defaults); returns replay_run()'s result. */
static int replay(const char *trace, const char *scn_rel, bool cache, struct results *res,
		  struct replay_report *rep, const char *const *maps, size_t nmaps)
{
	struct replay_opts o = { .trace = trace, .cache = cache, .cache_dir = tmp,
				 .maps = maps, .nmaps = nmaps };
	struct scenario scn;
	char err[1024] = "";
	int rc;

	if (scn_rel)
		cr_assert_eq(scenario_load(src(scn_rel), &scn, err, sizeof(err)), 0, "%s", err);
	else
		cr_assert_eq(scenario_defaults(&scn), 0);
	o.scn = &scn;
	rc = replay_run(&o, res, rep);
	scenario_free(&scn);
	return rc;
}

static void expect_clean(const struct results *res, const struct replay_report *rep)
{
	cr_assert_eq(rep->refused, 0, "refused: %s at %llu", rep->nrefusals ? rep->refusals[0].why : "",
		     rep->nrefusals ? (unsigned long long)rep->refusals[0].index : 0ull);
	cr_assert_eq(res->nviolations, 0, "%s", res->nviolations ? res->violations[0].detail : "");
	for (size_t i = 0; i < res->ninvariants; i++)
		cr_assert(res->invariants[i].holds, "%s", res->invariants[i].name);
	cr_assert_not(replay_findings(res));
}

Test(replay, every_profile_replays_clean_on_its_scenario)
{
	static const char *const profiles[][2] = {
		{ "desktop", "traces/scenarios/default.yaml" },
		{ "game", "traces/scenarios/default.yaml" },
		{ "power-cycle", "traces/scenarios/lda-chain.yaml" },
		{ "remap", "traces/scenarios/logical-remap.yaml" },
		{ "dpc", "traces/scenarios/default.yaml" },
		{ "cpu", "traces/scenarios/logical-remap.yaml" },
	};

	for (size_t i = 0; i < sizeof(profiles) / sizeof(profiles[0]); i++) {
		struct replay_report rep;
		struct results res;
		char dir[256];

		snprintf(dir, sizeof(dir), "%s/%s", tmp, profiles[i][0]);
		generate(profiles[i][0], 3000, dir);
		cr_assert_eq(replay(dir, profiles[i][1], false, &res, &rep, NULL, 0), 0, "%s: %s",
			     profiles[i][0], rep.error);
		cr_assert_eq(rep.events, 3000, "%s", profiles[i][0]);
		cr_assert_eq(rep.used, 3000);
		expect_clean(&res, &rep);
		results_fini(&res);
	}
}

Test(replay, second_replay_comes_from_the_cache_with_the_same_results)
{
	struct replay_report rep1, rep2;
	struct results res1, res2;
	char dir[256];

	snprintf(dir, sizeof(dir), "%s/t", tmp);
	generate("power-cycle", 2000, dir);
	cr_assert_eq(replay(dir, "traces/scenarios/lda-chain.yaml", true, &res1, &rep1, NULL, 0), 0);
	cr_assert_not(rep1.from_cache);
	cr_assert(rep1.cache_written);
	cr_assert_eq(replay(dir, "traces/scenarios/lda-chain.yaml", true, &res2, &rep2, NULL, 0), 0);
	cr_assert(rep2.from_cache);
	cr_assert_eq(rep2.events, rep1.events);
	cr_assert_eq(rep2.used, rep1.used);
	for (size_t k = 0; k < res1.nops; k++) {
		static const double p50 = 50;
		uint64_t v1, v2;

		cr_assert_eq(res2.ops[k].count, res1.ops[k].count, "%s", res1.ops[k].name);
		/* modeled device time is deterministic: the same from CTF and from the cache */
		hist_percentiles(&res1.ops[k].modeled, &p50, 1, &v1);
		hist_percentiles(&res2.ops[k].modeled, &p50, 1, &v2);
		cr_assert_eq(v2, v1, "%s", res1.ops[k].name);
	}
	cr_assert_eq(res2.power.transitions, res1.power.transitions);
	results_fini(&res1);
	results_fini(&res2);
}

/* The events of a cache file, to write them again. */
struct cached {
	struct wl_event *e;
	uint64_t *index;
	size_t n, cap;
};

static int keep_event(void *ctx, uint64_t index, const struct wl_event *e)
{
	struct cached *c = ctx;

	if (c->n == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 1024;
		c->e = realloc(c->e, c->cap * sizeof(*c->e));
		c->index = realloc(c->index, c->cap * sizeof(*c->index));
		cr_assert(c->e && c->index);
	}
	c->e[c->n] = *e;
	c->index[c->n++] = index;
	return 0;
}

/*
 * A cache whose sealed header counts one record more than it holds: the
 * replay rebuilds it from the trace on a model no event of it reached, so
 * every count is the trace's, once, now and in later replays.
 */
Test(replay, a_cache_with_a_wrong_count_runs_no_event_twice)
{
	struct replay_report rep1, rep2, rep3;
	struct results res1, res2, res3;
	struct cached c = { 0 };
	struct cache_writer *w;
	struct cache_meta meta;
	char dir[256], path[512];
	uint64_t key;

	snprintf(dir, sizeof(dir), "%s/t", tmp);
	generate("desktop", 1500, dir);
	cr_assert_eq(replay(dir, NULL, true, &res1, &rep1, NULL, 0), 0);
	cr_assert(rep1.cache_written);
	cr_assert_eq(cache_key(dir, NULL, 0, &key), 0);
	cr_assert_eq(cache_path(tmp, key, path, sizeof(path)), 0);
	cr_assert_eq(cache_read(path, key, keep_event, &c, &meta), 0);
	meta.records++;
	cr_assert_eq(cache_writer_open(path, key, &w), 0);
	for (size_t i = 0; i < c.n; i++)
		cr_assert_eq(cache_writer_add(w, c.index[i], &c.e[i]), 0);
	cr_assert_eq(cache_writer_commit(w, &meta), 0);

	cr_assert_eq(replay(dir, NULL, true, &res2, &rep2, NULL, 0), 0, "%s", rep2.error);
	cr_assert_not(rep2.from_cache, "rebuilt from the trace");
	cr_assert_eq(replay(dir, NULL, true, &res3, &rep3, NULL, 0), 0, "%s", rep3.error);
	cr_assert(rep3.from_cache, "the rebuilt cache is good");
	for (size_t k = 0; k < res1.nops; k++) {
		cr_assert_eq(res2.ops[k].count, res1.ops[k].count, "%s", res1.ops[k].name);
		cr_assert_eq(res3.ops[k].count, res1.ops[k].count, "%s", res1.ops[k].name);
	}
	cr_assert_eq(rep2.used, rep1.used);
	cr_assert_eq(rep3.used, rep1.used);
	results_fini(&res1);
	results_fini(&res2);
	results_fini(&res3);
	free(c.e);
	free(c.index);
}

Test(replay, a_changed_trace_rebuilds_its_cache)
{
	struct replay_report rep;
	struct results res;
	char dir[256], cmd[600];

	snprintf(dir, sizeof(dir), "%s/t", tmp);
	generate("desktop", 1500, dir);
	cr_assert_eq(replay(dir, NULL, true, &res, &rep, NULL, 0), 0);
	results_fini(&res);
	/* another trace in the same place: a stale cache must not be used */
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	cr_assert_eq(system(cmd), 0);
	generate("desktop", 1000, dir);
	cr_assert_eq(replay(dir, NULL, true, &res, &rep, NULL, 0), 0);
	cr_assert_not(rep.from_cache);
	cr_assert_eq(rep.events, 1000);
	results_fini(&res);
}

/* Every file of the trace folder @trace modified an hour ago: settled (CACHE_SETTLE_S). */
static void age_trace(const char *trace)
{
	const char *files[] = { "metadata", "stream" };

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		struct timespec t[2];
		char path[512];

		snprintf(path, sizeof(path), "%s/%s", trace, files[i]);
		clock_gettime(CLOCK_REALTIME, &t[0]);
		t[0].tv_sec -= 3600;
		t[1] = t[0];
		cr_assert_eq(utimensat(AT_FDCWD, path, t, 0), 0, "%s", path);
	}
}

/* The digest run files record of @path, as a replay that hashes it records it. */
static void digest_of(const char *path, char out[DIGEST_HEX_LEN])
{
	cr_assert_eq(digest_path_hex(path, out), 0, "%s", path);
}

/* The same operations, as many times each. */
static void expect_same_ops(const struct results *a, const struct results *b)
{
	cr_assert_eq(a->nops, b->nops);
	for (size_t k = 0; k < a->nops; k++)
		cr_assert_eq(b->ops[k].count, a->ops[k].count, "%s", a->ops[k].name);
}

/*
 * Once a trace's files have settled and its cache is written, a replay
 * finds the cache by the files' identity: nothing is hashed, and the run's
 * inputs still record the trace's content digest.
 */
Test(replay, a_cached_replay_finds_the_trace_by_its_files_identity)
{
	struct replay_report rep1, rep2;
	struct results res1, res2;
	char dir[256], digest[DIGEST_HEX_LEN];

	snprintf(dir, sizeof(dir), "%s/t", tmp);
	generate("desktop", 1500, dir);
	age_trace(dir);
	digest_of(dir, digest);
	cr_assert_eq(replay(dir, NULL, true, &res1, &rep1, NULL, 0), 0, "%s", rep1.error);
	cr_assert_not(rep1.from_cache);
	cr_assert(rep1.cache_written);
	cr_assert_eq(replay(dir, NULL, true, &res2, &rep2, NULL, 0), 0, "%s", rep2.error);
	cr_assert(rep2.from_cache);
	cr_assert(rep2.cache_by_identity, "found by identity, without hashing the trace");
	cr_assert_eq(rep2.decoder_peak_rss, 0, "no decoder ran");
	cr_assert_eq(res2.run.ninputs, 1);
	cr_assert_str_eq(res2.run.inputs[0].digest, digest);
	cr_assert_str_eq(res1.run.inputs[0].digest, digest);
	cr_assert_eq(rep2.used, rep1.used);
	expect_same_ops(&res1, &res2);
	results_fini(&res1);
	results_fini(&res2);
}

/*
 * A copy of a cached trace is a new identity of the same content: its
 * first replay hashes it and reads the cache, with no decoder; once its
 * files settle, its own identity is recorded and found.
 */
Test(replay, a_copied_trace_replays_from_the_cache_without_being_decoded)
{
	struct replay_report rep1, rep2;
	struct results res1, res2;
	char dir[256], copy[256], cmd[600], digest[DIGEST_HEX_LEN];

	snprintf(dir, sizeof(dir), "%s/t", tmp);
	snprintf(copy, sizeof(copy), "%s/copy", tmp);
	generate("desktop", 1500, dir);
	cr_assert_eq(replay(dir, NULL, true, &res1, &rep1, NULL, 0), 0, "%s", rep1.error);
	cr_assert(rep1.cache_written);
	snprintf(cmd, sizeof(cmd), "cp -r %s %s", dir, copy);
	cr_assert_eq(system(cmd), 0);
	digest_of(copy, digest);
	for (int i = 0; i < 3; i++) {
		cr_assert_eq(replay(copy, NULL, true, &res2, &rep2, NULL, 0), 0, "%s", rep2.error);
		cr_assert(rep2.from_cache, "replay %d of the copy", i);
		cr_assert_eq(rep2.decoder_peak_rss, 0, "no decoder ran");
		cr_assert_not(rep2.cache_written);
		/* hashed while its files are new, then hashed once settled, then found by identity */
		cr_assert_eq(rep2.cache_by_identity, i == 2, "replay %d of the copy", i);
		cr_assert_str_eq(res2.run.inputs[0].digest, digest);
		cr_assert_eq(rep2.used, rep1.used);
		expect_same_ops(&res1, &res2);
		results_fini(&res2);
		if (!i)
			age_trace(copy);
	}
	results_fini(&res1);
}

/* Replace @from by @to (as long) in the file @path, in place: the same file, the same size. */
static void edit_in_place(const char *path, const char *from, const char *to)
{
	char buf[16384];
	size_t n;
	char *at;
	FILE *f = fopen(path, "r+");

	cr_assert_not_null(f, "%s", path);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	at = strstr(buf, from);
	cr_assert_not_null(at, "%s holds no %s", path, from);
	cr_assert_eq(strlen(from), strlen(to));
	cr_assert_eq(fseek(f, at - buf, SEEK_SET), 0);
	cr_assert_eq(fwrite(to, 1, strlen(to), f), strlen(to));
	cr_assert_eq(fclose(f), 0);
}

/*
 * A trace whose metadata is rewritten in place, to the same size, and its
 * modification time set back to what it was (as an archive extracted over
 * it does): the change time still tells, the contents are hashed, and the
 * replay decodes the trace as it is now (its clock 5 s later).
 */
Test(replay, a_trace_changed_in_place_at_the_same_size_misses_the_cache)
{
	struct replay_report rep1, rep2, rep3;
	struct results res1, res2, res3;
	char dir[256], path[300];
	struct timespec t[2];
	struct stat st;

	snprintf(dir, sizeof(dir), "%s/t", tmp);
	generate("desktop", 1500, dir);
	age_trace(dir);
	cr_assert_eq(replay(dir, NULL, true, &res1, &rep1, NULL, 0), 0, "%s", rep1.error);
	cr_assert_eq(replay(dir, NULL, true, &res2, &rep2, NULL, 0), 0, "%s", rep2.error);
	cr_assert(rep2.cache_by_identity);
	snprintf(path, sizeof(path), "%s/metadata", dir);
	cr_assert_eq(stat(path, &st), 0);
	edit_in_place(path, "offset_s = 0;", "offset_s = 5;");
	t[0] = st.st_atim;
	t[1] = st.st_mtim;
	cr_assert_eq(utimensat(AT_FDCWD, path, t, 0), 0);
	cr_assert_eq(replay(dir, NULL, true, &res3, &rep3, NULL, 0), 0, "%s", rep3.error);
	cr_assert_not(rep3.from_cache, "the trace changed: decoded again");
	cr_assert(rep3.cache_written);
	cr_assert_eq(rep3.first_ts, rep1.first_ts + 5000000000ull, "the events of the trace as it is");
	cr_assert_str_neq(res3.run.inputs[0].digest, res1.run.inputs[0].digest);
	results_fini(&res1);
	results_fini(&res2);
	results_fini(&res3);
}

/* A damaged cache file found by identity: nothing of it runs; it is rebuilt, and found again. */
Test(replay, a_damaged_cache_found_by_identity_is_rebuilt_before_any_event)
{
	struct replay_report rep1, rep2, rep3;
	struct results res1, res2, res3;
	char dir[256], path[512];
	struct stat st;
	uint64_t key;
	FILE *f;
	int c;

	snprintf(dir, sizeof(dir), "%s/t", tmp);
	generate("desktop", 1500, dir);
	age_trace(dir);
	cr_assert_eq(replay(dir, NULL, true, &res1, &rep1, NULL, 0), 0, "%s", rep1.error);
	cr_assert_eq(cache_key(dir, NULL, 0, &key), 0);
	cr_assert_eq(cache_path(tmp, key, path, sizeof(path)), 0);
	cr_assert_eq(stat(path, &st), 0, "%s", path);
	f = fopen(path, "r+");
	cr_assert_not_null(f);
	fseek(f, st.st_size - 7, SEEK_SET); /* near its end: found after most events decoded */
	c = fgetc(f);
	fseek(f, st.st_size - 7, SEEK_SET);
	fputc(c ^ 0x21, f);
	fclose(f);
	cr_assert_eq(replay(dir, NULL, true, &res2, &rep2, NULL, 0), 0, "%s", rep2.error);
	cr_assert_not(rep2.from_cache, "rebuilt from the trace");
	cr_assert(rep2.cache_written);
	cr_assert_eq(rep2.used, rep1.used);
	expect_same_ops(&res1, &res2);
	cr_assert_eq(replay(dir, NULL, true, &res3, &rep3, NULL, 0), 0, "%s", rep3.error);
	cr_assert(rep3.cache_by_identity, "the rebuilt cache is found by identity again");
	expect_same_ops(&res1, &res3);
	results_fini(&res1);
	results_fini(&res2);
	results_fini(&res3);
}

/*
 * An identity file naming other content (its cache file missing): the
 * replay hashes the trace, reads its true cache file, records the true
 * digest among the run's inputs, and mends the identity file.
 */
Test(replay, an_identity_file_naming_other_content_is_checked_by_hashing)
{
	struct replay_report rep;
	struct results res;
	struct cache_entry e, other;
	char dir[256], dir2[256], digest[DIGEST_HEX_LEN];

	snprintf(dir, sizeof(dir), "%s/t", tmp);
	snprintf(dir2, sizeof(dir2), "%s/other", tmp);
	generate("desktop", 1500, dir);
	generate("desktop", 1000, dir2);
	age_trace(dir);
	digest_of(dir, digest);
	cr_assert_eq(replay(dir, NULL, true, &res, &rep, NULL, 0), 0, "%s", rep.error);
	results_fini(&res);
	cr_assert_eq(cache_find(tmp, dir, NULL, 0, &e), 0);
	cr_assert(e.by_identity);
	cr_assert_eq(cache_hash(dir2, NULL, 0, &other), 0);
	e.key = other.key;
	e.digest[0] = other.digest[0];
	e.by_identity = false;
	cr_assert_eq(cache_remember(tmp, &e), 0); /* the other trace's content, not cached here */

	cr_assert_eq(replay(dir, NULL, true, &res, &rep, NULL, 0), 0, "%s", rep.error);
	cr_assert(rep.from_cache, "its own cache file, found by its content");
	cr_assert_not(rep.cache_by_identity);
	cr_assert_eq(rep.events, 1500);
	cr_assert_str_eq(res.run.inputs[0].digest, digest, "the digest of what was replayed");
	results_fini(&res);
	cr_assert_eq(replay(dir, NULL, true, &res, &rep, NULL, 0), 0, "%s", rep.error);
	cr_assert(rep.cache_by_identity, "the identity file was mended");
	cr_assert_eq(rep.events, 1500);
	cr_assert_str_eq(res.run.inputs[0].digest, digest);
	results_fini(&res);
}

Test(replay, results_json_follows_the_contract)
{
	struct replay_report rep;
	struct results res;
	char dir[256], json[300], value[64];
	FILE *f;
	char *doc = calloc(1, 1 << 20);

	snprintf(dir, sizeof(dir), "%s/t", tmp);
	snprintf(json, sizeof(json), "%s/r.json", tmp);
	generate("desktop", 2000, dir);
	cr_assert_eq(replay(dir, NULL, false, &res, &rep, NULL, 0), 0);
	cr_assert_eq(results_write_json(&res, json), 0);
	f = fopen(json, "r");
	cr_assert_not_null(f);
	cr_assert_gt(fread(doc, 1, (1 << 20) - 1, f), 0);
	fclose(f);
	cr_assert(jsonq_valid(doc), "%s", doc);
	cr_assert(jsonq_get(doc, "schema", value, sizeof(value)));
	cr_assert_str_eq(value, "gpuiso-results/1");
	static const char *const paths[] = {
		"run.id", "run.started", "run.git_rev", "run.host", "run.backend", "run.trace",
		"run.scenario", "run.faults", "run.seed", "ops.alloc_mdl.count",
		"ops.alloc_mdl.errors", "ops.alloc_mdl.latency_ns.p50", "ops.alloc_mdl.latency_ns.p999",
		"ops.alloc_mdl.modeled_ns.mean", "power.transitions", "power.time_to_complete_ns.max",
		"faults.injected", "faults.violations", "invariants.no_leaks",
		"invariants.forward_progress", "run.maps", "events.ignored", "events.unmatched",
		"events.discarded", "events.refused",
	};
	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++)
		cr_assert(jsonq_get(doc, paths[i], value, sizeof(value)), "%s missing", paths[i]);
	cr_assert(jsonq_get(doc, "run.backend", value, sizeof(value)));
	cr_assert_str_eq(value, "sim");
	cr_assert(jsonq_get(doc, "events.total", value, sizeof(value)));
	cr_assert_str_eq(value, "2000");
	cr_assert(jsonq_get(doc, "events.used", value, sizeof(value)));
	cr_assert_str_eq(value, "2000");
	free(doc);
	results_fini(&res);
}

static int replay_error(const char *trace, bool strict, struct replay_report *rep)
{
	struct replay_opts o = { .trace = trace, .strict = strict, .cache = true, .cache_dir = tmp };
	struct scenario scn;
	struct results res;
	int rc;

	cr_assert_eq(scenario_defaults(&scn), 0);
	o.scn = &scn;
	rc = replay_run(&o, &res, rep);
	results_fini(&res);
	scenario_free(&scn);
	return rc;
}

Test(replay, bad_input_is_an_error_that_says_where)
{
	struct replay_report rep;
	char dir[256], path[512];
	FILE *f;

	snprintf(dir, sizeof(dir), "%s/none", tmp);
	cr_assert_lt(replay_error(dir, false, &rep), 0);
	cr_assert_eq(rep.failure, REPLAY_BAD_INPUT);
	cr_assert(rep.error[0]);

	/* corrupt metadata */
	snprintf(dir, sizeof(dir), "%s/t", tmp);
	generate("desktop", 200, dir);
	snprintf(path, sizeof(path), "%s/metadata", dir);
	f = fopen(path, "w");
	fputs("/* CTF 1.8 */ this is not TSDL {", f);
	fclose(f);
	cr_assert_lt(replay_error(dir, false, &rep), 0);
	cr_assert_eq(rep.failure, REPLAY_BAD_INPUT, "%s", rep.error);
}

Test(replay, foreign_events_are_ignored_or_refused_with_strict)
{
	struct replay_report rep;
	struct results res;
	const char *real = src("../shared/traces-real/tc-kernel-rpm-kmem");

	/* twice: the second replay reads the cache the first one wrote */
	for (int i = 0; i < 2; i++) {
		cr_assert_eq(replay(real, NULL, true, &res, &rep, NULL, 0), 0, "%s", rep.error);
		cr_assert_eq(rep.from_cache, i == 1);
		cr_assert_eq(rep.events, 31556);
		cr_assert_eq(rep.used, 0);
		cr_assert_eq(rep.ignored, 31556);
		results_fini(&res);
	}
	/* the cache holds no event classes: --strict reads the trace itself */
	cr_assert_lt(replay_error(real, true, &rep), 0);
	cr_assert_eq(rep.failure, REPLAY_BAD_INPUT);
	cr_assert(strstr(rep.error, "--strict"), "%s", rep.error);
	cr_assert(strstr(rep.error, "event 0 at 1412670961211260539 ns: "), "%s", rep.error);
}

Test(replay, the_libc_trace_imports_and_replays_clean)
{
	const char *maps[] = { src("traces/maps/lttng-ust-libc.yaml") };
	char map[1024];
	struct replay_report rep;
	struct results res;

	snprintf(map, sizeof(map), "%s", maps[0]);
	maps[0] = map;
	cr_assert_eq(replay(src("../shared/traces-real/tc-ust-libc-memory"), NULL, true, &res, &rep,
			    maps, 1), 0, "%s", rep.error);
	cr_assert_eq(rep.events, 328056);
	cr_assert_eq(rep.used + rep.ignored + rep.unmatched, rep.events);
	cr_assert_eq(res.ops[WL_ALLOC_MDL].count, 164028, "every malloc became an MDL");
	cr_assert_gt(rep.unmatched, 0, "frees of memory allocated before the trace started");
	/* each such free is an object live at the start: more than the window leaves live */
	cr_assert_gt(rep.live_at_start, rep.left_live, "%llu at the start, %zu at the end",
		     (unsigned long long)rep.live_at_start, rep.left_live);
	cr_assert_leq(rep.live_at_start, rep.unmatched);
	cr_assert_eq(res.events.live_at_start, rep.live_at_start);
	/* the results say which map and what it made of the events */
	cr_assert_eq(res.run.nmaps, 1);
	cr_assert_str_eq(res.run.maps[0], map);
	cr_assert_eq(res.events.unmatched, rep.unmatched);
	cr_assert_eq(res.events.used, rep.used);
	expect_clean(&res, &rep);
	results_fini(&res);
}

Test(replay, the_kernel_trace_imports_and_replays_clean)
{
	char rpm[1024], pages[1024];
	const char *maps[] = { rpm, pages };
	struct replay_report rep;
	struct results res;

	snprintf(rpm, sizeof(rpm), "%s", src("traces/maps/linux-rpm.yaml"));
	snprintf(pages, sizeof(pages), "%s", src("traces/maps/linux-page-alloc.yaml"));
	cr_assert_eq(replay(src("../shared/traces-real/tc-kernel-rpm-kmem"), NULL, false, &res, &rep,
			    maps, 2), 0, "%s", rep.error);
	cr_assert_eq(rep.events, 31556);
	cr_assert_eq(res.ops[WL_MEMORY].count, 504 + 351, "one memory event per page alloc/free");
	cr_assert_eq(res.ops[WL_POWER].count, 3);
	cr_assert_eq(res.nviolations, 0);
	results_fini(&res);

	/* with --strict, a class no rule takes is an error, at its first event */
	struct replay_opts o = { .trace = src("../shared/traces-real/tc-kernel-rpm-kmem"),
				 .maps = maps, .nmaps = 2, .strict = true };
	struct scenario scn;

	cr_assert_eq(scenario_defaults(&scn), 0);
	o.scn = &scn;
	cr_assert_lt(replay_run(&o, &res, &rep), 0);
	results_fini(&res);
	scenario_free(&scn);
	cr_assert_eq(rep.failure, REPLAY_BAD_INPUT);
	cr_assert(strstr(rep.error, "event 0 at 1412670961211260539 ns: no rule of the import maps "
			 "takes event class 'kmem_kmalloc' (--strict)"), "%s", rep.error);
}

Test(replay, a_malformed_map_names_file_line_col)
{
	struct replay_report rep;
	struct results res;
	char map[512], trace[256];
	const char *maps[] = { map };
	FILE *f;

	snprintf(map, sizeof(map), "%s/bad.yaml", tmp);
	f = fopen(map, "w");
	fputs("rules:\n  - event: x\n    op: alloc_mdl\n    fields: {bytes: \"size <<\"}\n", f);
	fclose(f);
	snprintf(trace, sizeof(trace), "%s/t", tmp);
	generate("desktop", 100, trace);
	cr_assert_lt(replay(trace, NULL, false, &res, &rep, maps, 1), 0);
	cr_assert_eq(rep.failure, REPLAY_BAD_INPUT);
	cr_assert(strstr(rep.error, "bad.yaml:3:9: error:"), "%s", rep.error); /* op needs key */
	cr_assert(strstr(rep.error, "bad.yaml:4:"), "%s", rep.error);
	results_fini(&res);
}

static int replay_with_plan(const char *trace, const char *yaml, struct results *res,
			    struct replay_report *rep)
{
	struct replay_opts o = { 0 };
	struct fault_plan plan;
	struct scenario scn;
	char file[512], err[1024] = "", trace_path[1024];
	FILE *f;
	int rc;

	snprintf(trace_path, sizeof(trace_path), "%s", trace); /* src() reuses its buffer */
	o.trace = trace_path;
	snprintf(file, sizeof(file), "%s/faults.yaml", tmp);
	f = fopen(file, "w");
	cr_assert_not_null(f);
	fputs(yaml, f);
	fclose(f);
	cr_assert_eq(fault_plan_load(file, &plan, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(scenario_load(src("traces/scenarios/lda-chain.yaml"), &scn, err, sizeof(err)), 0);
	o.scn = &scn;
	o.faults = &plan;
	o.faults_path = file;
	rc = replay_run(&o, res, rep);
	fault_plan_free(&plan);
	scenario_free(&scn);
	return rc;
}

static uint64_t injected(const struct results *res, const char *point)
{
	for (size_t i = 0; i < res->ninjected; i++)
		if (!strcmp(res->injected[i].name, point))
			return res->injected[i].n;
	return 0;
}

Test(replay, a_forced_pin_failure_takes_the_chunked_path)
{
	struct replay_report rep;
	struct results res;

	cr_assert_eq(replay_with_plan(src("traces/power-cycle"),
				      "faults:\n  - point: fbsave/pin\n    probability: 1\n", &res, &rep),
		     0, "%s", rep.error);
	cr_assert_gt(res.power.transitions, 0);
	cr_assert_eq(res.power.pinned, 0);
	cr_assert_eq(res.power.chunked, res.power.transitions);
	cr_assert_eq(injected(&res, "fbsave/pin"), res.power.transitions);
	expect_clean(&res, &rep);
	results_fini(&res);
}

Test(replay, a_failed_chunk_resets_and_still_makes_progress)
{
	struct replay_report rep;
	struct results res;

	cr_assert_eq(replay_with_plan(src("traces/power-cycle"),
				      "faults:\n  - point: fbsave/*\n    probability: 1\n", &res, &rep),
		     0, "%s", rep.error);
	cr_assert_eq(res.power.reset, res.power.transitions, "every transition cancelled");
	cr_assert_eq(res.power.completed, 0);
	for (size_t i = 0; i < res.ninvariants; i++)
		if (!strcmp(res.invariants[i].name, "forward_progress"))
			cr_assert(res.invariants[i].holds, "a reset is forward progress");
	results_fini(&res);
}

static bool invariant(const struct results *res, const char *name)
{
	for (size_t i = 0; i < res->ninvariants; i++)
		if (!strcmp(res->invariants[i].name, name))
			return res->invariants[i].holds;
	cr_assert_fail("no invariant %s", name);
	return false;
}

/* An adapter whose start fails part way gives back all it took (the driver's buffers, segments). */
Test(replay, a_start_that_fails_part_way_gives_back_what_it_took)
{
	static const char *const plans[] = {
		"faults:\n  - point: mem/alloc_mdl\n    nth: 2\n", /* the second small buffer */
		"faults:\n  - point: mem/commit\n    nth: 3\n",
		"faults:\n  - point: mem/lock\n    nth: 2\n",
	};
	struct replay_report rep;
	struct results res;

	for (size_t i = 0; i < sizeof(plans) / sizeof(plans[0]); i++) {
		cr_assert_eq(replay_with_plan(src("traces/power-cycle"), plans[i], &res, &rep), 0, "%s",
			     rep.error);
		cr_assert_gt(rep.refused, 0, "%s: the adapter did not start", plans[i]);
		cr_assert(invariant(&res, "baseline_restored"), "%s", plans[i]);
		cr_assert(invariant(&res, "no_leaks"), "%s", plans[i]);
		results_fini(&res);
	}
}

Test(replay, a_pressure_schedule_takes_effect_at_its_event)
{
	struct replay_report rep;
	struct results res;

	/* from event 1000 on, too little lockable memory to pin a whole save area */
	cr_assert_eq(replay_with_plan(src("traces/power-cycle"),
				      "pressure:\n  - at: {event: 1000}\n    lockable_available: 4MiB\n",
				      &res, &rep), 0, "%s", rep.error);
	cr_assert_gt(res.power.pinned, 0, "before event 1000 saves pin");
	cr_assert_gt(res.power.chunked, 0, "after it they go by chunks");
	cr_assert_eq(res.power.reset, 0);
	results_fini(&res);
}

/*
 * Fences made and dropped, then one dropped twice at event @bad, then more:
 * a trace the decoder can run far ahead in while the model works behind it.
 */
struct twice {
	uint64_t n, at, bad;
};

static int twice_next(void *ctx, struct wl_event *e)
{
	struct twice *t = ctx;
	uint64_t i = t->at;

	if (i == t->n)
		return 0;
	t->at++;
	*e = (struct wl_event){ .ts = 1000000000 + i * 1000,
				.kind = i % 2 && i != t->bad + 1 ? WL_FENCE_DESTROY : WL_FENCE_CREATE };
	e->v[WL_ID] = i / 2;
	if (i == t->bad)
		*e = (struct wl_event){ .ts = e->ts, .kind = WL_FENCE_DESTROY,
					.v = { [WL_ID] = i / 2 - 1 } };
	return 1;
}

Test(replay, bad_input_found_by_the_model_says_where_however_far_the_decoder_is)
{
	struct twice t = { .n = 200000, .bad = 100000 };
	struct replay_report rep;
	struct results res;
	char dir[256], err[256] = "";

	snprintf(dir, sizeof(dir), "%s/twice", tmp);
	cr_assert_eq(ctf_write(dir, twice_next, &t, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(replay(dir, NULL, false, &res, &rep, NULL, 0), -EINVAL);
	cr_assert_eq(rep.failure, REPLAY_BAD_INPUT);
	cr_assert(strstr(rep.error, "event 100000 at 1100000000 ns"), "%s", rep.error);
	cr_assert(strstr(rep.error, "freed twice"), "%s", rep.error);
	results_fini(&res);
}

/*
 * Give event @index of a trace of fence events (as twice_next() writes
 * them) an event class id no class has: decoding stops there. The layout is
 * sink.ctf.fs's, byte aligned: a 36-byte packet header, then a context of
 * five 64-bit fields (packet_size and content_size first, in bits), then the
 * events, each a 64-bit id and timestamp followed by its 64-bit fields.
 */
static void unknown_class_at(const char *dir, uint64_t index)
{
	enum { HEADER = 36, CONTEXT = 40 };
	const uint64_t event = 16 + 8 * wl_catalogue[WL_FENCE_CREATE].nfields;
	uint64_t pos = 0, bad = UINT64_MAX;
	uint8_t *bytes;
	char path[512];
	long size;
	FILE *f;

	snprintf(path, sizeof(path), "%s/stream", dir);
	f = fopen(path, "r+b");
	cr_assert(f, "%s", path);
	cr_assert_eq(fseek(f, 0, SEEK_END), 0);
	size = ftell(f);
	bytes = malloc((size_t)size);
	rewind(f);
	cr_assert_eq(fread(bytes, 1, (size_t)size, f), (size_t)size);
	while (bad == UINT64_MAX && pos + HEADER + CONTEXT <= (uint64_t)size) {
		uint64_t packet_bits, content_bits, n;

		memcpy(&packet_bits, bytes + pos + HEADER, 8);
		memcpy(&content_bits, bytes + pos + HEADER + 8, 8);
		n = (content_bits / 8 - HEADER - CONTEXT) / event;
		if (index < n)
			bad = pos + HEADER + CONTEXT + index * event;
		index -= index < n ? 0 : n;
		pos += packet_bits / 8;
	}
	cr_assert_neq(bad, UINT64_MAX, "no such event in %s", path);
	memset(bytes + bad, 0xff, 8);
	rewind(f);
	cr_assert_eq(fwrite(bytes, 1, (size_t)size, f), (size_t)size);
	fclose(f);
	free(bytes);
}

/*
 * A double free at event 100000 and a damaged stream: whichever comes first
 * in the trace is the error. Damage a few hundred events after the double
 * free stops the decoder while the model has yet to reach it (the batch
 * holding both is handed over only when the decoder stops).
 */
Test(replay, the_first_error_in_the_trace_is_the_one_reported)
{
	struct replay_report rep;
	struct results res;
	char dir[256], err[256] = "";

	for (int late = 0; late < 2; late++) {
		struct twice t = { .n = 200000, .bad = 100000 };

		snprintf(dir, sizeof(dir), "%s/twice%d", tmp, late);
		cr_assert_eq(ctf_write(dir, twice_next, &t, err, sizeof(err)), 0, "%s", err);
		unknown_class_at(dir, late ? 100300 : 40000);
		cr_assert_eq(replay(dir, NULL, false, &res, &rep, NULL, 0), -EINVAL, "%s", rep.error);
		cr_assert_eq(rep.failure, REPLAY_BAD_INPUT);
		if (late) {
			cr_assert(strstr(rep.error, "event 100000 at 1100000000 ns"), "%s", rep.error);
			cr_assert(strstr(rep.error, "freed twice"), "%s", rep.error);
		} else {
			cr_assert(strstr(rep.error, "corrupt trace after event 39999"), "%s", rep.error);
		}
		results_fini(&res);
	}
}

/* From CTF (the model on its own thread) and from the cache (one thread): the same refusals. */
Test(replay, refusals_are_the_same_from_ctf_and_from_the_cache)
{
	struct replay_report rep1, rep2;
	struct results res1, res2;
	char dir[256];

	snprintf(dir, sizeof(dir), "%s/t", tmp);
	/* three physical adapters' events on a one-adapter scenario: many are refused */
	generate("power-cycle", 20000, dir);
	cr_assert_eq(replay(dir, NULL, true, &res1, &rep1, NULL, 0), 0, "%s", rep1.error);
	cr_assert_eq(replay(dir, NULL, true, &res2, &rep2, NULL, 0), 0, "%s", rep2.error);
	cr_assert(rep1.cache_written);
	cr_assert(rep2.from_cache);
	cr_assert_gt(rep1.refused, 1000);
	cr_assert_eq(rep2.refused, rep1.refused);
	cr_assert_eq(rep2.nrefusals, rep1.nrefusals);
	for (size_t i = 0; i < rep1.nrefusals; i++) {
		cr_assert_eq(rep2.refusals[i].index, rep1.refusals[i].index);
		cr_assert_eq(rep2.refusals[i].ts, rep1.refusals[i].ts);
		cr_assert_str_eq(rep2.refusals[i].why, rep1.refusals[i].why);
	}
	for (size_t k = 0; k < res1.nops; k++) {
		cr_assert_eq(res2.ops[k].count, res1.ops[k].count, "%s", res1.ops[k].name);
		cr_assert_eq(res2.ops[k].errors, res1.ops[k].errors, "%s", res1.ops[k].name);
	}
	cr_assert_eq(res2.nviolations, res1.nviolations);
	results_fini(&res1);
	results_fini(&res2);
}

/* ---- a recording that lost events ---- */

/* Little-endian, aligned to its own size, as the metadata below declares. */
static void put_le(uint8_t *b, size_t *o, uint64_t v, size_t bytes)
{
	*o = (*o + bytes - 1) / bytes * bytes;
	for (size_t i = 0; i < bytes; i++)
		b[(*o)++] = (uint8_t)(v >> (8 * i));
}

/*
 * Two packets of MDL events on adapter 0, 100 ns apart; the second packet's
 * events_discarded counter says @lost events were lost in between:
 *   alloc 1, alloc 2 | free 1, free 3 (its alloc lost), alloc 2 (its free lost), free 2
 */
static void write_lossy_trace(const char *dir, uint64_t lost)
{
	static const char meta[] =
		"/* CTF 1.8 */\n"
		"typealias integer { size = 32; align = 32; signed = false; } := uint32_t;\n"
		"typealias integer { size = 64; align = 64; signed = false; } := uint64_t;\n"
		"trace { major = 1; minor = 8; byte_order = le;\n"
		"  packet.header := struct { uint32_t magic; uint32_t stream_id; }; };\n"
		"clock { name = c; freq = 1000000000; offset = 0; };\n"
		"typealias integer { size = 64; align = 64; signed = false; map = clock.c.value; } := ts_t;\n"
		"stream { id = 0;\n"
		"  packet.context := struct { ts_t timestamp_begin; ts_t timestamp_end;\n"
		"    uint64_t content_size; uint64_t packet_size; uint64_t events_discarded; };\n"
		"  event.header := struct { uint32_t id; ts_t timestamp; }; };\n"
		"event { name = \"gpuiso_wl:alloc_mdl\"; id = 0; stream_id = 0;\n"
		"  fields := struct { uint64_t adapter; uint64_t id; uint64_t bytes; }; };\n"
		"event { name = \"gpuiso_wl:free_mdl\"; id = 1; stream_id = 0;\n"
		"  fields := struct { uint64_t adapter; uint64_t id; }; };\n";
	static const struct { uint32_t kind; uint64_t id; } events[2][4] = {
		{ { 0, 1 }, { 0, 2 } },
		{ { 1, 1 }, { 1, 3 }, { 0, 2 }, { 1, 2 } },
	};
	static const size_t count[2] = { 2, 4 };
	char path[512];
	uint64_t ts = 100;
	FILE *f;

	cr_assert_eq(mkdir(dir, 0755), 0);
	snprintf(path, sizeof(path), "%s/metadata", dir);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs(meta, f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/stream_0", dir);
	f = fopen(path, "wb");
	cr_assert_not_null(f);
	for (int k = 0; k < 2; k++) {
		uint8_t b[4096] = { 0 };
		size_t o = 0, content_at;

		put_le(b, &o, 0xC1FC1FC1, 4);
		put_le(b, &o, 0, 4);
		put_le(b, &o, ts, 8);
		put_le(b, &o, ts + 100 * (count[k] - 1), 8);
		content_at = o;
		put_le(b, &o, 0, 8);                /* content_size, below */
		put_le(b, &o, sizeof(b) * 8, 8);    /* packet_size in bits */
		put_le(b, &o, k ? lost : 0, 8);     /* a running count */
		for (size_t i = 0; i < count[k]; i++, ts += 100) {
			put_le(b, &o, events[k][i].kind, 4);
			put_le(b, &o, ts, 8);
			put_le(b, &o, 0, 8);                  /* adapter */
			put_le(b, &o, events[k][i].id, 8);
			if (events[k][i].kind == 0)
				put_le(b, &o, 4096, 8);       /* bytes */
		}
		for (size_t i = 0; i < 8; i++)
			b[content_at + i] = (uint8_t)((o * 8) >> (8 * i));
		cr_assert_eq(fwrite(b, 1, sizeof(b), f), sizeof(b));
	}
	fclose(f);
}

Test(replay, after_lost_events_objects_without_their_other_end_are_not_an_error)
{
	struct replay_report rep;
	struct results res;
	char dir[256];

	/* nothing lost: a free of an id never allocated is bad input */
	snprintf(dir, sizeof(dir), "%s/whole", tmp);
	write_lossy_trace(dir, 0);
	cr_assert_lt(replay_error(dir, false, &rep), 0);
	cr_assert_eq(rep.failure, REPLAY_BAD_INPUT);
	cr_assert(strstr(rep.error, "event 3 at 400 ns"), "%s", rep.error);

	/* lost: that free is unmatched, the allocation again ends the old one; from the cache too */
	snprintf(dir, sizeof(dir), "%s/lossy", tmp);
	write_lossy_trace(dir, 2);
	for (int i = 0; i < 2; i++) {
		cr_assert_eq(replay(dir, NULL, true, &res, &rep, NULL, 0), 0, "%s", rep.error);
		cr_assert_eq(rep.from_cache, i == 1);
		cr_assert_eq(rep.events, 6);
		cr_assert_eq(rep.discarded, 2);
		cr_assert_eq(rep.used, 5);
		cr_assert_eq(rep.unmatched, 1);
		cr_assert_eq(rep.ignored, 0);
		cr_assert_eq(rep.lost.skipped, 1);
		cr_assert_eq(rep.lost.ended, 1);
		cr_assert_eq(rep.refused, 0);
		cr_assert_eq(rep.left_live, 0);
		cr_assert_eq(res.ops[WL_ALLOC_MDL].count, 3);
		cr_assert_eq(res.ops[WL_FREE_MDL].count, 2);
		cr_assert_eq(res.events.unmatched, 1);
		expect_clean(&res, &rep);
		results_fini(&res);
	}
}

/* --- what a trace leaves live: a window of a longer run, or the adapters' whole life --- */

struct script {
	const struct wl_event *ev;
	size_t n, at;
};

static int script_next(void *ctx, struct wl_event *e)
{
	struct script *s = ctx;

	if (s->at == s->n)
		return 0;
	*e = s->ev[s->at++];
	return 1;
}

#define WL(t, k, id_, bytes)                                                    \
	{ .ts = (t), .kind = (k), .v = { [WL_ID] = (id_), [WL_BYTES] = (bytes) } }

/* Allocates four objects and frees one: ids 1, 2 and 4 (events 0, 1 and 4) stay live. */
static const struct wl_event leaky[] = {
	WL(1000, WL_ALLOC_MDL, 1, 4096),     WL(2000, WL_ALLOC_CONTIGUOUS, 2, 8192),
	WL(3000, WL_ALLOC_MDL, 3, 4096),     WL(4000, WL_FREE_MDL, 3, 0),
	WL(5000, WL_FENCE_CREATE, 4, 0),
};

/* The same, freeing everything. */
static const struct wl_event tidy[] = {
	WL(1000, WL_ALLOC_MDL, 1, 4096),  WL(2000, WL_ALLOC_CONTIGUOUS, 2, 8192),
	WL(3000, WL_FREE_MDL, 1, 0),      WL(4000, WL_FREE_CONTIGUOUS, 2, 0),
	WL(5000, WL_FENCE_CREATE, 4, 0),  WL(6000, WL_FENCE_DESTROY, 4, 0),
};

static void write_script(const char *dir, const struct wl_event *ev, size_t n)
{
	struct script s = { .ev = ev, .n = n };
	char err[256] = "";

	cr_assert_eq(ctf_write(dir, script_next, &s, err, sizeof(err)), 0, "%s", err);
}

/* Replay @trace on the defaults, through the cache, taken to cover @covers. */
static int replay_covering(const char *trace, enum trace_covers covers, struct results *res,
			   struct replay_report *rep)
{
	struct replay_opts o = { .trace = trace, .cache = true, .cache_dir = tmp, .covers = covers };
	struct scenario scn;
	int rc;

	cr_assert_eq(scenario_defaults(&scn), 0);
	o.scn = &scn;
	rc = replay_run(&o, res, rep);
	scenario_free(&scn);
	return rc;
}

/* The summary, and the results JSON, of a replay, as text. */
static void texts(const struct results *res, const struct replay_report *rep, char **summary,
		  char **json)
{
	char path[300];
	size_t len;
	FILE *f = open_memstream(summary, &len);

	cr_assert_not_null(f);
	replay_summary(res, rep, false, f);
	cr_assert_eq(fclose(f), 0);
	snprintf(path, sizeof(path), "%s/r.json", tmp);
	cr_assert_eq(results_write_json(res, path), 0);
	f = fopen(path, "r");
	cr_assert_not_null(f);
	*json = calloc(1, 1 << 16);
	cr_assert_gt(fread(*json, 1, (1 << 16) - 1, f), 0);
	fclose(f);
	cr_assert(jsonq_valid(*json), "%s", *json);
}

static void expect_json(const char *json, const char *path, const char *want)
{
	char value[64];

	cr_assert(jsonq_get(json, path, value, sizeof(value)), "%s missing", path);
	cr_assert_str_eq(value, want, "%s", path);
}

Test(replay, a_window_releases_what_it_left_live_and_counts_it)
{
	struct replay_report rep;
	struct results res;
	char dir[256], *summary, *json;

	snprintf(dir, sizeof(dir), "%s/leaky", tmp);
	write_script(dir, leaky, sizeof(leaky) / sizeof(leaky[0]));
	/* the default: a window of a longer run */
	cr_assert_eq(replay_covering(dir, COVERS_WINDOW, &res, &rep), 0, "%s", rep.error);
	cr_assert_eq(rep.left_live, 3);
	cr_assert_eq(res.events.left_live, 3);
	expect_clean(&res, &rep);
	texts(&res, &rep, &summary, &json);
	cr_assert(strstr(summary, "left live by the trace: 3 objects, released at the end "
				  "(--trace-covers window: a window of a longer run)"), "%s", summary);
	/* a gpuiso trace frees nothing it did not create: it began with none live */
	cr_assert(strstr(summary, "GREW: the window ends with 3 live objects and began with 0"),
		  "%s", summary);
	expect_json(json, "events.left_live", "3");
	expect_json(json, "events.live_at_start", "0");
	expect_json(json, "run.trace_covers", "window");
	expect_json(json, "invariants.no_leaks", "true");
	free(summary);
	free(json);
	results_fini(&res);
}

/*
 * Latencies above the histograms' range (73 minutes) are said in the
 * summary and the JSON, each where it was; none is said where there was none.
 */
Test(replay, latencies_out_of_range_are_said)
{
	struct replay_report rep;
	struct results res;
	char dir[256], path[128], *summary, *json, want[160];
	struct op_result *first = NULL, *other = NULL;

	snprintf(dir, sizeof(dir), "%s/leaky", tmp);
	write_script(dir, leaky, sizeof(leaky) / sizeof(leaky[0]));
	cr_assert_eq(replay_covering(dir, COVERS_WINDOW, &res, &rep), 0, "%s", rep.error);
	texts(&res, &rep, &summary, &json);
	cr_assert_null(strstr(summary, "OUT OF RANGE"), "%s", summary);
	cr_assert_null(strstr(json, "overflow"), "%s", json);
	free(summary);
	free(json);

	for (size_t k = 0; k < res.nops; k++)
		if (res.ops[k].count && !first)
			first = &res.ops[k];
		else if (res.ops[k].count && !other)
			other = &res.ops[k];
	cr_assert(first && other);
	cr_assert_eq(hist_record(&first->wall, HIST_TOP + 1), 0);
	cr_assert_eq(hist_record(&first->wall, UINT64_MAX), 0);
	texts(&res, &rep, &summary, &json);
	snprintf(want, sizeof(want), "OUT OF RANGE: 2 %s latencies above 4398046511103 ns (73 min)",
		 first->name);
	cr_assert(strstr(summary, want), "%s", summary);
	cr_assert_null(strstr(strstr(summary, "OUT OF RANGE") + 1, "OUT OF RANGE"), "%s", summary);
	snprintf(path, sizeof(path), "ops.%s.latency_ns.overflow", first->name);
	expect_json(json, path, "2");
	snprintf(path, sizeof(path), "ops.%s.latency_ns.max", first->name);
	expect_json(json, path, "18446744073709551615");
	snprintf(path, sizeof(path), "ops.%s.modeled_ns.overflow", first->name);
	cr_assert_not(jsonq_get(json, path, want, sizeof(want)), "%s", json);
	snprintf(path, sizeof(path), "ops.%s.latency_ns.overflow", other->name);
	cr_assert_not(jsonq_get(json, path, want, sizeof(want)), "%s", json);
	free(summary);
	free(json);
	results_fini(&res);
}

Test(replay, a_whole_life_reports_what_it_left_live_as_leaks)
{
	static const uint64_t created[] = { 0, 1, 4 }; /* ids 1, 2, 4 */
	struct replay_report rep;
	struct results res;
	char dir[256], *summary, *json;

	snprintf(dir, sizeof(dir), "%s/leaky", tmp);
	write_script(dir, leaky, sizeof(leaky) / sizeof(leaky[0]));
	for (int i = 0; i < 2; i++) {
		cr_assert_eq(replay_covering(dir, COVERS_LIFE, &res, &rep), 0, "%s", rep.error);
		cr_assert_eq(rep.from_cache, i == 1);
		cr_assert_eq(rep.left_live, 3);
		cr_assert_eq(res.events.left_live, 3);
		cr_assert_eq(res.nviolations, 3, "%s", res.nviolations ? res.violations[0].detail : "");
		for (size_t k = 0; k < res.nviolations; k++) {
			const struct violation_result *v = &res.violations[k];

			cr_assert_str_eq(v->code, "HANDLE_LEAK");
			cr_assert(v->event == created[0] || v->event == created[1] ||
				  v->event == created[2], "%s at event %llu", v->detail,
				  (unsigned long long)v->event);
		}
		cr_assert(replay_findings(&res), "the run has findings: gpuiso replay exits 1");
		cr_assert(invariant(&res, "baseline_restored"), "the model gave everything back");
		cr_assert_not(invariant(&res, "no_leaks"));
		texts(&res, &rep, &summary, &json);
		cr_assert(strstr(summary, "left live by the trace: 3 objects, leaked "
					  "(--trace-covers life: the adapters' whole life)"), "%s", summary);
		cr_assert(strstr(summary, "HANDLE_LEAK at event 4: id 4 created by fence_create at 5000 ns:"),
			  "%s", summary);
		cr_assert(strstr(summary, "invariant broken: no_leaks"), "%s", summary);
		expect_json(json, "events.left_live", "3");
		expect_json(json, "run.trace_covers", "life");
		expect_json(json, "invariants.no_leaks", "false");
		free(summary);
		free(json);
		results_fini(&res);
	}
}

Test(replay, a_trace_that_frees_everything_has_no_leaks_either_way)
{
	static const enum trace_covers covers[] = { COVERS_WINDOW, COVERS_LIFE };
	struct replay_report rep;
	struct results res;
	char dir[256];

	snprintf(dir, sizeof(dir), "%s/tidy", tmp);
	write_script(dir, tidy, sizeof(tidy) / sizeof(tidy[0]));
	for (size_t i = 0; i < 2; i++) {
		cr_assert_eq(replay_covering(dir, covers[i], &res, &rep), 0, "%s", rep.error);
		cr_assert_eq(rep.left_live, 0);
		cr_assert_eq(res.events.left_live, 0);
		expect_clean(&res, &rep);
		results_fini(&res);
	}
}

/* A WDDM 3.2 driver's callback from a DPC: written as CTF, read back, the run ends there. */
static const struct wl_event dispatch_callback[] = {
	WL(1000, WL_ALLOC_MDL, 1, 4096),
	{ .ts = 2000, .kind = WL_IRQL, .v = { [WL_ARG] = CORE_IRQL_DISPATCH } },
	WL(3000, WL_ALLOC_MDL, 2, 4096),
	{ .ts = 4000, .kind = WL_IRQL, .v = { [WL_ARG] = CORE_IRQL_PASSIVE } },
	WL(5000, WL_FREE_MDL, 1, 0),
	WL(6000, WL_DRIVER_MDL_CREATE, 3, 4096),
};

Test(replay, a_bugcheck_stops_the_replay_and_says_where)
{
	struct replay_opts o = { .cache = true, .cache_dir = tmp };
	struct replay_report rep;
	struct results res;
	struct scenario scn;
	char dir[256], *summary, *json;

	snprintf(dir, sizeof(dir), "%s/bugcheck", tmp);
	write_script(dir, dispatch_callback, sizeof(dispatch_callback) / sizeof(dispatch_callback[0]));
	cr_assert_eq(scenario_defaults(&scn), 0);
	scn.adapters[0].wddm = SCN_WDDM(3, 2);
	o.trace = dir;
	o.scn = &scn;
	for (int pass = 0; pass < 2; pass++) { /* from CTF, then from the cache: the same */
		cr_assert_eq(replay_run(&o, &res, &rep), 0, "%s", rep.error);
		cr_assert_eq(rep.from_cache, pass == 1);
		cr_assert(rep.bugchecked);
		cr_assert_eq(rep.bugcheck_event, 2);
		cr_assert_eq(rep.bugcheck_ts, 3000);
		cr_assert_eq(rep.not_run, 3);
		cr_assert_eq(rep.used, 3);
		cr_assert_eq(res.nviolations, 1);
		texts(&res, &rep, &summary, &json);
		cr_assert(strstr(summary, "STOPPED: bugcheck at event 2 (3000 ns)"), "%s", summary);
		cr_assert(strstr(summary, "the 3 events after it were not executed"), "%s", summary);
		cr_assert(strstr(summary, "left live by the trace: 1 objects when the machine stopped"),
			  "%s", summary);
		expect_json(json, "events.not_run", "3");
		free(summary);
		free(json);
		results_fini(&res);
	}
	scenario_free(&scn);
}
