/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define LOG_PREFIX "domain"
#include "common/log.h"
#include "domain_internal.h"
#include "handle_internal.h"
#include "hwcall_internal.h"
#include "internal.h"

/*
 * How a logical adapter's domain is enabled (domain, mappings, attach: the
 * three IOMMUFlags steps), and torn down.
 */

/* Every tracked handle of this adapter that wants a mapping gets one. */
static int map_tracked(struct core *c, struct adapter *a)
{
	for (uint32_t i = 0; i < c->ht.next_index; i++) {
		struct hobj *o = &c->ht.chunks[i / H_CHUNK][i % H_CHUNK];
		int rc;

		if (o->kind == H_FREE || o->adapter != a->index)
			continue;
		handle_touch(&c->ht, i);
		rc = dom_map(c, a, &o->pg, &o->map);
		if (rc)
			return rc;
	}
	for (size_t i = 0; i < a->nphys; i++) {
		int rc = dom_map(c, a, &a->phys[i].pfs, &a->phys[i].pfs_map);

		if (rc)
			return rc;
	}
	return 0;
}

static void unmap_tracked(struct core *c, struct adapter *a)
{
	for (uint32_t i = 0; i < c->ht.next_index; i++) {
		struct hobj *o = &c->ht.chunks[i / H_CHUNK][i % H_CHUNK];

		if (o->kind != H_FREE && o->adapter == a->index) {
			handle_touch(&c->ht, i);
			dom_unmap(c, a, &o->pg, &o->map);
		}
	}
	for (size_t i = 0; i < a->nphys; i++)
		dom_unmap(c, a, &a->phys[i].pfs, &a->phys[i].pfs_map);
}

/*
 * Enable the IOMMU for an adapter as far as asked: create its domain; map
 * hardware-reserved ranges and everything the adapter was given so far
 * (allocations made before enablement are mapped now); attach every
 * physical adapter. On failure everything done here is undone.
 */
int dom_enable(struct core *c, struct adapter *a, bool mappings, bool attach)
{
	bool created = false, mapped = false;
	int rc;

	if (!a->iommu_enabled) {
		if (fp_should_fail(c->fp, FP_ADAPTER_ENABLE))
			return -EIO;
		rc = hwc_domain_alloc(c, a, &a->domain);
		if (rc)
			return rc;
		a->iommu_enabled = true;
		if (a->mode == MODE_NONE)
			a->mode = MODE_PHYSICAL;
		created = true;
	}
	if (mappings && !a->mappings) {
		a->mappings = true;
		mapped = true;
		rc = reserved_map(c, a);
		if (!rc)
			rc = map_tracked(c, a);
		if (rc)
			goto undo;
	}
	if (attach && !a->attached) {
		rc = attach_all(c, a, a->domain);
		if (rc) {
			adapter_error(a, "attaching the domain failed: %s", ntstatus_name(rc));
			goto undo;
		}
		a->attached = true;
	}
	return 0;

undo:
	if (mapped) {
		unmap_tracked(c, a);
		reserved_unmap(c, a);
		a->mappings = false;
	}
	if (created) {
		/* one the backend would not free stays the adapter's (an internal error) */
		if (hwc_domain_free(c, a))
			return rc;
		a->domain = CORE_NO_DOMAIN;
		a->iommu_enabled = false;
		if (a->mode == MODE_PHYSICAL)
			a->mode = MODE_NONE;
	}
	return rc;
}

/* Detach, drop what is left, check the domain is empty, free it. */
void dom_teardown(struct core *c, struct adapter *a)
{
	bool freed;

	if (a->domain == CORE_NO_DOMAIN)
		return;
	unmap_tracked(c, a);
	reserved_unmap(c, a);
	if (a->attached)
		attach_all(c, a, CORE_NO_DOMAIN);
	a->attached = false;
	if (a->mapped_bytes)
		viol(c, CORE_V_MAPPING_LEAK, "%s: %llu bytes still mapped in its domain after teardown",
		     a->cfg->name, (unsigned long long)a->mapped_bytes);
	freed = !hwc_domain_free(c, a);
	a->domain = CORE_NO_DOMAIN;
	a->mappings = false;
	idmap_free(&a->idmap);
	/*
	 * No device reaches the frames of refused unmaps any more: those freed
	 * go back. Unless the backend kept the domain (an internal error): then
	 * its entries may still reach them, and they stay out of the free pool.
	 */
	for (size_t i = 0; freed && i < a->held.n; i++) {
		const struct phys_run *run = &phys_runs_array(&a->held)[i];

		physmem_unhold(c->pm, run->pa, run->npages);
	}
	phys_runs_free(&a->held);
}
