/* SPDX-License-Identifier: MIT */
/*
 * The generators' actions: what may be taken by one (the predicates over
 * the live objects), and each action, which checks it is valid (the core
 * would accept it) and fits (the events left still cover the teardown),
 * then emits.
 */
#include <stdlib.h>

#include "replay/gen_internal.h"

#define GEN_MAX_DMA (64ull << 10)

static bool is_free_mdl(const struct gen *g, const struct obj *o)
{
	return o->kind == O_MDL && !o->refs;
}

static bool is_mappable_mdl(const struct gen *g, const struct obj *o)
{
	return (o->kind == O_MDL || o->kind == O_DRIVER_MDL) && o->refs < 2;
}

/* A driver MDL with no mapping left: it outlives every mapping of it. */
static bool is_free_driver_mdl(const struct gen *g, const struct obj *o)
{
	return o->kind == O_DRIVER_MDL && !o->refs;
}

static bool is_mdl_map(const struct gen *g, const struct obj *o)
{
	return o->kind == O_MDL_MAP;
}

static bool is_contig(const struct gen *g, const struct obj *o)
{
	return o->kind == O_CONTIG;
}

static bool is_free_pmo(const struct gen *g, const struct obj *o)
{
	return o->kind == O_PMO && !o->refs;
}

static bool is_pmo_with_room(const struct gen *g, const struct obj *o)
{
	return o->kind == O_PMO && o->refs < 4;
}

static bool is_adl(const struct gen *g, const struct obj *o)
{
	return o->kind == O_ADL;
}

static bool is_alloc(const struct gen *g, const struct obj *o)
{
	return o->kind == O_ALLOC;
}

static bool is_unmapped_aperture(const struct gen *g, const struct obj *o)
{
	return o->kind == O_ALLOC && o->seg == WL_SEG_APERTURE && !o->ap_mapped;
}

static bool is_mapped_aperture(const struct gen *g, const struct obj *o)
{
	return o->kind == O_ALLOC && o->ap_mapped;
}

static bool is_vram(const struct gen *g, const struct obj *o)
{
	return o->kind == O_ALLOC && o->seg == WL_SEG_VRAM;
}

static bool is_fence(const struct gen *g, const struct obj *o)
{
	return o->kind == O_FENCE;
}

/*
 * Memory the device can reach right now: a VRAM allocation's backing store
 * is mapped only during a transfer, a PMO only through its ADLs, and a
 * driver's own MDL only through its MapMdlToIoMmu mappings.
 */
static bool is_dma_target(const struct gen *g, const struct obj *o)
{
	return o->kind != O_PMO && o->kind != O_DRIVER_MDL && o->kind != O_VIEW &&
	       o->kind != O_FB_CHUNK && !(o->kind == O_ALLOC && o->seg == WL_SEG_VRAM);
}

static bool is_view(const struct gen *g, const struct obj *o)
{
	return o->kind == O_VIEW;
}

static bool is_fb_pin(const struct gen *g, const struct obj *o)
{
	return o->kind == O_FB_PIN;
}

static bool is_fb_chunk(const struct gen *g, const struct obj *o)
{
	return o->kind == O_FB_CHUNK;
}

/*
 * How many bytes the CPU address the driver holds for @o maps: an ADL, a
 * PMO, an MDL's IOMMU mapping and a VRAM allocation have none, an
 * aperture allocation only its CpuVisibleAddress while mapped.
 */
static uint64_t cpu_bytes(const struct obj *o)
{
	switch ((enum obj_kind)o->kind) {
	case O_MDL: case O_CONTIG: case O_DRIVER_MDL: case O_VIEW: case O_FB_PIN: case O_FB_CHUNK:
		return o->bytes;
	case O_FENCE:
		return PAGE;
	case O_ALLOC:
		return o->ap_mapped && o->cpu_visible ? o->ap_bytes : 0;
	default:
		return 0;
	}
}

static bool is_cpu_target(const struct gen *g, const struct obj *o)
{
	return cpu_bytes(o) > 0;
}

/* --- actions: each checks it is valid and fits, then emits; false if it cannot --- */

static bool act_create(struct gen *g, enum wl_kind kind, enum obj_kind ok, uint64_t bytes,
		       uint64_t cache)
{
	struct wl_event *e;
	int i;

	if (!gen_room(g, bytes) || !gen_fits(g, 1, 1))
		return false;
	i = gen_obj_new(g, ok, bytes);
	e = gen_emit_obj(g, kind, i);
	if (kind != WL_FENCE_CREATE)
		e->v[WL_BYTES] = bytes;
	if (kind == WL_ALLOC_CONTIGUOUS || kind == WL_PMO_CREATE)
		e->v[WL_ARG] = cache;
	return true;
}

static bool act_free(struct gen *g, obj_pred pred)
{
	int i = gen_pick(g, pred);

	if (i < 0)
		return false;
	gen_emit_free(g, i);
	return true;
}

static bool act_mdl_map(struct gen *g)
{
	int m, i;

	if (!gen_room(g, 0) || !gen_fits(g, 1, 1))
		return false;
	m = gen_pick(g, is_mappable_mdl);
	if (m < 0)
		return false;
	i = gen_obj_new(g, O_MDL_MAP, g->obj[m].bytes);
	g->obj[i].parent = (uint32_t)m;
	g->obj[m].refs++;
	gen_emit_obj(g, WL_MAP_MDL, i)->v[WL_REF] = (uint64_t)m + 1;
	return true;
}

static bool act_adl_alloc(struct gen *g)
{
	uint64_t pages, first, n;
	struct wl_event *e;
	int p, i;

	if (!gen_room(g, 0) || !gen_fits(g, 1, 1))
		return false;
	p = gen_pick(g, is_pmo_with_room);
	if (p < 0)
		return false;
	/* Page-aligned, inside the PMO (whose size is a page multiple). */
	pages = g->obj[p].bytes / PAGE;
	n = gen_log_between(g, 1, pages);
	first = gen_below(g, pages - n + 1);
	i = gen_obj_new(g, O_ADL, n * PAGE);
	g->obj[i].parent = (uint32_t)p;
	g->obj[p].refs++;
	e = gen_emit_obj(g, WL_ADL_ALLOC, i);
	e->v[WL_REF] = (uint64_t)p + 1;
	e->v[WL_OFFSET] = first * PAGE;
	e->v[WL_BYTES] = n * PAGE;
	return true;
}

static bool act_alloc_create(struct gen *g)
{
	const struct profile *p = g->p;
	unsigned int total = 0, r;
	enum seg_choice sc = SC_VRAM;
	uint64_t bytes, flags = 0, seg;
	bool upload;
	struct wl_event *e;
	int i;

	for (int s = 0; s < SC_N; s++)
		total += p->seg_weight[s];
	r = (unsigned int)gen_below(g, total);
	for (int s = 0; s < SC_N; s++) {
		if (r < p->seg_weight[s]) {
			sc = (enum seg_choice)s;
			break;
		}
		r -= p->seg_weight[s];
	}
	bytes = sc == SC_VRAM ? gen_size_between(g, p->vram_min, p->vram_max, false)
			      : gen_size_between(g, p->alloc_min, p->alloc_max, false);
	/* A fresh VRAM allocation is paged in at once: it needs phys 0 powered. */
	upload = sc == SC_VRAM && p->upload_on_create && !g->d3[0];
	if (!gen_room(g, bytes) || !gen_fits(g, 1 + upload, 1))
		return false;
	switch (sc) {
	case SC_VRAM:
		seg = WL_SEG_VRAM;
		break;
	case SC_APERTURE:
		seg = WL_SEG_APERTURE;
		flags = WL_ALLOC_ACCESSED_PHYSICALLY | p->aperture_flags;
		if (p->cpu_visible_sometimes && gen_below(g, 2))
			flags |= WL_ALLOC_MAP_APERTURE_CPU_VISIBLE;
		break;
	case SC_APERTURE_IMPLICIT:
		seg = WL_SEG_APERTURE; /* without AccessedPhysically: lands in the system segment */
		break;
	default:
		seg = WL_SEG_SYSTEM;
		break;
	}
	i = gen_obj_new(g, O_ALLOC, bytes);
	g->obj[i].seg = (uint8_t)(sc == SC_APERTURE_IMPLICIT ? WL_SEG_SYSTEM : seg);
	g->obj[i].cpu_visible = (flags & WL_ALLOC_MAP_APERTURE_CPU_VISIBLE) != 0;
	e = gen_emit_obj(g, WL_ALLOC_CREATE, i);
	e->v[WL_BYTES] = bytes;
	e->v[WL_ARG] = seg;
	e->v[WL_FLAGS] = flags;
	if (upload) {
		e = gen_emit_obj(g, WL_TRANSFER, i);
		e->v[WL_ARG] = WL_DIR_TO_VRAM;
		e->v[WL_BYTES] = 0; /* the whole allocation */
	}
	return true;
}

static bool act_alloc_destroy(struct gen *g)
{
	int i = gen_pick(g, is_alloc);

	if (i < 0)
		return false;
	/* Unmapped from the aperture first, as VidMm does before an eviction or a free. */
	if (g->obj[i].ap_mapped)
		gen_emit_unmap_aperture(g, i);
	gen_emit_free(g, i);
	return true;
}

static bool act_map_aperture(struct gen *g)
{
	uint64_t pages, first, n;
	struct wl_event *e;
	int i;

	if (!gen_fits(g, 1, 1))
		return false;
	i = gen_pick(g, is_unmapped_aperture);
	if (i < 0)
		return false;
	pages = (g->obj[i].bytes + PAGE - 1) / PAGE;
	/* Mostly the whole allocation, sometimes a window of it. */
	n = gen_below(g, 2) ? pages : gen_log_between(g, 1, pages);
	first = gen_below(g, pages - n + 1);
	e = gen_emit_obj(g, WL_MAP_APERTURE, i);
	e->v[WL_OFFSET] = first;
	e->v[WL_BYTES] = n;
	g->obj[i].ap_mapped = true;
	g->obj[i].ap_bytes = n * PAGE;
	g->nap_mapped++;
	return true;
}

static bool act_unmap_aperture(struct gen *g)
{
	int i = gen_pick(g, is_mapped_aperture);

	if (i < 0)
		return false;
	gen_emit_unmap_aperture(g, i);
	return true;
}

static bool act_transfer(struct gen *g)
{
	struct wl_event *e;
	int i;

	/* The paging engine is physical adapter 0's. */
	if (g->d3[0] || !gen_fits(g, 1, 0))
		return false;
	i = gen_pick(g, is_vram);
	if (i < 0)
		return false;
	e = gen_emit_obj(g, WL_TRANSFER, i);
	e->v[WL_ARG] = gen_below(g, 2) ? WL_DIR_TO_VRAM : WL_DIR_FROM_VRAM;
	e->v[WL_BYTES] = gen_below(g, 4) ? gen_log_between(g, 1, g->obj[i].bytes / PAGE) * PAGE : 0;
	return true;
}

bool gen_act_dma(struct gen *g)
{
	uint64_t size, bytes, off;
	struct wl_event *e;
	int phys, i;

	if (!gen_fits(g, 1, 0))
		return false;
	phys = gen_pick_phys(g, false);
	if (phys < 0)
		return false;
	i = gen_pick(g, is_dma_target);
	if (i < 0)
		return false;
	size = g->obj[i].kind == O_FENCE ? PAGE : g->obj[i].bytes;
	bytes = gen_log_between(g, 64, size < GEN_MAX_DMA ? size : GEN_MAX_DMA);
	off = gen_below(g, size - bytes + 1) & ~63ull;
	e = gen_emit_obj(g, WL_DMA, i);
	e->v[WL_PHYS] = (uint64_t)phys;
	e->v[WL_OFFSET] = off;
	e->v[WL_BYTES] = bytes;
	e->v[WL_ARG] = gen_below(g, 2);
	return true;
}

/* Callbacks are never made from the DPC: only the device's DMA, then back to PASSIVE_LEVEL. */
static bool act_dpc_dma(struct gen *g)
{
	if (!gen_fits(g, 3, 0) || gen_pick_phys(g, false) < 0 || gen_pick(g, is_dma_target) < 0)
		return false;
	gen_emit(g, WL_IRQL)->v[WL_ARG] = WL_IRQL_DISPATCH;
	if (!gen_act_dma(g)) /* cannot be: the checks above are its own */
		abort();
	gen_emit(g, WL_IRQL)->v[WL_ARG] = WL_IRQL_PASSIVE;
	return true;
}

/* A PMO over a page-aligned range of the target's IO space (ranges may overlap, as BARs mapped twice). */
static bool act_pmo_create_io(struct gen *g)
{
	const struct profile *p = g->p;
	uint64_t bytes;
	struct wl_event *e;
	int i;

	if (!p->io_size || !gen_room(g, 0) || !gen_fits(g, 1, 1))
		return false;
	bytes = gen_size_between(g, p->pmo_min, p->pmo_max, false);
	i = gen_obj_new(g, O_PMO, 0);
	g->obj[i].bytes = bytes;
	g->obj[i].io = true;
	e = gen_emit_obj(g, WL_PMO_CREATE_IO, i);
	e->v[WL_OFFSET] = p->io_base + gen_below(g, (p->io_size - bytes) / PAGE + 1) * PAGE;
	e->v[WL_BYTES] = bytes;
	e->v[WL_ARG] = gen_below(g, 3);
	return true;
}

/* A CPU view of whole pages of a PMO, sometimes asked for a little less. */
static bool act_view_map(struct gen *g)
{
	uint64_t pages, first, n;
	struct wl_event *e;
	int pm, i;

	if (!gen_room(g, 0) || !gen_fits(g, 1, 1))
		return false;
	pm = gen_pick(g, is_pmo_with_room);
	if (pm < 0)
		return false;
	pages = g->obj[pm].bytes / PAGE;
	n = gen_log_between(g, 1, pages);
	first = gen_below(g, pages - n + 1);
	i = gen_obj_new(g, O_VIEW, n * PAGE);
	g->obj[i].parent = (uint32_t)pm;
	g->obj[pm].refs++;
	e = gen_emit_obj(g, WL_PMO_MAP_CPU, i);
	e->v[WL_REF] = (uint64_t)pm + 1;
	e->v[WL_ARG] = gen_below(g, 2) ? WL_ACCESS_USER : WL_ACCESS_KERNEL;
	e->v[WL_OFFSET] = first * PAGE;
	e->v[WL_BYTES] = n * PAGE - (gen_below(g, 4) ? 0 : gen_below(g, PAGE / 2));
	return true;
}

static bool act_cpu_access(struct gen *g)
{
	uint64_t size, bytes;
	struct wl_event *e;
	int i;

	if (!gen_fits(g, 1, 0))
		return false;
	i = gen_pick(g, is_cpu_target);
	if (i < 0)
		return false;
	size = cpu_bytes(&g->obj[i]);
	bytes = gen_log_between(g, 8, size < 16 * KiB ? size : 16 * KiB);
	e = gen_emit_obj(g, WL_CPU_ACCESS, i);
	e->v[WL_OFFSET] = gen_below(g, size - bytes + 1);
	e->v[WL_BYTES] = bytes;
	e->v[WL_ARG] = gen_below(g, 2);
	return true;
}

/* The whole save section, pinned with the lead's hAdapter (hadapter 0), once at a time. */
static bool act_fb_pin(struct gen *g)
{
	int i;

	if (!g->p->fb_section || g->fb_pinned || !gen_room(g, 0) || !gen_fits(g, 1, 1))
		return false;
	i = gen_obj_new(g, O_FB_PIN, g->p->fb_section);
	g->fb_pinned = true;
	gen_emit_obj(g, WL_FB_PIN, i);
	return true;
}

/* A chunk of up to 16 pages of the save section, mapped for the CPU with the lead's hAdapter. */
static bool act_fb_map(struct gen *g)
{
	uint64_t n, first;
	struct wl_event *e;
	int i;

	if (!g->p->fb_section || !gen_room(g, 0) || !gen_fits(g, 1, 1))
		return false;
	n = gen_between(g, 1, 16);
	first = gen_below(g, g->p->fb_section / PAGE - n + 1);
	i = gen_obj_new(g, O_FB_CHUNK, n * PAGE);
	e = gen_emit_obj(g, WL_FB_MAP, i);
	e->v[WL_OFFSET] = first * PAGE;
	e->v[WL_BYTES] = n * PAGE;
	return true;
}

static bool act_power(struct gen *g, bool to_d3)
{
	int phys;

	if (!gen_fits(g, 1, to_d3 ? 1 : -1))
		return false;
	phys = gen_pick_phys(g, !to_d3);
	if (phys < 0)
		return false;
	gen_emit_power(g, phys, to_d3);
	return true;
}

static bool act_pressure(struct gen *g, bool on)
{
	if (g->pressure == on || !gen_fits(g, 1, on ? 1 : -1))
		return false;
	gen_emit_pressure(g, on);
	return true;
}

bool gen_act(struct gen *g, enum act a)
{
	const struct profile *p = g->p;

	switch (a) {
	case A_MDL_ALLOC:
		return act_create(g, WL_ALLOC_MDL, O_MDL, gen_size_between(g, p->mdl_min, p->mdl_max, true),
				  0);
	case A_MDL_FREE:
		return act_free(g, is_free_mdl);
	case A_MDL_MAP:
		return act_mdl_map(g);
	case A_MDL_UNMAP:
		return act_free(g, is_mdl_map);
	case A_CONTIG_ALLOC:
		return act_create(g, WL_ALLOC_CONTIGUOUS, O_CONTIG,
				  gen_size_between(g, p->contig_min, p->contig_max, true), gen_below(g, 3));
	case A_CONTIG_FREE:
		return act_free(g, is_contig);
	case A_PMO_CREATE:
		return act_create(g, WL_PMO_CREATE, O_PMO,
				  gen_size_between(g, p->pmo_min, p->pmo_max, false), gen_below(g, 3));
	case A_PMO_DESTROY:
		return act_free(g, is_free_pmo);
	case A_ADL_ALLOC:
		return act_adl_alloc(g);
	case A_ADL_FREE:
		return act_free(g, is_adl);
	case A_ALLOC_CREATE:
		return act_alloc_create(g);
	case A_ALLOC_DESTROY:
		return act_alloc_destroy(g);
	case A_MAP_APERTURE:
		return act_map_aperture(g);
	case A_UNMAP_APERTURE:
		return act_unmap_aperture(g);
	case A_TRANSFER:
		return act_transfer(g);
	case A_FENCE_CREATE:
		return act_create(g, WL_FENCE_CREATE, O_FENCE, PAGE, 0);
	case A_FENCE_DESTROY:
		return act_free(g, is_fence);
	case A_DMA:
		return gen_act_dma(g);
	case A_POWER_DOWN:
		return act_power(g, true);
	case A_POWER_UP:
		return act_power(g, false);
	case A_PRESSURE_ON:
		return act_pressure(g, true);
	case A_PRESSURE_OFF:
		return act_pressure(g, false);
	case A_DRIVER_MDL_CREATE:
		return act_create(g, WL_DRIVER_MDL_CREATE, O_DRIVER_MDL,
				  gen_size_between(g, p->mdl_min, p->mdl_max, true), 0);
	case A_DRIVER_MDL_FREE:
		return act_free(g, is_free_driver_mdl);
	case A_DPC_DMA:
		return act_dpc_dma(g);
	case A_PMO_CREATE_IO:
		return act_pmo_create_io(g);
	case A_VIEW_MAP:
		return act_view_map(g);
	case A_VIEW_UNMAP:
		return act_free(g, is_view);
	case A_CPU_ACCESS:
		return act_cpu_access(g);
	case A_FB_PIN:
		return act_fb_pin(g);
	case A_FB_UNPIN:
		return act_free(g, is_fb_pin);
	case A_FB_MAP:
		return act_fb_map(g);
	case A_FB_UNMAP:
		return act_free(g, is_fb_chunk);
	case A_NACTS:
		break;
	}
	return false;
}
