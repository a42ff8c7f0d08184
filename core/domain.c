/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define LOG_PREFIX "domain"
#include "common/digest.h"
#include "common/log.h"
#include "internal.h"

/*
 * One IOMMU domain per logical adapter: what is mapped in it, how it is
 * enabled (domain, mappings, attach: the three IOMMUFlags steps), and the
 * exclusive-access bracket around every attach and detach.
 *
 * In 1:1 mode a page's logical address is its physical address, so two
 * handles can describe the same page (an MDL and its MapMdlToIoMmu mapping,
 * overlapping ADLs): such pages are reference counted and mapped once.
 * In logical mode every mapping gets its own range from the IOVA allocator.
 */

/*
 * --- identity-map reference counts ---
 *
 * One count per page frame, kept per 2 MiB chunk of 512 frames: a chunk
 * whose frames all have the same count holds that one count; a chunk whose
 * frames differ (mixed) keeps a count per frame. Save areas and large
 * allocations come as whole, aligned chunks, so counting them touches a word
 * per chunk, not 2 KiB of counts (which a forked sweep run would also have
 * to copy). A whole-chunk update of a mixed chunk makes it one count again
 * when its frames end up equal.
 *
 * Chunks live in lazily allocated leaves of 1 GiB of physical addresses:
 * two loads to find a count, nothing to probe or rehash. A leaf's per-frame
 * counts are allocated with it but only touched for mixed chunks, so a
 * chunk can turn mixed without an allocation that could fail.
 */

#define IDMAP_CHUNK_SHIFT 9
#define IDMAP_CHUNK (1u << IDMAP_CHUNK_SHIFT)
#define IDMAP_LEAF_SHIFT 18
#define IDMAP_CHUNKS (1u << (IDMAP_LEAF_SHIFT - IDMAP_CHUNK_SHIFT))
#define IDMAP_BLOCK 16

struct idmap_leaf {
	struct {
		uint32_t same;  /* every frame's count, unless mixed */
		bool mixed;     /* the frames' counts are in each[] */
	} chunk[IDMAP_CHUNKS];
	uint32_t each[IDMAP_CHUNKS][IDMAP_CHUNK];
};

/* The part of [pfn, pfn + n) in pfn's chunk. */
struct idmap_piece {
	struct idmap_leaf *leaf; /* NULL: every count is zero */
	unsigned int chunk, in;  /* the chunk in its leaf; pfn's frame in the chunk */
	uint64_t len;
};

static struct idmap_piece idmap_piece(const struct idmap *im, uint64_t pfn, uint64_t n)
{
	uint64_t top = pfn >> IDMAP_LEAF_SHIFT;
	struct idmap_piece p = {
		.leaf = top < im->nleaves ? im->leaves[top] : NULL,
		.chunk = (unsigned int)(pfn >> IDMAP_CHUNK_SHIFT) & (IDMAP_CHUNKS - 1),
		.in = (unsigned int)pfn & (IDMAP_CHUNK - 1),
	};

	p.len = GPUISO_MIN(n, IDMAP_CHUNK - p.in);
	return p;
}

/* Frames from @pfn on, up to @n, whose counts are all zero (@zero) or all non-zero. */
static inline uint64_t idmap_stretch(const struct idmap *im, uint64_t pfn, uint64_t n,
				     bool zero)
{
	uint64_t done = 0;

	while (done < n) {
		struct idmap_piece p = idmap_piece(im, pfn + done, n - done);
		const uint32_t *cnt;
		uint64_t i = 0;

		if (!p.leaf || !p.leaf->chunk[p.chunk].mixed) {
			if ((!p.leaf || !p.leaf->chunk[p.chunk].same) != zero)
				break;
			done += p.len;
			continue;
		}
		cnt = p.leaf->each[p.chunk] + p.in;
		/* a block at a time while all of it qualifies (the compiler vectorises it) */
		for (; i + IDMAP_BLOCK <= p.len; i += IDMAP_BLOCK) {
			uint32_t any = 0, zeros = 0;

			for (unsigned int j = 0; j < IDMAP_BLOCK; j++) {
				any |= cnt[i + j];
				zeros |= cnt[i + j] == 0;
			}
			if (zero ? any != 0 : zeros != 0)
				break;
		}
		while (i < p.len && (cnt[i] == 0) == zero)
			i++;
		done += i;
		if (i < p.len)
			break;
	}
	return done;
}

/*
 * One reference more (@get) or one fewer to each frame of @p.
 * Return: the frames a put found with no reference to drop (an impossible
 * state: the caller reports it); their counts stay at zero.
 */
static inline uint64_t idmap_update(const struct idmap_piece *p, bool get)
{
	struct idmap_leaf *l = p->leaf;
	uint32_t *same, *cnt, diff = 0;
	uint64_t none = 0;
	bool *mixed;

	if (!l)
		return p->len; /* only a put comes here: nothing was ever counted */
	same = &l->chunk[p->chunk].same;
	mixed = &l->chunk[p->chunk].mixed;
	cnt = l->each[p->chunk];
	if (!*mixed) {
		if (!get && !*same)
			return p->len;
		if (p->len == IDMAP_CHUNK) {
			*same = get ? *same + 1 : *same - 1;
			return 0;
		}
		for (unsigned int i = 0; i < IDMAP_CHUNK; i++)
			cnt[i] = *same;
		*mixed = true;
	}
	if (get) {
		for (uint64_t i = 0; i < p->len; i++)
			cnt[p->in + i]++;
	} else {
		for (uint64_t i = 0; i < p->len; i++) {
			none += !cnt[p->in + i];
			cnt[p->in + i] -= cnt[p->in + i] != 0;
		}
	}
	if (p->len < IDMAP_CHUNK)
		return none;
	for (unsigned int i = 1; i < IDMAP_CHUNK; i++)
		diff |= cnt[i] ^ cnt[0];
	if (!diff) {
		*same = cnt[0];
		*mixed = false;
	}
	return none;
}

/* Count one more reference to each frame of [pfn, pfn+n). Nothing is counted on failure. */
static int idmap_get(struct idmap *im, uint64_t pfn, uint64_t n)
{
	uint64_t last = (pfn + n - 1) >> IDMAP_LEAF_SHIFT;

	if (!n)
		return 0;
	/* every leaf first, so that counting cannot fail half way */
	if (last >= im->nleaves) {
		struct idmap_leaf **leaves = realloc(im->leaves, (last + 1) * sizeof(*leaves));

		if (!leaves)
			return -ENOMEM;
		memset(leaves + im->nleaves, 0, (last + 1 - im->nleaves) * sizeof(*leaves));
		im->leaves = leaves;
		im->nleaves = last + 1;
	}
	for (uint64_t top = pfn >> IDMAP_LEAF_SHIFT; top <= last; top++) {
		if (!im->leaves[top])
			im->leaves[top] = calloc(1, sizeof(struct idmap_leaf));
		if (!im->leaves[top])
			return -ENOMEM;
	}
	for (uint64_t done = 0, len; done < n; done += len) {
		struct idmap_piece p = idmap_piece(im, pfn + done, n - done);

		(void)idmap_update(&p, true); /* a get always has a count to raise */
		len = p.len;
	}
	return 0;
}

/* Drop one reference to each frame of [pfn, pfn+n). Return: the frames that had none. */
static uint64_t idmap_put(struct idmap *im, uint64_t pfn, uint64_t n)
{
	uint64_t none = 0;

	for (uint64_t done = 0, len; done < n; done += len) {
		struct idmap_piece p = idmap_piece(im, pfn + done, n - done);

		none += idmap_update(&p, false);
		len = p.len;
	}
	return none;
}

uint64_t idmap_digest(const struct idmap *im, uint64_t h)
{
	for (size_t top = 0; top < im->nleaves; top++) {
		const struct idmap_leaf *l = im->leaves[top];

		for (unsigned int c = 0; l && c < IDMAP_CHUNKS; c++) {
			const uint32_t *cnt = l->each[c];
			uint64_t chunk = top * IDMAP_CHUNKS + c;
			uint32_t same = l->chunk[c].same, diff = 0;

			if (l->chunk[c].mixed) {
				for (unsigned int i = 1; i < IDMAP_CHUNK; i++)
					diff |= cnt[i] ^ cnt[0];
				same = cnt[0];
			}
			/* a chunk of equal counts reads alike however it is held */
			if (!diff) {
				if (same)
					h = DIGEST_FOLD(h, chunk << 1, same);
				continue;
			}
			h = DIGEST_FOLD(h, chunk << 1 | 1, digest_bytes(cnt, IDMAP_CHUNK * sizeof(*cnt)));
		}
	}
	return h;
}

void idmap_free(struct idmap *im)
{
	for (size_t i = 0; i < im->nleaves; i++)
		free(im->leaves[i]);
	free(im->leaves);
	memset(im, 0, sizeof(*im));
}

/* --- mapping --- */

static int hw_map(struct core *c, struct adapter *a, iova_t iova, pa_t pa, uint64_t bytes,
		  unsigned int perm)
{
	if (fp_should_fail(c->fp, FP_IOMMU_MAP))
		return -ENOMEM;
	return c->hw->ops->map(c->hw, a->domain, iova, pa, bytes, perm);
}

static void hw_unmap(struct core *c, struct adapter *a, iova_t iova, uint64_t bytes)
{
	int rc = c->hw->ops->unmap(c->hw, a->domain, iova, bytes);

	if (rc)
		log_err("%s: unmap [%#llx, +%#llx) failed: %d", a->cfg->name,
			(unsigned long long)iova, (unsigned long long)bytes, rc);
	c->hw->ops->flush(c->hw, a->domain, iova, bytes);
}

/*
 * 1:1 mode maps with HW_MAP_4K: pages are shared between handles at page
 * granularity, so any page may later have to be unmapped on its own.
 */
static int identity_map_pages(struct core *c, struct adapter *a, uint64_t pfn, uint64_t n,
			      unsigned int perm)
{
	return hw_map(c, a, pfn * GPUISO_PAGE_SIZE, pfn * GPUISO_PAGE_SIZE, n * GPUISO_PAGE_SIZE,
		      perm | HW_MAP_4K);
}

/* Unmap every stretch of [pfn, pfn+n) that no handle references any more. */
static void identity_unmap_unreferenced(struct core *c, struct adapter *a, uint64_t pfn,
					uint64_t n)
{
	uint64_t i = idmap_stretch(&a->idmap, pfn, n, false);

	while (i < n) {
		uint64_t len = idmap_stretch(&a->idmap, pfn + i, n - i, true);

		hw_unmap(c, a, (pfn + i) * GPUISO_PAGE_SIZE, len * GPUISO_PAGE_SIZE);
		i += len;
		i += idmap_stretch(&a->idmap, pfn + i, n - i, false);
	}
}

/* Map the pages of @run nobody maps yet, then reference all. Nothing changes on failure. */
static int identity_map_run(struct core *c, struct adapter *a, const struct phys_run *run,
			    unsigned int perm)
{
	uint64_t pfn = run->pa / GPUISO_PAGE_SIZE, n = run->npages;
	uint64_t i = idmap_stretch(&a->idmap, pfn, n, false);
	int rc;

	while (i < n) {
		uint64_t len = idmap_stretch(&a->idmap, pfn + i, n - i, true);

		rc = identity_map_pages(c, a, pfn + i, len, perm);
		if (rc) {
			identity_unmap_unreferenced(c, a, pfn, i);
			return rc;
		}
		i += len;
		i += idmap_stretch(&a->idmap, pfn + i, n - i, false);
	}
	rc = idmap_get(&a->idmap, pfn, n);
	if (rc)
		identity_unmap_unreferenced(c, a, pfn, n);
	return rc;
}

static void identity_unmap_run(struct core *c, struct adapter *a, const struct phys_run *run)
{
	uint64_t pfn = run->pa / GPUISO_PAGE_SIZE;
	uint64_t none = idmap_put(&a->idmap, pfn, run->npages);

	if (none)
		internal_error(c, "%s: unmapping [%#llx, +%llu pages): %llu frames had no identity mapping reference to drop",
			       a->cfg->name, (unsigned long long)run->pa,
			       (unsigned long long)run->npages, (unsigned long long)none);
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
			rc = hw_map(c, a, at, runs[r].pa, runs[r].npages * GPUISO_PAGE_SIZE, m->perm);
			if (rc)
				break;
		}
		if (rc) {
			if (at > iova)
				hw_unmap(c, a, iova, at - iova);
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
		/* The entries stay: teardown will find them (MAPPING_LEAK). */
		log_info("%s: injected unmap failure leaves %#llx bytes mapped", a->cfg->name,
			 (unsigned long long)bytes);
		return;
	}
	if (m->logical) {
		hw_unmap(c, a, m->iova, bytes);
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

/* --- exclusive access --- */

static uint64_t dma_count(struct core *c)
{
	struct hw_stats st;

	c->hw->ops->stats(c->hw, &st);
	return st.dma_transfers;
}

/*
 * Dxgkrnl suspends the scheduler, lets in-flight work finish, then calls
 * DxgkDdiBeginExclusiveAccess. From here until the end call no callback is
 * accepted and the device must not touch system memory. Returns the DMA
 * count that exclusive_end() compares against.
 */
uint64_t exclusive_begin(struct core *c, struct adapter *a)
{
	uint64_t before;

	a->sched_suspended = true;
	for (size_t i = 0; i < a->nphys; i++)
		if (c->hw->ops->gpu_wait(c->hw, a->phys[i].dev))
			hw_err_pop(c, a, (unsigned int)i);
	before = dma_count(c);
	a->in_exclusive = true;
	if (a->started)
		c->kmd_merged.begin_exclusive_access(c, c->kmd, a->index);
	for (size_t i = 0; i < a->nphys; i++)
		if (c->hw->ops->gpu_pending(c->hw, a->phys[i].dev))
			viol(c, CORE_V_WORK_IN_EXCLUSIVE,
			     "%s: physical adapter %zu has work queued inside exclusive access",
			     a->cfg->name, i);
	return before;
}

void exclusive_end(struct core *c, struct adapter *a, uint64_t dma_before)
{
	uint64_t after = dma_count(c);

	if (after != dma_before)
		viol(c, CORE_V_DMA_IN_EXCLUSIVE,
		     "%s: %llu device DMA transfer(s) between Begin and EndExclusiveAccess",
		     a->cfg->name, (unsigned long long)(after - dma_before));
	if (a->started)
		c->kmd_merged.end_exclusive_access(c, c->kmd, a->index);
	a->in_exclusive = false;
	a->sched_suspended = false;
}

/* Attach (domain != CORE_NO_DOMAIN) or detach every physical adapter, under exclusive access. */
static int attach_all(struct core *c, struct adapter *a, uint32_t domain)
{
	uint64_t dma_before = exclusive_begin(c, a);
	size_t i;
	int rc = 0;

	for (i = 0; i < a->nphys; i++) {
		struct phys_adapter *p = &a->phys[i];

		if (domain == CORE_NO_DOMAIN) {
			if (p->domain != CORE_NO_DOMAIN)
				c->hw->ops->detach(c->hw, p->dev);
			p->domain = CORE_NO_DOMAIN;
			continue;
		}
		rc = fp_should_fail(c->fp, FP_DOMAIN_ATTACH) ? -EIO
			: c->hw->ops->attach(c->hw, p->dev, domain);
		if (rc)
			break;
		p->domain = domain;
	}
	if (rc) {
		while (i--) {
			c->hw->ops->detach(c->hw, a->phys[i].dev);
			a->phys[i].domain = CORE_NO_DOMAIN;
		}
	}
	exclusive_end(c, a, dma_before);
	return rc;
}

/* --- hardware-reserved ranges --- */

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
static void reserved_unmap(struct core *c, struct adapter *a)
{
	for (size_t i = 0; i < a->nphys; i++) {
		struct phys_adapter *p = &a->phys[i];

		if (!p->reserved_mapped)
			continue;
		for (size_t j = 0; j < p->nreserved; j++) {
			hw_unmap(c, a, p->reserved[j].base, p->reserved[j].size);
			if (a->mode == MODE_LOGICAL)
				range_add(&a->iova, p->reserved[j].base, p->reserved[j].size);
			a->mapped_bytes -= p->reserved[j].size;
		}
		p->reserved_mapped = false;
	}
}

static int reserved_map(struct core *c, struct adapter *a)
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
			rc = hw_map(c, a, r->base, r->base, r->size, HW_PERM_RW);
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

/* --- enablement --- */

/* Every tracked handle of this adapter that wants a mapping gets one. */
static int map_tracked(struct core *c, struct adapter *a)
{
	for (uint32_t i = 0; i < c->ht.next_index; i++) {
		struct hobj *o = &c->ht.chunks[i / H_CHUNK][i % H_CHUNK];
		int rc;

		if (o->kind == H_FREE || o->adapter != a->index)
			continue;
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

		if (o->kind != H_FREE && o->adapter == a->index)
			dom_unmap(c, a, &o->pg, &o->map);
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
		rc = c->hw->ops->domain_alloc(c->hw, &a->domain);
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
		c->hw->ops->domain_free(c->hw, a->domain);
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
	c->hw->ops->domain_free(c->hw, a->domain);
	a->domain = CORE_NO_DOMAIN;
	a->mappings = false;
	idmap_free(&a->idmap);
}
