/* SPDX-License-Identifier: MIT */
/* The compiled replay cache: round trip, and never trusting a file that does not match. */
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
#include "replay/cache.h"

struct collect {
	struct wl_event ev[64];
	uint64_t index[64];
	size_t n;
};

static int collect(void *ctx, uint64_t index, const struct wl_event *e)
{
	struct collect *c = ctx;

	c->index[c->n] = index;
	c->ev[c->n++] = *e;
	return 0;
}

static void sample(struct wl_event *e, int i)
{
	memset(e, 0, sizeof(*e));
	e->ts = 1000000000ull + (uint64_t)i * 1234;
	e->kind = (uint32_t)(i % WL_NKINDS);
	for (unsigned int f = 0; f < wl_catalogue[e->kind].nfields; f++)
		e->v[wl_catalogue[e->kind].fields[f].slot] = (uint64_t)(i * 7 + f) << (f * 9);
}

static void write_cache(const char *path, uint64_t key, int n)
{
	struct cache_meta meta = { .events = (uint64_t)n * 2, .records = (uint64_t)n, .ignored = 3 };
	struct cache_writer *w;
	struct wl_event e;

	cr_assert_eq(cache_writer_open(path, key, &w), 0);
	for (int i = 0; i < n; i++) {
		sample(&e, i);
		cr_assert_eq(cache_writer_add(w, (uint64_t)i * 2, &e), 0);
	}
	cr_assert_eq(cache_writer_commit(w, &meta), 0);
}

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

static char dir[] = "/tmp/gpuiso-cache-XXXXXX";

static void setup(void)
{
	cr_assert_not_null(mkdtemp(dir));
}

static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	cr_assert_eq(system(cmd), 0);
}

TestSuite(cache, .init = setup, .fini = teardown);

Test(cache, round_trip_keeps_every_field_index_and_time)
{
	struct collect c = { 0 };
	struct cache_meta meta;
	char path[256];

	snprintf(path, sizeof(path), "%s/sub/dir/k.wlc", dir);
	write_cache(path, 42, 50);
	cr_assert_eq(cache_read(path, 42, collect, &c, &meta), 0);
	cr_assert_eq(c.n, 50);
	cr_assert_eq(meta.records, 50);
	cr_assert_eq(meta.ignored, 3);
	for (int i = 0; i < 50; i++) {
		struct wl_event want;

		sample(&want, i);
		cr_assert_eq(c.index[i], (uint64_t)i * 2);
		cr_assert_eq(memcmp(&c.ev[i], &want, sizeof(want)), 0, "event %d differs", i);
	}
}

/* Values at every width a record can store them in, indices repeated, skipped and huge. */
Test(cache, round_trip_at_every_value_width)
{
	static const uint64_t values[] = {
		0, 1, 0xff, 0x100, 0xffff, 0x10000, 0xffffff, 0x1000000, 0xffffffff, 0x100000000ull,
		0xffffffffffull, 0x10000000000ull, 0xffffffffffffull, 0x1000000000000ull, UINT64_MAX,
	};
	static const uint64_t index[] = { 0, 0, 1, 5, 5, 6, 1000, 1ull << 40, (1ull << 40) + 1, UINT64_MAX - 1,
					  UINT64_MAX - 1, UINT64_MAX, UINT64_MAX, UINT64_MAX, UINT64_MAX };
	struct wl_event want[ARRAY_LEN(values)];
	struct collect c = { 0 };
	struct cache_meta meta = { .records = ARRAY_LEN(values) };
	struct cache_writer *w;
	char path[256];
	uint64_t ts = 0;

	snprintf(path, sizeof(path), "%s/widths.wlc", dir);
	cr_assert_eq(cache_writer_open(path, 7, &w), 0);
	for (size_t i = 0; i < ARRAY_LEN(values); i++) {
		struct wl_event *e = &want[i];

		memset(e, 0, sizeof(*e));
		ts += values[i] >> 2; /* time never goes back */
		e->ts = ts;
		e->kind = (uint32_t)((i * 5) % WL_NKINDS);
		for (unsigned int f = 0; f < wl_catalogue[e->kind].nfields; f++)
			e->v[wl_catalogue[e->kind].fields[f].slot] = values[(i + f) % ARRAY_LEN(values)];
		cr_assert_eq(cache_writer_add(w, index[i], e), 0);
	}
	cr_assert_eq(cache_writer_commit(w, &meta), 0);
	cr_assert_eq(cache_read(path, 7, collect, &c, &meta), 0);
	cr_assert_eq(c.n, ARRAY_LEN(values));
	for (size_t i = 0; i < ARRAY_LEN(values); i++) {
		cr_assert_eq(c.index[i], index[i], "record %zu", i);
		cr_assert_eq(memcmp(&c.ev[i], &want[i], sizeof(want[i])), 0, "record %zu differs", i);
	}
}

Test(cache, another_key_is_stale)
{
	struct cache_meta meta;
	char path[256];

	snprintf(path, sizeof(path), "%s/k.wlc", dir);
	write_cache(path, 42, 10);
	cr_assert_eq(cache_read(path, 43, NULL, NULL, &meta), -ESTALE);
	cr_assert_eq(cache_read(path, 42, NULL, NULL, &meta), 0);
}

Test(cache, truncated_corrupt_or_foreign_files_are_stale)
{
	struct collect c = { 0 };
	struct cache_meta meta;
	char path[256];
	struct stat st;
	FILE *f;

	snprintf(path, sizeof(path), "%s/k.wlc", dir);
	cr_assert_eq(cache_read(path, 42, NULL, NULL, &meta), -ENOENT);
	write_cache(path, 42, 40);
	cr_assert_eq(stat(path, &st), 0);
	cr_assert_eq(truncate(path, st.st_size - 5), 0);
	cr_assert_eq(cache_read(path, 42, collect, &c, &meta), -ESTALE);
	cr_assert_eq(c.n, 0, "no event may be delivered from a bad file");

	write_cache(path, 42, 40);
	f = fopen(path, "r+");
	cr_assert_not_null(f);
	fseek(f, st.st_size - 20, SEEK_SET);
	fputc(0x55, f); /* one byte in the middle of the records */
	fclose(f);
	cr_assert_eq(cache_read(path, 42, collect, &c, &meta), -ESTALE);
	cr_assert_eq(c.n, 0);

	/* a count in the header (found by its values: events 80, records 40, ignored 3) */
	write_cache(path, 42, 40);
	uint64_t head[64], counts = 0;

	f = fopen(path, "r");
	cr_assert_eq(fread(head, sizeof(head), 1, f), 1);
	fclose(f);
	while (counts < 62 && !(head[counts] == 80 && head[counts + 1] == 40 && head[counts + 2] == 3))
		counts++;
	cr_assert_lt(counts, 62, "the header holds the counts");
	for (size_t at = 0; at < sizeof(struct cache_meta); at += 3) {
		write_cache(path, 42, 40);
		f = fopen(path, "r+");
		cr_assert_not_null(f);
		fseek(f, (long)(counts * 8 + at), SEEK_SET);
		fputc(0x05, f);
		fclose(f);
		cr_assert_eq(cache_read(path, 42, collect, &c, &meta), -ESTALE, "byte %zu of the counts", at);
		cr_assert_eq(c.n, 0);
	}

	f = fopen(path, "w");
	fputs("this is not a cache file, but it is long enough to hold a header......", f);
	fclose(f);
	cr_assert_eq(cache_read(path, 42, NULL, NULL, &meta), -ESTALE);

	/* not a file: a FIFO there is rebuilt, not waited on */
	cr_assert_eq(unlink(path), 0);
	cr_assert_eq(mkfifo(path, 0600), 0);
	cr_assert_eq(cache_read(path, 42, NULL, NULL, &meta), -ESTALE);
}

Test(cache, key_follows_the_content_of_every_file)
{
	char path[512], trace[256];
	uint64_t k1, k2, k3;
	FILE *f;

	snprintf(trace, sizeof(trace), "%s/trace", dir);
	cr_assert_eq(mkdir(trace, 0755), 0);
	snprintf(path, sizeof(path), "%s/metadata", trace);
	f = fopen(path, "w");
	fputs("metadata v1", f);
	fclose(f);
	cr_assert_eq(cache_key(trace, NULL, 0, &k1), 0);
	cr_assert_eq(cache_key(trace, NULL, 0, &k2), 0);
	cr_assert_eq(k1, k2);
	f = fopen(path, "w");
	fputs("metadata v2", f);
	fclose(f);
	cr_assert_eq(cache_key(trace, NULL, 0, &k3), 0);
	cr_assert_neq(k1, k3, "a changed file must change the key");
	const char *extra[] = { path };

	cr_assert_eq(cache_key(trace, extra, 1, &k2), 0);
	cr_assert_neq(k2, k3, "the extra file must count");
	snprintf(path, sizeof(path), "%s/nope", dir);
	cr_assert_lt(cache_key(path, NULL, 0, &k1), 0);
}

Test(cache, path_follows_xdg_cache_home)
{
	char path[256];

	setenv("XDG_CACHE_HOME", "/somewhere", 1);
	cr_assert_eq(cache_path(NULL, 0xab, path, sizeof(path)), 0);
	cr_assert_str_eq(path, "/somewhere/gpuiso/00000000000000ab.wlc");
	unsetenv("XDG_CACHE_HOME");
	setenv("HOME", "/home/x", 1);
	cr_assert_eq(cache_path(NULL, 0xab, path, sizeof(path)), 0);
	cr_assert_str_eq(path, "/home/x/.cache/gpuiso/00000000000000ab.wlc");
	cr_assert_eq(cache_path("/d", 1, path, sizeof(path)), 0);
	cr_assert_str_eq(path, "/d/0000000000000001.wlc");
}

/*
 * A cache whose checksum is right but whose header counts one record more
 * than it holds (what a crafted or buggy writer leaves): checked whole, it
 * is stale before one of its events is delivered.
 */
Test(cache, a_count_the_records_do_not_match_delivers_nothing)
{
	struct cache_meta meta = { .events = 80, .records = 41 }, got;
	struct collect c = { 0 };
	struct cache_writer *w;
	struct wl_event e;
	char path[256];

	snprintf(path, sizeof(path), "%s/k.wlc", dir);
	cr_assert_eq(cache_writer_open(path, 42, &w), 0);
	for (int i = 0; i < 40; i++) {
		sample(&e, i);
		cr_assert_eq(cache_writer_add(w, (uint64_t)i * 2, &e), 0);
	}
	cr_assert_eq(cache_writer_commit(w, &meta), 0);
	cr_assert_eq(cache_read(path, 42, collect, &c, &got), -ESTALE);
	cr_assert_eq(c.n, 0, "%zu events reached the model from a cache that is no good", c.n);
}

/* Counts what a long read delivers, checking each event against sample(). */
struct tally {
	size_t n;
	size_t wrong;
};

static int tally(void *ctx, uint64_t index, const struct wl_event *e)
{
	struct tally *t = ctx;
	struct wl_event want;

	sample(&want, (int)t->n);
	if (index != (uint64_t)t->n * 2 || memcmp(e, &want, sizeof(want)))
		t->wrong++;
	t->n++;
	return 0;
}

/*
 * A file of many times the reader's buffer (records straddling every
 * boundary between two reads): every event comes back; damaged in its last
 * bytes, or cut short there, it delivers none, though all the events before
 * the damage were read before it was found.
 */
Test(cache, a_long_file_is_checked_to_its_end_before_any_event)
{
	enum { N = 300000 };
	struct tally t = { 0 };
	int c;
	struct cache_meta meta;
	char path[256];
	struct stat st;
	FILE *f;

	snprintf(path, sizeof(path), "%s/long.wlc", dir);
	write_cache(path, 42, N);
	cr_assert_eq(stat(path, &st), 0);
	cr_assert_gt(st.st_size, 4 << 20, "the file spans many reads (%lld bytes)",
		     (long long)st.st_size);
	cr_assert_eq(cache_read(path, 42, tally, &t, &meta), 0);
	cr_assert_eq(t.n, N);
	cr_assert_eq(t.wrong, 0, "%zu events differ", t.wrong);

	f = fopen(path, "r+");
	cr_assert_not_null(f);
	fseek(f, st.st_size - 3, SEEK_SET);
	c = fgetc(f);
	fseek(f, st.st_size - 3, SEEK_SET);
	fputc(c ^ 0x40, f); /* one bit of the last record */
	fclose(f);
	t = (struct tally){ 0 };
	cr_assert_eq(cache_read(path, 42, tally, &t, &meta), -ESTALE);
	cr_assert_eq(t.n, 0, "%zu events of a damaged file were delivered", t.n);

	write_cache(path, 42, N);
	cr_assert_eq(truncate(path, st.st_size - 1), 0);
	cr_assert_eq(cache_read(path, 42, tally, &t, &meta), -ESTALE);
	cr_assert_eq(t.n, 0, "%zu events of a cut file were delivered", t.n);
}

/* --- finding a trace: by its files' identity, else by their content --- */

/* Write @text to @path (replacing it, the same file). */
static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	cr_assert_not_null(f, "%s", path);
	fputs(text, f);
	cr_assert_eq(fclose(f), 0);
}

/* Set @path's modification time @age seconds back: older than CACHE_SETTLE_S. */
static void age(const char *path, time_t age)
{
	struct timespec t[2];

	clock_gettime(CLOCK_REALTIME, &t[0]);
	t[0].tv_sec -= age;
	t[1] = t[0];
	cr_assert_eq(utimensat(AT_FDCWD, path, t, 0), 0, "%s", path);
}

/* A trace folder of two files and a map beside it, modified an hour ago. */
static void settled_trace(char *trace, char *map, size_t len)
{
	char path[512];

	snprintf(trace, len, "%s/trace", dir);
	snprintf(map, len, "%s/map.yaml", dir);
	cr_assert_eq(mkdir(trace, 0755), 0);
	snprintf(path, sizeof(path), "%s/metadata", trace);
	put(path, "metadata v1");
	age(path, 3600);
	snprintf(path, sizeof(path), "%s/stream", trace);
	put(path, "stream: the events");
	age(path, 3600);
	put(map, "events: []");
	age(map, 3600);
}

/* How many files of @ext the cache folder holds. */
static int count_files(const char *ext)
{
	char cmd[256];
	int n = -1;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "ls %s | grep -c '%s$'", dir, ext);
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	cr_assert_eq(fscanf(p, "%d", &n), 1);
	pclose(p);
	return n;
}

/*
 * The first lookup of settled files hashes them; once the identity is
 * recorded, the next finds the same key and digests by identity alone.
 */
Test(cache, a_recorded_identity_finds_the_entry_without_hashing)
{
	char trace[256], map[256];
	const char *maps[1];
	struct cache_entry e1, e2;
	uint64_t key, digest;

	settled_trace(trace, map, sizeof(trace));
	maps[0] = map;
	cr_assert_eq(cache_find(dir, trace, maps, 1, &e1), 0);
	cr_assert(e1.settled);
	cr_assert_not(e1.by_identity, "nothing recorded yet: the contents are hashed");
	cr_assert_eq(cache_key(trace, maps, 1, &key), 0);
	cr_assert_eq(e1.key, key, "the key is the content key");
	cr_assert_eq(e1.ninputs, 2);
	digest = 0;
	cr_assert_eq(digest_path(trace, &digest), 0);
	cr_assert_eq(e1.digest[0], digest, "each input's digest is the one run files record");
	cr_assert_eq(count_files(".wli"), 0);
	cr_assert_eq(cache_remember(dir, &e1), 0);
	cr_assert_eq(count_files(".wli"), 1);

	cr_assert_eq(cache_find(dir, trace, maps, 1, &e2), 0);
	cr_assert(e2.by_identity, "found by the files' identity");
	cr_assert_eq(e2.key, e1.key);
	cr_assert_eq(e2.identity, e1.identity);
	cr_assert_eq(memcmp(e2.digest, e1.digest, sizeof(e1.digest)), 0);
	/* found so, it is not recorded again */
	cr_assert_eq(cache_remember(dir, &e2), 0);
	cr_assert_eq(count_files(".wli"), 1);

	/* without the map: another identity and key */
	cr_assert_eq(cache_find(dir, trace, NULL, 0, &e2), 0);
	cr_assert_not(e2.by_identity);
	cr_assert_neq(e2.key, e1.key);
}

/* A copy is another identity of the same content: the same key, hashed, then its own identity. */
Test(cache, a_copy_is_found_by_its_content_then_by_its_own_identity)
{
	char trace[256], map[256], copy[300], cmd[700], path[400];
	struct cache_entry e1, e2;

	settled_trace(trace, map, sizeof(trace));
	cr_assert_eq(cache_find(dir, trace, NULL, 0, &e1), 0);
	cr_assert_eq(cache_remember(dir, &e1), 0);
	snprintf(copy, sizeof(copy), "%s/copy", dir);
	snprintf(cmd, sizeof(cmd), "cp -r %s %s", trace, copy);
	cr_assert_eq(system(cmd), 0);
	cr_assert_eq(cache_find(dir, copy, NULL, 0, &e2), 0);
	cr_assert_not(e2.by_identity, "a new identity: hashed");
	cr_assert_neq(e2.identity, e1.identity);
	cr_assert_eq(e2.key, e1.key, "the same content: the same cache file");
	cr_assert_not(e2.settled, "the copy's files were just written");
	cr_assert_eq(cache_remember(dir, &e2), 0);
	cr_assert_eq(count_files(".wli"), 1, "an identity that has not settled is not recorded");

	snprintf(path, sizeof(path), "%s/metadata", copy);
	age(path, 3600);
	snprintf(path, sizeof(path), "%s/stream", copy);
	age(path, 3600);
	cr_assert_eq(cache_find(dir, copy, NULL, 0, &e2), 0);
	cr_assert(e2.settled);
	cr_assert_not(e2.by_identity);
	cr_assert_eq(cache_remember(dir, &e2), 0);
	cr_assert_eq(cache_find(dir, copy, NULL, 0, &e2), 0);
	cr_assert(e2.by_identity);
	cr_assert_eq(e2.key, e1.key);
	cr_assert_eq(cache_find(dir, trace, NULL, 0, &e2), 0);
	cr_assert(e2.by_identity, "the original keeps its own");
}

/*
 * A file rewritten in place to the same size, its modification time then
 * set back to what it was (as an archive extracted over it does): its
 * change time still differs, so the contents are hashed, to another key.
 */
Test(cache, a_change_at_the_same_size_and_time_is_another_key)
{
	char trace[256], map[256], path[400];
	struct cache_entry e1, e2;
	struct timespec t[2];
	struct stat st;

	settled_trace(trace, map, sizeof(trace));
	cr_assert_eq(cache_find(dir, trace, NULL, 0, &e1), 0);
	cr_assert_eq(cache_remember(dir, &e1), 0);
	snprintf(path, sizeof(path), "%s/stream", trace);
	cr_assert_eq(stat(path, &st), 0);
	put(path, "stream: THE events");
	t[0] = st.st_atim;
	t[1] = st.st_mtim;
	cr_assert_eq(utimensat(AT_FDCWD, path, t, 0), 0);
	cr_assert_eq(cache_find(dir, trace, NULL, 0, &e2), 0);
	cr_assert_not(e2.by_identity, "the identity changed with the change time");
	cr_assert_neq(e2.key, e1.key, "other content: another key");
}

/* An identity file that is damaged, or of another number of inputs, is not trusted. */
Test(cache, a_damaged_identity_file_is_not_trusted)
{
	char trace[256], map[256], path[400];
	struct cache_entry e1, e2;
	FILE *f;

	settled_trace(trace, map, sizeof(trace));
	cr_assert_eq(cache_find(dir, trace, NULL, 0, &e1), 0);
	cr_assert_eq(cache_remember(dir, &e1), 0);
	snprintf(path, sizeof(path), "%s/%016llx.wli", dir, (unsigned long long)e1.identity);
	for (long at = 0; at < 112; at += 7) {
		int c;

		cr_assert_eq(cache_remember(dir, &e1), 0);
		f = fopen(path, "r+");
		cr_assert_not_null(f, "%s", path);
		fseek(f, at, SEEK_SET);
		c = fgetc(f);
		fseek(f, at, SEEK_SET);
		fputc(c ^ 0x10, f);
		fclose(f);
		cr_assert_eq(cache_find(dir, trace, NULL, 0, &e2), 0);
		cr_assert_not(e2.by_identity, "byte %ld damaged", at);
		cr_assert_eq(e2.key, e1.key, "hashed: the right key");
		/* (cache_remember() of a hashed entry writes it again, good) */
		cr_assert_eq(unlink(path), 0);
	}
	cr_assert_eq(cache_remember(dir, &e1), 0);
	cr_assert_eq(truncate(path, 100), 0);
	cr_assert_eq(cache_find(dir, trace, NULL, 0, &e2), 0);
	cr_assert_not(e2.by_identity, "a short file");
}
