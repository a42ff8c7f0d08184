/* SPDX-License-Identifier: MIT */
#include <stdlib.h>

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

/* The term of level-1 table @t, which maps from @base: 0 when it maps nothing. */
static uint64_t l1_term(const uint64_t *t, iova_t base)
{
	uint64_t any = 0;

	for (unsigned int i = 0; i < SIM_PT_ENTRIES; i++)
		any |= t[i];
	/* a table of pages holds leaves and zeros only: its bytes are its leaves */
	return any ? sim_mix(sim_mix(base ^ 0x6c31ull) ^
			     digest_bytes(t, SIM_PT_ENTRIES * sizeof(*t)))
		   : 0;
}

/*
 * The XOR of the terms of the large leaves and level-1 tables under table
 * @t of @level, which maps from @base; with @keep, each level-1 table's
 * term goes in @d's l1_terms (false when one could not).
 */
static uint64_t pt_leaves_full(struct sim_domain *d, bool keep, const uint64_t *t,
			       unsigned int level, iova_t base, bool *ok)
{
	unsigned int shift = GPUISO_PAGE_SHIFT + SIM_PT_BITS * (level - 1);
	uint64_t h = 0;

	if (level == 1) {
		h = l1_term(t, base);
		if (keep && h && u64map_put(&d->l1_terms, base, h))
			*ok = false;
		return h;
	}
	for (unsigned int i = 0; i < SIM_PT_ENTRIES; i++) {
		iova_t iova = base + ((uint64_t)i << shift);

		if (t[i] & SIM_PTE_PERM)
			h ^= sim_leaf_term(iova, level, t[i]);
		else if (t[i] & SIM_PTE_TABLE)
			h ^= pt_leaves_full(d, keep, (const uint64_t *)(uintptr_t)(t[i] & SIM_PTE_ADDR),
					    level - 1, iova, ok);
	}
	return h;
}

/* The level-1 table of the 2 MiB region at @base, or NULL. */
static const uint64_t *l1_table(const struct sim_domain *d, iova_t base)
{
	const uint64_t *t = d->root;

	for (unsigned int l = SIM_LEVELS; l > 1; l--) {
		uint64_t e = t[(base >> (GPUISO_PAGE_SHIFT + SIM_PT_BITS * (l - 1))) &
			       (SIM_PT_ENTRIES - 1)];

		if (!(e & SIM_PTE_TABLE))
			return NULL;
		t = (const uint64_t *)(uintptr_t)(e & SIM_PTE_ADDR);
	}
	return t;
}

/* Take every level-1 table of @d's again, and keep their terms. */
static void pt_retake(struct sim_domain *d)
{
	bool ok = true;

	u64map_fini(&d->l1_terms);
	d->pt_state = pt_leaves_full(d, true, d->root, SIM_LEVELS, 0, &ok);
	d->l1_lost = !ok;
	d->nl1_dirty = 0;
}

/* Bring @d's kept terms up to date: the level-1 tables written since the last digest. */
static void pt_flush(struct sim_domain *d)
{
	if (d->l1_lost) {
		pt_retake(d);
		return;
	}
	/* each table once */
	sim_l1_compact(d);
	for (size_t i = 0; i < d->nl1_dirty; i++) {
		iova_t base = d->l1_dirty[i];
		const uint64_t *t = l1_table(d, base), *kept = u64map_get(&d->l1_terms, base);
		uint64_t old = kept ? *kept : 0, term = t ? l1_term(t, base) : 0;

		if (term == old)
			continue;
		d->pt_state ^= old ^ term;
		if (!term)
			u64map_del(&d->l1_terms, base);
		else if (u64map_put(&d->l1_terms, base, term))
			d->l1_lost = true; /* taken whole at the next digest */
	}
	d->nl1_dirty = 0;
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

/* Bring the IOTLB's kept terms up to date: the entries changed since the last digest. */
static void tlb_flush(struct sim *s)
{
	for (size_t k = 0; k < s->ntlb_dirty; k++) {
		uint32_t i = s->tlb_dirty[k];
		uint64_t term = s->tlb[i].dom ? sim_tlb_term(s, &s->tlb[i]) : 0;

		s->tlb_state ^= s->tlb_terms[i] ^ term;
		s->tlb_terms[i] = term;
		s->tlb_dirty_bits[i / 64] &= ~((uint64_t)1 << (i % 64));
	}
	s->ntlb_dirty = 0;
}

static uint64_t domains_digest(struct sim *s, bool full, uint64_t h)
{
	for (size_t i = 0; i < s->ndoms; i++) {
		struct sim_domain *d = &s->doms[i];
		bool ok = true;

		if (!d->root)
			continue;
		if (!full)
			pt_flush(d);
		h = DIGEST_FOLD(h, i + 1, d->users, d->shadow_first, d->shadow_last, d->tlb_held,
				full ? pt_leaves_full(d, false, d->root, SIM_LEVELS, 0, &ok)
				     : d->pt_state,
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
	if (!full)
		tlb_flush(s);
	h = DIGEST_FOLD(h, s->tlb_large, full ? tlb_full(s, 0, false) : s->tlb_state);
	h = devices_digest(s, full, h);
	h = digest_combine(h, s->fault_count);
	for (unsigned int j = 0; j < s->fault_count; j++) {
		const struct hw_fault *f = &s->faults[(s->fault_head + j) % SIM_FAULTS];

		h = DIGEST_FOLD(h, f->iova | f->write, (uint64_t)f->dev << 8 | f->reason);
	}
	return h;
}

/* Start keeping the terms: false when there is no memory for it. */
static bool digest_start(struct sim *s)
{
	s->tlb_terms = calloc(s->ntlb, sizeof(*s->tlb_terms));
	s->tlb_dirty_bits = calloc((s->ntlb + 63) / 64, sizeof(*s->tlb_dirty_bits));
	s->tlb_dirty = calloc(s->ntlb, sizeof(*s->tlb_dirty));
	if (!s->tlb_terms || !s->tlb_dirty_bits || !s->tlb_dirty) {
		free(s->tlb_terms);
		free(s->tlb_dirty_bits);
		free(s->tlb_dirty);
		s->tlb_terms = NULL;
		s->tlb_dirty_bits = NULL;
		s->tlb_dirty = NULL;
		return false;
	}
	for (size_t i = 0; i < s->ndoms; i++) {
		struct sim_domain *d = &s->doms[i];

		if (!d->root)
			continue;
		pt_retake(d);
		d->tlb_valid = tlb_full(s, (uint32_t)(i + 1), true);
	}
	s->tlb_state = 0;
	for (size_t i = 0; i < s->ntlb; i++) {
		s->tlb_terms[i] = s->tlb[i].dom ? sim_tlb_term(s, &s->tlb[i]) : 0;
		s->tlb_state ^= s->tlb_terms[i];
	}
	s->ntlb_dirty = 0;
	/* from now on pt.c and iotlb.c keep the terms */
	s->digest_on = true;
	return true;
}

uint64_t sim_op_state_digest(struct hw *hw)
{
	struct sim *s = to_sim(hw);

	if (!s->digest_on && !digest_start(s))
		return sim_digest(s, true);
	return sim_digest(s, false);
}

uint64_t sim_op_state_digest_full(struct hw *hw)
{
	return sim_digest(to_sim(hw), true);
}
