/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_REPLAY_ENGINE_INTERNAL_H
#define GPUISO_REPLAY_ENGINE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/clock.h"
#include "common/u64map.h"
#include "replay/replay.h"

/*
 * What the files of the replay engine share: engine.c applies each event
 * (its checks, pacing and timing), engine_live.c keeps the live map and
 * its part of the state digest, engine_dispatch.c makes the model call for
 * an event, engine_findings.c fills a run's findings from the model's
 * records and what the trace left live.
 */

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

#define LIVE_ADAPTER_MAX 255u
#define LIVE_ID_MAX ((1ull << 56) - 1)

/**
 * engine_live_key() - the live map's key of trace id @id on @adapter.
 * @adapter: at most LIVE_ADAPTER_MAX.
 * @id: at most LIVE_ID_MAX.
 *
 * Return: the key: @adapter in the top byte.
 */
static inline uint64_t engine_live_key(uint64_t adapter, uint64_t id)
{
	return (adapter << 56) | (id & LIVE_ID_MAX);
}

#define LIVE(h, kind) ((uint64_t)(kind) << 32 | (h))
#define LIVE_HANDLE(v) ((core_handle_t)(v))
#define LIVE_KIND(v) ((uint32_t)((v) >> 32))

/**
 * engine_live_put() - u64map_put() of @key -> @val in live, the kept digest
 * following.
 * @e: the engine.
 * @key: an engine_live_key().
 * @val: LIVE() of the handle and the kind that created it.
 *
 * Return: 0 or -ENOMEM.
 */
int engine_live_put(struct replay_engine *e, uint64_t key, uint64_t val);

/**
 * engine_forget() - the object of @key ended (or never began): no longer live.
 * @e: the engine.
 * @key: an engine_live_key().
 */
void engine_forget(struct replay_engine *e, uint64_t key);

/**
 * engine_bury() - the object of @key is being freed: a device may still
 * use its addresses.
 * @e: the engine.
 * @key: an engine_live_key().
 * @h: its handle (0: the model had refused to create it).
 */
void engine_bury(struct replay_engine *e, uint64_t key, core_handle_t h);

/**
 * engine_dead_handle() - whether the ring still holds the last object of
 * @key freed.
 * @e: the engine.
 * @key: an engine_live_key().
 * @h: out: its handle (0: the model had refused to create it).
 *
 * Return: whether it does.
 */
bool engine_dead_handle(const struct replay_engine *e, uint64_t key, core_handle_t *h);

/**
 * engine_remember_refused() - a free of the live object of @key was
 * refused: kept while the object lives.
 * @e: the engine.
 * @key: an engine_live_key().
 * @ev: the free.
 * @index: its index in the trace.
 * @rc: why the model refused it.
 *
 * Return: 0 or -ENOMEM.
 */
int engine_remember_refused(struct replay_engine *e, uint64_t key, const struct wl_event *ev,
			    uint64_t index, int rc);

/**
 * engine_dispatch() - the model call for one event.
 * @e: the engine.
 * @ev: the event.
 * @target: the handle of the object it acts on, if any.
 * @target_dead: whether that object was freed (a DMA through a stale address).
 * @ref: the handle of the object it refers to, if any.
 * @h: out: a created handle.
 *
 * Return: the model's answer: 0, or why it refused.
 */
int engine_dispatch(struct replay_engine *e, const struct wl_event *ev, core_handle_t target,
		    bool target_dead, core_handle_t ref, core_handle_t *h);

#endif
