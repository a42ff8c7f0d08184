/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define LOG_PREFIX "domain"
#include "common/log.h"
#include "domain_internal.h"
#include "internal.h"

/* Hardware-reserved ranges: queried, validated, and mapped at their address before the attach. */

/* The two-call query: the count, then the array. */
static int reserved_query(struct core *c, struct adapter *a, unsigned int phys)
{
	struct phys_adapter *p = &a->phys[phys];
	struct qai_reserved q = { 0 };
	int rc;

	rc = c->kmd_merged.query_adapter_info(c, c->kmd, a->index, QAI_HARDWARERESERVEDRANGES,
					       phys, &q);
	if (rc)
		return rc;
	free(p->reserved);
	p->reserved = NULL;
	p->nreserved = 0;
	if (!q.count)
		return 0;
	p->reserved = calloc(q.count, sizeof(*p->reserved));
	if (!p->reserved)
		return -ENOMEM;
	q.ranges = p->reserved;
	rc = c->kmd_merged.query_adapter_info(c, c->kmd, a->index, QAI_HARDWARERESERVEDRANGES,
					       phys, &q);
	if (rc)
		return rc;
	p->nreserved = q.count;
	return 0;
}

/* VidMm validates that no reserved range is memory the OS manages. */
static int reserved_validate(struct core *c, struct adapter *a, unsigned int phys)
{
	struct phys_adapter *p = &a->phys[phys];

	for (size_t i = 0; i < p->nreserved; i++) {
		const struct range_extent *r = &p->reserved[i];

		if (!r->size || !ALIGNED(r->base, GPUISO_PAGE_SIZE) || !ALIGNED(r->size, GPUISO_PAGE_SIZE) ||
		    r->base + r->size < r->base) {
			adapter_error(a, "reserved range [%#llx, +%#llx) of physical adapter %u is not page aligned",
				      (unsigned long long)r->base, (unsigned long long)r->size, phys);
			return -EINVAL;
		}
		if (physmem_overlaps_ram(c->pm, r->base, r->size)) {
			adapter_error(a, "reserved range [%#llx, %#llx) of physical adapter %u overlaps OS-managed memory: rejected",
				      (unsigned long long)r->base,
				      (unsigned long long)(r->base + r->size), phys);
			return -EINVAL;
		}
		if (a->mode == MODE_LOGICAL && r->base + r->size > a->logical_limit) {
			adapter_error(a, "reserved range [%#llx, %#llx) of physical adapter %u is above the device's visible limit %#llx",
				      (unsigned long long)r->base,
				      (unsigned long long)(r->base + r->size), phys,
				      (unsigned long long)a->logical_limit);
			return -EINVAL;
		}
	}
	return 0;
}

/* Reserved ranges are mapped at their physical address in both modes. */
void reserved_unmap(struct core *c, struct adapter *a)
{
	for (size_t i = 0; i < a->nphys; i++) {
		struct phys_adapter *p = &a->phys[i];

		if (!p->reserved_mapped)
			continue;
		for (size_t j = 0; j < p->nreserved; j++) {
			dom_hw_unmap(c, a, p->reserved[j].base, p->reserved[j].size);
			if (a->mode == MODE_LOGICAL)
				range_add(&a->iova, p->reserved[j].base, p->reserved[j].size);
			a->mapped_bytes -= p->reserved[j].size;
		}
		p->reserved_mapped = false;
	}
}

int reserved_map(struct core *c, struct adapter *a)
{
	int rc;

	for (unsigned int i = 0; i < a->nphys; i++) {
		struct phys_adapter *p = &a->phys[i];
		size_t j;

		rc = reserved_query(c, a, i);
		if (!rc)
			rc = reserved_validate(c, a, i);
		if (rc)
			goto unmap_done;
		for (j = 0; j < p->nreserved; j++) {
			const struct range_extent *r = &p->reserved[j];

			if (a->mode == MODE_LOGICAL) {
				rc = range_remove(&a->iova, r->base, r->size);
				if (rc) {
					adapter_error(a, "reserved range [%#llx, +%#llx) collides with another reserved range",
						      (unsigned long long)r->base,
						      (unsigned long long)r->size);
					break;
				}
			}
			rc = dom_hw_map(c, a, r->base, r->base, r->size, HW_PERM_RW);
			if (rc) {
				if (a->mode == MODE_LOGICAL)
					range_add(&a->iova, r->base, r->size);
				adapter_error(a, "mapping reserved range [%#llx, +%#llx) failed: %s",
					      (unsigned long long)r->base,
					      (unsigned long long)r->size, ntstatus_name(rc));
				break;
			}
			a->mapped_bytes += r->size;
		}
		if (rc) {
			/* unmap this adapter's ranges mapped so far */
			p->nreserved = j;
			p->reserved_mapped = true;
			goto unmap_done;
		}
		p->reserved_mapped = true;
	}
	return 0;

unmap_done:
	reserved_unmap(c, a);
	return rc;
}
