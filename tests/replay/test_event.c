/* SPDX-License-Identifier: MIT */
/* The workload-event catalogue: names, fields, formatting. */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "replay/event.h"

Test(event, every_kind_has_a_unique_name_and_fields_in_distinct_slots)
{
	for (int k = 0; k < WL_NKINDS; k++) {
		const struct wl_desc *d = &wl_catalogue[k];
		bool used[WL_NSLOTS] = { 0 };

		cr_assert_not_null(d->name, "kind %d", k);
		cr_assert_gt(d->nfields, 0, "%s", d->name);
		cr_assert_leq(d->nfields, WL_MAX_FIELDS);
		for (unsigned int f = 0; f < d->nfields; f++) {
			cr_assert_lt(d->fields[f].slot, WL_NSLOTS);
			cr_assert_not(used[d->fields[f].slot], "%s.%s", d->name, d->fields[f].name);
			used[d->fields[f].slot] = true;
		}
		for (int j = 0; j < k; j++)
			cr_assert_str_neq(d->name, wl_catalogue[j].name);
	}
}

Test(event, catalogue_matches_the_design_contract)
{
	/* DESIGN.md's field lists, in order */
	static const char *const expect[][7] = {
		{ "secure_vm_create", "adapter" },
		{ "alloc_contiguous", "adapter", "id", "bytes", "cache" },
		{ "alloc_mdl", "adapter", "id", "bytes" },
		{ "map_mdl", "adapter", "id", "mdl" },
		{ "pmo_create", "adapter", "id", "bytes", "cache" },
		{ "adl_alloc", "adapter", "id", "pmo", "offset", "bytes" },
		{ "alloc_create", "adapter", "id", "bytes", "segment", "flags" },
		{ "map_aperture", "adapter", "id", "offset_pages", "pages" },
		{ "transfer", "adapter", "id", "dir", "bytes" },
		{ "dma", "adapter", "phys", "id", "offset", "bytes", "write" },
		{ "power", "adapter", "phys", "state" },
		{ "memory", "commit_available", "lockable_available" },
		{ "irql", "level" },
		{ "driver_mdl_create", "adapter", "id", "bytes" },
		{ "driver_mdl_free", "adapter", "id" },
		{ "dma_raw", "adapter", "phys", "address", "bytes", "write" },
		{ "dma_exclusive", "adapter", "phys", "address", "bytes", "write" },
		{ "fb_pin", "adapter", "id", "phys", "hadapter" },
		{ "fb_unpin", "adapter", "id", "hadapter" },
		{ "fb_map", "adapter", "id", "phys", "hadapter", "offset", "bytes" },
		{ "fb_unmap", "adapter", "id", "hadapter" },
		{ "cpu_access", "adapter", "id", "offset", "bytes", "write" },
		{ "pmo_create_io", "adapter", "id", "base", "bytes", "cache" },
		{ "pmo_map_cpu", "adapter", "id", "pmo", "mode", "offset", "bytes" },
		{ "pmo_unmap_cpu", "adapter", "id" },
		{ "iommu_disable", "adapter" },
		{ "fb_save_size", "adapter", "phys", "bytes" },
	};

	for (size_t i = 0; i < sizeof(expect) / sizeof(expect[0]); i++) {
		int k = wl_kind_lookup(expect[i][0]);

		cr_assert_geq(k, 0, "%s missing", expect[i][0]);
		for (unsigned int f = 0; f < 6 && expect[i][f + 1]; f++)
			cr_assert_str_eq(wl_catalogue[k].fields[f].name, expect[i][f + 1], "%s",
					 expect[i][0]);
	}
}

Test(event, lookup_takes_the_provider_prefix_or_not)
{
	cr_assert_eq(wl_kind_lookup("gpuiso_wl:alloc_mdl"), WL_ALLOC_MDL);
	cr_assert_eq(wl_kind_lookup("alloc_mdl"), WL_ALLOC_MDL);
	cr_assert_eq(wl_kind_lookup("other:alloc_mdl"), -ENOENT);
	cr_assert_eq(wl_kind_lookup("gpuiso_wl:nope"), -ENOENT);
}

Test(event, format_names_every_field)
{
	struct wl_event e = { .kind = WL_DMA };
	char buf[128];

	e.v[WL_ADAPTER] = 1;
	e.v[WL_PHYS] = 2;
	e.v[WL_ID] = 7;
	e.v[WL_OFFSET] = 4096;
	e.v[WL_BYTES] = 64;
	e.v[WL_ARG] = 1;
	cr_assert_str_eq(wl_format(&e, buf, sizeof(buf)),
			 "dma adapter=1 phys=2 id=7 offset=4096 bytes=64 write=1");
}

/* What each kind does to the ids it names: the engine, trim and import maps go by it. */
Test(event, lifetimes_of_the_frame_buffer_cpu_and_io_kinds)
{
	cr_assert_eq(wl_destroy_of(WL_FB_PIN), WL_FB_UNPIN);
	cr_assert_eq(wl_destroy_of(WL_FB_MAP), WL_FB_UNMAP);
	cr_assert_eq(wl_destroy_of(WL_PMO_CREATE_IO), WL_PMO_DESTROY, "a PMO of IO space ends as any PMO");
	cr_assert_eq(wl_destroy_of(WL_PMO_MAP_CPU), WL_PMO_UNMAP_CPU);
	cr_assert(wl_refers(WL_PMO_MAP_CPU), "a CPU view names its PMO");
	cr_assert(wl_refers(WL_MAP_MDL) && wl_refers(WL_ADL_ALLOC));
	cr_assert_not(wl_refers(WL_FB_PIN) || wl_refers(WL_CPU_ACCESS) || wl_refers(WL_DMA));
	cr_assert(wl_uses(WL_CPU_ACCESS), "CPU access acts on a live object");
	cr_assert_not(wl_creates(WL_CPU_ACCESS) || wl_destroys(WL_CPU_ACCESS));
	cr_assert_not(wl_creates(WL_IOMMU_DISABLE) || wl_destroys(WL_IOMMU_DISABLE) ||
		      wl_uses(WL_IOMMU_DISABLE), "disabling the IOMMU names no object");
}
