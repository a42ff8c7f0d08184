/* SPDX-License-Identifier: MIT */
/* The compiled replay cache: round trip, and never trusting a file that does not match. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
