/* SPDX-License-Identifier: MIT */
/* The replay engine: ids to handles, refusals, bad input, leftovers, results. */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>
#include <time.h>

#include "core/core.h"
#include "core/scenario.h"
#include "replay/replay.h"
#include "replay/machine.h"

struct rig {
	struct scenario scn;
	struct hw_backend be;
	struct core *core;
	struct results res;
	struct replay_engine *e;
	uint64_t index, ts;
	char err[256];
};

/* The default scenario, its driver of WDDM version @wddm. */
static void rig_up_wddm(struct rig *r, unsigned int wddm)
{
	const char *names[WL_NKINDS];

	memset(r, 0, sizeof(*r));
	for (int k = 0; k < WL_NKINDS; k++)
		names[k] = wl_catalogue[k].name;
	cr_assert_eq(scenario_defaults(&r->scn), 0);
	r->scn.adapters[0].wddm = wddm;
	r->scn.adapters[0].phys[0].fb_save_size = 1 << 20;
	cr_assert_eq(machine_open(&r->scn, "sim", &r->be, r->err, sizeof(r->err)), 0);
	cr_assert_eq(core_create(&r->scn, &r->be, &r->core), 0);
	cr_assert_eq(core_start(r->core), 0);
	cr_assert_eq(results_init(&r->res, names, WL_NKINDS), 0);
	cr_assert_eq(engine_create(r->core, &r->res, REPLAY_PACE_ASAP, &r->e), 0);
}

/* A WDDM 3.0 driver without linear remapping: it may call the WDDM 2.4 callbacks and PMOs. */
static void rig_up(struct rig *r)
{
	rig_up_wddm(r, SCN_WDDM(3, 0));
}

static void rig_down(struct rig *r)
{
	engine_destroy(r->e);
	core_destroy(r->core);
	hw_backend_close(&r->be);
	results_fini(&r->res);
	scenario_free(&r->scn);
}

/* Apply one event of @kind with fields given as slot/value pairs. */
static int ev(struct rig *r, enum wl_kind kind, uint64_t id, uint64_t bytes, uint64_t ref,
	      uint64_t arg)
{
	struct wl_event e = { .ts = (r->ts += 1000), .kind = kind };

	e.v[WL_ID] = id;
	e.v[WL_BYTES] = bytes;
	e.v[WL_REF] = ref;
	e.v[WL_ARG] = arg;
	return engine_apply(r->e, &e, r->index++);
}

Test(engine, a_valid_sequence_runs_clean)
{
	struct rig r;

	rig_up(&r);
	cr_assert_eq(ev(&r, WL_ALLOC_MDL, 1, 8192, 0, 0), 0);
	cr_assert_eq(ev(&r, WL_MAP_MDL, 2, 0, 1, 0), 0);
	cr_assert_eq(ev(&r, WL_DMA, 1, 4096, 0, 1), 0);
	cr_assert_eq(ev(&r, WL_PMO_CREATE, 3, 1 << 20, 0, 1), 0);
	cr_assert_eq(ev(&r, WL_ADL_ALLOC, 4, 1 << 16, 3, 0), 0);
	cr_assert_eq(ev(&r, WL_POWER, 0, 0, 0, 3), 0);
	cr_assert_eq(ev(&r, WL_POWER, 0, 0, 0, 0), 0);
	cr_assert_eq(ev(&r, WL_ADL_FREE, 4, 0, 0, 0), 0);
	cr_assert_eq(ev(&r, WL_PMO_DESTROY, 3, 0, 0, 0), 0);
	cr_assert_eq(ev(&r, WL_UNMAP_MDL, 2, 0, 0, 0), 0);
	cr_assert_eq(ev(&r, WL_FREE_MDL, 1, 0, 0, 0), 0);
	cr_assert_eq(engine_live(r.e), 0);
	engine_finish(r.e);
	cr_assert_eq(r.res.ops[WL_ALLOC_MDL].count, 1);
	cr_assert_eq(r.res.ops[WL_DMA].count, 1);
	cr_assert_gt(r.res.ops[WL_DMA].modeled.max, 0, "a DMA has modeled device time");
	cr_assert_eq(r.res.power.transitions, 2);
	cr_assert_eq(r.res.power.completed, 2);
	cr_assert_eq(r.res.nviolations, 0);
	for (size_t i = 0; i < r.res.ninvariants; i++)
		cr_assert(r.res.invariants[i].holds, "%s", r.res.invariants[i].name);
	rig_down(&r);
}

Test(engine, untimed_operations_are_counted_without_latencies)
{
	struct rig r;

	rig_up(&r);
	cr_assert_eq(ev(&r, WL_ALLOC_MDL, 1, 8192, 0, 0), 0);
	engine_set_timing(r.e, false);
	cr_assert_eq(ev(&r, WL_DMA, 1, 4096, 0, 1), 0);
	cr_assert_eq(ev(&r, WL_FREE_MDL, 1, 0, 0, 0), 0);
	engine_finish(r.e);
	cr_assert_eq(r.res.ops[WL_ALLOC_MDL].wall.total, 1, "timed before");
	cr_assert_eq(r.res.ops[WL_DMA].count, 1);
	cr_assert_eq(r.res.ops[WL_DMA].wall.total, 0);
	cr_assert_eq(r.res.ops[WL_DMA].modeled.total, 0);
	cr_assert_eq(r.res.ops[WL_FREE_MDL].count, 1);
	cr_assert_eq(r.res.ops[WL_FREE_MDL].wall.total, 0);
	rig_down(&r);
}

Test(engine, refused_events_are_recorded_with_index_and_time)
{
	const struct replay_refusal *f;
	uint64_t total;
	size_t n;
	struct rig r;

	rig_up(&r);
	/* more than the lockable limit: the model refuses, the replay goes on */
	cr_assert_eq(ev(&r, WL_ALLOC_CONTIGUOUS, 1, 64ull << 30, 0, 0), 1);
	cr_assert_eq(ev(&r, WL_DMA, 1, 64, 0, 1), 1, "using a refused object is refused too");
	cr_assert_eq(ev(&r, WL_FREE_CONTIGUOUS, 1, 0, 0, 0), 1);
	cr_assert_eq(ev(&r, WL_ALLOC_CONTIGUOUS, 1, 4096, 0, 0), 0, "the id is free again");
	cr_assert_eq(ev(&r, WL_FREE_CONTIGUOUS, 1, 0, 0, 0), 0);
	f = engine_refusals(r.e, &n, &total);
	cr_assert_eq(total, 3);
	cr_assert_eq(f[0].index, 0);
	cr_assert_eq(f[0].ts, 1000);
	cr_assert_eq(f[0].kind, WL_ALLOC_CONTIGUOUS);
	cr_assert_eq(f[0].rc, -ENOMEM);
	cr_assert_eq(r.res.ops[WL_ALLOC_CONTIGUOUS].errors, 1);
	rig_down(&r);
}

/* How many violations of @code the results hold. */
static size_t count_code(const struct results *res, const char *code)
{
	size_t n = 0;

	for (size_t i = 0; i < res->nviolations; i++)
		n += !strcmp(res->violations[i].code, code);
	return n;
}

/* An irql event sets the level callbacks are judged at; before WDDM 3.2 they go on. */
Test(engine, irql_events_set_the_level_of_later_callbacks)
{
	struct rig r;

	rig_up(&r);
	cr_assert_eq(ev(&r, WL_IRQL, 0, 0, 0, CORE_IRQL_DISPATCH), 0);
	cr_assert_eq(ev(&r, WL_ALLOC_MDL, 1, 4096, 0, 0), 0, "WDDM 2.9: recorded, and done");
	cr_assert_eq(ev(&r, WL_IRQL, 0, 0, 0, CORE_IRQL_PASSIVE), 0);
	cr_assert_eq(ev(&r, WL_FREE_MDL, 1, 0, 0, 0), 0);
	cr_assert_eq(ev(&r, WL_IRQL, 0, 0, 0, CORE_IRQL_HIGH + 1), -EINVAL);
	cr_assert(strstr(engine_error(r.e), "at most 15"), "%s", engine_error(r.e));
	engine_finish(r.e);
	cr_assert_eq(count_code(&r.res, "CB_IRQL"), 1);
	cr_assert_eq(r.res.violations[0].event, 1, "the callback's event, not the irql event's");
	cr_assert_eq(r.res.ops[WL_IRQL].count, 2);
	rig_down(&r);
}

/* WDDM 3.2 bugchecks: the run ends at that event; nothing after it happens. */
Test(engine, a_wddm32_bugcheck_ends_the_run)
{
	struct rig r;

	rig_up_wddm(&r, SCN_WDDM(3, 2));
	cr_assert_eq(ev(&r, WL_ALLOC_MDL, 1, 4096, 0, 0), 0);
	cr_assert_eq(ev(&r, WL_IRQL, 0, 0, 0, CORE_IRQL_DISPATCH), 0);
	cr_assert_eq(ev(&r, WL_DMA, 1, 64, 0, 1), 0, "DMA from a DPC is fine");
	cr_assert_eq(ev(&r, WL_ALLOC_MDL, 2, 4096, 0, 0), 1, "the bugcheck");
	cr_assert_not_null(core_bugcheck(r.core));
	cr_assert_eq(core_bugcheck(r.core)->event, 3);
	cr_assert_eq(ev(&r, WL_IRQL, 0, 0, 0, CORE_IRQL_PASSIVE), 0);
	cr_assert_eq(ev(&r, WL_FREE_MDL, 1, 0, 0, 0), 0);
	cr_assert_eq(ev(&r, WL_ALLOC_MDL, 3, 4096, 0, 0), 0);
	cr_assert_eq(engine_after_bugcheck(r.e), 3, "none of the three after it ran");
	cr_assert_eq(r.res.ops[WL_FREE_MDL].count, 0);
	engine_finish(r.e);
	cr_assert_eq(r.res.nviolations, 1, "the bugcheck, and no teardown findings after it");
	cr_assert_str_eq(r.res.violations[0].code, "CB_IRQL");
	cr_assert(strstr(r.res.violations[0].detail, "bugcheck"), "%s",
		  r.res.violations[0].detail);
	rig_down(&r);
}

/*
 * Dxgkrnl calls the KMD's power and stop DDIs at PASSIVE_LEVEL, and the
 * driver unloads there: a trace left at DISPATCH_LEVEL (a window ending in
 * a DPC) or a power event inside one judges none of their callbacks there.
 */
Test(engine, the_os_calls_the_kmd_at_passive_whatever_the_trace_level)
{
	struct rig r;

	rig_up_wddm(&r, SCN_WDDM(3, 2));
	engine_set_covers(r.e, COVERS_LIFE);
	cr_assert_eq(ev(&r, WL_ALLOC_MDL, 1, 4096, 0, 0), 0);
	cr_assert_eq(ev(&r, WL_IRQL, 0, 0, 0, CORE_IRQL_DISPATCH), 0);
	/* the reference KMD pins the save area and maps chunks: callbacks */
	cr_assert_eq(ev(&r, WL_POWER, 0, 0, 0, POWER_D3), 0);
	cr_assert_eq(ev(&r, WL_POWER, 0, 0, 0, POWER_D0), 0);
	cr_assert_null(core_bugcheck(r.core), "%s", core_bugcheck(r.core)->detail);
	/* the trace's level is still DISPATCH_LEVEL: the driver's next callback bugchecks */
	engine_finish(r.e);
	cr_assert_null(core_bugcheck(r.core), "teardown at PASSIVE_LEVEL");
	cr_assert_eq(r.res.power.completed, 2);
	cr_assert_eq(count_code(&r.res, "CB_IRQL"), 0);
	cr_assert_eq(count_code(&r.res, "HANDLE_LEAK"), 1, "the life's leak is still found");
	rig_down(&r);
}

/* An import can make two workload events of one trace event: not_run counts trace events. */
Test(engine, events_after_a_bugcheck_are_counted_by_trace_event)
{
	struct rig r;

	rig_up_wddm(&r, SCN_WDDM(3, 2));
	cr_assert_eq(ev(&r, WL_IRQL, 0, 0, 0, CORE_IRQL_DISPATCH), 0);
	cr_assert_eq(ev(&r, WL_ALLOC_MDL, 1, 4096, 0, 0), 1, "the bugcheck, at index 1");
	/* a second workload event of trace event 1, then two of trace event 2 */
	struct wl_event e = { .ts = 9000, .kind = WL_ALLOC_MDL, .v = { [WL_ID] = 2, [WL_BYTES] = 1 } };

	cr_assert_eq(engine_apply(r.e, &e, 1), 0);
	cr_assert_eq(engine_apply(r.e, &e, 2), 0);
	cr_assert_eq(engine_apply(r.e, &e, 2), 0);
	cr_assert_eq(engine_apply(r.e, &e, 3), 0);
	cr_assert_eq(engine_after_bugcheck(r.e), 2, "trace events 2 and 3");
	engine_finish(r.e);
	rig_down(&r);
}

/* A driver's own MDL reaches the device only through MapMdlToIoMmu, and must outlive it. */
Test(engine, driver_managed_mdls_are_mapped_and_must_outlive_their_mappings)
{
	struct rig r;

	rig_up(&r);
	cr_assert_eq(ev(&r, WL_DRIVER_MDL_CREATE, 1, 8192, 0, 0), 0);
	cr_assert_eq(ev(&r, WL_MAP_MDL, 2, 0, 1, 0), 0);
	cr_assert_eq(ev(&r, WL_DMA, 2, 4096, 0, 1), 0);
	cr_assert_eq(ev(&r, WL_UNMAP_MDL, 2, 0, 0, 0), 0);
	cr_assert_eq(ev(&r, WL_FREE_MDL, 1, 0, 0, 0), 1,
		     "FreePagesFromMdl is for the MDLs Dxgkrnl allocated");
	cr_assert_eq(ev(&r, WL_DRIVER_MDL_CREATE, 3, 4096, 0, 0), 0);
	cr_assert_eq(ev(&r, WL_MAP_MDL, 4, 0, 3, 0), 0);
	cr_assert_eq(ev(&r, WL_DRIVER_MDL_FREE, 3, 0, 0, 0), 0, "freed while still mapped");
	cr_assert_eq(ev(&r, WL_UNMAP_MDL, 4, 0, 0, 0), 0);
	engine_finish(r.e);
	cr_assert_eq(count_code(&r.res, "BAD_HANDLE"), 1);
	cr_assert_eq(count_code(&r.res, "UNMAP_AFTER_FREE"), 1);
	cr_assert_eq(r.res.ops[WL_DRIVER_MDL_CREATE].count, 2);
	rig_down(&r);
}

/* The trace format's values are mapped to the model's; one the format lacks is refused. */
Test(engine, values_the_trace_format_does_not_define_are_refused)
{
	const struct replay_refusal *f;
	uint64_t total;
	size_t n;
	struct rig r;
	struct wl_event e = { .ts = 100, .kind = WL_ALLOC_CREATE,
			      .v = { [WL_ID] = 1, [WL_BYTES] = 65536, [WL_ARG] = WL_SEG_VRAM } };

	rig_up(&r);
	cr_assert_eq(engine_apply(r.e, &e, r.index++), 0);
	cr_assert_eq(ev(&r, WL_TRANSFER, 1, 0, 0, WL_DIR_TO_VRAM), 0);
	cr_assert_eq(ev(&r, WL_TRANSFER, 1, 0, 0, 2), 1, "a direction that is neither");
	cr_assert_eq(ev(&r, WL_POWER, 0, 0, 0, 1), 1, "D1");
	e.v[WL_ID] = 2;
	e.v[WL_ARG] = 3;
	cr_assert_eq(engine_apply(r.e, &e, r.index++), 1, "a fourth segment");
	f = engine_refusals(r.e, &n, &total);
	cr_assert_eq(total, 3);
	for (size_t i = 0; i < n; i++)
		cr_assert_eq(f[i].rc, -EINVAL, "%zu: %d", i, f[i].rc);
	rig_down(&r);
}

/* A caching type DXGK_MEMORY_CACHING_TYPE does not define is refused, not stored. */
Test(engine, an_undefined_caching_type_is_refused)
{
	const struct replay_refusal *f;
	uint64_t total;
	size_t n;
	struct rig r;

	rig_up(&r);
	cr_assert_eq(ev(&r, WL_ALLOC_CONTIGUOUS, 1, 4096, 0, 7), 1);
	cr_assert_eq(ev(&r, WL_PMO_CREATE, 2, 4096, 0, 9), 1);
	cr_assert_eq(ev(&r, WL_ALLOC_CONTIGUOUS, 3, 4096, 0, 2), 0, "write-combined is defined");
	cr_assert_eq(ev(&r, WL_FREE_CONTIGUOUS, 3, 0, 0, 0), 0);
	f = engine_refusals(r.e, &n, &total);
	cr_assert_eq(total, 2);
	cr_assert_eq(f[0].rc, -EINVAL);
	cr_assert_eq(f[1].kind, WL_PMO_CREATE);
	cr_assert_eq(f[1].rc, -EINVAL);
	rig_down(&r);
}

Test(engine, freeing_twice_is_bad_input_that_names_the_event)
{
	struct rig r;

	rig_up(&r);
	cr_assert_eq(ev(&r, WL_ALLOC_MDL, 5, 4096, 0, 0), 0);
	cr_assert_eq(ev(&r, WL_FREE_MDL, 5, 0, 0, 0), 0);
	cr_assert_eq(ev(&r, WL_FREE_MDL, 5, 0, 0, 0), -EINVAL);
	cr_assert(strstr(engine_error(r.e), "event 2 at 3000 ns"), "%s", engine_error(r.e));
	cr_assert(strstr(engine_error(r.e), "freed twice"), "%s", engine_error(r.e));
	cr_assert_eq(ev(&r, WL_ALLOC_MDL, 6, 4096, 0, 0), 0);
	cr_assert_eq(ev(&r, WL_ALLOC_MDL, 6, 4096, 0, 0), -EINVAL, "created twice");
	cr_assert_eq(ev(&r, WL_MAP_MDL, 7, 0, 99, 0), -EINVAL, "refers to nothing");
	struct wl_event bad = { .kind = WL_NKINDS };

	cr_assert_eq(engine_apply(r.e, &bad, 9), -EINVAL);

	/* numbers the model would otherwise cut short (adapter 256 is not adapter 0) */
	struct wl_event far = { .kind = WL_ALLOC_MDL };

	far.v[WL_BYTES] = 4096;
	far.v[WL_ID] = 8;
	far.v[WL_ADAPTER] = 256;
	cr_assert_eq(engine_apply(r.e, &far, 10), -EINVAL);
	cr_assert(strstr(engine_error(r.e), "adapter of that number"), "%s", engine_error(r.e));
	far.v[WL_ADAPTER] = 0;
	far.v[WL_PHYS] = 1ull << 32;
	cr_assert_eq(engine_apply(r.e, &far, 11), -EINVAL);
	far.v[WL_PHYS] = 0;
	far.v[WL_ID] = 1ull << 56;
	cr_assert_eq(engine_apply(r.e, &far, 12), -EINVAL);
	cr_assert(strstr(engine_error(r.e), "below 2^56"), "%s", engine_error(r.e));
	rig_down(&r);
}

/*
 * A free the model refused ended nothing: the driver still holds the
 * object, and the trace may free it again later (here a PMO destroyed
 * while an ADL of it was outstanding, PMO_BUSY, then freed in order).
 */
Test(engine, a_refused_free_keeps_the_id_live)
{
	struct rig r;

	rig_up_wddm(&r, SCN_WDDM(3, 0));
	cr_assert_eq(ev(&r, WL_PMO_CREATE, 1, 1 << 16, 0, 0), 0);
	cr_assert_eq(ev(&r, WL_ADL_ALLOC, 2, 4096, 1, 0), 0);
	cr_assert_eq(ev(&r, WL_PMO_DESTROY, 1, 0, 0, 0), 1, "PMO_BUSY: refused");
	cr_assert_eq(engine_live(r.e), 2, "the PMO is still live");
	cr_assert_eq(ev(&r, WL_ADL_FREE, 2, 0, 0, 0), 0);
	cr_assert_eq(ev(&r, WL_PMO_DESTROY, 1, 0, 0, 0), 0, "%s", engine_error(r.e));
	cr_assert_eq(engine_live(r.e), 0);
	engine_finish(r.e);
	cr_assert_eq(core_live_handles(r.core), 0);
	cr_assert_eq(count_code(&r.res, "PMO_BUSY"), 1);
	cr_assert_eq(count_code(&r.res, "HANDLE_LEAK"), 0, "freed at last: no leak");
	rig_down(&r);
}

Test(engine, objects_left_live_are_released_without_leaks)
{
	struct rig r;

	rig_up(&r);
	cr_assert_eq(ev(&r, WL_PMO_CREATE, 1, 1 << 16, 0, 0), 0);
	cr_assert_eq(ev(&r, WL_ADL_ALLOC, 2, 4096, 1, 0), 0);
	cr_assert_eq(ev(&r, WL_ALLOC_MDL, 3, 4096, 0, 0), 0);
	cr_assert_eq(ev(&r, WL_MAP_MDL, 4, 0, 3, 0), 0);
	cr_assert_eq(ev(&r, WL_FENCE_CREATE, 5, 0, 0, 0), 0);
	cr_assert_eq(engine_live(r.e), 5);
	engine_finish(r.e);
	cr_assert_eq(r.res.nviolations, 0, "%s", r.res.nviolations ? r.res.violations[0].detail : "");
	cr_assert_eq(core_live_handles(r.core), 0);
	rig_down(&r);
}

static bool holds(const struct results *res, const char *name)
{
	for (size_t i = 0; i < res->ninvariants; i++)
		if (!strcmp(res->invariants[i].name, name))
			return res->invariants[i].holds;
	cr_assert_fail("no invariant %s", name);
	return false;
}

/* The HANDLE_LEAK that names trace id @id, or NULL. */
static const struct violation_result *leak_of(const struct results *res, uint64_t id)
{
	char name[32];

	snprintf(name, sizeof(name), "id %llu ", (unsigned long long)id);
	for (size_t i = 0; i < res->nviolations; i++)
		if (!strcmp(res->violations[i].code, "HANDLE_LEAK") &&
		    !strncmp(res->violations[i].detail, name, strlen(name)))
			return &res->violations[i];
	return NULL;
}

/*
 * A trace of the adapters' whole life: what it left live leaked. Each leak
 * is the model's teardown's HANDLE_LEAK, at the event that created the
 * object (an id created again: its last creation), naming the trace id.
 */
Test(engine, objects_left_live_by_a_whole_life_are_leaks_at_their_creation)
{
	static const struct { uint64_t id, event; const char *kind; } leaked[] = {
		{ 1, 0, "pmo_create" }, { 2, 1, "adl_alloc" }, { 3, 2, "alloc_mdl" },
		{ 4, 3, "map_mdl" },    { 5, 4, "fence_create" }, { 7, 9, "alloc_mdl" },
	};
	struct rig r;

	rig_up(&r);
	engine_set_covers(r.e, COVERS_LIFE);
	cr_assert_eq(ev(&r, WL_PMO_CREATE, 1, 1 << 16, 0, 0), 0);
	cr_assert_eq(ev(&r, WL_ADL_ALLOC, 2, 4096, 1, 0), 0);
	cr_assert_eq(ev(&r, WL_ALLOC_MDL, 3, 4096, 0, 0), 0);
	cr_assert_eq(ev(&r, WL_MAP_MDL, 4, 0, 3, 0), 0);
	cr_assert_eq(ev(&r, WL_FENCE_CREATE, 5, 0, 0, 0), 0);
	cr_assert_eq(ev(&r, WL_ALLOC_MDL, 6, 4096, 0, 0), 0);
	cr_assert_eq(ev(&r, WL_FREE_MDL, 6, 0, 0, 0), 0);
	cr_assert_eq(ev(&r, WL_ALLOC_MDL, 7, 4096, 0, 0), 0);
	cr_assert_eq(ev(&r, WL_FREE_MDL, 7, 0, 0, 0), 0);
	cr_assert_eq(ev(&r, WL_ALLOC_MDL, 7, 8192, 0, 0), 0);
	cr_assert_eq(engine_live(r.e), 6);
	engine_finish(r.e);
	for (size_t i = 0; i < sizeof(leaked) / sizeof(leaked[0]); i++) {
		const struct violation_result *v = leak_of(&r.res, leaked[i].id);
		char ts[64];

		cr_assert_not_null(v, "id %llu not reported leaked", (unsigned long long)leaked[i].id);
		cr_assert_eq(v->event, leaked[i].event, "%s", v->detail);
		snprintf(ts, sizeof(ts), "created by %s at %llu ns: ", leaked[i].kind,
			 (unsigned long long)(leaked[i].event + 1) * 1000);
		cr_assert(strstr(v->detail, ts) && strstr(v->detail, "was never freed"), "%s",
			  v->detail);
	}
	cr_assert_null(leak_of(&r.res, 6), "id 6 was freed");
	cr_assert_eq(r.res.nviolations, 6, "one finding a leaked object, no more");
	cr_assert_not(holds(&r.res, "no_leaks"));
	cr_assert(replay_findings(&r.res));
	/* the model tore the adapter down cleanly: nothing of it is left */
	cr_assert_eq(core_live_handles(r.core), 0);
	cr_assert(holds(&r.res, "baseline_restored"));
	rig_down(&r);
}

/*
 * A window's objects are released quietly, except those whose free the
 * trace shows was attempted and refused and not tried again: the driver
 * let go of them, so each is a HANDLE_LEAK at its refused free.
 */
Test(engine, a_window_reports_objects_whose_free_was_refused)
{
	struct rig r;

	rig_up(&r);
	cr_assert_eq(ev(&r, WL_PMO_CREATE, 1, 1 << 16, 0, 0), 0);
	cr_assert_eq(ev(&r, WL_ADL_ALLOC, 2, 4096, 1, 0), 0);
	cr_assert_eq(ev(&r, WL_PMO_DESTROY, 1, 0, 0, 0), 1, "PMO_BUSY: refused");
	cr_assert_eq(ev(&r, WL_ADL_FREE, 2, 0, 0, 0), 0);
	cr_assert_eq(ev(&r, WL_ALLOC_MDL, 3, 4096, 0, 0), 0, "left live: released quietly");
	cr_assert_eq(ev(&r, WL_FENCE_CREATE, 4, 0, 0, 0), 0);
	cr_assert_eq(ev(&r, WL_FREE_MDL, 4, 0, 0, 0), 1, "BAD_HANDLE: a fence is no MDL");
	cr_assert_eq(ev(&r, WL_FENCE_DESTROY, 4, 0, 0, 0), 0, "freed at last: no leak");
	engine_finish(r.e);
	cr_assert_eq(count_code(&r.res, "HANDLE_LEAK"), 1);
	const struct violation_result *v = leak_of(&r.res, 1);

	cr_assert_not_null(v);
	cr_assert_eq(v->event, 2, "at the refused free");
	cr_assert(strstr(v->detail, "its pmo_destroy was refused (STATUS_DEVICE_BUSY)"), "%s",
		  v->detail);
	cr_assert_not(holds(&r.res, "no_leaks"));
	cr_assert(holds(&r.res, "baseline_restored"), "the replay released it");
	cr_assert_eq(core_live_handles(r.core), 0);
	rig_down(&r);
}

Test(engine, a_whole_life_that_frees_everything_has_no_leaks)
{
	struct rig r;

	rig_up(&r);
	engine_set_covers(r.e, COVERS_LIFE);
	cr_assert_eq(ev(&r, WL_ALLOC_MDL, 1, 4096, 0, 0), 0);
	cr_assert_eq(ev(&r, WL_MAP_MDL, 2, 0, 1, 0), 0);
	cr_assert_eq(ev(&r, WL_UNMAP_MDL, 2, 0, 0, 0), 0);
	cr_assert_eq(ev(&r, WL_FREE_MDL, 1, 0, 0, 0), 0);
	cr_assert_eq(engine_live(r.e), 0);
	engine_finish(r.e);
	cr_assert_eq(r.res.nviolations, 0, "%s", r.res.nviolations ? r.res.violations[0].detail : "");
	cr_assert_not(replay_findings(&r.res));
	rig_down(&r);
}

Test(engine, violations_reach_the_results_and_break_invariants)
{
	struct rig r;
	bool found = false;

	rig_up(&r);
	cr_assert_eq(ev(&r, WL_ALLOC_MDL, 1, 4096, 0, 0), 0);
	cr_assert_eq(ev(&r, WL_MAP_MDL, 2, 0, 1, 0), 0);
	cr_assert_eq(ev(&r, WL_FREE_MDL, 1, 0, 0, 0), 0);
	cr_assert_eq(ev(&r, WL_UNMAP_MDL, 2, 0, 0, 0), 0);
	engine_finish(r.e);
	cr_assert(replay_findings(&r.res));
	for (size_t i = 0; i < r.res.nviolations; i++)
		found |= !strcmp(r.res.violations[i].code, "UNMAP_AFTER_FREE") &&
			 r.res.violations[i].event == 3;
	cr_assert(found, "UNMAP_AFTER_FREE at event 3 not reported");
	rig_down(&r);
}

/*
 * One slow allocation at t=1 ms, then ten DMAs meant for 1..10 us later.
 * Memory is fragmented to single pages first, so the allocation's 64 MiB
 * come as 16384 runs, each taken and mapped on its own: milliseconds.
 */
static void slow_then_fast(struct rig *r)
{
	const struct physmem_pressure fragmented = {
		.commit_available = UINT64_MAX, .lockable_available = UINT64_MAX,
		.max_contiguous = GPUISO_PAGE_SIZE,
	};
	struct wl_event e = { .kind = WL_ALLOC_MDL, .ts = 1000000 };

	cr_assert_eq(ev(r, WL_ALLOC_MDL, 1, 4096, 0, 0), 0);
	core_memory(r->core, &fragmented);
	e.v[WL_ID] = 2;
	e.v[WL_BYTES] = 64ull << 20;
	cr_assert_eq(engine_apply(r->e, &e, r->index++), 0);
	for (int i = 1; i <= 10; i++) {
		struct wl_event d = { .kind = WL_DMA, .ts = 1000000 + (uint64_t)i * 1000 };

		d.v[WL_ID] = 1;
		d.v[WL_BYTES] = 64;
		cr_assert_eq(engine_apply(r->e, &d, r->index++), 0);
	}
}

/* The DMAs' p50 latency and the slow allocation's, replayed with @pace. */
static void paced(enum replay_pace pace, uint64_t *dma_p50, uint64_t *slow)
{
	static const double p50 = 50;
	struct rig r;

	rig_up(&r);
	engine_destroy(r.e);
	cr_assert_eq(engine_create(r.core, &r.res, pace, &r.e), 0);
	slow_then_fast(&r);
	*slow = r.res.ops[WL_ALLOC_MDL].wall.max;
	hist_percentiles(&r.res.ops[WL_DMA].wall, &p50, 1, dma_p50);
	rig_down(&r);
}

Test(engine, trace_pacing_charges_queueing_to_the_operations_that_waited)
{
	uint64_t slow, dma_paced, dma_asap;

	/*
	 * Open loop: each DMA's latency runs from when it was meant to start, so
	 * the time spent queued behind the slow allocation is in it (no
	 * coordinated omission). Its own service time is microseconds.
	 */
	paced(REPLAY_PACE_TRACE, &dma_paced, &slow);
	cr_assert_gt(slow, 100000, "the big allocation took %llu ns: it should take far longer "
		     "than the 10 us over which the DMAs were meant to start", (unsigned long long)slow);
	cr_assert_geq(dma_paced, slow / 2, "DMA p50 %llu ns vs allocation %llu ns",
		      (unsigned long long)dma_paced, (unsigned long long)slow);
	/* as fast as possible, no queueing is charged */
	paced(REPLAY_PACE_ASAP, &dma_asap, &slow);
	cr_assert_lt(dma_asap, slow / 10, "asap DMA p50 %llu ns vs allocation %llu ns",
		     (unsigned long long)dma_asap, (unsigned long long)slow);
}

Test(engine, trace_pacing_waits_for_each_event_time)
{
	struct rig r;
	struct timespec a, b;

	rig_up(&r);
	engine_destroy(r.e);
	cr_assert_eq(engine_create(r.core, &r.res, REPLAY_PACE_TRACE, &r.e), 0);
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (int i = 0; i < 5; i++) {
		struct wl_event e = { .kind = WL_FENCE_CREATE, .ts = (uint64_t)i * 20000000 };

		e.v[WL_ID] = (uint64_t)i + 1;
		cr_assert_eq(engine_apply(r.e, &e, (uint64_t)i), 0);
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	/* 4 gaps of 20 ms: at least 80 ms of wall time */
	cr_assert_geq((b.tv_sec - a.tv_sec) * 1000000000ll + (b.tv_nsec - a.tv_nsec), 80000000ll);
	rig_down(&r);
}

/* --- the seed's rules a trace reaches: save callbacks, CPU access, IO space, disable --- */

#define EVT(k, ...) ((struct wl_event){ .kind = (k), .v = { __VA_ARGS__ } })

/* Apply @e as the rig's next event; its time and index are the rig's. */
static int apply(struct rig *r, struct wl_event e)
{
	e.ts = (r->ts += 1000);
	return engine_apply(r->e, &e, r->index++);
}

/* The detail of the last violation of @code (fails when there is none). */
static const char *last_of(struct core *core, enum core_violation_code code)
{
	size_t n;
	const struct core_violation *v = core_violations(core, &n);

	while (n--)
		if (v[n].code == code)
			return v[n].detail;
	cr_assert_fail("no %s", core_violation_name(code));
	return NULL;
}

/*
 * "The driver must always provide the hAdapter for the master/lead device
 * in an LDA chain when it calls these four callback functions": from a
 * trace, a pin or a chunk mapping with another physical adapter's hAdapter
 * is FB_NOT_LEAD and refused; with the lead's, the pin is the section
 * locked and mapped for the GPU, the chunk a CPU mapping of part of it.
 */
Test(engine, the_four_save_callbacks_take_the_leads_hadapter)
{
	struct rig r;

	rig_up(&r);
	/* the default chain is the lead alone: phys 1 is no adapter of it */
	cr_assert_eq(apply(&r, EVT(WL_FB_PIN, [WL_ID] = 1, [WL_ARG] = 1)), 1, "phys 1's hAdapter");
	cr_assert_eq(count_code(&r.res, "FB_NOT_LEAD"), 0, "(results are filled at the end)");
	cr_assert(strstr(last_of(r.core, CORE_V_FB_NOT_LEAD), "DxgkCbPinFrameBufferForSave"));
	cr_assert_eq(apply(&r, EVT(WL_FB_PIN, [WL_ID] = 2, [WL_ARG] = 0)), 0, "the lead's");
	cr_assert_eq(apply(&r, EVT(WL_DMA, [WL_ID] = 2, [WL_BYTES] = 4096, [WL_ARG] = 1)), 0,
		     "the pinned section is mapped for the GPU");
	cr_assert_eq(apply(&r, EVT(WL_FB_PIN, [WL_ID] = 3)), 1, "pinned already");
	cr_assert(strstr(last_of(r.core, CORE_V_FB_SEQUENCE), "pinned already"));
	cr_assert_eq(apply(&r, EVT(WL_FB_UNPIN, [WL_ID] = 2)), 0);
	cr_assert_eq(apply(&r, EVT(WL_FB_MAP, [WL_ID] = 4, [WL_ARG] = 7, [WL_OFFSET] = 4096,
				   [WL_BYTES] = 4096)), 1);
	cr_assert(strstr(last_of(r.core, CORE_V_FB_NOT_LEAD), "DxgkCbMapFrameBufferPointer"));
	cr_assert_eq(apply(&r, EVT(WL_FB_MAP, [WL_ID] = 5, [WL_ARG] = 1ull << 32,
				   [WL_BYTES] = 4096)), 1, "hAdapter 2^32 is not the lead's 0");
	cr_assert(strstr(last_of(r.core, CORE_V_FB_NOT_LEAD), "no physical adapter of its chain"));
	cr_assert_eq(apply(&r, EVT(WL_FB_MAP, [WL_ID] = 6, [WL_OFFSET] = 4096, [WL_BYTES] = 4096)),
		     0);
	cr_assert_eq(apply(&r, EVT(WL_CPU_ACCESS, [WL_ID] = 6, [WL_BYTES] = 4096, [WL_ARG] = 1)), 0,
		     "a chunk is a CPU pointer");
	cr_assert_eq(apply(&r, EVT(WL_FB_UNMAP, [WL_ID] = 6)), 0);
	cr_assert_eq(apply(&r, EVT(WL_FB_UNPIN, [WL_ID] = 3)), 1, "its pin was refused");
	engine_finish(r.e);
	cr_assert_eq(count_code(&r.res, "FB_NOT_LEAD"), 3);
	cr_assert_eq(count_code(&r.res, "FB_SEQUENCE"), 1);
	cr_assert_eq(r.res.nviolations, 4, "nothing leaked");
	cr_assert_eq(r.res.ops[WL_FB_PIN].count, 3);
	cr_assert_eq(r.res.ops[WL_FB_PIN].errors, 2);
	rig_down(&r);
}

/*
 * "The addresses described by an ADL can't be mapped to a virtual address
 * for direct CPU access", and a CpuVisibleAddress "is valid as long as the
 * allocation is mapped into the aperture segment. That is, this address
 * will be freed immediately after the corresponding
 * DXGK_OPERATION_UNMAP_APERTURE_SEGMENT call for the same allocation."
 */
Test(engine, cpu_access_goes_only_through_a_cpu_address_while_it_lives)
{
	const char *why;
	struct rig r;

	rig_up_wddm(&r, SCN_WDDM(3, 0));
	cr_assert_eq(apply(&r, EVT(WL_PMO_CREATE, [WL_ID] = 1, [WL_BYTES] = 16384,
				   [WL_ARG] = WL_CACHE_CACHED)), 0);
	cr_assert_eq(apply(&r, EVT(WL_ADL_ALLOC, [WL_ID] = 2, [WL_REF] = 1, [WL_BYTES] = 8192)), 0);
	cr_assert_eq(apply(&r, EVT(WL_CPU_ACCESS, [WL_ID] = 2, [WL_BYTES] = 16)), 1, "an ADL");
	cr_assert(strstr(last_of(r.core, CORE_V_CPU_ACCESS), "ADL"));
	cr_assert_eq(apply(&r, EVT(WL_CPU_ACCESS, [WL_ID] = 1, [WL_BYTES] = 16)), 1, "a PMO");
	cr_assert_eq(apply(&r, EVT(WL_PMO_MAP_CPU, [WL_ID] = 3, [WL_REF] = 1, [WL_OFFSET] = 100,
				   [WL_BYTES] = 5000, [WL_ARG] = WL_ACCESS_KERNEL)), 0);
	cr_assert_eq(apply(&r, EVT(WL_CPU_ACCESS, [WL_ID] = 3, [WL_BYTES] = 8192, [WL_ARG] = 1)), 0,
		     "its CPU view: the two pages around [100, 5100)");
	cr_assert_eq(apply(&r, EVT(WL_CPU_ACCESS, [WL_ID] = 3, [WL_OFFSET] = 8192, [WL_BYTES] = 1)),
		     1, "past the view: refused, no violation");

	/* an aperture allocation with MapApertureCpuVisible: while mapped, and only then */
	cr_assert_eq(apply(&r, EVT(WL_ALLOC_CREATE, [WL_ID] = 4, [WL_BYTES] = 65536,
				   [WL_ARG] = WL_SEG_APERTURE,
				   [WL_FLAGS] = WL_ALLOC_ACCESSED_PHYSICALLY |
						WL_ALLOC_MAP_APERTURE_CPU_VISIBLE)), 0);
	cr_assert_eq(apply(&r, EVT(WL_CPU_ACCESS, [WL_ID] = 4, [WL_BYTES] = 64)), 1, "not mapped yet");
	cr_assert(strstr(last_of(r.core, CORE_V_CPU_ACCESS), "has no CPU address"));
	cr_assert_eq(apply(&r, EVT(WL_MAP_APERTURE, [WL_ID] = 4, [WL_OFFSET] = 2, [WL_BYTES] = 4)),
		     0);
	cr_assert_eq(apply(&r, EVT(WL_CPU_ACCESS, [WL_ID] = 4, [WL_OFFSET] = 4 * 4096 - 64,
				   [WL_BYTES] = 64, [WL_ARG] = 1)), 0, "the 4 pages mapped");
	cr_assert_eq(apply(&r, EVT(WL_CPU_ACCESS, [WL_ID] = 4, [WL_OFFSET] = 4 * 4096,
				   [WL_BYTES] = 64)), 1, "beyond the mapped pages");
	cr_assert_eq(apply(&r, EVT(WL_UNMAP_APERTURE, [WL_ID] = 4)), 0); /* event 12 */
	cr_assert_eq(apply(&r, EVT(WL_CPU_ACCESS, [WL_ID] = 4, [WL_BYTES] = 64)), 1, "after the unmap");
	why = last_of(r.core, CORE_V_CPU_ACCESS);
	cr_assert(strstr(why, "after UNMAP_APERTURE_SEGMENT freed its CpuVisibleAddress (event 12)"),
		  "%s", why);
	/* without MapApertureCpuVisible the address is NULL */
	cr_assert_eq(apply(&r, EVT(WL_ALLOC_CREATE, [WL_ID] = 5, [WL_BYTES] = 8192,
				   [WL_ARG] = WL_SEG_APERTURE,
				   [WL_FLAGS] = WL_ALLOC_ACCESSED_PHYSICALLY)), 0);
	cr_assert_eq(apply(&r, EVT(WL_MAP_APERTURE, [WL_ID] = 5, [WL_BYTES] = 2)), 0);
	cr_assert_eq(apply(&r, EVT(WL_CPU_ACCESS, [WL_ID] = 5, [WL_BYTES] = 8)), 1);
	cr_assert(strstr(last_of(r.core, CORE_V_CPU_ACCESS), "NULL"));
	/* what Dxgkrnl's callbacks give the CPU */
	cr_assert_eq(apply(&r, EVT(WL_ALLOC_MDL, [WL_ID] = 6, [WL_BYTES] = 4096)), 0);
	cr_assert_eq(apply(&r, EVT(WL_CPU_ACCESS, [WL_ID] = 6, [WL_BYTES] = 4096, [WL_ARG] = 1)), 0);
	cr_assert_eq(apply(&r, EVT(WL_MAP_MDL, [WL_ID] = 7, [WL_REF] = 6)), 0);
	cr_assert_eq(apply(&r, EVT(WL_CPU_ACCESS, [WL_ID] = 7, [WL_BYTES] = 8)), 1,
		     "an MDL's IOMMU mapping is the device's address");
	engine_finish(r.e);
	cr_assert_eq(count_code(&r.res, "CPU_ACCESS"), 6);
	cr_assert_eq(r.res.nviolations, 6);
	cr_assert_eq(r.res.ops[WL_CPU_ACCESS].count, 11);
	cr_assert_eq(r.res.ops[WL_CPU_ACCESS].errors, 8);
	rig_down(&r);
}

/*
 * "The ability to express IO space ranges is also required", and "the
 * ability to map CPU virtual addresses from the physical memory in both
 * user mode and kernel mode, with a specified cache type (Cached vs
 * WriteCombined)": a PMO over IO space takes no RAM, a range of RAM is not
 * IO space, and a CPU view has the PMO's caching type and the mode asked.
 */
Test(engine, io_space_pmos_and_cpu_views_with_a_cache_type)
{
	struct physmem_usage before;
	struct core_view_info vi;
	struct rig r;

	rig_up_wddm(&r, SCN_WDDM(3, 0));
	before = core_physmem(r.core)->usage;
	/* in the default scenario's hole below 4 GiB, beside its reserved range at 3 GiB */
	cr_assert_eq(apply(&r, EVT(WL_PMO_CREATE_IO, [WL_ID] = 1, [WL_OFFSET] = 0xd0000000,
				   [WL_BYTES] = 65536, [WL_ARG] = WL_CACHE_WRITECOMBINED)), 0);
	cr_assert_eq(core_physmem(r.core)->usage.committed, before.committed, "no commit charge");
	cr_assert_eq(core_physmem(r.core)->usage.allocated, before.allocated, "no frames");
	cr_assert_eq(apply(&r, EVT(WL_PMO_CREATE_IO, [WL_ID] = 2, [WL_OFFSET] = 0x100000000,
				   [WL_BYTES] = 65536, [WL_ARG] = WL_CACHE_CACHED)), 1,
		     "installed memory is not IO space");
	/* (an id whose creation was refused stays taken: each try has its own) */
	cr_assert_eq(apply(&r, EVT(WL_PMO_CREATE_IO, [WL_ID] = 8, [WL_OFFSET] = 0xd0000800,
				   [WL_BYTES] = 4096, [WL_ARG] = WL_CACHE_CACHED)), 1, "unaligned");
	cr_assert_eq(apply(&r, EVT(WL_PMO_CREATE_IO, [WL_ID] = 9, [WL_OFFSET] = 0xd0000000,
				   [WL_BYTES] = 4096, [WL_ARG] = 3)), 1, "no such caching type");
	/* the GPU reaches it through an ADL, the CPU through a view */
	cr_assert_eq(apply(&r, EVT(WL_ADL_ALLOC, [WL_ID] = 3, [WL_REF] = 1, [WL_BYTES] = 8192)), 0);
	cr_assert_eq(apply(&r, EVT(WL_DMA, [WL_ID] = 3, [WL_BYTES] = 8192, [WL_ARG] = 1)), 0);
	cr_assert_eq(apply(&r, EVT(WL_PMO_MAP_CPU, [WL_ID] = 4, [WL_REF] = 1, [WL_OFFSET] = 4096,
				   [WL_BYTES] = 4096, [WL_ARG] = WL_ACCESS_USER)), 0);
	cr_assert_eq(core_view_info(r.core, engine_handle(r.e, 0, 4), &vi), 0);
	cr_assert_eq(vi.cache, CACHE_WRITECOMBINED, "the PMO's caching type");
	cr_assert_eq(vi.mode, CPU_USER);
	cr_assert(vi.io_space);
	cr_assert_eq(apply(&r, EVT(WL_CPU_ACCESS, [WL_ID] = 4, [WL_BYTES] = 4096, [WL_ARG] = 1)), 0);
	cr_assert_eq(apply(&r, EVT(WL_PMO_MAP_CPU, [WL_ID] = 5, [WL_REF] = 1, [WL_BYTES] = 4096,
				   [WL_ARG] = 2)), 1, "neither kernel nor user mode");
	/* a RAM PMO's view has its own type */
	cr_assert_eq(apply(&r, EVT(WL_PMO_CREATE, [WL_ID] = 6, [WL_BYTES] = 4096,
				   [WL_ARG] = WL_CACHE_NONCACHED)), 0);
	cr_assert_eq(apply(&r, EVT(WL_PMO_MAP_CPU, [WL_ID] = 7, [WL_REF] = 6, [WL_BYTES] = 4096,
				   [WL_ARG] = WL_ACCESS_KERNEL)), 0);
	cr_assert_eq(core_view_info(r.core, engine_handle(r.e, 0, 7), &vi), 0);
	cr_assert_eq(vi.cache, CACHE_NONCACHED);
	cr_assert_eq(vi.mode, CPU_KERNEL);
	cr_assert_not(vi.io_space);
	cr_assert_eq(apply(&r, EVT(WL_PMO_UNMAP_CPU, [WL_ID] = 7)), 0);
	engine_finish(r.e);
	cr_assert_eq(r.res.nviolations, 0, "what was left live is released, views before PMOs");
	cr_assert_eq(r.res.ops[WL_PMO_CREATE_IO].errors, 3);
	for (size_t i = 0; i < r.res.ninvariants; i++)
		cr_assert(r.res.invariants[i].holds, "%s", r.res.invariants[i].name);
	rig_down(&r);
}

/* "There's currently no way to disable the IOMMU after it has been enabled." */
Test(engine, an_attempt_to_disable_the_iommu_is_refused_and_changes_nothing)
{
	const struct replay_refusal *f;
	struct core_adapter_info info;
	uint64_t total;
	size_t n;
	struct rig r;

	rig_up(&r);
	cr_assert_eq(apply(&r, EVT(WL_ALLOC_MDL, [WL_ID] = 1, [WL_BYTES] = 4096)), 0);
	cr_assert_eq(apply(&r, EVT(WL_IOMMU_DISABLE)), 1);
	f = engine_refusals(r.e, &n, &total);
	cr_assert_eq(total, 1);
	cr_assert_eq(f[0].kind, WL_IOMMU_DISABLE);
	cr_assert_eq(f[0].rc, -EPERM);
	cr_assert_str_eq(f[0].why, "STATUS_ACCESS_DENIED");
	cr_assert_eq(core_adapter_info(r.core, 0, &info), 0);
	cr_assert(info.iommu_enabled && info.mappings && info.attached);
	cr_assert_eq(apply(&r, EVT(WL_IOMMU_DISABLE, [WL_ADAPTER] = 0)), 1, "again, the same");
	cr_assert_eq(apply(&r, EVT(WL_DMA, [WL_ID] = 1, [WL_BYTES] = 4096)), 0, "still translated");
	cr_assert_eq(apply(&r, EVT(WL_FREE_MDL, [WL_ID] = 1)), 0);
	engine_finish(r.e);
	cr_assert_eq(r.res.ops[WL_IOMMU_DISABLE].errors, 2);
	cr_assert_eq(r.res.nviolations, 0, "an attempt breaks no rule of the driver's");
	rig_down(&r);

	/* never enabled: nothing to disable, refused as well */
	memset(&r, 0, sizeof(r));
	cr_assert_eq(scenario_defaults(&r.scn), 0);
	r.scn.registry.iommu_flags = 0;
	cr_assert_eq(machine_open(&r.scn, "sim", &r.be, r.err, sizeof(r.err)), 0);
	cr_assert_eq(core_create(&r.scn, &r.be, &r.core), 0);
	cr_assert_eq(core_start(r.core), 0);
	cr_assert_eq(core_iommu_disable(r.core, 0), -EINVAL);
	core_destroy(r.core);
	hw_backend_close(&r.be);
	scenario_free(&r.scn);
}
