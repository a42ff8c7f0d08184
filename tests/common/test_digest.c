/* SPDX-License-Identifier: MIT */
#include <criterion/criterion.h>
#include <string.h>

#include "common/digest.h"

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
