/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define LOG_PREFIX "mem"
#include "common/log.h"
#include "domain_internal.h"
#include "gate_internal.h"
#include "handle_internal.h"
#include "internal.h"

/*
 * Objects behind handles, mapped for the device, and the WDDM 2.4 memory
 * callbacks: allocate and map in one step (contiguous memory, pages for an
 * MDL), and map/unmap of an MDL, Dxgkrnl's or the driver's own.
 */

void obj_destroy(struct core *c, core_handle_t h)
{
	struct hobj *o = handle_peek(c, h);

	if (!o)
		return;
	blocked_note_tomb(c, h, o);
	c->unmap_frees = o->pg.owned;
	dom_unmap(c, &c->adapters[o->adapter], &o->pg, &o->map);
	c->unmap_frees = false;
	pages_free(c, &o->pg);
	handle_release(c, h);
}

/* Make an object's pages device-visible (read/write) for as long as it lives. */
int obj_map(struct core *c, struct adapter *a, struct hobj *o)
{
	o->map = (struct dmap){ .wanted = true, .perm = HW_PERM_RW };
	return dom_map(c, a, &o->pg, &o->map);
}

/* The WDDM 2.4 callbacks are deprecated for a driver that supports logical remapping. */
static int refuse_deprecated(struct core *c, struct adapter *a, const char *name)
{
	if (!adapter_wddm30_memory(a))
		return 0;
	viol(c, CORE_V_DEPRECATED_CB, "%s on %s: deprecated for a driver that reports IOMMU linear remapping (%s mode); use the WDDM 3.0 services",
	     name, a->cfg->name, a->mode == MODE_LOGICAL ? "logical" : "1:1");
	return -EPERM;
}

/* Allocate-and-map in one step: what both WDDM 2.4 allocation callbacks do. */
static int alloc_mapped(struct core *c, unsigned int adapter, const char *name,
			enum hkind kind, enum fp_point point, uint64_t bytes, bool contiguous,
			enum cache_type cache, core_handle_t *h, struct hobj **obj)
{
	struct adapter *a;
	int rc;

	rc = cb_enter(c, adapter, name, &a);
	if (!rc)
		rc = refuse_deprecated(c, a, name);
	if (rc)
		return rc;
	if (!bytes || !cache_type_valid(cache))
		return -EINVAL;
	if (fp_should_fail_bytes(c->fp, point, bytes))
		return -ENOMEM;
	rc = handle_new(c, kind, adapter, h, obj);
	if (rc)
		return rc;
	if (kind == H_CONTIG)
		(*obj)->u.contig.cache = cache; /* how the CPU copies into it (core_view_copy()) */
	rc = pages_alloc(c, &(*obj)->pg, bytes, PG_LOCK | (contiguous ? PG_CONTIGUOUS : 0));
	if (!rc)
		rc = obj_map(c, a, *obj);
	if (rc) {
		obj_destroy(c, *h);
		*h = 0;
	}
	return rc;
}

static int free_mapped(struct core *c, unsigned int adapter, const char *name, enum hkind kind,
		       core_handle_t h)
{
	struct adapter *a;
	int rc;

	if (!cb_handle(c, adapter, name, h, kind, &a, &rc))
		return rc;
	obj_destroy(c, h);
	return 0;
}

int core_alloc_contiguous(struct core *core, unsigned int adapter, uint64_t bytes,
			  enum cache_type cache, core_handle_t *h, iova_t *logical)
{
	struct hobj *o;
	int rc;

	rc = alloc_mapped(core, adapter, "DxgkCbAllocateContiguousMemory", H_CONTIG,
			  FP_MEM_ALLOC_CONTIGUOUS, bytes, true, cache, h, &o);
	if (rc)
		return rc;
	if (logical)
		dom_iova(&core->adapters[adapter], &o->pg, &o->map, 0, logical);
	return 0;
}

int core_free_contiguous(struct core *core, unsigned int adapter, core_handle_t h)
{
	return free_mapped(core, adapter, "DxgkCbFreeContiguousMemory", H_CONTIG, h);
}

int core_alloc_mdl(struct core *core, unsigned int adapter, uint64_t bytes, core_handle_t *h)
{
	struct hobj *o;

	return alloc_mapped(core, adapter, "DxgkCbAllocatePagesForMdl", H_MDL, FP_MEM_ALLOC_MDL,
			    bytes, false, CACHE_CACHED, h, &o);
}

int core_free_mdl(struct core *core, unsigned int adapter, core_handle_t h)
{
	return free_mapped(core, adapter, "DxgkCbFreePagesFromMdl", H_MDL, h);
}

/*
 * A driver-managed MDL: memory the driver obtained itself (non-paged, so
 * resident and locked) described by an MDL of its own, which Dxgkrnl does
 * not know until MapMdlToIoMmu. Not a callback: no gate, no mapping.
 */
int core_driver_mdl_create(struct core *core, unsigned int adapter, uint64_t bytes,
			   core_handle_t *h)
{
	struct adapter *a = adapter_get(core, adapter);
	struct hobj *o;
	int rc;

	if (core->bugchecked)
		return -ESHUTDOWN;
	if (!a || !a->started)
		return -ENODEV;
	if (!bytes)
		return -EINVAL;
	rc = handle_new(core, H_DRIVER_MDL, adapter, h, &o);
	if (rc)
		return rc;
	rc = pages_alloc(core, &o->pg, bytes, PG_LOCK);
	if (rc) {
		obj_destroy(core, *h);
		*h = 0;
	}
	return rc;
}

int core_driver_mdl_free(struct core *core, unsigned int adapter, core_handle_t h)
{
	if (core->bugchecked)
		return -ESHUTDOWN;
	if (!handle_get(core, h, H_DRIVER_MDL, adapter, "driver MDL free"))
		return -EINVAL;
	/* a mapping of it that outlives it is found at its unmap (UNMAP_AFTER_FREE) */
	obj_destroy(core, h);
	return 0;
}

/* MapMdlToIoMmu takes the MDLs Dxgkrnl allocated and the driver's own. */
static struct hobj *mappable_mdl(struct core *c, core_handle_t mdl, unsigned int adapter,
				 const char *name)
{
	struct hobj *m = handle_peek(c, mdl);

	if (m && m->kind == H_DRIVER_MDL && m->adapter == adapter)
		return m;
	return handle_get(c, mdl, H_MDL, adapter, name);
}

int core_map_mdl(struct core *core, unsigned int adapter, core_handle_t mdl, core_handle_t *h,
		 iova_t *logical)
{
	static const char name[] = "DxgkCbMapMdlToIoMmu";
	struct adapter *a;
	struct hobj *m, *o;
	int rc;

	rc = cb_enter(core, adapter, name, &a);
	if (!rc)
		rc = refuse_deprecated(core, a, name);
	if (rc)
		return rc;
	m = mappable_mdl(core, mdl, adapter, name);
	if (!m)
		return -EINVAL;
	rc = handle_new(core, H_MDL_MAP, adapter, h, &o);
	if (rc)
		return rc;
	o->u.mdl_map.mdl = mdl;
	rc = pages_slice(&m->pg, 0, m->pg.npages * GPUISO_PAGE_SIZE, &o->pg);
	if (!rc)
		rc = obj_map(core, a, o);
	if (rc) {
		obj_destroy(core, *h);
		*h = 0;
		return rc;
	}
	if (logical)
		dom_iova(a, &o->pg, &o->map, 0, logical);
	return 0;
}

int core_unmap_mdl(struct core *core, unsigned int adapter, core_handle_t h)
{
	static const char name[] = "DxgkCbUnmapMdlFromIoMmu";
	struct adapter *a;
	struct hobj *o, *m;
	int rc;

	o = cb_handle(core, adapter, name, h, H_MDL_MAP, &a, &rc);
	if (!o)
		return rc;
	m = handle_peek(core, o->u.mdl_map.mdl);
	if (!m || (m->kind != H_MDL && m->kind != H_DRIVER_MDL))
		viol(core, CORE_V_UNMAP_AFTER_FREE,
		     "%s: MDL 0x%x was freed before its mapping 0x%x was unmapped; its pages may already be reused",
		     name, o->u.mdl_map.mdl, h);
	obj_destroy(core, h);
	return 0;
}
