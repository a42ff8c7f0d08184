/* SPDX-License-Identifier: MIT */
/*
 * The state digest a sweep compares (engine_state_digest()) is kept as the
 * state changes: after every event of whole replays, with faults injected
 * and power cycles, it must be what computing it again from all of the
 * state gives (engine_state_digest_full()). A change that misses its term
 * shows here.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/scenario.h"
#include "faults/plan.h"
#include "replay/ctf.h"
#include "replay/gen.h"
#include "replay/replay.h"
#include "replay/text.h"

static char tmp[] = "/tmp/gpuiso-digest-XXXXXX";

static void setup(void)
{
	cr_assert_not_null(mkdtemp(tmp));
}

static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmp);
	cr_assert_eq(system(cmd), 0);
}

TestSuite(digest, .init = setup, .fini = teardown);

static const char *src(const char *rel)
{
	static char path[1024];
	const char *root = getenv("GPUISO_SOURCE_ROOT");

	snprintf(path, sizeof(path), "%s/%s", root ? root : ".", rel);
	return path;
}

/* What the hooks saw: checks made, and the first where the two disagreed. */
struct check {
	uint64_t checks;
	bool differ;
	uint64_t at, event;     /* that check (from 1), before that event (UINT64_MAX: the end) */
	uint64_t kept, full;
};

static void compare(const struct replay_engine *e, uint64_t index, struct check *c)
{
	uint64_t kept, full;

	if (engine_state_digest(e, &kept) || engine_state_digest_full(e, &full))
		return;
	c->checks++;
	if (kept != full && !c->differ)
		*c = (struct check){ c->checks, true, c->checks, index, kept, full };
}

static void before_event(const struct replay_engine *e, uint64_t index, void *arg)
{
	compare(e, index, arg);
}

static void after_events(const struct replay_engine *e, void *arg)
{
	compare(e, UINT64_MAX, arg);
}

static void generate(const char *profile, uint64_t events, const char *dir)
{
	char err[256] = "";
	struct gen *g;

	cr_assert_eq(gen_create(profile, events, 7, &g), 0);
	cr_assert_eq(ctf_write(dir, gen_next, g, err, sizeof(err)), 0, "%s", err);
	gen_destroy(g);
}

/* Replay @trace on @scn_rel under @plan (or none), comparing the digests at every event. */
static void replay_checked(const char *trace, const char *scn_rel, const struct fault_plan *plan,
			   const char *what)
{
	struct replay_opts o = { .trace = trace, .cache = true, .cache_dir = tmp, .faults = plan,
				 .untimed = true };
	struct replay_report *rep = calloc(1, sizeof(*rep));
	struct check c = { 0 };
	struct scenario scn;
	struct results res;
	char err[1024] = "";
	int rc;

	cr_assert_not_null(rep);
	cr_assert_eq(scenario_load(src(scn_rel), &scn, err, sizeof(err)), 0, "%s", err);
	o.scn = &scn;
	o.before_event = before_event;
	o.before_event_arg = &c;
	o.after_events = after_events;
	o.after_events_arg = &c;
	rc = replay_run(&o, &res, rep);
	cr_assert_eq(rc, 0, "%s: %s", what, rep->error);
	cr_assert_gt(c.checks, rep->used, "%s: %llu checks of %llu events", what,
		     (unsigned long long)c.checks, (unsigned long long)rep->used);
	cr_assert_not(c.differ, "%s: before event %llu (check %llu): kept %016llx, computed %016llx",
		      what, (unsigned long long)c.event, (unsigned long long)c.at,
		      (unsigned long long)c.kept, (unsigned long long)c.full);
	results_fini(&res);
	scenario_free(&scn);
	free(rep);
}

static const char *const profiles[][2] = {
	{ "desktop", "traces/scenarios/default.yaml" },
	{ "game", "traces/scenarios/default.yaml" },
	{ "power-cycle", "traces/scenarios/lda-chain.yaml" },
	{ "power-cycle", "traces/scenarios/shared-save-area.yaml" },
	{ "power-cycle", "traces/scenarios/two-adapters.yaml" },
	/* three physical adapters' events on one: many refused, frees among them */
	{ "power-cycle", "traces/scenarios/default.yaml" },
	{ "remap", "traces/scenarios/logical-remap.yaml" },
	{ "dpc", "traces/scenarios/default.yaml" },
	{ "cpu", "traces/scenarios/logical-remap.yaml" },
	{ "desktop", "traces/scenarios/unisolated.yaml" },
};

Test(digest, the_kept_digest_is_the_computed_one_after_every_event, .timeout = 300)
{
	char dir[256], what[256], *trace;

	for (size_t i = 0; i < sizeof(profiles) / sizeof(profiles[0]); i++) {
		snprintf(dir, sizeof(dir), "%s/%s", tmp, profiles[i][0]);
		generate(profiles[i][0], 2000, dir);
		snprintf(what, sizeof(what), "%s on %s", profiles[i][0], profiles[i][1]);
		replay_checked(dir, profiles[i][1], NULL, what);
		snprintf(dir, sizeof(dir), "rm -rf %s/%s", tmp, profiles[i][0]);
		cr_assert_eq(system(dir), 0);
	}
	/* the shipped trace (src() answers in one buffer: a copy) */
	trace = strdup(src("traces/power-cycle"));
	cr_assert_not_null(trace);
	replay_checked(trace, "traces/scenarios/lda-chain.yaml", NULL, "traces/power-cycle");
	free(trace);
}

/* Failures take the paths the unfailed run does not: resets, chunked saves, refusals. */
Test(digest, the_kept_digest_is_the_computed_one_with_faults_injected, .timeout = 300)
{
	static const char *const nth[] = {
		"fbsave/pin:1", "fbsave/map_chunk:3", "mem/alloc_contiguous:2", "mem/alloc_mdl:5",
		"mem/commit:4", "mem/lock:6", "iommu/map:7", "iommu/unmap:2", "domain/attach:1",
		"adapter/enable:1", "gpu/copy:3",
	};
	static const char *const remap_nth[] = { "mem/pmo_create:2", "mem/adl_alloc:3",
						 "iommu/iova_alloc:4", "iommu/unmap:5" };
	char pc[256], remap[256], err[1024] = "", what[256];
	struct fault_plan plan;

	snprintf(pc, sizeof(pc), "%s/power-cycle", tmp);
	generate("power-cycle", 2000, pc);
	snprintf(remap, sizeof(remap), "%s/remap", tmp);
	generate("remap", 2000, remap);
	for (size_t i = 0; i < sizeof(nth) / sizeof(nth[0]); i++) {
		memset(&plan, 0, sizeof(plan));
		cr_assert_eq(fault_plan_fail_nth(&plan, nth[i]), 0, "%s", nth[i]);
		snprintf(what, sizeof(what), "power-cycle failing %s", nth[i]);
		replay_checked(pc, "traces/scenarios/lda-chain.yaml", &plan, what);
		fault_plan_free(&plan);
	}
	for (size_t i = 0; i < sizeof(remap_nth) / sizeof(remap_nth[0]); i++) {
		memset(&plan, 0, sizeof(plan));
		cr_assert_eq(fault_plan_fail_nth(&plan, remap_nth[i]), 0, "%s", remap_nth[i]);
		snprintf(what, sizeof(what), "remap failing %s", remap_nth[i]);
		replay_checked(remap, "traces/scenarios/logical-remap.yaml", &plan, what);
		fault_plan_free(&plan);
	}
	/* pins failing half the time and memory squeezed for a while */
	cr_assert_eq(fault_plan_load(src("traces/faults/quick-start.yaml"), &plan, err, sizeof(err)),
		     0, "%s", err);
	replay_checked(pc, "traces/scenarios/lda-chain.yaml", &plan, "quick-start.yaml");
	fault_plan_free(&plan);
}

/*
 * Frees the model refuses keep their ids live and remembered (a PMO with an
 * ADL outstanding, a fence freed as an MDL), again, then in order.
 */
Test(digest, the_kept_digest_is_the_computed_one_across_refused_frees)
{
	static const char text[] =
		"fence_create ts=1000 adapter=0 id=1\n"
		"pmo_create ts=2000 adapter=0 id=2 bytes=65536 cache=writecombined\n"
		"adl_alloc ts=3000 adapter=0 id=3 pmo=2 offset=0 bytes=4096\n"
		"pmo_destroy ts=4000 adapter=0 id=2\n"
		"free_mdl ts=5000 adapter=0 id=1\n"
		"pmo_destroy ts=6000 adapter=0 id=2\n"
		"alloc_mdl ts=7000 adapter=0 id=4 bytes=8192\n"
		"map_mdl ts=8000 adapter=0 id=5 mdl=4\n"
		"free_mdl ts=9000 adapter=0 id=4\n"
		"adl_free ts=10000 adapter=0 id=3\n"
		"pmo_destroy ts=11000 adapter=0 id=2\n"
		"fence_destroy ts=12000 adapter=0 id=1\n"
		"unmap_mdl ts=13000 adapter=0 id=5\n"
		"alloc_mdl ts=14000 adapter=0 id=6 bytes=4096\n";
	char path[256], dir[256], err[512] = "";
	FILE *f;

	snprintf(path, sizeof(path), "%s/refused.txt", tmp);
	snprintf(dir, sizeof(dir), "%s/refused", tmp);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	cr_assert_eq(fputs(text, f) < 0, false);
	cr_assert_eq(fclose(f), 0);
	cr_assert_eq(text_make(path, dir, err, sizeof(err)), 0, "%s", err);
	replay_checked(dir, "traces/scenarios/logical-remap.yaml", NULL, "refused frees");
}
