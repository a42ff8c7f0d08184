/* SPDX-License-Identifier: MIT */
#include "common/digest.h"
#include "sim_internal.h"

/*
 * The simulator's state digest: page tables by their leaves (empty tables
 * left linked by unmaps are not state), the IOTLB with each entry's
 * generation reduced to what it decides (checked on use or not), devices'
 * VRAM and queues, and the faults not yet taken. Counters are not state,
 * except stale hits: the model compares them with what it has reported.
 *
 * The leaves and the IOTLB are sums (XOR) of a term each (sim_internal.h),
 * kept by pt.c and iotlb.c as they change once the first digest was taken
 * (s->digest_on): a digest then costs the domains, the devices and what
 * their VRAM changed since, not the tables. The _full variants compute the
 * same sums again from everything, as the cross-check of the kept ones.
 */

/* The XOR of the terms of the leaves under table @t of @level, which maps from @base. */
static uint64_t pt_leaves_full(const uint64_t *t, unsigned int level, iova_t base)
{
	unsigned int shift = GPUISO_PAGE_SHIFT + SIM_PT_BITS * (level - 1);
	uint64_t h = 0;

	for (unsigned int i = 0; i < SIM_PT_ENTRIES; i++) {
		iova_t iova = base + ((uint64_t)i << shift);

		if (t[i] & SIM_PTE_PERM)
			h ^= sim_leaf_term(iova, level, t[i]);
		else if (level > 1 && (t[i] & SIM_PTE_TABLE))
			h ^= pt_leaves_full((const uint64_t *)(uintptr_t)(t[i] & SIM_PTE_ADDR),
					    level - 1, iova);
	}
	return h;
}

/* The XOR of the terms of the IOTLB's entries (of domain @id's valid ones: @valid). */
static uint64_t tlb_full(const struct sim *s, uint32_t id, bool valid)
{
	uint64_t h = 0;

	for (size_t i = 0; i < s->ntlb; i++) {
		const struct sim_tlb_entry *e = &s->tlb[i];
		const struct sim_domain *d;

		if (!e->dom)
			continue;
		d = e->dom <= s->ndoms && s->doms[e->dom - 1].root ? &s->doms[e->dom - 1] : NULL;
		if (!valid)
			h ^= sim_tlb_term(s, e);
		else if (e->dom == id && d && e->gen == d->gen)
			h ^= sim_tlb_valid_term(s, e);
	}
	return h;
}

static uint64_t domains_digest(const struct sim *s, bool full, uint64_t h)
{
	for (size_t i = 0; i < s->ndoms; i++) {
		const struct sim_domain *d = &s->doms[i];

		if (!d->root)
			continue;
		h = DIGEST_FOLD(h, i + 1, d->users, d->shadow_first, d->shadow_last, d->tlb_held,
				full ? pt_leaves_full(d->root, SIM_LEVELS, 0) : d->pt_state,
				full ? tlb_full(s, (uint32_t)(i + 1), true) : d->tlb_valid);
	}
	return h;
}

static uint64_t devices_digest(struct sim *s, bool full, uint64_t h)
{
	for (unsigned int i = 0; i < s->ndevs; i++) {
		struct sim_dev *dv = &s->devs[i];

		h = DIGEST_FOLD(h, (uint64_t)dv->domain << 1 | dv->powered,
				(uint64_t)dv->count << 32 | (uint32_t)dv->err);
		for (unsigned int j = 0; j < dv->count; j++) {
			const struct hw_job *job = &dv->queue[(dv->head + j) % SIM_QUEUE];

			h = DIGEST_FOLD(h, job->dir, job->vram_off, job->iova, job->len);
		}
		h = digest_combine(h, full ? sparse_state_digest_full(&dv->vram)
					   : sparse_state_digest(&dv->vram));
	}
	return h;
}

static uint64_t sim_digest(struct sim *s, bool full)
{
	uint64_t h = digest_combine(0, s->st.stale_hits);

	h = domains_digest(s, full, h);
	h = DIGEST_FOLD(h, s->tlb_large, full ? tlb_full(s, 0, false) : s->tlb_state);
	h = devices_digest(s, full, h);
	h = digest_combine(h, s->fault_count);
	for (unsigned int j = 0; j < s->fault_count; j++) {
		const struct hw_fault *f = &s->faults[(s->fault_head + j) % SIM_FAULTS];

		h = DIGEST_FOLD(h, f->iova | f->write, (uint64_t)f->dev << 8 | f->reason);
	}
	return h;
}

uint64_t sim_op_state_digest(struct hw *hw)
{
	struct sim *s = to_sim(hw);

	if (!s->digest_on) {
		/* from now on pt.c and iotlb.c keep the terms */
		for (size_t i = 0; i < s->ndoms; i++) {
			struct sim_domain *d = &s->doms[i];

			if (!d->root)
				continue;
			d->pt_state = pt_leaves_full(d->root, SIM_LEVELS, 0);
			d->tlb_valid = tlb_full(s, (uint32_t)(i + 1), true);
		}
		s->tlb_state = tlb_full(s, 0, false);
		s->digest_on = true;
	}
	return sim_digest(s, false);
}

uint64_t sim_op_state_digest_full(struct hw *hw)
{
	return sim_digest(to_sim(hw), true);
}
