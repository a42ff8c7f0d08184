/* SPDX-License-Identifier: MIT */
/*
 * The WDDM 3.0 memory management services (core/pmo.c, docs/model.md
 * "Memory callbacks"): physical memory objects and their open handles, CPU
 * views, PMO_BUSY, the IRQL gate, bad handles, leaks, commit pressure and
 * fault injection on creation. ADLs: test_pmo_adl.c.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pmo_fixture.h"

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
	fx_assert_blocked(&fx, 0, pa, "PMO without an ADL");
	cr_assert_eq(core_adl_alloc(fx.core, 0, pmo, 0, 2 * PG, &adl), 0);
	fx_assert_reachable(&fx, 0, pa, "PMO page under an ADL");
	fx_assert_reachable(&fx, 0, fx_iova_of(&fx, pmo, PG), "PMO 2nd page under an ADL");
	cr_assert_eq(core_adl_free(fx.core, 0, adl), 0);
	fx_assert_blocked(&fx, 0, pa, "PMO after its ADL was freed");
	fx_assert_blocked(&fx, 0, fx_iova_of(&fx, pmo, PG), "PMO 2nd page after its ADL was freed");
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
