/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <string.h>

#include "common/digest.h"
#include "internal.h"

/*
 * The model's state digest (core_state_digest()). Every field that a later
 * call reads is folded in, raw: a value that differs without mattering only
 * costs a sweep run that could have stopped, while one left out could stop
 * a run whose future differs. Left out: records and their texts (adapter
 * errors, violations, power records), the transition's wall-clock times and
 * counts (reset when the next one starts), and configuration that cannot
 * change after start.
 */

/*
 * A handle by what it names: its slot, and whether it resolves there. The
 * generation is left out: a creation the model refused may have taken and
 * given back a slot, which bumps its generation and nothing else.
 */
static uint64_t canon(const struct handle_table *ht, core_handle_t h)
{
	uint32_t index = h & H_INDEX_MASK;
	const struct hobj *o;

	if (!h || index >= ht->next_index)
		return (uint64_t)h << 1;
	o = &ht->chunks[index / H_CHUNK][index % H_CHUNK];
	return (uint64_t)index << 1 | (o->kind != H_FREE && o->gen == h >> H_INDEX_BITS);
}

uint64_t core_handle_digest(const struct core *core, core_handle_t h)
{
	return canon(&core->ht, h);
}

static uint64_t pages_digest(const struct pages *pg, uint64_t h)
{
	const struct phys_run *runs = pg_runs(pg);

	h = DIGEST_FOLD(h, pg->npages, pg->runs.n, pg->committed, pg->locked, pg->owned);
	for (size_t i = 0; i < pg->runs.n; i++)
		h = DIGEST_FOLD(h, runs[i].pa, runs[i].npages);
	return h;
}

static uint64_t dmap_digest(const struct dmap *m, uint64_t h)
{
	return DIGEST_FOLD(h, m->wanted, m->mapped, m->logical, m->perm, m->iova);
}

static uint64_t hobj_digest(const struct handle_table *ht, const struct hobj *o, uint64_t h)
{
	h = DIGEST_FOLD(h, o->kind, o->adapter);
	h = pages_digest(&o->pg, h);
	h = dmap_digest(&o->map, h);
	switch (o->kind) {
	case H_MDL_MAP:
		return DIGEST_FOLD(h, canon(ht, o->u.mdl_map.mdl));
	case H_PMO:
		return DIGEST_FOLD(h, o->u.pmo.opens, o->u.pmo.adls, o->u.pmo.views,
				   o->u.pmo.cache);
	case H_PMO_OPEN:
		return DIGEST_FOLD(h, canon(ht, o->u.pmo_open.pmo));
	case H_VIEW:
		return DIGEST_FOLD(h, canon(ht, o->u.view.pmo), o->u.view.fb_pin,
				   o->u.view.fb_chunk, o->u.view.section);
	case H_ADL:
		return DIGEST_FOLD(h, canon(ht, o->u.adl.pmo));
	case H_ALLOC:
		h = DIGEST_FOLD(h, o->u.alloc.cpu_view_freed, o->u.alloc.cpu_view_freed_at);
		return DIGEST_FOLD(h, o->u.alloc.seg, o->u.alloc.flags, o->u.alloc.vram_off,
				   o->u.alloc.aperture_mapped, canon(ht, o->u.alloc.cpu_view));
	default:
		return h;
	}
}

/* Live objects by slot: the free slots follow (the lowest is handed out first). */
static uint64_t handles_digest(const struct handle_table *ht, uint64_t h)
{
	h = DIGEST_FOLD(h, ht->next_index, ht->live);
	for (uint32_t i = 0; i < ht->next_index; i++) {
		const struct hobj *o = &ht->chunks[i / H_CHUNK][i % H_CHUNK];

		if (o->kind != H_FREE)
			h = hobj_digest(ht, o, DIGEST_FOLD(h, i));
	}
	return h;
}

static uint64_t phys_digest(const struct handle_table *ht, const struct phys_adapter *p,
			    uint64_t h)
{
	h = DIGEST_FOLD(h, p->dev, p->domain, p->powered, p->reset, p->fb_bytes,
			p->fb_vram_off, p->fb_section_off, p->saved_hash, p->saved_valid, p->seeded,
			canon(ht, p->small), canon(ht, p->small_cpu), p->small_bytes,
			canon(ht, p->small_pmo), p->nreserved,
			p->reserved_mapped, p->fb_now, p->save_size_set, p->save_size);
	for (size_t i = 0; i < p->nreserved; i++)
		h = DIGEST_FOLD(h, p->reserved[i].base, p->reserved[i].size);
	h = pages_digest(&p->pfs, h);
	return dmap_digest(&p->pfs_map, h);
}

static uint64_t adapter_digest(const struct handle_table *ht, struct adapter *a, bool full,
			       uint64_t h)
{
	h = DIGEST_FOLD(h, a->started, a->want_enable, a->want_mappings, a->want_attach,
			a->attach_on, a->iommu_enabled, a->mappings, a->attached, a->mode,
			a->domain, a->logical_limit, a->mapped_bytes, a->in_exclusive,
			a->sched_suspended, a->nphys, a->fb_commit, a->secure_vms, a->xfer.active);
	h = DIGEST_FOLD(h, full ? range_digest_full(&a->iova) : range_digest(&a->iova),
			full ? idmap_digest_full(&a->idmap) : idmap_digest(&a->idmap),
			full ? range_digest_full(&a->vram) : range_digest(&a->vram));
	for (size_t i = 0; i < a->nphys; i++) {
		const struct section *sec = &a->sections[i];

		h = phys_digest(ht, &a->phys[i], h);
		h = DIGEST_FOLD(h, sec->bytes, sec->pinned);
		h = pages_digest(&sec->pg, h);
		h = dmap_digest(&sec->map, h);
	}
	return h;
}

/* core_state_digest(), or with @full core_state_digest_full(). */
static int state_digest(struct core *core, bool full, uint64_t *digest)
{
	uint64_t h, hw;
	int rc;

	/* a KMD of the caller's may keep state of its own */
	if (core->kmd || memcmp(&core->kmd_merged, kmd_reference(), sizeof(core->kmd_merged)))
		return -EOPNOTSUPP;
	rc = hwc_state_digest(core, full, &hw);
	if (rc)
		return rc;
	h = DIGEST_FOLD(0, core->started, core->stopped, core->irql, core->event, core->ts_ns,
			core->stale_seen, core->nadapters, core->bugchecked);
	for (size_t i = 0; i < core->nadapters; i++)
		h = adapter_digest(&core->ht, &core->adapters[i], full, h);
	h = handles_digest(&core->ht, h);
	h = digest_combine(h, full ? physmem_digest_full(core->pm) : physmem_digest(core->pm));
	*digest = digest_combine(h, hw);
	return 0;
}

int core_state_digest(struct core *core, uint64_t *digest)
{
	return state_digest(core, false, digest);
}

int core_state_digest_full(struct core *core, uint64_t *digest)
{
	return state_digest(core, true, digest);
}
