/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define LOG_PREFIX "domain"
#include "common/log.h"
#include "domain_internal.h"
#include "gate_internal.h"
#include "handle_internal.h"
#include "hwcall_internal.h"
#include "idmap.h"
#include "internal.h"

/*
 * What is mapped in a logical adapter's IOMMU domain: in 1:1 mode pages at
 * their physical address, reference counted (idmap.c) and mapped once; in
 * logical mode every mapping gets its own range from the IOVA allocator.
 */

/* One map call of the backend (a failure can be injected: iommu/map). */
int dom_hw_map(struct core *c, struct adapter *a, iova_t iova, pa_t pa, uint64_t bytes,
	       unsigned int perm)
{
	if (fp_should_fail(c->fp, FP_IOMMU_MAP))
		return -ENOMEM;
	return hwc_map(c, a, iova, pa, bytes, perm);
}

/*
 * One unmap call of the backend and its IOTLB flush. The model unmaps only
 * what it mapped: a failure is an internal error (hwc_unmap()), and the
 * flush is made all the same.
 */
void dom_hw_unmap(struct core *c, struct adapter *a, iova_t iova, uint64_t bytes)
{
	if (hwc_unmap(c, a, iova, bytes))
		log_info("%s: [%#llx, +%#llx) may still be mapped", a->cfg->name,
			 (unsigned long long)iova, (unsigned long long)bytes);
	else
		blocked_note_unmap(c, a, iova, bytes);
	hwc_flush(c, a, iova, bytes);
}

/*
 * 1:1 mode maps with HW_MAP_4K: pages are shared between handles at page
 * granularity, so any page may later have to be unmapped on its own.
 */
static int identity_map_pages(struct core *c, struct adapter *a, uint64_t pfn, uint64_t n,
			      unsigned int perm)
{
	return dom_hw_map(c, a, pfn * GPUISO_PAGE_SIZE, pfn * GPUISO_PAGE_SIZE,
			  n * GPUISO_PAGE_SIZE, perm | HW_MAP_4K);
}

/* Unmap every stretch of [pfn, pfn+n) that no handle references any more. */
static void identity_unmap_unreferenced(struct core *c, struct adapter *a, uint64_t pfn,
					uint64_t n)
{
	uint64_t i = idmap_stretch(&a->idmap, pfn, n, false);

	while (i < n) {
		uint64_t len = idmap_stretch(&a->idmap, pfn + i, n - i, true);

		dom_hw_unmap(c, a, (pfn + i) * GPUISO_PAGE_SIZE, len * GPUISO_PAGE_SIZE);
		i += len;
		i += idmap_stretch(&a->idmap, pfn + i, n - i, false);
	}
}

/*
 * Map the pages of @run nobody maps yet, then reference all. Nothing changes
 * on failure. The references are taken first: when they show that no frame
 * was referenced (a run of its own) or that every frame was (a run mapped
 * already), that decides it without looking at the counts again.
 */
static int identity_map_run(struct core *c, struct adapter *a, const struct phys_run *run,
			    unsigned int perm)
{
	uint64_t pfn = run->pa / GPUISO_PAGE_SIZE, n = run->npages, i;
	unsigned int saw;
	int rc;

	rc = idmap_get(&a->idmap, pfn, n, &saw);
	if (rc)
		return rc;
	if (saw != IDMAP_SAW_ZERO && saw != IDMAP_SAW_SET) {
		/* some frames were referenced, some not: back, and map stretch by stretch */
		idmap_put(&a->idmap, pfn, n, NULL);
		for (i = idmap_stretch(&a->idmap, pfn, n, false); i < n;) {
			uint64_t len = idmap_stretch(&a->idmap, pfn + i, n - i, true);

			rc = identity_map_pages(c, a, pfn + i, len, perm);
			if (rc) {
				identity_unmap_unreferenced(c, a, pfn, i);
				return rc;
			}
			i += len;
			i += idmap_stretch(&a->idmap, pfn + i, n - i, false);
		}
		rc = idmap_get(&a->idmap, pfn, n, NULL);
		if (rc)
			identity_unmap_unreferenced(c, a, pfn, n);
		return rc;
	}
	if (saw == IDMAP_SAW_ZERO) {
		rc = identity_map_pages(c, a, pfn, n, perm);
		if (rc)
			idmap_put(&a->idmap, pfn, n, NULL);
	}
	return rc;
}

static void identity_unmap_run(struct core *c, struct adapter *a, const struct phys_run *run)
{
	uint64_t pfn = run->pa / GPUISO_PAGE_SIZE;
	unsigned int saw;
	uint64_t none = idmap_put(&a->idmap, pfn, run->npages, &saw);

	if (none)
		internal_error(c, "%s: unmapping [%#llx, +%llu pages): %llu frames had no identity mapping reference to drop",
			       a->cfg->name, (unsigned long long)run->pa,
			       (unsigned long long)run->npages, (unsigned long long)none);
	/* no frame referenced any more: one stretch; every frame still is: none */
	if (saw == IDMAP_SAW_ZERO)
		dom_hw_unmap(c, a, pfn * GPUISO_PAGE_SIZE, run->npages * GPUISO_PAGE_SIZE);
	else if (saw != IDMAP_SAW_SET)
		identity_unmap_unreferenced(c, a, pfn, run->npages);
}

int dom_map(struct core *c, struct adapter *a, const struct pages *pg, struct dmap *m)
{
	const struct phys_run *runs = pg_runs(pg);
	uint64_t bytes = pg->npages * GPUISO_PAGE_SIZE;
	size_t r;
	int rc = 0;

	if (!m->wanted || m->mapped || !a->mappings || a->domain == CORE_NO_DOMAIN)
		return 0;
	if (a->mode == MODE_LOGICAL) {
		uint64_t align = bytes >= SZ_2M ? SZ_2M : GPUISO_PAGE_SIZE;
		iova_t iova, at;

		if (fp_should_fail(c->fp, FP_IOMMU_IOVA_ALLOC))
			return -ENOSPC;
		rc = range_take(&a->iova, bytes, align, a->logical_limit, &iova);
		if (rc)
			return rc;
		for (r = 0, at = iova; r < pg->runs.n; at += runs[r].npages * GPUISO_PAGE_SIZE, r++) {
			rc = dom_hw_map(c, a, at, runs[r].pa, runs[r].npages * GPUISO_PAGE_SIZE,
					m->perm);
			if (rc)
				break;
		}
		if (rc) {
			if (at > iova)
				dom_hw_unmap(c, a, iova, at - iova);
			range_add(&a->iova, iova, bytes);
			return rc;
		}
		m->iova = iova;
		m->logical = true;
	} else {
		for (r = 0; r < pg->runs.n; r++) {
			rc = identity_map_run(c, a, &runs[r], m->perm);
			if (rc)
				break;
		}
		if (rc) {
			while (r--)
				identity_unmap_run(c, a, &runs[r]);
			return rc;
		}
	}
	m->mapped = true;
	a->mapped_bytes += bytes;
	return 0;
}

void dom_unmap(struct core *c, struct adapter *a, const struct pages *pg, struct dmap *m)
{
	const struct phys_run *runs = pg_runs(pg);
	uint64_t bytes = pg->npages * GPUISO_PAGE_SIZE;

	if (!m->mapped)
		return;
	m->mapped = false;
	if (fp_should_fail(c->fp, FP_IOMMU_UNMAP)) {
		/*
		 * The entries stay, and nothing short of destroying the domain
		 * clears them: teardown will find them (MAPPING_LEAK). Until
		 * then the device can still reach these frames, so they must
		 * not be reused whoever frees them (docs/model.md, "An unmap
		 * the IOMMU refuses").
		 */
		log_info("%s: injected unmap failure leaves %#llx bytes mapped", a->cfg->name,
			 (unsigned long long)bytes);
		for (size_t r = 0; r < pg->runs.n; r++)
			if (physmem_hold(c->pm, runs[r].pa, runs[r].npages) ||
			    phys_runs_add(&a->held, runs[r].pa, runs[r].npages))
				internal_error(c, "%s: out of memory holding frames a refused unmap left "
					       "mapped", a->cfg->name);
		return;
	}
	if (m->logical) {
		dom_hw_unmap(c, a, m->iova, bytes);
		range_add(&a->iova, m->iova, bytes);
		m->logical = false;
	} else {
		for (size_t r = 0; r < pg->runs.n; r++)
			identity_unmap_run(c, a, &runs[r]);
	}
	a->mapped_bytes -= bytes;
}

int dom_iova(const struct adapter *a, const struct pages *pg, const struct dmap *m,
	     uint64_t offset, iova_t *iova)
{
	if (offset >= pg->npages * GPUISO_PAGE_SIZE)
		return -ERANGE;
	if (m->mapped && m->logical) {
		*iova = m->iova + offset;
		return 0;
	}
	if (a->mode == MODE_LOGICAL)
		return -EINVAL; /* no logical address until mapped */
	*iova = pages_pa(pg, offset);
	return 0;
}

/* Bytes from @offset whose device addresses are contiguous. */
uint64_t dom_span(const struct adapter *a, const struct pages *pg, const struct dmap *m,
		  uint64_t offset)
{
	const struct phys_run *runs = pg_runs(pg);

	if (m->mapped && m->logical)
		return pg->npages * GPUISO_PAGE_SIZE - offset;
	for (size_t r = 0; r < pg->runs.n; r++) {
		uint64_t run_bytes = runs[r].npages * GPUISO_PAGE_SIZE;

		if (offset < run_bytes)
			return run_bytes - offset;
		offset -= run_bytes;
	}
	return 0;
}
