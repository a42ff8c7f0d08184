/* SPDX-License-Identifier: MIT */
/*
 * gpuiso trace dump and trace make as a user runs them: dump -> make ->
 * dump gives the same lines and the same replay results for every
 * generator profile and for a foreign trace read through import maps; a
 * hand-written text trace replays to its expected result; errors say
 * FILE:LINE:COL (or the event) and exit 2 leaving nothing behind.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "replay/event.h"
#include "replay/gen.h"
#include "run_gpuiso.h"
#include "scratch.h"
#include "tests/common/jsonq.h"
#include "tests/common/traces_real.h"

TestSuite(trace_text, .fini = scratch_cleanup);

static char *slurp(const char *path)
{
	char *buf = calloc(1, 8 << 20);
	FILE *f = fopen(path, "r");

	cr_assert_not_null(f, "%s", path);
	cr_assert_not_null(buf);
	cr_assert_lt(fread(buf, 1, (8 << 20) - 1, f), (size_t)(8 << 20) - 1, "%s: too big", path);
	fclose(f);
	return buf;
}

/* The text of the JSON value that starts after @key (an object or array), malloc'd. */
static char *section(const char *doc, const char *key)
{
	const char *at = strstr(doc, key), *p;
	int depth = 0;

	cr_assert_not_null(at, "no %s", key);
	at += strlen(key);
	for (p = at; *p; p++) {
		depth += *p == '{' || *p == '[';
		depth -= *p == '}' || *p == ']';
		if (!depth)
			break;
	}
	return strndup(at, (size_t)(p - at + 1));
}

/*
 * Two results files agree on what a replay found: every operation's count
 * and errors, the events discarded and refused, power, violations (their
 * events too with @same_indices) and invariants.
 */
static void expect_same_results(const char *json_a, const char *json_b, bool same_indices)
{
	static const char *const keys[] = { "events.discarded", "events.lost_packets",
					     "events.refused", "events.left_live", "power.transitions",
					     "power.completed", "power.reset" };
	char *a = slurp(json_a), *b = slurp(json_b), va[64], vb[64], *sa, *sb;

	cr_assert(jsonq_valid(a) && jsonq_valid(b));
	for (int k = 0; k < WL_NKINDS; k++) {
		for (int f = 0; f < 2; f++) {
			char path[96];
			bool ha, hb;

			snprintf(path, sizeof(path), "ops.%s.%s", wl_catalogue[k].name,
				 f ? "errors" : "count");
			ha = jsonq_get(a, path, va, sizeof(va));
			hb = jsonq_get(b, path, vb, sizeof(vb));
			cr_assert_eq(ha, hb, "%s", path);
			if (ha)
				cr_assert_str_eq(va, vb, "%s", path);
		}
	}
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		cr_assert(jsonq_get(a, keys[i], va, sizeof(va)), "%s", keys[i]);
		cr_assert(jsonq_get(b, keys[i], vb, sizeof(vb)), "%s", keys[i]);
		cr_assert_str_eq(va, vb, "%s", keys[i]);
	}
	for (int i = 0;; i++) {
		char path[64];
		bool ha, hb;

		snprintf(path, sizeof(path), "faults.violations.%d.code", i);
		ha = jsonq_get(a, path, va, sizeof(va));
		hb = jsonq_get(b, path, vb, sizeof(vb));
		cr_assert_eq(ha, hb, "%s", path);
		if (!ha)
			break;
		cr_assert_str_eq(va, vb, "%s", path);
		snprintf(path, sizeof(path), "faults.violations.%d.event", i);
		if (same_indices) {
			cr_assert(jsonq_get(a, path, va, sizeof(va)) && jsonq_get(b, path, vb, sizeof(vb)));
			cr_assert_str_eq(va, vb, "%s", path);
		}
	}
	sa = section(a, "\"invariants\":");
	sb = section(b, "\"invariants\":");
	cr_assert_str_eq(sa, sb);
	free(sa);
	free(sb);
	free(a);
	free(b);
}

/* Every profile: gen, dump, make from stdin, dump again; the replays agree. */
Test(trace_text, every_profile_round_trips_and_replays_the_same)
{
	for (const char *const *p = gen_profiles(); *p; p++) {
		char orig[256], made[280], t1[280], t2[280], j1[280], j2[280];
		char *a, *b;
		struct run r;

		snprintf(orig, sizeof(orig), "%s", tpath(*p));
		snprintf(made, sizeof(made), "%s.made", orig);
		snprintf(t1, sizeof(t1), "%s.txt", orig);
		snprintf(t2, sizeof(t2), "%s.again.txt", orig);
		snprintf(j1, sizeof(j1), "%s.json", orig);
		snprintf(j2, sizeof(j2), "%s.made.json", orig);
		RUN(&r, "trace", "gen", "--profile", *p, "--events", "300", "-o", orig);
		cr_assert_eq(r.status, 0, "%s", r.err);
		RUN(&r, "trace", "dump", orig, "-o", t1);
		cr_assert_eq(r.status, 0, "%s: %s", *p, r.err);
		cr_assert_str_eq(r.out, "", "-o: nothing on stdout");
		gpuiso_stdin(&r, t1, (const char *const[]){ "trace", "make", "-", "-o", made, NULL });
		cr_assert_eq(r.status, 0, "%s: %s", *p, r.err);
		RUN(&r, "trace", "dump", made, "-o", t2);
		cr_assert_eq(r.status, 0, "%s: %s", *p, r.err);
		a = slurp(t1);
		b = slurp(t2);
		cr_assert_str_eq(a, b, "%s: the made trace dumps differently", *p);
		cr_assert_eq(strncmp(a, "# ", 2), 0);
		free(a);
		free(b);

		/* babeltrace2 reads it */
		char cmd[600];

		snprintf(cmd, sizeof(cmd), "babeltrace2 '%s' -o dummy 2>/dev/null", made);
		cr_assert_eq(system(cmd), 0, "%s", *p);

		RUN(&r, "replay", orig, "--no-cache", "--json", j1);
		cr_assert_lt(r.status, 2, "%s: %s", *p, r.err);
		RUN(&r, "replay", made, "--cache-dir", tpath("cache"), "--json", j2);
		cr_assert_lt(r.status, 2, "%s: %s", *p, r.err);
		expect_same_results(j1, j2, true);
	}
}

/* A foreign trace dumps through its import maps; replaying what make writes agrees. */
Test(trace_text, a_foreign_trace_dumps_through_import_maps)
{
	const char *txt = tpath("kernel.txt"), *made = tpath("kernel"), *j1 = tpath("k1.json"),
		   *j2 = tpath("k2.json");
	char made_copy[256], j1c[256], j2c[256];
	struct run r;
	char *text;

	snprintf(made_copy, sizeof(made_copy), "%s", made);
	snprintf(j1c, sizeof(j1c), "%s", j1);
	snprintf(j2c, sizeof(j2c), "%s", j2);
	RUN(&r, "trace", "dump", traces_real("tc-kernel-rpm-kmem"), "--map",
	    "traces/maps/linux-rpm.yaml", "--map", "traces/maps/linux-page-alloc.yaml", "-o", txt);
	cr_assert_eq(r.status, 0, "%s", r.err);
	text = slurp(txt);
	cr_assert(strstr(text, "\npower ts=") && strstr(text, "\nmemory ts="), "%.300s", text);
	free(text);
	RUN(&r, "trace", "make", txt, "-o", made_copy);
	cr_assert_eq(r.status, 0, "%s", r.err);
	RUN(&r, "replay", traces_real("tc-kernel-rpm-kmem"), "--map",
	    "traces/maps/linux-rpm.yaml", "--map", "traces/maps/linux-page-alloc.yaml",
	    "--cache-dir", tpath("cache"), "--json", j1c);
	cr_assert_lt(r.status, 2, "%s", r.err);
	RUN(&r, "replay", made_copy, "--cache-dir", tpath("cache"), "--json", j2c);
	cr_assert_lt(r.status, 2, "%s", r.err);
	/* the foreign trace's event indices count its other events too */
	expect_same_results(j1c, j2c, false);

	/* without the maps: nothing is a workload event, and the dump says what to do */
	RUN(&r, "trace", "dump", traces_real("tc-kernel-rpm-kmem"));
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_assert(strstr(r.err, "--map"), "%s", r.err);
	/* a map that is not one: where */
	RUN(&r, "trace", "dump", traces_real("tc-kernel-rpm-kmem"), "--map", "README.md");
	cr_assert_eq(r.status, 2, "%s", r.err);
	cr_assert(strstr(r.err, "README.md:"), "%s", r.err);
}

/* tests/data/text/unmap-after-free.txt: the violation it was written to show. */
Test(trace_text, a_hand_written_trace_replays_to_its_expected_result)
{
	const char *dir = tpath("uaf"), *json = tpath("uaf.json");
	char d[256], j[256], value[64], *doc;
	struct run r;

	snprintf(d, sizeof(d), "%s", dir);
	snprintf(j, sizeof(j), "%s", json);
	RUN(&r, "trace", "make", "tests/data/text/unmap-after-free.txt", "-o", d);
	cr_assert_eq(r.status, 0, "%s", r.err);
	RUN(&r, "replay", d, "--cache-dir", tpath("cache"), "--json", j);
	cr_assert_eq(r.status, 1, "a violation: %s%s", r.out, r.err);
	cr_assert(strstr(r.out, "8 used, 0 ignored, 0 unmatched"), "%s", r.out);
	doc = slurp(j);
	cr_assert(jsonq_get(doc, "faults.violations.0.code", value, sizeof(value)));
	cr_assert_str_eq(value, "UNMAP_AFTER_FREE");
	cr_assert(jsonq_get(doc, "faults.violations.0.event", value, sizeof(value)));
	cr_assert_str_eq(value, "5");
	cr_assert_not(jsonq_get(doc, "faults.violations.1.code", value, sizeof(value)));
	cr_assert(jsonq_get(doc, "ops.alloc_create.count", value, sizeof(value)));
	cr_assert_str_eq(value, "1");
	cr_assert(jsonq_get(doc, "invariants.no_leaks", value, sizeof(value)));
	cr_assert_str_eq(value, "true");
	free(doc);
}

/*
 * tests/data/text/seed-rules.txt: the save callbacks, CPU access, IO-space
 * PMOs with CPU views and a disable attempt, from text through CTF to the
 * replay's verdict, and back to the same text.
 */
Test(trace_text, the_seed_rules_reach_a_replay_from_a_hand_written_trace)
{
	static const struct {
		const char *code, *event;
	} want[] = { { "FB_NOT_LEAD", "0" }, { "CPU_ACCESS", "10" }, { "CPU_ACCESS", "20" } };
	char d[256], j[256], key[64], value[64], path[4096], *doc, *text;
	const char *body;
	struct run r;

	snprintf(d, sizeof(d), "%s", tpath("seed-rules"));
	snprintf(j, sizeof(j), "%s", tpath("seed-rules.json"));
	RUN(&r, "trace", "make", "tests/data/text/seed-rules.txt", "-o", d);
	cr_assert_eq(r.status, 0, "%s", r.err);
	RUN(&r, "replay", d, "--scenario", "traces/scenarios/logical-remap.yaml", "--cache-dir",
	    tpath("cache"), "--json", j);
	cr_assert_eq(r.status, 1, "violations: %s%s", r.out, r.err);
	cr_assert(strstr(r.out, "23 used, 0 ignored, 0 unmatched"), "%s", r.out);
	doc = slurp(j);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		snprintf(key, sizeof(key), "faults.violations.%zu.code", i);
		cr_assert(jsonq_get(doc, key, value, sizeof(value)), "%s", key);
		cr_assert_str_eq(value, want[i].code);
		snprintf(key, sizeof(key), "faults.violations.%zu.event", i);
		cr_assert(jsonq_get(doc, key, value, sizeof(value)), "%s", key);
		cr_assert_str_eq(value, want[i].event, "%s", want[i].code);
	}
	cr_assert_not(jsonq_get(doc, "faults.violations.3.code", value, sizeof(value)));
	cr_assert(jsonq_get(doc, "events.refused", value, sizeof(value)));
	cr_assert_str_eq(value, "4", "the pin, two CPU accesses, the disable");
	cr_assert(jsonq_get(doc, "ops.iommu_disable.errors", value, sizeof(value)));
	cr_assert_str_eq(value, "1");
	cr_assert(jsonq_get(doc, "ops.cpu_access.count", value, sizeof(value)));
	cr_assert_str_eq(value, "5");
	cr_assert(jsonq_get(doc, "invariants.no_leaks", value, sizeof(value)));
	cr_assert_str_eq(value, "true");
	free(doc);
	/* the made trace dumps back to the file's events, line for line */
	RUN(&r, "trace", "dump", d);
	cr_assert_eq(r.status, 0, "%s", r.err);
	snprintf(path, sizeof(path), "%s/tests/data/text/seed-rules.txt",
		 getenv("GPUISO_SOURCE_ROOT") ? getenv("GPUISO_SOURCE_ROOT") : ".");
	text = slurp(path);
	body = strstr(text, "\nfb_pin ");
	cr_assert_not_null(body);
	cr_assert_not_null(strchr(r.out, '\n'));
	cr_assert_str_eq(strchr(r.out, '\n') + 1, body + 1);
	free(text);
}

/*
 * The save size is asked at each power-down, within the maximum committed
 * at start: 64 + 16 + 64 + 64 MiB saved and restored (each restore
 * verified), FB_SAVE_SIZE for a size above the charge and for one that is
 * not whole pages.
 */
Test(trace_text, a_save_size_that_changes_is_asked_at_each_power_down)
{
	const char *dir = tpath("fbsize"), *json = tpath("fbsize.json");
	char d[256], j[256], value[64], *doc;
	struct run r;

	snprintf(d, sizeof(d), "%s", dir);
	snprintf(j, sizeof(j), "%s", json);
	RUN(&r, "trace", "make", "tests/data/text/fb-save-size.txt", "-o", d);
	cr_assert_eq(r.status, 0, "%s", r.err);
	RUN(&r, "trace", "dump", d);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_assert(strstr(r.out, "fb_save_size ts=3000 adapter=0 phys=0 bytes=16777216\n"), "%s",
		  r.out);
	RUN(&r, "replay", d, "--cache-dir", tpath("cache"), "--json", j);
	cr_assert_eq(r.status, 1, "two violations: %s%s", r.out, r.err);
	doc = slurp(j);
	cr_assert(jsonq_get(doc, "power.bytes", value, sizeof(value)));
	/* saved and restored: 64 MiB, 16 MiB, then 64 MiB twice (the sizes refused) */
	cr_assert_eq(strtoull(value, NULL, 10), 2 * (64ull + 16 + 64 + 64) << 20, "%s", value);
	cr_assert(jsonq_get(doc, "power.completed", value, sizeof(value)));
	cr_assert_str_eq(value, "8");
	for (int i = 0; i < 2; i++) {
		char path[64];

		snprintf(path, sizeof(path), "faults.violations.%d.code", i);
		cr_assert(jsonq_get(doc, path, value, sizeof(value)), "%s", path);
		cr_assert_str_eq(value, "FB_SAVE_SIZE");
		snprintf(path, sizeof(path), "faults.violations.%d.event", i);
		cr_assert(jsonq_get(doc, path, value, sizeof(value)), "%s", path);
		cr_assert_str_eq(value, i ? "9" : "6");
	}
	cr_assert_not(jsonq_get(doc, "faults.violations.2.code", value, sizeof(value)),
		      "every restore matched: %s", value);
	cr_assert(jsonq_get(doc, "invariants.vram_restored", value, sizeof(value)));
	cr_assert_str_eq(value, "true");
	free(doc);
}

/* A bad text: exit 2, FILE:LINE:COL, no folder; each class once more through the command. */
Test(trace_text, errors_say_file_line_col_and_write_nothing)
{
	static const struct {
		const char *text, *where;
	} bad[] = {
		{ "fence_create ts=1 adapter=0 id=1\nfence_kill ts=2 adapter=0 id=1\n", ":2:1: error: unknown event" },
		{ "fence_create ts=1 adapter=0 id=1 size=3\n", ":1:34: error: fence_create has no field 'size'" },
		{ "fence_create ts=1 adapter=0\n", ":1:28: error: fence_create without id" },
		{ "fence_create ts=1 adapter=0 id=0x\n", ":1:32: error: id=0x: not a number" },
		{ "fence_create ts=1 adapter=0 id=1 id=1\n", ":1:34: error: 'id' given twice" },
		{ "fence_create ts=2 adapter=0 id=1\nfence_destroy ts=1 adapter=0 id=1\n", ":2:18: error: ts=1 is before" },
		{ "fence_create ts=1 adapter=0 id=1 ;\n", ":1:34: error: ';' is not NAME=VALUE" },
		/* what a CTF trace cannot carry, which every later read would abort on */
		{ "fence_create ts=18446744073709551615 adapter=0 id=1\n", ":1:17: error: ts=18446744073709551615: past the largest timestamp" },
		{ "fence_create ts=1 adapter=0 id=1\nlost events=18446744073709551615\n", ":2:6: error: the trace's losses add up to more than" },
	};
	const char *txt = tpath("bad.txt"), *out = tpath("out");
	char t[256], o[256];
	struct run r;

	snprintf(t, sizeof(t), "%s", txt);
	snprintf(o, sizeof(o), "%s", out);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char want[512];
		FILE *f = fopen(t, "w");

		cr_assert_not_null(f);
		fputs(bad[i].text, f);
		fclose(f);
		RUN(&r, "trace", "make", t, "-o", o);
		cr_assert_eq(r.status, 2, "%zu: %s", i, r.err);
		snprintf(want, sizeof(want), "%s%s", t, bad[i].where);
		cr_assert_eq(strncmp(r.err, want, strlen(want)), 0, "%zu: %s", i, r.err);
		cr_assert_neq(access(o, F_OK), 0, "%zu: nothing written", i);
		gpuiso_stdin(&r, t, (const char *const[]){ "trace", "make", "-", "-o", o, NULL });
		cr_assert_eq(r.status, 2, "%zu: %s", i, r.err);
		snprintf(want, sizeof(want), "<stdin>%s", bad[i].where);
		cr_assert_eq(strncmp(r.err, want, strlen(want)), 0, "%zu: %s", i, r.err);
	}
	RUN(&r, "trace", "make", t);
	cr_assert_eq(r.status, 2);
	cr_assert(strstr(r.err, "-o DIR is required"), "%s", r.err);
	RUN(&r, "trace", "make", "no-such-file.txt", "-o", o);
	cr_assert_eq(r.status, 2);
	cr_assert(strstr(r.err, "no-such-file.txt: No such file"), "%s", r.err);
	RUN(&r, "trace", "make", "tests/data/text/unmap-after-free.txt", "-o", "traces");
	cr_assert_eq(r.status, 2, "an existing folder: %s", r.err);
	cr_assert(strstr(r.err, "not empty"), "%s", r.err);
}

/* A trace whose events cannot be read: exit 2 naming the event and its time; no -o file. */
Test(trace_text, a_dump_of_an_unreadable_trace_says_where)
{
	const char *dir = tpath("nofield"), *txt = tpath("nofield.txt");
	char cmd[1024], d[256], t[256];
	struct run r;

	snprintf(d, sizeof(d), "%s", dir);
	snprintf(t, sizeof(t), "%s", txt);
	snprintf(cmd, sizeof(cmd),
		 "cp -r traces/desktop %s && sed -i '/gpuiso_wl:alloc_mdl/,/};/s/_bytes;/_bytez;/' %s/metadata",
		 d, d);
	cr_assert_eq(chdir(getenv("GPUISO_SOURCE_ROOT")), 0);
	cr_assert_eq(system(cmd), 0);
	RUN(&r, "trace", "dump", d, "-o", t);
	cr_assert_eq(r.status, 2, "%s", r.err);
	cr_assert(strstr(r.err, "event 11 at 1000397008 ns: gpuiso_wl:alloc_mdl has no integer "
			 "field 'bytes'"), "%s", r.err);
	cr_assert_neq(access(t, F_OK), 0);
	RUN(&r, "trace", "dump", tpath("nothing"));
	cr_assert_eq(r.status, 2, "%s", r.err);
	RUN(&r, "trace", "dump");
	cr_assert_eq(r.status, 2);
	cr_assert(strstr(r.err, "usage: gpuiso trace dump"), "%s", r.err);
}

Test(trace_text, both_commands_have_help)
{
	struct run r;

	RUN(&r, "trace", "dump", "--help");
	cr_assert_eq(r.status, 0);
	cr_assert(strstr(r.out, "usage: gpuiso trace dump TRACE") && strstr(r.out, "lost events=N"),
		  "%s", r.out);
	RUN(&r, "trace", "make", "--help");
	cr_assert_eq(r.status, 0);
	cr_assert(strstr(r.out, "usage: gpuiso trace make FILE -o DIR") && strstr(r.out, "FILE:LINE:COL"),
		  "%s", r.out);
	RUN(&r, "trace", "--help");
	cr_assert(strstr(r.out, "trace dump") && strstr(r.out, "trace make"), "%s", r.out);
	RUN(&r, "--help");
	cr_assert(strstr(r.out, "trace dump") && strstr(r.out, "trace make"), "%s", r.out);
}

/*
 * tests/data/text/refused-and-unmatched.txt: each refused event is said
 * with its own index, time, name and reason (the summary's copy of the
 * refusals read their count before it was set, and printed event 0 of
 * every one, with no reason); with -v and in the results JSON, each
 * refused and each unmatched event is listed.
 */
Test(trace_text, refused_events_are_said_with_their_index_time_name_and_reason)
{
	const char *dir = tpath("refused"), *json = tpath("refused.json");
	char d[256], j[256], value[128], *doc;
	struct run r;

	snprintf(d, sizeof(d), "%s", dir);
	snprintf(j, sizeof(j), "%s", json);
	RUN(&r, "trace", "make", "tests/data/text/refused-and-unmatched.txt", "-o", d);
	cr_assert_eq(r.status, 0, "%s", r.err);
	RUN(&r, "replay", d, "--no-cache");
	cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
	cr_assert(strstr(r.out, "refused: 2 operations the model refused"), "%s", r.out);
	cr_assert(strstr(r.out, "refused: event 3 at 4000 ns (dma): STATUS_"), "%s", r.out);
	cr_assert(strstr(r.out, "refused: event 4 at 5000 ns (power): STATUS_"), "%s", r.out);
	cr_assert_null(strstr(r.out, "event 0 at 0 ns"), "%s", r.out);
	cr_assert_null(strstr(r.out, "unmatched: event"), "listed with -v only: %s", r.out);

	RUN(&r, "replay", d, "--no-cache", "-v", "--json", j);
	cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
	cr_assert(strstr(r.out, "refused: event 3 at 4000 ns (dma): STATUS_"), "%s", r.out);
	cr_assert(strstr(r.out, "unmatched: event 5 at 6000 ns (free_mdl): after a loss: its "
			 "object's creation was lost\n"), "%s", r.out);
	doc = slurp(j);
	cr_assert(jsonq_get(doc, "refusals.0.event", value, sizeof(value)));
	cr_assert_str_eq(value, "3");
	cr_assert(jsonq_get(doc, "refusals.0.ts_ns", value, sizeof(value)));
	cr_assert_str_eq(value, "4000");
	cr_assert(jsonq_get(doc, "refusals.0.name", value, sizeof(value)));
	cr_assert_str_eq(value, "dma");
	cr_assert(jsonq_get(doc, "refusals.0.reason", value, sizeof(value)));
	cr_assert_str_eq(value, "STATUS_INVALID_ADDRESS");
	cr_assert(jsonq_get(doc, "refusals.1.name", value, sizeof(value)));
	cr_assert_str_eq(value, "power");
	cr_assert_not(jsonq_get(doc, "refusals.2.name", value, sizeof(value)));
	cr_assert(jsonq_get(doc, "unmatched_events.0.event", value, sizeof(value)));
	cr_assert_str_eq(value, "5");
	cr_assert(jsonq_get(doc, "unmatched_events.0.ts_ns", value, sizeof(value)));
	cr_assert_str_eq(value, "6000");
	cr_assert(jsonq_get(doc, "unmatched_events.0.name", value, sizeof(value)));
	cr_assert_str_eq(value, "free_mdl");
	cr_assert(jsonq_get(doc, "unmatched_events.0.reason", value, sizeof(value)));
	cr_assert_str_eq(value, "after a loss: its object's creation was lost");
	cr_assert_not(jsonq_get(doc, "unmatched_events.1.name", value, sizeof(value)));
	free(doc);
}
