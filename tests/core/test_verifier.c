/* SPDX-License-Identifier: MIT */
/* The verifier's record: stable codes, where each violation happened, what it catches. */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "fixture.h"

Test(verifier, codes_have_stable_distinct_names)
{
	static const struct {
		enum core_violation_code code;
		const char *name;
	} expect[] = {
		{ CORE_V_CB_IRQL, "CB_IRQL" },
		{ CORE_V_CB_IN_EXCLUSIVE, "CB_IN_EXCLUSIVE" },
		{ CORE_V_DMA_IN_EXCLUSIVE, "DMA_IN_EXCLUSIVE" },
		{ CORE_V_WORK_IN_EXCLUSIVE, "WORK_IN_EXCLUSIVE" },
		{ CORE_V_UNMAP_AFTER_FREE, "UNMAP_AFTER_FREE" },
		{ CORE_V_DEPRECATED_CB, "DEPRECATED_CALLBACK" },
		{ CORE_V_BAD_HANDLE, "BAD_HANDLE" },
		{ CORE_V_HANDLE_LEAK, "HANDLE_LEAK" },
		{ CORE_V_MAPPING_LEAK, "MAPPING_LEAK" },
		{ CORE_V_FB_NOT_LEAD, "FB_NOT_LEAD" },
		{ CORE_V_FB_RESTORE_MISMATCH, "FB_RESTORE_MISMATCH" },
		{ CORE_V_FB_SEQUENCE, "FB_SEQUENCE" },
		{ CORE_V_PMO_BUSY, "PMO_BUSY" },
		{ CORE_V_STALE_TRANSLATION, "STALE_TRANSLATION" },
		{ CORE_V_CPU_ACCESS, "CPU_ACCESS" },
		{ CORE_V_CB_VERSION, "CB_VERSION" },
		{ CORE_V_FB_SAVE_SIZE, "FB_SAVE_SIZE" },
	};

	cr_assert_eq(sizeof(expect) / sizeof(expect[0]), CORE_V_NVIOLATIONS, "a code has no test");
	for (size_t i = 0; i < CORE_V_NVIOLATIONS; i++)
		cr_assert_str_eq(core_violation_name(expect[i].code), expect[i].name);
	cr_assert_str_eq(core_violation_name(CORE_V_NVIOLATIONS), "UNKNOWN");
}

Test(verifier, violations_carry_the_event_and_timestamp)
{
	const struct core_violation *v;
	size_t n;
	struct fx fx;

	fx_defaults(&fx);
	fx_start(&fx);
	core_set_event(fx.core, 42, 123456789, NULL);
	cr_assert_eq(core_free_mdl(fx.core, 0, 0x7777), -EINVAL);
	v = core_violations(fx.core, &n);
	cr_assert_eq(n, 1);
	cr_assert_eq(v[0].code, CORE_V_BAD_HANDLE);
	cr_assert_eq(v[0].event, 42);
	cr_assert_eq(v[0].ts_ns, 123456789);
	cr_assert(strstr(v[0].detail, "0x7777"), "%s", v[0].detail);
	fx_fini(&fx);
}

Test(verifier, unmap_without_flush_is_a_stale_translation)
{
	core_handle_t mdl;
	iova_t iova;
	struct hw *hw;
	struct fx fx;

	fx_defaults(&fx);
	fx_start(&fx);
	hw = core_hw(fx.core);
	cr_assert_eq(core_alloc_mdl(fx.core, 0, 4096, &mdl), 0);
	cr_assert_eq(fx_dma_write(&fx, 0, 0, mdl, 0, 64, 1), 0); /* fills the IOTLB */
	cr_assert_eq(fx_violations(&fx, CORE_V_STALE_TRANSLATION), 0);
	cr_assert_eq(core_handle_iova(fx.core, mdl, 0, &iova), 0);
	/* someone clears the PTE behind the model's back and forgets the flush */
	cr_assert_eq(hw->ops->unmap(hw, fx_info(&fx, 0).domain, iova, 4096), 0);
	cr_assert_eq(fx_dma_write(&fx, 0, 0, mdl, 0, 64, 2), 0, "the stale entry still translates");
	cr_assert_eq(fx_violations(&fx, CORE_V_STALE_TRANSLATION), 1, "%s", fx_violation_text(&fx));
	/* after a flush the access is blocked */
	hw->ops->flush(hw, fx_info(&fx, 0).domain, iova, 4096);
	cr_assert_eq(fx_dma_write(&fx, 0, 0, mdl, 0, 64, 3), -EFAULT);
	cr_assert_eq(fx_faults(&fx), 1);
	cr_assert_eq(core_free_mdl(fx.core, 0, mdl), 0);
	fx_fini(&fx);
}

Test(verifier, a_mapping_left_in_the_domain_is_reported_at_teardown)
{
	struct fp_ctx fp = { 0 };
	core_handle_t mdl;
	struct fx fx;

	fx_defaults(&fx);
	fx_start(&fx);
	core_set_faults(fx.core, &fp);
	cr_assert_eq(core_alloc_mdl(fx.core, 0, 4096, &mdl), 0);
	fp_arm(&fp, FP_IOMMU_UNMAP, &(struct fp_rule){ .nth = 1 });
	cr_assert_eq(core_free_mdl(fx.core, 0, mdl), 0);
	cr_assert_eq(fx_violations(&fx, CORE_V_MAPPING_LEAK), 0);
	core_stop(fx.core);
	cr_assert_eq(fx_violations(&fx, CORE_V_MAPPING_LEAK), 1, "%s", fx_violation_text(&fx));
	fx_fini(&fx);
}

Test(verifier, a_clean_run_has_no_violations)
{
	core_handle_t mdl, map, pmo, adl, alloc, fence;
	size_t n;
	struct fx fx;

	fx_defaults(&fx);
	fx.scn.adapters[0].wddm = SCN_WDDM(3, 0); /* the PMO services and the WDDM 2.4 callbacks */
	fx.scn.adapters[0].phys[0].fb_save_size = 1 << 20;
	fx_start(&fx);
	cr_assert_eq(core_alloc_mdl(fx.core, 0, 3 * 4096, &mdl), 0);
	cr_assert_eq(core_map_mdl(fx.core, 0, mdl, &map, NULL), 0);
	cr_assert_eq(core_pmo_create(fx.core, 0, 1 << 20, CACHE_WRITECOMBINED, &pmo), 0);
	cr_assert_eq(core_adl_alloc(fx.core, 0, pmo, 4096, 8192, &adl), 0);
	cr_assert_eq(core_alloc_create(fx.core, 0, 1 << 20, CORE_SEG_APERTURE,
				       ALLOC_ACCESSED_PHYSICALLY, &alloc), 0);
	cr_assert_eq(core_map_aperture(fx.core, 0, alloc, 0, 16), 0);
	cr_assert_eq(core_fence_create(fx.core, 0, &fence), 0);
	cr_assert_eq(fx_dma_write(&fx, 0, 0, adl, 0, 8192, 9), 0);
	cr_assert_eq(core_power(fx.core, 0, 0, POWER_D3), 0);
	cr_assert_eq(core_power(fx.core, 0, 0, POWER_D0), 0);
	cr_assert_eq(core_fence_destroy(fx.core, 0, fence), 0);
	cr_assert_eq(core_unmap_aperture(fx.core, 0, alloc), 0);
	cr_assert_eq(core_alloc_destroy(fx.core, 0, alloc), 0);
	cr_assert_eq(core_adl_free(fx.core, 0, adl), 0);
	cr_assert_eq(core_pmo_destroy(fx.core, 0, pmo), 0);
	cr_assert_eq(core_unmap_mdl(fx.core, 0, map), 0);
	cr_assert_eq(core_free_mdl(fx.core, 0, mdl), 0);
	core_stop(fx.core);
	core_violations(fx.core, &n);
	cr_assert_eq(n, 0, "%s", fx_violation_text(&fx));
	cr_assert_eq(core_physmem(fx.core)->usage.committed, 0);
	cr_assert_eq(core_physmem(fx.core)->usage.locked, 0);
	cr_assert_eq(core_physmem(fx.core)->usage.allocated, 0);
	fx_fini(&fx);
}

Test(verifier, faults_record_where_and_why)
{
	const struct core_fault *f;
	core_handle_t alloc;
	size_t n;
	struct fx fx;

	fx_defaults(&fx);
	fx_start(&fx);
	/* a VRAM allocation's backing store is not mapped outside transfers */
	cr_assert_eq(core_alloc_create(fx.core, 0, 1 << 16, CORE_SEG_VRAM, 0, &alloc), 0);
	core_set_event(fx.core, 7, 700, NULL);
	cr_assert_eq(fx_dma_write(&fx, 0, 0, alloc, 0, 4096, 1), -EFAULT);
	cr_assert_eq(core_dma(fx.core, 0, 0, alloc, 0, 4096, false), -EFAULT);
	f = core_faults(fx.core, &n);
	cr_assert_eq(n, 2);
	cr_assert_eq(f[0].event, 7);
	cr_assert(f[0].write);
	cr_assert_eq(f[0].reason, HW_FAULT_NO_WRITE);
	cr_assert_not(f[1].write);
	cr_assert_eq(f[1].reason, HW_FAULT_NO_READ);
	cr_assert_eq(core_alloc_destroy(fx.core, 0, alloc), 0);
	fx_fini(&fx);
}

Test(verifier, errno_maps_to_ntstatus_names_for_reports)
{
	cr_assert_str_eq(ntstatus_name(0), "STATUS_SUCCESS");
	cr_assert_str_eq(ntstatus_name(-ENOMEM), "STATUS_NO_MEMORY");
	cr_assert_str_eq(ntstatus_name(-EINVAL), "STATUS_INVALID_PARAMETER");
	cr_assert_str_eq(ntstatus_name(-ENOTSUP), "STATUS_NOT_SUPPORTED");
	cr_assert_str_eq(ntstatus_name(-EFAULT), "STATUS_ACCESS_VIOLATION");
	cr_assert_str_eq(ntstatus_name(-12345), "STATUS_UNSUCCESSFUL");
}
