/* SPDX-License-Identifier: MIT */
/*
 * The workload generators' profiles: each a table of action weights and
 * sizes, with the scenario it targets.
 */
#include <string.h>

#include "replay/gen_internal.h"

static const struct profile profiles[] = {
	{
		.name = "desktop",
		.describe = "steady allocation churn: MDLs and their IOMMU mappings, contiguous "
			    "memory, VidMm allocations in VRAM/aperture/system segments with "
			    "aperture mappings and paging transfers, fences, some DMA, rare "
			    "memory pressure and D0->D3->D0 cycles of physical adapter 0; targets "
			    "traces/scenarios/default.yaml",
		.nphys = 1,
		.target_live = 40,
		/* about one power cycle and one pressure episode per 30000 events */
		.weight = {
			[A_MDL_ALLOC] = 2400, [A_MDL_FREE] = 2000, [A_MDL_MAP] = 1600,
			[A_MDL_UNMAP] = 1600, [A_CONTIG_ALLOC] = 600, [A_CONTIG_FREE] = 600,
			[A_ALLOC_CREATE] = 3200, [A_ALLOC_DESTROY] = 2800, [A_MAP_APERTURE] = 1600,
			[A_UNMAP_APERTURE] = 1400, [A_TRANSFER] = 2400,
			[A_FENCE_CREATE] = 1200, [A_FENCE_DESTROY] = 1200,
			[A_DMA] = 6000, [A_POWER_DOWN] = 1, [A_POWER_UP] = 2400,
			[A_PRESSURE_ON] = 1, [A_PRESSURE_OFF] = 800,
		},
		.seg_weight = { [SC_VRAM] = 4, [SC_APERTURE] = 3, [SC_APERTURE_IMPLICIT] = 1,
				[SC_SYSTEM] = 2 },
		.cpu_visible_sometimes = true,
		/* small objects: a desktop's churn is many small allocations, not bandwidth */
		.mdl_min = 4 * KiB, .mdl_max = 256 * KiB,
		.contig_min = 4 * KiB, .contig_max = 64 * KiB,
		.alloc_min = 4 * KiB, .alloc_max = 512 * KiB,
		.vram_min = 4 * KiB, .vram_max = 512 * KiB,
		.timing = T_STEADY, .gap_min = 1000, .gap_max = 200000, .power_gap = 2000000,
	},
	{
		.name = "game",
		.describe = "frames of bursts: large VRAM allocations (MiBs) paged in on creation, "
			    "many paging transfers, lots of DMA to MDLs, staging allocations and "
			    "fences; targets traces/scenarios/default.yaml",
		.nphys = 1,
		.target_live = 32,
		.weight = {
			[A_MDL_ALLOC] = 20, [A_MDL_FREE] = 18, [A_MDL_MAP] = 10, [A_MDL_UNMAP] = 10,
			[A_ALLOC_CREATE] = 60, [A_ALLOC_DESTROY] = 55, [A_MAP_APERTURE] = 20,
			[A_UNMAP_APERTURE] = 20, [A_TRANSFER] = 150,
			[A_FENCE_CREATE] = 20, [A_FENCE_DESTROY] = 20,
			[A_DMA] = 500,
		},
		.seg_weight = { [SC_VRAM] = 6, [SC_APERTURE] = 2, [SC_SYSTEM] = 2 },
		.upload_on_create = true,
		.mdl_min = 64 * KiB, .mdl_max = 2 * MiB,
		.alloc_min = 64 * KiB, .alloc_max = 2 * MiB,
		.vram_min = 1 * MiB, .vram_max = 8 * MiB,
		.timing = T_FRAMES, .gap_min = 300, .gap_max = 5000,
	},
	{
		.name = "power-cycle",
		.describe = "frequent D0->D3->D0 transitions of every physical adapter of an LDA "
			    "chain of 3, with allocations, transfers and DMA from powered adapters "
			    "in between; targets traces/scenarios/lda-chain.yaml",
		.nphys = 3,
		.target_live = 24,
		.weight = {
			[A_MDL_ALLOC] = 30, [A_MDL_FREE] = 28, [A_MDL_MAP] = 10, [A_MDL_UNMAP] = 10,
			[A_CONTIG_ALLOC] = 10, [A_CONTIG_FREE] = 10,
			[A_ALLOC_CREATE] = 30, [A_ALLOC_DESTROY] = 28, [A_MAP_APERTURE] = 10,
			[A_UNMAP_APERTURE] = 10, [A_TRANSFER] = 20,
			[A_FENCE_CREATE] = 20, [A_FENCE_DESTROY] = 20,
			[A_DMA] = 150, [A_POWER_DOWN] = 5, [A_POWER_UP] = 8,
		},
		.seg_weight = { [SC_VRAM] = 2, [SC_APERTURE] = 1, [SC_SYSTEM] = 1 },
		.mdl_min = 4 * KiB, .mdl_max = 512 * KiB,
		.contig_min = 4 * KiB, .contig_max = 64 * KiB,
		.alloc_min = 64 * KiB, .alloc_max = 2 * MiB,
		.vram_min = 64 * KiB, .vram_max = 2 * MiB,
		.timing = T_STEADY, .gap_min = 2000, .gap_max = 500000, .power_gap = 5000000,
	},
	{
		.name = "remap",
		.describe = "WDDM 3.0 services only (physical memory objects, ADLs over them), "
			    "CPU-visible aperture allocations, fences and DMA, for a device that "
			    "needs logical remapping; targets adapter 0 of "
			    "traces/scenarios/logical-remap.yaml",
		.nphys = 1,
		.target_live = 40,
		.weight = {
			[A_PMO_CREATE] = 40, [A_PMO_DESTROY] = 35, [A_ADL_ALLOC] = 80,
			[A_ADL_FREE] = 75,
			[A_ALLOC_CREATE] = 40, [A_ALLOC_DESTROY] = 35, [A_MAP_APERTURE] = 35,
			[A_UNMAP_APERTURE] = 30,
			[A_FENCE_CREATE] = 20, [A_FENCE_DESTROY] = 20,
			[A_DMA] = 200,
		},
		.seg_weight = { [SC_APERTURE] = 1 },
		.aperture_flags = WL_ALLOC_MAP_APERTURE_CPU_VISIBLE,
		.pmo_min = 64 * KiB, .pmo_max = 4 * MiB,
		.alloc_min = 64 * KiB, .alloc_max = 2 * MiB,
		.timing = T_STEADY, .gap_min = 1000, .gap_max = 100000,
	},
	{
		.name = "dpc",
		.describe = "a driver that builds MDLs over memory of its own and has Dxgkrnl "
			    "map them (MapMdlToIoMmu), beside callback MDLs, and whose DMA "
			    "completes in DPCs: each such DMA is bracketed by irql events "
			    "(DISPATCH_LEVEL, then PASSIVE_LEVEL), with no callback in between; "
			    "targets traces/scenarios/default.yaml",
		.nphys = 1,
		.target_live = 32,
		.weight = {
			[A_MDL_ALLOC] = 20, [A_MDL_FREE] = 18, [A_MDL_MAP] = 30, [A_MDL_UNMAP] = 30,
			[A_DRIVER_MDL_CREATE] = 20, [A_DRIVER_MDL_FREE] = 18,
			[A_FENCE_CREATE] = 5, [A_FENCE_DESTROY] = 5,
			[A_DMA] = 40, [A_DPC_DMA] = 60,
		},
		.mdl_min = 4 * KiB, .mdl_max = 256 * KiB,
		.timing = T_STEADY, .gap_min = 1000, .gap_max = 100000,
	},
	{
		.name = "cpu",
		.describe = "the CPU side of a WDDM 3.0 driver: physical memory objects over RAM "
			    "and over IO space (in the hole below 4 GiB), with CPU views for kernel "
			    "and user mode of each caching type and ADLs for the GPU; CPU reads and "
			    "writes through the views, through aperture allocations' "
			    "CpuVisibleAddress while they are mapped, and through the frame-buffer "
			    "save section, which the driver pins for the GPU or maps chunk by chunk "
			    "for the CPU between power transitions, always with the lead's "
			    "hAdapter; targets adapter 0 of traces/scenarios/logical-remap.yaml",
		.nphys = 1,
		.target_live = 40,
		.weight = {
			[A_PMO_CREATE] = 30, [A_PMO_DESTROY] = 30, [A_ADL_ALLOC] = 40,
			[A_ADL_FREE] = 38,
			[A_ALLOC_CREATE] = 25, [A_ALLOC_DESTROY] = 22, [A_MAP_APERTURE] = 25,
			[A_UNMAP_APERTURE] = 22,
			[A_FENCE_CREATE] = 5, [A_FENCE_DESTROY] = 5,
			[A_DMA] = 60,
			[A_PMO_CREATE_IO] = 15, [A_VIEW_MAP] = 40, [A_VIEW_UNMAP] = 38,
			[A_CPU_ACCESS] = 120,
			[A_FB_PIN] = 4, [A_FB_UNPIN] = 4, [A_FB_MAP] = 15, [A_FB_UNMAP] = 15,
		},
		.seg_weight = { [SC_APERTURE] = 1 },
		.aperture_flags = WL_ALLOC_MAP_APERTURE_CPU_VISIBLE,
		.pmo_min = 4 * KiB, .pmo_max = 1 * MiB,
		.alloc_min = 64 * KiB, .alloc_max = 1 * MiB,
		.io_base = 0xd0000000, .io_size = 16 * MiB,
		.fb_section = 64 * MiB,
		.timing = T_STEADY, .gap_min = 1000, .gap_max = 100000,
	},
};

#define NPROFILES (sizeof(profiles) / sizeof(profiles[0]))

const char *const *gen_profiles(void)
{
	static const char *const names[] = { "desktop", "game", "power-cycle", "remap", "dpc", "cpu",
					     NULL };

	return names;
}

const struct profile *gen_profile_find(const char *name)
{
	for (size_t i = 0; name && i < NPROFILES; i++)
		if (!strcmp(profiles[i].name, name))
			return &profiles[i];
	return NULL;
}

const char *gen_describe(const char *profile)
{
	const struct profile *p = gen_profile_find(profile);

	return p ? p->describe : NULL;
}
