/* SPDX-License-Identifier: MIT */
#include "common/digest.h"
#include "sim_internal.h"

/*
 * The simulator's state digest: page tables by their leaves (empty tables
 * left linked by unmaps are not state), the IOTLB with each entry's
 * generation reduced to what it decides (checked on use or not), devices'
 * VRAM and queues, and the faults not yet taken. Counters are not state,
 * except stale hits: the model compares them with what it has reported.
 */

static uint64_t pt_leaves_digest(const uint64_t *t, unsigned int level, iova_t base, uint64_t h)
{
	unsigned int shift = GPUISO_PAGE_SHIFT + SIM_PT_BITS * (level - 1);
	uint64_t any = 0;

	if (level == 1) {
		/* a table of pages holds leaves and zeros only: its bytes are its leaves */
		for (unsigned int i = 0; i < SIM_PT_ENTRIES; i++)
			any |= t[i];
		return any ? DIGEST_FOLD(h, base | 1, digest_bytes(t, SIM_PT_ENTRIES * sizeof(*t))) : h;
	}
	for (unsigned int i = 0; i < SIM_PT_ENTRIES; i++) {
		iova_t iova = base + ((uint64_t)i << shift);

		if (t[i] & SIM_PTE_PERM) {
			h = DIGEST_FOLD(h, iova | level, t[i]);
		} else if (t[i] & SIM_PTE_TABLE) {
			h = pt_leaves_digest((const uint64_t *)(uintptr_t)(t[i] & SIM_PTE_ADDR),
					     level - 1, iova, h);
		}
	}
	return h;
}

static uint64_t domains_digest(const struct sim *s, uint64_t h)
{
	for (size_t i = 0; i < s->ndoms; i++) {
		const struct sim_domain *d = &s->doms[i];

		if (!d->root)
			continue;
		h = DIGEST_FOLD(h, i + 1, d->users, d->shadow_first, d->shadow_last, d->tlb_held);
		h = pt_leaves_digest(d->root, SIM_LEVELS, 0, h);
	}
	return h;
}

static uint64_t iotlb_digest(struct sim *s, uint64_t h)
{
	h = digest_combine(h, s->tlb_large);
	for (size_t i = 0; i < s->ntlb; i++) {
		const struct sim_tlb_entry *e = &s->tlb[i];
		const struct sim_domain *d;

		if (!e->dom)
			continue;
		d = sim_dom(s, e->dom);
		h = DIGEST_FOLD(h, i, e->vpn, e->pte,
				(uint64_t)e->dom << 8 | e->level << 1 | (d && e->gen == d->gen));
	}
	return h;
}

static uint64_t devices_digest(const struct sim *s, uint64_t h)
{
	for (unsigned int i = 0; i < s->ndevs; i++) {
		const struct sim_dev *dv = &s->devs[i];

		h = DIGEST_FOLD(h, (uint64_t)dv->domain << 1 | dv->powered,
				(uint64_t)dv->count << 32 | (uint32_t)dv->err);
		for (unsigned int j = 0; j < dv->count; j++) {
			const struct hw_job *job = &dv->queue[(dv->head + j) % SIM_QUEUE];

			h = DIGEST_FOLD(h, job->dir, job->vram_off, job->iova, job->len);
		}
		h = sparse_state_digest(&dv->vram, h);
	}
	return h;
}

uint64_t sim_op_state_digest(struct hw *hw)
{
	struct sim *s = to_sim(hw);
	uint64_t h = digest_combine(0, s->st.stale_hits);

	h = domains_digest(s, h);
	h = iotlb_digest(s, h);
	h = devices_digest(s, h);
	h = digest_combine(h, s->fault_count);
	for (unsigned int j = 0; j < s->fault_count; j++) {
		const struct hw_fault *f = &s->faults[(s->fault_head + j) % SIM_FAULTS];

		h = DIGEST_FOLD(h, f->iova | f->write, (uint64_t)f->dev << 8 | f->reason);
	}
	return h;
}
