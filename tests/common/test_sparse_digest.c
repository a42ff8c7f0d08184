/* SPDX-License-Identifier: MIT */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "common/sparse.h"

/* Digests of a store (common/sparse_digest.c): of a range, and of the whole store, kept. */

static struct sparse_mem sm;

static void setup(void)
{
	cr_assert_eq(sparse_init(&sm, (uint64_t)1 << 40), 0);
}

static void teardown(void)
{
	sparse_fini(&sm);
}

TestSuite(sparse_digest, .init = setup, .fini = teardown);

Test(sparse_digest, digest_follows_content_not_representation)
{
	static uint8_t zeros[SPARSE_CHUNK + 8192];
	uint64_t never, written, discarded, changed, again;
	uint64_t base = 4 * SPARSE_CHUNK - 4096, len = sizeof(zeros);
	uint8_t b = 1;

	cr_assert_eq(sparse_digest(&sm, base, len, &never), 0);
	cr_assert_eq(sparse_write(&sm, base, zeros, len), 0);
	cr_assert_eq(sparse_digest(&sm, base, len, &written), 0);
	cr_assert_eq(written, never, "written zeros read like never-written space");
	cr_assert_eq(sparse_write(&sm, base + 5000, &b, 1), 0);
	cr_assert_eq(sparse_digest(&sm, base, len, &changed), 0);
	cr_assert_neq(changed, written, "one byte changes it");
	cr_assert_eq(sparse_discard(&sm, base + 4096, 4096), 0);
	cr_assert_eq(sparse_digest(&sm, base, len, &discarded), 0);
	cr_assert_eq(discarded, never);
	/* a cached whole-chunk digest is dropped on write */
	cr_assert_eq(sparse_write(&sm, base + 4096 + 123, &b, 1), 0);
	cr_assert_eq(sparse_digest(&sm, base, len, &again), 0);
	cr_assert_neq(again, never);
	cr_assert_eq(sparse_digest(&sm, sm.size - 4, 8, &again), -ERANGE);
}

Test(sparse_digest, state_digest_follows_the_whole_content_not_its_representation)
{
	static uint8_t bytes[SPARSE_CHUNK];
	struct sparse_mem other;
	uint64_t empty = sparse_state_digest(&sm), d;

	for (size_t i = 0; i < sizeof(bytes); i++)
		bytes[i] = (uint8_t)(i * 13 + 1);
	cr_assert_eq(sparse_init(&other, sm.size), 0);
	cr_assert_eq(sparse_state_digest(&other), empty);
	/* the same bytes, written here and shared there, far apart in the space */
	cr_assert_eq(sparse_write(&sm, 700 * SZ_1G, bytes, sizeof(bytes)), 0);
	cr_assert_eq(sparse_copy(&other, 700 * SZ_1G, &sm, 700 * SZ_1G, SPARSE_CHUNK, false), 0);
	d = sparse_state_digest(&sm);
	cr_assert_neq(d, empty);
	cr_assert_eq(sparse_state_digest(&other), d);
	/* the same bytes one chunk further: not the same content */
	cr_assert_eq(sparse_write(&other, 700 * SZ_1G + SPARSE_CHUNK, bytes, 1), 0);
	cr_assert_eq(sparse_discard(&other, 700 * SZ_1G, SPARSE_CHUNK), 0);
	cr_assert_neq(sparse_state_digest(&other), d);
	/* written zeros read as nothing written; a chunk given back too */
	cr_assert_eq(sparse_discard(&sm, 700 * SZ_1G, SPARSE_CHUNK), 0);
	memset(bytes, 0, 4096);
	cr_assert_eq(sparse_write(&sm, 5 * SZ_1G, bytes, 4096), 0);
	cr_assert_eq(sparse_state_digest(&sm), empty);
	cr_assert_eq(sparse_state_digest(&sm), sparse_state_digest_full(&sm));
	cr_assert_eq(sparse_state_digest(&other), sparse_state_digest_full(&other));
	sparse_fini(&other);
}

/* The kept digest follows writes, shares, discards and a device writing pinned memory. */
Test(sparse_digest, the_kept_state_digest_is_the_computed_one)
{
	static uint8_t bytes[3 * 4096];
	struct sparse_mem other;
	uint64_t avail, before;
	uint8_t *p;

	for (size_t i = 0; i < sizeof(bytes); i++)
		bytes[i] = (uint8_t)(i * 7 + 3);
	cr_assert_eq(sparse_init(&other, sm.size), 0);
	cr_assert_eq(sparse_write(&sm, SPARSE_CHUNK + 4096, bytes, sizeof(bytes)), 0);
	(void)sparse_state_digest(&sm); /* kept from here on */
	(void)sparse_state_digest(&other);
	cr_assert_eq(sparse_write(&sm, 5 * SPARSE_CHUNK - 100, bytes, sizeof(bytes)), 0, "two chunks");
	cr_assert_eq(sparse_copy(&other, 0, &sm, SPARSE_CHUNK, SPARSE_CHUNK, false), 0, "shared");
	cr_assert_eq(sparse_copy(&sm, 9 * SPARSE_CHUNK, &sm, SPARSE_CHUNK, 8192, false), 0, "borrowed");
	cr_assert_eq(sparse_state_digest(&sm), sparse_state_digest_full(&sm));
	cr_assert_eq(sparse_state_digest(&other), sparse_state_digest_full(&other));
	cr_assert_eq(sparse_write(&other, 100, bytes, 1), 0, "the share copied");
	cr_assert_eq(sparse_discard(&sm, SPARSE_CHUNK, SPARSE_CHUNK), 0);
	cr_assert_eq(sparse_state_digest(&sm), sparse_state_digest_full(&sm));
	cr_assert_eq(sparse_state_digest(&other), sparse_state_digest_full(&other));
	/* a device writes a pinned chunk behind the store's back: the digest sees it */
	p = sparse_pin(&sm, 3 * SPARSE_CHUNK, SPARSE_CHUNK, &avail);
	cr_assert_not_null(p);
	before = sparse_state_digest(&sm);
	p[12345] = 0x5a;
	cr_assert_neq(sparse_state_digest(&sm), before);
	cr_assert_eq(sparse_state_digest(&sm), sparse_state_digest_full(&sm));
	sparse_unpin(&sm, 3 * SPARSE_CHUNK);
	cr_assert_eq(sparse_state_digest(&sm), sparse_state_digest_full(&sm));
	sparse_fini(&other);
}
