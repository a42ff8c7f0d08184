/* SPDX-License-Identifier: MIT */
/*
 * VidMm (core/vidmm.c, docs/model.md "VidMm"): allocation placement and the
 * MapApertureCpuVisible / AccessedPhysically rules, aperture mapping through
 * the KMD's paging buffer (MAP_APERTURE_SEGMENT2 with an ADL, or the legacy
 * MDL form), which backing stores are mapped when (system/aperture: for
 * their lifetime; VRAM: only during a paging transfer), monitored fences,
 * and destroy while mapped. A recording KMD wraps the reference one to see
 * every paging operation. Paging transfers: test_vidmm_paging.c.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"

#define PG GPUISO_PAGE_SIZE

static const struct physmem_pressure no_pressure = { UINT64_MAX, UINT64_MAX, UINT64_MAX };

/* --- a KMD that records the paging operations it receives --- */

#define REC_MAX 16

struct rec {
	struct paging_op ops[REC_MAX];
	size_t n;
	int fail_map; /* returned for the next map operation, then cleared */
};

static int rec_build_paging_buffer(struct core *core, void *kmd, unsigned int adapter,
				   const struct paging_op *op)
{
	struct rec *r = kmd;

	if (r->n < REC_MAX)
		r->ops[r->n] = *op;
	r->n++;
	if (op->kind != PAGING_UNMAP_APERTURE && r->fail_map) {
		int rc = r->fail_map;

		r->fail_map = 0;
		return rc;
	}
	return core_kmd_reference()->build_paging_buffer(core, kmd, adapter, op);
}

static const struct kmd_ops rec_ops = { .build_paging_buffer = rec_build_paging_buffer };

static void start_rec(struct fx *fx, struct rec *r)
{
	memset(r, 0, sizeof(*r));
	fx_start_kmd(fx, &rec_ops, r);
	cr_assert(fx_info(fx, 0).started, "%s", fx_info(fx, 0).start_error);
}

/* --- helpers --- */

static void assert_round_trip(struct fx *fx, core_handle_t h, uint64_t len, uint8_t byte)
{
	uint8_t *back = malloc(len);

	cr_assert_not_null(back);
	cr_assert_eq(fx_dma_write(fx, 0, 0, h, 0, len, byte), 0, "DMA write to 0x%x\n%s", h,
		     fx_violation_text(fx));
	memset(back, 0, len);
	cr_assert_eq(fx_dma_read(fx, 0, 0, h, 0, len, back), 0);
	for (uint64_t i = 0; i < len; i++)
		cr_assert_eq(back[i], byte, "byte %llu = %#x", (unsigned long long)i, back[i]);
	free(back);
}

/* --- creation rules --- */

Test(vidmm, cpu_visible_without_map_aperture2_fails_creation)
{
	struct fx fx;
	struct physmem_usage before;
	core_handle_t h = 0;
	size_t live;

	fx_defaults(&fx);
	fx.scn.adapters[0].caps.map_aperture2 = false;
	fx_start(&fx);
	cr_assert_eq(fx_info(&fx, 0).mode, MODE_PHYSICAL);
	before = fx_usage(&fx);
	live = core_live_handles(fx.core);
	cr_assert_eq(core_alloc_create(fx.core, 0, PG, CORE_SEG_APERTURE,
				       ALLOC_ACCESSED_PHYSICALLY | ALLOC_MAP_APERTURE_CPU_VISIBLE, &h),
		     -EINVAL);
	cr_assert_eq(h, 0);
	cr_assert_eq(core_alloc_create(fx.core, 0, PG, CORE_SEG_SYSTEM,
				       ALLOC_MAP_APERTURE_CPU_VISIBLE, &h),
		     -EINVAL);
	cr_assert_eq(core_alloc_create(fx.core, 0, PG, CORE_SEG_VRAM, ALLOC_MAP_APERTURE_CPU_VISIBLE, &h),
		     -EINVAL);
	cr_assert_eq(core_live_handles(fx.core), live);
	cr_assert_eq(fx_usage(&fx).committed, before.committed);
	cr_assert_eq(fx_usage(&fx).locked, before.locked);
	/* the same without the flag is fine */
	cr_assert_eq(
		core_alloc_create(fx.core, 0, PG, CORE_SEG_APERTURE, ALLOC_ACCESSED_PHYSICALLY, &h),
		0);
	cr_assert_eq(core_alloc_destroy(fx.core, 0, h), 0);
	fx_fini(&fx);
}

Test(vidmm, cpu_visible_with_map_aperture2_is_accepted)
{
	struct fx fx;
	core_handle_t h = 0;

	fx_defaults(&fx);
	fx_start(&fx);
	cr_assert_eq(core_alloc_create(fx.core, 0, PG, CORE_SEG_APERTURE,
				       ALLOC_ACCESSED_PHYSICALLY | ALLOC_MAP_APERTURE_CPU_VISIBLE, &h),
		     0);
	cr_assert_eq(core_alloc_segment(fx.core, h), CORE_SEG_APERTURE);
	cr_assert_eq(core_alloc_destroy(fx.core, 0, h), 0);
	fx_assert_no_violations(&fx);
	fx_fini(&fx);
}

Test(vidmm, aperture_without_accessed_physically_goes_to_system_segment)
{
	struct fx fx;
	struct rec rec;
	core_handle_t sys = 0, ap = 0;

	fx_defaults(&fx);
	start_rec(&fx, &rec);
	cr_assert_eq(core_alloc_create(fx.core, 0, 2 * PG, CORE_SEG_APERTURE, 0, &sys), 0);
	cr_assert_eq(core_alloc_segment(fx.core, sys), CORE_SEG_SYSTEM);
	cr_assert_eq(core_alloc_create(fx.core, 0, 2 * PG, CORE_SEG_APERTURE, ALLOC_ACCESSED_PHYSICALLY,
				       &ap), 0);
	cr_assert_eq(core_alloc_segment(fx.core, ap), CORE_SEG_APERTURE);
	cr_assert_eq(core_map_aperture(fx.core, 0, sys, 0, 1), -EINVAL);
	cr_assert_eq(rec.n, 0, "no aperture call for an implicit system-segment allocation");
	cr_assert_eq(core_unmap_aperture(fx.core, 0, sys), -EINVAL);
	cr_assert_eq(rec.n, 0);
	/* still GPU-accessible, as system memory */
	assert_round_trip(&fx, sys, 2 * PG, 0x3A);
	cr_assert_eq(core_alloc_destroy(fx.core, 0, sys), 0);
	cr_assert_eq(rec.n, 0, "no unmap either at destroy");
	cr_assert_eq(core_alloc_destroy(fx.core, 0, ap), 0);
	fx_assert_no_violations(&fx);
	fx_fini(&fx);
}

Test(vidmm, creation_argument_checks)
{
	struct fx fx;
	core_handle_t h = 0, fence = 0;
	size_t live;

	fx_defaults(&fx);
	fx_start(&fx);
	live = core_live_handles(fx.core);
	cr_assert_eq(core_alloc_create(fx.core, 0, 0, CORE_SEG_SYSTEM, 0, &h), -EINVAL);
	cr_assert_eq(core_alloc_create(fx.core, 0, PG, (enum core_segment)3, 0, &h), -EINVAL);
	cr_assert_eq(core_live_handles(fx.core), live);
	cr_assert_eq(core_alloc_segment(fx.core, 0), -EINVAL);
	cr_assert_eq(core_fence_create(fx.core, 0, &fence), 0);
	cr_assert_eq(core_alloc_segment(fx.core, fence), -EINVAL, "a fence is not an allocation");
	cr_assert_eq(core_alloc_destroy(fx.core, 0, fence), -EINVAL);
	cr_assert_eq(fx_violations(&fx, CORE_V_BAD_HANDLE), 1, "%s", fx_violation_text(&fx));
	cr_assert_eq(core_fence_destroy(fx.core, 0, fence), 0);
	cr_assert_eq(core_alloc_create(fx.core, 0, PG, CORE_SEG_SYSTEM, 0, &h), 0);
	cr_assert_eq(core_alloc_destroy(fx.core, 0, h), 0);
	cr_assert_eq(core_alloc_destroy(fx.core, 0, h), -EINVAL, "destroyed twice");
	cr_assert_eq(core_alloc_segment(fx.core, h), -EINVAL, "a destroyed allocation");
	cr_assert_eq(fx_violations(&fx, CORE_V_BAD_HANDLE), 2, "%s", fx_violation_text(&fx));
	fx_fini(&fx);
}

/* --- aperture mapping --- */

Test(vidmm, map_aperture2_cpu_visible)
{
	struct fx fx;
	struct rec rec;
	core_handle_t h = 0;
	size_t live;

	fx_defaults(&fx);
	start_rec(&fx, &rec);
	cr_assert_eq(core_alloc_create(fx.core, 0, 4 * PG, CORE_SEG_APERTURE,
				       ALLOC_ACCESSED_PHYSICALLY | ALLOC_MAP_APERTURE_CPU_VISIBLE, &h),
		     0);
	live = core_live_handles(fx.core);
	cr_assert_eq(core_map_aperture(fx.core, 0, h, 1, 2), 0);
	cr_assert_eq(rec.n, 1);
	cr_assert_eq(rec.ops[0].kind, PAGING_MAP_APERTURE2);
	cr_assert_eq(rec.ops[0].allocation, h);
	cr_assert_eq(rec.ops[0].offset_pages, 1);
	cr_assert_eq(rec.ops[0].pages, 2);
	cr_assert_eq(rec.ops[0].adl_offset, 1, "AdlOffset = OffsetInPages");
	cr_assert_neq(rec.ops[0].cpu_visible_address, 0, "MapApertureCpuVisible: a CPU-visible address is passed");
	cr_assert(!rec.ops[0].adl_logical, "1:1 mode: physical pages");
	cr_assert_eq(core_live_handles(fx.core), live + 1, "the CPU-visible address exists while mapped");
	cr_assert_eq(core_unmap_aperture(fx.core, 0, h), 0);
	cr_assert_eq(rec.n, 2);
	cr_assert_eq(rec.ops[1].kind, PAGING_UNMAP_APERTURE);
	cr_assert_eq(rec.ops[1].allocation, h);
	cr_assert_eq(core_live_handles(fx.core), live, "the CPU-visible address dies with the unmap");
	cr_assert_eq(core_alloc_destroy(fx.core, 0, h), 0);
	cr_assert_eq(rec.n, 2, "nothing more to unmap");
	fx_assert_no_violations(&fx);
	fx_fini(&fx);
}

/* The driver can use CpuVisibleAddress exactly while the allocation is aperture-mapped. */
Test(vidmm, cpu_visible_address_works_until_the_unmap)
{
	uint8_t in[64], out[64];
	struct fx fx;
	struct rec rec;
	core_handle_t h = 0, cpu;

	fx_defaults(&fx);
	start_rec(&fx, &rec);
	cr_assert_eq(core_alloc_create(fx.core, 0, 4 * PG, CORE_SEG_APERTURE,
				       ALLOC_ACCESSED_PHYSICALLY | ALLOC_MAP_APERTURE_CPU_VISIBLE, &h),
		     0);
	cr_assert_eq(core_map_aperture(fx.core, 0, h, 1, 2), 0);
	cpu = rec.ops[0].cpu_visible_address;
	memset(in, 0x3c, sizeof(in));
	/* the address covers the mapped pages: its byte 0 is the allocation's page 1 */
	cr_assert_eq(core_view_rw(fx.core, cpu, 8, in, sizeof(in), true), 0);
	cr_assert_eq(core_view_rw(fx.core, h, PG + 8, out, sizeof(out), false), 0);
	cr_assert_eq(memcmp(in, out, sizeof(in)), 0);
	cr_assert_eq(core_view_rw(fx.core, cpu, 2 * PG - 8, out, 16, false), -ERANGE,
		     "not past the two mapped pages");
	fx_assert_no_violations(&fx);
	cr_assert_eq(core_unmap_aperture(fx.core, 0, h), 0);
	/* freed right after the unmap: a use is a violation */
	cr_assert_eq(core_view_rw(fx.core, cpu, 8, out, sizeof(out), false), -EINVAL);
	cr_assert_eq(fx_violations(&fx, CORE_V_BAD_HANDLE), 1, "%s", fx_violation_text(&fx));
	cr_assert(strstr(fx_violation_text(&fx), "not live"), "%s", fx_violation_text(&fx));
	/* mapped again: a new address, the old one stays dead */
	cr_assert_eq(core_map_aperture(fx.core, 0, h, 0, 1), 0);
	cr_assert_neq(rec.ops[2].cpu_visible_address, 0);
	cr_assert_neq(rec.ops[2].cpu_visible_address, cpu);
	cr_assert_eq(core_view_rw(fx.core, cpu, 0, out, 8, false), -EINVAL);
	cr_assert_eq(core_alloc_destroy(fx.core, 0, h), 0);
	fx_fini(&fx);
}

Test(vidmm, map_aperture2_without_cpu_visible)
{
	struct fx fx;
	struct rec rec;
	core_handle_t h = 0;
	size_t live;

	fx_defaults(&fx);
	start_rec(&fx, &rec);
	cr_assert_eq(core_alloc_create(fx.core, 0, 3 * PG, CORE_SEG_APERTURE,
				       ALLOC_ACCESSED_PHYSICALLY, &h),
		     0);
	live = core_live_handles(fx.core);
	cr_assert_eq(core_map_aperture(fx.core, 0, h, 0, 3), 0);
	cr_assert_eq(rec.n, 1);
	cr_assert_eq(rec.ops[0].kind, PAGING_MAP_APERTURE2);
	cr_assert_eq(rec.ops[0].cpu_visible_address, 0, "no MapApertureCpuVisible: CpuVisibleAddress is NULL");
	cr_assert_eq(rec.ops[0].adl_offset, 0);
	cr_assert_eq(rec.ops[0].pages, 3);
	cr_assert_eq(rec.ops[0].adl_base, fx_iova_of(&fx, h, 0));
	cr_assert_eq(core_live_handles(fx.core), live);
	cr_assert_eq(core_unmap_aperture(fx.core, 0, h), 0);
	cr_assert_eq(rec.ops[1].kind, PAGING_UNMAP_APERTURE);
	cr_assert_eq(core_alloc_destroy(fx.core, 0, h), 0);
	fx_assert_no_violations(&fx);
	fx_fini(&fx);
}

Test(vidmm, legacy_map_aperture_without_map_aperture2)
{
	struct fx fx;
	struct rec rec;
	core_handle_t h = 0;

	fx_defaults(&fx);
	fx.scn.adapters[0].caps.map_aperture2 = false;
	start_rec(&fx, &rec);
	cr_assert_eq(fx_info(&fx, 0).mode, MODE_PHYSICAL);
	cr_assert_eq(core_alloc_create(fx.core, 0, 4 * PG, CORE_SEG_APERTURE,
				       ALLOC_ACCESSED_PHYSICALLY, &h),
		     0);
	cr_assert_eq(core_map_aperture(fx.core, 0, h, 2, 2), 0);
	cr_assert_eq(rec.n, 1);
	cr_assert_eq(rec.ops[0].kind, PAGING_MAP_APERTURE, "the MDL form for a driver without the cap");
	cr_assert_eq(rec.ops[0].allocation, h);
	cr_assert_eq(rec.ops[0].offset_pages, 2);
	cr_assert_eq(rec.ops[0].pages, 2);
	cr_assert_eq(rec.ops[0].cpu_visible_address, 0);
	cr_assert_eq(core_unmap_aperture(fx.core, 0, h), 0);
	cr_assert_eq(rec.n, 2);
	cr_assert_eq(rec.ops[1].kind, PAGING_UNMAP_APERTURE);
	cr_assert_eq(core_alloc_destroy(fx.core, 0, h), 0);
	fx_assert_no_violations(&fx);
	fx_fini(&fx);
}

Test(vidmm, logical_mode_aperture_adl_is_logical_and_contiguous)
{
	struct fx fx;
	struct rec rec;
	core_handle_t h = 0;
	uint64_t limit;

	fx_defaults(&fx);
	fx_need_remap(&fx, 0);
	start_rec(&fx, &rec);
	cr_assert_eq(fx_info(&fx, 0).mode, MODE_LOGICAL);
	limit = fx_info(&fx, 0).logical_limit;
	/* scattered backing store */
	fx_pressure(&fx, UINT64_MAX, UINT64_MAX, PG);
	cr_assert_eq(core_alloc_create(fx.core, 0, 6 * PG, CORE_SEG_APERTURE,
				       ALLOC_ACCESSED_PHYSICALLY, &h),
		     0);
	core_memory(fx.core, &no_pressure);
	cr_assert_eq(core_map_aperture(fx.core, 0, h, 0, 6), 0,
		     "the reference KMD refuses a non-contiguous ADL in logical mode");
	cr_assert_eq(rec.n, 1);
	cr_assert_eq(rec.ops[0].kind, PAGING_MAP_APERTURE2);
	cr_assert(rec.ops[0].adl_logical);
	cr_assert(rec.ops[0].adl_contiguous, "logical mapping: the ADL is always contiguous");
	cr_assert_eq(rec.ops[0].adl_base, fx_iova_of(&fx, h, 0));
	cr_assert_leq(rec.ops[0].adl_base + 6 * PG, limit);
	assert_round_trip(&fx, h, 6 * PG, 0x6C);
	cr_assert_eq(core_unmap_aperture(fx.core, 0, h), 0);
	cr_assert_eq(core_alloc_destroy(fx.core, 0, h), 0);
	fx_assert_no_violations(&fx);
	fx_fini(&fx);
}

Test(vidmm, physical_mode_aperture_adl_reports_scattered_pages)
{
	struct fx fx;
	struct rec rec;
	core_handle_t one = 0, scattered = 0;

	fx_defaults(&fx);
	start_rec(&fx, &rec);
	cr_assert_eq(core_alloc_create(fx.core, 0, 4 * PG, CORE_SEG_APERTURE, ALLOC_ACCESSED_PHYSICALLY,
				       &one), 0);
	fx_pressure(&fx, UINT64_MAX, UINT64_MAX, PG);
	cr_assert_eq(core_alloc_create(fx.core, 0, 4 * PG, CORE_SEG_APERTURE, ALLOC_ACCESSED_PHYSICALLY,
				       &scattered), 0);
	core_memory(fx.core, &no_pressure);
	cr_assert_neq(fx_iova_of(&fx, scattered, PG), fx_iova_of(&fx, scattered, 0) + PG);
	cr_assert_eq(core_map_aperture(fx.core, 0, one, 0, 4), 0);
	cr_assert_eq(core_map_aperture(fx.core, 0, scattered, 0, 4), 0);
	cr_assert_eq(rec.n, 2);
	cr_assert(!rec.ops[0].adl_logical);
	cr_assert(rec.ops[0].adl_contiguous, "one physical run");
	cr_assert(!rec.ops[1].adl_logical);
	cr_assert(!rec.ops[1].adl_contiguous, "scattered physical pages are not contiguous");
	cr_assert_eq(rec.ops[1].adl_base, fx_iova_of(&fx, scattered, 0));
	cr_assert_eq(core_alloc_destroy(fx.core, 0, one), 0);
	cr_assert_eq(core_alloc_destroy(fx.core, 0, scattered), 0);
	fx_assert_no_violations(&fx);
	fx_fini(&fx);
}

/*
 * AdlOffset indexes the ADL: whatever the ADL's first page is, page AdlOffset
 * of it must be the first page being mapped (OffsetInPages of the allocation).
 */
Test(vidmm, map_aperture2_adl_base_and_offset_name_the_first_mapped_page)
{
	struct fx fx;
	struct rec rec;
	core_handle_t h = 0;
	iova_t want;

	fx_defaults(&fx);
	fx_need_remap(&fx, 0);
	start_rec(&fx, &rec);
	cr_assert_eq(core_alloc_create(fx.core, 0, 8 * PG, CORE_SEG_APERTURE,
				       ALLOC_ACCESSED_PHYSICALLY, &h),
		     0);
	cr_assert_eq(core_map_aperture(fx.core, 0, h, 3, 2), 0);
	cr_assert_eq(rec.n, 1);
	cr_assert(rec.ops[0].adl_contiguous);
	cr_assert_eq(rec.ops[0].adl_offset, 3);
	want = fx_iova_of(&fx, h, 3 * PG);
	/* non-fatal: the teardown below still runs when it fails */
	cr_expect_eq(rec.ops[0].adl_base + rec.ops[0].adl_offset * PG, want,
		     "allocation at %#llx: ADL base %#llx + AdlOffset %llu pages = %#llx, "
		     "but the first mapped page (OffsetInPages 3) is at %#llx",
		     (unsigned long long)fx_iova_of(&fx, h, 0), (unsigned long long)rec.ops[0].adl_base,
		     (unsigned long long)rec.ops[0].adl_offset,
		     (unsigned long long)(rec.ops[0].adl_base + rec.ops[0].adl_offset * PG),
		     (unsigned long long)want);
	cr_assert_eq(core_alloc_destroy(fx.core, 0, h), 0);
	fx_fini(&fx);
}

Test(vidmm, double_map_is_busy)
{
	struct fx fx;
	struct rec rec;
	core_handle_t h = 0;

	fx_defaults(&fx);
	start_rec(&fx, &rec);
	cr_assert_eq(core_alloc_create(fx.core, 0, 4 * PG, CORE_SEG_APERTURE,
				       ALLOC_ACCESSED_PHYSICALLY | ALLOC_MAP_APERTURE_CPU_VISIBLE, &h),
		     0);
	cr_assert_eq(core_map_aperture(fx.core, 0, h, 0, 2), 0);
	cr_assert_eq(core_map_aperture(fx.core, 0, h, 0, 2), -EBUSY);
	cr_assert_eq(core_map_aperture(fx.core, 0, h, 2, 2), -EBUSY, "any part: one mapping at a time");
	cr_assert_eq(rec.n, 1, "the KMD saw the first map only");
	cr_assert_eq(core_unmap_aperture(fx.core, 0, h), 0);
	cr_assert_eq(core_unmap_aperture(fx.core, 0, h), -EINVAL, "not mapped any more");
	cr_assert_eq(rec.n, 2);
	cr_assert_eq(core_map_aperture(fx.core, 0, h, 2, 2), 0, "mapped again after the unmap");
	cr_assert_eq(rec.n, 3);
	cr_assert_eq(core_unmap_aperture(fx.core, 0, h), 0);
	cr_assert_eq(core_alloc_destroy(fx.core, 0, h), 0);
	fx_assert_no_violations(&fx);
	fx_fini(&fx);
}

Test(vidmm, map_aperture_range_and_segment_checks)
{
	struct fx fx;
	struct rec rec;
	core_handle_t ap = 0, vram = 0;

	fx_defaults(&fx);
	start_rec(&fx, &rec);
	cr_assert_eq(core_alloc_create(fx.core, 0, 4 * PG, CORE_SEG_APERTURE,
				       ALLOC_ACCESSED_PHYSICALLY, &ap),
		     0);
	cr_assert_eq(core_alloc_create(fx.core, 0, 4 * PG, CORE_SEG_VRAM, ALLOC_ACCESSED_PHYSICALLY,
				       &vram),
		     0);
	cr_assert_eq(core_alloc_segment(fx.core, vram), CORE_SEG_VRAM);
	cr_assert_eq(core_map_aperture(fx.core, 0, ap, 0, 0), -EINVAL, "no pages");
	cr_assert_eq(core_map_aperture(fx.core, 0, ap, 3, 2), -EINVAL, "past the end");
	cr_assert_eq(core_map_aperture(fx.core, 0, ap, 4, 1), -EINVAL, "starts past the end");
	cr_assert_eq(core_map_aperture(fx.core, 0, ap, UINT64_MAX, 2), -EINVAL, "wraps");
	cr_assert_eq(core_map_aperture(fx.core, 0, vram, 0, 1), -EINVAL, "VRAM is no aperture");
	cr_assert_eq(core_map_aperture(fx.core, 0, 0, 0, 1), -EINVAL, "no handle");
	cr_assert_eq(rec.n, 0, "the KMD saw nothing");
	cr_assert_eq(core_map_aperture(fx.core, 0, ap, 3, 1), 0, "the last page alone is fine");
	cr_assert_eq(core_alloc_destroy(fx.core, 0, ap), 0);
	cr_assert_eq(core_alloc_destroy(fx.core, 0, vram), 0);
	fx_fini(&fx);
}

Test(vidmm, kmd_refusing_a_map_leaves_it_unmapped)
{
	struct fx fx;
	struct rec rec;
	core_handle_t h = 0;
	size_t live;

	fx_defaults(&fx);
	start_rec(&fx, &rec);
	cr_assert_eq(core_alloc_create(fx.core, 0, 2 * PG, CORE_SEG_APERTURE,
				       ALLOC_ACCESSED_PHYSICALLY | ALLOC_MAP_APERTURE_CPU_VISIBLE, &h),
		     0);
	live = core_live_handles(fx.core);
	rec.fail_map = -EIO;
	cr_assert_eq(core_map_aperture(fx.core, 0, h, 0, 2), -EIO);
	cr_assert_eq(core_live_handles(fx.core), live, "the CPU-visible address was released");
	cr_assert_eq(core_unmap_aperture(fx.core, 0, h), -EINVAL, "not mapped");
	cr_assert_eq(rec.n, 1, "no unmap for a failed map");
	cr_assert_eq(core_map_aperture(fx.core, 0, h, 0, 2), 0, "not EBUSY: the failed map left nothing");
	cr_assert_eq(core_alloc_destroy(fx.core, 0, h), 0);
	cr_assert_eq(rec.n, 3);
	cr_assert_eq(rec.ops[2].kind, PAGING_UNMAP_APERTURE);
	cr_assert_eq(core_live_handles(fx.core), live - 1);
	fx_fini(&fx);
}

Test(vidmm, destroy_while_aperture_mapped_unmaps_first)
{
	struct fx fx;
	struct rec rec;
	core_handle_t h = 0;
	size_t live;

	fx_defaults(&fx);
	start_rec(&fx, &rec);
	live = core_live_handles(fx.core);
	cr_assert_eq(core_alloc_create(fx.core, 0, 2 * PG, CORE_SEG_APERTURE,
				       ALLOC_ACCESSED_PHYSICALLY | ALLOC_MAP_APERTURE_CPU_VISIBLE, &h),
		     0);
	cr_assert_eq(core_map_aperture(fx.core, 0, h, 0, 2), 0);
	cr_assert_eq(core_alloc_destroy(fx.core, 0, h), 0);
	cr_assert_eq(rec.n, 2);
	cr_assert_eq(rec.ops[0].kind, PAGING_MAP_APERTURE2);
	cr_assert_eq(rec.ops[1].kind, PAGING_UNMAP_APERTURE, "the KMD is told before the memory goes");
	cr_assert_eq(rec.ops[1].allocation, h);
	cr_assert_eq(core_live_handles(fx.core), live, "allocation and CPU-visible address are gone");
	core_stop(fx.core);
	fx_assert_no_violations(&fx);
	fx_fini(&fx);
}

/* --- what is mapped when --- */

static void resident_mapped_for_lifetime(enum core_segment seg, uint32_t flags)
{
	struct fx fx;
	struct physmem_usage base;
	core_handle_t h = 0;
	iova_t first, last;

	fx_defaults(&fx);
	fx_start(&fx);
	base = fx_usage(&fx);
	cr_assert_eq(core_alloc_create(fx.core, 0, 3 * PG, seg, flags, &h), 0);
	cr_assert_eq(fx_usage(&fx).locked, base.locked + 3 * PG, "resident in system memory: locked");
	cr_assert_eq(fx_usage(&fx).committed, base.committed + 3 * PG);
	assert_round_trip(&fx, h, 3 * PG, 0x5E);
	first = fx_iova_of(&fx, h, 0);
	last = fx_iova_of(&fx, h, 2 * PG);
	fx_assert_reachable(&fx, 0, first, "resident allocation");
	cr_assert_eq(core_alloc_destroy(fx.core, 0, h), 0);
	fx_assert_blocked(&fx, 0, first, "destroyed allocation");
	fx_assert_blocked(&fx, 0, last, "destroyed allocation, last page");
	cr_assert_eq(fx_usage(&fx).locked, base.locked);
	cr_assert_eq(fx_usage(&fx).committed, base.committed);
	fx_assert_no_violations(&fx);
	fx_fini(&fx);
}

Test(vidmm, system_allocation_is_mapped_for_its_lifetime)
{
	resident_mapped_for_lifetime(CORE_SEG_SYSTEM, 0);
}

Test(vidmm, aperture_allocation_is_mapped_for_its_lifetime)
{
	resident_mapped_for_lifetime(CORE_SEG_APERTURE, ALLOC_ACCESSED_PHYSICALLY);
}

Test(vidmm, vram_backing_store_is_not_mapped_outside_transfers)
{
	struct fx fx;
	struct physmem_usage base;
	const struct core_fault *f;
	core_handle_t h = 0;
	size_t nf;

	fx_defaults(&fx);
	fx_start(&fx);
	base = fx_usage(&fx);
	cr_assert_eq(core_alloc_create(fx.core, 0, 2 * PG, CORE_SEG_VRAM, 0, &h), 0);
	cr_assert_eq(core_alloc_segment(fx.core, h), CORE_SEG_VRAM);
	cr_assert_eq(fx_usage(&fx).committed, base.committed + 2 * PG, "the backing store is committed");
	cr_assert_eq(fx_usage(&fx).locked, base.locked, "but not locked");
	cr_assert_eq(fx_faults(&fx), 0);
	cr_assert_eq(core_dma(fx.core, 0, 0, h, 0, 64, true), -EFAULT);
	f = core_faults(fx.core, &nf);
	cr_assert_eq(nf, 1, "the blocked DMA is recorded");
	cr_assert_eq(f[0].iova, fx_iova_of(&fx, h, 0));
	cr_assert(f[0].write);
	cr_assert_eq(f[0].reason, HW_FAULT_NO_WRITE);
	cr_assert_eq(f[0].adapter, 0);
	cr_assert_eq(core_dma(fx.core, 0, 0, h, PG, 64, false), -EFAULT);
	cr_assert_eq(fx_faults(&fx), 2);
	cr_assert_eq(core_alloc_destroy(fx.core, 0, h), 0);
	cr_assert_eq(fx_usage(&fx).committed, base.committed);
	fx_assert_no_violations(&fx);
	fx_fini(&fx);
}

/* --- monitored fences --- */

static void fence_lifetime(bool logical)
{
	struct fx fx;
	struct physmem_usage base;
	core_handle_t f = 0;
	iova_t iova;
	uint8_t val[8];

	fx_defaults(&fx);
	if (logical)
		fx_need_remap(&fx, 0);
	fx_start(&fx);
	cr_assert_eq(fx_info(&fx, 0).mode, logical ? MODE_LOGICAL : MODE_PHYSICAL);
	base = fx_usage(&fx);
	cr_assert_eq(core_fence_create(fx.core, 0, &f), 0);
	cr_assert_eq(fx_usage(&fx).locked, base.locked + PG, "one page, locked");
	cr_assert_eq(fx_usage(&fx).committed, base.committed + PG);
	iova = fx_iova_of(&fx, f, 0);
	if (logical)
		cr_assert_lt(iova, fx_info(&fx, 0).logical_limit);
	cr_assert_eq(core_handle_iova(fx.core, f, PG, &iova), -ERANGE, "one page only");
	iova = fx_iova_of(&fx, f, 0);
	cr_assert_eq(fx_dma_write(&fx, 0, 0, f, 0, sizeof(val), 0x07), 0, "%s", fx_violation_text(&fx));
	cr_assert_eq(core_view_rw(fx.core, f, 0, val, sizeof(val), false), 0);
	for (size_t i = 0; i < sizeof(val); i++)
		cr_assert_eq(val[i], 0x07, "the CPU sees the fence value the GPU wrote");
	fx_assert_reachable(&fx, 0, iova, "live fence");
	cr_assert_eq(core_fence_destroy(fx.core, 0, f), 0);
	fx_assert_blocked(&fx, 0, iova, "destroyed fence");
	cr_assert_eq(fx_usage(&fx).locked, base.locked);
	cr_assert_eq(fx_usage(&fx).committed, base.committed);
	cr_assert_eq(core_fence_destroy(fx.core, 0, f), -EINVAL, "destroyed twice");
	cr_assert_eq(fx_violations(&fx, CORE_V_BAD_HANDLE), 1, "%s", fx_violation_text(&fx));
	fx_fini(&fx);
}

Test(vidmm, fence_maps_one_page_for_its_lifetime)
{
	fence_lifetime(false);
}

Test(vidmm, fence_maps_one_page_for_its_lifetime_logical)
{
	fence_lifetime(true);
}

Test(vidmm, leaked_allocations_and_fences_at_teardown)
{
	struct fx fx;
	core_handle_t sys = 0, vram = 0, fence = 0;

	fx_defaults(&fx);
	fx_start(&fx);
	cr_assert_eq(core_alloc_create(fx.core, 0, 2 * PG, CORE_SEG_SYSTEM, 0, &sys), 0);
	cr_assert_eq(core_alloc_create(fx.core, 0, 2 * PG, CORE_SEG_VRAM, 0, &vram), 0);
	cr_assert_eq(core_fence_create(fx.core, 0, &fence), 0);
	core_stop(fx.core);
	cr_assert_eq(fx_violations(&fx, CORE_V_HANDLE_LEAK), 3, "%s", fx_violation_text(&fx));
	cr_assert_eq(fx_violations(&fx, CORE_V_MAPPING_LEAK), 0, "%s", fx_violation_text(&fx));
	cr_assert_eq(core_live_handles(fx.core), 0);
	cr_assert_eq(fx_usage(&fx).locked, 0);
	cr_assert_eq(fx_usage(&fx).committed, 0);
	fx_fini(&fx);
}

/*
 * The CPU-visible address of an aperture mapping is Dxgkrnl's, not a handle
 * the driver was given: a leaked, still-mapped allocation is one leak.
 */
Test(vidmm, leaked_aperture_mapped_allocation_is_one_leak)
{
	struct fx fx;
	struct rec rec;
	core_handle_t h = 0;

	fx_defaults(&fx);
	start_rec(&fx, &rec);
	cr_assert_eq(core_alloc_create(fx.core, 0, 2 * PG, CORE_SEG_APERTURE,
				       ALLOC_ACCESSED_PHYSICALLY | ALLOC_MAP_APERTURE_CPU_VISIBLE, &h),
		     0);
	cr_assert_eq(core_map_aperture(fx.core, 0, h, 0, 2), 0);
	core_stop(fx.core);
	cr_assert_eq(core_live_handles(fx.core), 0);
	cr_assert_eq(fx_usage(&fx).locked, 0);
	cr_expect_eq(fx_violations(&fx, CORE_V_HANDLE_LEAK), 1, "only the allocation leaked:\n%s",
		     fx_violation_text(&fx));
	fx_fini(&fx);
}

/*
 * With the staging key the IOMMU is enabled at the first secure VM: what
 * VidMm keeps resident (system/aperture allocations, fences) is mapped then;
 * a VRAM allocation's backing store is not.
 */
Test(vidmm, enablement_maps_resident_allocations_but_not_vram_backing)
{
	struct fx fx;
	core_handle_t sys = 0, ap = 0, vram = 0, fence = 0;
	iova_t sys_pa, ap_pa, vram_pa, fence_pa;

	fx_defaults(&fx);
	fx.scn.registry.iommu_flags = 0;
	fx.scn.registry.secure_vm_staging = true;
	fx_start(&fx);
	cr_assert(!fx_info(&fx, 0).iommu_enabled);
	cr_assert_eq(core_alloc_create(fx.core, 0, 2 * PG, CORE_SEG_SYSTEM, 0, &sys), 0);
	cr_assert_eq(core_alloc_create(fx.core, 0, 2 * PG, CORE_SEG_APERTURE,
				       ALLOC_ACCESSED_PHYSICALLY, &ap),
		     0);
	cr_assert_eq(core_alloc_create(fx.core, 0, 2 * PG, CORE_SEG_VRAM, 0, &vram), 0);
	cr_assert_eq(core_fence_create(fx.core, 0, &fence), 0);
	sys_pa = fx_iova_of(&fx, sys, 0);
	ap_pa = fx_iova_of(&fx, ap, PG);
	vram_pa = fx_iova_of(&fx, vram, 0);
	fence_pa = fx_iova_of(&fx, fence, 0);
	fx_assert_reachable(&fx, 0, vram_pa, "passthrough before enablement");
	cr_assert_eq(core_secure_vm_create(fx.core, 0), 0);
	cr_assert(fx_info(&fx, 0).attached);
	fx_assert_reachable(&fx, 0, sys_pa, "system-segment allocation");
	fx_assert_reachable(&fx, 0, ap_pa, "aperture-segment allocation");
	fx_assert_reachable(&fx, 0, fence_pa, "fence");
	fx_assert_blocked(&fx, 0, vram_pa, "VRAM allocation's backing store");
	assert_round_trip(&fx, sys, 2 * PG, 0x2E);
	cr_assert_eq(core_transfer(fx.core, 0, vram, TRANSFER_TO_VRAM, 0), 0);
	fx_assert_blocked(&fx, 0, vram_pa, "VRAM backing store after a transfer");
	cr_assert_eq(core_alloc_destroy(fx.core, 0, sys), 0);
	cr_assert_eq(core_alloc_destroy(fx.core, 0, ap), 0);
	cr_assert_eq(core_alloc_destroy(fx.core, 0, vram), 0);
	cr_assert_eq(core_fence_destroy(fx.core, 0, fence), 0);
	fx_assert_blocked(&fx, 0, sys_pa, "destroyed system allocation");
	fx_assert_blocked(&fx, 0, fence_pa, "destroyed fence");
	core_stop(fx.core);
	fx_assert_no_violations(&fx);
	fx_fini(&fx);
}
