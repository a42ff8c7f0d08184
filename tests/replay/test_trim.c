/* SPDX-License-Identifier: MIT */
/*
 * Trimming a trace: the units, failing runs of generated traces trimmed to
 * a reproducer that breaks the same way from disk, ddmin on a failure that
 * needs units far apart, what is refused.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/u64map.h"
#include "core/scenario.h"
#include "faults/plan.h"
#include "replay/ctf.h"
#include "replay/gen.h"
#include "replay/replay.h"
#include "replay/trim.h"
#include "replay/trim_internal.h"
#include "replay/verdict.h"

static char tmp[] = "/tmp/gpuiso-trim-XXXXXX";
static struct scenario scn;

static const char *src(const char *rel)
{
	static char path[1024];
	const char *root = getenv("GPUISO_SOURCE_ROOT");

	snprintf(path, sizeof(path), "%s/%s", root ? root : ".", rel);
	return path;
}

static void setup(void)
{
	char err[1024] = "";

	cr_assert_not_null(mkdtemp(tmp));
	cr_assert_eq(scenario_load(src("traces/scenarios/lda-chain.yaml"), &scn, err, sizeof(err)), 0,
		     "%s", err);
}

static void teardown(void)
{
	char cmd[128];

	scenario_free(&scn);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmp);
	cr_assert_eq(system(cmd), 0);
}

TestSuite(trim, .init = setup, .fini = teardown, .timeout = 300);

static const char *tpath(const char *name)
{
	static char path[4][256];
	static int next;

	next = (next + 1) % 4;
	snprintf(path[next], sizeof(path[next]), "%s/%s", tmp, name);
	return path[next];
}

/* A power-cycle trace of @events events, seed 1, as `gpuiso trace gen` writes it. */
static void generate(uint64_t events, const char *dir)
{
	char err[256] = "";
	struct gen *g;

	cr_assert_eq(gen_create("power-cycle", events, 1, &g), 0);
	cr_assert_eq(ctf_write(dir, gen_next, g, err, sizeof(err)), 0, "%s", err);
	gen_destroy(g);
}

static struct trim_opts opts(const char *trace, const char *out, const char *fail_nth)
{
	struct trim_opts o = { .trace = trace, .scn = &scn, .out = out,
			       .scenario_path = src("traces/scenarios/lda-chain.yaml") };
	struct fault_plan plan = { 0 };

	if (fail_nth) {
		cr_assert_eq(fault_plan_fail_nth(&plan, fail_nth), 0, "%s", fail_nth);
		for (int p = 0; p < FP_NPOINTS; p++) {
			if (plan.armed[p]) {
				o.fail = true;
				o.point = (enum fp_point)p;
				o.nth = plan.rule[p].nth;
			}
		}
	}
	return o;
}

/*
 * Replay @trace from disk as `gpuiso replay TRACE --fail-nth POINT:N` does
 * (@point NULL: no failure); its verdict in @v, its report in @rep.
 */
static void replay_verdict(const char *trace, const char *point, uint64_t nth,
			   struct verdict *v, struct replay_report *rep)
{
	struct replay_opts o = { .trace = trace, .scn = &scn, .notrace = true };
	struct fault_plan plan = { 0 };
	struct results res;
	char spec[96];

	if (point) {
		snprintf(spec, sizeof(spec), "%s:%llu", point, (unsigned long long)nth);
		cr_assert_eq(fault_plan_fail_nth(&plan, spec), 0, "%s", spec);
		o.faults = &plan;
	}
	cr_assert_eq(replay_run(&o, &res, rep), 0, "%s: %s", trace, rep->error);
	verdict_of(&res, v);
	results_fini(&res);
	fault_plan_free(&plan);
}

/* Every object of @trace is created before an event uses, ends or refers to it, and ended once. */
static void expect_whole_lifetimes(const char *trace)
{
	struct replay_opts o = { .trace = trace };
	struct replay_events evs;
	struct replay_report rep;
	struct u64map live = { 0 };

	cr_assert_eq(replay_read(&o, &evs, &rep), 0, "%s", rep.error);
	for (size_t i = 0; i < evs.n; i++) {
		const struct wl_event *e = &evs.ev[i];
		uint64_t key = e->v[WL_ADAPTER] << 56 | e->v[WL_ID];
		char text[160];

		wl_format(e, text, sizeof(text));
		if (e->kind == WL_MAP_MDL || e->kind == WL_ADL_ALLOC)
			cr_assert_not_null(u64map_get(&live, e->v[WL_ADAPTER] << 56 | e->v[WL_REF]),
					   "event %zu (%s) refers to an object not live", i, text);
		if (wl_creates(e->kind)) {
			cr_assert_null(u64map_get(&live, key), "event %zu (%s): created twice", i, text);
			cr_assert_eq(u64map_put(&live, key, i), 0);
		} else if (wl_destroys(e->kind)) {
			cr_assert(u64map_del(&live, key), "event %zu (%s): ends what is not live", i, text);
		} else if (wl_uses(e->kind)) {
			cr_assert_not_null(u64map_get(&live, key), "event %zu (%s): uses what is not live",
					   i, text);
		}
	}
	u64map_fini(&live);
	replay_events_free(&evs);
}

/* Trim @fail_nth on a 2000-event trace: at most 1% of it, and it breaks as the whole did. */
static void expect_trimmed(const char *fail_nth, const char *point, enum verdict_outcome outcome,
			   const char *code)
{
	struct trim_opts o = opts(tpath("pc"), tpath("out"), fail_nth);
	struct replay_report *rep = calloc(1, sizeof(*rep));
	struct verdict whole, part;
	struct trim_result r;
	char err[1024] = "";

	cr_assert_not_null(rep);
	generate(2000, o.trace);
	cr_assert_eq(trim_run(&o, &r, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(r.events, 2000);
	cr_assert_leq(r.kept, 20, "%llu events kept of 2000", (unsigned long long)r.kept);
	cr_assert_geq(r.kept, 1);
	cr_assert_geq(r.nth, 1);
	cr_assert_eq(r.verdict.outcome, outcome, "%s", verdict_outcome_name(r.verdict.outcome));

	replay_verdict(o.trace, point, o.nth, &whole, rep);
	cr_assert(verdict_same(&whole, &r.verdict), "the verdict reported is the whole trace's");
	replay_verdict(o.out, point, r.nth, &part, rep);
	cr_assert_eq(rep->events, r.kept);
	cr_assert_eq(rep->unmatched, 0);
	cr_assert(verdict_same(&part, &whole), "%s: the trimmed trace ends in %s, the whole in %s",
		  fail_nth, verdict_outcome_name(part.outcome), verdict_outcome_name(whole.outcome));
	if (code) {
		cr_assert_geq(part.kept, 1);
		cr_assert_str_eq(part.findings[0].code, code);
	}
	/* the failure is what breaks it: the same trace without it does not */
	replay_verdict(o.out, NULL, 0, &part, rep);
	cr_assert_eq(part.outcome, VERDICT_RECOVERED, "%s", verdict_outcome_name(part.outcome));
	expect_whole_lifetimes(o.out);
	free(rep);
}

Test(trim, a_failed_unmap_trims_to_a_mapping_leak)
{
	expect_trimmed("iommu/unmap:2", "iommu/unmap", VERDICT_VIOLATION, "MAPPING_LEAK");
}

Test(trim, a_failed_copy_trims_to_an_adapter_reset)
{
	expect_trimmed("gpu/copy:1", "gpu/copy", VERDICT_RESET, NULL);
}

/*
 * iommu/unmap's 14th hit is in the power-up of physical adapter 0 (event 60),
 * whose power-down (event 34) has the 9th: the unit of the two fails the
 * power-down's hit first unless the failure is kept at its own event.
 */
Test(trim, the_failure_stays_at_its_event)
{
	struct trim_opts o = opts(tpath("pc"), tpath("out"), "iommu/unmap:14");
	struct replay_report *rep = calloc(1, sizeof(*rep));
	struct replay_opts ro = { .trace = o.out, .scn = &scn, .notrace = true };
	struct fault_plan plan = { 0 };
	struct replay_events evs;
	struct trim_result r;
	char err[1024] = "", spec[64];
	struct results res;
	struct fp_ctx fp;

	cr_assert_not_null(rep);
	generate(2000, o.trace);
	cr_assert_eq(trim_run(&o, &r, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(replay_read(&(struct replay_opts){ .trace = o.trace }, &evs, rep), 0);
	cr_assert_eq(evs.ev[60].kind, WL_POWER, "the trace is the one this test knows");
	cr_assert_eq(evs.ev[60].v[WL_ARG], WL_POWER_D0);
	replay_events_free(&evs);

	snprintf(spec, sizeof(spec), "iommu/unmap:%llu", (unsigned long long)r.nth);
	cr_assert_eq(fault_plan_fail_nth(&plan, spec), 0);
	fault_plan_arm(&plan, &fp);
	ro.fp = &fp;
	cr_assert_eq(replay_run(&ro, &res, rep), 0, "%s", rep->error);
	results_fini(&res);
	cr_assert_eq(fp.ninjections, 1);
	cr_assert_gt(r.nth, 1, "the power-down's hit comes first");
	cr_assert_eq(replay_read(&(struct replay_opts){ .trace = o.out }, &evs, rep), 0);
	cr_assert_lt(fp.first.event, evs.n);
	cr_assert_eq(evs.ev[fp.first.event].kind, WL_POWER);
	cr_assert_eq(evs.ev[fp.first.event].v[WL_ARG], WL_POWER_D0, "failed in the power-down");
	cr_assert_eq(evs.ev[fp.first.event].v[WL_PHYS], 0);
	replay_events_free(&evs);
	free(rep);
}

Test(trim, a_run_that_recovers_is_refused)
{
	struct trim_opts o = opts(tpath("pc"), tpath("out"), NULL);
	struct trim_result r;
	char err[1024] = "";
	struct stat st;

	generate(2000, o.trace);
	cr_assert_eq(trim_run(&o, &r, err, sizeof(err)), -EINVAL);
	cr_assert(strstr(err, "nothing to trim: the run recovers"), "%s", err);
	cr_assert_neq(stat(o.out, &st), 0, "nothing written");
	/* a failure the run recovers from is the same */
	o = opts(tpath("pc"), tpath("out"), "iommu/map:3");
	cr_assert_eq(trim_run(&o, &r, err, sizeof(err)), -EINVAL);
	cr_assert(strstr(err, "nothing to trim: the run recovers"), "%s", err);
	/* and one that is never reached */
	o = opts(tpath("pc"), tpath("out"), "gpu/copy:1000000");
	cr_assert_eq(trim_run(&o, &r, err, sizeof(err)), -EINVAL);
	cr_assert(strstr(err, "gpu/copy is hit fewer than 1000000 times"), "%s", err);
}

Test(trim, an_output_that_is_not_empty_is_refused_first)
{
	struct trim_opts o = opts(tpath("pc"), tpath("out"), "gpu/copy:1");
	struct trim_result r;
	char err[1024] = "";
	FILE *f;

	generate(200, o.trace);
	cr_assert_eq(mkdir(o.out, 0777), 0);
	f = fopen(tpath("out/keep"), "w");
	cr_assert_not_null(f);
	fclose(f);
	cr_assert_eq(trim_run(&o, &r, err, sizeof(err)), -EEXIST);
	cr_assert(strstr(err, "exists and is not empty"), "%s", err);
	cr_assert_eq(r.replays, 0, "refused before any replay");
}

/*
 * A callback at DISPATCH_LEVEL, far into a trace: its IRQL raise, the MDL
 * allocated there and the lowering are three events of 2000, in two units
 * nowhere near each other, and no failure is injected to start from: ddmin
 * has to find both.
 */
struct dispatch_trace {
	struct gen *g;
	uint64_t n;  /* the generator's events written */
	uint64_t ts; /* the last one's time */
	int extra;   /* of the four events added, how many were written */
};

static int dispatch_next(void *ctx, struct wl_event *e)
{
	struct dispatch_trace *d = ctx;
	int rc;

	if ((d->n == 1200 && d->extra < 3) || (d->n == 1700 && d->extra == 3)) {
		*e = (struct wl_event){ .ts = d->ts };
		switch (d->extra++) {
		case 0: e->kind = WL_IRQL; e->v[WL_ARG] = WL_IRQL_DISPATCH; break;
		case 1: e->kind = WL_ALLOC_MDL; e->v[WL_ID] = 900000; e->v[WL_BYTES] = 8192; break;
		case 2: e->kind = WL_IRQL; e->v[WL_ARG] = WL_IRQL_PASSIVE; break;
		default: e->kind = WL_FREE_MDL; e->v[WL_ID] = 900000; break;
		}
		return 1;
	}
	rc = gen_next(d->g, e);
	if (rc == 1) {
		d->n++;
		d->ts = e->ts;
	}
	return rc;
}

static void write_dispatch_trace(const char *dir)
{
	struct dispatch_trace d = { 0 };
	char err[256] = "";

	cr_assert_eq(gen_create("power-cycle", 2000, 1, &d.g), 0);
	cr_assert_eq(ctf_write(dir, dispatch_next, &d, err, sizeof(err)), 0, "%s", err);
	gen_destroy(d.g);
}

Test(trim, ddmin_finds_units_far_apart)
{
	struct trim_opts o = opts(tpath("pc"), tpath("out"), NULL);
	struct replay_report *rep = calloc(1, sizeof(*rep));
	struct replay_events evs;
	struct trim_result r;
	char err[1024] = "";
	struct verdict v;

	cr_assert_not_null(rep);
	write_dispatch_trace(o.trace);
	cr_assert_eq(trim_run(&o, &r, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(r.events, 2004);
	cr_assert_str_eq(r.verdict.findings[0].code, "CB_IRQL");
	cr_assert_eq(r.kept, 4, "%llu kept", (unsigned long long)r.kept);
	cr_assert_eq(r.kept_units, 2);
	cr_assert_gt(r.replays, 10, "ddmin ran: %llu replays", (unsigned long long)r.replays);
	cr_assert_not(r.budget_spent);
	cr_assert_eq(r.nth, 0);

	/* the irql pair and the MDL's life, in their order and at their times */
	cr_assert_eq(replay_read(&(struct replay_opts){ .trace = o.out }, &evs, rep), 0, "%s",
		     rep->error);
	cr_assert_eq(evs.n, 4);
	cr_assert_eq(evs.ev[0].kind, WL_IRQL);
	cr_assert_eq(evs.ev[1].kind, WL_ALLOC_MDL);
	cr_assert_eq(evs.ev[2].kind, WL_IRQL);
	cr_assert_eq(evs.ev[3].kind, WL_FREE_MDL);
	for (size_t i = 1; i < evs.n; i++)
		cr_assert_geq(evs.ev[i].ts, evs.ev[i - 1].ts);
	cr_assert_gt(evs.ev[3].ts, evs.ev[2].ts, "the free keeps its later time");
	replay_events_free(&evs);
	replay_verdict(o.out, NULL, 0, &v, rep);
	cr_assert(verdict_same(&v, &r.verdict));
	free(rep);
}

Test(trim, a_spent_budget_still_gives_a_checked_reproducer)
{
	struct trim_opts o = opts(tpath("pc"), tpath("out"), NULL);
	struct replay_report *rep = calloc(1, sizeof(*rep));
	struct trim_result r;
	char err[1024] = "";
	struct verdict v;

	cr_assert_not_null(rep);
	write_dispatch_trace(o.trace);
	o.max_replays = 6;
	cr_assert_eq(trim_run(&o, &r, err, sizeof(err)), 0, "%s", err);
	cr_assert(r.budget_spent);
	cr_assert_eq(r.replays, 8, "the budget, what was kept again, then the check from disk");
	cr_assert_lt(r.kept, 2004);
	cr_assert_gt(r.kept, 4, "not done: %llu kept", (unsigned long long)r.kept);
	replay_verdict(o.out, NULL, 0, &v, rep);
	cr_assert(verdict_same(&v, &r.verdict));
	free(rep);
}

/* Units: an object's life, what refers to it, a power cycle, nested IRQL raises. */
Test(trim, units_keep_lifetimes_whole)
{
	struct wl_event ev[] = {
		{ .kind = WL_ALLOC_MDL, .v = { [WL_ID] = 1 } },                   /* 0: u0 */
		{ .kind = WL_MAP_MDL, .v = { [WL_ID] = 2, [WL_REF] = 1 } },       /* 1: u1 needs u0 */
		{ .kind = WL_POWER, .v = { [WL_PHYS] = 1, [WL_ARG] = WL_POWER_D3 } }, /* 2: u2 */
		{ .kind = WL_DMA, .v = { [WL_ID] = 1 } },                         /* 3: u0 */
		{ .kind = WL_IRQL, .v = { [WL_ARG] = WL_IRQL_APC } },             /* 4: u3 */
		{ .kind = WL_IRQL, .v = { [WL_ARG] = WL_IRQL_DISPATCH } },        /* 5: u3 (nested) */
		{ .kind = WL_IRQL, .v = { [WL_ARG] = WL_IRQL_PASSIVE } },         /* 6: u3 */
		{ .kind = WL_POWER, .v = { [WL_PHYS] = 1, [WL_ARG] = WL_POWER_D0 } }, /* 7: u2 */
		{ .kind = WL_UNMAP_MDL, .v = { [WL_ID] = 2 } },                   /* 8: u1 */
		{ .kind = WL_FREE_MDL, .v = { [WL_ID] = 1 } },                    /* 9: u0 */
		{ .kind = WL_ALLOC_MDL, .v = { [WL_ID] = 1 } },                   /* 10: u4, id 1 again */
		{ .kind = WL_ALLOC_MDL, .v = { [WL_ADAPTER] = 1, [WL_ID] = 2 } }, /* 11: u5, adapter 1 */
		{ .kind = WL_MEMORY },                                             /* 12: u6 */
	};
	static const uint32_t unit[] = { 0, 1, 2, 0, 3, 3, 3, 2, 1, 0, 4, 5, 6 };
	struct trim_units u;
	bool keep[7] = { true, true, true, true, true, true, true };

	cr_assert_eq(trim_units_build(ev, sizeof(ev) / sizeof(ev[0]), &u), 0);
	cr_assert_eq(u.nunits, 7);
	for (size_t i = 0; i < sizeof(unit) / sizeof(unit[0]); i++)
		cr_assert_eq(u.unit_of[i], unit[i], "event %zu: unit %u, not %u", i, u.unit_of[i],
			     unit[i]);
	cr_assert_eq(u.nneeds, 1);
	cr_assert_eq(u.needs[0].unit, 1);
	cr_assert_eq(u.needs[0].needs, 0);
	/* dropping the MDL drops its mapping; dropping the mapping keeps the MDL */
	keep[0] = false;
	trim_units_close(&u, keep);
	cr_assert_not(keep[1]);
	keep[0] = true;
	keep[1] = false;
	trim_units_close(&u, keep);
	cr_assert(keep[0]);
	/* a kept mapping brings its MDL */
	memset(keep, 0, sizeof(keep));
	keep[1] = true;
	trim_units_need_all(&u, keep);
	cr_assert(keep[0]);
	cr_assert_not(keep[2]);
	trim_units_free(&u);
}

/* A DMA through a freed id reaches what the object had: it stays with the object, raw DMA alone. */
Test(trim, stale_dma_goes_with_the_object_it_reaches)
{
	struct wl_event ev[] = {
		{ .kind = WL_ALLOC_MDL, .v = { [WL_ID] = 1 } },  /* 0: u0 */
		{ .kind = WL_FREE_MDL, .v = { [WL_ID] = 1 } },   /* 1: u0 */
		{ .kind = WL_DMA_RAW, .v = { [WL_OFFSET] = 1 } }, /* 2: u1 */
		{ .kind = WL_DMA, .v = { [WL_ID] = 1 } },        /* 3: u0, after the free */
		{ .kind = WL_DMA, .v = { [WL_ID] = 9 } },        /* 4: u2, never created */
	};
	static const uint32_t unit[] = { 0, 0, 1, 0, 2 };
	struct trim_units u;

	cr_assert_eq(trim_units_build(ev, sizeof(ev) / sizeof(ev[0]), &u), 0);
	cr_assert_eq(u.nunits, 3);
	for (size_t i = 0; i < sizeof(unit) / sizeof(unit[0]); i++)
		cr_assert_eq(u.unit_of[i], unit[i], "event %zu: unit %u, not %u", i, u.unit_of[i],
			     unit[i]);
	trim_units_free(&u);
}

/*
 * A CPU view names its PMO as an ADL does; a PMO of IO space lives until
 * pmo_destroy; a save-area pin lives until its unpin; CPU access goes with
 * what it touches, a disable attempt is a unit of its own.
 */
Test(trim, units_of_views_io_pmos_and_save_callbacks)
{
	const struct wl_event ev[] = {
		{ .kind = WL_PMO_CREATE_IO, .v = { [WL_ID] = 1 } },                /* 0: u0 */
		{ .kind = WL_PMO_MAP_CPU, .v = { [WL_ID] = 2, [WL_REF] = 1 } },    /* 1: u1 needs u0 */
		{ .kind = WL_FB_PIN, .v = { [WL_ID] = 3 } },                       /* 2: u2 */
		{ .kind = WL_CPU_ACCESS, .v = { [WL_ID] = 2 } },                   /* 3: u1 */
		{ .kind = WL_IOMMU_DISABLE },                                      /* 4: u3 */
		{ .kind = WL_CPU_ACCESS, .v = { [WL_ID] = 3 } },                   /* 5: u2 */
		{ .kind = WL_FB_UNPIN, .v = { [WL_ID] = 3 } },                     /* 6: u2 */
		{ .kind = WL_PMO_UNMAP_CPU, .v = { [WL_ID] = 2 } },                /* 7: u1 */
		{ .kind = WL_PMO_DESTROY, .v = { [WL_ID] = 1 } },                  /* 8: u0 */
	};
	static const uint32_t unit[] = { 0, 1, 2, 1, 3, 2, 2, 1, 0 };
	struct trim_units u;

	cr_assert_eq(trim_units_build(ev, sizeof(ev) / sizeof(ev[0]), &u), 0);
	cr_assert_eq(u.nunits, 4);
	for (size_t i = 0; i < sizeof(unit) / sizeof(unit[0]); i++)
		cr_assert_eq(u.unit_of[i], unit[i], "event %zu: unit %u, not %u", i, u.unit_of[i],
			     unit[i]);
	cr_assert_eq(u.nneeds, 1);
	cr_assert_eq(u.needs[0].unit, 1, "the view");
	cr_assert_eq(u.needs[0].needs, 0, "needs its PMO");
	trim_units_free(&u);
}

/*
 * A probability plan's failures stay where they fell: the trimmed run
 * fails the same unmap of the same free, its plan is written beside the
 * trace (hits, and the pressure step at the trimmed trace's events), and
 * that plan, read back, reproduces from disk.
 */
Test(trim, a_plans_draws_stay_where_they_fell)
{
	static const char text[] = "faults:\n  - point: iommu/unmap\n    probability: 0.02\n"
				   "    seed: 7\npressure:\n  - at: {event: 500}\n"
				   "    commit_available: 50%\n  - at: {time_ns: 5}\n"
				   "    lockable_available: 1MiB\n";
	struct trim_opts o = opts(strdup(tpath("pc")), strdup(tpath("out")), NULL);
	char *faults = strdup(tpath("f.yaml"));
	struct replay_report *rep = calloc(1, sizeof(*rep));
	struct fault_plan base, back;
	struct replay_opts ro = { .scn = &scn, .notrace = true };
	struct results res;
	struct trim_result r;
	struct verdict v;
	char err[1024] = "", plan[300], cmd[2048];
	FILE *f = fopen(faults, "w");
	int unmap = fp_point_lookup("iommu/unmap");

	cr_assert_not_null(rep);
	cr_assert_not_null(f);
	fputs(text, f);
	fclose(f);
	cr_assert_eq(fault_plan_load(faults, &base, err, sizeof(err)), 0, "%s", err);
	generate(2000, o.trace);
	o.base = &base;
	o.base_path = faults;
	cr_assert_eq(trim_run(&o, &r, err, sizeof(err)), 0, "%s", err);
	cr_assert(r.plan, "the plan is written");
	cr_assert_lt(r.kept, 10, "%llu events kept", (unsigned long long)r.kept);
	snprintf(plan, sizeof(plan), "%s.faults.yaml", o.out);
	cr_assert_eq(fault_plan_load(plan, &back, err, sizeof(err)), 0, "%s", err);
	cr_assert(back.armed[unmap]);
	cr_assert_geq(back.rule[unmap].nhits, 1);
	cr_assert_eq(back.rule[unmap].probability_ppm, 0, "no draws left to move");
	cr_assert_eq(back.nsteps, 2);
	cr_assert_not(back.steps[0].by_time);
	cr_assert_leq(back.steps[0].at, r.kept, "at the trimmed trace's events");
	cr_assert(back.steps[1].by_time);
	cr_assert_eq(back.steps[1].at, 5, "a time step stays");
	ro.trace = o.out;
	ro.faults = &back;
	cr_assert_eq(replay_run(&ro, &res, rep), 0, "%s", rep->error);
	verdict_of(&res, &v);
	cr_assert(verdict_same(&v, &r.verdict));
	cr_assert_eq(res.ninjected, 1);
	cr_assert_str_eq(res.injected[0].name, "iommu/unmap");
	cr_assert_eq(res.injected[0].n, back.rule[unmap].nhits);
	results_fini(&res);
	f = fmemopen(cmd, sizeof(cmd), "w");
	cr_assert_eq(trim_reproducer(&o, &r, f), 0);
	fclose(f);
	cr_assert(strstr(cmd, "--faults ") && strstr(cmd, ".faults.yaml") && !strstr(cmd, "fail-nth"),
		  "%s", cmd);
	fault_plan_free(&back);
	fault_plan_free(&base);
	free(rep);
	free(faults);
	free((char *)o.trace);
	free((char *)o.out);
}
