/* SPDX-License-Identifier: MIT */
/*
 * What a replay leaves live: objects whose other end a recording lost,
 * those a window of a longer run or the adapters' whole life leaves, and
 * those live when a bugcheck stops the machine.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/failure.h"
#include "core/scenario.h"
#include "replay/ctf.h"
#include "tests/common/jsonq.h"
#include "tests/replay/replay_fixture.h"

TestSuite(replay, .init = setup, .fini = teardown);

/* ---- a recording that lost events ---- */

/* Little-endian, aligned to its own size, as the metadata below declares. */
static void put_le(uint8_t *b, size_t *o, uint64_t v, size_t bytes)
{
	*o = (*o + bytes - 1) / bytes * bytes;
	for (size_t i = 0; i < bytes; i++)
		b[(*o)++] = (uint8_t)(v >> (8 * i));
}

/*
 * Two packets of MDL events on adapter 0, 100 ns apart; the second packet's
 * events_discarded counter says @lost events were lost in between:
 *   alloc 1, alloc 2 | free 1, free 3 (its alloc lost), alloc 2 (its free lost), free 2
 */
static void write_lossy_trace(const char *dir, uint64_t lost)
{
	static const char meta[] =
		"/* CTF 1.8 */\n"
		"typealias integer { size = 32; align = 32; signed = false; } := uint32_t;\n"
		"typealias integer { size = 64; align = 64; signed = false; } := uint64_t;\n"
		"trace { major = 1; minor = 8; byte_order = le;\n"
		"  packet.header := struct { uint32_t magic; uint32_t stream_id; }; };\n"
		"clock { name = c; freq = 1000000000; offset = 0; };\n"
		"typealias integer { size = 64; align = 64; signed = false; map = clock.c.value; } := ts_t;\n"
		"stream { id = 0;\n"
		"  packet.context := struct { ts_t timestamp_begin; ts_t timestamp_end;\n"
		"    uint64_t content_size; uint64_t packet_size; uint64_t events_discarded; };\n"
		"  event.header := struct { uint32_t id; ts_t timestamp; }; };\n"
		"event { name = \"gpuiso_wl:alloc_mdl\"; id = 0; stream_id = 0;\n"
		"  fields := struct { uint64_t adapter; uint64_t id; uint64_t bytes; }; };\n"
		"event { name = \"gpuiso_wl:free_mdl\"; id = 1; stream_id = 0;\n"
		"  fields := struct { uint64_t adapter; uint64_t id; }; };\n";
	static const struct { uint32_t kind; uint64_t id; } events[2][4] = {
		{ { 0, 1 }, { 0, 2 } },
		{ { 1, 1 }, { 1, 3 }, { 0, 2 }, { 1, 2 } },
	};
	static const size_t count[2] = { 2, 4 };
	char path[512];
	uint64_t ts = 100;
	FILE *f;

	cr_assert_eq(mkdir(dir, 0755), 0);
	snprintf(path, sizeof(path), "%s/metadata", dir);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs(meta, f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/stream_0", dir);
	f = fopen(path, "wb");
	cr_assert_not_null(f);
	for (int k = 0; k < 2; k++) {
		uint8_t b[4096] = { 0 };
		size_t o = 0, content_at;

		put_le(b, &o, 0xC1FC1FC1, 4);
		put_le(b, &o, 0, 4);
		put_le(b, &o, ts, 8);
		put_le(b, &o, ts + 100 * (count[k] - 1), 8);
		content_at = o;
		put_le(b, &o, 0, 8);                /* content_size, below */
		put_le(b, &o, sizeof(b) * 8, 8);    /* packet_size in bits */
		put_le(b, &o, k ? lost : 0, 8);     /* a running count */
		for (size_t i = 0; i < count[k]; i++, ts += 100) {
			put_le(b, &o, events[k][i].kind, 4);
			put_le(b, &o, ts, 8);
			put_le(b, &o, 0, 8);                  /* adapter */
			put_le(b, &o, events[k][i].id, 8);
			if (events[k][i].kind == 0)
				put_le(b, &o, 4096, 8);       /* bytes */
		}
		for (size_t i = 0; i < 8; i++)
			b[content_at + i] = (uint8_t)((o * 8) >> (8 * i));
		cr_assert_eq(fwrite(b, 1, sizeof(b), f), sizeof(b));
	}
	fclose(f);
}

Test(replay, after_lost_events_objects_without_their_other_end_are_not_an_error)
{
	struct replay_report rep;
	struct results res;
	char dir[256];

	/* nothing lost: a free of an id never allocated is bad input */
	snprintf(dir, sizeof(dir), "%s/whole", tmp);
	write_lossy_trace(dir, 0);
	cr_assert_eq(failure_of(replay_error(dir, false, &rep)), FAILURE_INPUT, "%s", rep.error);
	cr_assert(strstr(rep.error, "event 3 at 400 ns"), "%s", rep.error);

	/* lost: that free is unmatched, the allocation again ends the old one; from the cache too */
	snprintf(dir, sizeof(dir), "%s/lossy", tmp);
	write_lossy_trace(dir, 2);
	for (int i = 0; i < 2; i++) {
		cr_assert_eq(replay(dir, NULL, true, &res, &rep, NULL, 0), 0, "%s", rep.error);
		cr_assert_eq(rep.from_cache, i == 1);
		cr_assert_eq(rep.events, 6);
		cr_assert_eq(rep.discarded, 2);
		cr_assert_eq(rep.used, 5);
		cr_assert_eq(rep.unmatched, 1);
		cr_assert_eq(rep.ignored, 0);
		cr_assert_eq(rep.lost.skipped, 1);
		cr_assert_eq(rep.lost.ended, 1);
		cr_assert_eq(rep.refused, 0);
		cr_assert_eq(rep.left_live, 0);
		cr_assert_eq(res.ops[WL_ALLOC_MDL].count, 3);
		cr_assert_eq(res.ops[WL_FREE_MDL].count, 2);
		cr_assert_eq(res.events.unmatched, 1);
		expect_clean(&res, &rep);
		results_fini(&res);
	}
}

/* --- what a trace leaves live: a window of a longer run, or the adapters' whole life --- */

struct script {
	const struct wl_event *ev;
	size_t n, at;
};

static int script_next(void *ctx, struct wl_event *e)
{
	struct script *s = ctx;

	if (s->at == s->n)
		return 0;
	*e = s->ev[s->at++];
	return 1;
}

#define WL(t, k, id_, bytes)                                                    \
	{ .ts = (t), .kind = (k), .v = { [WL_ID] = (id_), [WL_BYTES] = (bytes) } }

/* Allocates four objects and frees one: ids 1, 2 and 4 (events 0, 1 and 4) stay live. */
static const struct wl_event leaky[] = {
	WL(1000, WL_ALLOC_MDL, 1, 4096),     WL(2000, WL_ALLOC_CONTIGUOUS, 2, 8192),
	WL(3000, WL_ALLOC_MDL, 3, 4096),     WL(4000, WL_FREE_MDL, 3, 0),
	WL(5000, WL_FENCE_CREATE, 4, 0),
};

/* The same, freeing everything. */
static const struct wl_event tidy[] = {
	WL(1000, WL_ALLOC_MDL, 1, 4096),  WL(2000, WL_ALLOC_CONTIGUOUS, 2, 8192),
	WL(3000, WL_FREE_MDL, 1, 0),      WL(4000, WL_FREE_CONTIGUOUS, 2, 0),
	WL(5000, WL_FENCE_CREATE, 4, 0),  WL(6000, WL_FENCE_DESTROY, 4, 0),
};

static void write_script(const char *dir, const struct wl_event *ev, size_t n)
{
	struct script s = { .ev = ev, .n = n };
	char err[256] = "";

	cr_assert_eq(ctf_write(dir, script_next, &s, err, sizeof(err)), 0, "%s", err);
}

/* Replay @trace on the defaults, through the cache, taken to cover @covers. */
static int replay_covering(const char *trace, enum trace_covers covers, struct results *res,
			   struct replay_report *rep)
{
	struct replay_opts o = { .trace = trace, .cache = true, .cache_dir = tmp, .covers = covers };
	struct scenario scn;
	int rc;

	cr_assert_eq(scenario_defaults(&scn), 0);
	o.scn = &scn;
	rc = replay_run(&o, res, rep);
	scenario_free(&scn);
	return rc;
}

/* The summary, and the results JSON, of a replay, as text. */
static void texts(const struct results *res, const struct replay_report *rep, char **summary,
		  char **json)
{
	char path[300];
	size_t len;
	FILE *f = open_memstream(summary, &len);

	cr_assert_not_null(f);
	replay_summary(res, rep, false, f);
	cr_assert_eq(fclose(f), 0);
	snprintf(path, sizeof(path), "%s/r.json", tmp);
	cr_assert_eq(results_write_json(res, path), 0);
	f = fopen(path, "r");
	cr_assert_not_null(f);
	*json = calloc(1, 1 << 16);
	cr_assert_gt(fread(*json, 1, (1 << 16) - 1, f), 0);
	fclose(f);
	cr_assert(jsonq_valid(*json), "%s", *json);
}

static void expect_json(const char *json, const char *path, const char *want)
{
	char value[64];

	cr_assert(jsonq_get(json, path, value, sizeof(value)), "%s missing", path);
	cr_assert_str_eq(value, want, "%s", path);
}

Test(replay, a_window_releases_what_it_left_live_and_counts_it)
{
	struct replay_report rep;
	struct results res;
	char dir[256], *summary, *json;

	snprintf(dir, sizeof(dir), "%s/leaky", tmp);
	write_script(dir, leaky, sizeof(leaky) / sizeof(leaky[0]));
	/* the default: a window of a longer run */
	cr_assert_eq(replay_covering(dir, COVERS_WINDOW, &res, &rep), 0, "%s", rep.error);
	cr_assert_eq(rep.left_live, 3);
	cr_assert_eq(res.events.left_live, 3);
	expect_clean(&res, &rep);
	texts(&res, &rep, &summary, &json);
	cr_assert(strstr(summary, "left live by the trace: 3 objects, released at the end "
				  "(--trace-covers window: a window of a longer run)"), "%s", summary);
	/* a gpuiso trace frees nothing it did not create: it began with none live */
	cr_assert(strstr(summary, "GREW: the window ends with 3 live objects and began with 0"),
		  "%s", summary);
	expect_json(json, "events.left_live", "3");
	expect_json(json, "events.live_at_start", "0");
	expect_json(json, "run.trace_covers", "window");
	expect_json(json, "invariants.no_leaks", "true");
	free(summary);
	free(json);
	results_fini(&res);
}

/*
 * Latencies above the histograms' range (73 minutes) are said in the
 * summary and the JSON, each where it was; none is said where there was none.
 */
Test(replay, latencies_out_of_range_are_said)
{
	struct replay_report rep;
	struct results res;
	char dir[256], path[128], *summary, *json, want[160];
	struct op_result *first = NULL, *other = NULL;

	snprintf(dir, sizeof(dir), "%s/leaky", tmp);
	write_script(dir, leaky, sizeof(leaky) / sizeof(leaky[0]));
	cr_assert_eq(replay_covering(dir, COVERS_WINDOW, &res, &rep), 0, "%s", rep.error);
	texts(&res, &rep, &summary, &json);
	cr_assert_null(strstr(summary, "OUT OF RANGE"), "%s", summary);
	cr_assert_null(strstr(json, "overflow"), "%s", json);
	free(summary);
	free(json);

	for (size_t k = 0; k < res.nops; k++)
		if (res.ops[k].count && !first)
			first = &res.ops[k];
		else if (res.ops[k].count && !other)
			other = &res.ops[k];
	cr_assert(first && other);
	cr_assert_eq(hist_record(&first->wall, HIST_TOP + 1), 0);
	cr_assert_eq(hist_record(&first->wall, UINT64_MAX), 0);
	texts(&res, &rep, &summary, &json);
	snprintf(want, sizeof(want), "OUT OF RANGE: 2 %s latencies above 4398046511103 ns (73 min)",
		 first->name);
	cr_assert(strstr(summary, want), "%s", summary);
	cr_assert_null(strstr(strstr(summary, "OUT OF RANGE") + 1, "OUT OF RANGE"), "%s", summary);
	snprintf(path, sizeof(path), "ops.%s.latency_ns.overflow", first->name);
	expect_json(json, path, "2");
	snprintf(path, sizeof(path), "ops.%s.latency_ns.max", first->name);
	expect_json(json, path, "18446744073709551615");
	snprintf(path, sizeof(path), "ops.%s.modeled_ns.overflow", first->name);
	cr_assert_not(jsonq_get(json, path, want, sizeof(want)), "%s", json);
	snprintf(path, sizeof(path), "ops.%s.latency_ns.overflow", other->name);
	cr_assert_not(jsonq_get(json, path, want, sizeof(want)), "%s", json);
	free(summary);
	free(json);
	results_fini(&res);
}

Test(replay, a_whole_life_reports_what_it_left_live_as_leaks)
{
	static const uint64_t created[] = { 0, 1, 4 }; /* ids 1, 2, 4 */
	struct replay_report rep;
	struct results res;
	char dir[256], *summary, *json;

	snprintf(dir, sizeof(dir), "%s/leaky", tmp);
	write_script(dir, leaky, sizeof(leaky) / sizeof(leaky[0]));
	for (int i = 0; i < 2; i++) {
		cr_assert_eq(replay_covering(dir, COVERS_LIFE, &res, &rep), 0, "%s", rep.error);
		cr_assert_eq(rep.from_cache, i == 1);
		cr_assert_eq(rep.left_live, 3);
		cr_assert_eq(res.events.left_live, 3);
		cr_assert_eq(res.nviolations, 3, "%s", res.nviolations ? res.violations[0].detail : "");
		for (size_t k = 0; k < res.nviolations; k++) {
			const struct violation_result *v = &res.violations[k];

			cr_assert_str_eq(v->code, "HANDLE_LEAK");
			cr_assert(v->event == created[0] || v->event == created[1] ||
				  v->event == created[2], "%s at event %llu", v->detail,
				  (unsigned long long)v->event);
		}
		cr_assert(replay_findings(&res), "the run has findings: gpuiso replay exits 1");
		cr_assert(invariant(&res, "baseline_restored"), "the model gave everything back");
		cr_assert_not(invariant(&res, "no_leaks"));
		texts(&res, &rep, &summary, &json);
		cr_assert(strstr(summary, "left live by the trace: 3 objects, leaked "
					  "(--trace-covers life: the adapters' whole life)"), "%s", summary);
		cr_assert(strstr(summary, "HANDLE_LEAK at event 4: id 4 created by fence_create at 5000 ns:"),
			  "%s", summary);
		cr_assert(strstr(summary, "invariant broken: no_leaks"), "%s", summary);
		expect_json(json, "events.left_live", "3");
		expect_json(json, "run.trace_covers", "life");
		expect_json(json, "invariants.no_leaks", "false");
		free(summary);
		free(json);
		results_fini(&res);
	}
}

Test(replay, a_trace_that_frees_everything_has_no_leaks_either_way)
{
	static const enum trace_covers covers[] = { COVERS_WINDOW, COVERS_LIFE };
	struct replay_report rep;
	struct results res;
	char dir[256];

	snprintf(dir, sizeof(dir), "%s/tidy", tmp);
	write_script(dir, tidy, sizeof(tidy) / sizeof(tidy[0]));
	for (size_t i = 0; i < 2; i++) {
		cr_assert_eq(replay_covering(dir, covers[i], &res, &rep), 0, "%s", rep.error);
		cr_assert_eq(rep.left_live, 0);
		cr_assert_eq(res.events.left_live, 0);
		expect_clean(&res, &rep);
		results_fini(&res);
	}
}

/* A WDDM 3.2 driver's callback from a DPC: written as CTF, read back, the run ends there. */
static const struct wl_event dispatch_callback[] = {
	WL(1000, WL_ALLOC_MDL, 1, 4096),
	{ .ts = 2000, .kind = WL_IRQL, .v = { [WL_ARG] = CORE_IRQL_DISPATCH } },
	WL(3000, WL_ALLOC_MDL, 2, 4096),
	{ .ts = 4000, .kind = WL_IRQL, .v = { [WL_ARG] = CORE_IRQL_PASSIVE } },
	WL(5000, WL_FREE_MDL, 1, 0),
	WL(6000, WL_DRIVER_MDL_CREATE, 3, 4096),
};

Test(replay, a_bugcheck_stops_the_replay_and_says_where)
{
	struct replay_opts o = { .cache = true, .cache_dir = tmp };
	struct replay_report rep;
	struct results res;
	struct scenario scn;
	char dir[256], *summary, *json;

	snprintf(dir, sizeof(dir), "%s/bugcheck", tmp);
	write_script(dir, dispatch_callback, sizeof(dispatch_callback) / sizeof(dispatch_callback[0]));
	cr_assert_eq(scenario_defaults(&scn), 0);
	scn.adapters[0].wddm = SCN_WDDM(3, 2);
	o.trace = dir;
	o.scn = &scn;
	for (int pass = 0; pass < 2; pass++) { /* from CTF, then from the cache: the same */
		cr_assert_eq(replay_run(&o, &res, &rep), 0, "%s", rep.error);
		cr_assert_eq(rep.from_cache, pass == 1);
		cr_assert(rep.bugchecked);
		cr_assert_eq(rep.bugcheck_event, 2);
		cr_assert_eq(rep.bugcheck_ts, 3000);
		cr_assert_eq(rep.not_run, 3);
		cr_assert_eq(rep.used, 3);
		cr_assert_eq(res.nviolations, 1);
		texts(&res, &rep, &summary, &json);
		cr_assert(strstr(summary, "STOPPED: bugcheck at event 2 (3000 ns)"), "%s", summary);
		cr_assert(strstr(summary, "the 3 events after it were not executed"), "%s", summary);
		cr_assert(strstr(summary, "left live by the trace: 1 objects when the machine stopped"),
			  "%s", summary);
		expect_json(json, "events.not_run", "3");
		free(summary);
		free(json);
		results_fini(&res);
	}
	scenario_free(&scn);
}
