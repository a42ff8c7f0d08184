/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "replay/gen_internal.h"

/*
 * Workload generators. Each profile (gen_profile.c) is a table of action
 * weights and sizes over one model of what is live on the (single) logical
 * adapter it drives: objects by trace id, which MDL a mapping names, which
 * PMO an ADL sits in, where an allocation lives and whether it is
 * aperture-mapped, which physical adapters are in D3, whether memory
 * pressure is on. An action (gen_act.c) is only taken when the model says
 * it is valid (the core would accept it) and when the events left still
 * cover tearing everything down, so every trace ends with nothing live
 * after exactly the requested number of events.
 *
 * Everything comes from a xoshiro256** stream seeded by splitmix64(seed), in
 * integer arithmetic: the same profile, count and seed give the same events
 * on any machine.
 */

#define GEN_MAX_BYTES (64ull << 20) /* live bytes at once */
#define GEN_TS_ORIGIN 1000000000ull /* 1 s after the clock's origin */
#define GEN_TRIES 16

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

uint64_t gen_below(struct gen *g, uint64_t n)
{
	return rnd(g) % n;
}

uint64_t gen_between(struct gen *g, uint64_t lo, uint64_t hi)
{
	return lo + gen_below(g, hi - lo + 1);
}

uint64_t gen_log_between(struct gen *g, uint64_t lo, uint64_t hi)
{
	unsigned int span = 0;
	uint64_t base;

	if (lo >= hi)
		return lo;
	while (span < 63 && (lo << (span + 1)) <= hi && (lo << (span + 1)) > lo)
		span++;
	base = lo << gen_below(g, span + 1);
	return gen_between(g, base, base * 2 - 1 < hi ? base * 2 - 1 : hi);
}

uint64_t gen_size_between(struct gen *g, uint64_t lo, uint64_t hi, bool odd)
{
	uint64_t bytes = gen_log_between(g, lo / PAGE, hi / PAGE) * PAGE;

	if (odd && !gen_below(g, 4))
		bytes -= gen_below(g, PAGE - 64);
	return bytes;
}

/* --- the live-object model --- */

/* Events still needed to release everything: the teardown. */
static uint64_t teardown_cost(const struct gen *g)
{
	return g->nlive + g->nap_mapped + g->nd3 + g->pressure;
}

bool gen_fits(const struct gen *g, uint64_t k, int dt)
{
	return g->produced + k + (uint64_t)((int64_t)teardown_cost(g) + dt) <= g->events;
}

/* Whether an object of @kind holds memory of its own (else it maps or locks another's). */
static bool holds_memory(enum obj_kind kind)
{
	return kind != O_MDL_MAP && kind != O_ADL && kind != O_VIEW && kind != O_FB_PIN &&
	       kind != O_FB_CHUNK;
}

int gen_obj_new(struct gen *g, enum obj_kind kind, uint64_t bytes)
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

bool gen_room(const struct gen *g, uint64_t bytes)
{
	return g->nlive < g->p->target_live && g->nlive < GEN_MAX_OBJS &&
	       g->live_bytes + bytes <= GEN_MAX_BYTES;
}

int gen_pick(struct gen *g, obj_pred pred)
{
	unsigned int n = 0, k;

	for (int i = 0; i < GEN_MAX_OBJS; i++)
		n += g->obj[i].live && pred(g, &g->obj[i]);
	if (!n)
		return -1;
	k = (unsigned int)gen_below(g, n);
	for (int i = 0; i < GEN_MAX_OBJS; i++)
		if (g->obj[i].live && pred(g, &g->obj[i]) && !k--)
			return i;
	return -1;
}

/* --- events --- */

static uint64_t gap(struct gen *g)
{
	uint64_t d = gen_log_between(g, g->p->gap_min, g->p->gap_max);

	/* Frames: a burst of work, then the rest of a ~16.7 ms frame idle. */
	if (g->p->timing == T_FRAMES && !gen_below(g, 200))
		d += gen_between(g, 4000000, 16000000);
	d += g->extra_gap;
	g->extra_gap = 0;
	return d;
}

struct wl_event *gen_emit(struct gen *g, enum wl_kind kind)
{
	struct wl_event *e = &g->q[(g->qhead + g->qlen++) % 4];

	memset(e, 0, sizeof(*e));
	g->ts += gap(g);
	e->ts = g->ts;
	e->kind = kind;
	g->produced++;
	return e;
}

struct wl_event *gen_emit_obj(struct gen *g, enum wl_kind kind, int slot)
{
	struct wl_event *e = gen_emit(g, kind);

	e->v[WL_ID] = (uint64_t)slot + 1;
	return e;
}

int gen_pick_phys(struct gen *g, bool want_d3)
{
	unsigned int n = 0, k;

	for (unsigned int i = 0; i < g->p->nphys; i++)
		n += g->d3[i] == want_d3;
	if (!n)
		return -1;
	k = (unsigned int)gen_below(g, n);
	for (unsigned int i = 0; i < g->p->nphys; i++)
		if (g->d3[i] == want_d3 && !k--)
			return (int)i;
	return -1;
}

void gen_emit_power(struct gen *g, int phys, bool to_d3)
{
	struct wl_event *e = gen_emit(g, WL_POWER);

	e->v[WL_PHYS] = (uint64_t)phys;
	e->v[WL_ARG] = to_d3 ? WL_POWER_D3 : WL_POWER_D0;
	g->d3[phys] = to_d3;
	if (to_d3)
		g->nd3++;
	else
		g->nd3--;
	g->extra_gap = g->p->power_gap;
}

void gen_emit_pressure(struct gen *g, bool on)
{
	struct wl_event *e = gen_emit(g, WL_MEMORY);

	/*
	 * Pressure that squeezes without failing anything a valid trace does:
	 * far above what the live set and a save area need.
	 */
	e->v[WL_OFFSET] = on ? 4096 * MiB : UINT64_MAX;
	e->v[WL_BYTES] = on ? 1024 * MiB : UINT64_MAX;
	g->pressure = on;
}

void gen_emit_free(struct gen *g, int i)
{
	static const enum wl_kind free_kind[O_NKINDS] = {
		[O_MDL] = WL_FREE_MDL, [O_MDL_MAP] = WL_UNMAP_MDL, [O_CONTIG] = WL_FREE_CONTIGUOUS,
		[O_PMO] = WL_PMO_DESTROY, [O_ADL] = WL_ADL_FREE, [O_ALLOC] = WL_ALLOC_DESTROY,
		[O_FENCE] = WL_FENCE_DESTROY, [O_DRIVER_MDL] = WL_DRIVER_MDL_FREE,
		[O_VIEW] = WL_PMO_UNMAP_CPU, [O_FB_PIN] = WL_FB_UNPIN, [O_FB_CHUNK] = WL_FB_UNMAP,
	};

	gen_emit_obj(g, free_kind[g->obj[i].kind], i);
	obj_del(g, i);
}

void gen_emit_unmap_aperture(struct gen *g, int i)
{
	gen_emit_obj(g, WL_UNMAP_APERTURE, i);
	g->obj[i].ap_mapped = false;
	g->obj[i].ap_bytes = 0;
	g->nap_mapped--;
}

/* One teardown event: pressure off, power up, children before parents. */
static void teardown_step(struct gen *g)
{
	int i;

	if (g->pressure) {
		gen_emit_pressure(g, false);
		return;
	}
	for (unsigned int ph = 0; ph < g->p->nphys; ph++) {
		if (g->d3[ph]) {
			gen_emit_power(g, (int)ph, false);
			return;
		}
	}
	for (i = 0; i < GEN_MAX_OBJS; i++) {
		if (g->obj[i].live && g->obj[i].ap_mapped) {
			gen_emit_unmap_aperture(g, i);
			return;
		}
	}
	for (i = 0; i < GEN_MAX_OBJS; i++) {
		if (g->obj[i].live && (g->obj[i].kind == O_MDL_MAP || g->obj[i].kind == O_ADL ||
				       g->obj[i].kind == O_VIEW)) {
			gen_emit_free(g, i);
			return;
		}
	}
	for (i = 0; i < GEN_MAX_OBJS; i++) {
		if (g->obj[i].live) {
			gen_emit_free(g, i);
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
		unsigned int r = (unsigned int)gen_below(g, total);
		int a = 0;

		while (r >= p->weight[a])
			r -= p->weight[a++];
		if (gen_act(g, (enum act)a))
			return;
	}
	/*
	 * Nothing fit (typically one event left over the teardown): free
	 * something, or fill with an event that changes nothing.
	 */
	if (teardown_cost(g)) {
		teardown_step(g);
	} else if (!gen_act_dma(g)) {
		gen_emit_pressure(g, false);
	}
}

int gen_create(const char *profile, uint64_t events, uint64_t seed, struct gen **out)
{
	const struct profile *p = gen_profile_find(profile);
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
