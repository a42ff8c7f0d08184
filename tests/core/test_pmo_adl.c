/* SPDX-License-Identifier: MIT */
/*
 * The ADLs of the WDDM 3.0 memory management services (core/pmo.c,
 * docs/model.md "Memory callbacks"): locked and mapped for their lifetime;
 * logical and contiguous in logical-remap mode, physical pages otherwise;
 * caching types, I/O space, reference counted identity mappings for
 * overlapping ADLs (over large pages and shared chunks too), lock pressure
 * and injected map failures rolled back.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pmo_fixture.h"

/* Whether every page of @h (1:1 addresses) is physically apart from the one before. */
static bool fully_scattered(struct fx *fx, core_handle_t h, uint64_t pages)
{
	for (uint64_t i = 1; i < pages; i++)
		if (fx_iova_of(fx, h, i * PG) == fx_iova_of(fx, h, (i - 1) * PG) + PG)
			return false;
	return true;
}

/* --- ADLs --- */

/* DXGK_MEMORY_CACHING_TYPE has three values; views carry their PMO's. */
Test(pmo, caching_types_are_checked_and_carried_to_views)
{
	static const enum cache_type types[] = { CACHE_NONCACHED, CACHE_CACHED,
						 CACHE_WRITECOMBINED };
	struct core_view_info vi;
	core_handle_t pmo, view, h;
	struct fx fx;
	size_t live;

	pmo_defaults(&fx);
	fx_start(&fx);
	live = core_live_handles(fx.core);
	cr_assert_eq(core_pmo_create(fx.core, 0, PG, (enum cache_type)3, &h), -EINVAL);
	cr_assert_eq(core_pmo_create(fx.core, 0, PG, (enum cache_type)7, &h), -EINVAL);
	cr_assert_eq(core_alloc_contiguous(fx.core, 0, PG, (enum cache_type)9, &h, NULL), -EINVAL);
	cr_assert_eq(core_alloc_contiguous(fx.core, 0, PG, (enum cache_type)-1, &h, NULL),
		     -EINVAL);
	cr_assert_eq(core_live_handles(fx.core), live, "refused calls create nothing");
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		cr_assert_eq(core_pmo_create(fx.core, 0, PG, types[i], &pmo), 0);
		cr_assert_eq(core_pmo_map_cpu(fx.core, 0, pmo, CPU_KERNEL, 0, PG, &view), 0);
		cr_assert_eq(core_view_info(fx.core, view, &vi), 0);
		cr_assert_eq(vi.cache, types[i]);
		cr_assert_eq(vi.mode, CPU_KERNEL);
		cr_assert_not(vi.io_space);
		cr_assert_eq(core_pmo_unmap_cpu(fx.core, 0, view), 0);
		cr_assert_eq(core_pmo_destroy(fx.core, 0, pmo), 0);
	}
	cr_assert_eq(core_view_info(fx.core, pmo, &vi), -EINVAL, "a PMO is not a view");
	fx_assert_no_violations(&fx);
	fx_fini(&fx);
}

/* IO space: device memory the driver names; mapped for the GPU and the CPU, never RAM. */
static void io_space_pmo(bool need_remap)
{
	const uint64_t io = 0xE0000000ull; /* in the 32-bit hole of the default memory map */
	struct physmem_usage base;
	struct core_view_info vi;
	struct core_adl_info adl;
	core_handle_t pmo, view, a, h;
	uint8_t out[64];
	struct fx fx;

	pmo_defaults(&fx);
	if (need_remap)
		fx_need_remap(&fx, 0);
	fx_start(&fx);
	base = fx_usage(&fx);
	/* over installed memory, unaligned, empty: refused */
	cr_assert_eq(core_pmo_create_io(fx.core, 0, 0x100000000ull, PG, CACHE_NONCACHED, &h),
		     -EFAULT);
	cr_assert_eq(core_pmo_create_io(fx.core, 0, 0x7FFFF000ull, 2 * PG, CACHE_NONCACHED, &h),
		     -EFAULT, "its second page is RAM");
	cr_assert_eq(core_pmo_create_io(fx.core, 0, io + 1, PG, CACHE_NONCACHED, &h), -EINVAL);
	cr_assert_eq(core_pmo_create_io(fx.core, 0, io, 0, CACHE_NONCACHED, &h), -EINVAL);
	cr_assert_eq(core_pmo_create_io(fx.core, 0, io, PG, (enum cache_type)5, &h), -EINVAL);
	cr_assert_eq(core_pmo_create_io(fx.core, 0, io, 4 * PG, CACHE_WRITECOMBINED, &pmo), 0);
	cr_assert_eq(core_adl_alloc(fx.core, 0, pmo, 0, 4 * PG, &a), 0);
	fx_assert_usage_eq(fx_usage(&fx), base, "IO space is neither committed nor locked");
	cr_assert_eq(core_adl_info(fx.core, a, &adl), 0);
	cr_assert_eq(adl.logical, need_remap);
	if (!need_remap)
		cr_assert_eq(adl.base, io, "1:1: the device reaches IO space at its address");
	/* the device writes through the ADL; the CPU reads through a view */
	cr_assert_eq(fx_dma_write(&fx, 0, 0, a, PG + 8, sizeof(out), 0x6d), 0);
	cr_assert_eq(core_pmo_map_cpu(fx.core, 0, pmo, CPU_KERNEL, PG, PG, &view), 0);
	cr_assert_eq(core_view_info(fx.core, view, &vi), 0);
	cr_assert(vi.io_space);
	cr_assert_eq(vi.cache, CACHE_WRITECOMBINED);
	cr_assert_eq(core_view_rw(fx.core, view, 8, out, sizeof(out), false), 0);
	for (size_t i = 0; i < sizeof(out); i++)
		cr_assert_eq(out[i], 0x6d);
	cr_assert_eq(core_pmo_unmap_cpu(fx.core, 0, view), 0);
	cr_assert_eq(core_adl_free(fx.core, 0, a), 0);
	cr_assert_eq(core_pmo_destroy(fx.core, 0, pmo), 0);
	fx_assert_usage_eq(fx_usage(&fx), base, "after the IO-space PMO was destroyed");
	fx_assert_no_violations(&fx);
	fx_fini(&fx);
}

Test(pmo, io_space_pmo_in_physical_mode)
{
	io_space_pmo(false);
}

Test(pmo, io_space_pmo_in_logical_mode)
{
	io_space_pmo(true);
}

Test(pmo, adl_is_locked_for_its_lifetime)
{
	struct fx fx;
	core_handle_t pmo = 0, adl = 0;
	struct physmem_usage base, now;

	pmo_defaults(&fx);
	fx_start(&fx);
	cr_assert_eq(core_pmo_create(fx.core, 0, 8 * PG, CACHE_CACHED, &pmo), 0);
	base = fx_usage(&fx);
	cr_assert_eq(core_adl_alloc(fx.core, 0, pmo, 2 * PG, 3 * PG, &adl), 0);
	now = fx_usage(&fx);
	cr_assert_eq(now.locked, base.locked + 3 * PG, "locked %llu, was %llu",
		     (unsigned long long)now.locked, (unsigned long long)base.locked);
	cr_assert_eq(now.committed, base.committed, "the PMO holds the charge already");
	cr_assert_eq(now.allocated, base.allocated, "an ADL takes no new pages");
	cr_assert_eq(core_adl_free(fx.core, 0, adl), 0);
	fx_assert_usage_eq(fx_usage(&fx), base, "after the ADL was freed");
	cr_assert_eq(core_pmo_destroy(fx.core, 0, pmo), 0);
	fx_assert_no_violations(&fx);
	fx_fini(&fx);
}

Test(pmo, adl_outside_the_pmo_is_refused)
{
	struct fx fx;
	core_handle_t pmo = 0, h = 0;
	struct physmem_usage base;
	size_t live;

	pmo_defaults(&fx);
	fx_start(&fx);
	cr_assert_eq(core_pmo_create(fx.core, 0, 4 * PG, CACHE_CACHED, &pmo), 0);
	base = fx_usage(&fx);
	live = core_live_handles(fx.core);
	cr_assert_neq(core_adl_alloc(fx.core, 0, pmo, 4 * PG, PG, &h), 0, "starts past the end");
	cr_assert_eq(h, 0);
	cr_assert_neq(core_adl_alloc(fx.core, 0, pmo, 2 * PG, 3 * PG, &h), 0, "ends past the end");
	cr_assert_neq(core_adl_alloc(fx.core, 0, pmo, 0, 5 * PG, &h), 0, "bigger than the PMO");
	cr_assert_neq(core_adl_alloc(fx.core, 0, pmo, 0, 0, &h), 0, "empty");
	cr_assert_neq(core_adl_alloc(fx.core, 0, pmo, 512, PG, &h), 0, "misaligned offset");
	cr_assert_neq(core_adl_alloc(fx.core, 0, pmo, UINT64_MAX & ~(PG - 1), 2 * PG, &h), 0,
		      "offset wraps");
	cr_assert_eq(core_live_handles(fx.core), live);
	fx_assert_usage_eq(fx_usage(&fx), base, "after refused ADLs");
	/* the last page alone is fine */
	cr_assert_eq(core_adl_alloc(fx.core, 0, pmo, 3 * PG, PG, &h), 0);
	cr_assert_eq(core_adl_free(fx.core, 0, h), 0);
	cr_assert_eq(core_pmo_destroy(fx.core, 0, pmo), 0, "refused ADLs were not counted:\n%s",
		     fx_violation_text(&fx));
	fx_fini(&fx);
}

Test(pmo, physical_adl_over_scattered_pages_is_not_contiguous)
{
	struct fx fx;
	core_handle_t pmo = 0, adl = 0, pmo2 = 0, adl2 = 0;
	struct core_adl_info info;
	uint8_t in[4 * 4096], out[4 * 4096];

	pmo_defaults(&fx);
	fx_start(&fx);
	/* the control first: once memory is fragmented, holes get filled */
	cr_assert_eq(core_pmo_create(fx.core, 0, 4 * PG, CACHE_CACHED, &pmo2), 0);
	fx_pressure(&fx, UINT64_MAX, UINT64_MAX, PG);
	cr_assert_eq(core_pmo_create(fx.core, 0, 4 * PG, CACHE_CACHED, &pmo), 0);
	core_memory(fx.core, &no_pressure);
	cr_assert(fully_scattered(&fx, pmo, 4), "max_contiguous = 1 page must scatter the PMO");
	cr_assert_eq(core_adl_alloc(fx.core, 0, pmo, 0, 4 * PG, &adl), 0);
	cr_assert_eq(core_adl_info(fx.core, adl, &info), 0);
	cr_assert_eq(info.pages, 4);
	cr_assert(!info.logical, "1:1 mode: physical pages");
	cr_assert(!info.contiguous, "scattered pages are not one run");
	cr_assert_eq(info.base, fx_iova_of(&fx, pmo, 0), "base is the first page's physical address");
	for (uint64_t i = 0; i < 4; i++)
		cr_assert_eq(fx_iova_of(&fx, adl, i * PG), fx_iova_of(&fx, pmo, i * PG));
	/* the GPU reaches every page of it (the copy is split per run) */
	fill(in, sizeof(in), 0x33);
	cr_assert_eq(gpu_write(&fx, 0, 0, adl, 0, in, sizeof(in)), 0, "%s", fx_violation_text(&fx));
	memset(out, 0, sizeof(out));
	cr_assert_eq(fx_dma_read(&fx, 0, 0, adl, 0, sizeof(out), out), 0);
	cr_assert_eq(memcmp(in, out, sizeof(in)), 0);
	/* control: without pressure the same request is one run */
	cr_assert(!fully_scattered(&fx, pmo2, 4));
	cr_assert_eq(core_adl_alloc(fx.core, 0, pmo2, 0, 4 * PG, &adl2), 0);
	cr_assert_eq(core_adl_info(fx.core, adl2, &info), 0);
	cr_assert(!info.logical);
	cr_assert(info.contiguous, "one physical run is contiguous");
	cr_assert_eq(core_adl_free(fx.core, 0, adl2), 0);
	cr_assert_eq(core_adl_free(fx.core, 0, adl), 0);
	cr_assert_eq(core_pmo_destroy(fx.core, 0, pmo2), 0);
	cr_assert_eq(core_pmo_destroy(fx.core, 0, pmo), 0);
	fx_assert_no_violations(&fx);
	fx_fini(&fx);
}

/*
 * Adapter 0 remaps (logical mode), adapter 1 is 1:1 on the same memory: the
 * 1:1 adapter shows the allocator hands out scattered pages right before and
 * right after adapter 0's PMO is created.
 */
Test(pmo, logical_adl_is_contiguous_over_scattered_pages)
{
	struct fx fx;
	core_handle_t before = 0, after = 0, pmo = 0, view = 0, adl = 0;
	struct core_adapter_info info0;
	struct core_adl_info ai;
	uint8_t in[8 * 4096], out[8 * 4096];

	pmo_defaults(&fx);
	cr_assert_eq(fx_add_adapter(&fx, "gpu1"), 1);
	fx_need_remap(&fx, 0);
	fx_start(&fx);
	info0 = fx_info(&fx, 0);
	cr_assert_eq(info0.mode, MODE_LOGICAL, "%s", info0.start_error);
	cr_assert_eq(fx_info(&fx, 1).mode, MODE_PHYSICAL);
	cr_assert_eq(info0.logical_limit, 0x100000000ull);

	fx_pressure(&fx, UINT64_MAX, UINT64_MAX, PG);
	cr_assert_eq(core_pmo_create(fx.core, 1, 8 * PG, CACHE_CACHED, &before), 0);
	cr_assert_eq(core_pmo_create(fx.core, 0, 8 * PG, CACHE_CACHED, &pmo), 0);
	cr_assert_eq(core_pmo_create(fx.core, 1, 8 * PG, CACHE_CACHED, &after), 0);
	core_memory(fx.core, &no_pressure);
	cr_assert(fully_scattered(&fx, before, 8), "memory is fragmented before");
	cr_assert(fully_scattered(&fx, after, 8), "memory is fragmented after");

	cr_assert_eq(core_adl_alloc(fx.core, 0, pmo, 0, 8 * PG, &adl), 0, "%s",
		     fx_violation_text(&fx));
	cr_assert_eq(core_adl_info(fx.core, adl, &ai), 0);
	cr_assert(ai.logical, "logical-remap mode: logical pages");
	cr_assert(ai.contiguous, "logical-remap mode: one contiguous run");
	cr_assert_eq(ai.pages, 8);
	cr_assert(ALIGNED(ai.base, PG));
	cr_assert_leq(ai.base + ai.pages * PG, info0.logical_limit, "base %#llx beyond the limit",
		      (unsigned long long)ai.base);
	for (uint64_t i = 0; i < 8; i++)
		cr_assert_eq(fx_iova_of(&fx, adl, i * PG), ai.base + i * PG);

	/* the contiguous logical range really reaches the scattered pages, in order */
	cr_assert_eq(core_pmo_map_cpu(fx.core, 0, pmo, CPU_KERNEL, 0, 8 * PG, &view), 0);
	fill(in, sizeof(in), 0x44);
	cr_assert_eq(gpu_write(&fx, 0, 0, adl, 0, in, sizeof(in)), 0, "%s", fx_violation_text(&fx));
	memset(out, 0, sizeof(out));
	cr_assert_eq(core_view_rw(fx.core, view, 0, out, sizeof(out), false), 0);
	cr_assert_eq(memcmp(in, out, sizeof(in)), 0, "GPU bytes through the ADL = CPU view");
	fx_assert_reachable(&fx, 0, ai.base + 7 * PG, "last logical page");
	fx_assert_blocked(&fx, 0, ai.base + 8 * PG, "one page past the ADL");

	cr_assert_eq(core_pmo_unmap_cpu(fx.core, 0, view), 0);
	cr_assert_eq(core_adl_free(fx.core, 0, adl), 0);
	fx_assert_blocked(&fx, 0, ai.base, "logical range of a freed ADL");
	cr_assert_eq(core_pmo_destroy(fx.core, 0, pmo), 0);
	cr_assert_eq(core_pmo_destroy(fx.core, 1, before), 0);
	cr_assert_eq(core_pmo_destroy(fx.core, 1, after), 0);
	fx_assert_no_violations(&fx);
	fx_fini(&fx);
}

Test(pmo, logical_adl_of_2mib_uses_a_2mib_aligned_range)
{
	struct fx fx;
	core_handle_t pmo = 0, small = 0, big = 0;
	struct core_adl_info ai;
	uint64_t limit, locked;

	pmo_defaults(&fx);
	fx_need_remap(&fx, 0);
	fx_start(&fx);
	limit = fx_info(&fx, 0).logical_limit;
	cr_assert_eq(fx_info(&fx, 0).mode, MODE_LOGICAL);
	cr_assert_eq(core_pmo_create(fx.core, 0, SZ_2M + PG, CACHE_CACHED, &pmo), 0);
	/* a small ADL first, so the next free logical address is not 2 MiB aligned */
	cr_assert_eq(core_adl_alloc(fx.core, 0, pmo, 0, PG, &small), 0);
	locked = fx_usage(&fx).locked;
	cr_assert_eq(core_adl_alloc(fx.core, 0, pmo, PG, SZ_2M, &big), 0);
	cr_assert_eq(fx_usage(&fx).locked, locked + SZ_2M, "logical mode: locked for its lifetime too");
	cr_assert_eq(core_adl_info(fx.core, big, &ai), 0);
	cr_assert(ai.logical && ai.contiguous);
	cr_assert_eq(ai.pages, SZ_2M / PG);
	cr_assert(ALIGNED(ai.base, SZ_2M), "2 MiB ADL at %#llx", (unsigned long long)ai.base);
	cr_assert_leq(ai.base + SZ_2M, limit);
	cr_assert_eq(fx_dma_write(&fx, 0, 0, big, SZ_2M - 64, 64, 0x2B), 0);
	cr_assert_eq(core_adl_free(fx.core, 0, big), 0);
	cr_assert_eq(fx_usage(&fx).locked, locked);
	cr_assert_eq(core_adl_free(fx.core, 0, small), 0);
	cr_assert_eq(core_pmo_destroy(fx.core, 0, pmo), 0);
	fx_assert_no_violations(&fx);
	fx_fini(&fx);
}

Test(pmo, overlapping_adls_share_reference_counted_mappings)
{
	struct fx fx;
	core_handle_t pmo = 0, a = 0, b = 0;
	iova_t pa[6];
	uint8_t out[4 * 4096];

	pmo_defaults(&fx);
	fx_start(&fx);
	cr_assert_eq(core_pmo_create(fx.core, 0, 6 * PG, CACHE_CACHED, &pmo), 0);
	for (uint64_t i = 0; i < 6; i++)
		pa[i] = fx_iova_of(&fx, pmo, i * PG);
	cr_assert_eq(core_adl_alloc(fx.core, 0, pmo, 0, 4 * PG, &a), 0); /* pages 0..3 */
	cr_assert_eq(core_adl_alloc(fx.core, 0, pmo, 2 * PG, 4 * PG, &b), 0); /* pages 2..5 */
	cr_assert_eq(fx_dma_write(&fx, 0, 0, a, 0, 4 * PG, 0x1A), 0, "%s", fx_violation_text(&fx));
	cr_assert_eq(fx_dma_write(&fx, 0, 0, b, 0, 4 * PG, 0x1B), 0, "%s", fx_violation_text(&fx));
	cr_assert_eq(core_adl_free(fx.core, 0, a), 0);
	/* pages only A covered are gone; the shared ones stay for B */
	fx_assert_blocked(&fx, 0, pa[0], "page 0 (only in A)");
	fx_assert_blocked(&fx, 0, pa[1], "page 1 (only in A)");
	for (int i = 2; i < 6; i++)
		fx_assert_reachable(&fx, 0, pa[i], "page still under B");
	cr_assert_eq(fx_dma_write(&fx, 0, 0, b, 0, 4 * PG, 0x1C), 0, "%s", fx_violation_text(&fx));
	cr_assert_eq(fx_dma_read(&fx, 0, 0, b, 0, 4 * PG, out), 0);
	for (size_t i = 0; i < sizeof(out); i++)
		cr_assert_eq(out[i], 0x1C, "byte %zu = %#x", i, out[i]);
	cr_assert_eq(core_adl_free(fx.core, 0, b), 0);
	for (int i = 0; i < 6; i++)
		fx_assert_blocked(&fx, 0, pa[i], "page after both ADLs were freed");
	cr_assert_eq(core_pmo_destroy(fx.core, 0, pmo), 0);
	core_stop(fx.core);
	cr_assert_eq(fx_violations(&fx, CORE_V_MAPPING_LEAK), 0, "%s", fx_violation_text(&fx));
	fx_assert_no_violations(&fx);
	fx_fini(&fx);
}

Test(pmo, identical_adls_free_in_either_order)
{
	struct fx fx;
	core_handle_t pmo = 0, a = 0, b = 0;
	iova_t pa;

	pmo_defaults(&fx);
	fx_start(&fx);
	cr_assert_eq(core_pmo_create(fx.core, 0, 2 * PG, CACHE_CACHED, &pmo), 0);
	pa = fx_iova_of(&fx, pmo, 0);
	cr_assert_eq(core_adl_alloc(fx.core, 0, pmo, 0, 2 * PG, &a), 0);
	cr_assert_eq(core_adl_alloc(fx.core, 0, pmo, 0, 2 * PG, &b), 0);
	cr_assert_eq(core_adl_free(fx.core, 0, b), 0);
	fx_assert_reachable(&fx, 0, pa, "A still holds it");
	fx_assert_reachable(&fx, 0, pa + PG, "A still holds it, page 2");
	cr_assert_eq(core_adl_free(fx.core, 0, a), 0);
	fx_assert_blocked(&fx, 0, pa, "no ADL left");
	cr_assert_eq(core_pmo_destroy(fx.core, 0, pmo), 0);
	fx_assert_no_violations(&fx);
	fx_fini(&fx);
}

/* --- pressure and injection --- */

Test(pmo, lock_pressure_fails_adl_and_leaves_nothing)
{
	struct fx fx;
	core_handle_t pmo = 0, h = 0;
	struct physmem_usage base;
	size_t live;

	pmo_defaults(&fx);
	fx_start(&fx);
	fx_pressure(&fx, UINT64_MAX, 2 * PG, UINT64_MAX);
	cr_assert_eq(core_pmo_create(fx.core, 0, 4 * PG, CACHE_CACHED, &pmo), 0,
		     "a PMO locks nothing, so lock pressure does not stop it");
	base = fx_usage(&fx);
	live = core_live_handles(fx.core);
	cr_assert_eq(core_adl_alloc(fx.core, 0, pmo, 0, 4 * PG, &h), -ENOMEM);
	cr_assert_eq(h, 0);
	cr_assert_eq(core_live_handles(fx.core), live);
	fx_assert_usage_eq(fx_usage(&fx), base, "after the refused ADL");
	fx_assert_blocked(&fx, 0, fx_iova_of(&fx, pmo, 0), "pages of the refused ADL");
	cr_assert_eq(core_adl_alloc(fx.core, 0, pmo, 0, 2 * PG, &h), 0, "2 pages fit");
	cr_assert_eq(core_adl_free(fx.core, 0, h), 0);
	core_memory(fx.core, &no_pressure);
	cr_assert_eq(core_pmo_destroy(fx.core, 0, pmo), 0, "%s", fx_violation_text(&fx));
	fx_assert_no_violations(&fx);
	fx_fini(&fx);
}

Test(pmo, injected_iommu_map_failure_rolls_back_the_adl)
{
	struct fx fx;
	struct fp_ctx fp;
	core_handle_t pmo = 0, adl = 0;
	struct physmem_usage base;
	size_t live;

	memset(&fp, 0, sizeof(fp));
	pmo_defaults(&fx);
	fx_start(&fx);
	/* three runs of one page: the 2nd of three IOMMU map calls fails */
	fx_pressure(&fx, UINT64_MAX, UINT64_MAX, PG);
	cr_assert_eq(core_pmo_create(fx.core, 0, 3 * PG, CACHE_CACHED, &pmo), 0);
	fp_arm(&fp, FP_IOMMU_MAP, &(struct fp_rule){ .nth = 2 });
	core_set_faults(fx.core, &fp);
	base = fx_usage(&fx);
	live = core_live_handles(fx.core);
	cr_assert_eq(core_adl_alloc(fx.core, 0, pmo, 0, 3 * PG, &adl), -ENOMEM);
	cr_assert_eq(fp.injected[FP_IOMMU_MAP], 1);
	cr_assert_eq(core_live_handles(fx.core), live);
	fx_assert_usage_eq(fx_usage(&fx), base, "after the failed mapping");
	for (uint64_t i = 0; i < 3; i++)
		fx_assert_blocked(&fx, 0, fx_iova_of(&fx, pmo, i * PG), "page of the failed ADL");
	cr_assert_eq(core_adl_alloc(fx.core, 0, pmo, 0, 3 * PG, &adl), 0, "retry");
	cr_assert_eq(core_adl_free(fx.core, 0, adl), 0);
	cr_assert_eq(core_pmo_destroy(fx.core, 0, pmo), 0, "failed ADL not counted:\n%s",
		     fx_violation_text(&fx));
	core_set_faults(fx.core, NULL);
	core_stop(fx.core);
	fx_assert_no_violations(&fx);
	fx_fini(&fx);
}

/* 1:1 mode, one page per run: the 3rd run's mapping fails, the first two are undone. */
Test(pmo, injected_map_failure_over_scattered_pages_rolls_back)
{
	struct fx fx;
	struct fp_ctx fp;
	core_handle_t pmo = 0, adl = 0;
	size_t live;

	memset(&fp, 0, sizeof(fp));
	pmo_defaults(&fx);
	fx_start(&fx);
	fx_pressure(&fx, UINT64_MAX, UINT64_MAX, PG);
	cr_assert_eq(core_pmo_create(fx.core, 0, 4 * PG, CACHE_CACHED, &pmo), 0);
	core_memory(fx.core, &no_pressure);
	cr_assert(fully_scattered(&fx, pmo, 4));
	fp_arm(&fp, FP_IOMMU_MAP, &(struct fp_rule){ .nth = 3 });
	core_set_faults(fx.core, &fp);
	live = core_live_handles(fx.core);
	cr_assert_eq(core_adl_alloc(fx.core, 0, pmo, 0, 4 * PG, &adl), -ENOMEM);
	cr_assert_eq(fp.injected[FP_IOMMU_MAP], 1);
	cr_assert_eq(core_live_handles(fx.core), live);
	for (uint64_t i = 0; i < 4; i++)
		fx_assert_blocked(&fx, 0, fx_iova_of(&fx, pmo, i * PG), "page of the failed ADL");
	cr_assert_eq(core_adl_alloc(fx.core, 0, pmo, 0, 4 * PG, &adl), 0, "retry");
	for (uint64_t i = 0; i < 4; i++)
		fx_assert_reachable(&fx, 0, fx_iova_of(&fx, pmo, i * PG), "page of the ADL");
	cr_assert_eq(core_adl_free(fx.core, 0, adl), 0);
	cr_assert_eq(core_pmo_destroy(fx.core, 0, pmo), 0);
	core_set_faults(fx.core, NULL);
	core_stop(fx.core);
	fx_assert_no_violations(&fx);
	fx_fini(&fx);
}

/*
 * Logical mode: a mapping that fails after its first run gives back both
 * the I/O page-table entries and the logical range (the retry gets the
 * same range and can map it).
 */
Test(pmo, injected_map_failure_in_logical_mode_returns_the_range)
{
	struct fx fx;
	struct fp_ctx fp;
	core_handle_t pmo = 0, adl = 0;
	struct core_adl_info ai;
	iova_t base;

	memset(&fp, 0, sizeof(fp));
	pmo_defaults(&fx);
	fx_need_remap(&fx, 0);
	fx_start(&fx);
	cr_assert_eq(fx_info(&fx, 0).mode, MODE_LOGICAL);
	fx_pressure(&fx, UINT64_MAX, UINT64_MAX, PG);
	cr_assert_eq(core_pmo_create(fx.core, 0, 4 * PG, CACHE_CACHED, &pmo), 0);
	core_memory(fx.core, &no_pressure);
	/* where the range goes */
	cr_assert_eq(core_adl_alloc(fx.core, 0, pmo, 0, 4 * PG, &adl), 0);
	cr_assert_eq(core_adl_info(fx.core, adl, &ai), 0);
	base = ai.base;
	cr_assert_eq(core_adl_free(fx.core, 0, adl), 0);

	fp_arm(&fp, FP_IOMMU_MAP, &(struct fp_rule){ .nth = 2 });
	core_set_faults(fx.core, &fp);
	cr_assert_eq(core_adl_alloc(fx.core, 0, pmo, 0, 4 * PG, &adl), -ENOMEM);
	cr_assert_eq(fp.injected[FP_IOMMU_MAP], 1, "the 2nd run's mapping failed");
	for (uint64_t i = 0; i < 4; i++)
		fx_assert_blocked(&fx, 0, base + i * PG, "logical page of the failed ADL");
	cr_assert_eq(core_adl_alloc(fx.core, 0, pmo, 0, 4 * PG, &adl), 0, "retry");
	cr_assert_eq(core_adl_info(fx.core, adl, &ai), 0);
	cr_assert_eq(ai.base, base, "the failed attempt gave its logical range back");
	cr_assert_eq(fx_dma_write(&fx, 0, 0, adl, 0, 4 * PG, 0x5D), 0);
	cr_assert_eq(core_adl_free(fx.core, 0, adl), 0);
	cr_assert_eq(core_pmo_destroy(fx.core, 0, pmo), 0);
	core_set_faults(fx.core, NULL);
	core_stop(fx.core);
	fx_assert_no_violations(&fx);
	fx_fini(&fx);
}

/* Reference counts over thousands of pages (the count table grows and shrinks). */
Test(pmo, large_overlapping_adls_keep_exact_reference_counts)
{
	struct fx fx;
	core_handle_t pmo = 0, a = 0, b = 0, c = 0;
	const uint64_t n = 3000;
	iova_t *pa = calloc(n, sizeof(*pa));

	cr_assert_not_null(pa);
	pmo_defaults(&fx);
	fx_start(&fx);
	fx_pressure(&fx, UINT64_MAX, UINT64_MAX, 3 * PG); /* many runs */
	cr_assert_eq(core_pmo_create(fx.core, 0, n * PG, CACHE_CACHED, &pmo), 0);
	core_memory(fx.core, &no_pressure);
	for (uint64_t i = 0; i < n; i++)
		pa[i] = fx_iova_of(&fx, pmo, i * PG);
	cr_assert_eq(core_adl_alloc(fx.core, 0, pmo, 0, 2000 * PG, &a), 0);
	cr_assert_eq(core_adl_alloc(fx.core, 0, pmo, 1000 * PG, 2000 * PG, &b), 0);
	cr_assert_eq(core_adl_alloc(fx.core, 0, pmo, 1500 * PG, 100 * PG, &c), 0);
	cr_assert_eq(core_adl_free(fx.core, 0, a), 0);
	for (uint64_t i = 0; i < n; i++) {
		uint8_t reason;
		int rc = fx_probe_write(&fx, 0, pa[i], &reason);

		cr_assert_eq(rc, i < 1000 ? -EFAULT : 0, "page %llu: %d", (unsigned long long)i, rc);
	}
	cr_assert_eq(core_adl_free(fx.core, 0, b), 0);
	for (uint64_t i = 0; i < n; i++) {
		uint8_t reason;
		int rc = fx_probe_write(&fx, 0, pa[i], &reason);
		bool in_c = i >= 1500 && i < 1600;

		cr_assert_eq(rc, in_c ? 0 : -EFAULT, "page %llu: %d", (unsigned long long)i, rc);
	}
	cr_assert_eq(core_adl_free(fx.core, 0, c), 0);
	for (uint64_t i = 1500; i < 1600; i++)
		fx_assert_blocked(&fx, 0, pa[i], "after the last ADL");
	cr_assert_eq(core_pmo_destroy(fx.core, 0, pmo), 0);
	core_stop(fx.core);
	fx_assert_no_violations(&fx);
	fx_fini(&fx);
	free(pa);
}

/*
 * 1:1 mode over 2 MiB-aligned frames: the identity mapping uses 2 MiB leaves,
 * and freeing the ADL that covers more than the other splits them, leaving
 * exactly the other ADL's pages reachable.
 */
Test(pmo, overlapping_adls_over_large_pages_split_them)
{
	struct hw *hw;
	struct fx fx;
	core_handle_t pmo = 0, a = 0, b = 0;
	const uint64_t n = 6 * SZ_2M / PG, first = 256 + 1, last = 3 * 256; /* b: [first, last) */
	struct hw_stats st0, st1;
	iova_t base;

	pmo_defaults(&fx);
	fx_start(&fx);
	hw = core_hw(fx.core);
	cr_assert_eq(core_pmo_create(fx.core, 0, n * PG, CACHE_CACHED, &pmo), 0);
	base = fx_iova_of(&fx, pmo, 0);
	cr_assert(ALIGNED(base, SZ_2M), "a large PMO gets 2 MiB-aligned frames");
	for (uint64_t i = 0; i < n; i++)
		cr_assert_eq(fx_iova_of(&fx, pmo, i * PG), base + i * PG, "contiguous");

	hw->ops->stats(hw, &st0);
	cr_assert_eq(core_adl_alloc(fx.core, 0, pmo, 0, 2 * SZ_2M, &a), 0);
	hw->ops->stats(hw, &st1);
	cr_assert_eq(st1.pte_writes - st0.pte_writes, 2, "two 2 MiB leaves");
	cr_assert_eq(core_adl_alloc(fx.core, 0, pmo, first * PG, (last - first) * PG, &b), 0);
	cr_assert_eq(core_adl_free(fx.core, 0, a), 0);
	for (uint64_t i = 0; i < n; i++) {
		uint8_t reason;
		int rc = fx_probe_write(&fx, 0, base + i * PG, &reason);

		cr_assert_eq(rc, i >= first && i < last ? 0 : -EFAULT, "page %llu: %d",
			     (unsigned long long)i, rc);
	}
	cr_assert_eq(core_adl_free(fx.core, 0, b), 0);
	for (uint64_t i = first; i < last; i++)
		fx_assert_blocked(&fx, 0, base + i * PG, "after both ADLs");
	cr_assert_eq(core_pmo_destroy(fx.core, 0, pmo), 0);
	core_stop(fx.core);
	fx_assert_no_violations(&fx);
	fx_fini(&fx);
}

/*
 * Reference counts per 2 MiB chunk: whole-chunk and partial ADLs over the
 * same chunks, freed in an order that takes a chunk from one count to a
 * count per frame and back. After each free, exactly the pages some live
 * ADL covers are reachable.
 */
Test(pmo, chunks_shared_whole_and_in_part_keep_each_frames_count)
{
	struct fx fx;
	core_handle_t pmo = 0, a = 0, b = 0, c = 0;
	const uint64_t n = 4 * SZ_2M / PG, chunk = SZ_2M / PG;
	struct { uint64_t first, last; } live[3] = {
		{ 0, 2 * chunk },        /* a: chunks 0 and 1 */
		{ 0, chunk },            /* b: chunk 0 */
		{ 100, 200 },            /* c: part of chunk 0 */
	};
	bool up[3] = { true, true, true };
	const core_handle_t *frees[3] = { &c, &a, &b };
	const unsigned int order[3] = { 2, 0, 1 };
	iova_t base;

	pmo_defaults(&fx);
	fx_start(&fx);
	cr_assert_eq(core_pmo_create(fx.core, 0, n * PG, CACHE_CACHED, &pmo), 0);
	base = fx_iova_of(&fx, pmo, 0);
	cr_assert(ALIGNED(base, SZ_2M), "a large PMO gets 2 MiB-aligned frames");
	cr_assert_eq(core_adl_alloc(fx.core, 0, pmo, 0, 2 * SZ_2M, &a), 0);
	cr_assert_eq(core_adl_alloc(fx.core, 0, pmo, 0, SZ_2M, &b), 0);
	cr_assert_eq(core_adl_alloc(fx.core, 0, pmo, 100 * PG, 100 * PG, &c), 0);
	for (unsigned int k = 0; k < 3; k++) {
		cr_assert_eq(core_adl_free(fx.core, 0, *frees[k]), 0);
		up[order[k]] = false;
		for (uint64_t i = 0; i < n; i++) {
			bool mapped = false;
			uint8_t reason;
			int rc;

			for (unsigned int l = 0; l < 3; l++)
				mapped |= up[l] && i >= live[l].first && i < live[l].last;
			rc = fx_probe_write(&fx, 0, base + i * PG, &reason);
			cr_assert_eq(rc, mapped ? 0 : -EFAULT, "after %u frees, page %llu: %d", k + 1,
				     (unsigned long long)i, rc);
		}
	}
	cr_assert_eq(core_pmo_destroy(fx.core, 0, pmo), 0);
	core_stop(fx.core);
	fx_assert_no_violations(&fx);
	fx_fini(&fx);
}
