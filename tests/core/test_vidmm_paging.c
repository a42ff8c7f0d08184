/* SPDX-License-Identifier: MIT */
/*
 * VidMm's paging transfers (core/vidmm.c, docs/model.md "VidMm"): a VRAM
 * allocation's bytes moved to its backing store and back, in physical and
 * logical mode, in part, refused, under lock pressure, VRAM running out,
 * and without IOMMU support.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"

#define PG GPUISO_PAGE_SIZE

static const struct physmem_pressure no_pressure = { UINT64_MAX, UINT64_MAX, UINT64_MAX };

#define MiB (1ull << 20)

static void fill(uint8_t *buf, uint64_t len, uint8_t seed)
{
	for (uint64_t i = 0; i < len; i++)
		buf[i] = (uint8_t)(seed + i / PG * 29 + i * 13);
}

/* --- paging transfers --- */

static void transfer_round_trip(bool logical)
{
	struct fx fx;
	struct physmem_usage base;
	struct hw_stats s0, s1;
	struct hw *hw;
	core_handle_t h = 0;
	uint8_t pattern[3 * 4096], back[3 * 4096], zeros[3 * 4096];
	size_t faults;
	iova_t pa = 0;

	fx_defaults(&fx);
	if (logical)
		fx_need_remap(&fx, 0);
	fx_start(&fx);
	hw = core_hw(fx.core);
	cr_assert_eq(fx_info(&fx, 0).mode, logical ? MODE_LOGICAL : MODE_PHYSICAL);
	cr_assert_eq(core_alloc_create(fx.core, 0, sizeof(pattern), CORE_SEG_VRAM, 0, &h), 0);
	if (!logical)
		pa = fx_iova_of(&fx, h, 0);
	base = fx_usage(&fx);
	faults = fx_faults(&fx);
	fill(pattern, sizeof(pattern), 0x80);
	memset(zeros, 0, sizeof(zeros));
	cr_assert_eq(core_view_rw(fx.core, h, 0, pattern, sizeof(pattern), true), 0);
	hw->ops->stats(hw, &s0);
	cr_assert_eq(core_transfer(fx.core, 0, h, TRANSFER_TO_VRAM, 0), 0, "%s", fx_violation_text(&fx));
	hw->ops->stats(hw, &s1);
	cr_assert_gt(s1.pte_writes, s0.pte_writes, "the backing store was mapped for the transfer");
	cr_assert_eq(fx_usage(&fx).locked, base.locked, "unlocked again after the transfer");
	cr_assert_eq(core_view_rw(fx.core, h, 0, zeros, sizeof(zeros), true), 0);
	cr_assert_eq(core_transfer(fx.core, 0, h, TRANSFER_FROM_VRAM, 0), 0, "%s",
		     fx_violation_text(&fx));
	cr_assert_eq(core_view_rw(fx.core, h, 0, back, sizeof(back), false), 0);
	cr_assert_eq(memcmp(back, pattern, sizeof(back)), 0, "VRAM kept the pattern and gave it back");
	cr_assert_eq(fx_faults(&fx), faults, "the transfers were not blocked");
	cr_assert_eq(fx_usage(&fx).locked, base.locked);
	cr_assert_eq(fx_usage(&fx).committed, base.committed);
	/* the backing store is unmapped again */
	if (logical) {
		iova_t iova;

		cr_assert_eq(core_handle_iova(fx.core, h, 0, &iova), -EINVAL,
			     "no logical address outside a transfer");
	} else {
		cr_assert_eq(core_dma(fx.core, 0, 0, h, 0, 64, true), -EFAULT);
		cr_assert_eq(fx_faults(&fx), faults + 1);
		fx_assert_blocked(&fx, 0, pa, "VRAM backing store after a transfer");
	}
	cr_assert_eq(core_alloc_destroy(fx.core, 0, h), 0);
	fx_assert_no_violations(&fx);
	fx_fini(&fx);
}

Test(vidmm, transfer_round_trip_physical)
{
	transfer_round_trip(false);
}

Test(vidmm, transfer_round_trip_logical)
{
	transfer_round_trip(true);
}

Test(vidmm, partial_transfer_moves_only_the_bytes_asked)
{
	struct fx fx;
	core_handle_t h = 0;
	uint8_t pattern[2 * 4096], back[2 * 4096], zeros[2 * 4096];

	fx_defaults(&fx);
	fx_start(&fx);
	cr_assert_eq(core_alloc_create(fx.core, 0, sizeof(pattern), CORE_SEG_VRAM, 0, &h), 0);
	fill(pattern, sizeof(pattern), 0x10);
	memset(zeros, 0, sizeof(zeros));
	cr_assert_eq(core_view_rw(fx.core, h, 0, pattern, sizeof(pattern), true), 0);
	cr_assert_eq(core_transfer(fx.core, 0, h, TRANSFER_TO_VRAM, 0), 0);
	cr_assert_eq(core_view_rw(fx.core, h, 0, zeros, sizeof(zeros), true), 0);
	cr_assert_eq(core_transfer(fx.core, 0, h, TRANSFER_FROM_VRAM, PG), 0);
	cr_assert_eq(core_view_rw(fx.core, h, 0, back, sizeof(back), false), 0);
	cr_assert_eq(memcmp(back, pattern, PG), 0, "the first page came back");
	cr_assert_eq(memcmp(back + PG, zeros, PG), 0, "the second page was not moved");
	cr_assert_eq(core_alloc_destroy(fx.core, 0, h), 0);
	fx_assert_no_violations(&fx);
	fx_fini(&fx);
}

Test(vidmm, transfer_refusals)
{
	struct fx fx;
	core_handle_t sys = 0, vram = 0;

	fx_defaults(&fx);
	fx_start(&fx);
	cr_assert_eq(core_alloc_create(fx.core, 0, PG, CORE_SEG_SYSTEM, 0, &sys), 0);
	cr_assert_eq(core_alloc_create(fx.core, 0, 2 * PG, CORE_SEG_VRAM, 0, &vram), 0);
	cr_assert_eq(core_transfer(fx.core, 0, sys, TRANSFER_TO_VRAM, 0), -EINVAL, "not in VRAM");
	cr_assert_eq(core_transfer(fx.core, 0, vram, TRANSFER_TO_VRAM, 2 * PG + 1), -ERANGE);
	cr_assert_eq(fx_violations(&fx, CORE_V_BAD_HANDLE), 0);
	cr_assert_eq(core_transfer(fx.core, 0, 0xBAD, TRANSFER_TO_VRAM, 0), -EINVAL);
	cr_assert_eq(fx_violations(&fx, CORE_V_BAD_HANDLE), 1, "%s", fx_violation_text(&fx));
	cr_assert_eq(core_alloc_destroy(fx.core, 0, sys), 0);
	cr_assert_eq(core_alloc_destroy(fx.core, 0, vram), 0);
	fx_fini(&fx);
}

Test(vidmm, transfer_under_lock_pressure_fails_and_leaves_nothing_mapped)
{
	struct fx fx;
	struct physmem_usage base;
	core_handle_t h = 0;
	iova_t pa;

	fx_defaults(&fx);
	fx_start(&fx);
	cr_assert_eq(core_alloc_create(fx.core, 0, 4 * PG, CORE_SEG_VRAM, 0, &h), 0);
	pa = fx_iova_of(&fx, h, 0);
	fx_pressure(&fx, UINT64_MAX, 2 * PG, UINT64_MAX);
	base = fx_usage(&fx);
	cr_assert_eq(core_transfer(fx.core, 0, h, TRANSFER_TO_VRAM, 0), -ENOMEM);
	cr_assert_eq(fx_usage(&fx).locked, base.locked);
	fx_assert_blocked(&fx, 0, pa, "backing store of a failed transfer");
	core_memory(fx.core, &no_pressure);
	cr_assert_eq(core_transfer(fx.core, 0, h, TRANSFER_TO_VRAM, 0), 0, "fine without pressure");
	cr_assert_eq(core_alloc_destroy(fx.core, 0, h), 0);
	fx_assert_no_violations(&fx);
	fx_fini(&fx);
}

Test(vidmm, vram_exhaustion_is_enomem_and_recovers)
{
	struct fx fx;
	struct physmem_usage base;
	core_handle_t h[16] = { 0 }, extra = 0;
	size_t n = 0, live;
	int rc = 0;

	fx_defaults(&fx);
	fx.scn.adapters[0].phys[0].vram = 128 * MiB; /* 64 MiB of it is the save reserve */
	fx_start(&fx);
	while (n < 16 && !(rc = core_alloc_create(fx.core, 0, 16 * MiB, CORE_SEG_VRAM, 0, &h[n])))
		n++;
	cr_assert(n >= 1 && n < 16, "%zu allocations of 16 MiB fit", n);
	/* non-fatal, so the rest is checked too */
	cr_expect_eq(rc, -ENOMEM, "out of VRAM is documented as -ENOMEM, got %d", rc);
	/* nothing is left of the failed one */
	base = fx_usage(&fx);
	live = core_live_handles(fx.core);
	cr_assert_neq(core_alloc_create(fx.core, 0, 16 * MiB, CORE_SEG_VRAM, 0, &extra), 0);
	cr_assert_eq(core_live_handles(fx.core), live);
	cr_assert_eq(fx_usage(&fx).committed, base.committed);
	cr_assert_eq(fx_usage(&fx).allocated, base.allocated);
	/* VRAM comes back with a destroy */
	cr_assert_eq(core_alloc_destroy(fx.core, 0, h[0]), 0);
	cr_assert_eq(core_alloc_create(fx.core, 0, 16 * MiB, CORE_SEG_VRAM, 0, &h[0]), 0);
	for (size_t i = 0; i < n; i++)
		cr_assert_eq(core_alloc_destroy(fx.core, 0, h[i]), 0);
	fx_fini(&fx);
}

/* VRAM exists whether or not the driver supports IOMMU isolation. */
Test(vidmm, vram_allocation_without_iommu_support)
{
	struct fx fx;
	core_handle_t h = 0;
	int rc;

	fx_defaults(&fx);
	fx.scn.adapters[0].caps.iommu_secure_mode = false;
	fx_start(&fx);
	cr_assert(fx_info(&fx, 0).started, "%s", fx_info(&fx, 0).start_error);
	cr_assert(!fx_info(&fx, 0).iommu_enabled);
	rc = core_alloc_create(fx.core, 0, PG, CORE_SEG_VRAM, 0, &h);
	cr_expect_eq(rc, 0, "a VRAM allocation on an adapter with 8 GiB of VRAM: %d", rc);
	if (!rc) {
		cr_assert_eq(core_transfer(fx.core, 0, h, TRANSFER_TO_VRAM, 0), 0);
		cr_assert_eq(core_alloc_destroy(fx.core, 0, h), 0);
	}
	fx_fini(&fx);
}
