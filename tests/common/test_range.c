/* SPDX-License-Identifier: MIT */
#include <criterion/criterion.h>
#include <errno.h>

#include "common/range.h"

static struct range_alloc ra;

static void setup(void)
{
	range_init(&ra);
}

static void teardown(void)
{
	range_fini(&ra);
}

/* The extents must stay sorted, disjoint, non-adjacent and add up to free_bytes. */
static void check_invariants(void)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < ra.n; i++) {
		cr_assert_gt(ra.ext[i].size, 0);
		if (i)
			cr_assert_gt(ra.ext[i].base, ra.ext[i - 1].base + ra.ext[i - 1].size,
				     "extents %zu and %zu touch or overlap", i - 1, i);
		sum += ra.ext[i].size;
	}
	cr_assert_eq(sum, ra.free_bytes);
	cr_assert_eq(range_digest(&ra), range_digest_full(&ra), "the kept digest is the extents'");
}

TestSuite(range, .init = setup, .fini = teardown);

Test(range, empty_allocator_has_nothing)
{
	uint64_t base;

	cr_assert_eq(ra.free_bytes, 0);
	cr_assert_eq(range_largest(&ra), 0);
	cr_assert_eq(range_take(&ra, 4096, 4096, UINT64_MAX, &base), -ENOSPC);
}

Test(range, add_coalesces_neighbours)
{
	cr_assert_eq(range_add(&ra, 0x1000, 0x1000), 0);
	cr_assert_eq(range_add(&ra, 0x3000, 0x1000), 0);
	cr_assert_eq(ra.n, 2);
	/* The gap between them joins both into one extent. */
	cr_assert_eq(range_add(&ra, 0x2000, 0x1000), 0);
	cr_assert_eq(ra.n, 1);
	cr_assert_eq(ra.ext[0].base, 0x1000);
	cr_assert_eq(ra.ext[0].size, 0x3000);
	/* Adjacent below and above. */
	cr_assert_eq(range_add(&ra, 0x0, 0x1000), 0);
	cr_assert_eq(range_add(&ra, 0x4000, 0x1000), 0);
	cr_assert_eq(ra.n, 1);
	cr_assert_eq(ra.ext[0].size, 0x5000);
	cr_assert_eq(range_add(&ra, 0x9000, 0), 0);
	cr_assert_eq(ra.n, 1);
	check_invariants();
}

Test(range, double_free_is_refused)
{
	cr_assert_eq(range_add(&ra, 0x10000, 0x4000), 0);
	cr_assert_eq(range_add(&ra, 0x10000, 0x1000), -EINVAL);
	cr_assert_eq(range_add(&ra, 0x13000, 0x2000), -EINVAL, "overlaps the tail");
	cr_assert_eq(range_add(&ra, 0xf000, 0x2000), -EINVAL, "overlaps the head");
	cr_assert_eq(range_add(&ra, 0x0, 0x100000), -EINVAL, "covers it");
	cr_assert_eq(range_add(&ra, UINT64_MAX - 0xfff, 0x2000), -EINVAL, "wraps");
	cr_assert_eq(ra.free_bytes, 0x4000);
	check_invariants();
}

Test(range, take_is_first_fit_and_aligned)
{
	uint64_t base;

	cr_assert_eq(range_add(&ra, 0x1000, 0x3000), 0);    /* [0x1000, 0x4000) */
	cr_assert_eq(range_add(&ra, 0x100000, 0x200000), 0); /* [1 MiB, 3 MiB) */
	/* First fit: the small extent serves a small request. */
	cr_assert_eq(range_take(&ra, 0x1000, 0x1000, UINT64_MAX, &base), 0);
	cr_assert_eq(base, 0x1000);
	/* Alignment skips what does not fit aligned. */
	cr_assert_eq(range_take(&ra, 0x1000, 0x4000, UINT64_MAX, &base), 0);
	cr_assert_eq(base, 0x100000);
	/* Too big for anything. */
	cr_assert_eq(range_take(&ra, 0x300000, 0x1000, UINT64_MAX, &base), -ENOSPC);
	/* A request that leaves a hole in the middle splits an extent. */
	cr_assert_eq(range_take(&ra, 0x100000, 0x100000, UINT64_MAX, &base), 0);
	cr_assert_eq(base, 0x200000);
	cr_assert_eq(ra.free_bytes, 0x2000 + 0xff000);
	check_invariants();
}

Test(range, take_respects_max_end)
{
	uint64_t base;

	cr_assert_eq(range_add(&ra, 0x0, 0x2000), 0);
	cr_assert_eq(range_add(&ra, 0x100000, 0x100000), 0);
	cr_assert_eq(range_take(&ra, 0x4000, 0x1000, 0x100000, &base), -ENOSPC);
	cr_assert_eq(range_take(&ra, 0x4000, 0x1000, 0x104000, &base), 0);
	cr_assert_eq(base, 0x100000);
	cr_assert_eq(range_take(&ra, 0x2000, 0x1000, 0x2000, &base), 0);
	cr_assert_eq(base, 0);
	check_invariants();
}

Test(range, take_rejects_bad_arguments)
{
	uint64_t base;

	cr_assert_eq(range_add(&ra, 0, 0x10000), 0);
	cr_assert_eq(range_take(&ra, 0, 0x1000, UINT64_MAX, &base), -EINVAL);
	cr_assert_eq(range_take(&ra, 0x1000, 0x3000, UINT64_MAX, &base), -EINVAL);
	cr_assert_eq(ra.free_bytes, 0x10000);
}

Test(range, remove_specific_ranges)
{
	cr_assert_eq(range_add(&ra, 0x0, 0x10000), 0);
	cr_assert_eq(range_remove(&ra, 0x4000, 0x1000), 0);
	cr_assert_eq(ra.n, 2);
	cr_assert_eq(range_remove(&ra, 0x4000, 0x1000), -ENOENT, "already used");
	cr_assert_eq(range_remove(&ra, 0x3000, 0x2000), -ENOENT, "partly used");
	cr_assert_eq(range_remove(&ra, 0xf000, 0x2000), -ENOENT, "past the end");
	cr_assert_eq(range_remove(&ra, 0x0, 0x4000), 0);
	cr_assert_eq(range_remove(&ra, 0xc000, 0x4000), 0);
	cr_assert_eq(ra.n, 1);
	cr_assert_eq(ra.ext[0].base, 0x5000);
	cr_assert_eq(ra.ext[0].size, 0x7000);
	cr_assert_eq(range_largest(&ra), 0x7000);
	/* Freeing back restores one extent. */
	cr_assert_eq(range_add(&ra, 0x0, 0x5000), 0);
	cr_assert_eq(range_add(&ra, 0xc000, 0x4000), 0);
	cr_assert_eq(ra.n, 1);
	cr_assert_eq(ra.free_bytes, 0x10000);
	check_invariants();
}

Test(range, many_holes_then_refill)
{
	uint64_t base;

	cr_assert_eq(range_add(&ra, 0, 1024 * 0x1000), 0);
	for (int i = 0; i < 1024; i += 2)
		cr_assert_eq(range_remove(&ra, (uint64_t)i * 0x1000, 0x1000), 0);
	cr_assert_eq(ra.n, 512);
	cr_assert_eq(range_largest(&ra), 0x1000);
	cr_assert_eq(range_take(&ra, 0x2000, 0x1000, UINT64_MAX, &base), -ENOSPC);
	check_invariants();
	for (int i = 0; i < 1024; i += 2)
		cr_assert_eq(range_add(&ra, (uint64_t)i * 0x1000, 0x1000), 0);
	cr_assert_eq(ra.n, 1);
	cr_assert_eq(range_largest(&ra), 1024 * 0x1000);
}

Test(range, first_overlap_and_contains)
{
	cr_assert_eq(range_add(&ra, 0x1000, 0x1000), 0);
	cr_assert_eq(range_add(&ra, 0x4000, 0x2000), 0);
	check_invariants();
	cr_assert_null(range_first_overlap(&ra, 0, 0x1000), "touching is not overlapping");
	cr_assert_null(range_first_overlap(&ra, 0x2000, 0x2000));
	cr_assert_eq(range_first_overlap(&ra, 0x1800, 0x100)->base, 0x1000, "inside one");
	cr_assert_eq(range_first_overlap(&ra, 0x0, 0x10000)->base, 0x1000, "the first of two");
	cr_assert_eq(range_first_overlap(&ra, 0x1fff, 0x4000)->base, 0x1000, "its last byte");
	cr_assert_eq(range_first_overlap(&ra, 0x2000, 0x2001)->base, 0x4000, "the next one's first");
	cr_assert_null(range_first_overlap(&ra, 0x1000, 0), "nothing overlaps nothing");
	cr_assert(range_contains(&ra, 0x4000, 0x2000));
	cr_assert(range_contains(&ra, 0x4800, 0x800));
	cr_assert_not(range_contains(&ra, 0x1000, 0x2000), "across a gap");
	cr_assert_not(range_contains(&ra, 0x3000, 0x1000));
}

/* The digest is the free space's, however it came to be: kept as extents change. */
Test(range, equal_free_space_digests_alike)
{
	struct range_alloc other;
	uint64_t base;

	range_init(&other);
	cr_assert_eq(range_digest(&ra), range_digest(&other), "nothing free");
	/* one extent given whole, the other built from pieces and a take given back */
	cr_assert_eq(range_add(&ra, 0x10000, 0x10000), 0);
	cr_assert_eq(range_add(&other, 0x18000, 0x8000), 0);
	cr_assert_eq(range_add(&other, 0x10000, 0x4000), 0);
	cr_assert_eq(range_add(&other, 0x14000, 0x4000), 0);
	cr_assert_eq(range_digest(&ra), range_digest(&other));
	cr_assert_eq(range_take(&other, 0x1000, 0x1000, UINT64_MAX, &base), 0);
	cr_assert_neq(range_digest(&ra), range_digest(&other));
	cr_assert_eq(range_remove(&ra, 0x14000, 0x1000), 0, "a hole in the middle");
	cr_assert_neq(range_digest(&ra), range_digest(&other));
	cr_assert_eq(range_add(&other, base, 0x1000), 0);
	cr_assert_eq(range_add(&ra, 0x14000, 0x1000), 0);
	cr_assert_eq(range_digest(&ra), range_digest(&other));
	cr_assert_eq(range_digest(&other), range_digest_full(&other));
	check_invariants();
	range_fini(&other);
}
