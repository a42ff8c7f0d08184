/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <string.h>

#define LOG_PREFIX "pmo"
#include "common/log.h"
#include "domain_internal.h"
#include "gate_internal.h"
#include "handle_internal.h"
#include "internal.h"

/*
 * The WDDM 3.0 memory management services: physical memory objects, CPU
 * views of them, and address descriptor lists (ADLs) that lock part of a
 * PMO for the GPU and describe it by logical pages (one contiguous run) in
 * logical-remap mode, or by physical pages otherwise.
 */

/*
 * The services are WDDM 3.0's ("introduced to describe physical memory
 * allocation and mapping of logical/virtual views"): a driver of an earlier
 * version has none of them, as it has none of the WDDM 3.0 caps the
 * scenario loader refuses it. Its call is a CB_VERSION violation, refused.
 */
static int svc_version(struct core *c, struct adapter *a, const char *name)
{
	if (a->cfg->wddm >= SCN_WDDM(3, 0))
		return 0;
	viol(c, CORE_V_CB_VERSION, "%s on %s: a WDDM 3.0 memory service, which a WDDM %u.%u driver does not have",
	     name, a->cfg->name, a->cfg->wddm / 10, a->cfg->wddm % 10);
	return -EPERM;
}

/* cb_enter() and the version: the start of every WDDM 3.0 service. */
static int svc_enter(struct core *c, unsigned int adapter, const char *name, struct adapter **a)
{
	int rc = cb_enter(c, adapter, name, a);

	return rc ? rc : svc_version(c, *a, name);
}

/* cb_handle() for a WDDM 3.0 service: the version is judged before the handle. */
static struct hobj *svc_handle(struct core *c, unsigned int adapter, const char *name,
			       core_handle_t h, enum hkind kind, struct adapter **a, int *rc)
{
	struct hobj *o;

	*rc = svc_enter(c, adapter, name, a);
	if (*rc)
		return NULL;
	o = handle_get(c, h, kind, adapter, name);
	if (!o)
		*rc = -EINVAL;
	return o;
}

int core_pmo_create(struct core *core, unsigned int adapter, uint64_t bytes,
		    enum cache_type cache, core_handle_t *h)
{
	struct adapter *a;
	struct hobj *o;
	int rc;

	rc = svc_enter(core, adapter, "DxgkCbCreatePhysicalMemoryObject", &a);
	if (rc)
		return rc;
	if (!bytes || !cache_type_valid(cache))
		return -EINVAL;
	if (fp_should_fail(core->fp, FP_MEM_PMO_CREATE))
		return -ENOMEM;
	rc = handle_new(core, H_PMO, adapter, h, &o);
	if (rc)
		return rc;
	o->u.pmo.cache = cache;
	rc = pages_alloc(core, &o->pg, bytes, 0);
	if (rc) {
		obj_destroy(core, *h);
		*h = 0;
	}
	return rc;
}

int core_pmo_create_io(struct core *core, unsigned int adapter, uint64_t base, uint64_t bytes,
		       enum cache_type cache, core_handle_t *h)
{
	static const char name[] = "DxgkCbCreatePhysicalMemoryObject(IO space)";
	struct adapter *a;
	struct hobj *o;
	int rc;

	rc = svc_enter(core, adapter, name, &a);
	if (rc)
		return rc;
	if (!bytes || base % GPUISO_PAGE_SIZE || bytes % GPUISO_PAGE_SIZE || !cache_type_valid(cache) ||
	    base >= PHYSMEM_MAX_ADDR || bytes > PHYSMEM_MAX_ADDR - base)
		return -EINVAL;
	/* IO space is what the driver says is device memory: never installed RAM */
	if (physmem_overlaps_ram(core->pm, base, bytes)) {
		log_info("%s: [%#llx, +%#llx) is installed memory, not IO space", name,
			 (unsigned long long)base, (unsigned long long)bytes);
		return -EFAULT;
	}
	rc = handle_new(core, H_PMO, adapter, h, &o);
	if (rc)
		return rc;
	o->u.pmo.cache = cache;
	o->u.pmo.io_space = true;
	/* the driver's range, not the allocator's: nothing committed, locked or freed */
	rc = phys_runs_add(&o->pg.runs, base, bytes / GPUISO_PAGE_SIZE);
	if (rc) {
		obj_destroy(core, *h);
		*h = 0;
		return rc;
	}
	o->pg.npages = bytes / GPUISO_PAGE_SIZE;
	return 0;
}

int core_pmo_destroy(struct core *core, unsigned int adapter, core_handle_t h)
{
	static const char name[] = "DxgkCbDestroyPhysicalMemoryObject";
	struct adapter *a;
	struct hobj *o;
	int rc;

	o = svc_handle(core, adapter, name, h, H_PMO, &a, &rc);
	if (!o)
		return rc;
	if (o->u.pmo.adls || o->u.pmo.views || o->u.pmo.opens) {
		viol(core, CORE_V_PMO_BUSY, "%s: PMO 0x%x still has %u ADL(s), %u view(s), %u open handle(s)",
		     name, h, o->u.pmo.adls, o->u.pmo.views, o->u.pmo.opens);
		return -EBUSY;
	}
	obj_destroy(core, h);
	return 0;
}

/* The counter of a PMO that a child handle holds, or NULL when the PMO is gone. */
static uint32_t *pmo_count(struct core *c, core_handle_t pmo, enum hkind child)
{
	struct hobj *p = handle_peek(c, pmo);

	if (!p || p->kind != H_PMO)
		return NULL;
	return child == H_ADL ? &p->u.pmo.adls : child == H_VIEW ? &p->u.pmo.views :
								&p->u.pmo.opens;
}

/*
 * A handle that refers to a PMO and counts against it while it lives
 * (open handle, CPU view, ADL): created over [offset, offset+bytes) of the
 * PMO's pages (no pages for an open handle).
 */
static int pmo_child(struct core *c, unsigned int adapter, const char *name, core_handle_t pmo,
		     enum hkind kind, uint64_t offset, uint64_t bytes, core_handle_t *h,
		     struct hobj **child)
{
	struct adapter *a;
	struct hobj *p;
	int rc;

	p = svc_handle(c, adapter, name, pmo, H_PMO, &a, &rc);
	if (!p)
		return rc;
	rc = handle_new(c, kind, adapter, h, child);
	if (rc)
		return rc;
	(*child)->u.view.pmo = pmo; /* .pmo sits first in every child's union member */
	if (kind == H_VIEW) {
		/* DxgkCbMapPhysicalMemory rounds to pages and says where the data starts */
		uint64_t first = offset - offset % GPUISO_PAGE_SIZE;

		(*child)->u.view.start = offset - first;
		(*child)->u.view.cache = p->u.pmo.cache;
		(*child)->u.view.io_space = p->u.pmo.io_space;
		rc = bytes && offset + bytes > offset ?
			     pages_slice(&p->pg, first, offset + bytes - first, &(*child)->pg) :
			     -ERANGE;
	} else if (kind != H_PMO_OPEN) {
		rc = pages_slice(&p->pg, offset, bytes, &(*child)->pg);
	}
	if (rc) {
		obj_destroy(c, *h);
		*h = 0;
		return rc;
	}
	(*pmo_count(c, pmo, kind))++;
	return 0;
}

/* Release a child handle and its count on the PMO. */
static int pmo_child_free(struct core *c, unsigned int adapter, const char *name, core_handle_t h,
			  enum hkind kind)
{
	struct adapter *a;
	struct hobj *o;
	uint32_t *count;
	int rc;

	o = svc_handle(c, adapter, name, h, kind, &a, &rc);
	if (!o)
		return rc;
	if (kind == H_VIEW && !o->u.view.pmo) {
		viol(c, CORE_V_BAD_HANDLE, "%s: handle 0x%x is not a view of a PMO", name, h);
		return -EINVAL;
	}
	count = pmo_count(c, o->u.view.pmo, kind);
	if (count)
		(*count)--;
	obj_destroy(c, h);
	return 0;
}

int core_pmo_open(struct core *core, unsigned int adapter, core_handle_t pmo, core_handle_t *h)
{
	struct hobj *o;

	return pmo_child(core, adapter, "DxgkCbOpenPhysicalMemoryObject", pmo, H_PMO_OPEN, 0, 0,
			 h, &o);
}

int core_pmo_close(struct core *core, unsigned int adapter, core_handle_t h)
{
	return pmo_child_free(core, adapter, "DxgkCbClosePhysicalMemoryObject", h, H_PMO_OPEN);
}

int core_pmo_map_cpu(struct core *core, unsigned int adapter, core_handle_t pmo,
		     enum cpu_access mode, uint64_t offset, uint64_t bytes, core_handle_t *h)
{
	struct hobj *o;
	int rc;

	if (mode != CPU_KERNEL && mode != CPU_USER)
		return -EINVAL;
	rc = pmo_child(core, adapter, "DxgkCbMapPhysicalMemory", pmo, H_VIEW, offset, bytes, h,
		       &o);
	if (!rc)
		o->u.view.mode = mode;
	return rc;
}

int core_view_info(struct core *core, core_handle_t h, struct core_view_info *info)
{
	struct hobj *o = handle_peek(core, h);

	if (!o || o->kind != H_VIEW)
		return -EINVAL;
	*info = (struct core_view_info){
		.mode = o->u.view.mode, .cache = o->u.view.cache, .io_space = o->u.view.io_space,
		.start = o->u.view.start, .bytes = o->pg.npages * GPUISO_PAGE_SIZE,
	};
	return 0;
}

int core_pmo_unmap_cpu(struct core *core, unsigned int adapter, core_handle_t h)
{
	return pmo_child_free(core, adapter, "DxgkCbUnmapPhysicalMemory", h, H_VIEW);
}

int core_adl_alloc(struct core *core, unsigned int adapter, core_handle_t pmo, uint64_t offset,
		   uint64_t bytes, core_handle_t *h)
{
	struct hobj *o;
	int rc;

	rc = pmo_child(core, adapter, "DxgkCbAllocateAdl", pmo, H_ADL, offset, bytes, h, &o);
	if (rc)
		return rc;
	/* Locked for the ADL's lifetime (RAM; IO space is not pageable), and mapped for the GPU. */
	rc = fp_should_fail(core->fp, FP_MEM_ADL_ALLOC) ? -ENOMEM
	     : handle_peek(core, pmo)->u.pmo.io_space ? 0
	     : pages_lock(core, &o->pg, o->pg.npages * GPUISO_PAGE_SIZE);
	if (!rc)
		rc = obj_map(core, &core->adapters[adapter], o);
	if (rc) {
		pmo_child_free(core, adapter, "DxgkCbAllocateAdl", *h, H_ADL);
		*h = 0;
	}
	return rc;
}

int core_adl_free(struct core *core, unsigned int adapter, core_handle_t h)
{
	return pmo_child_free(core, adapter, "DxgkCbFreeAdl", h, H_ADL);
}

int core_adl_info(struct core *core, core_handle_t h, struct core_adl_info *info)
{
	struct hobj *o = handle_peek(core, h);
	struct adapter *a;

	if (!o || o->kind != H_ADL)
		return -EINVAL;
	a = &core->adapters[o->adapter];
	info->pages = o->pg.npages;
	info->logical = o->map.mapped && o->map.logical;
	info->contiguous = dom_span(a, &o->pg, &o->map, 0) >= o->pg.npages * GPUISO_PAGE_SIZE;
	return dom_iova(a, &o->pg, &o->map, 0, &info->base);
}

/*
 * A CPU mapping that is not cached (non-cached or write-combined): copies
 * into it use streaming stores that bypass the cache. A frame-buffer chunk
 * is one too: what goes into a save area is not read before the restore.
 */
static bool uncached(const struct hobj *o)
{
	if (o->kind == H_VIEW)
		return o->u.view.fb_chunk || o->u.view.cache != CACHE_CACHED;
	return o->kind == H_CONTIG && o->u.contig.cache != CACHE_CACHED;
}

/*
 * The memory of a handle the CPU may touch. "The addresses described by an
 * ADL can't be mapped to a virtual address for direct CPU access"; an MDL's
 * IOMMU mapping is the device's address of it too (the CPU uses the MDL);
 * a PMO has none until a CPU view maps it: all are CPU_ACCESS violations.
 */
static struct hobj *cpu_memory(struct core *c, core_handle_t h, const char *what, int *rc)
{
	struct hobj *o = handle_any(c, h, what);

	*rc = -EINVAL;
	if (!o)
		return NULL;
	if (o->kind == H_ADL || o->kind == H_MDL_MAP || o->kind == H_PMO || o->kind == H_PMO_OPEN) {
		viol(c, CORE_V_CPU_ACCESS, "%s through %s 0x%x: it has no CPU address (map a CPU view of the PMO)",
		     what, hkind_name(o->kind), h);
		*rc = -EPERM;
		return NULL;
	}
	return o;
}

int core_view_rw(struct core *core, core_handle_t h, uint64_t offset, void *buf, uint64_t len,
		 bool write)
{
	int rc;
	struct hobj *o = cpu_memory(core, h, "CPU access", &rc);

	return o ? pages_rw(core, &o->pg, offset, buf, len, write) : rc;
}

/*
 * The CPU address the driver holds for a VidMm allocation: its
 * CpuVisibleAddress, "a kernel-mode virtual address that is valid as long
 * as the allocation is mapped into the aperture segment". Anything else is
 * CPU access through no address: a CPU_ACCESS violation, saying which.
 */
static struct hobj *alloc_cpu_memory(struct core *c, core_handle_t h, const struct hobj *o,
				     int *rc)
{
	struct hobj *v = o->u.alloc.aperture_mapped ? handle_peek(c, o->u.alloc.cpu_view) : NULL;

	if (v)
		return v;
	*rc = -EPERM;
	if (o->u.alloc.aperture_mapped)
		viol(c, CORE_V_CPU_ACCESS, "CPU access through allocation 0x%x: it was mapped into the aperture segment without MapApertureCpuVisible, so its CpuVisibleAddress is NULL",
		     h);
	else if (o->u.alloc.cpu_view_freed)
		viol(c, CORE_V_CPU_ACCESS, "CPU access through allocation 0x%x after UNMAP_APERTURE_SEGMENT freed its CpuVisibleAddress (event %llu): the address is valid only while the allocation is mapped into the aperture segment",
		     h, (unsigned long long)o->u.alloc.cpu_view_freed_at);
	else
		viol(c, CORE_V_CPU_ACCESS, "CPU access through allocation 0x%x: it has no CPU address (VidMm gives one only as MapApertureSegment2's CpuVisibleAddress, while the allocation is mapped into the aperture segment)",
		     h);
	return NULL;
}

#define CPU_ACCESS_CHUNK 4096u

int core_cpu_access(struct core *core, unsigned int adapter, core_handle_t h, uint64_t offset,
		    uint64_t bytes, bool write)
{
	struct adapter *a = adapter_get(core, adapter);
	uint8_t buf[CPU_ACCESS_CHUNK];
	struct hobj *o;
	int rc = -EINVAL;

	if (core->bugchecked)
		return -ESHUTDOWN;
	if (!a || !a->started)
		return -ENODEV;
	o = handle_any(core, h, "CPU access");
	if (o && o->adapter != adapter) {
		viol(core, CORE_V_BAD_HANDLE, "CPU access: handle 0x%x belongs to adapter %u, not %u",
		     h, o->adapter, adapter);
		return -EINVAL;
	}
	if (o)
		o = o->kind == H_ALLOC ? alloc_cpu_memory(core, h, o, &rc)
				       : cpu_memory(core, h, "CPU access", &rc);
	if (!o)
		return rc;
	if (!bytes)
		return -EINVAL;
	if (offset + bytes < offset || offset + bytes > o->pg.npages * GPUISO_PAGE_SIZE)
		return -ERANGE;
	/* what a write stores: the event's mark, so that two writes differ */
	memset(buf, 0xa5 ^ (uint8_t)core->event, sizeof(buf));
	for (uint64_t done = 0; done < bytes; done += CPU_ACCESS_CHUNK) {
		rc = pages_rw(core, &o->pg, offset + done, buf,
			      GPUISO_MIN(CPU_ACCESS_CHUNK, bytes - done), write);
		if (rc)
			return rc;
	}
	return 0;
}

int core_view_copy(struct core *core, core_handle_t dst, uint64_t dst_off, core_handle_t src,
		   uint64_t src_off, uint64_t bytes)
{
	int rc;
	struct hobj *d = cpu_memory(core, dst, "CPU copy", &rc);
	struct hobj *s = d ? cpu_memory(core, src, "CPU copy", &rc) : NULL;

	if (!d || !s)
		return rc;
	return pages_copy(core, &d->pg, dst_off, &s->pg, src_off, bytes, uncached(d));
}
