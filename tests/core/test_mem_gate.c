/* SPDX-License-Identifier: MIT */
/*
 * When the WDDM 2.4 memory callbacks (core/mem.c, docs/model.md "Memory
 * callbacks") are refused: called at an IRQL the gate does not let through
 * (core/gate.c), and deprecated for a driver that reports linear remapping.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"

#define PG GPUISO_PAGE_SIZE

/* --- IRQL --- */

/* Before WDDM 3.2 nothing validates the IRQL: the violation is recorded and the call goes on. */
Test(mem, callbacks_at_dispatch_before_wddm32_are_recorded_and_go_on)
{
	struct fx fx;
	core_handle_t mdl = 0, contig = 0, map = 0;

	fx_defaults(&fx);
	cr_assert_lt(fx.scn.adapters[0].wddm, SCN_WDDM(3, 2));
	fx_start(&fx);
	core_set_irql(fx.core, CORE_IRQL_DISPATCH);
	cr_assert_eq(core_alloc_contiguous(fx.core, 0, PG, CACHE_CACHED, &contig, NULL), 0);
	cr_assert_eq(core_alloc_mdl(fx.core, 0, PG, &mdl), 0);
	cr_assert_eq(core_map_mdl(fx.core, 0, mdl, &map, NULL), 0);
	cr_assert_eq(core_unmap_mdl(fx.core, 0, map), 0);
	/* above DISPATCH_LEVEL as well */
	core_set_irql(fx.core, (enum core_irql)(CORE_IRQL_DISPATCH + 1));
	cr_assert_eq(core_free_mdl(fx.core, 0, mdl), 0);
	cr_assert_eq(core_free_contiguous(fx.core, 0, contig), 0);
	cr_assert_eq(fx_violations(&fx, CORE_V_CB_IRQL), 6, "%s", fx_violation_text(&fx));
	cr_assert(strstr(fx_violation_text(&fx), "does not validate it: the call goes on"), "%s",
		  fx_violation_text(&fx));
	cr_assert_null(core_bugcheck(fx.core));
	core_set_irql(fx.core, CORE_IRQL_PASSIVE);
	cr_assert_eq(fx_violations(&fx, CORE_V_CB_IRQL) + fx_violations(&fx, CORE_V_HANDLE_LEAK), 6,
		     "%s", fx_violation_text(&fx));
	fx_fini(&fx);
}

/* WDDM 3.2 validates it and bugchecks: the first such call is the last thing that happens. */
Test(mem, a_wddm32_driver_calling_at_dispatch_bugchecks)
{
	const struct core_violation *bug;
	struct fx fx;
	core_handle_t mdl = 0, h = 0;
	size_t live;

	fx_defaults(&fx);
	fx.scn.adapters[0].wddm = SCN_WDDM(3, 2);
	fx_start(&fx);
	cr_assert_eq(core_alloc_mdl(fx.core, 0, PG, &mdl), 0);
	live = core_live_handles(fx.core);
	core_set_event(fx.core, 41, 7000, NULL);
	core_set_irql(fx.core, CORE_IRQL_DISPATCH);
	cr_assert_eq(core_alloc_mdl(fx.core, 0, PG, &h), -EPERM);
	bug = core_bugcheck(fx.core);
	cr_assert_not_null(bug);
	cr_assert_eq(bug->code, CORE_V_CB_IRQL);
	cr_assert_eq(bug->event, 41);
	cr_assert_eq(bug->ts_ns, 7000);
	cr_assert(strstr(bug->detail, "bugcheck"), "%s", bug->detail);
	/* the machine is down: nothing runs, nothing more is recorded, at any level */
	core_set_irql(fx.core, CORE_IRQL_PASSIVE);
	cr_assert_eq(core_alloc_mdl(fx.core, 0, PG, &h), -ESHUTDOWN);
	cr_assert_eq(core_free_mdl(fx.core, 0, mdl), -ESHUTDOWN);
	cr_assert_eq(core_live_handles(fx.core), live);
	core_stop(fx.core); /* teardown finds the MDL, and says nothing */
	cr_assert_eq(fx_violations(&fx, CORE_V_CB_IRQL), 1, "%s", fx_violation_text(&fx));
	cr_assert_eq(fx_violations(&fx, CORE_V_HANDLE_LEAK), 0, "%s", fx_violation_text(&fx));
	fx_fini(&fx);
}

Test(mem, callbacks_at_apc_are_accepted)
{
	struct fx fx;
	core_handle_t mdl = 0, contig = 0, map = 0;

	fx_defaults(&fx);
	fx_start(&fx);
	core_set_irql(fx.core, CORE_IRQL_APC);
	cr_assert_eq(core_alloc_mdl(fx.core, 0, PG, &mdl), 0);
	cr_assert_eq(core_alloc_contiguous(fx.core, 0, PG, CACHE_CACHED, &contig, NULL), 0);
	cr_assert_eq(core_map_mdl(fx.core, 0, mdl, &map, NULL), 0);
	cr_assert_eq(core_unmap_mdl(fx.core, 0, map), 0);
	cr_assert_eq(core_free_mdl(fx.core, 0, mdl), 0);
	cr_assert_eq(core_free_contiguous(fx.core, 0, contig), 0);
	core_set_irql(fx.core, CORE_IRQL_PASSIVE);
	fx_assert_no_violations(&fx);
	fx_fini(&fx);
}

/* --- logical-remap mode --- */

Test(mem, logical_mode_refuses_wddm24_callbacks)
{
	struct fx fx;
	core_handle_t h = 0, pmo = 0;
	iova_t logical = 0;
	struct physmem_usage before;
	size_t live;

	fx_defaults(&fx);
	fx_need_remap(&fx, 0);
	fx_start(&fx);
	cr_assert_eq(fx_info(&fx, 0).mode, MODE_LOGICAL, "%s", fx_info(&fx, 0).start_error);
	cr_assert_eq(fx_violations(&fx, CORE_V_DEPRECATED_CB), 0,
		     "the reference KMD uses the WDDM 3.0 services at start:\n%s", fx_violation_text(&fx));
	before = fx_usage(&fx);
	live = core_live_handles(fx.core);
	cr_assert_eq(core_alloc_contiguous(fx.core, 0, PG, CACHE_CACHED, &h, &logical), -EPERM);
	cr_assert_eq(fx_violations(&fx, CORE_V_DEPRECATED_CB), 1, "%s", fx_violation_text(&fx));
	cr_assert_eq(core_alloc_mdl(fx.core, 0, PG, &h), -EPERM);
	cr_assert_eq(fx_violations(&fx, CORE_V_DEPRECATED_CB), 2, "%s", fx_violation_text(&fx));
	cr_assert_eq(core_map_mdl(fx.core, 0, 0x1, &h, &logical), -EPERM);
	cr_assert_eq(fx_violations(&fx, CORE_V_DEPRECATED_CB), 3, "%s", fx_violation_text(&fx));
	cr_assert_eq(core_live_handles(fx.core), live);
	fx_assert_usage_eq(fx_usage(&fx), before, "after refused callbacks");
	/* the WDDM 3.0 services work in the same mode */
	cr_assert_eq(core_pmo_create(fx.core, 0, PG, CACHE_CACHED, &pmo), 0);
	cr_assert_eq(core_pmo_destroy(fx.core, 0, pmo), 0);
	cr_assert_eq(fx_violations(&fx, CORE_V_DEPRECATED_CB), 3);
	fx_fini(&fx);
}

/* Deprecated for the driver, not for the mode: a remap-capable driver in 1:1 mode too. */
Test(mem, remap_capable_driver_is_refused_wddm24_callbacks_in_physical_mode)
{
	struct fx fx;
	core_handle_t h = 0, pmo = 0, adl = 0;
	iova_t logical = 0;

	fx_defaults(&fx);
	fx_remap_capable(&fx, 0);
	fx_start(&fx);
	cr_assert_eq(fx_info(&fx, 0).mode, MODE_PHYSICAL);
	cr_assert_eq(fx_violations(&fx, CORE_V_DEPRECATED_CB), 0,
		     "the reference KMD uses the WDDM 3.0 services at start:\n%s",
		     fx_violation_text(&fx));
	cr_assert_eq(core_alloc_mdl(fx.core, 0, PG, &h), -EPERM);
	cr_assert_eq(core_alloc_contiguous(fx.core, 0, PG, CACHE_CACHED, &h, &logical), -EPERM);
	cr_assert_eq(core_map_mdl(fx.core, 0, 0x1, &h, &logical), -EPERM);
	cr_assert_eq(fx_violations(&fx, CORE_V_DEPRECATED_CB), 3, "%s", fx_violation_text(&fx));
	cr_assert(strstr(fx_violation_text(&fx), "1:1 mode"), "%s", fx_violation_text(&fx));
	/* its services work: an ADL over a PMO, with physical pages */
	cr_assert_eq(core_pmo_create(fx.core, 0, PG, CACHE_CACHED, &pmo), 0);
	cr_assert_eq(core_adl_alloc(fx.core, 0, pmo, 0, PG, &adl), 0);
	cr_assert_eq(core_adl_free(fx.core, 0, adl), 0);
	cr_assert_eq(core_pmo_destroy(fx.core, 0, pmo), 0);
	cr_assert_eq(fx_violations(&fx, CORE_V_DEPRECATED_CB), 3);
	fx_fini(&fx);
}

/* A driver that does not report linear remapping keeps the WDDM 2.4 callbacks. */
Test(mem, driver_without_linear_remap_keeps_wddm24_callbacks)
{
	struct fx fx;
	core_handle_t h = 0;

	fx_defaults(&fx);
	cr_assert_not(fx.scn.adapters[0].caps.iommu_linear_remap);
	fx_start(&fx);
	cr_assert_eq(fx_info(&fx, 0).mode, MODE_PHYSICAL);
	cr_assert_eq(core_alloc_mdl(fx.core, 0, PG, &h), 0);
	cr_assert_eq(core_free_mdl(fx.core, 0, h), 0);
	cr_assert_eq(fx_violations(&fx, CORE_V_DEPRECATED_CB), 0, "%s", fx_violation_text(&fx));
	fx_fini(&fx);
}
