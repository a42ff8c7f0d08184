/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <string.h>

#define LOG_PREFIX "vidmm"
#include "common/log.h"
#include "domain_internal.h"
#include "gate_internal.h"
#include "handle_internal.h"
#include "hwcall_internal.h"
#include "internal.h"

/*
 * VidMm's side: allocations and where they live, the mappings paging needs
 * (backing store mapped for the whole of a transfer, or for as long as an
 * allocation sits in a system-memory or aperture segment), aperture
 * mappings through the paging buffer, monitored fences, and GPU work.
 */

static int vidmm_enter(struct core *c, unsigned int adapter, struct adapter **a)
{
	*a = adapter_get(c, adapter);
	if (!*a)
		return -ENOENT;
	return (*a)->started ? 0 : -ENODEV;
}

/* vidmm_enter() and the allocation behind @h. */
static struct hobj *vidmm_alloc(struct core *c, unsigned int adapter, core_handle_t h,
				const char *name, struct adapter **a, int *rc)
{
	struct hobj *o;

	*rc = vidmm_enter(c, adapter, a);
	if (*rc)
		return NULL;
	o = handle_get(c, h, H_ALLOC, adapter, name);
	if (!o)
		*rc = -EINVAL;
	return o;
}

int core_alloc_create(struct core *core, unsigned int adapter, uint64_t bytes,
		      enum core_segment segment, uint32_t flags, core_handle_t *h)
{
	struct adapter *a;
	struct hobj *o;
	int rc;

	rc = vidmm_enter(core, adapter, &a);
	if (rc)
		return rc;
	if (!bytes || segment > CORE_SEG_SYSTEM)
		return -EINVAL;
	/* MapApertureCpuVisible belongs to MapApertureSegment2: without the cap, creation fails. */
	if ((flags & ALLOC_MAP_APERTURE_CPU_VISIBLE) && !a->caps.map_aperture2)
		return -EINVAL;
	/* Without AccessedPhysically an aperture request goes to the implicit system segment. */
	if (segment == CORE_SEG_APERTURE && !(flags & ALLOC_ACCESSED_PHYSICALLY))
		segment = CORE_SEG_SYSTEM;
	rc = handle_new(core, H_ALLOC, adapter, h, &o);
	if (rc)
		return rc;
	o->u.alloc.seg = segment;
	o->u.alloc.flags = flags;
	rc = pages_alloc(core, &o->pg, bytes, 0);
	if (!rc && segment == CORE_SEG_VRAM) {
		rc = range_take(&a->vram, o->pg.npages * GPUISO_PAGE_SIZE, GPUISO_PAGE_SIZE, UINT64_MAX,
				&o->u.alloc.vram_off);
		if (rc == -ENOSPC)
			rc = -ENOMEM; /* the VRAM segment is full */
	} else if (!rc) {
		/* Resident in system memory: locked and mapped for as long as it stays there. */
		rc = pages_lock(core, &o->pg, o->pg.npages * GPUISO_PAGE_SIZE);
		if (!rc)
			rc = obj_map(core, a, o);
	}
	if (rc) {
		obj_destroy(core, *h);
		*h = 0;
	}
	return rc;
}

int core_alloc_segment(struct core *core, core_handle_t h)
{
	struct hobj *o = handle_peek(core, h);

	return o && o->kind == H_ALLOC ? (int)o->u.alloc.seg : -EINVAL;
}

int core_alloc_destroy(struct core *core, unsigned int adapter, core_handle_t h)
{
	struct adapter *a;
	struct hobj *o;
	int rc;

	o = vidmm_alloc(core, adapter, h, "DestroyAllocation", &a, &rc);
	if (!o)
		return rc;
	if (o->u.alloc.aperture_mapped)
		core_unmap_aperture(core, adapter, h);
	if (o->u.alloc.seg == CORE_SEG_VRAM)
		range_add(&a->vram, o->u.alloc.vram_off, o->pg.npages * GPUISO_PAGE_SIZE);
	obj_destroy(core, h);
	return 0;
}

int core_map_aperture(struct core *core, unsigned int adapter, core_handle_t h,
		      uint64_t offset_pages, uint64_t pages)
{
	struct paging_op op = { .allocation = h, .offset_pages = offset_pages, .pages = pages };
	struct adapter *a;
	struct hobj *o, *v;
	core_handle_t view = 0;
	int rc;

	o = vidmm_alloc(core, adapter, h, "MapApertureSegment", &a, &rc);
	if (!o)
		return rc;
	if (o->u.alloc.seg != CORE_SEG_APERTURE) {
		log_info("allocation 0x%x is not in an aperture segment: no aperture mapping", h);
		return -EINVAL;
	}
	if (!pages || offset_pages + pages > o->pg.npages || offset_pages + pages < offset_pages)
		return -EINVAL;
	if (o->u.alloc.aperture_mapped)
		return -EBUSY;
	if (a->caps.map_aperture2) {
		op.kind = PAGING_MAP_APERTURE2;
		op.adl_logical = a->mode == MODE_LOGICAL;
		/* The ADL describes the whole allocation; AdlOffset picks the first page. */
		op.adl_offset = offset_pages;
		rc = dom_iova(a, &o->pg, &o->map, 0, &op.adl_base);
		if (rc)
			return rc;
		/* Always contiguous with logical mapping; otherwise as the pages fall. */
		op.adl_contiguous = dom_span(a, &o->pg, &o->map, 0) >= o->pg.npages * GPUISO_PAGE_SIZE;
		if (o->u.alloc.flags & ALLOC_MAP_APERTURE_CPU_VISIBLE) {
			rc = handle_new(core, H_VIEW, adapter, &view, &v);
			if (rc)
				return rc;
			v->u.view.cache = CACHE_CACHED; /* system pages, a kernel address */
			rc = pages_slice(&o->pg, offset_pages * GPUISO_PAGE_SIZE, pages * GPUISO_PAGE_SIZE, &v->pg);
			if (rc)
				goto release_view;
			op.cpu_visible_address = view;
		}
	} else {
		op.kind = PAGING_MAP_APERTURE; /* the MDL form, 1:1 only */
	}
	rc = core->kmd_merged.build_paging_buffer(core, core->kmd, adapter, &op);
	if (rc)
		goto release_view;
	o->u.alloc.aperture_mapped = true;
	o->u.alloc.cpu_view = view;
	o->u.alloc.cpu_view_freed = false;
	return 0;

release_view:
	obj_destroy(core, view);
	return rc;
}

int core_unmap_aperture(struct core *core, unsigned int adapter, core_handle_t h)
{
	struct paging_op op = { .kind = PAGING_UNMAP_APERTURE, .allocation = h };
	struct adapter *a;
	struct hobj *o;
	int rc;

	o = vidmm_alloc(core, adapter, h, "UnmapApertureSegment", &a, &rc);
	if (!o)
		return rc;
	if (!o->u.alloc.aperture_mapped)
		return -EINVAL;
	rc = core->kmd_merged.build_paging_buffer(core, core->kmd, adapter, &op);
	o->u.alloc.aperture_mapped = false;
	/* The CPU-visible address is freed right after the unmap. */
	if (o->u.alloc.cpu_view) {
		o->u.alloc.cpu_view_freed = true;
		o->u.alloc.cpu_view_freed_at = core->event;
	}
	obj_destroy(core, o->u.alloc.cpu_view);
	o->u.alloc.cpu_view = 0;
	return rc;
}

int core_transfer(struct core *core, unsigned int adapter, core_handle_t h, enum transfer_dir dir,
		  uint64_t bytes)
{
	struct adapter *a;
	struct hobj *o;
	int rc;

	o = vidmm_alloc(core, adapter, h, "paging transfer", &a, &rc);
	if (!o)
		return rc;
	if (o->u.alloc.seg != CORE_SEG_VRAM || (dir != TRANSFER_TO_VRAM && dir != TRANSFER_FROM_VRAM))
		return -EINVAL;
	if (!bytes)
		bytes = o->pg.npages * GPUISO_PAGE_SIZE;
	if (bytes > o->pg.npages * GPUISO_PAGE_SIZE)
		return -ERANGE;
	/* The backing store is mapped (and locked) for the duration of the transfer. */
	rc = pages_lock(core, &o->pg, o->pg.npages * GPUISO_PAGE_SIZE);
	if (rc)
		return rc;
	rc = obj_map(core, a, o);
	if (!rc)
		rc = core_gpu_copy(core, adapter, 0,
				   dir == TRANSFER_TO_VRAM ? HW_COPY_FROM_SYSTEM : HW_COPY_TO_SYSTEM,
				   o->u.alloc.vram_off, h, 0, bytes);
	dom_unmap(core, a, &o->pg, &o->map);
	o->map.wanted = false;
	pages_unlock(core, &o->pg);
	return rc;
}

int core_fence_create(struct core *core, unsigned int adapter, core_handle_t *h)
{
	struct adapter *a;
	struct hobj *o;
	int rc;

	rc = vidmm_enter(core, adapter, &a);
	if (rc)
		return rc;
	rc = handle_new(core, H_FENCE, adapter, h, &o);
	if (rc)
		return rc;
	rc = pages_alloc(core, &o->pg, GPUISO_PAGE_SIZE, PG_LOCK);
	if (!rc)
		rc = obj_map(core, a, o);
	if (rc) {
		obj_destroy(core, *h);
		*h = 0;
	}
	return rc;
}

int core_fence_destroy(struct core *core, unsigned int adapter, core_handle_t h)
{
	struct adapter *a;
	int rc;

	rc = vidmm_enter(core, adapter, &a);
	if (rc)
		return rc;
	if (!handle_get(core, h, H_FENCE, adapter, "DestroyMonitoredFence"))
		return -EINVAL;
	obj_destroy(core, h);
	return 0;
}

int core_handle_iova(struct core *core, core_handle_t h, uint64_t offset, iova_t *iova)
{
	struct hobj *o = handle_peek(core, h);

	if (!o || !o->pg.npages)
		return -EINVAL;
	return dom_iova(&core->adapters[o->adapter], &o->pg, &o->map, offset, iova);
}

int core_gpu_copy(struct core *core, unsigned int adapter, unsigned int phys,
		  enum hw_copy_dir dir, uint64_t vram_off, core_handle_t h, uint64_t offset,
		  uint64_t bytes)
{
	struct adapter *a = adapter_get(core, adapter);
	struct hobj *o;
	uint64_t first_iova = 0, copied;
	int rc = 0;

	if (!a || phys >= a->nphys)
		return -ENOENT;
	if (a->sched_suspended) {
		viol(core, CORE_V_WORK_IN_EXCLUSIVE, "%s: GPU work submitted while the scheduler is suspended",
		     a->cfg->name);
		return -EPERM;
	}
	o = handle_any(core, h, "GPU copy");
	if (!o)
		return -EINVAL;
	if (offset + bytes < offset || offset + bytes > o->pg.npages * GPUISO_PAGE_SIZE)
		return -ERANGE;
	if (fp_should_fail(core->fp, FP_GPU_COPY))
		return -EIO;
	copied = bytes;
	while (bytes && !rc) {
		struct hw_job job = { .dir = dir, .vram_off = vram_off };

		/*
		 * Memory never given a logical address: the device reaches
		 * for the physical one, the only address the driver has.
		 */
		rc = dom_iova(a, &o->pg, &o->map, offset, &job.iova);
		if (rc == -EINVAL && a->mode == MODE_LOGICAL) {
			job.iova = pages_pa(&o->pg, offset);
			rc = 0;
		}
		if (rc)
			break;
		if (bytes == copied)
			first_iova = job.iova;
		job.len = GPUISO_MIN(bytes, dom_span(a, &o->pg, &o->map, offset));
		rc = hwc_gpu_submit(core, a, phys, &job);
		offset += job.len;
		vram_off += job.len;
		bytes -= job.len;
	}
	rc = device_wait(core, a, phys, rc);
	/* memory never mapped for the device, reached with no domain between */
	if (!rc && !o->map.wanted && a->phys[phys].domain == CORE_NO_DOMAIN)
		exposure_note(core, a, phys, first_iova, copied, dir == HW_COPY_TO_SYSTEM,
			      CORE_EXPOSED_NO_DOMAIN);
	return rc;
}

int core_dma(struct core *core, unsigned int adapter, unsigned int phys, core_handle_t h,
	     uint64_t offset, uint64_t bytes, bool write)
{
	struct adapter *a = adapter_get(core, adapter);
	uint64_t vram;

	if (!a || phys >= a->nphys)
		return -ENOENT;
	if (!a->started)
		return -ENODEV;
	vram = hwc_vram_size(core, a, phys);
	if (!bytes || bytes > vram)
		return -EINVAL;
	/* The GPU's side of a DMA is scratch VRAM at offset 0. */
	return core_gpu_copy(core, adapter, phys, write ? HW_COPY_TO_SYSTEM : HW_COPY_FROM_SYSTEM, 0,
			     h, offset, bytes);
}
