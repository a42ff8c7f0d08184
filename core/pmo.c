/* SPDX-License-Identifier: MIT */
#include <errno.h>

#define LOG_PREFIX "pmo"
#include "common/log.h"
#include "internal.h"

/*
 * The WDDM 3.0 memory management services: physical memory objects, CPU
 * views of them, and address descriptor lists (ADLs) that lock part of a
 * PMO for the GPU and describe it by logical pages (one contiguous run) in
 * logical-remap mode, or by physical pages otherwise.
 */

int core_pmo_create(struct core *core, unsigned int adapter, uint64_t bytes,
		    enum cache_type cache, handle_t *h)
{
	struct adapter *a;
	struct hobj *o;
	int rc;

	rc = cb_enter(core, adapter, "DxgkCbCreatePhysicalMemoryObject", &a);
	if (rc)
		return rc;
	if (!bytes)
		return -EINVAL;
	if (fp_should_fail(core->fp, FP_MEM_PMO_CREATE))
		return -ENOMEM;
	rc = handle_new(core, H_PMO, adapter, h, &o);
	if (rc)
		return rc;
	rc = pages_alloc(core, &o->pg, bytes, 0);
	if (rc) {
		handle_release(core, *h);
		*h = 0;
		return rc;
	}
	o->u.pmo.cache = cache;
	return 0;
}

int core_pmo_destroy(struct core *core, unsigned int adapter, handle_t h)
{
	static const char name[] = "DxgkCbDestroyPhysicalMemoryObject";
	struct adapter *a;
	struct hobj *o;
	int rc;

	rc = cb_enter(core, adapter, name, &a);
	if (rc)
		return rc;
	o = handle_get(core, h, H_PMO, adapter, name);
	if (!o)
		return -EINVAL;
	if (o->u.pmo.adls || o->u.pmo.views || o->u.pmo.opens) {
		viol(core, V_PMO_BUSY, "%s: PMO 0x%x still has %u ADL(s), %u view(s), %u open handle(s)",
		     name, h, o->u.pmo.adls, o->u.pmo.views, o->u.pmo.opens);
		return -EBUSY;
	}
	obj_free(core, a, o);
	handle_release(core, h);
	return 0;
}

/* A handle that refers to a PMO and counts against it while it lives. */
static int pmo_child(struct core *c, unsigned int adapter, const char *name, handle_t pmo,
		     enum hkind kind, struct adapter **a, struct hobj **parent, handle_t *h,
		     struct hobj **child)
{
	int rc = cb_enter(c, adapter, name, a);

	if (rc)
		return rc;
	*parent = handle_get(c, pmo, H_PMO, adapter, name);
	if (!*parent)
		return -EINVAL;
	return handle_new(c, kind, adapter, h, child);
}

static struct hobj *pmo_parent(struct core *c, handle_t pmo)
{
	struct hobj *p = handle_peek(c, pmo);

	return p && p->kind == H_PMO ? p : NULL;
}

int core_pmo_open(struct core *core, unsigned int adapter, handle_t pmo, handle_t *h)
{
	struct adapter *a;
	struct hobj *p, *o;
	int rc;

	rc = pmo_child(core, adapter, "DxgkCbOpenPhysicalMemoryObject", pmo, H_PMO_OPEN, &a, &p,
		       h, &o);
	if (rc)
		return rc;
	o->u.pmo_open.pmo = pmo;
	p->u.pmo.opens++;
	return 0;
}

int core_pmo_close(struct core *core, unsigned int adapter, handle_t h)
{
	static const char name[] = "DxgkCbClosePhysicalMemoryObject";
	struct adapter *a;
	struct hobj *o, *p;
	int rc;

	rc = cb_enter(core, adapter, name, &a);
	if (rc)
		return rc;
	o = handle_get(core, h, H_PMO_OPEN, adapter, name);
	if (!o)
		return -EINVAL;
	p = pmo_parent(core, o->u.pmo_open.pmo);
	if (p)
		p->u.pmo.opens--;
	handle_release(core, h);
	return 0;
}

int core_pmo_map_cpu(struct core *core, unsigned int adapter, handle_t pmo, uint64_t offset,
		     uint64_t bytes, handle_t *h)
{
	struct adapter *a;
	struct hobj *p, *o;
	int rc;

	rc = pmo_child(core, adapter, "DxgkCbMapPhysicalMemory", pmo, H_VIEW, &a, &p, h, &o);
	if (rc)
		return rc;
	rc = pages_slice(&p->pg, offset, bytes, &o->pg);
	if (rc) {
		handle_release(core, *h);
		*h = 0;
		return rc;
	}
	o->u.view.pmo = pmo;
	p->u.pmo.views++;
	return 0;
}

int core_pmo_unmap_cpu(struct core *core, unsigned int adapter, handle_t h)
{
	static const char name[] = "DxgkCbUnmapPhysicalMemory";
	struct adapter *a;
	struct hobj *o, *p;
	int rc;

	rc = cb_enter(core, adapter, name, &a);
	if (rc)
		return rc;
	o = handle_get(core, h, H_VIEW, adapter, name);
	if (!o)
		return -EINVAL;
	if (!o->u.view.pmo) {
		viol(core, V_BAD_HANDLE, "%s: handle 0x%x is not a view of a PMO", name, h);
		return -EINVAL;
	}
	p = pmo_parent(core, o->u.view.pmo);
	if (p)
		p->u.pmo.views--;
	obj_free(core, a, o);
	handle_release(core, h);
	return 0;
}

int core_adl_alloc(struct core *core, unsigned int adapter, handle_t pmo, uint64_t offset,
		   uint64_t bytes, handle_t *h)
{
	struct adapter *a;
	struct hobj *p, *o;
	int rc;

	rc = pmo_child(core, adapter, "DxgkCbAllocateAdl", pmo, H_ADL, &a, &p, h, &o);
	if (rc)
		return rc;
	rc = fp_should_fail(core->fp, FP_MEM_ADL_ALLOC) ? -ENOMEM
		: pages_slice(&p->pg, offset, bytes, &o->pg);
	if (rc)
		goto release;
	/* Locked for the ADL's lifetime, and mapped for the GPU. */
	rc = pages_lock(core, &o->pg, o->pg.npages * PAGE_SIZE);
	if (rc)
		goto free_pages;
	o->map = (struct dmap){ .wanted = true, .perm = HW_PERM_RW };
	rc = dom_map(core, a, &o->pg, &o->map);
	if (rc)
		goto free_pages;
	o->u.adl.pmo = pmo;
	p->u.pmo.adls++;
	return 0;

free_pages:
	pages_free(core, &o->pg);
release:
	handle_release(core, *h);
	*h = 0;
	return rc;
}

int core_adl_free(struct core *core, unsigned int adapter, handle_t h)
{
	static const char name[] = "DxgkCbFreeAdl";
	struct adapter *a;
	struct hobj *o, *p;
	int rc;

	rc = cb_enter(core, adapter, name, &a);
	if (rc)
		return rc;
	o = handle_get(core, h, H_ADL, adapter, name);
	if (!o)
		return -EINVAL;
	p = pmo_parent(core, o->u.adl.pmo);
	if (p)
		p->u.pmo.adls--;
	obj_free(core, a, o);
	handle_release(core, h);
	return 0;
}

int core_adl_info(struct core *core, handle_t h, struct core_adl_info *info)
{
	struct hobj *o = handle_peek(core, h);
	struct adapter *a;

	if (!o || o->kind != H_ADL)
		return -EINVAL;
	a = &core->adapters[o->adapter];
	info->pages = o->pg.npages;
	info->logical = o->map.mapped && o->map.logical;
	info->contiguous = dom_span(a, &o->pg, &o->map, 0) >= o->pg.npages * PAGE_SIZE;
	return dom_iova(a, &o->pg, &o->map, 0, &info->base);
}

int core_view_rw(struct core *core, handle_t h, uint64_t offset, void *buf, uint64_t len,
		 bool write)
{
	struct hobj *o = handle_any(core, h, "CPU access");

	return o ? pages_rw(core, &o->pg, offset, buf, len, write) : -EINVAL;
}

int core_view_copy(struct core *core, handle_t dst, uint64_t dst_off, handle_t src,
		   uint64_t src_off, uint64_t bytes)
{
	struct hobj *d = handle_any(core, dst, "CPU copy"), *s = handle_any(core, src, "CPU copy");

	if (!d || !s)
		return -EINVAL;
	/* What goes into a save area is not read before the restore: bypass the cache. */
	return pages_copy(core, &d->pg, dst_off, &s->pg, src_off, bytes,
			  d->kind == H_VIEW && d->u.view.fb_chunk);
}
