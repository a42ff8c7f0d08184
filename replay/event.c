/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "event.h"

#define F(n, s) { n, s }

const struct wl_desc wl_catalogue[WL_NKINDS] = {
	[WL_SECURE_VM_CREATE] = { "secure_vm_create", 1, { F("adapter", WL_ADAPTER) } },
	[WL_ALLOC_CONTIGUOUS] = { "alloc_contiguous", 4, { F("adapter", WL_ADAPTER), F("id", WL_ID),
				  F("bytes", WL_BYTES), F("cache", WL_ARG) } },
	[WL_FREE_CONTIGUOUS] = { "free_contiguous", 2, { F("adapter", WL_ADAPTER), F("id", WL_ID) } },
	[WL_ALLOC_MDL] = { "alloc_mdl", 3, { F("adapter", WL_ADAPTER), F("id", WL_ID),
			   F("bytes", WL_BYTES) } },
	[WL_FREE_MDL] = { "free_mdl", 2, { F("adapter", WL_ADAPTER), F("id", WL_ID) } },
	[WL_MAP_MDL] = { "map_mdl", 3, { F("adapter", WL_ADAPTER), F("id", WL_ID),
			 F("mdl", WL_REF) } },
	[WL_UNMAP_MDL] = { "unmap_mdl", 2, { F("adapter", WL_ADAPTER), F("id", WL_ID) } },
	[WL_PMO_CREATE] = { "pmo_create", 4, { F("adapter", WL_ADAPTER), F("id", WL_ID),
			    F("bytes", WL_BYTES), F("cache", WL_ARG) } },
	[WL_PMO_DESTROY] = { "pmo_destroy", 2, { F("adapter", WL_ADAPTER), F("id", WL_ID) } },
	[WL_ADL_ALLOC] = { "adl_alloc", 5, { F("adapter", WL_ADAPTER), F("id", WL_ID),
			   F("pmo", WL_REF), F("offset", WL_OFFSET), F("bytes", WL_BYTES) } },
	[WL_ADL_FREE] = { "adl_free", 2, { F("adapter", WL_ADAPTER), F("id", WL_ID) } },
	[WL_ALLOC_CREATE] = { "alloc_create", 5, { F("adapter", WL_ADAPTER), F("id", WL_ID),
			      F("bytes", WL_BYTES), F("segment", WL_ARG), F("flags", WL_FLAGS) } },
	[WL_ALLOC_DESTROY] = { "alloc_destroy", 2, { F("adapter", WL_ADAPTER), F("id", WL_ID) } },
	[WL_MAP_APERTURE] = { "map_aperture", 4, { F("adapter", WL_ADAPTER), F("id", WL_ID),
			      F("offset_pages", WL_OFFSET), F("pages", WL_BYTES) } },
	[WL_UNMAP_APERTURE] = { "unmap_aperture", 2, { F("adapter", WL_ADAPTER), F("id", WL_ID) } },
	[WL_TRANSFER] = { "transfer", 4, { F("adapter", WL_ADAPTER), F("id", WL_ID),
			  F("dir", WL_ARG), F("bytes", WL_BYTES) } },
	[WL_FENCE_CREATE] = { "fence_create", 2, { F("adapter", WL_ADAPTER), F("id", WL_ID) } },
	[WL_FENCE_DESTROY] = { "fence_destroy", 2, { F("adapter", WL_ADAPTER), F("id", WL_ID) } },
	[WL_DMA] = { "dma", 6, { F("adapter", WL_ADAPTER), F("phys", WL_PHYS), F("id", WL_ID),
		     F("offset", WL_OFFSET), F("bytes", WL_BYTES), F("write", WL_ARG) } },
	[WL_POWER] = { "power", 3, { F("adapter", WL_ADAPTER), F("phys", WL_PHYS),
		       F("state", WL_ARG) } },
	[WL_MEMORY] = { "memory", 2, { F("commit_available", WL_OFFSET),
			F("lockable_available", WL_BYTES) } },
	[WL_IRQL] = { "irql", 1, { F("level", WL_ARG) } },
	[WL_DRIVER_MDL_CREATE] = { "driver_mdl_create", 3, { F("adapter", WL_ADAPTER),
				   F("id", WL_ID), F("bytes", WL_BYTES) } },
	[WL_DRIVER_MDL_FREE] = { "driver_mdl_free", 2, { F("adapter", WL_ADAPTER), F("id", WL_ID) } },
	[WL_DMA_RAW] = { "dma_raw", 5, { F("adapter", WL_ADAPTER), F("phys", WL_PHYS),
			 F("address", WL_OFFSET), F("bytes", WL_BYTES), F("write", WL_ARG) } },
	[WL_DMA_EXCLUSIVE] = { "dma_exclusive", 5, { F("adapter", WL_ADAPTER), F("phys", WL_PHYS),
			       F("address", WL_OFFSET), F("bytes", WL_BYTES),
			       F("write", WL_ARG) } },
	[WL_FB_PIN] = { "fb_pin", 4, { F("adapter", WL_ADAPTER), F("id", WL_ID), F("phys", WL_PHYS),
			F("hadapter", WL_ARG) } },
	[WL_FB_UNPIN] = { "fb_unpin", 3, { F("adapter", WL_ADAPTER), F("id", WL_ID),
			  F("hadapter", WL_ARG) } },
	[WL_FB_MAP] = { "fb_map", 6, { F("adapter", WL_ADAPTER), F("id", WL_ID), F("phys", WL_PHYS),
			F("hadapter", WL_ARG), F("offset", WL_OFFSET), F("bytes", WL_BYTES) } },
	[WL_FB_UNMAP] = { "fb_unmap", 3, { F("adapter", WL_ADAPTER), F("id", WL_ID),
			  F("hadapter", WL_ARG) } },
	[WL_CPU_ACCESS] = { "cpu_access", 5, { F("adapter", WL_ADAPTER), F("id", WL_ID),
			    F("offset", WL_OFFSET), F("bytes", WL_BYTES), F("write", WL_ARG) } },
	[WL_PMO_CREATE_IO] = { "pmo_create_io", 5, { F("adapter", WL_ADAPTER), F("id", WL_ID),
			       F("base", WL_OFFSET), F("bytes", WL_BYTES), F("cache", WL_ARG) } },
	[WL_PMO_MAP_CPU] = { "pmo_map_cpu", 6, { F("adapter", WL_ADAPTER), F("id", WL_ID),
			     F("pmo", WL_REF), F("mode", WL_ARG), F("offset", WL_OFFSET),
			     F("bytes", WL_BYTES) } },
	[WL_PMO_UNMAP_CPU] = { "pmo_unmap_cpu", 2, { F("adapter", WL_ADAPTER), F("id", WL_ID) } },
	[WL_IOMMU_DISABLE] = { "iommu_disable", 1, { F("adapter", WL_ADAPTER) } },
	[WL_FB_SAVE_SIZE] = { "fb_save_size", 3, { F("adapter", WL_ADAPTER), F("phys", WL_PHYS),
			      F("bytes", WL_BYTES) } },
};

/* Each creating kind and the kind that ends what it created. */
static const struct {
	uint32_t create, destroy;
} wl_pairs[] = {
	{ WL_ALLOC_CONTIGUOUS, WL_FREE_CONTIGUOUS }, { WL_ALLOC_MDL, WL_FREE_MDL },
	{ WL_MAP_MDL, WL_UNMAP_MDL }, { WL_PMO_CREATE, WL_PMO_DESTROY },
	{ WL_ADL_ALLOC, WL_ADL_FREE }, { WL_ALLOC_CREATE, WL_ALLOC_DESTROY },
	{ WL_FENCE_CREATE, WL_FENCE_DESTROY }, { WL_DRIVER_MDL_CREATE, WL_DRIVER_MDL_FREE },
	{ WL_FB_PIN, WL_FB_UNPIN }, { WL_FB_MAP, WL_FB_UNMAP },
	{ WL_PMO_CREATE_IO, WL_PMO_DESTROY }, { WL_PMO_MAP_CPU, WL_PMO_UNMAP_CPU },
};

bool wl_creates(uint32_t kind)
{
	return wl_destroy_of(kind) >= 0;
}

bool wl_destroys(uint32_t kind)
{
	for (size_t i = 0; i < sizeof(wl_pairs) / sizeof(wl_pairs[0]); i++)
		if (wl_pairs[i].destroy == kind)
			return true;
	return false;
}

bool wl_uses(uint32_t kind)
{
	return kind == WL_MAP_APERTURE || kind == WL_UNMAP_APERTURE || kind == WL_TRANSFER ||
	       kind == WL_DMA || kind == WL_CPU_ACCESS;
}

bool wl_refers(uint32_t kind)
{
	return kind == WL_MAP_MDL || kind == WL_ADL_ALLOC || kind == WL_PMO_MAP_CPU;
}

int wl_destroy_of(uint32_t kind)
{
	for (size_t i = 0; i < sizeof(wl_pairs) / sizeof(wl_pairs[0]); i++)
		if (wl_pairs[i].create == kind)
			return (int)wl_pairs[i].destroy;
	return -EINVAL;
}

int wl_kind_lookup(const char *name)
{
	size_t plen = strlen(WL_PROVIDER);

	if (!strncmp(name, WL_PROVIDER, plen) && name[plen] == ':')
		name += plen + 1;
	for (int k = 0; k < WL_NKINDS; k++)
		if (!strcmp(wl_catalogue[k].name, name))
			return k;
	return -ENOENT;
}

char *wl_format(const struct wl_event *e, char *buf, size_t len)
{
	const struct wl_desc *d = e->kind < WL_NKINDS ? &wl_catalogue[e->kind] : NULL;
	size_t n;

	if (!d) {
		snprintf(buf, len, "unknown(%u)", e->kind);
		return buf;
	}
	n = (size_t)snprintf(buf, len, "%s", d->name);
	for (unsigned int i = 0; i < d->nfields && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, " %s=%llu", d->fields[i].name,
				      (unsigned long long)e->v[d->fields[i].slot]);
	return buf;
}
