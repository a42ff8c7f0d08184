/* SPDX-License-Identifier: MIT */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "common/digest.h"
#include "common/digest_path.h"

static uint64_t digest_of(const uint8_t *p, size_t n, size_t piece)
{
	struct digest d;

	digest_init(&d);
	for (size_t off = 0; off < n; off += piece)
		digest_update(&d, p + off, off + piece <= n ? piece : n - off);
	return digest_final(&d);
}

Test(digest, the_same_bytes_however_split)
{
	static uint8_t buf[10000];
	uint64_t whole;

	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)(i * 31 + 7);
	whole = digest_of(buf, sizeof(buf), sizeof(buf));
	for (size_t piece = 1; piece < 100; piece += 7)
		cr_assert_eq(digest_of(buf, sizeof(buf), piece), whole, "pieces of %zu", piece);
}

Test(digest, null_feeds_zeros)
{
	static uint8_t zeros[9000];
	struct digest d;

	digest_init(&d);
	digest_update(&d, NULL, sizeof(zeros));
	cr_assert_eq(digest_final(&d), digest_of(zeros, sizeof(zeros), sizeof(zeros)));
}

Test(digest, differs_on_any_change_and_length)
{
	static uint8_t buf[4096];
	uint64_t base = digest_of(buf, sizeof(buf), sizeof(buf));

	for (size_t i = 0; i < sizeof(buf); i += 97) {
		buf[i] ^= 1;
		cr_assert_neq(digest_of(buf, sizeof(buf), sizeof(buf)), base, "byte %zu", i);
		buf[i] ^= 1;
	}
	cr_assert_neq(digest_of(buf, sizeof(buf) - 1, sizeof(buf)), base, "shorter");
	cr_assert_neq(digest_combine(1, 2), digest_combine(2, 1), "combine is ordered");
}

Test(digest, fnv1a_is_the_published_fnv1a)
{
	/* the FNV-1a 64-bit test vectors: "" and "a" and "foobar" */
	cr_assert_eq(digest_fnv1a(DIGEST_FNV_BASIS, "", 0), 0xcbf29ce484222325ull);
	cr_assert_eq(digest_fnv1a(DIGEST_FNV_BASIS, "a", 1), 0xaf63dc4c8601ec8cull);
	cr_assert_eq(digest_fnv1a(DIGEST_FNV_BASIS, "foobar", 6), 0x85944171f73967e8ull);
	cr_assert_eq(digest_fnv1a(digest_fnv1a(DIGEST_FNV_BASIS, "foo", 3), "bar", 3),
		     0x85944171f73967e8ull, "fed in pieces");
}

Test(digest, fnv1a_str_folds_the_nul)
{
	uint64_t ab_c = digest_fnv1a_str(digest_fnv1a_str(DIGEST_FNV_BASIS, "ab"), "c");
	uint64_t a_bc = digest_fnv1a_str(digest_fnv1a_str(DIGEST_FNV_BASIS, "a"), "bc");

	cr_assert_eq(digest_fnv1a_str(DIGEST_FNV_BASIS, "a"),
		     digest_fnv1a(DIGEST_FNV_BASIS, "a", 2));
	cr_assert_neq(ab_c, a_bc);
}

Test(digest, fnv1a_word_is_one_fnv1a_step)
{
	cr_assert_eq(digest_fnv1a_word(DIGEST_FNV_BASIS, 'a'),
		     digest_fnv1a(DIGEST_FNV_BASIS, "a", 1));
	cr_assert_eq(digest_fnv1a_word(0, 1ull << 40), (1ull << 40) * DIGEST_FNV_PRIME);
}

/* --- the identity of a path's files (common/digest_path.h) --- */

static void put(const char *dir, const char *name, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	cr_assert_not_null(f, "%s", path);
	fputs(text, f);
	cr_assert_eq(fclose(f), 0);
}

static uint64_t identity_of(const char *path, struct timespec *newest)
{
	struct path_identity id = { 0 };

	cr_assert_eq(digest_path_identity(path, &id), 0, "%s", path);
	if (newest)
		*newest = id.newest;
	return id.digest;
}

/*
 * A folder's identity is that of its files' names, places and times: the
 * same while nothing changes (reading them included), another when a file
 * is added, renamed, grows, or is rewritten, even with its content and
 * modification time put back; newest is the latest modification time.
 */
Test(digest, identity_follows_the_files_not_their_reading)
{
	char dir[] = "/tmp/gpuiso-identity-XXXXXX", path[512], from[512], cmd[600];
	struct timespec t[2], newest;
	uint64_t id, h = 0, h2 = 0;
	char buf[64];
	FILE *f;

	cr_assert_not_null(mkdtemp(dir));
	put(dir, "a", "one");
	put(dir, "b", "two");
	id = identity_of(dir, NULL);
	snprintf(path, sizeof(path), "%s/a", dir);
	f = fopen(path, "r");
	cr_assert_not_null(f);
	cr_assert_gt(fread(buf, 1, sizeof(buf), f), 0);
	fclose(f);
	cr_assert_eq(identity_of(dir, NULL), id, "reading changes nothing");
	cr_assert_eq(digest_path_identity(path, &(struct path_identity){ 0 }), 0, "a file too");

	/* a newest time an hour back, then the file put back as it was but for its change time */
	clock_gettime(CLOCK_REALTIME, &t[0]);
	t[0].tv_sec -= 3600;
	t[1] = t[0];
	cr_assert_eq(utimensat(AT_FDCWD, path, t, 0), 0);
	snprintf(from, sizeof(from), "%s/b", dir);
	cr_assert_eq(utimensat(AT_FDCWD, from, t, 0), 0);
	id = identity_of(dir, &newest);
	cr_assert_eq(newest.tv_sec, t[1].tv_sec);
	cr_assert_eq(newest.tv_nsec, t[1].tv_nsec);
	cr_assert_eq(digest_path(dir, &h), 0);
	put(dir, "a", "one");
	cr_assert_eq(utimensat(AT_FDCWD, path, t, 0), 0);
	cr_assert_neq(identity_of(dir, NULL), id, "rewritten, its times put back: changed");
	id = identity_of(dir, NULL);
	cr_assert_eq(digest_path(dir, &h2), 0);
	cr_assert_eq(h2, h, "the content is the same");
	put(dir, "a", "one more");
	cr_assert_neq(identity_of(dir, NULL), id, "grown");
	id = identity_of(dir, NULL);
	snprintf(from, sizeof(from), "%s/c", dir);
	cr_assert_eq(rename(path, from), 0);
	cr_assert_neq(identity_of(dir, NULL), id, "renamed");
	id = identity_of(dir, NULL);
	put(dir, "d", "");
	cr_assert_neq(identity_of(dir, NULL), id, "a file added");
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	cr_assert_eq(system(cmd), 0);
}
