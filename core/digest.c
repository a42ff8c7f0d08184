/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <string.h>

#include "common/digest.h"
#include "adapter_internal.h"
#include "domain_internal.h"
#include "hwcall_internal.h"
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

/* The handle @o refers to (its MDL, PMO or CPU view), or 0. */
static core_handle_t hobj_ref(const struct hobj *o)
{
	switch (o->kind) {
	case H_MDL_MAP:
		return o->u.mdl_map.mdl;
	case H_PMO_OPEN:
		return o->u.pmo_open.pmo;
	case H_VIEW:
		return o->u.view.pmo;
	case H_ADL:
		return o->u.adl.pmo;
	case H_ALLOC:
		return o->u.alloc.cpu_view;
	default:
		return 0;
	}
}

/*
 * A handle an object holds, in its term: the slot it names (whether it
 * resolves there is its slot's refs' part, ref_term()).
 */
static uint64_t raw(core_handle_t h)
{
	return h ? (uint64_t)(h & H_INDEX_MASK) << 1 | 1 : 0;
}

/* The term of live object @o in slot @index; its reference by its slot alone. */
static uint64_t hobj_term(const struct hobj *o, uint32_t index)
{
	uint64_t h = DIGEST_FOLD(0x686f626aull, index, o->kind, o->adapter);

	h = pages_digest(&o->pg, h);
	h = dmap_digest(&o->map, h);
	h = digest_combine(h, raw(hobj_ref(o)));
	switch (o->kind) {
	case H_PMO:
		return DIGEST_FOLD(h, o->u.pmo.opens, o->u.pmo.adls, o->u.pmo.views,
				   o->u.pmo.cache);
	case H_VIEW:
		return DIGEST_FOLD(h, o->u.view.fb_pin, o->u.view.fb_chunk, o->u.view.section);
	case H_ALLOC:
		h = DIGEST_FOLD(h, o->u.alloc.cpu_view_freed, o->u.alloc.cpu_view_freed_at);
		return DIGEST_FOLD(h, o->u.alloc.seg, o->u.alloc.flags, o->u.alloc.vram_off,
				   o->u.alloc.aperture_mapped);
	default:
		return h;
	}
}

/* Whether @h names the live object of its slot (canon()'s low bit). */
static bool resolves(const struct handle_table *ht, core_handle_t h)
{
	return canon(ht, h) & 1;
}

/* The term of a reference tagged @tag (its holder) that resolves to @h's slot. */
static uint64_t ref_term(core_handle_t h, uint64_t tag)
{
	return DIGEST_FOLD(0x726566ull, h & H_INDEX_MASK, tag);
}

/* The tag of the reference an object in slot @index holds. */
static uint64_t obj_tag(uint32_t index)
{
	return digest_combine(0x6f626a726566ull, index);
}

/* Count a reference to @h tagged @tag in its slot's refs, or (a second call) no longer. */
static void ref_toggle(struct handle_table *ht, core_handle_t h, uint64_t tag)
{
	uint32_t index = h & H_INDEX_MASK;
	uint64_t t;

	if (!resolves(ht, h))
		return; /* its object went, and its refs with it */
	t = ref_term(h, tag);
	ht->dig[index / H_CHUNK][index % H_CHUNK].refs ^= t;
	ht->refs ^= t;
}

/* Take slot @index's term again, and its object's reference. */
static void slot_retake(struct handle_table *ht, uint32_t index)
{
	const struct hobj *o = &ht->chunks[index / H_CHUNK][index % H_CHUNK];
	struct hdig *d = &ht->dig[index / H_CHUNK][index % H_CHUNK];

	ht->objs ^= d->term;
	if (d->reg)
		ref_toggle(ht, d->reg, obj_tag(index));
	d->term = 0;
	d->reg = 0;
	if (o->kind != H_FREE) {
		d->term = hobj_term(o, index);
		d->reg = hobj_ref(o);
		if (d->reg && resolves(ht, d->reg))
			ref_toggle(ht, d->reg, obj_tag(index));
		else
			d->reg = 0;
	}
	ht->objs ^= d->term;
	d->touched = false;
}

/*
 * The handles' part of the digest, kept: the first call (or one after a
 * slot went unnoted) takes every slot, each later one the slots touched.
 */
static uint64_t handles_digest(struct handle_table *ht)
{
	if (!ht->track || ht->touch_lost) {
		for (uint32_t i = 0; i < ht->next_index; i++)
			slot_retake(ht, i);
		ht->track = true;
		ht->touch_lost = false;
	} else {
		for (size_t i = 0; i < ht->ntouched; i++)
			slot_retake(ht, ht->touched[i]);
	}
	ht->ntouched = 0;
	return DIGEST_FOLD(ht->next_index, ht->live, ht->objs);
}

/* handles_digest() computed again from every slot; its references' part in *@refs. */
static uint64_t handles_digest_full(const struct handle_table *ht, uint64_t *refs)
{
	uint64_t objs = 0;

	*refs = 0;
	for (uint32_t i = 0; i < ht->next_index; i++) {
		const struct hobj *o = &ht->chunks[i / H_CHUNK][i % H_CHUNK];
		core_handle_t ref;

		if (o->kind == H_FREE)
			continue;
		objs ^= hobj_term(o, i);
		ref = hobj_ref(o);
		if (ref && resolves(ht, ref))
			*refs ^= ref_term(ref, obj_tag(i));
	}
	return DIGEST_FOLD(ht->next_index, ht->live, objs);
}

void core_digest_ref(struct core *core, core_handle_t h, uint64_t tag)
{
	if (core->ht.track)
		ref_toggle(&core->ht, h, tag);
}

uint64_t core_digest_ref_term(const struct core *core, core_handle_t h, uint64_t tag)
{
	return resolves(&core->ht, h) ? ref_term(h, tag) : 0;
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
	uint64_t h, hw, refs;
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
	if (full) {
		h = digest_combine(h, handles_digest_full(&core->ht, &refs));
	} else {
		h = digest_combine(h, handles_digest(&core->ht));
		refs = core->ht.refs;
	}
	h = digest_combine(h, full ? physmem_digest_full(core->pm) : physmem_digest(core->pm));
	/* the references' terms outside the fold: a sum, to which the engine's add (core_digest_ref()) */
	*digest = digest_combine(h, hw) ^ refs;
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
