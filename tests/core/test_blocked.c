/* SPDX-License-Identifier: MIT */
/*
 * Blocked DMA (core/blocked.c, core/rogue.c): each cause the model gives a
 * fault, the event an unmap or free names, and the exposures.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "fixture.h"

#define PG 4096ull

/* The last fault recorded. */
static const struct core_fault *last_fault(struct fx *fx)
{
	size_t n;
	const struct core_fault *f = core_faults(fx->core, &n);

	cr_assert_gt(n, 0, "no fault recorded");
	return &f[n - 1];
}

Test(blocked, a_raw_address_never_given_is_not_mapped)
{
	struct fx fx;

	fx_defaults(&fx);
	fx_start(&fx);
	core_set_event(fx.core, 4, 400, "dma_raw");
	cr_assert_eq(core_dma_raw(fx.core, 0, 0, 0x3000000, PG, false), -EFAULT);
	cr_assert_eq(last_fault(&fx)->cause, CORE_FAULT_NOT_MAPPED);
	cr_assert_eq(last_fault(&fx)->iova, 0x3000000);
	cr_assert_eq(last_fault(&fx)->event, 4);
	cr_assert_neq(last_fault(&fx)->domain, CORE_NO_DOMAIN, "the device was in its domain");
	fx_fini(&fx);
}

Test(blocked, the_interrupt_window_is_reserved)
{
	struct fx fx;

	fx_defaults(&fx);
	fx_start(&fx);
	cr_assert_eq(core_dma_raw(fx.core, 0, 0, 0xFEE00000ull, PG, true), -EFAULT);
	cr_assert_eq(last_fault(&fx)->cause, CORE_FAULT_RESERVED);
	fx_fini(&fx);
}

Test(blocked, past_the_logical_range_is_beyond_range)
{
	struct fx fx;

	fx_defaults(&fx);
	fx_need_remap(&fx, 0);
	fx_start(&fx);
	cr_assert_eq(fx_info(&fx, 0).mode, MODE_LOGICAL);
	cr_assert_eq(core_dma_raw(fx.core, 0, 0, fx_info(&fx, 0).logical_limit, PG, false), -EFAULT);
	cr_assert_eq(last_fault(&fx)->cause, CORE_FAULT_BEYOND_RANGE);
	fx_fini(&fx);
}

Test(blocked, a_freed_mdl_names_its_free_and_an_unmapped_mapping_its_unmap)
{
	core_handle_t mdl, map, drv;
	iova_t iova;
	struct fx fx;

	fx_defaults(&fx);
	fx_start(&fx);
	core_set_event(fx.core, 1, 100, "alloc_mdl");
	cr_assert_eq(core_alloc_mdl(fx.core, 0, 4 * PG, &mdl), 0);
	iova = fx_iova_of(&fx, mdl, PG);
	core_set_event(fx.core, 2, 200, "free_mdl");
	cr_assert_eq(core_free_mdl(fx.core, 0, mdl), 0);
	core_set_event(fx.core, 3, 300, "dma");
	cr_assert_eq(core_dma_stale(fx.core, 0, 0, mdl, PG, 64, true), -EFAULT,
		     "the device keeps the address; the IOMMU refuses it");
	cr_assert_eq(last_fault(&fx)->cause, CORE_FAULT_AFTER_FREE);
	cr_assert_eq(last_fault(&fx)->iova, iova);
	cr_assert_eq(last_fault(&fx)->by_event, 2);
	cr_assert_eq(last_fault(&fx)->by_ts_ns, 200);
	cr_assert_str_eq(last_fault(&fx)->by_op, "free_mdl");

	/* a driver's MDL lives on after MapMdlToIoMmu's unmap: after an unmap, not a free */
	cr_assert_eq(core_driver_mdl_create(fx.core, 0, 2 * PG, &drv), 0);
	cr_assert_eq(core_map_mdl(fx.core, 0, drv, &map, NULL), 0);
	core_set_event(fx.core, 5, 500, "unmap_mdl");
	cr_assert_eq(core_unmap_mdl(fx.core, 0, map), 0);
	core_set_event(fx.core, 6, 600, "dma");
	cr_assert_eq(core_dma_stale(fx.core, 0, 0, map, 0, 64, false), -EFAULT);
	cr_assert_eq(last_fault(&fx)->cause, CORE_FAULT_AFTER_UNMAP);
	cr_assert_eq(last_fault(&fx)->by_event, 5);
	/* and the driver MDL itself, never mapped for the device */
	cr_assert_eq(core_dma(fx.core, 0, 0, drv, 0, 64, false), -EFAULT);
	cr_assert_eq(core_driver_mdl_free(fx.core, 0, drv), 0);
	/* a handle the model never freed is not a tomb */
	cr_assert_eq(core_dma_stale(fx.core, 0, 0, 0x7777, 0, 64, false), -ENOENT);
	fx_fini(&fx);
}

Test(blocked, a_dma_inside_exclusive_access_is_a_domain_switch)
{
	struct fx fx;

	fx_defaults(&fx);
	fx_start(&fx);
	cr_assert_eq(core_dma_exclusive(fx.core, 0, 0, 0x3000000, PG, true), 0, "armed");
	cr_assert_eq(fx_faults(&fx), 0, "nothing issued before the exclusive access");
	core_stop(fx.core); /* the detach of the domain: exclusive access */
	cr_assert_eq(last_fault(&fx)->cause, CORE_FAULT_SWITCH);
	cr_assert_eq(fx_violations(&fx, CORE_V_DMA_IN_EXCLUSIVE), 1, "%s", fx_violation_text(&fx));
	fx_fini(&fx);
}

Test(blocked, with_no_domain_memory_is_exposed)
{
	size_t n;
	const struct core_exposure *x;
	core_handle_t drv;
	struct fx fx;

	fx_defaults(&fx);
	fx.scn.registry.iommu_flags = 0x03; /* Enabled, EnableMappings: never attached */
	fx_start(&fx);
	cr_assert_eq(core_dma_raw(fx.core, 0, 0, 0x3000000, PG, false), 0, "it reads the page");
	cr_assert_eq(fx_faults(&fx), 0);
	x = core_exposures(fx.core, &n);
	cr_assert_eq(n, 1);
	cr_assert_eq(x[0].how, CORE_EXPOSED_NO_DOMAIN);
	cr_assert_eq(x[0].address, 0x3000000);
	/* a driver MDL never mapped for the device: exposed; the device's own memory: not */
	cr_assert_eq(core_driver_mdl_create(fx.core, 0, PG, &drv), 0);
	cr_assert_eq(core_dma(fx.core, 0, 0, drv, 0, 64, false), 0);
	core_exposures(fx.core, &n);
	cr_assert_eq(n, 2);
	cr_assert_eq(core_driver_mdl_free(fx.core, 0, drv), 0);
	fx_fini(&fx);
}

/* The adapter remembers its last CORE_UNMAP_NOTES unmaps: older ones no longer name their event. */
Test(blocked, the_unmaps_remembered_are_the_last_ones)
{
	core_handle_t h;
	iova_t first_iova = 0;
	struct fx fx;

	fx_defaults(&fx);
	fx_start(&fx);
	for (uint64_t i = 0; i < 65536 + 16; i++) {
		core_set_event(fx.core, i, i, "free_mdl");
		cr_assert_eq(core_alloc_mdl(fx.core, 0, PG, &h), 0);
		if (!i)
			first_iova = fx_iova_of(&fx, h, 0);
		cr_assert_eq(core_free_mdl(fx.core, 0, h), 0);
	}
	/* the last one freed: its free is remembered */
	cr_assert_eq(core_dma_stale(fx.core, 0, 0, h, 0, 64, false), -EFAULT);
	cr_assert_eq(last_fault(&fx)->cause, CORE_FAULT_AFTER_FREE);
	cr_assert_eq(last_fault(&fx)->by_event, 65536 + 15);
	/* the first page was unmapped again and again since: its newest unmap is named */
	cr_assert_eq(core_dma_raw(fx.core, 0, 0, first_iova, 64, false), -EFAULT);
	cr_assert_eq(last_fault(&fx)->cause, CORE_FAULT_AFTER_FREE);
	cr_assert_geq(last_fault(&fx)->by_event, 65536);
	fx_fini(&fx);
}
