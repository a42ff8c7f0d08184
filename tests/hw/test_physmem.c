/* SPDX-License-Identifier: MIT */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hw/physmem.h"

#define MiB ((uint64_t)1 << 20)

/* 64 MiB below 4 GiB with a hole, and 64 MiB above. */
static const struct range_extent ram[] = {
	{ 0x100000000, 64 * MiB },
	{ 0x0, 32 * MiB },
	{ 0x4000000, 32 * MiB },
};

static struct physmem pm;

static void setup(void)
{
	struct physmem_config cfg = {
		.ram = ram, .nram = ARRAY_SIZE(ram),
		.commit_limit = 100 * MiB, .lockable_limit = 16 * MiB,
	};

	cr_assert_eq(physmem_init(&pm, &cfg), 0);
}

static void teardown(void)
{
	physmem_fini(&pm);
}

TestSuite(physmem, .init = setup, .fini = teardown);

Test(physmem, init_sorts_and_seeds_frames)
{
	cr_assert_eq(pm.ram[0].base, 0);
	cr_assert_eq(pm.ram[2].base, 0x100000000);
	cr_assert_eq(pm.highest_pa, 0x100000000 + 64 * MiB - 1);
	cr_assert_eq(pm.frames.free_bytes, 128 * MiB);
	cr_assert_eq(pm.pressure.commit_available, UINT64_MAX);
	cr_assert_eq(pm.pressure.lockable_available, UINT64_MAX);
	cr_assert_eq(pm.pressure.max_contiguous, UINT64_MAX);
	cr_assert_geq(pm.bytes.size, (uint64_t)1 << 40, "reserved ranges above RAM are addressable");
}

Test(physmem, init_rejects_bad_maps)
{
	struct physmem m;
	struct range_extent overlap[] = { { 0, 2 * MiB }, { MiB, 2 * MiB } };
	struct range_extent unaligned[] = { { 0x800, 2 * MiB } };
	struct range_extent empty[] = { { 0, 0 } };
	struct physmem_config cfg = { .commit_limit = MiB, .lockable_limit = MiB };

	cfg.ram = overlap, cfg.nram = 2;
	cr_assert_eq(physmem_init(&m, &cfg), -EINVAL);
	cfg.ram = unaligned, cfg.nram = 1;
	cr_assert_eq(physmem_init(&m, &cfg), -EINVAL);
	cfg.ram = empty, cfg.nram = 1;
	cr_assert_eq(physmem_init(&m, &cfg), -EINVAL);
	cfg.nram = 0;
	cr_assert_eq(physmem_init(&m, &cfg), -EINVAL);
}

Test(physmem, commit_limit_and_pressure)
{
	struct physmem_pressure p = { 10 * MiB, UINT64_MAX, UINT64_MAX };

	cr_assert_eq(physmem_commit(&pm, 60 * MiB), 0);
	cr_assert_eq(physmem_commit(&pm, 41 * MiB), -ENOMEM, "over the limit");
	cr_assert_eq(pm.usage.committed, 60 * MiB);
	cr_assert_eq(physmem_commit(&pm, 40 * MiB), 0, "exactly up to the limit");
	physmem_uncommit(&pm, 40 * MiB);

	/* Pressure: only 10 MiB more is grantable, whatever the limit says. */
	physmem_set_pressure(&pm, &p);
	cr_assert_eq(physmem_commit(&pm, 11 * MiB), -ENOMEM);
	cr_assert_eq(physmem_commit(&pm, 6 * MiB), 0);
	cr_assert_eq(pm.pressure.commit_available, 4 * MiB);
	cr_assert_eq(physmem_commit(&pm, 5 * MiB), -ENOMEM);
	physmem_uncommit(&pm, 6 * MiB);
	cr_assert_eq(pm.pressure.commit_available, 10 * MiB);
	cr_assert_eq(pm.usage.committed, 60 * MiB);
	physmem_uncommit(&pm, 60 * MiB);
	cr_assert_eq(pm.usage.committed, 0);
}

Test(physmem, lock_limit_and_pressure)
{
	struct physmem_pressure p = { UINT64_MAX, 8 * 4096, UINT64_MAX };

	cr_assert_eq(physmem_lock(&pm, 16 * MiB), 0);
	cr_assert_eq(physmem_lock(&pm, 4096), -ENOMEM);
	physmem_unlock(&pm, 16 * MiB);
	cr_assert_eq(pm.usage.locked, 0);
	cr_assert_eq(physmem_lock(&pm, 100), -EINVAL, "not a page multiple");

	physmem_set_pressure(&pm, &p);
	cr_assert_eq(physmem_lock(&pm, 9 * 4096), -ENOMEM);
	cr_assert_eq(physmem_lock(&pm, 8 * 4096), 0);
	cr_assert_eq(physmem_lock(&pm, 4096), -ENOMEM);
	physmem_unlock(&pm, 4 * 4096);
	cr_assert_eq(physmem_lock(&pm, 4 * 4096), 0);
	cr_assert_eq(pm.usage.locked, 8 * 4096);
}

static bool contiguous(const pa_t *pages, uint64_t n)
{
	for (uint64_t i = 1; i < n; i++)
		if (pages[i] != pages[0] + i * GPUISO_PAGE_SIZE)
			return false;
	return true;
}

Test(physmem, contiguous_alloc_is_one_aligned_run)
{
	uint64_t n = 4 * MiB / GPUISO_PAGE_SIZE;
	pa_t *pages = calloc(n, sizeof(*pages));

	cr_assert_eq(physmem_alloc(&pm, n, true, pages), 0);
	cr_assert(contiguous(pages, n));
	cr_assert(ALIGNED(pages[0], SZ_2M), "big runs are aligned for large IOMMU pages");
	cr_assert(physmem_is_ram(&pm, pages[0], 4 * MiB));
	cr_assert_eq(pm.usage.allocated, 4 * MiB);
	cr_assert_eq(pm.frames.free_bytes, 124 * MiB);
	/* No single run of RAM holds 65 MiB. */
	cr_assert_eq(physmem_alloc(&pm, 65 * MiB / GPUISO_PAGE_SIZE, true, pages), -ENOMEM);
	physmem_free(&pm, pages, n);
	cr_assert_eq(pm.frames.free_bytes, 128 * MiB);
	cr_assert_eq(pm.usage.allocated, 0);
	free(pages);
}

Test(physmem, scattered_alloc_spans_ranges_in_address_order)
{
	uint64_t n = 100 * MiB / GPUISO_PAGE_SIZE;
	pa_t *pages = calloc(n, sizeof(*pages));

	cr_assert_eq(physmem_alloc(&pm, n, false, pages), 0);
	cr_assert_eq(pages[0], 0);
	for (uint64_t i = 1; i < n; i++)
		cr_assert_gt(pages[i], pages[i - 1]);
	cr_assert_eq(pages[32 * MiB / GPUISO_PAGE_SIZE], 0x4000000, "skips the hole");
	cr_assert_eq(pages[64 * MiB / GPUISO_PAGE_SIZE], 0x100000000);
	cr_assert_eq(physmem_alloc(&pm, 29 * MiB / GPUISO_PAGE_SIZE, false, pages), -ENOMEM);
	cr_assert_eq(pm.frames.free_bytes, 28 * MiB, "a refused alloc takes nothing");
	physmem_free(&pm, pages, n);
	cr_assert_eq(pm.frames.free_bytes, 128 * MiB);
	cr_assert_eq(pm.frames.n, 3);
	free(pages);
}

Test(physmem, max_contiguous_fragments_allocations)
{
	struct physmem_pressure p = { UINT64_MAX, UINT64_MAX, 64 * 1024 };
	uint64_t n = 1024; /* 4 MiB */
	pa_t *pages = calloc(n, sizeof(*pages));
	uint64_t run = 1, longest = 1;

	physmem_set_pressure(&pm, &p);
	cr_assert_eq(physmem_alloc(&pm, 32, true, pages), -ENOMEM, "128 KiB in one run");
	cr_assert_eq(physmem_alloc(&pm, 16, true, pages), 0, "64 KiB in one run");
	physmem_free(&pm, pages, 16);

	cr_assert_eq(physmem_alloc(&pm, n, false, pages), 0);
	for (uint64_t i = 1; i < n; i++) {
		run = pages[i] == pages[i - 1] + GPUISO_PAGE_SIZE ? run + 1 : 1;
		longest = GPUISO_MAX(longest, run);
	}
	cr_assert_eq(longest, 16, "no physically contiguous run above 64 KiB");
	cr_assert_eq(pm.usage.allocated, 4 * MiB);
	physmem_free(&pm, pages, n);
	cr_assert_eq(pm.frames.free_bytes, 128 * MiB);
	cr_assert_eq(pm.usage.allocated, 0);
	free(pages);

	/* Fragmented memory cannot hand out every last frame in one go; a refusal takes nothing. */
	n = 128 * MiB / GPUISO_PAGE_SIZE;
	pages = calloc(n, sizeof(*pages));
	cr_assert_eq(physmem_alloc(&pm, n, false, pages), -ENOMEM);
	cr_assert_eq(pm.frames.free_bytes, 128 * MiB);
	cr_assert_eq(pm.usage.allocated, 0);
	free(pages);
}

Test(physmem, free_returns_frames_and_zeroes_content)
{
	pa_t pages[4];
	uint8_t b = 0x5a;

	cr_assert_eq(physmem_alloc(&pm, 4, false, pages), 0);
	cr_assert_eq(sparse_write(&pm.bytes, pages[2] + 100, &b, 1), 0);
	physmem_free(&pm, pages, 4);
	cr_assert_eq(pm.usage.allocated, 0);
	cr_assert_eq(sparse_read(&pm.bytes, pages[2] + 100, &b, 1), 0);
	cr_assert_eq(b, 0);
	/* The same frames come back first (address order). */
	cr_assert_eq(physmem_alloc(&pm, 1, false, pages), 0);
	cr_assert_eq(pages[0], 0);
	/* A double free does not add the frame twice. */
	physmem_free(&pm, pages, 1);
	physmem_free(&pm, pages, 1);
	cr_assert_eq(pm.frames.free_bytes, 128 * MiB);
	/* Frames outside RAM never join the pool. */
	pages[0] = 0x2000000;
	physmem_free(&pm, pages, 1);
	cr_assert_eq(pm.frames.free_bytes, 128 * MiB);
}

Test(physmem, is_ram_and_overlaps_ram)
{
	cr_assert(physmem_is_ram(&pm, 0, 32 * MiB));
	cr_assert_not(physmem_is_ram(&pm, 0, 32 * MiB + 1), "runs into the hole");
	cr_assert(physmem_is_ram(&pm, 0x4000000, 4096));
	cr_assert_not(physmem_is_ram(&pm, 0x2000000, 4096));
	cr_assert_not(physmem_is_ram(&pm, 0x100000000 + 64 * MiB, 1), "above RAM");
	cr_assert_not(physmem_is_ram(&pm, 0, 0));

	cr_assert(physmem_overlaps_ram(&pm, 0x1000000, 64 * MiB));
	cr_assert(physmem_overlaps_ram(&pm, 0x3fff000, 0x2000), "ends in the second range");
	cr_assert_not(physmem_overlaps_ram(&pm, 0x2000000, 32 * MiB), "exactly the hole");
	cr_assert_not(physmem_overlaps_ram(&pm, 0xc0000000, 16 * MiB));
	cr_assert(physmem_overlaps_ram(&pm, 0xc0000000, UINT64_MAX), "to the end of space");
}

Test(physmem, adjacent_ranges_count_as_one)
{
	struct physmem m;
	struct range_extent r[] = { { 0, 2 * MiB }, { 2 * MiB, 2 * MiB } };
	struct physmem_config cfg = { .ram = r, .nram = 2, .commit_limit = MiB, .lockable_limit = MiB };

	cr_assert_eq(physmem_init(&m, &cfg), 0);
	cr_assert(physmem_is_ram(&m, MiB, 2 * MiB));
	cr_assert_eq(m.frames.n, 1);
	physmem_fini(&m);
}

Test(physmem, large_scattered_allocs_take_aligned_2m_blocks_first)
{
	uint64_t n = 4 * MiB / GPUISO_PAGE_SIZE + 2;
	pa_t one, *pages = calloc(n, sizeof(*pages));

	cr_assert_eq(physmem_alloc(&pm, 1, false, &one), 0);
	cr_assert_eq(one, 0);
	cr_assert_eq(physmem_alloc(&pm, n, false, pages), 0);
	cr_assert_eq(pages[0], 2 * MiB, "the first whole 2 MiB block");
	cr_assert(contiguous(pages, n - 2));
	cr_assert_eq(pages[n - 2], GPUISO_PAGE_SIZE, "the rest from the frames skipped");
	cr_assert_eq(pages[n - 1], 2 * GPUISO_PAGE_SIZE);
	physmem_free(&pm, pages, n);
	physmem_free(&pm, &one, 1);
	cr_assert_eq(pm.frames.free_bytes, 128 * MiB);
	free(pages);
}

/* Frames a device may still reach: freed, withheld from the pool until unheld. */
Test(physmem, held_frames_are_withheld_until_unheld)
{
	const uint64_t pg = GPUISO_PAGE_SIZE, all = pm.frames.free_bytes;
	struct phys_runs runs;
	pa_t pa;

	cr_assert_eq(physmem_alloc_runs(&pm, 8, true, &runs), 0);
	cr_assert_eq(runs.n, 1);
	pa = phys_runs_array(&runs)[0].pa;
	phys_runs_free(&runs);
	cr_assert_eq(pm.frames.free_bytes, all - 8 * pg);
	/* hold pages 2-5 (2-3 twice: shared pages are held once) */
	cr_assert_eq(physmem_hold(&pm, pa + 2 * pg, 2), 0);
	cr_assert_eq(physmem_hold(&pm, pa + 2 * pg, 4), 0);
	cr_assert_eq(pm.held.free_bytes, 4 * pg);
	/* free all eight: four join the pool, four are withheld */
	physmem_free_run(&pm, pa, 8);
	cr_assert_eq(pm.frames.free_bytes, all - 4 * pg);
	cr_assert(range_contains(&pm.withheld, pa + 2 * pg, 4 * pg));
	cr_assert_not(range_contains(&pm.frames, pa + 2 * pg, pg));
	cr_assert(range_contains(&pm.frames, pa, 2 * pg));
	cr_assert(range_contains(&pm.frames, pa + 6 * pg, 2 * pg));
	/* unheld in two steps: each stretch freed meanwhile joins the pool */
	physmem_unhold(&pm, pa + 2 * pg, 1);
	cr_assert_eq(pm.frames.free_bytes, all - 3 * pg);
	physmem_unhold(&pm, pa, 8);
	cr_assert_eq(pm.frames.free_bytes, all);
	cr_assert_eq(pm.held.n, 0);
	cr_assert_eq(pm.withheld.n, 0);
}
