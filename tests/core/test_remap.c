/* SPDX-License-Identifier: MIT */
/* The DMA remapping decision (WDDM 3.0) and logical addresses. */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "fixture.h"

Test(remap, not_needed_when_the_device_sees_all_memory)
{
	struct fx fx;

	fx_defaults(&fx);
	fx_start(&fx);
	cr_assert_eq(fx_info(&fx, 0).mode, MODE_PHYSICAL);
	cr_assert_eq(fx_info(&fx, 0).logical_limit, 0);
	fx_fini(&fx);
}

Test(remap, needed_when_memory_reaches_above_the_visible_limit)
{
	struct core_adapter_info info;
	struct fx fx;

	fx_defaults(&fx);
	fx.scn.registry.iommu_flags = 0; /* remapping needs no registry key */
	fx_need_remap(&fx, 0);
	fx_start(&fx);
	info = fx_info(&fx, 0);
	cr_assert(info.started, "%s", info.start_error);
	cr_assert_eq(info.mode, MODE_LOGICAL);
	cr_assert_eq(info.logical_limit, 0x100000000ull);
	cr_assert(info.iommu_enabled);
	cr_assert(info.attached);
	cr_assert_eq(info.attach_on, ATTACH_AT_START);
	fx_fini(&fx);
}

Test(remap, exactly_at_the_top_is_not_needed)
{
	struct fx fx;

	fx_defaults(&fx);
	fx_remap_capable(&fx, 0);
	fx.scn.adapters[0].caps.highest_visible_address = fx.scn.system.highest_physical_address;
	fx_start(&fx);
	cr_assert_eq(fx_info(&fx, 0).mode, MODE_PHYSICAL);
	fx_fini(&fx);

	fx_defaults(&fx);
	fx_remap_capable(&fx, 0);
	fx.scn.adapters[0].caps.highest_visible_address = fx.scn.system.highest_physical_address - 1;
	fx_start(&fx);
	cr_assert_eq(fx_info(&fx, 0).mode, MODE_LOGICAL);
	fx_fini(&fx);
}

static void expect_no_start(void (*tweak)(struct scn_adapter *), const char *why)
{
	struct core_adapter_info info;
	struct fx fx;

	fx_defaults(&fx);
	fx.scn.registry.iommu_flags |= IOMMU_FLAG_ALLOW_FAILURE; /* does not apply here */
	fx_need_remap(&fx, 0);
	tweak(&fx.scn.adapters[0]);
	fx_start(&fx);
	info = fx_info(&fx, 0);
	cr_assert_not(info.started);
	cr_assert(strstr(info.start_error, why), "'%s' does not say '%s'", info.start_error, why);
	cr_assert_eq(core_live_handles(fx.core), 0);
	cr_assert_eq(core_physmem(fx.core)->usage.committed, 0, "save-area charge kept");
	fx_fini(&fx);
}

static void no_linear(struct scn_adapter *a) { a->caps.iommu_linear_remap = false; }
static void no_aperture2(struct scn_adapter *a) { a->caps.map_aperture2 = false; }
static void inf_not_3(struct scn_adapter *a) { a->caps.dma_remapping_compatible = 1; }

Test(remap, refused_without_linear_remap_support)
{
	expect_no_start(no_linear, "linear remapping");
}

Test(remap, refused_without_map_aperture2)
{
	expect_no_start(no_aperture2, "MapAperture2Supported");
}

Test(remap, refused_without_dma_remapping_compatible_3)
{
	expect_no_start(inf_not_3, "DmaRemappingCompatible");
}

static void sees_page_0_only(struct scn_adapter *a) { a->caps.highest_visible_address = 0x1FFE; }
static void sees_nothing(struct scn_adapter *a) { a->caps.highest_visible_address = 0; }

/* Page 0 is never a logical address: below a second page, there is none at all. */
Test(remap, refused_when_the_device_sees_no_logical_page)
{
	expect_no_start(sees_page_0_only, "sees only up to 0x1ffe");
	expect_no_start(sees_nothing, "not one logical page");
}

Test(remap, one_logical_page_is_enough_to_start)
{
	struct fx fx;

	fx_defaults(&fx);
	fx_need_remap(&fx, 0);
	fx.scn.adapters[0].caps.highest_visible_address = 0x1FFF;
	fx.scn.adapters[0].phys[0].nreserved = 0; /* no room for it below 0x2000 */
	fx_start(&fx);
	cr_assert(fx_info(&fx, 0).started, "%s", fx_info(&fx, 0).start_error);
	cr_assert_eq(fx_info(&fx, 0).logical_limit, 0x2000);
	fx_fini(&fx);
}

Test(remap, no_physical_caps_means_full_visibility)
{
	struct fx fx;

	fx_defaults(&fx);
	fx.scn.adapters[0].caps.has_physical_caps = false;
	fx.scn.adapters[0].caps.highest_visible_address = 0;
	fx_start(&fx);
	cr_assert(fx_info(&fx, 0).started);
	cr_assert_eq(fx_info(&fx, 0).mode, MODE_PHYSICAL);
	fx_fini(&fx);
}

Test(remap, logical_addresses_stay_below_the_limit_and_work)
{
	struct core_adl_info adl;
	core_handle_t pmo, h, view;
	uint8_t back[256];
	struct fx fx;

	fx_defaults(&fx);
	fx_need_remap(&fx, 0);
	fx_start(&fx);
	cr_assert_eq(core_pmo_create(fx.core, 0, 8 << 20, CACHE_CACHED, &pmo), 0);
	cr_assert_eq(core_adl_alloc(fx.core, 0, pmo, 0, 8 << 20, &h), 0);
	cr_assert_eq(core_adl_info(fx.core, h, &adl), 0);
	cr_assert(adl.logical);
	cr_assert(adl.contiguous);
	cr_assert_lt(adl.base + adl.pages * 4096, 0x100000001ull);
	cr_assert_eq(adl.base % (2 << 20), 0, "a large mapping is not 2 MiB aligned");
	cr_assert_eq(fx_dma_write(&fx, 0, 0, h, 4096 * 3, sizeof(back), 0x5c), 0);
	/* the CPU reads what the GPU wrote through a view of the PMO, never the ADL */
	cr_assert_eq(core_pmo_map_cpu(fx.core, 0, pmo, CPU_KERNEL, 0, 8 << 20, &view), 0);
	cr_assert_eq(core_view_rw(fx.core, view, 4096 * 3, back, sizeof(back), false), 0);
	for (size_t i = 0; i < sizeof(back); i++)
		cr_assert_eq(back[i], 0x5c);
	cr_assert_eq(core_pmo_unmap_cpu(fx.core, 0, view), 0);
	cr_assert_eq(core_adl_free(fx.core, 0, h), 0);
	cr_assert_eq(core_pmo_destroy(fx.core, 0, pmo), 0);
	fx_fini(&fx);
}

/* The reference KMD takes its small buffer through the WDDM 3.0 services in both modes. */
static void small_buffer_is_pmo_backed(bool need_remap)
{
	struct core_adl_info adl;
	uint64_t bytes;
	core_handle_t gpu, cpu;
	uint8_t back[8] = { 0 };
	struct fx fx;

	fx_defaults(&fx);
	if (need_remap)
		fx_need_remap(&fx, 0);
	else
		fx_remap_capable(&fx, 0);
	fx_start(&fx);
	cr_assert_eq(fx_info(&fx, 0).mode, need_remap ? MODE_LOGICAL : MODE_PHYSICAL);
	cr_assert_eq(core_small_buffer(fx.core, 0, 0, &gpu, &cpu, &bytes), 0);
	cr_assert_eq(core_adl_info(fx.core, gpu, &adl), 0, "the GPU's handle is an ADL");
	cr_assert_eq(adl.logical, need_remap);
	cr_assert_neq(cpu, gpu, "the CPU goes through a view of the PMO, never the ADL");
	cr_assert_eq(core_view_rw(fx.core, cpu, 0, back, sizeof(back), false), 0);
	cr_assert_eq(bytes, 4096);
	fx_assert_no_violations(&fx);
	fx_fini(&fx);
}

Test(remap, the_kmd_small_buffer_is_an_adl)
{
	small_buffer_is_pmo_backed(true);
}

Test(remap, the_kmd_small_buffer_is_an_adl_in_physical_mode_too)
{
	small_buffer_is_pmo_backed(false);
}

Test(remap, logical_space_runs_out)
{
	core_handle_t pmo, a, b;
	struct fx fx;

	fx_defaults(&fx);
	fx_need_remap(&fx, 0);
	fx.scn.adapters[0].phys[0].nreserved = 0;
	fx_start(&fx);
	/* 3 GiB fits below 4 GiB once; a second one cannot */
	cr_assert_eq(core_pmo_create(fx.core, 0, 3ull << 30, CACHE_CACHED, &pmo), 0);
	cr_assert_eq(core_adl_alloc(fx.core, 0, pmo, 0, 3ull << 30, &a), 0);
	cr_assert_eq(core_adl_alloc(fx.core, 0, pmo, 0, 3ull << 30, &b), -ENOSPC);
	cr_assert_eq(core_adl_free(fx.core, 0, a), 0);
	cr_assert_eq(core_adl_alloc(fx.core, 0, pmo, 0, 3ull << 30, &b), 0,
		     "freed logical space was not reused");
	cr_assert_eq(core_adl_free(fx.core, 0, b), 0);
	cr_assert_eq(core_pmo_destroy(fx.core, 0, pmo), 0);
	fx_fini(&fx);
}

Test(remap, scenario_file_has_one_remapped_and_one_refused_adapter)
{
	struct fx fx;

	fx_load(&fx, "traces/scenarios/logical-remap.yaml");
	fx_start(&fx);
	cr_assert_eq(core_adapter_count(fx.core), 2);
	cr_assert(fx_info(&fx, 0).started);
	cr_assert_eq(fx_info(&fx, 0).mode, MODE_LOGICAL);
	cr_assert_eq(fx_info(&fx, 0).logical_limit, 1ull << 40);
	cr_assert_not(fx_info(&fx, 1).started);
	fx_fini(&fx);
}

/*
 * The decision compares with installed memory, not with a highest physical
 * address set above it: a GPU that sees 512 GiB, with RAM ending at
 * 0x107FFFFFFF, needs no remapping, and a legacy one starts.
 */
Test(remap, decided_against_installed_memory)
{
	struct core_adapter_info info;
	struct fx fx;

	fx_defaults(&fx);
	fx.scn.system.highest_physical_address = 0xFFFFFFFFFFull;
	fx.scn.adapters[0].caps.has_physical_caps = true;
	fx.scn.adapters[0].caps.highest_visible_address = (512ull << 30) - 1;
	fx.scn.adapters[0].caps.iommu_linear_remap = false;
	fx_start(&fx);
	info = fx_info(&fx, 0);
	cr_assert(info.started, "%s", info.start_error);
	cr_assert_eq(info.mode, MODE_PHYSICAL);
	fx_fini(&fx);
}
