/* SPDX-License-Identifier: MIT */
/*
 * Whole replays through the cache: the same results as from the trace,
 * found by the trace's identity or its content, rebuilt when the trace
 * changed or the cache file is damaged.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "common/digest_path.h"
#include "replay/cache.h"
#include "tests/replay/replay_fixture.h"

TestSuite(replay, .init = setup, .fini = teardown);

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
