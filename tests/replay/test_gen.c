/* SPDX-License-Identifier: MIT */
/*
 * Workload generators: determinism, exact counts, field ranges, and validity
 * proven by driving the real model of each profile's target scenario with
 * every event (every call must succeed, nothing may be left or violated).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "core/scenario.h"
#include "replay/gen.h"
#include "replay/machine.h"

/* What each profile targets (gen_describe() must name the same file). */
static const struct {
	const char *profile;
	const char *scenario;
	uint64_t events;   /* for the model run: a few thousand */
} targets[] = {
	{ "desktop", "traces/scenarios/default.yaml", 60000 }, /* ~1 power cycle per 30000 */
	{ "game", "traces/scenarios/default.yaml", 4000 },
	{ "power-cycle", "traces/scenarios/lda-chain.yaml", 2000 },
	{ "remap", "traces/scenarios/logical-remap.yaml", 6000 },
	{ "dpc", "traces/scenarios/default.yaml", 4000 },
	{ "cpu", "traces/scenarios/logical-remap.yaml", 6000 },
};

#define NTARGETS (sizeof(targets) / sizeof(targets[0]))

static struct gen *make(const char *profile, uint64_t events, uint64_t seed)
{
	struct gen *g = NULL;

	cr_assert_eq(gen_create(profile, events, seed, &g), 0, "%s", profile);
	cr_assert_not_null(g);
	return g;
}

/* All of a generator's events (exactly @events of them is asserted). */
static struct wl_event *collect(const char *profile, uint64_t events, uint64_t seed)
{
	struct wl_event *ev = calloc(events + 1, sizeof(*ev));
	struct gen *g = make(profile, events, seed);
	uint64_t n = 0;

	cr_assert_not_null(ev);
	while (n <= events && gen_next(g, &ev[n]) == 1)
		n++;
	cr_assert_eq(n, events, "%s: %llu events instead of %llu", profile, (unsigned long long)n,
		     (unsigned long long)events);
	cr_assert_eq(gen_next(g, &ev[n]), 0, "%s: events after the end", profile);
	gen_destroy(g);
	return ev;
}

Test(gen, profiles_are_listed_and_described)
{
	const char *const *names = gen_profiles();
	size_t n = 0;

	for (; names[n]; n++) {
		cr_assert_not_null(gen_describe(names[n]), "%s", names[n]);
		cr_assert_gt(strlen(gen_describe(names[n])), 20);
	}
	cr_assert_geq(n, NTARGETS);
	for (size_t i = 0; i < NTARGETS; i++) {
		const char *d = gen_describe(targets[i].profile);
		const char *file = strrchr(targets[i].scenario, '/') + 1;

		cr_assert_not_null(d, "%s missing", targets[i].profile);
		cr_assert_not_null(strstr(d, file), "%s: \"%s\" does not name %s", targets[i].profile,
				   d, file);
	}
	cr_assert_null(gen_describe("no-such-profile"));
}

Test(gen, bad_arguments)
{
	struct gen *g = (struct gen *)1;

	cr_assert_eq(gen_create("no-such-profile", 10, 1, &g), -ENOENT);
	cr_assert_null(g);
	cr_assert_eq(gen_create("desktop", 0, 1, &g), -EINVAL);
	cr_assert_null(g);
	cr_assert_eq(gen_create("desktop", GEN_MAX_EVENTS + 1, 1, &g), -EINVAL);
	cr_assert_null(g);
	cr_assert_eq(gen_create("desktop", GEN_MAX_EVENTS, 1, &g), 0);
	gen_destroy(g);
	gen_destroy(NULL);
}

Test(gen, same_seed_same_events_other_seed_other_events)
{
	for (size_t i = 0; i < NTARGETS; i++) {
		const char *p = targets[i].profile;
		struct wl_event *a = collect(p, 5000, 42), *b = collect(p, 5000, 42);
		struct wl_event *c = collect(p, 5000, 43);

		cr_assert_eq(memcmp(a, b, 5000 * sizeof(*a)), 0, "%s: same seed differs", p);
		cr_assert_neq(memcmp(a, c, 5000 * sizeof(*a)), 0, "%s: seeds 42 and 43 agree", p);
		free(a);
		free(b);
		free(c);
	}
}

Test(gen, exactly_the_count_asked_for)
{
	static const uint64_t counts[] = { 1, 2, 3, 4, 5, 7, 10, 33, 100, 1000, 4097 };

	for (size_t i = 0; i < NTARGETS; i++)
		for (size_t c = 0; c < sizeof(counts) / sizeof(counts[0]); c++)
			free(collect(targets[i].profile, counts[c], c + 1));
}

Test(gen, timestamps_strictly_increase_from_a_fixed_origin)
{
	for (size_t i = 0; i < NTARGETS; i++) {
		struct wl_event *ev = collect(targets[i].profile, 20000, 5);

		cr_assert_geq(ev[0].ts, 1000000000ull);
		for (size_t n = 1; n < 20000; n++)
			cr_assert_gt(ev[n].ts, ev[n - 1].ts, "%s: event %zu", targets[i].profile, n);
		/* realistic: microseconds apart on average, not nanoseconds nor seconds */
		cr_assert_gt((ev[19999].ts - ev[0].ts) / 20000, 500, "%s", targets[i].profile);
		cr_assert_lt((ev[19999].ts - ev[0].ts) / 20000, 10000000, "%s", targets[i].profile);
		free(ev);
	}
}

/* Field ranges and orderings a reader of the catalogue may rely on. */
Test(gen, fields_in_range)
{
	for (size_t i = 0; i < NTARGETS; i++) {
		const char *p = targets[i].profile;
		struct wl_event *ev = collect(p, 30000, 9);
		bool d3[8] = { 0 };
		uint64_t kinds[WL_NKINDS] = { 0 }, cycles[8] = { 0 };

		for (size_t n = 0; n < 30000; n++) {
			const struct wl_event *e = &ev[n];

			cr_assert_lt(e->kind, WL_NKINDS);
			kinds[e->kind]++;
			if (e->kind != WL_MEMORY && e->kind != WL_IRQL)
				cr_assert_eq(e->v[WL_ADAPTER], 0, "%s event %zu", p, n);
			switch (e->kind) {
			case WL_ALLOC_CONTIGUOUS:
			case WL_PMO_CREATE:
			case WL_PMO_CREATE_IO:
				cr_assert_leq(e->v[WL_ARG], CACHE_WRITECOMBINED);
				cr_assert_gt(e->v[WL_BYTES], 0);
				break;
			case WL_ALLOC_CREATE:
				cr_assert_leq(e->v[WL_ARG], CORE_SEG_SYSTEM);
				cr_assert_eq(e->v[WL_FLAGS] & ~3ull, 0);
				if (!strcmp(p, "remap"))
					cr_assert(e->v[WL_ARG] == CORE_SEG_APERTURE &&
						  e->v[WL_FLAGS] == (ALLOC_ACCESSED_PHYSICALLY |
								     ALLOC_MAP_APERTURE_CPU_VISIBLE));
				break;
			case WL_TRANSFER:
				cr_assert_leq(e->v[WL_ARG], TRANSFER_FROM_VRAM);
				break;
			case WL_FB_PIN:
			case WL_FB_UNPIN:
			case WL_FB_MAP:
			case WL_FB_UNMAP:
				cr_assert_eq(e->v[WL_ARG], 0, "%s event %zu: the lead's hAdapter", p, n);
				cr_assert_eq(e->v[WL_PHYS], 0);
				break;
			case WL_PMO_MAP_CPU:
				cr_assert_leq(e->v[WL_ARG], WL_ACCESS_USER);
				cr_assert_eq(e->v[WL_OFFSET] % 4096, 0);
				cr_assert_gt(e->v[WL_BYTES], 0);
				break;
			case WL_CPU_ACCESS:
				cr_assert_leq(e->v[WL_ARG], 1);
				cr_assert_gt(e->v[WL_BYTES], 0);
				cr_assert_leq(e->v[WL_BYTES], 16 * 1024, "%s event %zu", p, n);
				break;
			case WL_IRQL:
				/* a DPC's DMA: raised, one DMA, lowered; never a callback inside */
				cr_assert_eq(e->v[WL_ARG], CORE_IRQL_DISPATCH, "%s event %zu", p, n);
				cr_assert_lt(n + 2, 30000);
				cr_assert_eq(ev[n + 1].kind, WL_DMA, "%s event %zu", p, n + 1);
				cr_assert_eq(ev[n + 2].kind, WL_IRQL);
				cr_assert_eq(ev[n + 2].v[WL_ARG], CORE_IRQL_PASSIVE);
				kinds[WL_IRQL]++;
				n += 2;
				break;
			case WL_DMA:
				cr_assert_leq(e->v[WL_ARG], 1);
				cr_assert_gt(e->v[WL_BYTES], 0);
				cr_assert_leq(e->v[WL_BYTES], 64 * 1024, "%s event %zu", p, n);
				cr_assert_lt(e->v[WL_PHYS], 8);
				cr_assert_not(d3[e->v[WL_PHYS]], "%s event %zu: DMA from a phys in D3", p, n);
				break;
			case WL_POWER:
				cr_assert_lt(e->v[WL_PHYS], 8);
				cr_assert(e->v[WL_ARG] == POWER_D3 || e->v[WL_ARG] == POWER_D0);
				/* strictly alternating, D3 first */
				cr_assert_eq(e->v[WL_ARG] == POWER_D3, !d3[e->v[WL_PHYS]],
					     "%s event %zu: power does not alternate", p, n);
				d3[e->v[WL_PHYS]] = e->v[WL_ARG] == POWER_D3;
				cycles[e->v[WL_PHYS]] += e->v[WL_ARG] == POWER_D3;
				break;
			default:
				break;
			}
		}
		for (int ph = 0; ph < 8; ph++)
			cr_assert_not(d3[ph], "%s: phys %d left in D3", p, ph);
		if (!strcmp(p, "remap")) {
			cr_assert_eq(kinds[WL_ALLOC_MDL] + kinds[WL_MAP_MDL] + kinds[WL_ALLOC_CONTIGUOUS],
				     0, "remap uses WDDM 2.4 callbacks");
			cr_assert_gt(kinds[WL_ADL_ALLOC], 0);
		}
		if (!strcmp(p, "power-cycle")) {
			cr_assert_gt(kinds[WL_POWER], 30000 / 50, "power-cycle: too few transitions");
			for (int ph = 0; ph < 3; ph++)
				cr_assert_gt(cycles[ph], 50, "power-cycle: phys %d hardly cycled", ph);
		}
		if (!strcmp(p, "dpc")) {
			cr_assert_gt(kinds[WL_IRQL], 1000, "dpc: too few DPC DMAs");
			cr_assert_gt(kinds[WL_DRIVER_MDL_CREATE], 500);
			cr_assert_gt(kinds[WL_MAP_MDL], 500);
		} else {
			cr_assert_eq(kinds[WL_IRQL] + kinds[WL_DRIVER_MDL_CREATE], 0,
				     "%s: its events are what they were", p);
		}
		if (!strcmp(p, "cpu")) {
			cr_assert_gt(kinds[WL_CPU_ACCESS], 1000, "cpu: too few CPU accesses");
			cr_assert_gt(kinds[WL_PMO_CREATE_IO], 100);
			cr_assert_gt(kinds[WL_PMO_MAP_CPU], 500);
			cr_assert_gt(kinds[WL_FB_PIN], 50);
			cr_assert_gt(kinds[WL_FB_MAP], 200);
			cr_assert_eq(kinds[WL_ALLOC_MDL] + kinds[WL_MAP_MDL] + kinds[WL_ALLOC_CONTIGUOUS],
				     0, "cpu is a driver of the WDDM 3.0 services");
		} else {
			cr_assert_eq(kinds[WL_CPU_ACCESS] + kinds[WL_PMO_CREATE_IO] + kinds[WL_PMO_MAP_CPU] +
					     kinds[WL_FB_PIN] + kinds[WL_FB_MAP],
				     0, "%s: its events are what they were", p);
		}
		cr_assert_eq(kinds[WL_IOMMU_DISABLE], 0, "%s: a generated trace replays clean", p);
		if (!strcmp(p, "desktop")) {
			cr_assert_gt(cycles[0], 0, "desktop: no power cycle");
			cr_assert_gt(kinds[WL_MEMORY], 0, "desktop: no memory pressure");
		}
		cr_assert_gt(kinds[WL_DMA], 0, "%s: no DMA", p);
		free(ev);
	}
}

/* --- driving the model --- */

#define MAX_IDS 4096

struct drive {
	struct scenario scn;
	struct hw_backend be;
	struct core *core;
	core_handle_t h[MAX_IDS];   /* trace id -> live handle (adapter 0 only) */
	unsigned int live, max_live;
};

static void drive_start(struct drive *d, const char *relpath)
{
	const char *root = getenv("GPUISO_SOURCE_ROOT");
	char path[4096], err[4096] = "";
	struct core_adapter_info info;

	memset(d, 0, sizeof(*d));
	snprintf(path, sizeof(path), "%s/%s", root ? root : ".", relpath);
	cr_assert_eq(scenario_load(path, &d->scn, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(machine_open(&d->scn, "sim", &d->be, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(core_create(&d->scn, &d->be, &d->core), 0);
	cr_assert_eq(core_start(d->core), 0);
	cr_assert_eq(core_adapter_info(d->core, 0, &info), 0);
	cr_assert(info.started, "%s: adapter 0 did not start: %s", relpath, info.start_error);
}

static core_handle_t *slot_new(struct drive *d, const struct wl_event *e, size_t n)
{
	uint64_t id = e->v[WL_ID];

	cr_assert(id > 0 && id < MAX_IDS, "event %zu: id %llu", n, (unsigned long long)id);
	cr_assert_eq(d->h[id], 0, "event %zu: id %llu is live already", n, (unsigned long long)id);
	if (++d->live > d->max_live)
		d->max_live = d->live;
	return &d->h[id];
}

static core_handle_t slot_get(struct drive *d, uint64_t id, size_t n)
{
	cr_assert(id > 0 && id < MAX_IDS, "event %zu: id %llu", n, (unsigned long long)id);
	cr_assert_neq(d->h[id], 0, "event %zu: id %llu is not live", n, (unsigned long long)id);
	return d->h[id];
}

static core_handle_t slot_del(struct drive *d, uint64_t id, size_t n)
{
	core_handle_t h = slot_get(d, id, n);

	d->h[id] = 0;
	d->live--;
	return h;
}

/* Execute one event through the core API. Return: what the core returned. */
static int drive_event(struct drive *d, const struct wl_event *e, size_t n)
{
	struct core *c = d->core;
	unsigned int a = (unsigned int)e->v[WL_ADAPTER];
	uint64_t id = e->v[WL_ID];

	core_set_event(c, n, e->ts, NULL);
	switch (e->kind) {
	case WL_SECURE_VM_CREATE:
		return core_secure_vm_create(c, a);
	case WL_ALLOC_CONTIGUOUS:
		return core_alloc_contiguous(c, a, e->v[WL_BYTES], (enum cache_type)e->v[WL_ARG],
					     slot_new(d, e, n), NULL);
	case WL_FREE_CONTIGUOUS:
		return core_free_contiguous(c, a, slot_del(d, id, n));
	case WL_ALLOC_MDL:
		return core_alloc_mdl(c, a, e->v[WL_BYTES], slot_new(d, e, n));
	case WL_FREE_MDL:
		return core_free_mdl(c, a, slot_del(d, id, n));
	case WL_MAP_MDL:
		return core_map_mdl(c, a, slot_get(d, e->v[WL_REF], n), slot_new(d, e, n), NULL);
	case WL_UNMAP_MDL:
		return core_unmap_mdl(c, a, slot_del(d, id, n));
	case WL_PMO_CREATE:
		return core_pmo_create(c, a, e->v[WL_BYTES], (enum cache_type)e->v[WL_ARG],
				       slot_new(d, e, n));
	case WL_PMO_DESTROY:
		return core_pmo_destroy(c, a, slot_del(d, id, n));
	case WL_ADL_ALLOC:
		return core_adl_alloc(c, a, slot_get(d, e->v[WL_REF], n), e->v[WL_OFFSET],
				      e->v[WL_BYTES], slot_new(d, e, n));
	case WL_ADL_FREE:
		return core_adl_free(c, a, slot_del(d, id, n));
	case WL_ALLOC_CREATE:
		return core_alloc_create(c, a, e->v[WL_BYTES], (enum core_segment)e->v[WL_ARG],
					 (uint32_t)e->v[WL_FLAGS], slot_new(d, e, n));
	case WL_ALLOC_DESTROY:
		return core_alloc_destroy(c, a, slot_del(d, id, n));
	case WL_MAP_APERTURE:
		return core_map_aperture(c, a, slot_get(d, id, n), e->v[WL_OFFSET], e->v[WL_BYTES]);
	case WL_UNMAP_APERTURE:
		return core_unmap_aperture(c, a, slot_get(d, id, n));
	case WL_TRANSFER:
		return core_transfer(c, a, slot_get(d, id, n), (enum transfer_dir)e->v[WL_ARG],
				     e->v[WL_BYTES]);
	case WL_FENCE_CREATE:
		return core_fence_create(c, a, slot_new(d, e, n));
	case WL_FENCE_DESTROY:
		return core_fence_destroy(c, a, slot_del(d, id, n));
	case WL_DMA:
		return core_dma(c, a, (unsigned int)e->v[WL_PHYS], slot_get(d, id, n),
				e->v[WL_OFFSET], e->v[WL_BYTES], e->v[WL_ARG] != 0);
	case WL_POWER:
		return core_power(c, a, (unsigned int)e->v[WL_PHYS], (enum power_state)e->v[WL_ARG]);
	case WL_MEMORY: {
		struct physmem_pressure p = { e->v[WL_OFFSET], e->v[WL_BYTES], UINT64_MAX };

		core_memory(c, &p);
		return 0;
	}
	case WL_IRQL:
		core_set_irql(c, (enum core_irql)e->v[WL_ARG]);
		return 0;
	case WL_DRIVER_MDL_CREATE:
		return core_driver_mdl_create(c, a, e->v[WL_BYTES], slot_new(d, e, n));
	case WL_DRIVER_MDL_FREE:
		return core_driver_mdl_free(c, a, slot_del(d, id, n));
	case WL_FB_PIN:
		return core_fb_pin(c, a, (unsigned int)e->v[WL_ARG], (unsigned int)e->v[WL_PHYS],
				   slot_new(d, e, n));
	case WL_FB_UNPIN:
		return core_fb_unpin(c, a, (unsigned int)e->v[WL_ARG], slot_del(d, id, n));
	case WL_FB_MAP:
		return core_fb_map_chunk(c, a, (unsigned int)e->v[WL_ARG], (unsigned int)e->v[WL_PHYS],
					 e->v[WL_OFFSET], e->v[WL_BYTES], slot_new(d, e, n));
	case WL_FB_UNMAP:
		return core_fb_unmap_chunk(c, a, (unsigned int)e->v[WL_ARG], slot_del(d, id, n));
	case WL_CPU_ACCESS:
		return core_cpu_access(c, a, slot_get(d, id, n), e->v[WL_OFFSET], e->v[WL_BYTES],
				       e->v[WL_ARG] != 0);
	case WL_PMO_CREATE_IO:
		return core_pmo_create_io(c, a, e->v[WL_OFFSET], e->v[WL_BYTES],
					  (enum cache_type)e->v[WL_ARG], slot_new(d, e, n));
	case WL_PMO_MAP_CPU:
		return core_pmo_map_cpu(c, a, slot_get(d, e->v[WL_REF], n),
					(enum cpu_access)e->v[WL_ARG], e->v[WL_OFFSET], e->v[WL_BYTES],
					slot_new(d, e, n));
	case WL_PMO_UNMAP_CPU:
		return core_pmo_unmap_cpu(c, a, slot_del(d, id, n));
	default:
		cr_assert_fail("event %zu: kind %u", n, e->kind);
	}
	return -EINVAL;
}

/* Run a generated trace through the model; every call must succeed. Return: power transitions. */
static size_t drive_profile(const char *profile, const char *scenario, uint64_t events,
			    uint64_t seed)
{
	struct drive d;
	const struct core_violation *v;
	const struct core_power_record *pr;
	struct gen *g = make(profile, events, seed);
	size_t live0, nv, nf, np, n = 0;
	struct wl_event e;
	char text[160];

	drive_start(&d, scenario);
	live0 = core_live_handles(d.core);
	while (gen_next(g, &e) == 1) {
		int rc = drive_event(&d, &e, n);

		cr_assert_eq(rc, 0, "%s seed %llu event %zu (%s): %s", profile,
			     (unsigned long long)seed, n, wl_format(&e, text, sizeof(text)),
			     ntstatus_name(rc));
		n++;
	}
	gen_destroy(g);
	cr_assert_eq(n, events);
	cr_assert_eq(d.live, 0, "%s: %u ids still live at the end", profile, d.live);
	cr_assert_leq(d.max_live, 64, "%s: %u live at once", profile, d.max_live);
	cr_assert_eq(core_live_handles(d.core), live0, "%s: handles left", profile);
	core_faults(d.core, &nf);
	cr_assert_eq(nf, 0, "%s: %zu DMA faults", profile, nf);
	pr = core_power_records(d.core, &np);
	for (size_t i = 0; i < np; i++) {
		cr_assert(pr[i].completed && pr[i].path != PATH_RESET, "%s: transition %zu failed",
			  profile, i);
		if (pr[i].to == POWER_D0 && pr[i].path != PATH_NONE)
			cr_assert(pr[i].verified, "%s: restore %zu not verified", profile, i);
	}
	core_stop(d.core);
	v = core_violations(d.core, &nv);
	cr_assert_eq(nv, 0, "%s: %zu violations, first: %s: %s", profile, nv,
		     nv ? core_violation_name(v[0].code) : "", nv ? v[0].detail : "");
	core_destroy(d.core);
	hw_backend_close(&d.be);
	scenario_free(&d.scn);
	return np;
}

Test(gen, desktop_is_valid_on_default, .timeout = 120)
{
	cr_assert_gt(drive_profile("desktop", targets[0].scenario, targets[0].events, 1), 0,
		     "no power cycle exercised");
}

Test(gen, game_is_valid_on_default, .timeout = 120)
{
	drive_profile("game", targets[1].scenario, targets[1].events, 2);
}

Test(gen, power_cycle_is_valid_on_lda_chain, .timeout = 120)
{
	cr_assert_gt(drive_profile("power-cycle", targets[2].scenario, targets[2].events, 3), 30);
}

Test(gen, remap_is_valid_in_logical_mode, .timeout = 120)
{
	struct drive d;
	struct core_adapter_info info;

	/* The scenario really puts adapter 0 in logical mode, where 2.4 callbacks are refused. */
	drive_start(&d, targets[3].scenario);
	cr_assert_eq(core_adapter_info(d.core, 0, &info), 0);
	cr_assert_eq(info.mode, MODE_LOGICAL);
	core_destroy(d.core);
	hw_backend_close(&d.be);
	scenario_free(&d.scn);
	drive_profile("remap", targets[3].scenario, targets[3].events, 4);
}

Test(gen, dpc_is_valid_on_default, .timeout = 120)
{
	drive_profile("dpc", targets[4].scenario, targets[4].events, 5);
}

Test(gen, cpu_is_valid_in_logical_mode, .timeout = 120)
{
	drive_profile("cpu", targets[5].scenario, targets[5].events, 6);
}

/* Short traces end in the teardown almost at once: still valid, still exact. */
Test(gen, short_traces_are_valid, .timeout = 120)
{
	static const uint64_t counts[] = { 1, 2, 3, 5, 8, 13, 21, 34 };

	for (size_t i = 0; i < NTARGETS; i++)
		for (size_t c = 0; c < sizeof(counts) / sizeof(counts[0]); c++)
			drive_profile(targets[i].profile, targets[i].scenario, counts[c], c);
}
