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
 * Like hardware, unmap leaves entries in place until a flush, and a DMA
 * through such an entry still reaches memory. To notice that without
 * walking on every hit, each domain counts its unmaps: an entry filled at an
 * older count is compared with the page table once, and counted as a stale
 * hit if it no longer matches.
 */

int sim_iotlb_init(struct sim *s, unsigned int entries)
{
	s->ntlb = entries ? entries : SIM_IOTLB_DEFAULT;
	s->tlb = calloc(s->ntlb, sizeof(*s->tlb));
	return s->tlb ? 0 : -ENOMEM;
}

void sim_iotlb_fini(struct sim *s)
{
	free(s->tlb);
	s->tlb = NULL;
}

static struct sim_tlb_entry *sim_iotlb_slot(struct sim *s, uint32_t id, uint64_t vpn)
{
	/* Consecutive pages take consecutive slots; domains are spread apart. */
	return &s->tlb[(vpn + (uint64_t)id * 0x9e3779b1u) % s->ntlb];
}

uint64_t sim_iotlb_lookup(struct sim *s, uint32_t id, struct sim_domain *d, iova_t iova)
{
	uint64_t vpn = iova >> PAGE_SHIFT;
	struct sim_tlb_entry *e = sim_iotlb_slot(s, id, vpn);
	unsigned int levels;
	uint64_t pte;

	if (e->dom == id && e->vpn == vpn) {
		s->st.iotlb_hits++;
		if (e->gen != d->gen) {
			/* The simulator's own check, not a hardware walk: not counted as one. */
			if (sim_pt_lookup(d, iova, &levels) == e->pte)
				e->gen = d->gen;
			else
				s->st.stale_hits++;
		}
		return e->pte;
	}
	s->st.iotlb_misses++;
	pte = sim_pt_lookup(d, iova, &levels);
	s->st.pt_walks++;
	s->st.pt_walk_levels += levels;
	if (pte)
		*e = (struct sim_tlb_entry){ .vpn = vpn, .pte = pte, .gen = d->gen, .dom = id };
	return pte;
}

/* Drop the entries of @id whose page lies in [first, last]; returns how many. */
static uint64_t sim_iotlb_drop(struct sim *s, uint32_t id, uint64_t first, uint64_t last)
{
	uint64_t dropped = 0;

	if (last - first < s->ntlb) {
		/* Fewer pages than entries: look where each page would be. */
		for (uint64_t vpn = first;; vpn++) {
			struct sim_tlb_entry *e = sim_iotlb_slot(s, id, vpn);

			if (e->dom == id && e->vpn == vpn) {
				e->dom = 0;
				dropped++;
			}
			if (vpn == last)
				break;
		}
		return dropped;
	}
	for (size_t i = 0; i < s->ntlb; i++) {
		struct sim_tlb_entry *e = &s->tlb[i];

		if (e->dom == id && e->vpn >= first && e->vpn <= last) {
			e->dom = 0;
			dropped++;
		}
	}
	return dropped;
}

void sim_iotlb_drop_domain(struct sim *s, uint32_t id)
{
	sim_iotlb_drop(s, id, 0, UINT64_MAX);
}

void sim_op_flush(struct hw *hw, uint32_t domain, iova_t iova, uint64_t size)
{
	struct sim *s = to_sim(hw);
	uint64_t last;

	if (!sim_dom(s, domain) || !size)
		return;
	last = size - 1 > UINT64_MAX - iova ? UINT64_MAX : iova + (size - 1);
	s->st.iotlb_invalidations +=
		sim_iotlb_drop(s, domain, iova >> PAGE_SHIFT, last >> PAGE_SHIFT);
}
