/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define LOG_PREFIX "replay"
#include "common/array.h"
#include "common/clock.h"
#include "common/digest.h"
#include "common/log.h"
#include "common/u64map.h"
#include "replay.h"
#include "replay/trace.h"

/*
 * Trace ids to live handles: (adapter, id) -> handle and the kind that
 * created it. An entry whose creation the model refused keeps handle 0, so
 * later events on that id are skipped as refused rather than taken for bad
 * input. A trace that covers the adapters' whole life also keeps, for each
 * live object, the index and time of the event that created it: what is
 * still live at the end leaked, and its finding names that event.
 *
 * A free the model refused leaves its object live; the engine remembers the
 * refusal while the object lives, because an object whose free the trace
 * shows was attempted and refused is a leak whatever the trace covers.
 */
struct refused_free {
	uint64_t index, ts; /* the free's event */
	uint32_t kind;      /* the free's kind */
	int rc;             /* why the model refused it */
};

struct replay_engine {
	struct core *core;
	struct results *res;
	enum replay_pace pace;
	bool notrace;
	bool untimed;
	const struct pressure_step *steps; /* pressure schedule */
	size_t nsteps, next_step;
	struct u64map live;
	uint64_t after_bugcheck;  /* trace events not executed: the machine had stopped */
	uint64_t last_not_run;    /* the index of the last of them */
	bool life;               /* COVERS_LIFE: what the trace leaves live leaked */
	struct u64map born, born_ts; /* life: (adapter, id) -> its creating event's index, time */
	struct u64map refused_at; /* (adapter, id) of a live object -> 1 + its refused_free */
	struct refused_free *rf;
	size_t nrf, caprf;
	/*
	 * The state digest's part of live and refused_at, kept from the first
	 * engine_state_digest() on (digest_on): the XOR of their entries'
	 * terms; what an entry's object is counts in the model (core_digest_ref()).
	 */
	bool digest_on;
	uint64_t digest_ids;
	struct core_violation *window_leaks; /* window: live objects whose free was refused */
	size_t nwindow_leaks;
	bool started;
	uint64_t wall0, ts0;     /* REPLAY_PACE_TRACE: when the first event was issued */
	struct fast_clock clock; /* REPLAY_PACE_ASAP: times each operation */
	uint64_t modeled_last;
	struct replay_refusal refusals[REPLAY_MAX_REFUSALS];
	size_t nrefusals;
	uint64_t refused;
	struct engine_losses lost;
	/* a ring of the last objects freed: a DMA through their ids reaches their old addresses */
	struct {
		uint64_t key;
		core_handle_t h;
	} dead[CORE_TOMBS];
	uint64_t dead_next;
	char error[256];
};

/* The backend's modeled time so far: read after every event, so without its counters. */
static uint64_t modeled_ns(struct replay_engine *e)
{
	struct hw *hw = core_hw(e->core);

	return hw->ops->modeled_ns ? hw->ops->modeled_ns(hw) : 0;
}

#define LIVE_ADAPTER_MAX 255u
#define LIVE_ID_MAX ((1ull << 56) - 1)

static uint64_t live_key(uint64_t adapter, uint64_t id)
{
	return (adapter << 56) | (id & LIVE_ID_MAX);
}

#define LIVE(h, kind) ((uint64_t)(kind) << 32 | (h))
#define LIVE_HANDLE(v) ((core_handle_t)(v))
#define LIVE_KIND(v) ((uint32_t)((v) >> 32))

/* --- engine --- */

int engine_create(struct core *core, struct results *res, enum replay_pace pace,
		  struct replay_engine **out)
{
	struct replay_engine *e = calloc(1, sizeof(*e));

	if (!e)
		return -ENOMEM;
	if (u64map_init(&e->live) || u64map_init(&e->born) || u64map_init(&e->born_ts) ||
	    u64map_init(&e->refused_at)) {
		engine_destroy(e);
		return -ENOMEM;
	}
	e->core = core;
	e->res = res;
	e->pace = pace;
	/*
	 * Paced runs keep CLOCK_MONOTONIC (the fast clock without the TSC is
	 * it): latency counts from when an event was due, a CLOCK_MONOTONIC time.
	 */
	fast_clock_init(&e->clock, pace == REPLAY_PACE_ASAP);
	*out = e;
	return 0;
}

void engine_set_tracing(struct replay_engine *e, bool on)
{
	e->notrace = !on;
}

void engine_set_timing(struct replay_engine *e, bool on)
{
	e->untimed = !on;
}

const char *trace_covers_name(enum trace_covers c)
{
	return c == COVERS_LIFE ? "life" : "window";
}

int trace_covers_parse(const char *s, enum trace_covers *out)
{
	if (!strcmp(s, "window"))
		*out = COVERS_WINDOW;
	else if (!strcmp(s, "life"))
		*out = COVERS_LIFE;
	else
		return -EINVAL;
	return 0;
}

void engine_set_covers(struct replay_engine *e, enum trace_covers covers)
{
	e->life = covers == COVERS_LIFE;
}

void engine_set_pressure(struct replay_engine *e, const struct pressure_step *steps, size_t n)
{
	e->steps = steps;
	e->nsteps = n;
	e->next_step = 0;
}

static uint64_t pressure_bytes(const struct pressure_value *v, uint64_t limit, uint64_t keep)
{
	if (!v->set)
		return keep;
	return v->percent ? limit / 100 * v->v : v->v;
}

/* Steps due by this event change what physical memory still grants. */
static void apply_pressure(struct replay_engine *e, const struct wl_event *ev, uint64_t index)
{
	struct physmem *pm = core_physmem(e->core);

	while (e->next_step < e->nsteps) {
		const struct pressure_step *s = &e->steps[e->next_step];
		struct physmem_pressure p = pm->pressure;

		if (s->by_time ? ev->ts < s->at : index < s->at)
			break;
		p.commit_available = pressure_bytes(&s->commit, pm->commit_limit,
						    p.commit_available);
		p.lockable_available = pressure_bytes(&s->lockable, pm->lockable_limit,
						      p.lockable_available);
		if (s->contiguous_set)
			p.max_contiguous = s->max_contiguous;
		core_memory(e->core, &p);
		e->next_step++;
	}
}

void engine_destroy(struct replay_engine *e)
{
	if (!e)
		return;
	u64map_fini(&e->live);
	u64map_fini(&e->born);
	u64map_fini(&e->born_ts);
	u64map_fini(&e->refused_at);
	free(e->rf);
	free(e->window_leaks);
	free(e);
}

const char *engine_error(const struct replay_engine *e)
{
	return e->error;
}

const struct replay_refusal *engine_refusals(const struct replay_engine *e, size_t *n,
					     uint64_t *total)
{
	*n = e->nrefusals;
	*total = e->refused;
	return e->refusals;
}

/* The tag of the trace id @key as a holder of a handle (core_digest_ref()). */
static uint64_t id_tag(uint64_t key)
{
	return digest_combine(0x74726163652d6964ull, key);
}

/* The term of live entry @key -> @val: its object by its slot alone (core_digest_ref()). */
static uint64_t live_term(const struct replay_engine *e, uint64_t key, uint64_t val)
{
	return DIGEST_FOLD(0x6c697665ull, key, LIVE_KIND(val),
			   core_handle_digest(e->core, LIVE_HANDLE(val)) & ~1ull);
}

/* The term of refused_at's entry @key -> @val. */
static uint64_t refused_term(const struct replay_engine *e, uint64_t key, uint64_t val)
{
	return DIGEST_FOLD(0x7265667573656400ull, key, e->rf[val - 1].index);
}

/* Count live entry @key -> @val in the kept digest, or (a second call) no longer. */
static void live_toggle(struct replay_engine *e, uint64_t key, uint64_t val)
{
	e->digest_ids ^= live_term(e, key, val);
	if (LIVE_HANDLE(val))
		core_digest_ref(e->core, LIVE_HANDLE(val), id_tag(key));
}

/* u64map_put() of @key -> @val in live, the kept digest following. */
static int live_put(struct replay_engine *e, uint64_t key, uint64_t val)
{
	uint64_t *old = e->digest_on ? u64map_get(&e->live, key) : NULL;

	if (old)
		live_toggle(e, key, *old);
	if (u64map_put(&e->live, key, val))
		return -ENOMEM;
	if (e->digest_on)
		live_toggle(e, key, val);
	return 0;
}

/*
 * live's and refused_at's part of the digest computed from every entry;
 * the terms their objects count in the model's part (core_digest_ref()) in *@refs.
 */
static uint64_t ids_full(const struct replay_engine *e, uint64_t *refs)
{
	uint64_t key, val, h = 0;
	size_t pos = 0;

	*refs = 0;
	/* the map's slots depend on its history: each entry alone, in any order */
	while (u64map_next(&e->live, &pos, &key, &val)) {
		h ^= live_term(e, key, val);
		if (LIVE_HANDLE(val))
			*refs ^= core_digest_ref_term(e->core, LIVE_HANDLE(val), id_tag(key));
	}
	/* an object whose free was refused is a finding to come: part of the state */
	pos = 0;
	while (u64map_next(&e->refused_at, &pos, &key, &val))
		h ^= refused_term(e, key, val);
	return h;
}

/* engine_state_digest(), or with @full engine_state_digest_full(). */
static int state_digest(const struct replay_engine *e, bool full, uint64_t *digest)
{
	/* the kept parts are a cache of the state: keeping them changes nothing of it */
	struct replay_engine *me = (struct replay_engine *)e;
	uint64_t key, val, h, ids, refs;
	size_t pos = 0;
	int rc;

	if (!full && !e->digest_on) {
		/* the model keeps its parts from its first digest: count the ids' objects from then on */
		rc = core_state_digest(e->core, &h);
		if (rc)
			return rc;
		me->digest_ids = 0;
		while (u64map_next(&e->live, &pos, &key, &val))
			live_toggle(me, key, val);
		pos = 0;
		while (u64map_next(&e->refused_at, &pos, &key, &val))
			me->digest_ids ^= refused_term(e, key, val);
		me->digest_on = true;
	}
	if (full) {
		rc = core_state_digest_full(e->core, &h);
		ids = ids_full(e, &refs);
		h ^= refs;
	} else {
		rc = core_state_digest(e->core, &h);
		ids = e->digest_ids;
	}
	if (rc)
		return rc;
	*digest = DIGEST_FOLD(h, ids, e->next_step);
	return 0;
}

int engine_state_digest(const struct replay_engine *e, uint64_t *digest)
{
	return state_digest(e, false, digest);
}

int engine_state_digest_full(const struct replay_engine *e, uint64_t *digest)
{
	return state_digest(e, true, digest);
}

void engine_findings(const struct replay_engine *e, bool *violation, bool *reset, uint64_t *found)
{
	const struct core_power_record *recs;
	const struct core_violation *v, *internal;
	uint64_t h = DIGEST_FNV_BASIS;
	bool stuck = false;
	size_t n;

	v = core_violations(e->core, &n);
	*violation = n != 0 || e->nwindow_leaks != 0;
	for (size_t i = 0; i < n; i++) {
		h = DIGEST_FOLD(h, v[i].code, v[i].event, v[i].at_teardown);
		h = digest_fnv1a_str(h, v[i].detail);
	}
	for (size_t i = 0; i < e->nwindow_leaks; i++) {
		h = DIGEST_FOLD(h, e->window_leaks[i].code, e->window_leaks[i].event, 1);
		h = digest_fnv1a_str(h, e->window_leaks[i].detail);
	}
	*reset = false;
	recs = core_power_records(e->core, &n);
	for (size_t i = 0; i < n; i++) {
		*reset |= recs[i].path == PATH_RESET;
		stuck |= !recs[i].completed && recs[i].path != PATH_RESET;
	}
	*violation |= stuck;
	/* of the power records a verdict holds only these two; and whether the model stayed sound */
	*found = DIGEST_FOLD(h, stuck, *reset, core_internal_errors(e->core, &internal) != 0);
}

size_t engine_live(const struct replay_engine *e)
{
	uint64_t key, val;
	size_t n = 0, pos = 0;

	while (u64map_next(&e->live, &pos, &key, &val))
		n += LIVE_HANDLE(val) != 0;
	return n;
}

core_handle_t engine_handle(const struct replay_engine *e, uint64_t adapter, uint64_t id)
{
	const uint64_t *v;

	if (adapter > LIVE_ADAPTER_MAX || id > LIVE_ID_MAX)
		return 0;
	v = u64map_get(&e->live, live_key(adapter, id));
	return v ? LIVE_HANDLE(*v) : 0;
}

/* List event @index in @list of the results, as @why says (the count is the caller's). */
static void note(struct event_notes *list, const struct wl_event *ev, uint64_t index,
		 const char *why)
{
	struct event_note n = { .event = index, .ts_ns = ev->ts };

	snprintf(n.name, sizeof(n.name), "%s", wl_catalogue[ev->kind].name);
	snprintf(n.reason, sizeof(n.reason), "%s", why);
	if (results_add_note(list, &n))
		log_err("out of memory listing event %llu (%s: %s)", (unsigned long long)index,
			n.name, why);
}

static int refuse(struct replay_engine *e, const struct wl_event *ev, uint64_t index, int rc,
		  const char *why)
{
	e->refused++;
	note(&e->res->refused, ev, index, why);
	if (e->nrefusals < REPLAY_MAX_REFUSALS) {
		struct replay_refusal *r = &e->refusals[e->nrefusals++];

		*r = (struct replay_refusal){ .index = index, .ts = ev->ts, .kind = ev->kind, .rc = rc };
		snprintf(r->why, sizeof(r->why), "%s", why);
	}
	return 1;
}

static int input_error(struct replay_engine *e, const struct wl_event *ev, uint64_t index,
		       const char *what)
{
	char text[160];

	snprintf(e->error, sizeof(e->error), "event %llu at %llu ns (%s): %s",
		 (unsigned long long)index, (unsigned long long)ev->ts,
		 wl_format(ev, text, sizeof(text)), what);
	return -EINVAL;
}

/*
 * The trace format's values (replay/event.h) as the model's. A value the
 * format does not define becomes one the model does not either, and the
 * model refuses it: the refusal is the trace's finding.
 */
static enum cache_type model_cache(uint64_t v)
{
	return v == WL_CACHE_NONCACHED ? CACHE_NONCACHED : v == WL_CACHE_CACHED ? CACHE_CACHED
	       : v == WL_CACHE_WRITECOMBINED ? CACHE_WRITECOMBINED
					      : (enum cache_type)(CACHE_WRITECOMBINED + 1);
}

static enum core_segment model_segment(uint64_t v)
{
	return v == WL_SEG_VRAM ? CORE_SEG_VRAM : v == WL_SEG_APERTURE ? CORE_SEG_APERTURE
	       : v == WL_SEG_SYSTEM ? CORE_SEG_SYSTEM : (enum core_segment)(CORE_SEG_SYSTEM + 1);
}

/* The two flags the format defines, mapped; its reserved bits pass on as they are (ignored). */
static uint32_t model_alloc_flags(uint64_t v)
{
	const uint64_t known = WL_ALLOC_ACCESSED_PHYSICALLY | WL_ALLOC_MAP_APERTURE_CPU_VISIBLE;

	return (v & WL_ALLOC_ACCESSED_PHYSICALLY ? ALLOC_ACCESSED_PHYSICALLY : 0) |
	       (v & WL_ALLOC_MAP_APERTURE_CPU_VISIBLE ? ALLOC_MAP_APERTURE_CPU_VISIBLE : 0) |
	       (uint32_t)(v & ~known);
}

static enum transfer_dir model_dir(uint64_t v)
{
	return v == WL_DIR_TO_VRAM ? TRANSFER_TO_VRAM : v == WL_DIR_FROM_VRAM ? TRANSFER_FROM_VRAM
	       : (enum transfer_dir)(TRANSFER_FROM_VRAM + 1);
}

static enum cpu_access model_access(uint64_t v)
{
	return v == WL_ACCESS_KERNEL ? CPU_KERNEL : v == WL_ACCESS_USER ? CPU_USER
	       : (enum cpu_access)(CPU_USER + 1);
}

/* The physical adapter whose hAdapter a frame-buffer callback was given (none: never the lead). */
static unsigned int model_hadapter(uint64_t v)
{
	return v > UINT32_MAX ? UINT32_MAX : (unsigned int)v;
}

static enum power_state model_power(uint64_t v)
{
	/* D1 is a state the model does not take: refused */
	return v == WL_POWER_D0 ? POWER_D0 : v == WL_POWER_D3 ? POWER_D3 : (enum power_state)1;
}

/* The model call for one event; *h receives a created handle. */
static int dispatch(struct replay_engine *e, const struct wl_event *ev, core_handle_t target,
		    bool target_dead, core_handle_t ref, core_handle_t *h)
{
	struct core *c = e->core;
	unsigned int a = (unsigned int)ev->v[WL_ADAPTER], p = (unsigned int)ev->v[WL_PHYS];
	const uint64_t *v = ev->v;

	switch (ev->kind) {
	case WL_SECURE_VM_CREATE: return core_secure_vm_create(c, a);
	case WL_ALLOC_CONTIGUOUS:
		return core_alloc_contiguous(c, a, v[WL_BYTES], model_cache(v[WL_ARG]), h, NULL);
	case WL_FREE_CONTIGUOUS: return core_free_contiguous(c, a, target);
	case WL_ALLOC_MDL: return core_alloc_mdl(c, a, v[WL_BYTES], h);
	case WL_FREE_MDL: return core_free_mdl(c, a, target);
	case WL_MAP_MDL: return core_map_mdl(c, a, ref, h, NULL);
	case WL_UNMAP_MDL: return core_unmap_mdl(c, a, target);
	case WL_PMO_CREATE: return core_pmo_create(c, a, v[WL_BYTES], model_cache(v[WL_ARG]), h);
	case WL_PMO_DESTROY: return core_pmo_destroy(c, a, target);
	case WL_ADL_ALLOC: return core_adl_alloc(c, a, ref, v[WL_OFFSET], v[WL_BYTES], h);
	case WL_ADL_FREE: return core_adl_free(c, a, target);
	case WL_ALLOC_CREATE:
		return core_alloc_create(c, a, v[WL_BYTES], model_segment(v[WL_ARG]),
					 model_alloc_flags(v[WL_FLAGS]), h);
	case WL_ALLOC_DESTROY: return core_alloc_destroy(c, a, target);
	case WL_MAP_APERTURE: return core_map_aperture(c, a, target, v[WL_OFFSET], v[WL_BYTES]);
	case WL_UNMAP_APERTURE: return core_unmap_aperture(c, a, target);
	case WL_TRANSFER:
		return core_transfer(c, a, target, model_dir(v[WL_ARG]), v[WL_BYTES]);
	case WL_FENCE_CREATE: return core_fence_create(c, a, h);
	case WL_FENCE_DESTROY: return core_fence_destroy(c, a, target);
	case WL_DMA:
		if (target_dead)
			return core_dma_stale(c, a, p, target, v[WL_OFFSET], v[WL_BYTES],
					      v[WL_ARG] != 0);
		return core_dma(c, a, p, target, v[WL_OFFSET], v[WL_BYTES], v[WL_ARG] != 0);
	case WL_DMA_RAW:
		return core_dma_raw(c, a, p, v[WL_OFFSET], v[WL_BYTES], v[WL_ARG] != 0);
	case WL_DMA_EXCLUSIVE:
		return core_dma_exclusive(c, a, p, v[WL_OFFSET], v[WL_BYTES], v[WL_ARG] != 0);
	case WL_POWER: return core_power(c, a, p, model_power(v[WL_ARG]));
	case WL_MEMORY: {
		struct physmem_pressure pr = { .commit_available = v[WL_OFFSET],
					       .lockable_available = v[WL_BYTES],
					       .max_contiguous = UINT64_MAX };

		core_memory(c, &pr);
		return 0;
	}
	case WL_IRQL: core_set_irql(c, (enum core_irql)v[WL_ARG]); return 0; /* a level is its number */
	case WL_DRIVER_MDL_CREATE: return core_driver_mdl_create(c, a, v[WL_BYTES], h);
	case WL_DRIVER_MDL_FREE: return core_driver_mdl_free(c, a, target);
	case WL_FB_PIN: return core_fb_pin(c, a, model_hadapter(v[WL_ARG]), p, h);
	case WL_FB_UNPIN: return core_fb_unpin(c, a, model_hadapter(v[WL_ARG]), target);
	case WL_FB_MAP:
		return core_fb_map_chunk(c, a, model_hadapter(v[WL_ARG]), p, v[WL_OFFSET], v[WL_BYTES],
					 h);
	case WL_FB_UNMAP: return core_fb_unmap_chunk(c, a, model_hadapter(v[WL_ARG]), target);
	case WL_CPU_ACCESS:
		return core_cpu_access(c, a, target, v[WL_OFFSET], v[WL_BYTES], v[WL_ARG] != 0);
	case WL_PMO_CREATE_IO:
		return core_pmo_create_io(c, a, v[WL_OFFSET], v[WL_BYTES], model_cache(v[WL_ARG]), h);
	case WL_PMO_MAP_CPU:
		return core_pmo_map_cpu(c, a, ref, model_access(v[WL_ARG]), v[WL_OFFSET], v[WL_BYTES],
					h);
	case WL_PMO_UNMAP_CPU: return core_pmo_unmap_cpu(c, a, target);
	case WL_IOMMU_DISABLE: return core_iommu_disable(c, a);
	case WL_FB_SAVE_SIZE: return core_fb_save_size(c, a, p, v[WL_BYTES]);
	}
	return -EINVAL;
}

/*
 * When the event starts: now (the fast clock) as fast as possible; paced,
 * wait for the event's time and return when it was meant to start.
 */
static uint64_t pace_wait(struct replay_engine *e, uint64_t ts)
{
	uint64_t due, now;

	if (e->pace != REPLAY_PACE_TRACE)
		return fast_clock_ns(&e->clock);
	now = clock_mono_ns();
	if (!e->started) {
		e->started = true;
		e->wall0 = now;
		e->ts0 = ts;
	}
	due = e->wall0 + (ts > e->ts0 ? ts - e->ts0 : 0);
	if (due > now + 50000) {
		struct timespec until = { .tv_sec = (time_t)((due - 20000) / 1000000000ull),
					  .tv_nsec = (long)((due - 20000) % 1000000000ull) };

		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, NULL);
	}
	while (clock_mono_ns() < due)
		;
	return due;
}

/* The object of @key, handle @h, is being freed: a device may still use its addresses. */
static void bury(struct replay_engine *e, uint64_t key, core_handle_t h)
{
	e->dead[e->dead_next % CORE_TOMBS].key = key;
	e->dead[e->dead_next++ % CORE_TOMBS].h = h;
}

/*
 * Whether the ring still holds the last object of @key freed; its handle to
 * @h (0: the model had refused to create it).
 */
static bool dead_handle(const struct replay_engine *e, uint64_t key, core_handle_t *h)
{
	uint64_t n = e->dead_next < CORE_TOMBS ? e->dead_next : CORE_TOMBS;

	for (uint64_t i = 1; i <= n; i++)
		if (e->dead[(e->dead_next - i) % CORE_TOMBS].key == key) {
			*h = e->dead[(e->dead_next - i) % CORE_TOMBS].h;
			return true;
		}
	return false;
}

/* The object of @key ended (or never began): no longer live. */
static void forget(struct replay_engine *e, uint64_t key)
{
	uint64_t *v;

	if (e->digest_on && (v = u64map_get(&e->live, key)))
		live_toggle(e, key, *v);
	if (e->digest_on && (v = u64map_get(&e->refused_at, key)))
		e->digest_ids ^= refused_term(e, key, *v);
	u64map_del(&e->live, key);
	u64map_del(&e->refused_at, key);
	if (e->life) {
		u64map_del(&e->born, key);
		u64map_del(&e->born_ts, key);
	}
}

/*
 * After a loss, an id created again lost its end: end the old object now,
 * as the driver did at some point the trace no longer shows.
 */
static void end_orphan(struct replay_engine *e, uint64_t key, uint64_t val)
{
	struct wl_event ev = { .kind = (uint32_t)wl_destroy_of(LIVE_KIND(val)) };
	core_handle_t unused;

	ev.v[WL_ADAPTER] = key >> 56;
	if (LIVE_HANDLE(val))
		dispatch(e, &ev, LIVE_HANDLE(val), false, 0, &unused);
	forget(e, key);
	e->lost.ended++;
}

/* After a loss, an event naming an object whose creation was lost: not executed, unmatched. */
static int skip_orphan(struct replay_engine *e, const struct wl_event *ev, uint64_t index,
		       const char *why)
{
	e->lost.skipped++;
	note(&e->res->unmatched, ev, index, why);
	return 0;
}

const struct engine_losses *engine_losses(const struct replay_engine *e)
{
	return &e->lost;
}

uint64_t engine_after_bugcheck(const struct replay_engine *e)
{
	return e->after_bugcheck;
}

/* A free of the live object of @key was refused: kept while the object lives. */
static int remember_refused(struct replay_engine *e, uint64_t key, const struct wl_event *ev,
			    uint64_t index, int rc)
{
	if (array_reserve(&e->rf, &e->caprf, e->nrf, sizeof(*e->rf)))
		return -ENOMEM;
	uint64_t *old = e->digest_on ? u64map_get(&e->refused_at, key) : NULL;

	e->rf[e->nrf++] = (struct refused_free){ .index = index, .ts = ev->ts, .kind = ev->kind,
						 .rc = rc };
	if (old)
		e->digest_ids ^= refused_term(e, key, *old);
	if (u64map_put(&e->refused_at, key, e->nrf))
		return -ENOMEM;
	if (e->digest_on)
		e->digest_ids ^= refused_term(e, key, e->nrf);
	return 0;
}

int engine_apply(struct replay_engine *e, const struct wl_event *ev, uint64_t index)
{
	uint64_t adapter = ev->v[WL_ADAPTER], key = live_key(adapter, ev->v[WL_ID]);
	uint64_t *obj = NULL, *ref = NULL, start, end, wall, modeled;
	bool creates, destroys;
	core_handle_t created = 0, dead = 0;
	struct op_result *op;
	int rc;

	if (ev->kind >= WL_NKINDS)
		return input_error(e, ev, index, "unknown event kind");
	/* the live map keys an id by its adapter in the top byte */
	if (adapter > LIVE_ADAPTER_MAX || ev->v[WL_PHYS] > UINT32_MAX)
		return input_error(e, ev, index, "no scenario has an adapter of that number");
	if (ev->v[WL_ID] > LIVE_ID_MAX || ev->v[WL_REF] > LIVE_ID_MAX)
		return input_error(e, ev, index, "ids are below 2^56");
	if (ev->kind == WL_IRQL && ev->v[WL_ARG] > WL_IRQL_HIGH)
		return input_error(e, ev, index, "an IRQL is at most 15 (HIGH_LEVEL)");
	/*
	 * The machine bugchecked: what the trace holds after it never happened.
	 * Counted by trace event (an import may make two workload events of
	 * one), and not the event of the bugcheck itself.
	 */
	if (core_bugcheck(e->core)) {
		if (index != core_bugcheck(e->core)->event &&
		    (!e->after_bugcheck || index != e->last_not_run))
			e->after_bugcheck++;
		e->last_not_run = index;
		return 0;
	}
	creates = wl_creates(ev->kind);
	destroys = wl_destroys(ev->kind);
	if (creates && (obj = u64map_get(&e->live, key))) {
		if (!(ev->flags & WL_AFTER_LOSS))
			return input_error(e, ev, index, "its id is already live (created twice)");
		end_orphan(e, key, *obj);
		obj = NULL;
	}
	if (destroys || wl_uses(ev->kind)) {
		obj = u64map_get(&e->live, key);
		if (!obj && (ev->flags & WL_AFTER_LOSS))
			return skip_orphan(e, ev, index, "after a loss: its object's creation was lost");
		/* a device does not know what the driver freed: it uses the address it had */
		if (!obj && ev->kind == WL_DMA && dead_handle(e, key, &dead) && !dead)
			return refuse(e, ev, index, -ENOENT, "its object's creation was refused");
		if (!obj && !dead)
			return input_error(e, ev, index,
					   destroys ? "its id is not live (freed twice or never created)"
					   : ev->kind == WL_DMA ? "its id is not live, and is not among the "
								  "last 4096 objects freed"
					   : "its id is not live");
	}
	if (wl_refers(ev->kind)) {
		ref = u64map_get(&e->live, live_key(adapter, ev->v[WL_REF]));
		if (!ref && (ev->flags & WL_AFTER_LOSS))
			/* and its end, when it comes, too */
			return skip_orphan(e, ev, index,
					   "after a loss: the creation of the object it refers to was lost");
		if (!ref)
			return input_error(e, ev, index, "the object it refers to is not live");
	}
	if ((obj && !LIVE_HANDLE(*obj)) || (ref && !LIVE_HANDLE(*ref))) {
		/* its object was never created: the model refused that earlier */
		if (destroys) {
			bury(e, key, 0);
			forget(e, key);
		}
		if (creates && live_put(e, key, LIVE(0, ev->kind)))
			return -ENOMEM;
		return refuse(e, ev, index, -ENOENT, "its object's creation was refused");
	}

	core_set_event(e->core, index, ev->ts, wl_catalogue[ev->kind].name);
	if (e->next_step < e->nsteps)
		apply_pressure(e, ev, index);
	if (!e->notrace)
		trace_wl(ev);
	start = pace_wait(e, ev->ts);
	rc = dispatch(e, ev, obj ? LIVE_HANDLE(*obj) : dead, dead != 0, ref ? LIVE_HANDLE(*ref) : 0,
		      &created);
	op = &e->res->ops[ev->kind];
	op->count++;
	/* untimed, an operation is counted only: no clock, no cost model */
	wall = modeled = 0;
	if (!e->untimed) {
		end = fast_clock_ns(&e->clock); /* CLOCK_MONOTONIC itself when paced */
		/* (a TSC read on another CPU may lag by a few cycles: never a negative time) */
		wall = end > start ? end - start : 0;
		modeled = modeled_ns(e) - e->modeled_last;
		e->modeled_last += modeled;
		if (hist_record(&op->wall, wall) || hist_record(&op->modeled, modeled))
			return -ENOMEM;
	}
	if (!e->notrace)
		trace_op(ev->kind, (uint32_t)adapter, ev->v[WL_ID], rc, wall, modeled, index);

	if (creates && live_put(e, key, LIVE(rc ? 0 : created, ev->kind)))
		return -ENOMEM;
	if (creates && !rc && e->life &&
	    (u64map_put(&e->born, key, index) || u64map_put(&e->born_ts, key, ev->ts)))
		return -ENOMEM;
	/* a refused free ended nothing: the object stays live under its id */
	if (destroys && !rc) {
		bury(e, key, LIVE_HANDLE(*obj));
		forget(e, key);
	}
	if (destroys && rc && remember_refused(e, key, ev, index, rc))
		return -ENOMEM;
	if (rc) {
		op->errors++;
		return refuse(e, ev, index, rc, ntstatus_name(rc));
	}
	return 0;
}

/* What the trace left live is released as a driver unloading would: not a leak of the model. */
static void free_leftovers(struct replay_engine *e)
{
	/* children before what they refer to */
	static const uint32_t order[] = {
		WL_ADL_ALLOC, WL_PMO_MAP_CPU, WL_MAP_MDL, WL_PMO_CREATE, WL_PMO_CREATE_IO,
		WL_ALLOC_MDL, WL_DRIVER_MDL_CREATE, WL_ALLOC_CONTIGUOUS, WL_ALLOC_CREATE,
		WL_FENCE_CREATE, WL_FB_PIN, WL_FB_MAP,
	};

	for (size_t k = 0; k < ARRAY_SIZE(order); k++) {
		uint64_t key, val;
		size_t pos = 0;

		while (u64map_next(&e->live, &pos, &key, &val)) {
			struct wl_event ev = { .kind = (uint32_t)wl_destroy_of(order[k]) };
			core_handle_t unused;

			if (LIVE_KIND(val) != order[k] || !LIVE_HANDLE(val))
				continue;
			ev.v[WL_ADAPTER] = key >> 56;
			dispatch(e, &ev, LIVE_HANDLE(val), false, 0, &unused);
		}
	}
}

/* @ended: the run's end (else its findings so far): latencies and tracepoints then. */
static void fill_power(const struct replay_engine *e, struct results *res, bool ended)
{
	struct power_result *pw = &res->power;
	const struct core_power_record *recs = NULL;
	size_t n = 0;

	recs = core_power_records(e->core, &n);
	for (size_t i = 0; i < n; i++) {
		const struct core_power_record *r = &recs[i];
		struct power_paths *paths;

		pw->transitions++;
		pw->completed += r->completed;
		pw->reset += r->path == PATH_RESET;
		pw->pinned += r->path == PATH_PINNED;
		pw->chunked += r->path == PATH_CHUNKED;
		pw->chunks += r->chunks;
		pw->bytes += r->bytes;
		/* untimed, as for operations: no histogram page written per run */
		if (ended && !e->untimed && hist_record(&pw->time_to_complete, r->copy_ns))
			log_err("out of memory recording a power transition's time to complete");
		pw->longest_stall_ns = GPUISO_MAX(pw->longest_stall_ns, r->max_stall_ns);
		paths = r->to == POWER_D3 ? &pw->to_d3 : &pw->to_d0;
		paths->transitions++;
		paths->completed += r->completed;
		paths->pinned += r->path == PATH_PINNED;
		paths->chunked += r->path == PATH_CHUNKED;
		paths->reset += r->path == PATH_RESET;
		if (ended)
			trace_power(r);
	}
}

/*
 * A leak of a trace's object, as the model's teardown reported it: at the
 * event that created the object (the leak itself has no event of its own),
 * naming the trace's id. @owners: handle -> live map key, of what the trace
 * left live. Others (the model's own handles) stay as reported.
 */
static void name_leak(const struct replay_engine *e, const struct u64map *owners,
		      struct core_violation *v)
{
	const uint64_t *key, *val, *at, *ts;
	char detail[sizeof(v->detail)];

	if (v->code != CORE_V_HANDLE_LEAK || !v->handle || !(key = u64map_get(owners, v->handle)) ||
	    !(val = u64map_get(&e->live, *key)) || !(at = u64map_get(&e->born, *key)) ||
	    !(ts = u64map_get(&e->born_ts, *key)))
		return;
	v->event = *at;
	v->ts_ns = *ts;
	snprintf(detail, sizeof(detail), "%s", v->detail);
	if (snprintf(v->detail, sizeof(v->detail), "id %llu created by %s at %llu ns: %s",
		     (unsigned long long)(*key & LIVE_ID_MAX), wl_catalogue[LIVE_KIND(*val)].name,
		     (unsigned long long)*ts, detail) < 0)
		snprintf(v->detail, sizeof(v->detail), "%s", detail);
}

/* What the trace left live, by handle (to name leaks); false when out of memory. */
static bool index_leftovers(const struct replay_engine *e, struct u64map *owners)
{
	uint64_t key, val;
	size_t pos = 0;

	if (u64map_init(owners))
		return false;
	while (u64map_next(&e->live, &pos, &key, &val))
		if (LIVE_HANDLE(val) && u64map_put(owners, LIVE_HANDLE(val), key))
			return false;
	return true;
}

/* @v as the results record it: the trace's names for leaks (@owners, when @named). */
static void add_violation(const struct replay_engine *e, struct results *res,
			  const struct u64map *owners, bool named, const struct core_violation *v,
			  bool ended)
{
	struct core_violation w = *v;
	struct violation_result r = { .event = w.event, .at_teardown = w.at_teardown,
				      .by_os = core_violation_party(w.code) == CORE_PARTY_OS };

	if (named)
		name_leak(e, owners, &w);
	r.event = w.event;
	r.ts_ns = w.ts_ns;
	snprintf(r.code, sizeof(r.code), "%s", core_violation_name(w.code));
	snprintf(r.detail, sizeof(r.detail), "%s", w.detail);
	if (results_add_violation(res, &r))
		log_err("out of memory recording %s: %s", r.code, r.detail);
	if (ended)
		trace_violation(&w);
}

/* The model's blocked DMA and exposures, counted by cause, the first kept in full. */
static void fill_dma(const struct replay_engine *e, struct dma_result *d, bool ended)
{
	const struct core_exposure *x;
	const struct core_fault *f;
	size_t n;

	memset(d, 0, sizeof(*d));
	for (d->ncauses = 0; d->ncauses < CORE_FAULT_NCAUSES; d->ncauses++)
		snprintf(d->blocked_by[d->ncauses].name, sizeof(d->blocked_by[0].name), "%s",
			 core_fault_cause_name((unsigned int)d->ncauses));
	for (d->nhows = 0; d->nhows <= CORE_EXPOSED_STALE; d->nhows++)
		snprintf(d->exposed_by[d->nhows].name, sizeof(d->exposed_by[0].name), "%s",
			 core_exposure_how_name((unsigned int)d->nhows));
	f = core_faults(e->core, &n);
	for (size_t i = 0; i < n; i++) {
		struct dma_record *r = &d->blocked_first[d->nblocked_kept];

		d->blocked++;
		if (f[i].cause < d->ncauses)
			d->blocked_by[f[i].cause].n++;
		if (ended)
			trace_dma_fault(&f[i]);
		if (d->nblocked_kept == RESULTS_DMA_KEPT)
			continue;
		d->nblocked_kept++;
		*r = (struct dma_record){ .event = f[i].event, .ts_ns = f[i].ts_ns,
					  .adapter = f[i].adapter, .phys = f[i].phys,
					  .address = f[i].iova, .write = f[i].write,
					  .domain = f[i].domain, .hw_reason = f[i].reason,
					  .has_by = f[i].cause == CORE_FAULT_AFTER_UNMAP ||
						    f[i].cause == CORE_FAULT_AFTER_FREE,
					  .by_event = f[i].by_event, .by_ts_ns = f[i].by_ts_ns };
		snprintf(r->what, sizeof(r->what), "%s", core_fault_cause_name(f[i].cause));
		snprintf(r->by_op, sizeof(r->by_op), "%s", f[i].by_op ? f[i].by_op : "");
	}
	x = core_exposures(e->core, &n);
	for (size_t i = 0; i < n; i++) {
		struct dma_record *r = &d->exposed_first[d->nexposed_kept];

		d->exposed++;
		if (x[i].how < d->nhows)
			d->exposed_by[x[i].how].n++;
		if (d->nexposed_kept == RESULTS_DMA_KEPT)
			continue;
		d->nexposed_kept++;
		*r = (struct dma_record){ .event = x[i].event, .ts_ns = x[i].ts_ns,
					  .adapter = x[i].adapter, .phys = x[i].phys,
					  .address = x[i].address, .bytes = x[i].bytes,
					  .write = x[i].write, .domain = UINT32_MAX };
		snprintf(r->what, sizeof(r->what), "%s", core_exposure_how_name(x[i].how));
	}
}

/*
 * The violations, power and invariants of @res from the model's records.
 * @ended: the model stopped (else the run's state is the end state of a
 * run that ended clean: baseline_restored holds).
 */
static void fill_findings(const struct replay_engine *e, struct results *res, const struct u64map *owners,
			  bool named, bool ended)
{
	const struct physmem *pm = core_physmem(e->core);
	const struct core_violation *v, *internal;
	bool leaks = false, mappings = false, stale = false, mismatch = false, progress;
	size_t n;

	fill_power(e, res, ended);
	fill_dma(e, &res->dma, ended);
	v = core_violations(e->core, &n);
	for (size_t i = 0; i < n; i++) {
		add_violation(e, res, owners, named, &v[i], ended);
		leaks |= v[i].code == CORE_V_HANDLE_LEAK;
		mappings |= v[i].code == CORE_V_MAPPING_LEAK;
		stale |= v[i].code == CORE_V_STALE_TRANSLATION;
		mismatch |= v[i].code == CORE_V_FB_RESTORE_MISMATCH;
	}
	for (size_t i = 0; i < e->nwindow_leaks; i++) {
		add_violation(e, res, owners, false, &e->window_leaks[i], ended);
		leaks = true;
	}
	progress = res->power.completed + res->power.reset == res->power.transitions;
	res->ninvariants = 0;
#define INVARIANT(n, h) res->invariants[res->ninvariants++] = (struct invariant_result){ n, h }
	INVARIANT("no_leaks", !leaks);
	INVARIANT("no_stale_mappings", !mappings);
	INVARIANT("no_dma_to_unmapped", !stale);
	INVARIANT("baseline_restored", !ended || (!pm->usage.committed && !pm->usage.locked));
	INVARIANT("vram_restored", !mismatch);
	INVARIANT("forward_progress", progress);
	/* an impossible state of the model: a bug of gpuiso, whatever the driver did */
	INVARIANT("model_sound", !core_internal_errors(e->core, &internal));
#undef INVARIANT
}

/*
 * A window's objects whose free the trace shows was attempted and refused:
 * the driver let go of them, the model still holds them. Each is a
 * HANDLE_LEAK at the refused free, whatever else the window left live.
 */
static void window_leaks(struct replay_engine *e)
{
	uint64_t key, val, *obj;
	size_t pos = 0, n = 0;

	if (core_bugcheck(e->core)) /* the machine stopped: nothing is judged after it */
		return;
	while (u64map_next(&e->refused_at, &pos, &key, &val))
		n++;
	if (!n || !(e->window_leaks = calloc(n, sizeof(*e->window_leaks)))) {
		if (n)
			log_err("out of memory reporting %zu objects whose free was refused", n);
		return;
	}
	pos = 0;
	while (u64map_next(&e->refused_at, &pos, &key, &val)) {
		const struct refused_free *f = &e->rf[val - 1];
		struct core_violation *v = &e->window_leaks[e->nwindow_leaks++];

		obj = u64map_get(&e->live, key);
		*v = (struct core_violation){ .code = CORE_V_HANDLE_LEAK, .event = f->index,
					      .ts_ns = f->ts,
					      .handle = obj ? LIVE_HANDLE(*obj) : 0 };
		snprintf(v->detail, sizeof(v->detail),
			 "id %llu (%s): its %s was refused (%s) and not tried again; still live at the end of the window, released by the replay",
			 (unsigned long long)(key & LIVE_ID_MAX),
			 obj ? wl_catalogue[LIVE_KIND(*obj)].name : "?", wl_catalogue[f->kind].name,
			 ntstatus_name(f->rc));
	}
}

void engine_finish(struct replay_engine *e)
{
	struct u64map owners = { 0 };
	bool named = false;

	/* the driver unloads at PASSIVE_LEVEL, whatever level the trace ended at */
	core_set_irql(e->core, CORE_IRQL_PASSIVE);
	/* a life leaves them to teardown (out of memory to name them: reported as the model has them) */
	if (e->life) {
		named = index_leftovers(e, &owners);
	} else {
		window_leaks(e);
		free_leftovers(e);
	}
	core_stop(e->core);
	fill_findings(e, e->res, &owners, named, true);
	u64map_fini(&owners);
}

void engine_findings_so_far(const struct replay_engine *e, struct results *res)
{
	fill_findings(e, res, NULL, false, false);
}
