/* SPDX-License-Identifier: MIT */
/*
 * The text form of workload traces: every kind as a line and back, dump ->
 * make -> dump of every generated profile, losses, a foreign trace through
 * import maps, and every error with its FILE:LINE:COL.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/scenario.h"
#include "replay/ctf.h"
#include "replay/gen.h"
#include "replay/replay.h"
#include "replay/text.h"
#include "tests/common/traces_real.h"

static char tmp[64];

static void tmp_make(void)
{
	snprintf(tmp, sizeof(tmp), "/tmp/gpuiso-text-XXXXXX");
	cr_assert_not_null(mkdtemp(tmp));
}

static void tmp_remove(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	cr_assert_eq(system(cmd), 0);
}

TestSuite(text, .init = tmp_make, .fini = tmp_remove);

static const char *sub(const char *name)
{
	static char path[4][256];
	static int turn;
	char *p = path[turn++ % 4];

	snprintf(p, 256, "%s/%s", tmp, name);
	return p;
}

static const char *src(const char *rel)
{
	static char path[2][1024];
	static int turn;
	const char *root = getenv("GPUISO_SOURCE_ROOT");
	char *p = path[turn++ % 2];

	snprintf(p, 1024, "%s/%s", root ? root : ".", rel);
	return p;
}

/* Parse @text as the file "t.txt". */
static int parse(const char *text, struct text_trace *t, char *err, size_t errlen)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int rc;

	cr_assert_not_null(f);
	rc = text_parse(f, "t.txt", t, err, errlen);
	fclose(f);
	return rc;
}

/* The dump of @trace (through @maps), malloc'd. */
static char *dump(const char *trace, const char *const *maps, size_t nmaps)
{
	char *text = NULL, err[1024] = "";
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	cr_assert_not_null(f);
	cr_assert_eq(text_dump(trace, maps, nmaps, f, err, sizeof(err)), 0, "%s: %s", trace, err);
	fclose(f);
	return text;
}

static size_t count_lines(const char *text, const char *prefix)
{
	size_t n = 0, plen = strlen(prefix);

	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		n += !strncmp(l, prefix, plen);
	return n;
}

static void expect_same_event(const struct wl_event *a, const struct wl_event *b, size_t i)
{
	const struct wl_desc *d = &wl_catalogue[a->kind];

	cr_assert_eq(a->kind, b->kind, "event %zu", i);
	cr_assert_eq(a->ts, b->ts, "event %zu", i);
	for (unsigned int f = 0; f < d->nfields; f++)
		cr_assert_eq(a->v[d->fields[f].slot], b->v[d->fields[f].slot], "event %zu: %s", i,
			     d->fields[f].name);
}

/* Every kind, with values that hit the names the text gives and those it does not. */
Test(text, every_kind_formats_and_parses_back)
{
	static const uint64_t args[] = { 0, 1, 2, 3, 15, 77 };
	char line[TEXT_LINE_MAX + 1], text[TEXT_LINE_MAX + 2], err[1024];

	for (uint32_t k = 0; k < WL_NKINDS; k++) {
		for (size_t a = 0; a < sizeof(args) / sizeof(args[0]); a++) {
			struct wl_event e = { .ts = 1000 + k, .kind = k };
			struct text_trace t;

			for (int s = 0; s < WL_NSLOTS; s++)
				e.v[s] = 100 * k + (uint64_t)s;
			e.v[WL_ARG] = args[a];
			e.v[WL_FLAGS] = args[a];
			if (k == WL_MEMORY && a == 0)
				e.v[WL_OFFSET] = e.v[WL_BYTES] = UINT64_MAX;
			cr_assert_gt(text_format_event(&e, line, sizeof(line)), 0);
			cr_assert_eq(strncmp(line, wl_catalogue[k].name, strlen(wl_catalogue[k].name)), 0);
			snprintf(text, sizeof(text), "%s\n", line);
			cr_assert_eq(parse(text, &t, err, sizeof(err)), 0, "%s: %s", line, err);
			cr_assert_eq(t.n, 1);
			expect_same_event(&e, &t.ev[0], k);
			cr_assert_eq(t.ev[0].flags, 0);
			text_trace_free(&t);
		}
	}
	/* the names, as the format defines them */
	struct wl_event e = { .ts = 5, .kind = WL_ALLOC_CREATE,
			      .v = { [WL_ID] = 7, [WL_BYTES] = 65536, [WL_ARG] = WL_SEG_SYSTEM,
				     [WL_FLAGS] = WL_ALLOC_ACCESSED_PHYSICALLY } };

	cr_assert_gt(text_format_event(&e, line, sizeof(line)), 0);
	cr_assert_str_eq(line, "alloc_create ts=5 adapter=0 id=7 bytes=65536 segment=system flags=0x1");
	e = (struct wl_event){ .kind = WL_MEMORY, .v = { [WL_OFFSET] = UINT64_MAX, [WL_BYTES] = 4096 } };
	cr_assert_gt(text_format_event(&e, line, sizeof(line)), 0);
	cr_assert_str_eq(line, "memory ts=0 commit_available=unlimited lockable_available=4096");
	e = (struct wl_event){ .kind = WL_POWER, .v = { [WL_PHYS] = 1, [WL_ARG] = WL_POWER_D3 } };
	cr_assert_gt(text_format_event(&e, line, sizeof(line)), 0);
	cr_assert_str_eq(line, "power ts=0 adapter=0 phys=1 state=D3");
	e.kind = WL_NKINDS;
	cr_assert_eq(text_format_event(&e, line, sizeof(line)), -EINVAL);
	e.kind = WL_POWER;
	cr_assert_eq(text_format_event(&e, line, 10), -ENOSPC);
}

/* Fields in any order, numbers in hex, names or numbers, comments and blank lines. */
Test(text, what_a_hand_writes_is_read)
{
	const char *text = "# a comment\n"
			   "\n"
			   "   # an indented one\n"
			   "gpuiso_wl:alloc_contiguous id=0x10 cache=writecombined ts=7 bytes=4096 adapter=1\r\n"
			   "\tirql level=2 ts=8   \n"
			   "alloc_contiguous ts=8 adapter=1 id=17 bytes=1 cache=9";
	struct text_trace t;
	char err[1024] = "";

	cr_assert_eq(parse(text, &t, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(t.n, 3);
	cr_assert_eq(t.ev[0].kind, WL_ALLOC_CONTIGUOUS);
	cr_assert_eq(t.ev[0].v[WL_ID], 16);
	cr_assert_eq(t.ev[0].v[WL_ARG], WL_CACHE_WRITECOMBINED);
	cr_assert_eq(t.ev[0].v[WL_ADAPTER], 1);
	cr_assert_eq(t.ev[1].v[WL_ARG], WL_IRQL_DISPATCH);
	cr_assert_eq(t.ev[2].v[WL_ARG], 9, "a value the format does not name passes on");
	cr_assert_eq(t.nloss, 0);
	text_trace_free(&t);
}

/* gen -> CTF -> dump -> make -> dump: the same text, the same events, the same bytes. */
Test(text, every_generated_profile_round_trips)
{
	for (const char *const *p = gen_profiles(); *p; p++) {
		char a[256], b[272], err[1024] = "";
		struct text_trace t;
		struct gen *g;
		char *text, *again;
		FILE *f;

		snprintf(a, sizeof(a), "%s", sub(*p));
		snprintf(b, sizeof(b), "%s.made", a);
		cr_assert_eq(gen_create(*p, 400, 3, &g), 0);
		cr_assert_eq(ctf_write(a, gen_next, g, err, sizeof(err)), 0, "%s", err);
		gen_destroy(g);
		text = dump(a, NULL, 0);
		cr_assert_eq(count_lines(text, "#"), 1, "%s: one comment line", *p);
		cr_assert_eq(count_lines(text, ""), 401, "%s", *p);
		cr_assert(strstr(text, "gpuiso trace make"), "the header says how to go back");

		f = fmemopen(text, strlen(text), "r");
		cr_assert_eq(text_parse(f, *p, &t, err, sizeof(err)), 0, "%s: %s", *p, err);
		fclose(f);
		cr_assert_eq(t.n, 400);
		/* the events are the generator's */
		cr_assert_eq(gen_create(*p, 400, 3, &g), 0);
		for (size_t i = 0; i < t.n; i++) {
			struct wl_event e;

			cr_assert_eq(gen_next(g, &e), 1);
			expect_same_event(&e, &t.ev[i], i);
		}
		gen_destroy(g);
		cr_assert_eq(text_write_ctf(&t, b, err, sizeof(err)), 0, "%s", err);
		text_trace_free(&t);
		again = dump(b, NULL, 0);
		cr_assert_str_eq(again, text, "%s: the dump of the made trace differs", *p);
		free(again);
		free(text);
	}
}

/* Losses before the first event, between two and after the last come back where they were. */
Test(text, losses_round_trip)
{
	const char *text =
		"# gpuiso workload trace, text form (docs/trace-events.md, \"The text form\"); "
		"back to CTF: gpuiso trace make FILE -o DIR\n"
		"lost events=2\n"
		"alloc_mdl ts=100 adapter=0 id=1 bytes=4096\n"
		"alloc_mdl ts=200 adapter=0 id=2 bytes=4096\n"
		"lost events=3 packets=1\n"
		"free_mdl ts=300 adapter=0 id=1\n"
		"free_mdl ts=300 adapter=0 id=2\n"
		"lost packets=4\n";
	struct text_trace t;
	char err[1024] = "", *again;

	cr_assert_eq(parse(text, &t, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(t.n, 4);
	cr_assert_eq(t.nloss, 3);
	cr_assert_eq(t.loss[0].before, 0);
	cr_assert_eq(t.loss[0].loss.events, 2);
	cr_assert_eq(t.loss[1].before, 2);
	cr_assert_eq(t.loss[1].loss.packets, 1);
	cr_assert_eq(t.loss[2].before, 4, "after the last event");
	for (size_t i = 0; i < t.n; i++)
		cr_assert_eq(t.ev[i].flags, WL_AFTER_LOSS, "event %zu comes after a loss", i);
	cr_assert_eq(text_write_ctf(&t, sub("lossy"), err, sizeof(err)), 0, "%s", err);
	text_trace_free(&t);
	again = dump(sub("lossy"), NULL, 0);
	cr_assert_str_eq(again, text);
	free(again);

	/* two loss lines in a row are one loss; events before any loss are not marked */
	cr_assert_eq(parse("fence_create ts=1 adapter=0 id=1\nlost events=1\nlost events=2\n"
			   "fence_destroy ts=2 adapter=0 id=1\n", &t, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(t.nloss, 1);
	cr_assert_eq(t.loss[0].loss.events, 3);
	cr_assert_eq(t.ev[0].flags, 0);
	cr_assert_eq(t.ev[1].flags, WL_AFTER_LOSS);
	text_trace_free(&t);
}

/* Replay @trace on the defaults, from CTF. */
static void replay(const char *trace, const char *const *maps, size_t nmaps, struct results *res,
		   struct replay_report *rep)
{
	struct replay_opts o = { .trace = trace, .maps = maps, .nmaps = nmaps };
	struct scenario scn;

	cr_assert_eq(scenario_defaults(&scn), 0);
	o.scn = &scn;
	cr_assert_eq(replay_run(&o, res, rep), 0, "%s: %s", trace, rep->error);
	scenario_free(&scn);
}

/* What two replays must agree on: operations, losses, power, violations, invariants. */
static void expect_same_results(const struct results *a, const struct replay_report *ra,
				const struct results *b, const struct replay_report *rb,
				bool same_indices)
{
	cr_assert_eq(a->nops, b->nops);
	for (size_t i = 0; i < a->nops; i++) {
		cr_assert_eq(a->ops[i].count, b->ops[i].count, "%s", a->ops[i].name);
		cr_assert_eq(a->ops[i].errors, b->ops[i].errors, "%s", a->ops[i].name);
	}
	cr_assert_eq(ra->discarded, rb->discarded);
	cr_assert_eq(ra->lost_packets, rb->lost_packets);
	cr_assert_eq(ra->lost.skipped, rb->lost.skipped);
	cr_assert_eq(ra->lost.ended, rb->lost.ended);
	cr_assert_eq(ra->refused, rb->refused);
	cr_assert_eq(ra->left_live, rb->left_live);
	cr_assert_eq(a->power.transitions, b->power.transitions);
	cr_assert_eq(a->power.completed, b->power.completed);
	cr_assert_eq(a->nviolations, b->nviolations);
	for (size_t i = 0; i < a->nviolations; i++) {
		cr_assert_str_eq(a->violations[i].code, b->violations[i].code);
		if (same_indices)
			cr_assert_eq(a->violations[i].event, b->violations[i].event);
	}
	cr_assert_eq(a->ninvariants, b->ninvariants);
	for (size_t i = 0; i < a->ninvariants; i++)
		cr_assert_eq(a->invariants[i].holds, b->invariants[i].holds, "%s",
			     a->invariants[i].name);
}

/* A kernel trace through two import maps: the dump is what the replay executes. */
Test(text, a_foreign_trace_dumps_through_its_maps)
{
	char rpm[1024], pages[1024], real[1024], err[1024] = "";
	const char *maps[] = { rpm, pages };
	struct replay_report ra, rb;
	struct results a, b;
	struct text_trace t;
	char *text, *again;
	FILE *f;

	snprintf(real, sizeof(real), "%s", traces_real("tc-kernel-rpm-kmem"));
	snprintf(rpm, sizeof(rpm), "%s", src("traces/maps/linux-rpm.yaml"));
	snprintf(pages, sizeof(pages), "%s", src("traces/maps/linux-page-alloc.yaml"));
	text = dump(real, maps, 2);
	cr_assert_eq(count_lines(text, "memory "), 504 + 351, "one memory event per page alloc/free");
	cr_assert_eq(count_lines(text, "power "), 3);
	f = fmemopen(text, strlen(text), "r");
	cr_assert_eq(text_parse(f, "dump", &t, err, sizeof(err)), 0, "%s", err);
	fclose(f);
	cr_assert_eq(text_write_ctf(&t, sub("made"), err, sizeof(err)), 0, "%s", err);
	text_trace_free(&t);
	again = dump(sub("made"), NULL, 0);
	cr_assert_str_eq(again, text);
	free(again);
	free(text);

	replay(real, maps, 2, &a, &ra);
	replay(sub("made"), NULL, 0, &b, &rb);
	cr_assert_eq(rb.used, ra.used);
	cr_assert_eq(rb.ignored, 0, "the made trace holds workload events only");
	expect_same_results(&a, &ra, &b, &rb, false);
	results_fini(&a);
	results_fini(&b);

	/* a map that does not load is said where */
	snprintf(pages, sizeof(pages), "%s", sub("nomap.yaml"));
	f = fopen(pages, "w");
	fputs("rules: [\n", f);
	fclose(f);
	f = fopen("/dev/null", "w");
	cr_assert_neq(text_dump(real, maps, 2, f, err, sizeof(err)), 0);
	fclose(f);
	cr_assert(strstr(err, "nomap.yaml:"), "%s", err);
}

/* Replaying a made trace is replaying the trace it was dumped from, losses included. */
Test(text, a_made_trace_replays_as_the_original)
{
	const char *text = "alloc_mdl ts=100 adapter=0 id=1 bytes=4096\n"
			   "map_mdl ts=150 adapter=0 id=5 mdl=1\n"
			   "lost events=2\n"
			   "free_mdl ts=300 adapter=0 id=3\n"         /* its creation was lost */
			   "free_mdl ts=310 adapter=0 id=1\n"
			   "unmap_mdl ts=320 adapter=0 id=5\n";       /* after the free: a violation */
	struct replay_report ra, rb;
	struct results a, b;
	struct text_trace t;
	char err[1024] = "", *dumped;
	FILE *f;

	cr_assert_eq(parse(text, &t, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(text_write_ctf(&t, sub("one"), err, sizeof(err)), 0, "%s", err);
	text_trace_free(&t);
	dumped = dump(sub("one"), NULL, 0);
	f = fmemopen(dumped, strlen(dumped), "r");
	cr_assert_eq(text_parse(f, "dump", &t, err, sizeof(err)), 0, "%s", err);
	fclose(f);
	free(dumped);
	cr_assert_eq(text_write_ctf(&t, sub("two"), err, sizeof(err)), 0, "%s", err);
	text_trace_free(&t);

	replay(sub("one"), NULL, 0, &a, &ra);
	replay(sub("two"), NULL, 0, &b, &rb);
	cr_assert_eq(ra.discarded, 2);
	cr_assert_eq(ra.lost.skipped, 1, "the free of an id whose creation was lost");
	cr_assert_eq(a.nviolations, 1);
	cr_assert_str_eq(a.violations[0].code, "UNMAP_AFTER_FREE");
	cr_assert_eq(a.violations[0].event, 4);
	expect_same_results(&a, &ra, &b, &rb, true);
	results_fini(&a);
	results_fini(&b);
}

/* Each mistake, and where it is. */
Test(text, every_error_names_file_line_col)
{
	static const struct {
		const char *text, *where, *what;
	} bad[] = {
		{ "allocmdl ts=1 adapter=0 id=1 bytes=1\n", "t.txt:1:1: error: ", "unknown event 'allocmdl'" },
		{ "ts=1 alloc_mdl\n", "t.txt:1:1: error: ", "begins with the event's name" },
		{ "\nalloc_mdl ts=1 adapter=0 id=1 byte=1\n", "t.txt:2:31: error: ", "alloc_mdl has no field 'byte' (its fields: ts, adapter, id, bytes)" },
		{ "alloc_mdl ts=1 adapter=0 id=1\n", "t.txt:1:30: error: ", "alloc_mdl without bytes: every field is required" },
		{ "alloc_mdl adapter=0 id=1\n", "t.txt:1:25: error: ", "without ts, bytes" },
		{ "alloc_mdl ts=1 adapter=0 id=1 bytes=12x\n", "t.txt:1:37: error: ", "bytes=12x: not a number" },
		{ "alloc_mdl ts=1 adapter=0 id=1 bytes=-1\n", "t.txt:1:37: error: ", "not a number" },
		{ "alloc_mdl ts=1 adapter=0 id=1 bytes=18446744073709551616\n", "t.txt:1:37: error: ", "out of range" },
		{ "alloc_mdl ts=1 adapter=0 id=1 bytes=\n", "t.txt:1:37: error: ", "'bytes' has no value" },
		{ "alloc_mdl ts=x adapter=0 id=1 bytes=1\n", "t.txt:1:14: error: ", "ts=x: not a timestamp" },
		{ "alloc_mdl ts=1 adapter=0 id=1 id=2 bytes=1\n", "t.txt:1:31: error: ", "'id' given twice (first at column 26)" },
		{ "fence_create ts=9 adapter=0 id=1\nfence_create ts=8 adapter=0 id=2\n", "t.txt:2:17: error: ", "ts=8 is before the previous event's 9 (line 1)" },
		{ "fence_create ts=9 adapter=0 id=1 junk\n", "t.txt:1:34: error: ", "'junk' is not NAME=VALUE" },
		{ "fence_create ts=9 adapter=0 id=1 =3\n", "t.txt:1:34: error: ", "'=3' is not NAME=VALUE" },
		{ "fence_create ts=9 adapter=0 id=1 # no comment here\n", "t.txt:1:34: error: ", "'#' is not NAME=VALUE" },
		{ "alloc_contiguous ts=1 adapter=0 id=1 bytes=1 cache=weird\n", "t.txt:1:52: error: ", "or one of its names: noncached, cached, writecombined" },
		{ "fence_create ts=1 adapter=0 id=1 a=1 b=2 c=3 d=4 e=5 f=6 g=7 h=8 i=9 j=1 k=1 l=1 m=1 n=1 o=1 p=1\n", "t.txt:1:", "too many fields" },
		{ "lost\n", "t.txt:1:5: error: ", "a loss of nothing" },
		{ "lost events=0 packets=0\n", "t.txt:1:6: error: ", "a loss of nothing" },
		{ "lost bytes=3\n", "t.txt:1:6: error: ", "lost has no field 'bytes' (its fields: events, packets)" },
		{ "lost events=1 events=2\n", "t.txt:1:15: error: ", "'events' given twice" },
		{ "lost events=18446744073709551614\nlost events=1\n", "t.txt:2:6: error: ", "more than 18446744073709551614 events (2^64 - 2)" },
	};
	char err[4096];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct text_trace t;

		err[0] = '\0';
		cr_assert_eq(parse(bad[i].text, &t, err, sizeof(err)), -EINVAL, "%zu: %s", i, bad[i].text);
		cr_assert_eq(strncmp(err, bad[i].where, strlen(bad[i].where)), 0, "%zu: %s", i, err);
		cr_assert(strstr(err, bad[i].what), "%zu: %s", i, err);
		cr_assert_null(strchr(err, '\n'), "%zu: one error, one line: %s", i, err);
		text_trace_free(&t);
	}
}

/* The text of one event, @v in every field, and its newline; appended to @text at *@n. */
static void put_event(char *text, size_t len, size_t *n, uint32_t kind, uint64_t ts, uint64_t v)
{
	struct wl_event e = { .ts = ts, .kind = kind };
	int w;

	for (int s = 0; s < WL_NSLOTS; s++)
		e.v[s] = v;
	w = text_format_event(&e, text + *n, len - *n);
	cr_assert_gt(w, 0);
	*n += (size_t)w;
	*n += (size_t)snprintf(text + *n, len - *n, "\n");
}

/*
 * The limit values of every field, of ts and of the losses: those a CTF
 * trace carries come back from it as they were; past them, the text is
 * refused at the line and column of the value, and nothing is written.
 */
Test(text, every_field_at_its_limits)
{
	char text[16384], line[256], err[4096] = "", *again;
	struct text_trace t;
	size_t n = 0;

	n += (size_t)snprintf(text, sizeof(text), "# gpuiso workload trace, text form "
			      "(docs/trace-events.md, \"The text form\"); back to CTF: gpuiso trace "
			      "make FILE -o DIR\n");
	for (uint32_t k = 0; k < WL_NKINDS; k++)
		put_event(text, sizeof(text), &n, k, 0, 0);
	n += (size_t)snprintf(text + n, sizeof(text) - n, "lost events=1 packets=1\n");
	for (uint32_t k = 0; k < WL_NKINDS; k++)
		put_event(text, sizeof(text), &n, k, CTF_TS_MAX, UINT64_MAX);
	/* the losses of the trace add up to the most it carries */
	n += (size_t)snprintf(text + n, sizeof(text) - n, "lost events=%llu packets=%llu\n",
			      (unsigned long long)CTF_LOST_EVENTS_MAX - 1,
			      (unsigned long long)CTF_LOST_PACKETS_MAX - 1);
	cr_assert_eq(parse(text, &t, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(t.n, 2 * WL_NKINDS);
	cr_assert_eq(text_write_ctf(&t, sub("limits"), err, sizeof(err)), 0, "%s", err);
	text_trace_free(&t);
	again = dump(sub("limits"), NULL, 0);
	cr_assert_str_eq(again, text);
	free(again);

	/* one past: ts, the losses' sums; every field of every kind past 2^64 - 1 */
	static const struct {
		const char *text, *where, *what;
	} past[] = {
		{ "fence_create ts=9223372036854775807 adapter=0 id=1\n", "t.txt:1:17: error: ",
		  "ts=9223372036854775807: past the largest timestamp a CTF trace carries, "
		  "9223372036854775806 ns (2^63 - 2)" },
		{ "fence_create ts=18446744073709551615 adapter=0 id=1\n", "t.txt:1:17: error: ",
		  "past the largest timestamp" },
		{ "lost events=18446744073709551615\n", "t.txt:1:6: error: ",
		  "the trace's losses add up to more than 18446744073709551614 events (2^64 - 2)" },
		{ "lost events=1\nfence_create ts=1 adapter=0 id=1\nlost events=18446744073709551614\n",
		  "t.txt:3:6: error: ", "more than 18446744073709551614 events" },
		{ "lost packets=9223372036854775808\n", "t.txt:1:6: error: ",
		  "the trace's losses add up to more than 9223372036854775807 packets (2^63 - 1)" },
		{ "lost packets=9223372036854775807\nfence_create ts=1 adapter=0 id=1\nlost events=2 packets=1\n",
		  "t.txt:3:15: error: ", "more than 9223372036854775807 packets" },
	};
	for (size_t i = 0; i < sizeof(past) / sizeof(past[0]); i++) {
		err[0] = '\0';
		cr_assert_eq(parse(past[i].text, &t, err, sizeof(err)), -EINVAL, "%zu", i);
		cr_assert_eq(strncmp(err, past[i].where, strlen(past[i].where)), 0, "%zu: %s", i, err);
		cr_assert(strstr(err, past[i].what), "%zu: %s", i, err);
		cr_assert_null(strchr(err, '\n'), "%zu: %s", i, err);
		text_trace_free(&t);
	}
	for (uint32_t k = 0; k < WL_NKINDS; k++) {
		const struct wl_desc *d = &wl_catalogue[k];

		for (unsigned int f = 0; f < d->nfields; f++) {
			char where[64];
			size_t col = 0;

			n = (size_t)snprintf(line, sizeof(line), "%s ts=1", d->name);
			for (unsigned int g = 0; g < d->nfields; g++) {
				n += (size_t)snprintf(line + n, sizeof(line) - n, " %s=",
						      d->fields[g].name);
				if (g == f)
					col = n + 1;
				n += (size_t)snprintf(line + n, sizeof(line) - n, "%s",
						      g == f ? "18446744073709551616" : "1");
			}
			snprintf(line + n, sizeof(line) - n, "\n");
			snprintf(where, sizeof(where), "t.txt:1:%zu: error: %s=18446744073709551616: "
				 "out of range", col, d->fields[f].name);
			cr_assert_eq(parse(line, &t, err, sizeof(err)), -EINVAL, "%s", line);
			cr_assert_eq(strncmp(err, where, strlen(where)), 0, "%s: %s", line, err);
			text_trace_free(&t);
		}
	}
}

/* A long line, a NUL byte, many errors; a good line after a bad one is still read. */
Test(text, lines_that_are_not_text)
{
	char *text = malloc(2 * TEXT_LINE_MAX), err[4096] = "";
	struct text_trace t;
	size_t n;

	n = (size_t)snprintf(text, 2 * TEXT_LINE_MAX, "fence_create ts=1 adapter=0 id=1\n");
	memset(text + n, 'a', TEXT_LINE_MAX + 1);
	n += TEXT_LINE_MAX + 1;
	n += (size_t)snprintf(text + n, 2 * TEXT_LINE_MAX - n, "\nfence_destroy ts=2 adapter=0 id=1\n");
	cr_assert_eq(parse(text, &t, err, sizeof(err)), -EINVAL);
	cr_assert_str_eq(err, "t.txt:2:4097: error: line too long (more than 4096 bytes)");
	cr_assert_eq(t.n, 2, "the lines around it were read");
	text_trace_free(&t);
	/* exactly the longest line is fine (and then unknown) */
	memset(text, 'b', TEXT_LINE_MAX);
	text[TEXT_LINE_MAX] = '\0';
	cr_assert_eq(parse(text, &t, err, sizeof(err)), -EINVAL);
	cr_assert(strstr(err, "t.txt:1:1: error: unknown event"), "%s", err);
	text_trace_free(&t);

	{
		static const char nul[] = "fence_create ts=1\0 adapter=0 id=1\n";
		FILE *f = fmemopen((void *)nul, sizeof(nul) - 1, "r");

		cr_assert_eq(text_parse(f, "t.txt", &t, err, sizeof(err)), -EINVAL);
		fclose(f);
		cr_assert_str_eq(err, "t.txt:1:18: error: a NUL byte: the text form is text");
		text_trace_free(&t);
	}

	n = 0;
	for (int i = 0; i < TEXT_MAX_ERRORS + 3; i++)
		n += (size_t)snprintf(text + n, 2 * TEXT_LINE_MAX - n, "nope%d\n", i);
	cr_assert_eq(parse(text, &t, err, sizeof(err)), -EINVAL);
	cr_assert(strstr(err, "t.txt:10:1: error: unknown event 'nope9'"), "%s", err);
	cr_assert_null(strstr(err, "nope10"), "%s", err);
	cr_assert(strstr(err, "\nt.txt: 3 more errors not shown"), "%s", err);
	text_trace_free(&t);
	free(text);
}

/* make checks everything before it writes: a bad line leaves no folder. */
Test(text, make_writes_nothing_from_a_bad_text)
{
	char err[4096] = "";
	FILE *f = fopen(sub("t.txt"), "w");

	cr_assert_not_null(f);
	fputs("fence_create ts=1 adapter=0 id=1\nfence_destroy ts=2 adapter=0\n", f);
	fclose(f);
	cr_assert_eq(text_make(sub("t.txt"), sub("out"), err, sizeof(err)), -EINVAL);
	cr_assert(strstr(err, "t.txt:2:29: error: fence_destroy without id"), "%s", err);
	cr_assert_neq(access(sub("out"), F_OK), 0);

	cr_assert_eq(text_make(sub("none.txt"), sub("out"), err, sizeof(err)), -ENOENT);
	cr_assert(strstr(err, "none.txt"), "%s", err);
	cr_assert_eq(text_make(tmp, sub("out"), err, sizeof(err)), -EISDIR);

	f = fopen(sub("t.txt"), "w");
	fputs("fence_create ts=1 adapter=0 id=1\n", f);
	fclose(f);
	cr_assert_eq(text_make(sub("t.txt"), sub("out"), err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(text_make(sub("t.txt"), sub("out"), err, sizeof(err)), -EEXIST);
	cr_assert(strstr(err, "not empty"), "%s", err);
}

/* A trace whose events cannot be read: the dump says which event, and when. */
Test(text, a_trace_that_cannot_be_read_is_an_error_that_says_where)
{
	char cmd[2048], err[1024] = "";
	FILE *out;

	snprintf(cmd, sizeof(cmd),
		 "cp -r '%s' '%s' && sed -i '/gpuiso_wl:alloc_mdl/,/};/s/_bytes;/_bytez;/' '%s/metadata'",
		 src("traces/desktop"), sub("nofield"), sub("nofield"));
	cr_assert_eq(system(cmd), 0);
	out = fopen("/dev/null", "w");
	cr_assert_eq(text_dump(sub("nofield"), NULL, 0, out, err, sizeof(err)), -EINVAL);
	fclose(out);
	cr_assert(strstr(err, "nofield: event 11 at 1000397008 ns: gpuiso_wl:alloc_mdl has no "
			 "integer field 'bytes'"), "%s", err);
	/* into a file: none is left */
	cr_assert_neq(text_dump_file(sub("nofield"), NULL, 0, sub("d.txt"), err, sizeof(err)), 0);
	cr_assert_neq(access(sub("d.txt"), F_OK), 0);
	cr_assert_eq(text_dump_file(src("traces/desktop"), NULL, 0, sub("d.txt"), err, sizeof(err)),
		     0, "%s", err);
	cr_assert_eq(access(sub("d.txt"), F_OK), 0);
	cr_assert_eq(text_dump(sub("nothing-here"), NULL, 0, stdout, err, sizeof(err)), -ENOENT);
}
