/* SPDX-License-Identifier: MIT */
/*
 * The replay engine (replay.h): each event checked against the live map
 * (engine_live.c), paced, made a model call (engine_dispatch.c) and timed;
 * what the model refused and what is bad input, said where.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define LOG_PREFIX "replay"
#include "common/clock.h"
#include "common/log.h"
#include "replay/engine_internal.h"
#include "replay/trace.h"

/* The backend's modeled time so far: read after every event, so without its counters. */
static uint64_t modeled_ns(struct replay_engine *e)
{
	struct hw *hw = core_hw(e->core);

	return hw->ops->modeled_ns ? hw->ops->modeled_ns(hw) : 0;
}

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
		engine_dispatch(e, &ev, LIVE_HANDLE(val), false, 0, &unused);
	engine_forget(e, key);
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

int engine_apply(struct replay_engine *e, const struct wl_event *ev, uint64_t index)
{
	uint64_t adapter = ev->v[WL_ADAPTER], key = engine_live_key(adapter, ev->v[WL_ID]);
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
		if (!obj && ev->kind == WL_DMA && engine_dead_handle(e, key, &dead) && !dead)
			return refuse(e, ev, index, -ENOENT, "its object's creation was refused");
		if (!obj && !dead)
			return input_error(e, ev, index,
					   destroys ? "its id is not live (freed twice or never created)"
					   : ev->kind == WL_DMA ? "its id is not live, and is not among the "
								  "last 4096 objects freed"
					   : "its id is not live");
	}
	if (wl_refers(ev->kind)) {
		ref = u64map_get(&e->live, engine_live_key(adapter, ev->v[WL_REF]));
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
			engine_bury(e, key, 0);
			engine_forget(e, key);
		}
		if (creates && engine_live_put(e, key, LIVE(0, ev->kind)))
			return -ENOMEM;
		return refuse(e, ev, index, -ENOENT, "its object's creation was refused");
	}

	core_set_event(e->core, index, ev->ts, wl_catalogue[ev->kind].name);
	if (e->next_step < e->nsteps)
		apply_pressure(e, ev, index);
	if (!e->notrace)
		trace_wl(ev);
	start = pace_wait(e, ev->ts);
	rc = engine_dispatch(e, ev, obj ? LIVE_HANDLE(*obj) : dead, dead != 0, ref ? LIVE_HANDLE(*ref) : 0,
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

	if (creates && engine_live_put(e, key, LIVE(rc ? 0 : created, ev->kind)))
		return -ENOMEM;
	if (creates && !rc && e->life &&
	    (u64map_put(&e->born, key, index) || u64map_put(&e->born_ts, key, ev->ts)))
		return -ENOMEM;
	/* a refused free ended nothing: the object stays live under its id */
	if (destroys && !rc) {
		engine_bury(e, key, LIVE_HANDLE(*obj));
		engine_forget(e, key);
	}
	if (destroys && rc && engine_remember_refused(e, key, ev, index, rc))
		return -ENOMEM;
	if (rc) {
		op->errors++;
		return refuse(e, ev, index, rc, ntstatus_name(rc));
	}
	return 0;
}
