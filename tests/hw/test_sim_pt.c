/* SPDX-License-Identifier: MIT */
/*
 * The simulator's page tables (hw/sim/pt.c): a page of each size is one PTE
 * write, large pages translate offsets, ranges split into page sizes,
 * misaligned addresses fall back to small pages, and large pages split to
 * unmap a part of them.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "sim_fixture.h"

TestSuite(sim, .init = setup, .fini = teardown);

Test(sim, each_page_size_is_one_pte_write)
{
	uint32_t d = attached_domain();
	struct hw_stats st0 = stats(), st;

	cr_assert_eq(ops->map(hw, d, SZ_1G, SZ_1G, SZ_1G, HW_PERM_RW), 0);
	st = stats();
	cr_assert_eq(st.pte_writes - st0.pte_writes, 1, "1 GiB leaf");
	cr_assert_eq(st.pt_walk_levels - st0.pt_walk_levels, 2, "root and level 3");

	cr_assert_eq(ops->map(hw, d, 4 * SZ_1G, 2 * SZ_2M, SZ_2M, HW_PERM_RW), 0);
	cr_assert_eq(stats().pte_writes - st.pte_writes, 1, "2 MiB leaf");
	st = stats();
	cr_assert_eq(ops->map(hw, d, 8 * SZ_1G, GPUISO_PAGE_SIZE, GPUISO_PAGE_SIZE, HW_PERM_RW), 0);
	cr_assert_eq(stats().pte_writes - st.pte_writes, 1, "4 KiB leaf");

	st = stats();
	cr_assert_eq(ops->unmap(hw, d, SZ_1G, SZ_1G), 0);
	cr_assert_eq(stats().pte_writes - st.pte_writes, 1, "unmap clears one entry");
}

Test(sim, large_page_translates_offsets)
{
	uint32_t d = attached_domain();
	uint8_t v = 0x4d, b = 0;
	uint64_t off = 123 * MiB + 4097;

	cr_assert_eq(ops->map(hw, d, 2 * SZ_1G, SZ_1G, SZ_1G, HW_PERM_RW), 0);
	cr_assert_eq(ops->dma(hw, 0, 2 * SZ_1G + off, &v, 1, true), 0);
	cr_assert_eq(sparse_read(&pm.bytes, SZ_1G + off, &b, 1), 0);
	cr_assert_eq(b, 0x4d);
}

Test(sim, unaligned_range_splits_into_page_sizes)
{
	uint32_t d = attached_domain();
	struct hw_stats st0 = stats();
	iova_t iova = 3 * SZ_1G - GPUISO_PAGE_SIZE;
	uint64_t size = GPUISO_PAGE_SIZE + SZ_1G + SZ_2M + GPUISO_PAGE_SIZE;

	/* 4K, then a 1G leaf, then a 2M leaf, then 4K. */
	cr_assert_eq(ops->map(hw, d, iova, SZ_1G - GPUISO_PAGE_SIZE, size, HW_PERM_RW), 0);
	cr_assert_eq(stats().pte_writes - st0.pte_writes, 4);
	/* Cutting a large page is refused, and so is any part of it. */
	cr_assert_eq(ops->unmap(hw, d, 3 * SZ_1G, SZ_2M), -EINVAL);
	cr_assert_eq(ops->unmap(hw, d, 3 * SZ_1G + GPUISO_PAGE_SIZE, GPUISO_PAGE_SIZE), -EINVAL);
	cr_assert_eq(ops->unmap(hw, d, iova, GPUISO_PAGE_SIZE + SZ_2M), -EINVAL);
	cr_assert_eq(ops->unmap(hw, d, iova, size + GPUISO_PAGE_SIZE), -ENOENT);
	st0 = stats();
	cr_assert_eq(ops->unmap(hw, d, iova, size), 0);
	cr_assert_eq(stats().pte_writes - st0.pte_writes, 4);
}

Test(sim, misaligned_pa_falls_back_to_small_pages)
{
	uint32_t d = attached_domain();
	struct hw_stats st0 = stats();

	/* iova is 2 MiB aligned, pa only 4 KiB: no large page can map it. */
	cr_assert_eq(ops->map(hw, d, SZ_2M, GPUISO_PAGE_SIZE, SZ_2M, HW_PERM_RW), 0);
	cr_assert_eq(stats().pte_writes - st0.pte_writes, 512);
}

Test(sim, large_page_over_emptied_tables)
{
	uint32_t d = attached_domain();
	struct hw_stats st0;
	uint8_t b = 1;

	cr_assert_eq(ops->map(hw, d, SZ_1G + 5 * SZ_2M, 0, GPUISO_PAGE_SIZE, HW_PERM_RW), 0);
	cr_assert_eq(ops->map(hw, d, SZ_1G, SZ_1G, SZ_1G, HW_PERM_RW), -EEXIST);
	cr_assert_eq(ops->unmap(hw, d, SZ_1G + 5 * SZ_2M, GPUISO_PAGE_SIZE), 0);
	ops->flush(hw, d, 0, UINT64_MAX);
	st0 = stats();
	cr_assert_eq(ops->map(hw, d, SZ_1G, SZ_1G, SZ_1G, HW_PERM_RW), 0);
	cr_assert_eq(stats().pte_writes - st0.pte_writes, 1, "the emptied tables gave way");
	cr_assert_eq(read_byte(SZ_1G + 5 * SZ_2M, &b), 0);
	/* And small pages again after that. */
	cr_assert_eq(ops->unmap(hw, d, SZ_1G, SZ_1G), 0);
	ops->flush(hw, d, SZ_1G, SZ_1G);
	cr_assert_eq(ops->map(hw, d, SZ_1G + 5 * SZ_2M, 0, GPUISO_PAGE_SIZE, HW_PERM_RW), 0);
	cr_assert_eq(read_byte(SZ_1G + 5 * SZ_2M, &b), 0);
	cr_assert_eq(read_byte(SZ_1G + 6 * SZ_2M, &b), -EFAULT);
}

Test(sim, a_page_mapped_inside_a_range_refuses_the_whole_map)
{
	uint32_t d = attached_domain();
	/* ranges of 4 KiB leaves: within one level-1 table, and across two */
	const struct {
		iova_t iova, mapped;
	} cases[] = {
		{ SZ_2M, SZ_2M + 5 * GPUISO_PAGE_SIZE },
		{ 2 * SZ_2M - 8 * GPUISO_PAGE_SIZE, 2 * SZ_2M + 3 * GPUISO_PAGE_SIZE },
	};
	uint8_t b;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct hw_stats st0;

		cr_assert_eq(ops->map(hw, d, cases[i].mapped, 0, GPUISO_PAGE_SIZE, HW_PERM_READ), 0);
		st0 = stats();
		cr_assert_eq(ops->map(hw, d, cases[i].iova, SZ_1G, 16 * GPUISO_PAGE_SIZE, HW_PERM_RW),
			     -EEXIST, "case %zu", i);
		cr_assert_eq(stats().pte_writes, st0.pte_writes, "case %zu: nothing written", i);
		cr_assert_eq(read_byte(cases[i].iova, &b), -EFAULT, "case %zu", i);
		/* the hole at the first page: unmap refuses the range too */
		cr_assert_eq(ops->unmap(hw, d, cases[i].iova, 16 * GPUISO_PAGE_SIZE), -ENOENT);
		cr_assert_eq(ops->unmap(hw, d, cases[i].mapped, GPUISO_PAGE_SIZE), 0, "case %zu", i);
		ops->flush(hw, d, cases[i].mapped, GPUISO_PAGE_SIZE);
	}
}

Test(sim, map_4k_flag_splits_a_large_page_to_unmap_one)
{
	uint32_t d = attached_domain();
	struct hw_stats st0 = stats();

	mark_pages(SZ_2M, SZ_2M);
	/* aligned for a 2 MiB leaf: one entry, though its pages may go one by one */
	cr_assert_eq(ops->map(hw, d, SZ_2M, SZ_2M, SZ_2M, HW_PERM_RW | HW_MAP_4K), 0);
	cr_assert_eq(stats().pte_writes - st0.pte_writes, 1);
	cr_assert_eq(byte_at(SZ_2M + 5 * GPUISO_PAGE_SIZE), MARK(SZ_2M + 5 * GPUISO_PAGE_SIZE));

	st0 = stats();
	cr_assert_eq(ops->unmap(hw, d, SZ_2M + 5 * GPUISO_PAGE_SIZE, GPUISO_PAGE_SIZE), 0, "one page can go");
	cr_assert_eq(stats().pte_writes - st0.pte_writes, 512 + 1, "a table of 512 leaves, one cleared");
	ops->flush(hw, d, SZ_2M + 5 * GPUISO_PAGE_SIZE, GPUISO_PAGE_SIZE);
	cr_assert_eq(stats().iotlb_invalidations - st0.iotlb_invalidations, 1,
		     "the 2 MiB entry over the page is dropped");
	cr_assert_eq(byte_at(SZ_2M + 5 * GPUISO_PAGE_SIZE), -1);
	cr_assert_eq(byte_at(SZ_2M + 4 * GPUISO_PAGE_SIZE), MARK(SZ_2M + 4 * GPUISO_PAGE_SIZE));
	cr_assert_eq(byte_at(SZ_2M + 6 * GPUISO_PAGE_SIZE), MARK(SZ_2M + 6 * GPUISO_PAGE_SIZE));
	cr_assert_eq(byte_at(2 * SZ_2M - GPUISO_PAGE_SIZE), MARK(2 * SZ_2M - GPUISO_PAGE_SIZE));
	cr_assert_eq(stats().stale_hits, 0);

	/* The rest of the split leaf goes in one call; pages 0-4 then. */
	cr_assert_eq(ops->unmap(hw, d, SZ_2M + 6 * GPUISO_PAGE_SIZE, SZ_2M - 6 * GPUISO_PAGE_SIZE), 0);
	cr_assert_eq(ops->unmap(hw, d, SZ_2M, 5 * GPUISO_PAGE_SIZE), 0);
	cr_assert_eq(ops->unmap(hw, d, SZ_2M, GPUISO_PAGE_SIZE), -ENOENT);
	cr_assert_eq(ops->map(hw, d, 0, 0, GPUISO_PAGE_SIZE, HW_MAP_4K), -EINVAL, "no permission");
}

Test(sim, split_reaches_down_to_both_ends)
{
	uint32_t d = attached_domain();
	iova_t cut = SZ_1G + SZ_2M + 3 * GPUISO_PAGE_SIZE;
	struct hw_stats st0;

	mark_pages(SZ_1G + SZ_2M, 8 * GPUISO_PAGE_SIZE);
	cr_assert_eq(ops->map(hw, d, SZ_1G, SZ_1G, SZ_1G, HW_PERM_RW | HW_MAP_4K), 0);
	st0 = stats();
	cr_assert_eq(ops->unmap(hw, d, cut, 2 * GPUISO_PAGE_SIZE), 0);
	/* 1 GiB -> 512 x 2 MiB, the 2 MiB leaf over the cut -> 512 x 4 KiB, two cleared */
	cr_assert_eq(stats().pte_writes - st0.pte_writes, 512 + 512 + 2);
	ops->flush(hw, d, cut, 2 * GPUISO_PAGE_SIZE);
	cr_assert_eq(byte_at(cut - GPUISO_PAGE_SIZE), MARK(SZ_1G + SZ_2M + 2 * GPUISO_PAGE_SIZE));
	cr_assert_eq(byte_at(cut), -1);
	cr_assert_eq(byte_at(cut + GPUISO_PAGE_SIZE), -1);
	cr_assert_eq(byte_at(cut + 2 * GPUISO_PAGE_SIZE), MARK(SZ_1G + SZ_2M + 5 * GPUISO_PAGE_SIZE));
	cr_assert_eq(byte_at(SZ_1G + SZ_1G - 1), 0, "the last page of the old 1 GiB leaf");
	/* A mapping without HW_MAP_4K is still never cut. */
	cr_assert_eq(ops->map(hw, d, 4 * SZ_1G, 0, SZ_2M, HW_PERM_RW), 0);
	cr_assert_eq(ops->unmap(hw, d, 4 * SZ_1G, GPUISO_PAGE_SIZE), -EINVAL);
}
