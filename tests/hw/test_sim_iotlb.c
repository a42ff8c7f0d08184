/* SPDX-License-Identifier: MIT */
/*
 * The simulator's IOTLB (hw/sim/iotlb.c): hits and misses, eviction at any
 * size, entries stale until a flush (large ones after a split too), and
 * one entry per large page.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "sim_fixture.h"

TestSuite(sim, .init = setup, .fini = teardown);

Test(sim, iotlb_hits_and_misses)
{
	uint32_t d = attached_domain();
	uint8_t buf[4 * 4096];
	struct hw_stats st;

	cr_assert_eq(ops->map(hw, d, 0x100000, 0x200000, 16 * GPUISO_PAGE_SIZE, HW_PERM_RW), 0);
	st = stats();
	cr_assert_eq(ops->dma(hw, 0, 0x100000, buf, sizeof(buf), false), 0);
	cr_assert_eq(stats().iotlb_misses - st.iotlb_misses, 4);
	cr_assert_eq(stats().iotlb_hits - st.iotlb_hits, 0);
	cr_assert_eq(stats().pt_walks - st.pt_walks, 4, "one walk per miss");
	st = stats();
	cr_assert_eq(ops->dma(hw, 0, 0x100000, buf, sizeof(buf), false), 0);
	cr_assert_eq(stats().iotlb_misses - st.iotlb_misses, 0);
	cr_assert_eq(stats().iotlb_hits - st.iotlb_hits, 4);
	cr_assert_eq(stats().pt_walks - st.pt_walks, 0);
	cr_assert_eq(stats().dma_transfers, 2);
	cr_assert_eq(stats().dma_bytes, 2 * sizeof(buf));

	/* Passthrough translates nothing. */
	cr_assert_eq(ops->dma(hw, 1, 0x100000, buf, sizeof(buf), false), 0);
	cr_assert_eq(stats().iotlb_misses - st.iotlb_misses, 0);
}

/* With @n entries, consecutive pages take consecutive slots: page n evicts page 0 only. */
static void iotlb_of_evicts(unsigned int n)
{
	uint32_t d;
	uint8_t b;
	struct hw_stats st;

	hw = sim_open(n);
	ops = hw->ops;
	d = attached_domain();
	cr_assert_eq(ops->map(hw, d, 0, 0, 8 * GPUISO_PAGE_SIZE, HW_PERM_RW), 0);
	for (unsigned int i = 0; i <= n; i++)
		cr_assert_eq(read_byte(i * GPUISO_PAGE_SIZE, &b), 0);
	st = stats();
	cr_assert_eq(read_byte(n * GPUISO_PAGE_SIZE, &b), 0);
	cr_assert_eq(read_byte(GPUISO_PAGE_SIZE, &b), 0);
	cr_assert_eq(stats().iotlb_hits - st.iotlb_hits, 2, "%u entries", n);
	cr_assert_eq(read_byte(0, &b), 0);
	cr_assert_eq(stats().iotlb_misses - st.iotlb_misses, 1, "%u entries: page 0 was evicted by page %u",
		     n, n);
}

Test(sim_config, small_iotlb_evicts, .init = pm_setup, .fini = teardown)
{
	iotlb_of_evicts(4);
}

Test(sim_config, iotlb_of_any_size_evicts_alike, .init = pm_setup, .fini = teardown)
{
	iotlb_of_evicts(5);
}

Test(sim, stale_iotlb_entry_until_flush)
{
	uint32_t d = attached_domain();
	uint8_t b = 0, v = 0x7e;
	struct hw_stats st;

	cr_assert_eq(sparse_write(&pm.bytes, 0x300000, &v, 1), 0);
	cr_assert_eq(ops->map(hw, d, 0x100000, 0x300000, GPUISO_PAGE_SIZE, HW_PERM_RW), 0);
	cr_assert_eq(read_byte(0x100000, &b), 0);
	cr_assert_eq(stats().stale_hits, 0);

	/* Unmapped but not flushed: like hardware, the old translation still works. */
	cr_assert_eq(ops->unmap(hw, d, 0x100000, GPUISO_PAGE_SIZE), 0);
	b = 0;
	cr_assert_eq(read_byte(0x100000, &b), 0);
	cr_assert_eq(b, 0x7e);
	cr_assert_eq(stats().stale_hits, 1);
	/* Remapped elsewhere without a flush: still stale. */
	cr_assert_eq(ops->map(hw, d, 0x100000, 0x400000, GPUISO_PAGE_SIZE, HW_PERM_RW), 0);
	cr_assert_eq(read_byte(0x100000, &b), 0);
	cr_assert_eq(b, 0x7e, "the stale entry still points at the old page");
	cr_assert_eq(stats().stale_hits, 2);

	st = stats();
	ops->flush(hw, d, 0x100000, GPUISO_PAGE_SIZE);
	cr_assert_eq(stats().iotlb_invalidations - st.iotlb_invalidations, 1);
	cr_assert_eq(read_byte(0x100000, &b), 0);
	cr_assert_eq(b, 0, "the new translation");
	cr_assert_eq(ops->unmap(hw, d, 0x100000, GPUISO_PAGE_SIZE), 0);
	ops->flush(hw, d, 0x100000, GPUISO_PAGE_SIZE);
	cr_assert_eq(read_byte(0x100000, &b), -EFAULT);
	cr_assert_eq(stats().stale_hits, 2, "no stale hit after a flush");
}

Test(sim, unmap_elsewhere_does_not_make_entries_stale)
{
	uint32_t d = attached_domain();
	uint8_t b;

	cr_assert_eq(ops->map(hw, d, 0x100000, 0x300000, 2 * GPUISO_PAGE_SIZE, HW_PERM_RW), 0);
	cr_assert_eq(read_byte(0x100000, &b), 0);
	cr_assert_eq(ops->unmap(hw, d, 0x101000, GPUISO_PAGE_SIZE), 0);
	cr_assert_eq(read_byte(0x100000, &b), 0);
	cr_assert_eq(read_byte(0x100000, &b), 0);
	cr_assert_eq(stats().stale_hits, 0);
}

Test(sim, stale_large_entry_after_a_split)
{
	uint32_t d = attached_domain();
	uint8_t buf[3 * GPUISO_PAGE_SIZE];

	mark_pages(SZ_2M, SZ_2M);
	cr_assert_eq(ops->map(hw, d, SZ_2M, SZ_2M, SZ_2M, HW_PERM_RW | HW_MAP_4K), 0);
	cr_assert_eq(byte_at(SZ_2M), MARK(SZ_2M), "the 2 MiB entry is cached");
	cr_assert_eq(ops->unmap(hw, d, SZ_2M + 5 * GPUISO_PAGE_SIZE, GPUISO_PAGE_SIZE), 0);
	/* Not flushed: the large entry still translates the page that went. */
	cr_assert_eq(byte_at(SZ_2M + 5 * GPUISO_PAGE_SIZE), MARK(SZ_2M + 5 * GPUISO_PAGE_SIZE));
	cr_assert_eq(stats().stale_hits, 1);
	/* Pages still mapped alike are not stale hits, though the leaf was split. */
	cr_assert_eq(byte_at(SZ_2M + 4 * GPUISO_PAGE_SIZE), MARK(SZ_2M + 4 * GPUISO_PAGE_SIZE));
	cr_assert_eq(byte_at(SZ_2M + 7 * GPUISO_PAGE_SIZE), MARK(SZ_2M + 7 * GPUISO_PAGE_SIZE));
	cr_assert_eq(stats().stale_hits, 1);
	/* A transfer across the page: the large entry serves it, one stale hit more. */
	cr_assert_eq(ops->dma(hw, 0, SZ_2M + 4 * GPUISO_PAGE_SIZE, buf, sizeof(buf), false), 0);
	cr_assert_eq(buf[GPUISO_PAGE_SIZE], MARK(SZ_2M + 5 * GPUISO_PAGE_SIZE));
	cr_assert_eq(stats().stale_hits, 2);
	ops->flush(hw, d, SZ_2M + 5 * GPUISO_PAGE_SIZE, GPUISO_PAGE_SIZE);
	cr_assert_eq(byte_at(SZ_2M + 5 * GPUISO_PAGE_SIZE), -1);
	cr_assert_eq(stats().stale_hits, 2);
}

/*
 * A 4 KiB entry left by a missing flush inside what is now a 2 MiB leaf: a
 * transfer over the large leaf stops at that page, whose stale entry then
 * translates it (each time), as per-page hardware lookups would.
 */
Test(sim, stale_small_entry_inside_a_large_leaf)
{
	uint32_t d = attached_domain();
	uint8_t buf[2 * GPUISO_PAGE_SIZE];

	mark_pages(SZ_2M, SZ_2M);
	mark_pages(3 * SZ_1G, GPUISO_PAGE_SIZE);
	cr_assert_eq(
		ops->map(hw, d, SZ_2M + GPUISO_PAGE_SIZE, 3 * SZ_1G, GPUISO_PAGE_SIZE, HW_PERM_RW),
		0);
	cr_assert_eq(byte_at(SZ_2M + GPUISO_PAGE_SIZE), MARK(3 * SZ_1G));
	cr_assert_eq(ops->unmap(hw, d, SZ_2M + GPUISO_PAGE_SIZE, GPUISO_PAGE_SIZE), 0);
	/* no flush */
	cr_assert_eq(ops->map(hw, d, SZ_2M, SZ_2M, SZ_2M, HW_PERM_RW), 0);
	for (int round = 1; round <= 2; round++) {
		cr_assert_eq(ops->dma(hw, 0, SZ_2M, buf, sizeof(buf), false), 0);
		cr_assert_eq(buf[0], MARK(SZ_2M));
		cr_assert_eq(buf[GPUISO_PAGE_SIZE], MARK(3 * SZ_1G), "the stale entry translated page 1");
		cr_assert_eq(stats().stale_hits, (uint64_t)round);
	}
	ops->flush(hw, d, SZ_2M + GPUISO_PAGE_SIZE, GPUISO_PAGE_SIZE);
	cr_assert_eq(ops->dma(hw, 0, SZ_2M, buf, sizeof(buf), false), 0);
	cr_assert_eq(buf[GPUISO_PAGE_SIZE], MARK(SZ_2M + GPUISO_PAGE_SIZE));
	cr_assert_eq(stats().stale_hits, 2);
}

Test(sim, one_iotlb_entry_per_large_page)
{
	uint32_t d = attached_domain();
	uint64_t len = 2 * SZ_2M;
	uint8_t *buf = malloc(len);
	struct hw_stats st;

	cr_assert_not_null(buf);
	cr_assert_eq(ops->map(hw, d, SZ_1G, SZ_1G, len, HW_PERM_RW | HW_MAP_4K), 0);
	st = stats();
	cr_assert_eq(ops->dma(hw, 0, SZ_1G, buf, len, false), 0);
	cr_assert_eq(stats().iotlb_misses - st.iotlb_misses, 2, "a miss per 2 MiB leaf");
	st = stats();
	cr_assert_eq(ops->dma(hw, 0, SZ_1G + 7, buf, len - 7, false), 0);
	cr_assert_eq(stats().iotlb_hits - st.iotlb_hits, 2, "then a hit per leaf");
	cr_assert_eq(stats().iotlb_misses - st.iotlb_misses, 0);
	free(buf);
}
