/* SPDX-License-Identifier: MIT */
/*
 * Whole replays: generated traces through the model, results, bad input,
 * import maps, fault plans and pressure schedules.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/failure.h"
#include "core/scenario.h"
#include "replay/ctf.h"
#include "tests/common/jsonq.h"
#include "tests/common/traces_real.h"
#include "tests/replay/replay_fixture.h"

TestSuite(replay, .init = setup, .fini = teardown);

Test(replay, every_profile_replays_clean_on_its_scenario)
{
	static const char *const profiles[][2] = {
		{ "desktop", "traces/scenarios/default.yaml" },
		{ "game", "traces/scenarios/default.yaml" },
		{ "power-cycle", "traces/scenarios/lda-chain.yaml" },
		{ "remap", "traces/scenarios/logical-remap.yaml" },
		{ "dpc", "traces/scenarios/default.yaml" },
		{ "cpu", "traces/scenarios/logical-remap.yaml" },
	};

	for (size_t i = 0; i < sizeof(profiles) / sizeof(profiles[0]); i++) {
		struct replay_report rep;
		struct results res;
		char dir[256];

		snprintf(dir, sizeof(dir), "%s/%s", tmp, profiles[i][0]);
		generate(profiles[i][0], 3000, dir);
		cr_assert_eq(replay(dir, profiles[i][1], false, &res, &rep, NULL, 0), 0, "%s: %s",
			     profiles[i][0], rep.error);
		cr_assert_eq(rep.events, 3000, "%s", profiles[i][0]);
		cr_assert_eq(rep.used, 3000);
		expect_clean(&res, &rep);
		results_fini(&res);
	}
}

Test(replay, results_json_follows_the_contract)
{
	struct replay_report rep;
	struct results res;
	char dir[256], json[300], value[64];
	FILE *f;
	char *doc = calloc(1, 1 << 20);

	snprintf(dir, sizeof(dir), "%s/t", tmp);
	snprintf(json, sizeof(json), "%s/r.json", tmp);
	generate("desktop", 2000, dir);
	cr_assert_eq(replay(dir, NULL, false, &res, &rep, NULL, 0), 0);
	cr_assert_eq(results_write_json(&res, json), 0);
	f = fopen(json, "r");
	cr_assert_not_null(f);
	cr_assert_gt(fread(doc, 1, (1 << 20) - 1, f), 0);
	fclose(f);
	cr_assert(jsonq_valid(doc), "%s", doc);
	cr_assert(jsonq_get(doc, "schema", value, sizeof(value)));
	cr_assert_str_eq(value, "gpuiso-results/1");
	static const char *const paths[] = {
		"run.id", "run.started", "run.git_rev", "run.host", "run.backend", "run.trace",
		"run.scenario", "run.faults", "run.seed", "ops.alloc_mdl.count",
		"ops.alloc_mdl.errors", "ops.alloc_mdl.latency_ns.p50", "ops.alloc_mdl.latency_ns.p999",
		"ops.alloc_mdl.modeled_ns.mean", "power.transitions", "power.time_to_complete_ns.max",
		"faults.injected", "faults.violations", "invariants.no_leaks",
		"invariants.forward_progress", "run.maps", "events.ignored", "events.unmatched",
		"events.discarded", "events.refused",
	};
	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++)
		cr_assert(jsonq_get(doc, paths[i], value, sizeof(value)), "%s missing", paths[i]);
	cr_assert(jsonq_get(doc, "run.backend", value, sizeof(value)));
	cr_assert_str_eq(value, "sim");
	cr_assert(jsonq_get(doc, "events.total", value, sizeof(value)));
	cr_assert_str_eq(value, "2000");
	cr_assert(jsonq_get(doc, "events.used", value, sizeof(value)));
	cr_assert_str_eq(value, "2000");
	free(doc);
	results_fini(&res);
}

Test(replay, bad_input_is_an_error_that_says_where)
{
	struct replay_report rep;
	char dir[256], path[512];
	FILE *f;

	snprintf(dir, sizeof(dir), "%s/none", tmp);
	cr_assert_eq(failure_of(replay_error(dir, false, &rep)), FAILURE_INPUT, "%s", rep.error);
	cr_assert(rep.error[0]);

	/* corrupt metadata */
	snprintf(dir, sizeof(dir), "%s/t", tmp);
	generate("desktop", 200, dir);
	snprintf(path, sizeof(path), "%s/metadata", dir);
	f = fopen(path, "w");
	fputs("/* CTF 1.8 */ this is not TSDL {", f);
	fclose(f);
	cr_assert_eq(failure_of(replay_error(dir, false, &rep)), FAILURE_INPUT, "%s", rep.error);
}

Test(replay, foreign_events_are_ignored_or_refused_with_strict)
{
	struct replay_report rep;
	struct results res;
	const char *real = traces_real("tc-kernel-rpm-kmem");

	/* twice: the second replay reads the cache the first one wrote */
	for (int i = 0; i < 2; i++) {
		cr_assert_eq(replay(real, NULL, true, &res, &rep, NULL, 0), 0, "%s", rep.error);
		cr_assert_eq(rep.from_cache, i == 1);
		cr_assert_eq(rep.events, 31556);
		cr_assert_eq(rep.used, 0);
		cr_assert_eq(rep.ignored, 31556);
		results_fini(&res);
	}
	/* the cache holds no event classes: --strict reads the trace itself */
	cr_assert_eq(failure_of(replay_error(real, true, &rep)), FAILURE_INPUT, "%s", rep.error);
	cr_assert(strstr(rep.error, "--strict"), "%s", rep.error);
	cr_assert(strstr(rep.error, "event 0 at 1412670961211260539 ns: "), "%s", rep.error);
}

Test(replay, the_libc_trace_imports_and_replays_clean)
{
	const char *maps[] = { src("traces/maps/lttng-ust-libc.yaml") };
	char map[1024];
	struct replay_report rep;
	struct results res;

	snprintf(map, sizeof(map), "%s", maps[0]);
	maps[0] = map;
	cr_assert_eq(replay(traces_real("tc-ust-libc-memory"), NULL, true, &res, &rep,
			    maps, 1), 0, "%s", rep.error);
	cr_assert_eq(rep.events, 328056);
	cr_assert_eq(rep.used + rep.ignored + rep.unmatched, rep.events);
	cr_assert_eq(res.ops[WL_ALLOC_MDL].count, 164028, "every malloc became an MDL");
	cr_assert_gt(rep.unmatched, 0, "frees of memory allocated before the trace started");
	/* each such free is an object live at the start: more than the window leaves live */
	cr_assert_gt(rep.live_at_start, rep.left_live, "%llu at the start, %zu at the end",
		     (unsigned long long)rep.live_at_start, rep.left_live);
	cr_assert_leq(rep.live_at_start, rep.unmatched);
	cr_assert_eq(res.events.live_at_start, rep.live_at_start);
	/* the results say which map and what it made of the events */
	cr_assert_eq(res.run.nmaps, 1);
	cr_assert_str_eq(res.run.maps[0], map);
	cr_assert_eq(res.events.unmatched, rep.unmatched);
	cr_assert_eq(res.events.used, rep.used);
	expect_clean(&res, &rep);
	results_fini(&res);
}

Test(replay, the_kernel_trace_imports_and_replays_clean)
{
	char rpm[1024], pages[1024];
	const char *maps[] = { rpm, pages };
	struct replay_report rep;
	struct results res;

	snprintf(rpm, sizeof(rpm), "%s", src("traces/maps/linux-rpm.yaml"));
	snprintf(pages, sizeof(pages), "%s", src("traces/maps/linux-page-alloc.yaml"));
	cr_assert_eq(replay(traces_real("tc-kernel-rpm-kmem"), NULL, false, &res, &rep,
			    maps, 2), 0, "%s", rep.error);
	cr_assert_eq(rep.events, 31556);
	cr_assert_eq(res.ops[WL_MEMORY].count, 504 + 351, "one memory event per page alloc/free");
	cr_assert_eq(res.ops[WL_POWER].count, 3);
	cr_assert_eq(res.nviolations, 0);
	results_fini(&res);

	/* with --strict, a class no rule takes is an error, at its first event */
	struct replay_opts o = { .trace = traces_real("tc-kernel-rpm-kmem"),
				 .maps = maps, .nmaps = 2, .strict = true };
	struct scenario scn;

	cr_assert_eq(scenario_defaults(&scn), 0);
	o.scn = &scn;
	cr_assert_eq(failure_of(replay_run(&o, &res, &rep)), FAILURE_INPUT, "%s", rep.error);
	results_fini(&res);
	scenario_free(&scn);
	cr_assert(strstr(rep.error, "event 0 at 1412670961211260539 ns: no rule of the import maps "
			 "takes event class 'kmem_kmalloc' (--strict)"), "%s", rep.error);
}

Test(replay, a_malformed_map_names_file_line_col)
{
	struct replay_report rep;
	struct results res;
	char map[512], trace[256];
	const char *maps[] = { map };
	FILE *f;

	snprintf(map, sizeof(map), "%s/bad.yaml", tmp);
	f = fopen(map, "w");
	fputs("rules:\n  - event: x\n    op: alloc_mdl\n    fields: {bytes: \"size <<\"}\n", f);
	fclose(f);
	snprintf(trace, sizeof(trace), "%s/t", tmp);
	generate("desktop", 100, trace);
	cr_assert_eq(failure_of(replay(trace, NULL, false, &res, &rep, maps, 1)), FAILURE_INPUT,
		     "%s", rep.error);
	cr_assert(strstr(rep.error, "bad.yaml:3:9: error:"), "%s", rep.error); /* op needs key */
	cr_assert(strstr(rep.error, "bad.yaml:4:"), "%s", rep.error);
	results_fini(&res);
}

static int replay_with_plan(const char *trace, const char *yaml, struct results *res,
			    struct replay_report *rep)
{
	struct replay_opts o = { 0 };
	struct fault_plan plan;
	struct scenario scn;
	char file[512], err[1024] = "", trace_path[1024];
	FILE *f;
	int rc;

	snprintf(trace_path, sizeof(trace_path), "%s", trace); /* src() reuses its buffer */
	o.trace = trace_path;
	snprintf(file, sizeof(file), "%s/faults.yaml", tmp);
	f = fopen(file, "w");
	cr_assert_not_null(f);
	fputs(yaml, f);
	fclose(f);
	cr_assert_eq(fault_plan_load(file, &plan, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(scenario_load(src("traces/scenarios/lda-chain.yaml"), &scn, err, sizeof(err)), 0);
	o.scn = &scn;
	o.faults = &plan;
	o.faults_path = file;
	rc = replay_run(&o, res, rep);
	fault_plan_free(&plan);
	scenario_free(&scn);
	return rc;
}

static uint64_t injected(const struct results *res, const char *point)
{
	for (size_t i = 0; i < res->ninjected; i++)
		if (!strcmp(res->injected[i].name, point))
			return res->injected[i].n;
	return 0;
}

Test(replay, a_forced_pin_failure_takes_the_chunked_path)
{
	struct replay_report rep;
	struct results res;

	cr_assert_eq(replay_with_plan(src("traces/power-cycle"),
				      "faults:\n  - point: fbsave/pin\n    probability: 1\n", &res, &rep),
		     0, "%s", rep.error);
	cr_assert_gt(res.power.transitions, 0);
	cr_assert_eq(res.power.pinned, 0);
	cr_assert_eq(res.power.chunked, res.power.transitions);
	cr_assert_eq(injected(&res, "fbsave/pin"), res.power.transitions);
	expect_clean(&res, &rep);
	results_fini(&res);
}

Test(replay, a_failed_chunk_resets_and_still_makes_progress)
{
	struct replay_report rep;
	struct results res;

	cr_assert_eq(replay_with_plan(src("traces/power-cycle"),
				      "faults:\n  - point: fbsave/*\n    probability: 1\n", &res, &rep),
		     0, "%s", rep.error);
	cr_assert_eq(res.power.reset, res.power.transitions, "every transition cancelled");
	cr_assert_eq(res.power.completed, 0);
	for (size_t i = 0; i < res.ninvariants; i++)
		if (!strcmp(res.invariants[i].name, "forward_progress"))
			cr_assert(res.invariants[i].holds, "a reset is forward progress");
	results_fini(&res);
}

/* An adapter whose start fails part way gives back all it took (the driver's buffers, segments). */
Test(replay, a_start_that_fails_part_way_gives_back_what_it_took)
{
	static const char *const plans[] = {
		"faults:\n  - point: mem/alloc_mdl\n    nth: 2\n", /* the second small buffer */
		"faults:\n  - point: mem/commit\n    nth: 3\n",
		"faults:\n  - point: mem/lock\n    nth: 2\n",
	};
	struct replay_report rep;
	struct results res;

	for (size_t i = 0; i < sizeof(plans) / sizeof(plans[0]); i++) {
		cr_assert_eq(replay_with_plan(src("traces/power-cycle"), plans[i], &res, &rep), 0, "%s",
			     rep.error);
		cr_assert_gt(rep.refused, 0, "%s: the adapter did not start", plans[i]);
		cr_assert(invariant(&res, "baseline_restored"), "%s", plans[i]);
		cr_assert(invariant(&res, "no_leaks"), "%s", plans[i]);
		results_fini(&res);
	}
}

Test(replay, a_pressure_schedule_takes_effect_at_its_event)
{
	struct replay_report rep;
	struct results res;

	/* from event 1000 on, too little lockable memory to pin a whole save area */
	cr_assert_eq(replay_with_plan(src("traces/power-cycle"),
				      "pressure:\n  - at: {event: 1000}\n    lockable_available: 4MiB\n",
				      &res, &rep), 0, "%s", rep.error);
	cr_assert_gt(res.power.pinned, 0, "before event 1000 saves pin");
	cr_assert_gt(res.power.chunked, 0, "after it they go by chunks");
	cr_assert_eq(res.power.reset, 0);
	results_fini(&res);
}

/*
 * Fences made and dropped, then one dropped twice at event @bad, then more:
 * a trace the decoder can run far ahead in while the model works behind it.
 */
struct twice {
	uint64_t n, at, bad;
};

static int twice_next(void *ctx, struct wl_event *e)
{
	struct twice *t = ctx;
	uint64_t i = t->at;

	if (i == t->n)
		return 0;
	t->at++;
	*e = (struct wl_event){ .ts = 1000000000 + i * 1000,
				.kind = i % 2 && i != t->bad + 1 ? WL_FENCE_DESTROY : WL_FENCE_CREATE };
	e->v[WL_ID] = i / 2;
	if (i == t->bad)
		*e = (struct wl_event){ .ts = e->ts, .kind = WL_FENCE_DESTROY,
					.v = { [WL_ID] = i / 2 - 1 } };
	return 1;
}

Test(replay, bad_input_found_by_the_model_says_where_however_far_the_decoder_is)
{
	struct twice t = { .n = 200000, .bad = 100000 };
	struct replay_report rep;
	struct results res;
	char dir[256], err[256] = "";

	snprintf(dir, sizeof(dir), "%s/twice", tmp);
	cr_assert_eq(ctf_write(dir, twice_next, &t, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(replay(dir, NULL, false, &res, &rep, NULL, 0), -EINVAL);
	cr_assert(strstr(rep.error, "event 100000 at 1100000000 ns"), "%s", rep.error);
	cr_assert(strstr(rep.error, "freed twice"), "%s", rep.error);
	results_fini(&res);
}

/*
 * Give event @index of a trace of fence events (as twice_next() writes
 * them) an event class id no class has: decoding stops there. The layout is
 * sink.ctf.fs's, byte aligned: a 36-byte packet header, then a context of
 * five 64-bit fields (packet_size and content_size first, in bits), then the
 * events, each a 64-bit id and timestamp followed by its 64-bit fields.
 */
static void unknown_class_at(const char *dir, uint64_t index)
{
	enum { HEADER = 36, CONTEXT = 40 };
	const uint64_t event = 16 + 8 * wl_catalogue[WL_FENCE_CREATE].nfields;
	uint64_t pos = 0, bad = UINT64_MAX;
	uint8_t *bytes;
	char path[512];
	long size;
	FILE *f;

	snprintf(path, sizeof(path), "%s/stream", dir);
	f = fopen(path, "r+b");
	cr_assert(f, "%s", path);
	cr_assert_eq(fseek(f, 0, SEEK_END), 0);
	size = ftell(f);
	bytes = malloc((size_t)size);
	rewind(f);
	cr_assert_eq(fread(bytes, 1, (size_t)size, f), (size_t)size);
	while (bad == UINT64_MAX && pos + HEADER + CONTEXT <= (uint64_t)size) {
		uint64_t packet_bits, content_bits, n;

		memcpy(&packet_bits, bytes + pos + HEADER, 8);
		memcpy(&content_bits, bytes + pos + HEADER + 8, 8);
		n = (content_bits / 8 - HEADER - CONTEXT) / event;
		if (index < n)
			bad = pos + HEADER + CONTEXT + index * event;
		index -= index < n ? 0 : n;
		pos += packet_bits / 8;
	}
	cr_assert_neq(bad, UINT64_MAX, "no such event in %s", path);
	memset(bytes + bad, 0xff, 8);
	rewind(f);
	cr_assert_eq(fwrite(bytes, 1, (size_t)size, f), (size_t)size);
	fclose(f);
	free(bytes);
}

/*
 * A double free at event 100000 and a damaged stream: whichever comes first
 * in the trace is the error. Damage a few hundred events after the double
 * free stops the decoder while the model has yet to reach it (the batch
 * holding both is handed over only when the decoder stops).
 */
Test(replay, the_first_error_in_the_trace_is_the_one_reported)
{
	struct replay_report rep;
	struct results res;
	char dir[256], err[256] = "";

	for (int late = 0; late < 2; late++) {
		struct twice t = { .n = 200000, .bad = 100000 };

		snprintf(dir, sizeof(dir), "%s/twice%d", tmp, late);
		cr_assert_eq(ctf_write(dir, twice_next, &t, err, sizeof(err)), 0, "%s", err);
		unknown_class_at(dir, late ? 100300 : 40000);
		cr_assert_eq(replay(dir, NULL, false, &res, &rep, NULL, 0), -EINVAL, "%s", rep.error);
		if (late) {
			cr_assert(strstr(rep.error, "event 100000 at 1100000000 ns"), "%s", rep.error);
			cr_assert(strstr(rep.error, "freed twice"), "%s", rep.error);
		} else {
			cr_assert(strstr(rep.error, "corrupt trace after event 39999"), "%s", rep.error);
		}
		results_fini(&res);
	}
}
