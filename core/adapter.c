/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define LOG_PREFIX "adapter"
#include "common/log.h"
#include "adapter_internal.h"
#include "domain_internal.h"
#include "gate_internal.h"
#include "handle_internal.h"
#include "hwcall_internal.h"
#include "internal.h"

/*
 * Starting and stopping a logical adapter: the caps queries that must come
 * before START_DEVICE, the DMA remapping decision, the IOMMUFlags decisions,
 * and enablement at start (registry) or at the first secure VM (staging key).
 */

static void start_failed(struct adapter *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void start_failed(struct adapter *a, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(a->start_error, sizeof(a->start_error), fmt, ap);
	va_end(ap);
	log_info("%s did not start: %s", a->cfg->name, a->start_error);
}

/* DXGKQAITYPE_DRIVERCAPS, _PHYSICAL_MEMORY_CAPS and _IOMMU_CAPS, all before START_DEVICE. */
static int query_caps(struct core *c, struct adapter *a)
{
	const struct kmd_ops *k = &c->kmd_merged;
	uint64_t highest;
	bool linear = false;
	int rc;

	memset(&a->caps, 0, sizeof(a->caps));
	rc = k->query_adapter_info(c, c->kmd, a->index, QAI_DRIVERCAPS, 0, &a->caps);
	if (rc)
		return rc;
	rc = k->query_adapter_info(c, c->kmd, a->index, QAI_PHYSICAL_MEMORY_CAPS, 0, &highest);
	if (!rc) {
		a->caps.has_physical_caps = true;
		a->caps.highest_visible_address = highest;
	} else if (rc != -ENOTSUP) {
		return rc;
	}
	rc = k->query_adapter_info(c, c->kmd, a->index, QAI_IOMMU_CAPS, 0, &linear);
	if (rc && rc != -ENOTSUP)
		return rc;
	a->caps.iommu_linear_remap = !rc && linear;
	a->caps.dma_remapping_compatible = a->cfg->caps.dma_remapping_compatible; /* from the INF */
	return 0;
}

/*
 * Remapping is needed iff the device cannot see the highest installed
 * physical address ("comparing the device's highest accessible physical
 * address to the memory installed on the system"). Then logical addresses
 * come from [0, highest visible] and the driver must support linear
 * remapping, MapApertureSegment2 and declare DmaRemappingCompatible = 3;
 * otherwise the adapter cannot start.
 */
static int decide_mode(struct core *c, struct adapter *a)
{
	const struct scn_system *sys = &c->scn->system;
	uint64_t top = sys->nmap ? scenario_memory_top(sys) : sys->highest_physical_address;
	const struct scn_caps *caps = &a->caps;
	int rc;

	if (!caps->has_physical_caps || caps->highest_visible_address >= top)
		return 0;
	if (!caps->iommu_linear_remap) {
		start_failed(a, "device sees up to %#llx but memory reaches %#llx: DMA remapping is needed and the driver does not report IOMMU linear remapping",
			     (unsigned long long)caps->highest_visible_address,
			     (unsigned long long)top);
		return -ENOTSUP;
	}
	if (!caps->map_aperture2) {
		start_failed(a, "DMA remapping is needed and the driver lacks MapAperture2Supported");
		return -ENOTSUP;
	}
	if (caps->dma_remapping_compatible != 3) {
		start_failed(a, "DMA remapping is needed and the INF's DmaRemappingCompatible is %u, not 3",
			     caps->dma_remapping_compatible);
		return -ENOTSUP;
	}
	/* Page 0 is never a logical address: a device that sees no further has none. */
	if (caps->highest_visible_address < 2 * GPUISO_PAGE_SIZE - 1) {
		start_failed(a, "DMA remapping is needed and the device sees only up to %#llx: not one logical page above page 0",
			     (unsigned long long)caps->highest_visible_address);
		return -ENOTSUP;
	}
	a->mode = MODE_LOGICAL;
	a->logical_limit = caps->highest_visible_address + 1;
	range_init(&a->iova);
	/* Logical address 0 is never handed out: a driver may use it as "none". */
	rc = range_add(&a->iova, GPUISO_PAGE_SIZE, a->logical_limit - GPUISO_PAGE_SIZE);
	/* nor the interrupt window, where a device's writes are interrupts, not DMA */
	if (!rc && blocked_irq_window(GPUISO_PAGE_SIZE, a->logical_limit - GPUISO_PAGE_SIZE))
		rc = range_remove(&a->iova, 0xFEE00000ull,
				  GPUISO_MIN(SZ_1M, a->logical_limit - 0xFEE00000ull));
	return rc;
}

/* When an adapter not attached at start is: at the first secure VM with the staging key. */
static enum attach_on attach_later(const struct core *c, const struct adapter *a)
{
	return c->scn->registry.secure_vm_staging && a->caps.iommu_secure_mode ?
		ATTACH_AT_SECURE_VM : ATTACH_NEVER;
}

/* IOMMUFlags, exactly as documented: each bit only counts with the one before it. */
static void decide_flags(struct core *c, struct adapter *a)
{
	uint32_t flags = c->scn->registry.iommu_flags;

	if ((flags & IOMMU_FLAG_ENABLED) && !a->caps.iommu_secure_mode &&
	    !(flags & IOMMU_FLAG_BYPASS_DRIVER_CAP)) {
		adapter_error(a, "IOMMUFlags enabled bits ignored: the driver does not report IoMmuSecureModeSupported and BypassDriverCap is not set");
		flags &= ~(uint32_t)(IOMMU_FLAG_ENABLED | IOMMU_FLAG_ENABLE_MAPPINGS |
				     IOMMU_FLAG_ENABLE_ATTACH);
	}
	a->want_enable = flags & IOMMU_FLAG_ENABLED;
	a->want_mappings = a->want_enable && (flags & IOMMU_FLAG_ENABLE_MAPPINGS);
	a->want_attach = a->want_mappings && (flags & IOMMU_FLAG_ENABLE_ATTACH);
	a->attach_on = a->mode == MODE_LOGICAL || a->want_attach ? ATTACH_AT_START :
		       attach_later(c, a);
}

/* VidMm's VRAM segment of the lead adapter: everything below its frame-buffer reserve. */
static int vram_init(struct core *c, struct adapter *a)
{
	uint64_t vram = hwc_vram_size(c, a, 0);
	uint64_t top = vram - GPUISO_MIN(a->phys[0].fb_bytes, vram);

	range_init(&a->vram);
	return top > GPUISO_PAGE_SIZE ? range_add(&a->vram, GPUISO_PAGE_SIZE, top - GPUISO_PAGE_SIZE) : 0;
}

/* A PopulatedFromSystemMemory segment: system pages VidMm maps like any GPU memory. */
static int pfs_init(struct core *c, struct adapter *a)
{
	for (size_t i = 0; i < a->nphys; i++) {
		struct phys_adapter *p = &a->phys[i];
		uint64_t bytes = a->cfg->phys[i].populated_from_system;
		int rc;

		if (!bytes)
			continue;
		rc = pages_alloc(c, &p->pfs, bytes, PG_LOCK);
		if (rc) {
			start_failed(a, "PopulatedFromSystemMemory segment of %llu bytes: %s",
				     (unsigned long long)bytes, ntstatus_name(rc));
			return rc;
		}
		p->pfs_map = (struct dmap){ .wanted = true, .perm = HW_PERM_RW };
	}
	return 0;
}

static void pfs_fini(struct core *c, struct adapter *a)
{
	for (size_t i = 0; i < a->nphys; i++) {
		dom_unmap(c, a, &a->phys[i].pfs, &a->phys[i].pfs_map);
		pages_free(c, &a->phys[i].pfs);
	}
}

/*
 * WDDM 3.0 certification: "Discrete GPUs must support IOMMU DMA remapping";
 * for integrated ones it is optional. Supporting it takes every cap the
 * remapping decision needs. A finding, not a reason to refuse the start.
 */
static void certify(struct adapter *a)
{
	const struct scn_caps *caps = &a->caps;
	const struct { bool has; const char *what; } needs[] = {
		{ caps->iommu_linear_remap, "DXGK_IOMMU_CAPS linear remapping" },
		{ caps->map_aperture2, "MapAperture2Supported" },
		{ caps->has_physical_caps, "DXGK_PHYSICAL_MEMORY_CAPS" },
		{ caps->dma_remapping_compatible == 3, "INF DmaRemappingCompatible 3" },
	};
	char missing[128] = "";

	if (a->cfg->integrated || a->cfg->wddm < SCN_WDDM(3, 0))
		return;
	for (size_t i = 0; i < sizeof(needs) / sizeof(needs[0]); i++)
		if (!needs[i].has)
			snprintf(missing + strlen(missing), sizeof(missing) - strlen(missing), "%s%s",
				 missing[0] ? ", " : "", needs[i].what);
	if (missing[0])
		snprintf(a->certification, sizeof(a->certification),
			 "a discrete WDDM %u.%u GPU must support IOMMU DMA remapping (WDDM 3.0 certification); missing: %s",
			 a->cfg->wddm / 10, a->cfg->wddm % 10, missing);
}

int adapter_start(struct core *c, struct adapter *a)
{
	uint32_t flags = c->scn->registry.iommu_flags;
	int rc;

	rc = query_caps(c, a);
	if (rc) {
		start_failed(a, "querying driver caps failed: %s", ntstatus_name(rc));
		return rc;
	}
	certify(a);
	rc = decide_mode(c, a);
	if (rc)
		return rc;
	decide_flags(c, a);
	rc = fb_init(c, a, a->start_error, sizeof(a->start_error));
	if (rc)
		return rc;
	rc = vram_init(c, a);
	if (rc)
		goto fb_fini;
	rc = pfs_init(c, a);
	if (rc)
		goto pfs_fini; /* the segments of the physical adapters before the one that failed */

	/* Logical remapping: attached before the device can touch any memory. */
	if (a->mode == MODE_LOGICAL) {
		rc = dom_enable(c, a, true, true);
		if (rc) {
			start_failed(a, "DMA remapping setup failed: %s%s%s", ntstatus_name(rc),
				     a->nerrors ? ": " : "", a->nerrors ? a->errors[a->nerrors - 1] : "");
			goto pfs_fini;
		}
	}

	a->started = true;
	rc = c->kmd_merged.start_device(c, c->kmd, a->index);
	if (rc) {
		start_failed(a, "DxgkDdiStartDevice failed: %s", ntstatus_name(rc));
		goto stop;
	}

	/* Registry-forced enablement, shortly after start. */
	if (a->mode != MODE_LOGICAL && a->want_enable) {
		rc = dom_enable(c, a, a->want_mappings, a->want_attach);
		if (rc && (flags & IOMMU_FLAG_ALLOW_FAILURE)) {
			adapter_error(a, "IOMMU enablement failed (%s); AllowFailure: the adapter runs without the IOMMU",
				      ntstatus_name(rc));
			/* AllowFailure "cannot override the behavior when created a secure VM" */
			a->attach_on = attach_later(c, a);
		} else if (rc) {
			start_failed(a, "IOMMU enablement failed: %s%s%s", ntstatus_name(rc),
				     a->nerrors ? ": " : "", a->nerrors ? a->errors[a->nerrors - 1] : "");
			goto stop_device;
		}
	}
	return 0;

stop_device:
	c->kmd_merged.stop_device(c, c->kmd, a->index);
stop:
	a->started = false;
	dom_teardown(c, a);
pfs_fini:
	pfs_fini(c, a);
fb_fini:
	fb_fini(c, a);
	return rc;
}

/*
 * Free leftovers in dependency order: allocations first (an aperture-mapped
 * one is unmapped through the KMD, which frees its CPU-visible view), views
 * and ADLs before their PMOs, maps before MDLs.
 */
static const enum hkind teardown_order[] = {
	H_ALLOC, H_VIEW, H_ADL, H_MDL_MAP, H_PMO_OPEN, H_PMO, H_MDL, H_DRIVER_MDL, H_CONTIG,
	H_FENCE,
};

static void report_leaks(struct core *c, struct adapter *a)
{
	for (size_t k = 0; k < ARRAY_SIZE(teardown_order); k++) {
		for (uint32_t i = 0; i < c->ht.next_index; i++) {
			struct hobj *o = &c->ht.chunks[i / H_CHUNK][i % H_CHUNK];
			core_handle_t h = (o->gen << H_INDEX_BITS) | i;

			if (o->kind != teardown_order[k] || o->adapter != a->index)
				continue;
			viol_handle(c, CORE_V_HANDLE_LEAK, h, "%s: %s 0x%x (%llu bytes) was never freed",
				    a->cfg->name, hkind_name(o->kind), h,
				    (unsigned long long)(o->pg.npages * GPUISO_PAGE_SIZE));
			if (o->kind == H_ALLOC && o->u.alloc.aperture_mapped)
				core_unmap_aperture(c, a->index, h);
			obj_destroy(c, h);
		}
	}
}

void adapter_stop(struct core *c, struct adapter *a)
{
	if (!a->started)
		return;
	c->kmd_merged.stop_device(c, c->kmd, a->index);
	report_leaks(c, a);
	pfs_fini(c, a);
	fb_fini(c, a);
	dom_teardown(c, a);
	a->started = false;
}
