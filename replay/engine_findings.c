/* SPDX-License-Identifier: MIT */
/*
 * A run's findings from the model's records: violations, power, blocked
 * DMA, invariants, and what the trace left live (released at the end of a
 * window, leaks of a whole life).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LOG_PREFIX "replay"
#include "common/array.h"
#include "common/digest.h"
#include "common/log.h"
#include "replay/engine_internal.h"
#include "replay/trace.h"

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
			engine_dispatch(e, &ev, LIVE_HANDLE(val), false, 0, &unused);
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
