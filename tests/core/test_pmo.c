/* SPDX-License-Identifier: MIT */
/*
 * The WDDM 3.0 memory management services (core/pmo.c, docs/model.md
 * "Memory callbacks"): physical memory objects and their open handles, CPU
 * views, ADLs (locked and mapped for their lifetime; logical and contiguous
 * in logical-remap mode, physical pages otherwise), PMO_BUSY, reference
 * counted identity mappings for overlapping ADLs, the IRQL gate, bad
 * handles, leaks, memory pressure and fault injection.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"

#define PG GPUISO_PAGE_SIZE

static const struct physmem_pressure no_pressure = { UINT64_MAX, UINT64_MAX, UINT64_MAX };

/* default.yaml's adapter with a WDDM 3.0 driver: the services are WDDM 3.0's (1:1 mode). */
static void pmo_defaults(struct fx *fx)
{
	fx_defaults(fx);
	fx->scn.adapters[0].wddm = SCN_WDDM(3, 0);
}

/* Device @dev writes 64 bytes at @iova directly through the backend; *reason on a block. */
static int probe_write(struct fx *fx, uint32_t dev, iova_t iova, uint8_t *reason)
{
	struct hw *hw = core_hw(fx->core);
	struct hw_fault f;
	uint8_t buf[64];
	int rc;

	while (!hw->ops->fault_pop(hw, &f))
		;
	memset(buf, 0xEE, sizeof(buf));
	*reason = 0;
	rc = hw->ops->dma(hw, dev, iova, buf, sizeof(buf), true);
	if (rc == -EFAULT) {
		cr_assert_eq(hw->ops->fault_pop(hw, &f), 0, "a blocked DMA queues a fault");
		cr_assert_eq(f.iova, ALIGN_DOWN(iova, PG));
		cr_assert(f.write);
		*reason = f.reason;
	}
	return rc;
}

static void assert_blocked(struct fx *fx, uint32_t dev, iova_t iova, const char *what)
{
	uint8_t reason;

	cr_assert_eq(probe_write(fx, dev, iova, &reason), -EFAULT,
		     "%s: device %u wrote %#llx, the IOMMU should block it", what, dev,
		     (unsigned long long)iova);
	cr_assert_eq(reason, HW_FAULT_NO_WRITE, "%s: fault reason %#x", what, reason);
}

static void assert_reachable(struct fx *fx, uint32_t dev, iova_t iova, const char *what)
{
	uint8_t reason;

	cr_assert_eq(probe_write(fx, dev, iova, &reason), 0,
		     "%s: device %u could not write %#llx (fault reason %#x)", what, dev,
		     (unsigned long long)iova, reason);
}

/* Whether every page of @h (1:1 addresses) is physically apart from the one before. */
static bool fully_scattered(struct fx *fx, core_handle_t h, uint64_t pages)
{
	for (uint64_t i = 1; i < pages; i++)
		if (fx_iova_of(fx, h, i * PG) == fx_iova_of(fx, h, (i - 1) * PG) + PG)
			return false;
	return true;
}

/* Fill a buffer with bytes that differ from page to page and within a page. */
static void fill(uint8_t *buf, uint64_t len, uint8_t seed)
{
	for (uint64_t i = 0; i < len; i++)
		buf[i] = (uint8_t)(seed + i / PG * 31 + i * 7);
}

/* The device of @adapter writes @buf through @h with core_dma (VRAM scratch filled first). */
static int gpu_write(struct fx *fx, uint32_t dev, unsigned int adapter, core_handle_t h,
		     uint64_t off, const uint8_t *buf, uint64_t len)
{
	struct hw *hw = core_hw(fx->core);

	cr_assert_eq(hw->ops->vram_rw(hw, dev, 0, (void *)buf, len, true), 0);
	return core_dma(fx->core, adapter, 0, h, off, len, true);
}

/* --- PMO lifetime --- */

Test(pmo, create_commits_without_locking)
{
	struct fx fx;
	core_handle_t h = 0;
	struct physmem_usage base, now;

	pmo_defaults(&fx);
	fx_start(&fx);
	base = fx_usage(&fx);
	cr_assert_eq(core_pmo_create(fx.core, 0, 3 * PG + 1, CACHE_CACHED, &h), 0);
	cr_assert_neq(h, 0);
	now = fx_usage(&fx);
	cr_assert_eq(now.committed, base.committed + 4 * PG, "rounded up to 4 pages");
	cr_assert_eq(now.allocated, base.allocated + 4 * PG);
	cr_assert_eq(now.locked, base.locked, "a PMO's pages are not locked");
	cr_assert_eq(core_pmo_destroy(fx.core, 0, h), 0);
	fx_assert_usage_eq(fx_usage(&fx), base, "after destroy");
	cr_assert_eq(core_pmo_create(fx.core, 0, 0, CACHE_CACHED, &h), -EINVAL);
	cr_assert_eq(core_pmo_create(fx.core, 9, PG, CACHE_CACHED, &h), -ENODEV);
	fx_assert_no_violations(&fx);
	fx_fini(&fx);
}

Test(pmo, pages_are_gpu_visible_only_through_an_adl)
{
	struct fx fx;
	core_handle_t pmo = 0, adl = 0;
	iova_t pa;

	pmo_defaults(&fx);
	fx_start(&fx);
	cr_assert_eq(core_pmo_create(fx.core, 0, 2 * PG, CACHE_CACHED, &pmo), 0);
	pa = fx_iova_of(&fx, pmo, 0); /* 1:1: the physical address */
	assert_blocked(&fx, 0, pa, "PMO without an ADL");
	cr_assert_eq(core_adl_alloc(fx.core, 0, pmo, 0, 2 * PG, &adl), 0);
	assert_reachable(&fx, 0, pa, "PMO page under an ADL");
	assert_reachable(&fx, 0, fx_iova_of(&fx, pmo, PG), "PMO 2nd page under an ADL");
	cr_assert_eq(core_adl_free(fx.core, 0, adl), 0);
	assert_blocked(&fx, 0, pa, "PMO after its ADL was freed");
	assert_blocked(&fx, 0, fx_iova_of(&fx, pmo, PG), "PMO 2nd page after its ADL was freed");
	cr_assert_eq(core_pmo_destroy(fx.core, 0, pmo), 0);
	fx_assert_no_violations(&fx);
	fx_fini(&fx);
}

Test(pmo, destroy_with_open_handle_is_busy)
{
	struct fx fx;
	core_handle_t pmo = 0, o1 = 0, o2 = 0;

	pmo_defaults(&fx);
	fx_start(&fx);
	cr_assert_eq(core_pmo_create(fx.core, 0, PG, CACHE_CACHED, &pmo), 0);
	cr_assert_eq(core_pmo_open(fx.core, 0, pmo, &o1), 0);
	cr_assert_eq(core_pmo_open(fx.core, 0, pmo, &o2), 0);
	cr_assert_neq(o1, o2);
	cr_assert_eq(core_pmo_destroy(fx.core, 0, pmo), -EBUSY);
	cr_assert_eq(fx_violations(&fx, CORE_V_PMO_BUSY), 1, "%s", fx_violation_text(&fx));
	cr_assert_eq(core_pmo_close(fx.core, 0, o1), 0);
	cr_assert_eq(core_pmo_destroy(fx.core, 0, pmo), -EBUSY, "one open handle is left");
	cr_assert_eq(fx_violations(&fx, CORE_V_PMO_BUSY), 2, "%s", fx_violation_text(&fx));
	cr_assert_eq(core_pmo_close(fx.core, 0, o2), 0);
	cr_assert_eq(core_pmo_destroy(fx.core, 0, pmo), 0, "%s", fx_violation_text(&fx));
	cr_assert_eq(fx_violations(&fx, CORE_V_PMO_BUSY), 2);
	cr_assert_eq(fx_violations(&fx, CORE_V_BAD_HANDLE), 0, "%s", fx_violation_text(&fx));
	fx_fini(&fx);
}

Test(pmo, destroy_with_cpu_view_is_busy)
{
	struct fx fx;
	core_handle_t pmo = 0, view = 0;

	pmo_defaults(&fx);
	fx_start(&fx);
	cr_assert_eq(core_pmo_create(fx.core, 0, 2 * PG, CACHE_WRITECOMBINED, &pmo), 0);
	cr_assert_eq(core_pmo_map_cpu(fx.core, 0, pmo, CPU_KERNEL, PG, PG, &view), 0);
	cr_assert_eq(core_pmo_destroy(fx.core, 0, pmo), -EBUSY);
	cr_assert_eq(fx_violations(&fx, CORE_V_PMO_BUSY), 1, "%s", fx_violation_text(&fx));
	cr_assert_eq(core_pmo_unmap_cpu(fx.core, 0, view), 0);
	cr_assert_eq(core_pmo_destroy(fx.core, 0, pmo), 0, "%s", fx_violation_text(&fx));
	cr_assert_eq(fx_violations(&fx, CORE_V_PMO_BUSY), 1);
	cr_assert_eq(fx_violations(&fx, CORE_V_BAD_HANDLE), 0, "%s", fx_violation_text(&fx));
	fx_fini(&fx);
}

Test(pmo, destroy_with_adl_is_busy_and_keeps_the_pmo_usable)
{
	struct fx fx;
	core_handle_t pmo = 0, adl = 0, view = 0;
	uint8_t in[2 * 4096], out[2 * 4096];

	pmo_defaults(&fx);
	fx_start(&fx);
	cr_assert_eq(core_pmo_create(fx.core, 0, 2 * PG, CACHE_CACHED, &pmo), 0);
	cr_assert_eq(core_adl_alloc(fx.core, 0, pmo, 0, 2 * PG, &adl), 0);
	cr_assert_eq(core_pmo_destroy(fx.core, 0, pmo), -EBUSY);
	cr_assert_eq(fx_violations(&fx, CORE_V_PMO_BUSY), 1, "%s", fx_violation_text(&fx));
	/* the refused destroy left everything in place */
	fill(in, sizeof(in), 9);
	cr_assert_eq(gpu_write(&fx, 0, 0, adl, 0, in, sizeof(in)), 0, "%s", fx_violation_text(&fx));
	cr_assert_eq(core_pmo_map_cpu(fx.core, 0, pmo, CPU_KERNEL, 0, 2 * PG, &view), 0);
	cr_assert_eq(core_view_rw(fx.core, view, 0, out, sizeof(out), false), 0);
	cr_assert_eq(memcmp(in, out, sizeof(in)), 0);
	cr_assert_eq(core_pmo_unmap_cpu(fx.core, 0, view), 0);
	cr_assert_eq(core_adl_free(fx.core, 0, adl), 0);
	cr_assert_eq(core_pmo_destroy(fx.core, 0, pmo), 0, "%s", fx_violation_text(&fx));
	cr_assert_eq(fx_violations(&fx, CORE_V_PMO_BUSY), 1);
	cr_assert_eq(fx_violations(&fx, CORE_V_BAD_HANDLE), 0, "%s", fx_violation_text(&fx));
	fx_fini(&fx);
}

Test(pmo, stale_and_wrong_kind_handles_are_bad)
{
	struct fx fx;
	core_handle_t pmo = 0, open = 0, view = 0, adl = 0, dead = 0, h = 0;
	struct core_adl_info info;
	size_t live, bad = 0;

	pmo_defaults(&fx);
	fx_start(&fx);
	cr_assert_eq(core_pmo_create(fx.core, 0, 2 * PG, CACHE_CACHED, &dead), 0);
	cr_assert_eq(core_pmo_destroy(fx.core, 0, dead), 0);
	cr_assert_eq(core_pmo_create(fx.core, 0, 2 * PG, CACHE_CACHED, &pmo), 0);
	cr_assert_eq(core_pmo_open(fx.core, 0, pmo, &open), 0);
	cr_assert_eq(core_pmo_map_cpu(fx.core, 0, pmo, CPU_KERNEL, 0, PG, &view), 0);
	cr_assert_eq(core_adl_alloc(fx.core, 0, pmo, 0, PG, &adl), 0);
	live = core_live_handles(fx.core);

	/* a destroyed PMO */
	cr_assert_eq(core_pmo_destroy(fx.core, 0, dead), -EINVAL);
	cr_assert_eq(core_pmo_open(fx.core, 0, dead, &h), -EINVAL);
	cr_assert_eq(core_pmo_map_cpu(fx.core, 0, dead, CPU_KERNEL, 0, PG, &h), -EINVAL);
	cr_assert_eq(core_adl_alloc(fx.core, 0, dead, 0, PG, &h), -EINVAL);
	bad += 4;
	cr_assert_eq(fx_violations(&fx, CORE_V_BAD_HANDLE), bad, "%s", fx_violation_text(&fx));
	/* the wrong kind */
	cr_assert_eq(core_pmo_destroy(fx.core, 0, open), -EINVAL);
	cr_assert_eq(core_pmo_close(fx.core, 0, pmo), -EINVAL);
	cr_assert_eq(core_pmo_unmap_cpu(fx.core, 0, adl), -EINVAL);
	cr_assert_eq(core_adl_free(fx.core, 0, view), -EINVAL);
	cr_assert_eq(core_pmo_open(fx.core, 0, open, &h), -EINVAL);
	cr_assert_eq(core_adl_alloc(fx.core, 0, view, 0, PG, &h), -EINVAL);
	cr_assert_eq(core_pmo_map_cpu(fx.core, 0, adl, CPU_KERNEL, 0, PG, &h), -EINVAL);
	bad += 7;
	cr_assert_eq(fx_violations(&fx, CORE_V_BAD_HANDLE), bad, "%s", fx_violation_text(&fx));
	cr_assert_eq(core_live_handles(fx.core), live, "no handle created or freed");
	cr_assert_eq(core_adl_info(fx.core, pmo, &info), -EINVAL, "a PMO is not an ADL");
	cr_assert_eq(core_adl_info(fx.core, 0, &info), -EINVAL);

	/* releasing twice */
	cr_assert_eq(core_pmo_close(fx.core, 0, open), 0);
	cr_assert_eq(core_pmo_close(fx.core, 0, open), -EINVAL);
	cr_assert_eq(core_pmo_unmap_cpu(fx.core, 0, view), 0);
	cr_assert_eq(core_pmo_unmap_cpu(fx.core, 0, view), -EINVAL);
	cr_assert_eq(core_adl_free(fx.core, 0, adl), 0);
	cr_assert_eq(core_adl_free(fx.core, 0, adl), -EINVAL);
	cr_assert_eq(core_adl_info(fx.core, adl, &info), -EINVAL, "a freed ADL");
	bad += 3;
	cr_assert_eq(fx_violations(&fx, CORE_V_BAD_HANDLE), bad, "%s", fx_violation_text(&fx));
	/* the second release of each did not touch the PMO's counts */
	cr_assert_eq(core_pmo_destroy(fx.core, 0, pmo), 0, "%s", fx_violation_text(&fx));
	cr_assert_eq(fx_violations(&fx, CORE_V_PMO_BUSY), 0);
	fx_fini(&fx);
}

Test(pmo, other_adapters_pmo_is_a_bad_handle)
{
	struct fx fx;
	core_handle_t pmo = 0, h = 0;

	pmo_defaults(&fx);
	cr_assert_eq(fx_add_adapter(&fx, "gpu1"), 1);
	fx_start(&fx);
	cr_assert_eq(core_pmo_create(fx.core, 0, PG, CACHE_CACHED, &pmo), 0);
	cr_assert_eq(core_adl_alloc(fx.core, 1, pmo, 0, PG, &h), -EINVAL);
	cr_assert_eq(core_pmo_map_cpu(fx.core, 1, pmo, CPU_KERNEL, 0, PG, &h), -EINVAL);
	cr_assert_eq(core_pmo_open(fx.core, 1, pmo, &h), -EINVAL);
	cr_assert_eq(core_pmo_destroy(fx.core, 1, pmo), -EINVAL);
	cr_assert_eq(fx_violations(&fx, CORE_V_BAD_HANDLE), 4, "%s", fx_violation_text(&fx));
	cr_assert_eq(core_pmo_destroy(fx.core, 0, pmo), 0, "%s", fx_violation_text(&fx));
	fx_fini(&fx);
}

/* --- CPU views --- */

/*
 * core_cpu_access(): what a trace's cpu_access does. A write lands where
 * the CPU address maps (the memory behind a view is the PMO's), a handle of
 * another adapter is a bad handle, an ADL none, nothing is touched outside.
 */
Test(pmo, cpu_access_writes_through_the_address_it_names)
{
	struct fx fx;
	core_handle_t pmo = 0, view = 0, adl = 0, other = 0;
	uint8_t out[PG], want[PG];

	pmo_defaults(&fx);
	cr_assert_eq(fx_add_adapter(&fx, "gpu1"), 1);
	fx_start(&fx);
	cr_assert_eq(core_pmo_create(fx.core, 0, 2 * PG, CACHE_WRITECOMBINED, &pmo), 0);
	cr_assert_eq(core_pmo_map_cpu(fx.core, 0, pmo, CPU_USER, PG, PG, &view), 0);
	cr_assert_eq(core_adl_alloc(fx.core, 0, pmo, 0, 2 * PG, &adl), 0);
	core_set_event(fx.core, 7, 700, NULL);
	cr_assert_eq(core_cpu_access(fx.core, 0, view, 16, 32, true), 0);
	cr_assert_eq(core_pmo_map_cpu(fx.core, 0, pmo, CPU_KERNEL, 0, 2 * PG, &other), 0);
	cr_assert_eq(core_view_rw(fx.core, other, PG, out, PG, false), 0);
	memset(want, 0, sizeof(want));
	memset(want + 16, 0xa5 ^ 7, 32);
	cr_assert_eq(memcmp(out, want, PG), 0, "the event's mark at bytes 16..47 of page 1, nothing else");
	cr_assert_eq(core_cpu_access(fx.core, 0, view, 0, 0, false), -EINVAL, "no bytes");
	cr_assert_eq(core_cpu_access(fx.core, 0, view, PG - 8, 16, false), -ERANGE);
	cr_assert_eq(fx_violations(&fx, CORE_V_CPU_ACCESS) + fx_violations(&fx, CORE_V_BAD_HANDLE), 0);
	cr_assert_eq(core_cpu_access(fx.core, 1, view, 0, 8, false), -EINVAL, "gpu0's view");
	cr_assert_eq(fx_violations(&fx, CORE_V_BAD_HANDLE), 1, "%s", fx_violation_text(&fx));
	cr_assert_eq(core_cpu_access(fx.core, 0, adl, 0, 8, true), -EPERM);
	cr_assert_eq(fx_violations(&fx, CORE_V_CPU_ACCESS), 1, "%s", fx_violation_text(&fx));
	cr_assert_eq(core_pmo_unmap_cpu(fx.core, 0, other), 0);
	cr_assert_eq(core_pmo_unmap_cpu(fx.core, 0, view), 0);
	cr_assert_eq(core_adl_free(fx.core, 0, adl), 0);
	cr_assert_eq(core_pmo_destroy(fx.core, 0, pmo), 0);
	fx_fini(&fx);
}

Test(pmo, cpu_view_round_trip)
{
	struct fx fx;
	core_handle_t pmo = 0, all = 0, part = 0, h = 0;
	uint8_t in[4 * 4096], out[4 * 4096], one[100];
	size_t live;

	pmo_defaults(&fx);
	fx_start(&fx);
	cr_assert_eq(core_pmo_create(fx.core, 0, 4 * PG, CACHE_CACHED, &pmo), 0);
	cr_assert_eq(core_pmo_map_cpu(fx.core, 0, pmo, CPU_KERNEL, 0, 4 * PG, &all), 0);
	fill(in, sizeof(in), 1);
	cr_assert_eq(core_view_rw(fx.core, all, 0, in, sizeof(in), true), 0);
	memset(out, 0, sizeof(out));
	cr_assert_eq(core_view_rw(fx.core, all, 0, out, sizeof(out), false), 0);
	cr_assert_eq(memcmp(in, out, sizeof(in)), 0);
	/* a view of page 2 sees the same bytes at its offset 0 */
	cr_assert_eq(core_pmo_map_cpu(fx.core, 0, pmo, CPU_KERNEL, 2 * PG, PG, &part), 0);
	cr_assert_eq(core_view_rw(fx.core, part, 0, out, PG, false), 0);
	cr_assert_eq(memcmp(out, in + 2 * PG, PG), 0);
	memset(one, 0xAB, sizeof(one));
	cr_assert_eq(core_view_rw(fx.core, part, 50, one, sizeof(one), true), 0);
	cr_assert_eq(core_view_rw(fx.core, all, 2 * PG + 50, out, sizeof(one), false), 0);
	cr_assert_eq(memcmp(out, one, sizeof(one)), 0);
	/* not past the view's end */
	cr_assert_eq(core_view_rw(fx.core, part, PG - 10, one, 20, false), -ERANGE);
	/* views outside the PMO, or empty, are refused and create nothing */
	live = core_live_handles(fx.core);
	cr_assert_neq(core_pmo_map_cpu(fx.core, 0, pmo, CPU_KERNEL, 4 * PG, PG, &h), 0);
	cr_assert_neq(core_pmo_map_cpu(fx.core, 0, pmo, CPU_KERNEL, 3 * PG, 2 * PG, &h), 0);
	cr_assert_neq(core_pmo_map_cpu(fx.core, 0, pmo, CPU_KERNEL, 3 * PG + 100, PG, &h), 0);
	cr_assert_neq(core_pmo_map_cpu(fx.core, 0, pmo, CPU_KERNEL, 0, 0, &h), 0);
	cr_assert_neq(core_pmo_map_cpu(fx.core, 0, pmo, (enum cpu_access)2, 0, PG, &h), 0);
	cr_assert_eq(core_live_handles(fx.core), live);
	/* an unaligned request maps the pages around it and says where the data starts */
	struct core_view_info vi;

	cr_assert_eq(core_pmo_map_cpu(fx.core, 0, pmo, CPU_USER, PG + 100, PG, &h), 0);
	cr_assert_eq(core_view_info(fx.core, h, &vi), 0);
	cr_assert_eq(vi.start, 100);
	cr_assert_eq(vi.bytes, 2 * PG, "pages 1 and 2 hold [PG + 100, 2 PG + 100)");
	cr_assert_eq(vi.mode, CPU_USER);
	cr_assert_eq(core_view_rw(fx.core, h, vi.start, out, 8, false), 0);
	cr_assert_eq(memcmp(out, in + PG + 100, 8), 0);
	cr_assert_eq(core_pmo_unmap_cpu(fx.core, 0, h), 0);
	cr_assert_eq(core_pmo_unmap_cpu(fx.core, 0, part), 0);
	cr_assert_eq(core_pmo_unmap_cpu(fx.core, 0, all), 0);
	/* refused views were not counted against the PMO */
	cr_assert_eq(core_pmo_destroy(fx.core, 0, pmo), 0, "%s", fx_violation_text(&fx));
	fx_assert_no_violations(&fx);
	fx_fini(&fx);
}

/* "The addresses described by an ADL can't be mapped ... for direct CPU access." */
static void no_cpu_access_through(bool need_remap)
{
	struct fx fx;
	core_handle_t pmo = 0, adl = 0, view = 0;
	uint8_t buf[16] = { 0 };

	pmo_defaults(&fx);
	if (need_remap)
		fx_need_remap(&fx, 0);
	fx_start(&fx);
	cr_assert_eq(core_pmo_create(fx.core, 0, PG, CACHE_CACHED, &pmo), 0);
	cr_assert_eq(core_adl_alloc(fx.core, 0, pmo, 0, PG, &adl), 0);
	cr_assert_eq(core_pmo_map_cpu(fx.core, 0, pmo, CPU_KERNEL, 0, PG, &view), 0);
	cr_assert_eq(core_view_rw(fx.core, adl, 0, buf, sizeof(buf), false), -EPERM);
	cr_assert_eq(fx_violations(&fx, CORE_V_CPU_ACCESS), 1, "%s", fx_violation_text(&fx));
	cr_assert(strstr(fx_violation_text(&fx), "ADL"), "%s", fx_violation_text(&fx));
	cr_assert_eq(core_view_copy(fx.core, view, 0, adl, 0, sizeof(buf)), -EPERM);
	cr_assert_eq(core_view_copy(fx.core, adl, 0, view, 0, sizeof(buf)), -EPERM);
	/* nor through the PMO itself: it has no CPU address until a view maps it */
	cr_assert_eq(core_view_rw(fx.core, pmo, 0, buf, sizeof(buf), true), -EPERM);
	cr_assert_eq(fx_violations(&fx, CORE_V_CPU_ACCESS), 4, "%s", fx_violation_text(&fx));
	/* the view works */
	cr_assert_eq(core_view_rw(fx.core, view, 0, buf, sizeof(buf), true), 0);
	cr_assert_eq(fx_violations(&fx, CORE_V_CPU_ACCESS), 4);
	cr_assert_eq(core_pmo_unmap_cpu(fx.core, 0, view), 0);
	cr_assert_eq(core_adl_free(fx.core, 0, adl), 0);
	cr_assert_eq(core_pmo_destroy(fx.core, 0, pmo), 0);
	fx_fini(&fx);
}

Test(pmo, no_cpu_access_through_an_adl_or_a_pmo_in_logical_mode)
{
	no_cpu_access_through(true);
}

Test(pmo, no_cpu_access_through_an_adl_or_a_pmo_in_physical_mode)
{
	no_cpu_access_through(false);
}

Test(pmo, gpu_sees_the_cpu_view_through_an_adl)
{
	struct fx fx;
	core_handle_t pmo = 0, view = 0, adl = 0, adl2 = 0;
	uint8_t in[3 * 4096], out[3 * 4096];

	pmo_defaults(&fx);
	fx_start(&fx);
	cr_assert_eq(core_pmo_create(fx.core, 0, 4 * PG, CACHE_CACHED, &pmo), 0);
	cr_assert_eq(core_pmo_map_cpu(fx.core, 0, pmo, CPU_KERNEL, 0, 4 * PG, &view), 0);
	cr_assert_eq(core_adl_alloc(fx.core, 0, pmo, 0, 4 * PG, &adl), 0);
	/* CPU -> GPU */
	fill(in, sizeof(in), 0x21);
	cr_assert_eq(core_view_rw(fx.core, view, PG, in, sizeof(in), true), 0);
	memset(out, 0, sizeof(out));
	cr_assert_eq(fx_dma_read(&fx, 0, 0, adl, PG, sizeof(out), out), 0, "%s",
		     fx_violation_text(&fx));
	cr_assert_eq(memcmp(in, out, sizeof(in)), 0, "the GPU reads what the CPU wrote");
	/* GPU -> CPU */
	cr_assert_eq(fx_dma_write(&fx, 0, 0, adl, 0, 2 * PG, 0x7E), 0);
	cr_assert_eq(core_view_rw(fx.core, view, 0, out, 2 * PG, false), 0);
	for (size_t i = 0; i < 2 * PG; i++)
		cr_assert_eq(out[i], 0x7E, "byte %zu = %#x", i, out[i]);
	/* an ADL over part of the PMO starts at its offset */
	cr_assert_eq(core_adl_alloc(fx.core, 0, pmo, 3 * PG, PG, &adl2), 0);
	cr_assert_eq(fx_dma_read(&fx, 0, 0, adl2, 0, PG, out), 0);
	cr_assert_eq(memcmp(out, in + 2 * PG, PG), 0, "ADL at page 3 = view page 3");
	cr_assert_eq(core_dma(fx.core, 0, 0, adl2, 0, 2 * PG, false), -ERANGE, "past the ADL");
	cr_assert_eq(core_adl_free(fx.core, 0, adl2), 0);
	cr_assert_eq(core_adl_free(fx.core, 0, adl), 0);
	cr_assert_eq(core_pmo_unmap_cpu(fx.core, 0, view), 0);
	cr_assert_eq(core_pmo_destroy(fx.core, 0, pmo), 0);
	fx_assert_no_violations(&fx);
	fx_fini(&fx);
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
	assert_reachable(&fx, 0, ai.base + 7 * PG, "last logical page");
	assert_blocked(&fx, 0, ai.base + 8 * PG, "one page past the ADL");

	cr_assert_eq(core_pmo_unmap_cpu(fx.core, 0, view), 0);
	cr_assert_eq(core_adl_free(fx.core, 0, adl), 0);
	assert_blocked(&fx, 0, ai.base, "logical range of a freed ADL");
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
	assert_blocked(&fx, 0, pa[0], "page 0 (only in A)");
	assert_blocked(&fx, 0, pa[1], "page 1 (only in A)");
	for (int i = 2; i < 6; i++)
		assert_reachable(&fx, 0, pa[i], "page still under B");
	cr_assert_eq(fx_dma_write(&fx, 0, 0, b, 0, 4 * PG, 0x1C), 0, "%s", fx_violation_text(&fx));
	cr_assert_eq(fx_dma_read(&fx, 0, 0, b, 0, 4 * PG, out), 0);
	for (size_t i = 0; i < sizeof(out); i++)
		cr_assert_eq(out[i], 0x1C, "byte %zu = %#x", i, out[i]);
	cr_assert_eq(core_adl_free(fx.core, 0, b), 0);
	for (int i = 0; i < 6; i++)
		assert_blocked(&fx, 0, pa[i], "page after both ADLs were freed");
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
	assert_reachable(&fx, 0, pa, "A still holds it");
	assert_reachable(&fx, 0, pa + PG, "A still holds it, page 2");
	cr_assert_eq(core_adl_free(fx.core, 0, a), 0);
	assert_blocked(&fx, 0, pa, "no ADL left");
	cr_assert_eq(core_pmo_destroy(fx.core, 0, pmo), 0);
	fx_assert_no_violations(&fx);
	fx_fini(&fx);
}

/* --- IRQL --- */

Test(pmo, services_at_dispatch_are_violations_before_wddm32)
{
	struct fx fx;
	core_handle_t pmo = 0, open = 0, view = 0, adl = 0, h = 0;
	size_t live;

	pmo_defaults(&fx);
	fx_start(&fx);
	cr_assert_eq(core_pmo_create(fx.core, 0, 2 * PG, CACHE_CACHED, &pmo), 0);
	cr_assert_eq(core_pmo_open(fx.core, 0, pmo, &open), 0);
	cr_assert_eq(core_pmo_map_cpu(fx.core, 0, pmo, CPU_KERNEL, 0, PG, &view), 0);
	cr_assert_eq(core_adl_alloc(fx.core, 0, pmo, 0, PG, &adl), 0);
	live = core_live_handles(fx.core);
	/* WDDM 3.0 does not validate the IRQL: each call is a violation, and goes on */
	core_set_irql(fx.core, CORE_IRQL_DISPATCH);
	cr_assert_eq(core_pmo_create(fx.core, 0, PG, CACHE_CACHED, &h), 0);
	cr_assert_eq(core_pmo_destroy(fx.core, 0, h), 0);
	cr_assert_eq(core_pmo_open(fx.core, 0, pmo, &h), 0);
	cr_assert_eq(core_pmo_close(fx.core, 0, h), 0);
	cr_assert_eq(core_pmo_map_cpu(fx.core, 0, pmo, CPU_KERNEL, 0, PG, &h), 0);
	cr_assert_eq(core_pmo_unmap_cpu(fx.core, 0, h), 0);
	cr_assert_eq(core_adl_alloc(fx.core, 0, pmo, 0, PG, &h), 0);
	cr_assert_eq(core_adl_free(fx.core, 0, h), 0);
	cr_assert_eq(fx_violations(&fx, CORE_V_CB_IRQL), 8, "%s", fx_violation_text(&fx));
	cr_assert_eq(core_live_handles(fx.core), live);
	/* APC_LEVEL is allowed */
	core_set_irql(fx.core, CORE_IRQL_APC);
	cr_assert_eq(core_adl_free(fx.core, 0, adl), 0);
	cr_assert_eq(core_pmo_unmap_cpu(fx.core, 0, view), 0);
	cr_assert_eq(core_pmo_close(fx.core, 0, open), 0);
	cr_assert_eq(core_pmo_destroy(fx.core, 0, pmo), 0, "%s", fx_violation_text(&fx));
	core_set_irql(fx.core, CORE_IRQL_PASSIVE);
	cr_assert_eq(fx_violations(&fx, CORE_V_CB_IRQL), 8);
	cr_assert_eq(fx_violations(&fx, CORE_V_BAD_HANDLE) + fx_violations(&fx, CORE_V_PMO_BUSY), 0, "%s",
		     fx_violation_text(&fx));
	fx_fini(&fx);
}

/* --- teardown --- */

Test(pmo, leaks_are_reported_at_teardown_in_dependency_order)
{
	struct fx fx;
	core_handle_t pmo = 0, open = 0, view = 0, adl = 0, clean = 0;

	pmo_defaults(&fx);
	fx_start(&fx);
	cr_assert_eq(core_pmo_create(fx.core, 0, 4 * PG, CACHE_CACHED, &pmo), 0);
	cr_assert_eq(core_pmo_open(fx.core, 0, pmo, &open), 0);
	cr_assert_eq(core_pmo_map_cpu(fx.core, 0, pmo, CPU_KERNEL, 0, PG, &view), 0);
	cr_assert_eq(core_adl_alloc(fx.core, 0, pmo, PG, 2 * PG, &adl), 0);
	cr_assert_eq(core_pmo_create(fx.core, 0, PG, CACHE_CACHED, &clean), 0);
	cr_assert_eq(core_pmo_destroy(fx.core, 0, clean), 0);
	core_stop(fx.core);
	cr_assert_eq(fx_violations(&fx, CORE_V_HANDLE_LEAK), 4, "PMO, open, view, ADL:\n%s",
		     fx_violation_text(&fx));
	cr_assert_eq(fx_violations(&fx, CORE_V_PMO_BUSY), 0, "teardown frees children first:\n%s",
		     fx_violation_text(&fx));
	cr_assert_eq(fx_violations(&fx, CORE_V_MAPPING_LEAK), 0, "%s", fx_violation_text(&fx));
	cr_assert_eq(core_live_handles(fx.core), 0);
	cr_assert_eq(fx_usage(&fx).locked, 0);
	cr_assert_eq(fx_usage(&fx).committed, 0);
	cr_assert_eq(fx_usage(&fx).allocated, 0);
	fx_fini(&fx);
}

Test(pmo, logical_mode_leak_returns_everything)
{
	struct fx fx;
	core_handle_t pmo = 0, adl = 0;

	pmo_defaults(&fx);
	fx_need_remap(&fx, 0);
	fx_start(&fx);
	cr_assert_eq(fx_info(&fx, 0).mode, MODE_LOGICAL);
	cr_assert_eq(core_pmo_create(fx.core, 0, 3 * PG, CACHE_CACHED, &pmo), 0);
	cr_assert_eq(core_adl_alloc(fx.core, 0, pmo, 0, 3 * PG, &adl), 0);
	core_stop(fx.core);
	cr_assert_eq(fx_violations(&fx, CORE_V_HANDLE_LEAK), 2, "%s", fx_violation_text(&fx));
	cr_assert_eq(fx_violations(&fx, CORE_V_MAPPING_LEAK), 0, "%s", fx_violation_text(&fx));
	cr_assert_eq(fx_usage(&fx).locked, 0);
	cr_assert_eq(fx_usage(&fx).committed, 0);
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
	assert_blocked(&fx, 0, fx_iova_of(&fx, pmo, 0), "pages of the refused ADL");
	cr_assert_eq(core_adl_alloc(fx.core, 0, pmo, 0, 2 * PG, &h), 0, "2 pages fit");
	cr_assert_eq(core_adl_free(fx.core, 0, h), 0);
	core_memory(fx.core, &no_pressure);
	cr_assert_eq(core_pmo_destroy(fx.core, 0, pmo), 0, "%s", fx_violation_text(&fx));
	fx_assert_no_violations(&fx);
	fx_fini(&fx);
}

Test(pmo, commit_pressure_fails_pmo_create_and_leaves_nothing)
{
	struct fx fx;
	core_handle_t h = 0;
	struct physmem_usage base;
	size_t live;

	pmo_defaults(&fx);
	fx_start(&fx);
	fx_pressure(&fx, 3 * PG, UINT64_MAX, UINT64_MAX);
	base = fx_usage(&fx);
	live = core_live_handles(fx.core);
	cr_assert_eq(core_pmo_create(fx.core, 0, 4 * PG, CACHE_CACHED, &h), -ENOMEM);
	cr_assert_eq(h, 0);
	cr_assert_eq(core_live_handles(fx.core), live);
	fx_assert_usage_eq(fx_usage(&fx), base, "after the refused PMO");
	cr_assert_eq(core_pmo_create(fx.core, 0, 3 * PG, CACHE_CACHED, &h), 0);
	cr_assert_eq(core_pmo_destroy(fx.core, 0, h), 0);
	core_memory(fx.core, &no_pressure);
	fx_fini(&fx);
}

Test(pmo, injected_failures_hit_only_the_nth_call)
{
	struct fx fx;
	struct fp_ctx fp;
	core_handle_t pmo = 0, adl = 0;
	struct physmem_usage base;
	size_t live;

	memset(&fp, 0, sizeof(fp));
	pmo_defaults(&fx);
	fx_start(&fx);
	fp_arm(&fp, FP_MEM_PMO_CREATE, &(struct fp_rule){ .nth = 1 });
	fp_arm(&fp, FP_MEM_ADL_ALLOC, &(struct fp_rule){ .nth = 1 });
	core_set_faults(fx.core, &fp);
	base = fx_usage(&fx);
	live = core_live_handles(fx.core);
	cr_assert_eq(core_pmo_create(fx.core, 0, 2 * PG, CACHE_CACHED, &pmo), -ENOMEM);
	cr_assert_eq(core_live_handles(fx.core), live);
	fx_assert_usage_eq(fx_usage(&fx), base, "after the injected PMO failure");
	cr_assert_eq(core_pmo_create(fx.core, 0, 2 * PG, CACHE_CACHED, &pmo), 0);
	base = fx_usage(&fx);
	live = core_live_handles(fx.core);
	cr_assert_eq(core_adl_alloc(fx.core, 0, pmo, 0, 2 * PG, &adl), -ENOMEM);
	cr_assert_eq(core_live_handles(fx.core), live);
	fx_assert_usage_eq(fx_usage(&fx), base, "after the injected ADL failure");
	cr_assert_eq(core_adl_alloc(fx.core, 0, pmo, 0, 2 * PG, &adl), 0);
	cr_assert_eq(fp.injected[FP_MEM_PMO_CREATE], 1);
	cr_assert_eq(fp.injected[FP_MEM_ADL_ALLOC], 1);
	cr_assert_eq(fx_dma_write(&fx, 0, 0, adl, 0, 2 * PG, 0x0F), 0);
	cr_assert_eq(core_adl_free(fx.core, 0, adl), 0);
	cr_assert_eq(core_pmo_destroy(fx.core, 0, pmo), 0, "%s", fx_violation_text(&fx));
	core_set_faults(fx.core, NULL);
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
		assert_blocked(&fx, 0, fx_iova_of(&fx, pmo, i * PG), "page of the failed ADL");
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
		assert_blocked(&fx, 0, fx_iova_of(&fx, pmo, i * PG), "page of the failed ADL");
	cr_assert_eq(core_adl_alloc(fx.core, 0, pmo, 0, 4 * PG, &adl), 0, "retry");
	for (uint64_t i = 0; i < 4; i++)
		assert_reachable(&fx, 0, fx_iova_of(&fx, pmo, i * PG), "page of the ADL");
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
		assert_blocked(&fx, 0, base + i * PG, "logical page of the failed ADL");
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
		int rc = probe_write(&fx, 0, pa[i], &reason);

		cr_assert_eq(rc, i < 1000 ? -EFAULT : 0, "page %llu: %d", (unsigned long long)i, rc);
	}
	cr_assert_eq(core_adl_free(fx.core, 0, b), 0);
	for (uint64_t i = 0; i < n; i++) {
		uint8_t reason;
		int rc = probe_write(&fx, 0, pa[i], &reason);
		bool in_c = i >= 1500 && i < 1600;

		cr_assert_eq(rc, in_c ? 0 : -EFAULT, "page %llu: %d", (unsigned long long)i, rc);
	}
	cr_assert_eq(core_adl_free(fx.core, 0, c), 0);
	for (uint64_t i = 1500; i < 1600; i++)
		assert_blocked(&fx, 0, pa[i], "after the last ADL");
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
		int rc = probe_write(&fx, 0, base + i * PG, &reason);

		cr_assert_eq(rc, i >= first && i < last ? 0 : -EFAULT, "page %llu: %d",
			     (unsigned long long)i, rc);
	}
	cr_assert_eq(core_adl_free(fx.core, 0, b), 0);
	for (uint64_t i = first; i < last; i++)
		assert_blocked(&fx, 0, base + i * PG, "after both ADLs");
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
			rc = probe_write(&fx, 0, base + i * PG, &reason);
			cr_assert_eq(rc, mapped ? 0 : -EFAULT, "after %u frees, page %llu: %d", k + 1,
				     (unsigned long long)i, rc);
		}
	}
	cr_assert_eq(core_pmo_destroy(fx.core, 0, pmo), 0);
	core_stop(fx.core);
	fx_assert_no_violations(&fx);
	fx_fini(&fx);
}

/*
 * "The following table lists the DDIs and associated input structures
 * introduced to describe physical memory allocation and mapping of
 * logical/virtual views" (WDDM 3.0): a driver of an earlier version has
 * none of them. Each is refused with CB_VERSION, before its handle is
 * judged; a WDDM 3.0 driver without linear remapping has both sets.
 */
Test(pmo, the_services_are_refused_to_a_driver_before_wddm30)
{
	core_handle_t h = 0, mdl;
	struct fx fx;

	fx_defaults(&fx); /* WDDM 2.9 */
	fx_start(&fx);
	cr_assert_eq(core_pmo_create(fx.core, 0, PG, CACHE_CACHED, &h), -EPERM);
	cr_assert_eq(core_pmo_create_io(fx.core, 0, 0xF0000000ull, PG, CACHE_NONCACHED, &h), -EPERM);
	cr_assert_eq(core_pmo_destroy(fx.core, 0, 0x123), -EPERM);
	cr_assert_eq(core_pmo_open(fx.core, 0, 0x123, &h), -EPERM);
	cr_assert_eq(core_pmo_close(fx.core, 0, 0x123), -EPERM);
	cr_assert_eq(core_pmo_map_cpu(fx.core, 0, 0x123, CPU_KERNEL, 0, PG, &h), -EPERM);
	cr_assert_eq(core_pmo_unmap_cpu(fx.core, 0, 0x123), -EPERM);
	cr_assert_eq(core_adl_alloc(fx.core, 0, 0x123, 0, PG, &h), -EPERM);
	cr_assert_eq(core_adl_free(fx.core, 0, 0x123), -EPERM);
	cr_assert_eq(fx_violations(&fx, CORE_V_CB_VERSION), 9, "%s", fx_violation_text(&fx));
	cr_assert_eq(fx_violations(&fx, CORE_V_BAD_HANDLE), 0, "%s", fx_violation_text(&fx));
	cr_assert(strstr(fx_violation_text(&fx), "WDDM 2.9"), "%s", fx_violation_text(&fx));
	/* the WDDM 2.4 callbacks are its own */
	cr_assert_eq(core_alloc_mdl(fx.core, 0, PG, &mdl), 0);
	cr_assert_eq(core_free_mdl(fx.core, 0, mdl), 0);
	fx_fini(&fx);

	pmo_defaults(&fx); /* WDDM 3.0, no linear remapping: both sets */
	fx_start(&fx);
	cr_assert_eq(core_pmo_create(fx.core, 0, PG, CACHE_CACHED, &h), 0);
	cr_assert_eq(core_pmo_destroy(fx.core, 0, h), 0);
	cr_assert_eq(core_alloc_mdl(fx.core, 0, PG, &mdl), 0);
	cr_assert_eq(core_free_mdl(fx.core, 0, mdl), 0);
	fx_assert_no_violations(&fx);
	fx_fini(&fx);
}
