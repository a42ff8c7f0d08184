/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_REPLAY_GEN_INTERNAL_H
#define GPUISO_REPLAY_GEN_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "replay/gen.h"

/*
 * What the files of the workload generators share: gen.c draws numbers,
 * keeps the model of what is live and emits the events that change it,
 * then steps the generator (an action, or the teardown); gen_act.c holds
 * the actions, each valid by the model; gen_profile.c the profiles, tables
 * of action weights and sizes.
 */

#define GEN_MAX_OBJS 64            /* live objects at once (ids are slot + 1) */
#define GEN_MAX_PHYS 4
#define KiB (1ull << 10)
#define MiB (1ull << 20)
#define PAGE 4096ull

enum obj_kind {
	O_MDL, O_MDL_MAP, O_CONTIG, O_PMO, O_ADL, O_ALLOC, O_FENCE,
	O_DRIVER_MDL, /* the driver's own MDL, mapped like a callback's */
	O_VIEW,       /* a CPU view of a PMO (parent: the PMO's slot) */
	O_FB_PIN,     /* the save section, pinned by the driver */
	O_FB_CHUNK,   /* a chunk of the save section, mapped for the CPU */
	O_NKINDS
};

struct obj {
	bool live;
	uint8_t kind;      /* enum obj_kind */
	uint8_t seg;       /* O_ALLOC: the segment it landed in */
	bool ap_mapped;    /* O_ALLOC: aperture-mapped */
	bool cpu_visible;  /* O_ALLOC: created with MapApertureCpuVisible */
	bool io;           /* O_PMO: over IO space (no RAM of the live budget) */
	uint32_t refs;     /* O_MDL, O_DRIVER_MDL: its mappings; O_PMO: its ADLs and views */
	uint32_t parent;   /* O_MDL_MAP: the MDL's slot; O_ADL, O_VIEW: the PMO's slot */
	uint64_t bytes;    /* what its creation asked for (O_VIEW: the whole pages it maps) */
	uint64_t ap_bytes; /* O_ALLOC: what its aperture mapping covers, while mapped */
};

enum act {
	A_MDL_ALLOC, A_MDL_FREE, A_MDL_MAP, A_MDL_UNMAP,
	A_CONTIG_ALLOC, A_CONTIG_FREE,
	A_PMO_CREATE, A_PMO_DESTROY, A_ADL_ALLOC, A_ADL_FREE,
	A_ALLOC_CREATE, A_ALLOC_DESTROY, A_MAP_APERTURE, A_UNMAP_APERTURE, A_TRANSFER,
	A_FENCE_CREATE, A_FENCE_DESTROY,
	A_DMA, A_POWER_DOWN, A_POWER_UP, A_PRESSURE_ON, A_PRESSURE_OFF,
	/* after the others: a profile that weighs them 0 generates what it did before */
	A_DRIVER_MDL_CREATE, A_DRIVER_MDL_FREE,
	A_DPC_DMA,         /* a DMA issued from a DPC: raise to DISPATCH_LEVEL, DMA, lower */
	A_PMO_CREATE_IO, A_VIEW_MAP, A_VIEW_UNMAP,
	A_CPU_ACCESS,      /* the CPU through an address it holds: a view, a chunk, a CpuVisibleAddress */
	A_FB_PIN, A_FB_UNPIN, A_FB_MAP, A_FB_UNMAP, /* the save section, at the driver's choice */
	A_NACTS
};

/* Where alloc_create asks to go (the fourth is an aperture request without AccessedPhysically). */
enum seg_choice { SC_VRAM, SC_APERTURE, SC_APERTURE_IMPLICIT, SC_SYSTEM, SC_N };

enum timing { T_STEADY, T_FRAMES };

struct profile {
	const char *name;
	const char *describe;
	unsigned int nphys;               /* physical adapters it powers and DMAs from */
	unsigned int target_live;         /* creation stops at this many live objects */
	unsigned int weight[A_NACTS];
	unsigned int seg_weight[SC_N];
	uint32_t aperture_flags;          /* extra flags of aperture requests, besides AccessedPhysically */
	bool cpu_visible_sometimes;       /* half the aperture requests also MapApertureCpuVisible */
	bool upload_on_create;            /* a VRAM allocation is paged in right after creation */
	uint64_t mdl_min, mdl_max;
	uint64_t contig_min, contig_max;
	uint64_t pmo_min, pmo_max;
	uint64_t alloc_min, alloc_max;    /* system and aperture segments */
	uint64_t vram_min, vram_max;      /* VRAM segment */
	uint64_t io_base, io_size;        /* IO space of the target scenario (no RAM), for PMOs */
	uint64_t fb_section;              /* the target's save section of physical adapter 0 */
	enum timing timing;
	uint64_t gap_min, gap_max;        /* ns between events */
	uint64_t power_gap;               /* extra ns after a power transition */
};

struct gen {
	const struct profile *p;
	uint64_t events;      /* to produce in all */
	uint64_t produced;    /* queued so far (the budget counts these) */
	uint64_t rng[4];
	uint64_t ts;
	uint64_t extra_gap;   /* added to the next gap (a power transition takes time) */
	struct wl_event q[4]; /* what the last action produced, not yet handed out */
	unsigned int qhead, qlen;
	struct obj obj[GEN_MAX_OBJS];
	unsigned int nlive, nkind[O_NKINDS], nap_mapped, nd3;
	uint64_t live_bytes;
	bool d3[GEN_MAX_PHYS];
	bool pressure;
	bool fb_pinned;       /* the save section is pinned (a second pin would be refused) */
};

/* Whether object @o of @g is one an action may take. */
typedef bool (*obj_pred)(const struct gen *g, const struct obj *o);

/**
 * gen_below() - a number uniform in [0, @n): the modulo bias is irrelevant
 * at these ranges.
 * @g: the generator.
 * @n: above 0.
 *
 * Return: the number.
 */
uint64_t gen_below(struct gen *g, uint64_t n);

/**
 * gen_between() - a number uniform in [@lo, @hi].
 * @g: the generator.
 * @lo: the least.
 * @hi: the most.
 *
 * Return: the number.
 */
uint64_t gen_between(struct gen *g, uint64_t lo, uint64_t hi);

/**
 * gen_log_between() - a number log-uniform in [@lo, @hi]: small sizes as
 * common as large ones per octave.
 * @g: the generator.
 * @lo: the least.
 * @hi: the most.
 *
 * Return: the number.
 */
uint64_t gen_log_between(struct gen *g, uint64_t lo, uint64_t hi);

/**
 * gen_size_between() - a size in pages, sometimes not a page multiple (the
 * model rounds up).
 * @g: the generator.
 * @lo: the least, in bytes.
 * @hi: the most, in bytes.
 * @odd: whether it may be not a page multiple.
 *
 * Return: the size in bytes.
 */
uint64_t gen_size_between(struct gen *g, uint64_t lo, uint64_t hi, bool odd);

/**
 * gen_fits() - whether an action leaves enough events for the teardown.
 * @g: the generator.
 * @k: the events the action makes.
 * @dt: how it changes the teardown's events.
 *
 * Return: whether it does.
 */
bool gen_fits(const struct gen *g, uint64_t k, int dt);

/**
 * gen_room() - whether there is room for one more object (and the profile
 * has not enough yet).
 * @g: the generator.
 * @bytes: the memory it holds.
 *
 * Return: whether there is.
 */
bool gen_room(const struct gen *g, uint64_t bytes);

/**
 * gen_obj_new() - a live object in a free slot.
 * @g: the generator.
 * @kind: its enum obj_kind.
 * @bytes: what its creation asks for.
 *
 * Return: its slot, or -1 when all are taken (gen_room() says there is one).
 */
int gen_obj_new(struct gen *g, enum obj_kind kind, uint64_t bytes);

/**
 * gen_pick() - a live object @pred accepts, chosen uniformly.
 * @g: the generator.
 * @pred: what the object must be.
 *
 * Return: its slot, or -1 if none.
 */
int gen_pick(struct gen *g, obj_pred pred);

/**
 * gen_pick_phys() - a physical adapter in @want_d3 state, chosen uniformly.
 * @g: the generator.
 * @want_d3: in D3, or in D0.
 *
 * Return: its index, or -1 if none.
 */
int gen_pick_phys(struct gen *g, bool want_d3);

/**
 * gen_emit() - queue an event of @kind, a gap after the last.
 * @g: the generator.
 * @kind: the event's kind.
 *
 * Return: the event, its fields to fill.
 */
struct wl_event *gen_emit(struct gen *g, enum wl_kind kind);

/**
 * gen_emit_obj() - gen_emit() an event on the object in @slot.
 * @g: the generator.
 * @kind: the event's kind.
 * @slot: the object's slot (its trace id is @slot + 1).
 *
 * Return: the event, its other fields to fill.
 */
struct wl_event *gen_emit_obj(struct gen *g, enum wl_kind kind, int slot);

/**
 * gen_emit_power() - a power transition of a physical adapter.
 * @g: the generator.
 * @phys: the physical adapter.
 * @to_d3: to D3, or back to D0.
 */
void gen_emit_power(struct gen *g, int phys, bool to_d3);

/**
 * gen_emit_pressure() - memory pressure on or off.
 * @g: the generator.
 * @on: on, or off.
 */
void gen_emit_pressure(struct gen *g, bool on);

/**
 * gen_emit_free() - free object @i with its kind's event.
 * @g: the generator.
 * @i: the object's slot (no children left on it).
 */
void gen_emit_free(struct gen *g, int i);

/**
 * gen_emit_unmap_aperture() - unmap allocation @i from the aperture.
 * @g: the generator.
 * @i: the allocation's slot (aperture-mapped).
 */
void gen_emit_unmap_aperture(struct gen *g, int i);

/**
 * gen_act() - take action @a if it is valid and fits: emit its events.
 * @g: the generator.
 * @a: the action.
 *
 * Return: whether it was taken.
 */
bool gen_act(struct gen *g, enum act a);

/**
 * gen_act_dma() - a DMA from a powered physical adapter to an object the
 * device can reach, if it fits.
 * @g: the generator.
 *
 * Return: whether it was made.
 */
bool gen_act_dma(struct gen *g);

/**
 * gen_profile_find() - a profile by its name.
 * @name: the name, or NULL.
 *
 * Return: the profile, or NULL.
 */
const struct profile *gen_profile_find(const char *name);

#endif
