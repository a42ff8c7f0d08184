/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>

#include "sim_internal.h"

/*
 * A direct-mapped IOTLB shared by all domains, tagged with the domain id as
 * VT-d tags entries with the domain id: a device switched to another domain
 * cannot hit its old domain's entries, and a freed domain's entries are
 * dropped before its id can be reused.
 *
 * An entry holds one leaf of the page table (4 KiB, 2 MiB or 1 GiB), and a
 * flush drops every entry whose leaf overlaps the range, as page-selective
 * invalidation does. A transfer is translated a leaf at a time.
 *
 * Like hardware, unmap leaves entries in place until a flush, and a DMA
 * through such an entry still reaches memory. To notice that without
 * walking on every hit, each domain counts its unmaps: an entry filled at an
 * older count is compared with the page table once, and counted as a stale
 * hit if it no longer matches. Where a large leaf was mapped over entries of
 * smaller ones not flushed yet (the domain's shadow), a translation of the
 * large leaf stops at each page such an entry holds, so that entry is used
 * and counted, as a per-page hardware lookup would use it.
 */

int sim_iotlb_init(struct sim *s, unsigned int entries)
{
	s->ntlb = entries ? entries : SIM_IOTLB_DEFAULT;
	s->tlb_mask = (s->ntlb & (s->ntlb - 1)) ? 0 : s->ntlb - 1;
	s->tlb = calloc(s->ntlb, sizeof(*s->tlb));
	return s->tlb ? 0 : -ENOMEM;
}

void sim_iotlb_fini(struct sim *s)
{
	free(s->tlb);
	s->tlb = NULL;
	free(s->tlb_terms);
	free(s->tlb_dirty_bits);
	free(s->tlb_dirty);
}

/* Pages a leaf of @level spans. */
static inline uint64_t leaf_pages(unsigned int level)
{
	return (uint64_t)1 << (SIM_PT_BITS * (level - 1));
}

/* Empty @e. */
static void entry_drop(struct sim *s, struct sim_tlb_entry *e)
{
	struct sim_domain *d;

	if (!e->dom)
		return;
	d = sim_dom(s, e->dom);
	sim_tlb_touch(s, e);
	if (s->digest_on && d && e->gen == d->gen)
		d->tlb_valid ^= sim_tlb_valid_term(s, e);
	if (d) {
		d->tlb_held--;
		d->tlb_large -= e->level > 1;
	}
	s->tlb_large -= e->level > 1;
	e->dom = 0;
}

/* @e, of @d, was checked against the page table: valid again. */
static void entry_checked(struct sim *s, struct sim_domain *d, struct sim_tlb_entry *e)
{
	e->gen = d->gen;
	if (s->digest_on)
		d->tlb_valid ^= sim_tlb_valid_term(s, e);
}

/* Where the entry of the leaf of @level that begins at page @vpn would be. */
static struct sim_tlb_entry *sim_iotlb_slot(struct sim *s, uint32_t id, uint64_t vpn,
					    unsigned int level)
{
	/* Consecutive leaves take consecutive slots; page sizes and domains are spread apart. */
	uint64_t leaf = vpn >> (SIM_PT_BITS * (level - 1));
	uint64_t h = leaf + (uint64_t)(level - 1) * 0x5bd1e995u + (uint64_t)id * 0x9e3779b1u;

	/* the same slot either way; a division per lookup is most of a lookup's time */
	return &s->tlb[s->tlb_mask ? h & s->tlb_mask : h % s->ntlb];
}

/* Whether @e is an entry of @id whose leaf overlaps pages [first, last]. */
static bool entry_overlaps(const struct sim_tlb_entry *e, uint32_t id, uint64_t first,
			   uint64_t last)
{
	return e->dom == id && e->vpn <= last && e->vpn + (leaf_pages(e->level) - 1) >= first;
}

typedef void (*entry_fn)(struct sim *s, struct sim_tlb_entry *e, void *arg);

/*
 * Call @fn on each entry of @id whose leaf, smaller than @below levels,
 * overlaps pages [first, last]. Only where the domain holds entries: none
 * of a page size it holds none of, and nothing once it holds none (@fn may
 * drop them). With fewer pages than entries, look where each such leaf
 * would be (consecutive leaves, consecutive slots); else go through them
 * all.
 */
static void entries_over(struct sim *s, uint32_t id, uint64_t first, uint64_t last,
			 unsigned int below, entry_fn fn, void *arg)
{
	const struct sim_domain *d = sim_dom(s, id);

	if (!d || !d->tlb_held)
		return;
	if (last - first < s->ntlb) {
		if (!d->tlb_large || first > d->large_last || last < d->large_first)
			below = GPUISO_MIN(below, 2u);
		for (unsigned int l = 1; l < below; l++) {
			uint64_t vpn = ALIGN_DOWN(first, leaf_pages(l));
			struct sim_tlb_entry *e = sim_iotlb_slot(s, id, vpn, l);

			for (;; vpn += leaf_pages(l)) {
				/* a leaf of this size over [first, last] begins here */
				if (e->dom == id && e->vpn == vpn && e->level == l) {
					fn(s, e, arg);
					if (!d->tlb_held)
						return;
				}
				if (last - vpn < leaf_pages(l))
					break;
				if (++e == s->tlb + s->ntlb)
					e = s->tlb;
			}
		}
		return;
	}
	for (size_t i = 0; i < s->ntlb && d->tlb_held; i++)
		if (s->tlb[i].level < below && entry_overlaps(&s->tlb[i], id, first, last))
			fn(s, &s->tlb[i], arg);
}

/* The first page, in *(uint64_t *)@arg, that an entry holds. */
static void first_held(struct sim *s, struct sim_tlb_entry *e, void *arg)
{
	uint64_t *first = arg;

	(void)s;
	*first = GPUISO_MIN(*first, e->vpn);
}

/*
 * Pages from @vpn on, at most @pages, before the first later page that an
 * entry of @id smaller than @level holds. Hardware looks every page up: such
 * an entry (stale after a missing flush, or of a leaf split since) would
 * translate its page, so a translation of the large leaf must stop there.
 * (No smaller entry holds @vpn itself: the lookup would have found it.)
 */
static uint64_t before_smaller_entry(struct sim *s, uint32_t id, uint64_t vpn, uint64_t pages,
				     unsigned int level)
{
	uint64_t held = UINT64_MAX;

	entries_over(s, id, vpn + 1, vpn + pages - 1, level, first_held, &held);
	return held == UINT64_MAX ? pages : GPUISO_MIN(pages, held - vpn);
}

/*
 * Large leaves were mapped at [iova, iova+size): if entries of smaller
 * leaves of @id lie there still (a flush is missing), translations over the
 * range must look for them from now on.
 */
void sim_iotlb_large_mapped(struct sim *s, uint32_t id, struct sim_domain *d, iova_t iova,
			    uint64_t size)
{
	uint64_t first = iova >> GPUISO_PAGE_SHIFT, last = (iova + size - 1) >> GPUISO_PAGE_SHIFT;
	uint64_t held = UINT64_MAX;

	if (!d->tlb_held)
		return;
	entries_over(s, id, first, last, SIM_LEVELS, first_held, &held);
	if (held != UINT64_MAX) {
		d->shadow_first = GPUISO_MIN(d->shadow_first, first);
		d->shadow_last = GPUISO_MAX(d->shadow_last, last);
	}
}

/*
 * The translation of @page (pa | perm, 0 when unmapped) and in *reach the
 * bytes from @page on that it translates alike (to the end of its leaf, or
 * before a page that a smaller entry holds). An entry of each page size is
 * looked for, as hardware keeps one IOTLB per page size.
 */
uint64_t sim_iotlb_lookup(struct sim *s, uint32_t id, struct sim_domain *d, iova_t page,
			  uint64_t *reach)
{
	uint64_t vpn = page >> GPUISO_PAGE_SHIFT, pte, cur, pages;
	struct sim_tlb_entry *e;
	unsigned int levels, l;

	for (l = 1; l < (s->tlb_large ? SIM_LEVELS : 2); l++) {
		uint64_t first = ALIGN_DOWN(vpn, leaf_pages(l)), span;

		e = sim_iotlb_slot(s, id, first, l);
		if (e->dom != id || e->vpn != first || e->level != l)
			continue;
		s->st.iotlb_hits++;
		pte = e->pte + ((vpn - first) << GPUISO_PAGE_SHIFT);
		pages = leaf_pages(l) - (vpn - first);
		if (e->gen != d->gen) {
			/* The simulator's own check, not a hardware walk: not counted as one. */
			cur = sim_pt_lookup(d, page, &levels);
			span = leaf_pages(SIM_LEVELS + 1 - levels);
			if (cur != pte)
				s->st.stale_hits++;
			else if (span >= leaf_pages(l))
				entry_checked(s, d, e); /* its whole leaf still translates alike */
			else /* split since: the page's translation holds to the end of its new leaf */
				pages = span - (vpn & (span - 1));
		}
		goto found;
	}
	s->st.iotlb_misses++;
	pte = sim_pt_lookup(d, page, &levels);
	s->st.pt_walks++;
	s->st.pt_walk_levels += levels;
	l = SIM_LEVELS + 1 - levels;
	pages = leaf_pages(l) - (vpn & (leaf_pages(l) - 1));
	if (pte) {
		uint64_t first = ALIGN_DOWN(vpn, leaf_pages(l));

		e = sim_iotlb_slot(s, id, first, l);
		entry_drop(s, e);
		s->tlb_large += l > 1;
		d->tlb_held++;
		if (l > 1) {
			uint64_t end = first + leaf_pages(l) - 1;

			/* grows only: a bound of where the domain's large entries are */
			d->large_first = d->tlb_large ? GPUISO_MIN(d->large_first, first) : first;
			d->large_last = d->tlb_large ? GPUISO_MAX(d->large_last, end) : end;
			d->tlb_large++;
		}
		*e = (struct sim_tlb_entry){ .vpn = first,
					     .pte = pte - ((vpn - first) << GPUISO_PAGE_SHIFT),
					     .gen = d->gen, .dom = id, .level = l };
		sim_tlb_touch(s, e);
		if (s->digest_on)
			d->tlb_valid ^= sim_tlb_valid_term(s, e);
	}
found:
	if (pte && l > 1 && pages > 1 && vpn <= d->shadow_last && vpn + pages - 1 >= d->shadow_first)
		pages = before_smaller_entry(s, id, vpn, pages, l);
	*reach = pages << GPUISO_PAGE_SHIFT;
	return pte;
}

/* Drop @e, counting it in *(uint64_t *)@arg. */
static void drop_counted(struct sim *s, struct sim_tlb_entry *e, void *arg)
{
	entry_drop(s, e);
	(*(uint64_t *)arg)++;
}

/* Drop the entries of @id whose leaf overlaps pages [first, last]; returns how many. */
static uint64_t sim_iotlb_drop(struct sim *s, uint32_t id, uint64_t first, uint64_t last)
{
	uint64_t dropped = 0;

	entries_over(s, id, first, last, SIM_LEVELS, drop_counted, &dropped);
	return dropped;
}

void sim_iotlb_drop_domain(struct sim *s, uint32_t id)
{
	sim_iotlb_drop(s, id, 0, UINT64_MAX);
}

void sim_iotlb_invalidate(struct sim *s, uint32_t domain, iova_t iova, uint64_t size)
{
	struct sim_domain *d = sim_dom(s, domain);
	uint64_t last;

	if (!d || !size)
		return;
	last = size - 1 > UINT64_MAX - iova ? UINT64_MAX : iova + (size - 1);
	s->st.iotlb_invalidations +=
		sim_iotlb_drop(s, domain, iova >> GPUISO_PAGE_SHIFT, last >> GPUISO_PAGE_SHIFT);
	/* the stale entries under large leaves are gone once a flush covered them all */
	if (iova >> GPUISO_PAGE_SHIFT <= d->shadow_first && last >> GPUISO_PAGE_SHIFT >= d->shadow_last) {
		d->shadow_first = UINT64_MAX;
		d->shadow_last = 0;
	}
}

/*
 * What a flush of [iova, iova+size) invalidates, by model: VT-d the pages
 * of the range (page-selective invalidation); AMD-Vi the naturally aligned
 * power-of-two block that covers it, the whole domain past 2^52 (one
 * INVALIDATE_IOMMU_PAGES command, as Linux's build_inv_address() builds
 * it); virtio-iommu nothing: its unmap request invalidated already.
 */
void sim_op_flush(struct hw *hw, uint32_t domain, iova_t iova, uint64_t size)
{
	struct sim *s = to_sim(hw);
	uint64_t last, block;
	int msb;

	if (!size || s->model == HW_MODEL_VIRTIO)
		return;
	if (s->model == HW_MODEL_AMD_VI) {
		last = size - 1 > UINT64_MAX - iova ? UINT64_MAX : iova + (size - 1);
		if ((iova ^ last) >> GPUISO_PAGE_SHIFT) {
			msb = 63 - __builtin_clzll(iova ^ last);
			block = msb > 51 ? UINT64_MAX : (2ull << msb) - 1;
			iova &= ~block;
			size = block == UINT64_MAX ? UINT64_MAX : block + 1;
		}
	}
	sim_iotlb_invalidate(s, domain, iova, size);
}
