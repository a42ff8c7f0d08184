/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "replay/gen.h"

/*
 * Workload generators. Each profile is a table of action weights and sizes
 * over one model of what is live on the (single) logical adapter it drives:
 * objects by trace id, which MDL a mapping names, which PMO an ADL sits in,
 * where an allocation lives and whether it is aperture-mapped, which
 * physical adapters are in D3, whether memory pressure is on. An action is
 * only taken when the model says it is valid (the core would accept it) and
 * when the events left still cover tearing everything down, so every trace
 * ends with nothing live after exactly the requested number of events.
 *
 * Everything comes from a xoshiro256** stream seeded by splitmix64(seed), in
 * integer arithmetic: the same profile, count and seed give the same events
 * on any machine.
 */

#define GEN_MAX_OBJS 64            /* live objects at once (ids are slot + 1) */
#define GEN_MAX_BYTES (64ull << 20) /* live bytes at once */
#define GEN_MAX_PHYS 4
#define GEN_MAX_DMA (64ull << 10)
#define GEN_TS_ORIGIN 1000000000ull /* 1 s after the clock's origin */
#define GEN_TRIES 16
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

static const struct profile profiles[] = {
	{
		.name = "desktop",
		.describe = "steady allocation churn: MDLs and their IOMMU mappings, contiguous "
			    "memory, VidMm allocations in VRAM/aperture/system segments with "
			    "aperture mappings and paging transfers, fences, some DMA, rare "
			    "memory pressure and D0->D3->D0 cycles of physical adapter 0; targets "
			    "traces/scenarios/default.yaml",
		.nphys = 1,
		.target_live = 40,
		/* about one power cycle and one pressure episode per 30000 events */
		.weight = {
			[A_MDL_ALLOC] = 2400, [A_MDL_FREE] = 2000, [A_MDL_MAP] = 1600,
			[A_MDL_UNMAP] = 1600, [A_CONTIG_ALLOC] = 600, [A_CONTIG_FREE] = 600,
			[A_ALLOC_CREATE] = 3200, [A_ALLOC_DESTROY] = 2800, [A_MAP_APERTURE] = 1600,
			[A_UNMAP_APERTURE] = 1400, [A_TRANSFER] = 2400,
			[A_FENCE_CREATE] = 1200, [A_FENCE_DESTROY] = 1200,
			[A_DMA] = 6000, [A_POWER_DOWN] = 1, [A_POWER_UP] = 2400,
			[A_PRESSURE_ON] = 1, [A_PRESSURE_OFF] = 800,
		},
		.seg_weight = { [SC_VRAM] = 4, [SC_APERTURE] = 3, [SC_APERTURE_IMPLICIT] = 1,
				[SC_SYSTEM] = 2 },
		.cpu_visible_sometimes = true,
		/* small objects: a desktop's churn is many small allocations, not bandwidth */
		.mdl_min = 4 * KiB, .mdl_max = 256 * KiB,
		.contig_min = 4 * KiB, .contig_max = 64 * KiB,
		.alloc_min = 4 * KiB, .alloc_max = 512 * KiB,
		.vram_min = 4 * KiB, .vram_max = 512 * KiB,
		.timing = T_STEADY, .gap_min = 1000, .gap_max = 200000, .power_gap = 2000000,
	},
	{
		.name = "game",
		.describe = "frames of bursts: large VRAM allocations (MiBs) paged in on creation, "
			    "many paging transfers, lots of DMA to MDLs, staging allocations and "
			    "fences; targets traces/scenarios/default.yaml",
		.nphys = 1,
		.target_live = 32,
		.weight = {
			[A_MDL_ALLOC] = 20, [A_MDL_FREE] = 18, [A_MDL_MAP] = 10, [A_MDL_UNMAP] = 10,
			[A_ALLOC_CREATE] = 60, [A_ALLOC_DESTROY] = 55, [A_MAP_APERTURE] = 20,
			[A_UNMAP_APERTURE] = 20, [A_TRANSFER] = 150,
			[A_FENCE_CREATE] = 20, [A_FENCE_DESTROY] = 20,
			[A_DMA] = 500,
		},
		.seg_weight = { [SC_VRAM] = 6, [SC_APERTURE] = 2, [SC_SYSTEM] = 2 },
		.upload_on_create = true,
		.mdl_min = 64 * KiB, .mdl_max = 2 * MiB,
		.alloc_min = 64 * KiB, .alloc_max = 2 * MiB,
		.vram_min = 1 * MiB, .vram_max = 8 * MiB,
		.timing = T_FRAMES, .gap_min = 300, .gap_max = 5000,
	},
	{
		.name = "power-cycle",
		.describe = "frequent D0->D3->D0 transitions of every physical adapter of an LDA "
			    "chain of 3, with allocations, transfers and DMA from powered adapters "
			    "in between; targets traces/scenarios/lda-chain.yaml",
		.nphys = 3,
		.target_live = 24,
		.weight = {
			[A_MDL_ALLOC] = 30, [A_MDL_FREE] = 28, [A_MDL_MAP] = 10, [A_MDL_UNMAP] = 10,
			[A_CONTIG_ALLOC] = 10, [A_CONTIG_FREE] = 10,
			[A_ALLOC_CREATE] = 30, [A_ALLOC_DESTROY] = 28, [A_MAP_APERTURE] = 10,
			[A_UNMAP_APERTURE] = 10, [A_TRANSFER] = 20,
			[A_FENCE_CREATE] = 20, [A_FENCE_DESTROY] = 20,
			[A_DMA] = 150, [A_POWER_DOWN] = 5, [A_POWER_UP] = 8,
		},
		.seg_weight = { [SC_VRAM] = 2, [SC_APERTURE] = 1, [SC_SYSTEM] = 1 },
		.mdl_min = 4 * KiB, .mdl_max = 512 * KiB,
		.contig_min = 4 * KiB, .contig_max = 64 * KiB,
		.alloc_min = 64 * KiB, .alloc_max = 2 * MiB,
		.vram_min = 64 * KiB, .vram_max = 2 * MiB,
		.timing = T_STEADY, .gap_min = 2000, .gap_max = 500000, .power_gap = 5000000,
	},
	{
		.name = "remap",
		.describe = "WDDM 3.0 services only (physical memory objects, ADLs over them), "
			    "CPU-visible aperture allocations, fences and DMA, for a device that "
			    "needs logical remapping; targets adapter 0 of "
			    "traces/scenarios/logical-remap.yaml",
		.nphys = 1,
		.target_live = 40,
		.weight = {
			[A_PMO_CREATE] = 40, [A_PMO_DESTROY] = 35, [A_ADL_ALLOC] = 80,
			[A_ADL_FREE] = 75,
			[A_ALLOC_CREATE] = 40, [A_ALLOC_DESTROY] = 35, [A_MAP_APERTURE] = 35,
			[A_UNMAP_APERTURE] = 30,
			[A_FENCE_CREATE] = 20, [A_FENCE_DESTROY] = 20,
			[A_DMA] = 200,
		},
		.seg_weight = { [SC_APERTURE] = 1 },
		.aperture_flags = WL_ALLOC_MAP_APERTURE_CPU_VISIBLE,
		.pmo_min = 64 * KiB, .pmo_max = 4 * MiB,
		.alloc_min = 64 * KiB, .alloc_max = 2 * MiB,
		.timing = T_STEADY, .gap_min = 1000, .gap_max = 100000,
	},
	{
		.name = "dpc",
		.describe = "a driver that builds MDLs over memory of its own and has Dxgkrnl "
			    "map them (MapMdlToIoMmu), beside callback MDLs, and whose DMA "
			    "completes in DPCs: each such DMA is bracketed by irql events "
			    "(DISPATCH_LEVEL, then PASSIVE_LEVEL), with no callback in between; "
			    "targets traces/scenarios/default.yaml",
		.nphys = 1,
		.target_live = 32,
		.weight = {
			[A_MDL_ALLOC] = 20, [A_MDL_FREE] = 18, [A_MDL_MAP] = 30, [A_MDL_UNMAP] = 30,
			[A_DRIVER_MDL_CREATE] = 20, [A_DRIVER_MDL_FREE] = 18,
			[A_FENCE_CREATE] = 5, [A_FENCE_DESTROY] = 5,
			[A_DMA] = 40, [A_DPC_DMA] = 60,
		},
		.mdl_min = 4 * KiB, .mdl_max = 256 * KiB,
		.timing = T_STEADY, .gap_min = 1000, .gap_max = 100000,
	},
	{
		.name = "cpu",
		.describe = "the CPU side of a WDDM 3.0 driver: physical memory objects over RAM "
			    "and over IO space (in the hole below 4 GiB), with CPU views for kernel "
			    "and user mode of each caching type and ADLs for the GPU; CPU reads and "
			    "writes through the views, through aperture allocations' "
			    "CpuVisibleAddress while they are mapped, and through the frame-buffer "
			    "save section, which the driver pins for the GPU or maps chunk by chunk "
			    "for the CPU between power transitions, always with the lead's "
			    "hAdapter; targets adapter 0 of traces/scenarios/logical-remap.yaml",
		.nphys = 1,
		.target_live = 40,
		.weight = {
			[A_PMO_CREATE] = 30, [A_PMO_DESTROY] = 30, [A_ADL_ALLOC] = 40,
			[A_ADL_FREE] = 38,
			[A_ALLOC_CREATE] = 25, [A_ALLOC_DESTROY] = 22, [A_MAP_APERTURE] = 25,
			[A_UNMAP_APERTURE] = 22,
			[A_FENCE_CREATE] = 5, [A_FENCE_DESTROY] = 5,
			[A_DMA] = 60,
			[A_PMO_CREATE_IO] = 15, [A_VIEW_MAP] = 40, [A_VIEW_UNMAP] = 38,
			[A_CPU_ACCESS] = 120,
			[A_FB_PIN] = 4, [A_FB_UNPIN] = 4, [A_FB_MAP] = 15, [A_FB_UNMAP] = 15,
		},
		.seg_weight = { [SC_APERTURE] = 1 },
		.aperture_flags = WL_ALLOC_MAP_APERTURE_CPU_VISIBLE,
		.pmo_min = 4 * KiB, .pmo_max = 1 * MiB,
		.alloc_min = 64 * KiB, .alloc_max = 1 * MiB,
		.io_base = 0xd0000000, .io_size = 16 * MiB,
		.fb_section = 64 * MiB,
		.timing = T_STEADY, .gap_min = 1000, .gap_max = 100000,
	},
};

#define NPROFILES (sizeof(profiles) / sizeof(profiles[0]))

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

/* --- PRNG: xoshiro256**, seeded through splitmix64 --- */

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static inline uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static uint64_t rnd(struct gen *g)
{
	uint64_t *s = g->rng, r = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return r;
}

/* Uniform in [0, n) (n > 0); the modulo bias is irrelevant at these ranges. */
static uint64_t below(struct gen *g, uint64_t n)
{
	return rnd(g) % n;
}

static uint64_t between(struct gen *g, uint64_t lo, uint64_t hi)
{
	return lo + below(g, hi - lo + 1);
}

/* Log-uniform in [lo, hi]: small sizes as common as large ones per octave. */
static uint64_t log_between(struct gen *g, uint64_t lo, uint64_t hi)
{
	unsigned int span = 0;
	uint64_t base;

	if (lo >= hi)
		return lo;
	while (span < 63 && (lo << (span + 1)) <= hi && (lo << (span + 1)) > lo)
		span++;
	base = lo << below(g, span + 1);
	return between(g, base, base * 2 - 1 < hi ? base * 2 - 1 : hi);
}

/* A size in pages, sometimes not a page multiple (the model rounds up). */
static uint64_t size_between(struct gen *g, uint64_t lo, uint64_t hi, bool odd)
{
	uint64_t bytes = log_between(g, lo / PAGE, hi / PAGE) * PAGE;

	if (odd && !below(g, 4))
		bytes -= below(g, PAGE - 64);
	return bytes;
}

/* --- the live-object model --- */

/* Events still needed to release everything: the teardown. */
static uint64_t teardown_cost(const struct gen *g)
{
	return g->nlive + g->nap_mapped + g->nd3 + g->pressure;
}

/* Whether an action of @k events changing the teardown by @dt leaves enough for the teardown. */
static bool fits(const struct gen *g, uint64_t k, int dt)
{
	return g->produced + k + (uint64_t)((int64_t)teardown_cost(g) + dt) <= g->events;
}

/* Whether an object of @kind holds memory of its own (else it maps or locks another's). */
static bool holds_memory(enum obj_kind kind)
{
	return kind != O_MDL_MAP && kind != O_ADL && kind != O_VIEW && kind != O_FB_PIN &&
	       kind != O_FB_CHUNK;
}

static int obj_new(struct gen *g, enum obj_kind kind, uint64_t bytes)
{
	for (int i = 0; i < GEN_MAX_OBJS; i++) {
		if (g->obj[i].live)
			continue;
		g->obj[i] = (struct obj){ .live = true, .kind = (uint8_t)kind, .bytes = bytes };
		g->nlive++;
		g->nkind[kind]++;
		if (holds_memory(kind))
			g->live_bytes += bytes;
		return i;
	}
	return -1;
}

static void obj_del(struct gen *g, int i)
{
	struct obj *o = &g->obj[i];

	if (holds_memory(o->kind) && !o->io)
		g->live_bytes -= o->bytes;
	if (o->kind == O_MDL_MAP || o->kind == O_ADL || o->kind == O_VIEW)
		g->obj[o->parent].refs--;
	if (o->kind == O_FB_PIN)
		g->fb_pinned = false;
	g->nlive--;
	g->nkind[o->kind]--;
	o->live = false;
}

/* Room for one more object of @bytes (and for the profile's idea of how many is enough). */
static bool room(const struct gen *g, uint64_t bytes)
{
	return g->nlive < g->p->target_live && g->nlive < GEN_MAX_OBJS &&
	       g->live_bytes + bytes <= GEN_MAX_BYTES;
}

typedef bool (*obj_pred)(const struct gen *g, const struct obj *o);

/* A live object @pred accepts, chosen uniformly; -1 if none. */
static int pick(struct gen *g, obj_pred pred)
{
	unsigned int n = 0, k;

	for (int i = 0; i < GEN_MAX_OBJS; i++)
		n += g->obj[i].live && pred(g, &g->obj[i]);
	if (!n)
		return -1;
	k = (unsigned int)below(g, n);
	for (int i = 0; i < GEN_MAX_OBJS; i++)
		if (g->obj[i].live && pred(g, &g->obj[i]) && !k--)
			return i;
	return -1;
}

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

/* --- events --- */

static uint64_t gap(struct gen *g)
{
	uint64_t d = log_between(g, g->p->gap_min, g->p->gap_max);

	/* Frames: a burst of work, then the rest of a ~16.7 ms frame idle. */
	if (g->p->timing == T_FRAMES && !below(g, 200))
		d += between(g, 4000000, 16000000);
	d += g->extra_gap;
	g->extra_gap = 0;
	return d;
}

static struct wl_event *emit(struct gen *g, enum wl_kind kind)
{
	struct wl_event *e = &g->q[(g->qhead + g->qlen++) % 4];

	memset(e, 0, sizeof(*e));
	g->ts += gap(g);
	e->ts = g->ts;
	e->kind = kind;
	g->produced++;
	return e;
}

static struct wl_event *emit_obj(struct gen *g, enum wl_kind kind, int slot)
{
	struct wl_event *e = emit(g, kind);

	e->v[WL_ID] = (uint64_t)slot + 1;
	return e;
}

/* A physical adapter in @want_d3 state, chosen uniformly; -1 if none. */
static int pick_phys(struct gen *g, bool want_d3)
{
	unsigned int n = 0, k;

	for (unsigned int i = 0; i < g->p->nphys; i++)
		n += g->d3[i] == want_d3;
	if (!n)
		return -1;
	k = (unsigned int)below(g, n);
	for (unsigned int i = 0; i < g->p->nphys; i++)
		if (g->d3[i] == want_d3 && !k--)
			return (int)i;
	return -1;
}

static void emit_power(struct gen *g, int phys, bool to_d3)
{
	struct wl_event *e = emit(g, WL_POWER);

	e->v[WL_PHYS] = (uint64_t)phys;
	e->v[WL_ARG] = to_d3 ? WL_POWER_D3 : WL_POWER_D0;
	g->d3[phys] = to_d3;
	if (to_d3)
		g->nd3++;
	else
		g->nd3--;
	g->extra_gap = g->p->power_gap;
}

static void emit_pressure(struct gen *g, bool on)
{
	struct wl_event *e = emit(g, WL_MEMORY);

	/*
	 * Pressure that squeezes without failing anything a valid trace does:
	 * far above what the live set and a save area need.
	 */
	e->v[WL_OFFSET] = on ? 4096 * MiB : UINT64_MAX;
	e->v[WL_BYTES] = on ? 1024 * MiB : UINT64_MAX;
	g->pressure = on;
}

/* Free object @i with its kind's event (no children left on it). */
static void emit_free(struct gen *g, int i)
{
	static const enum wl_kind free_kind[O_NKINDS] = {
		[O_MDL] = WL_FREE_MDL, [O_MDL_MAP] = WL_UNMAP_MDL, [O_CONTIG] = WL_FREE_CONTIGUOUS,
		[O_PMO] = WL_PMO_DESTROY, [O_ADL] = WL_ADL_FREE, [O_ALLOC] = WL_ALLOC_DESTROY,
		[O_FENCE] = WL_FENCE_DESTROY, [O_DRIVER_MDL] = WL_DRIVER_MDL_FREE,
		[O_VIEW] = WL_PMO_UNMAP_CPU, [O_FB_PIN] = WL_FB_UNPIN, [O_FB_CHUNK] = WL_FB_UNMAP,
	};

	emit_obj(g, free_kind[g->obj[i].kind], i);
	obj_del(g, i);
}

static void emit_unmap_aperture(struct gen *g, int i)
{
	emit_obj(g, WL_UNMAP_APERTURE, i);
	g->obj[i].ap_mapped = false;
	g->obj[i].ap_bytes = 0;
	g->nap_mapped--;
}

/* --- actions: each checks it is valid and fits, then emits; false if it cannot --- */

static bool act_create(struct gen *g, enum wl_kind kind, enum obj_kind ok, uint64_t bytes,
		       uint64_t cache)
{
	struct wl_event *e;
	int i;

	if (!room(g, bytes) || !fits(g, 1, 1))
		return false;
	i = obj_new(g, ok, bytes);
	e = emit_obj(g, kind, i);
	if (kind != WL_FENCE_CREATE)
		e->v[WL_BYTES] = bytes;
	if (kind == WL_ALLOC_CONTIGUOUS || kind == WL_PMO_CREATE)
		e->v[WL_ARG] = cache;
	return true;
}

static bool act_free(struct gen *g, obj_pred pred)
{
	int i = pick(g, pred);

	if (i < 0)
		return false;
	emit_free(g, i);
	return true;
}

static bool act_mdl_map(struct gen *g)
{
	int m, i;

	if (!room(g, 0) || !fits(g, 1, 1))
		return false;
	m = pick(g, is_mappable_mdl);
	if (m < 0)
		return false;
	i = obj_new(g, O_MDL_MAP, g->obj[m].bytes);
	g->obj[i].parent = (uint32_t)m;
	g->obj[m].refs++;
	emit_obj(g, WL_MAP_MDL, i)->v[WL_REF] = (uint64_t)m + 1;
	return true;
}

static bool act_adl_alloc(struct gen *g)
{
	uint64_t pages, first, n;
	struct wl_event *e;
	int p, i;

	if (!room(g, 0) || !fits(g, 1, 1))
		return false;
	p = pick(g, is_pmo_with_room);
	if (p < 0)
		return false;
	/* Page-aligned, inside the PMO (whose size is a page multiple). */
	pages = g->obj[p].bytes / PAGE;
	n = log_between(g, 1, pages);
	first = below(g, pages - n + 1);
	i = obj_new(g, O_ADL, n * PAGE);
	g->obj[i].parent = (uint32_t)p;
	g->obj[p].refs++;
	e = emit_obj(g, WL_ADL_ALLOC, i);
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
	r = (unsigned int)below(g, total);
	for (int s = 0; s < SC_N; s++) {
		if (r < p->seg_weight[s]) {
			sc = (enum seg_choice)s;
			break;
		}
		r -= p->seg_weight[s];
	}
	bytes = sc == SC_VRAM ? size_between(g, p->vram_min, p->vram_max, false)
			      : size_between(g, p->alloc_min, p->alloc_max, false);
	/* A fresh VRAM allocation is paged in at once: it needs phys 0 powered. */
	upload = sc == SC_VRAM && p->upload_on_create && !g->d3[0];
	if (!room(g, bytes) || !fits(g, 1 + upload, 1))
		return false;
	switch (sc) {
	case SC_VRAM:
		seg = WL_SEG_VRAM;
		break;
	case SC_APERTURE:
		seg = WL_SEG_APERTURE;
		flags = WL_ALLOC_ACCESSED_PHYSICALLY | p->aperture_flags;
		if (p->cpu_visible_sometimes && below(g, 2))
			flags |= WL_ALLOC_MAP_APERTURE_CPU_VISIBLE;
		break;
	case SC_APERTURE_IMPLICIT:
		seg = WL_SEG_APERTURE; /* without AccessedPhysically: lands in the system segment */
		break;
	default:
		seg = WL_SEG_SYSTEM;
		break;
	}
	i = obj_new(g, O_ALLOC, bytes);
	g->obj[i].seg = (uint8_t)(sc == SC_APERTURE_IMPLICIT ? WL_SEG_SYSTEM : seg);
	g->obj[i].cpu_visible = (flags & WL_ALLOC_MAP_APERTURE_CPU_VISIBLE) != 0;
	e = emit_obj(g, WL_ALLOC_CREATE, i);
	e->v[WL_BYTES] = bytes;
	e->v[WL_ARG] = seg;
	e->v[WL_FLAGS] = flags;
	if (upload) {
		e = emit_obj(g, WL_TRANSFER, i);
		e->v[WL_ARG] = WL_DIR_TO_VRAM;
		e->v[WL_BYTES] = 0; /* the whole allocation */
	}
	return true;
}

static bool act_alloc_destroy(struct gen *g)
{
	int i = pick(g, is_alloc);

	if (i < 0)
		return false;
	/* Unmapped from the aperture first, as VidMm does before an eviction or a free. */
	if (g->obj[i].ap_mapped)
		emit_unmap_aperture(g, i);
	emit_free(g, i);
	return true;
}

static bool act_map_aperture(struct gen *g)
{
	uint64_t pages, first, n;
	struct wl_event *e;
	int i;

	if (!fits(g, 1, 1))
		return false;
	i = pick(g, is_unmapped_aperture);
	if (i < 0)
		return false;
	pages = (g->obj[i].bytes + PAGE - 1) / PAGE;
	/* Mostly the whole allocation, sometimes a window of it. */
	n = below(g, 2) ? pages : log_between(g, 1, pages);
	first = below(g, pages - n + 1);
	e = emit_obj(g, WL_MAP_APERTURE, i);
	e->v[WL_OFFSET] = first;
	e->v[WL_BYTES] = n;
	g->obj[i].ap_mapped = true;
	g->obj[i].ap_bytes = n * PAGE;
	g->nap_mapped++;
	return true;
}

static bool act_unmap_aperture(struct gen *g)
{
	int i = pick(g, is_mapped_aperture);

	if (i < 0)
		return false;
	emit_unmap_aperture(g, i);
	return true;
}

static bool act_transfer(struct gen *g)
{
	struct wl_event *e;
	int i;

	/* The paging engine is physical adapter 0's. */
	if (g->d3[0] || !fits(g, 1, 0))
		return false;
	i = pick(g, is_vram);
	if (i < 0)
		return false;
	e = emit_obj(g, WL_TRANSFER, i);
	e->v[WL_ARG] = below(g, 2) ? WL_DIR_TO_VRAM : WL_DIR_FROM_VRAM;
	e->v[WL_BYTES] = below(g, 4) ? log_between(g, 1, g->obj[i].bytes / PAGE) * PAGE : 0;
	return true;
}

static bool act_dma(struct gen *g)
{
	uint64_t size, bytes, off;
	struct wl_event *e;
	int phys, i;

	if (!fits(g, 1, 0))
		return false;
	phys = pick_phys(g, false);
	if (phys < 0)
		return false;
	i = pick(g, is_dma_target);
	if (i < 0)
		return false;
	size = g->obj[i].kind == O_FENCE ? PAGE : g->obj[i].bytes;
	bytes = log_between(g, 64, size < GEN_MAX_DMA ? size : GEN_MAX_DMA);
	off = below(g, size - bytes + 1) & ~63ull;
	e = emit_obj(g, WL_DMA, i);
	e->v[WL_PHYS] = (uint64_t)phys;
	e->v[WL_OFFSET] = off;
	e->v[WL_BYTES] = bytes;
	e->v[WL_ARG] = below(g, 2);
	return true;
}

/* Callbacks are never made from the DPC: only the device's DMA, then back to PASSIVE_LEVEL. */
static bool act_dpc_dma(struct gen *g)
{
	if (!fits(g, 3, 0) || pick_phys(g, false) < 0 || pick(g, is_dma_target) < 0)
		return false;
	emit(g, WL_IRQL)->v[WL_ARG] = WL_IRQL_DISPATCH;
	if (!act_dma(g)) /* cannot be: the checks above are its own */
		abort();
	emit(g, WL_IRQL)->v[WL_ARG] = WL_IRQL_PASSIVE;
	return true;
}

/* A PMO over a page-aligned range of the target's IO space (ranges may overlap, as BARs mapped twice). */
static bool act_pmo_create_io(struct gen *g)
{
	const struct profile *p = g->p;
	uint64_t bytes;
	struct wl_event *e;
	int i;

	if (!p->io_size || !room(g, 0) || !fits(g, 1, 1))
		return false;
	bytes = size_between(g, p->pmo_min, p->pmo_max, false);
	i = obj_new(g, O_PMO, 0);
	g->obj[i].bytes = bytes;
	g->obj[i].io = true;
	e = emit_obj(g, WL_PMO_CREATE_IO, i);
	e->v[WL_OFFSET] = p->io_base + below(g, (p->io_size - bytes) / PAGE + 1) * PAGE;
	e->v[WL_BYTES] = bytes;
	e->v[WL_ARG] = below(g, 3);
	return true;
}

/* A CPU view of whole pages of a PMO, sometimes asked for a little less. */
static bool act_view_map(struct gen *g)
{
	uint64_t pages, first, n;
	struct wl_event *e;
	int pm, i;

	if (!room(g, 0) || !fits(g, 1, 1))
		return false;
	pm = pick(g, is_pmo_with_room);
	if (pm < 0)
		return false;
	pages = g->obj[pm].bytes / PAGE;
	n = log_between(g, 1, pages);
	first = below(g, pages - n + 1);
	i = obj_new(g, O_VIEW, n * PAGE);
	g->obj[i].parent = (uint32_t)pm;
	g->obj[pm].refs++;
	e = emit_obj(g, WL_PMO_MAP_CPU, i);
	e->v[WL_REF] = (uint64_t)pm + 1;
	e->v[WL_ARG] = below(g, 2) ? WL_ACCESS_USER : WL_ACCESS_KERNEL;
	e->v[WL_OFFSET] = first * PAGE;
	e->v[WL_BYTES] = n * PAGE - (below(g, 4) ? 0 : below(g, PAGE / 2));
	return true;
}

static bool act_cpu_access(struct gen *g)
{
	uint64_t size, bytes;
	struct wl_event *e;
	int i;

	if (!fits(g, 1, 0))
		return false;
	i = pick(g, is_cpu_target);
	if (i < 0)
		return false;
	size = cpu_bytes(&g->obj[i]);
	bytes = log_between(g, 8, size < 16 * KiB ? size : 16 * KiB);
	e = emit_obj(g, WL_CPU_ACCESS, i);
	e->v[WL_OFFSET] = below(g, size - bytes + 1);
	e->v[WL_BYTES] = bytes;
	e->v[WL_ARG] = below(g, 2);
	return true;
}

/* The whole save section, pinned with the lead's hAdapter (hadapter 0), once at a time. */
static bool act_fb_pin(struct gen *g)
{
	int i;

	if (!g->p->fb_section || g->fb_pinned || !room(g, 0) || !fits(g, 1, 1))
		return false;
	i = obj_new(g, O_FB_PIN, g->p->fb_section);
	g->fb_pinned = true;
	emit_obj(g, WL_FB_PIN, i);
	return true;
}

/* A chunk of up to 16 pages of the save section, mapped for the CPU with the lead's hAdapter. */
static bool act_fb_map(struct gen *g)
{
	uint64_t n, first;
	struct wl_event *e;
	int i;

	if (!g->p->fb_section || !room(g, 0) || !fits(g, 1, 1))
		return false;
	n = between(g, 1, 16);
	first = below(g, g->p->fb_section / PAGE - n + 1);
	i = obj_new(g, O_FB_CHUNK, n * PAGE);
	e = emit_obj(g, WL_FB_MAP, i);
	e->v[WL_OFFSET] = first * PAGE;
	e->v[WL_BYTES] = n * PAGE;
	return true;
}

static bool act_power(struct gen *g, bool to_d3)
{
	int phys;

	if (!fits(g, 1, to_d3 ? 1 : -1))
		return false;
	phys = pick_phys(g, !to_d3);
	if (phys < 0)
		return false;
	emit_power(g, phys, to_d3);
	return true;
}

static bool act_pressure(struct gen *g, bool on)
{
	if (g->pressure == on || !fits(g, 1, on ? 1 : -1))
		return false;
	emit_pressure(g, on);
	return true;
}

static bool act(struct gen *g, enum act a)
{
	const struct profile *p = g->p;

	switch (a) {
	case A_MDL_ALLOC:
		return act_create(g, WL_ALLOC_MDL, O_MDL, size_between(g, p->mdl_min, p->mdl_max, true),
				  0);
	case A_MDL_FREE:
		return act_free(g, is_free_mdl);
	case A_MDL_MAP:
		return act_mdl_map(g);
	case A_MDL_UNMAP:
		return act_free(g, is_mdl_map);
	case A_CONTIG_ALLOC:
		return act_create(g, WL_ALLOC_CONTIGUOUS, O_CONTIG,
				  size_between(g, p->contig_min, p->contig_max, true), below(g, 3));
	case A_CONTIG_FREE:
		return act_free(g, is_contig);
	case A_PMO_CREATE:
		return act_create(g, WL_PMO_CREATE, O_PMO,
				  size_between(g, p->pmo_min, p->pmo_max, false), below(g, 3));
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
		return act_dma(g);
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
				  size_between(g, p->mdl_min, p->mdl_max, true), 0);
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

/* One teardown event: pressure off, power up, children before parents. */
static void teardown_step(struct gen *g)
{
	int i;

	if (g->pressure) {
		emit_pressure(g, false);
		return;
	}
	for (unsigned int ph = 0; ph < g->p->nphys; ph++) {
		if (g->d3[ph]) {
			emit_power(g, (int)ph, false);
			return;
		}
	}
	for (i = 0; i < GEN_MAX_OBJS; i++) {
		if (g->obj[i].live && g->obj[i].ap_mapped) {
			emit_unmap_aperture(g, i);
			return;
		}
	}
	for (i = 0; i < GEN_MAX_OBJS; i++) {
		if (g->obj[i].live && (g->obj[i].kind == O_MDL_MAP || g->obj[i].kind == O_ADL ||
				       g->obj[i].kind == O_VIEW)) {
			emit_free(g, i);
			return;
		}
	}
	for (i = 0; i < GEN_MAX_OBJS; i++) {
		if (g->obj[i].live) {
			emit_free(g, i);
			return;
		}
	}
}

/* Produce the next action's events into the queue (at least one). */
static void step(struct gen *g)
{
	const struct profile *p = g->p;
	unsigned int total = 0;

	if (g->produced + teardown_cost(g) >= g->events) {
		teardown_step(g);
		return;
	}
	for (int a = 0; a < A_NACTS; a++)
		total += p->weight[a];
	for (int t = 0; t < GEN_TRIES; t++) {
		unsigned int r = (unsigned int)below(g, total);
		int a = 0;

		while (r >= p->weight[a])
			r -= p->weight[a++];
		if (act(g, (enum act)a))
			return;
	}
	/*
	 * Nothing fit (typically one event left over the teardown): free
	 * something, or fill with an event that changes nothing.
	 */
	if (teardown_cost(g)) {
		teardown_step(g);
	} else if (!act_dma(g)) {
		emit_pressure(g, false);
	}
}

const char *const *gen_profiles(void)
{
	static const char *const names[] = { "desktop", "game", "power-cycle", "remap", "dpc", "cpu",
					     NULL };

	return names;
}

static const struct profile *profile_find(const char *name)
{
	for (size_t i = 0; name && i < NPROFILES; i++)
		if (!strcmp(profiles[i].name, name))
			return &profiles[i];
	return NULL;
}

const char *gen_describe(const char *profile)
{
	const struct profile *p = profile_find(profile);

	return p ? p->describe : NULL;
}

int gen_create(const char *profile, uint64_t events, uint64_t seed, struct gen **out)
{
	const struct profile *p = profile_find(profile);
	struct gen *g;
	uint64_t x = seed;

	if (out)
		*out = NULL;
	if (!p)
		return -ENOENT;
	if (!events || events > GEN_MAX_EVENTS || !out)
		return -EINVAL;
	g = calloc(1, sizeof(*g));
	if (!g)
		return -ENOMEM;
	g->p = p;
	g->events = events;
	g->ts = GEN_TS_ORIGIN;
	for (int i = 0; i < 4; i++)
		g->rng[i] = splitmix64(&x);
	*out = g;
	return 0;
}

int gen_next(void *ctx, struct wl_event *e)
{
	struct gen *g = ctx;

	if (!g->qlen) {
		if (g->produced >= g->events)
			return 0;
		step(g);
	}
	*e = g->q[g->qhead];
	g->qhead = (g->qhead + 1) % 4;
	g->qlen--;
	return 1;
}

void gen_destroy(struct gen *g)
{
	free(g);
}
