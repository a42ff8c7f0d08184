/* SPDX-License-Identifier: MIT */
/*
 * ctf_read() on real traces recorded elsewhere (ctf_fixture.h), on traces
 * written here (lost events, no clock, arrays), and on traces babeltrace2
 * gives up on or finds corrupt part way.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "replay/ctf.h"
#include "replay/gen.h"
#include "replay/info.h"
#include "tests/replay/ctf_fixture.h"

/* The bytes of the file @path (malloc'd), and how many in *@len. */
static uint8_t *slurp_file(const char *path, size_t *len)
{
	struct stat sb;
	uint8_t *data;
	FILE *f = fopen(path, "rb");

	cr_assert_not_null(f, "%s", path);
	cr_assert_eq(fstat(fileno(f), &sb), 0);
	*len = (size_t)sb.st_size;
	data = malloc(*len ? *len : 1);
	cr_assert_not_null(data);
	cr_assert_eq(fread(data, 1, *len, f), *len);
	fclose(f);
	return data;
}

/* ---- real traces ---- */

Test(ctf_read, ust_counts_and_time_span)
{
	struct counter c = { 0 };
	struct ctf_stats st;
	char err[512];

	cr_assert_eq(read_into(real(UST), &c, &st, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(st.events, UST_EVENTS);
	cr_assert_eq(c.calls, UST_EVENTS);
	cr_assert_eq(st.traces, 1);
	cr_assert_eq(st.discarded, 0);
	cr_assert_eq(c.nnames, 2);
	cr_assert_eq(count_of(&c, "lttng_ust_libc:malloc"), 164028);
	cr_assert_eq(count_of(&c, "lttng_ust_libc:free"), 164028);
	/* babeltrace2 --clock-seconds: first and last event. */
	cr_assert_eq(st.first_ts, 1448652394359148425ull);
	cr_assert_eq(st.last_ts, 1448652394885108739ull);
	/* Four streams merged: time never goes back, and every event has its own index. */
	cr_assert(c.order_ok);
	cr_assert(c.index_ok);
	cr_assert_eq(c.last_index, UST_EVENTS - 1);
	/* Bind runs once per class, not per event. */
	cr_assert_eq(c.binds, 2);
	counter_fini(&c);
}

Test(ctf_read, kernel_counts)
{
	struct counter c = { 0 };
	struct ctf_stats st;
	char err[512];

	cr_assert_eq(read_into(real(KERNEL), &c, &st, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(st.events, KERNEL_EVENTS);
	cr_assert_eq(st.traces, 1);
	cr_assert_eq(st.discarded, 0);
	cr_assert_eq(st.first_ts, 1412670961211260539ull);
	cr_assert_eq(st.last_ts, 1412670967217750839ull);
	cr_assert_eq(count_of(&c, "rpm_suspend"), 1);
	cr_assert_eq(count_of(&c, "rpm_resume"), 2);
	cr_assert_eq(count_of(&c, "rpm_idle"), 4);
	cr_assert_eq(count_of(&c, "rpm_return_int"), 7);
	cr_assert_eq(count_of(&c, "kmem_kmalloc"), 3456);
	cr_assert_eq(count_of(&c, "kmem_kfree"), 3472);
	cr_assert_eq(count_of(&c, "mm_page_alloc"), 504);
	cr_assert_eq(count_of(&c, "sched_switch"), 1052);
	cr_assert(c.order_ok);
	cr_assert(c.index_ok);
	counter_fini(&c);
}

Test(ctf_read, ust_integer_fields)
{
	static const struct want wants[] = {
		{ "lttng_ust_libc:malloc", { "size", "ptr", "no_such_field" }, 3 },
		{ "lttng_ust_libc:free", { "ptr" }, 1 },
		{ .event = NULL },
	};
	struct counter c = { .wants = wants };
	struct ctf_stats st;
	char err[512];
	int m, f;

	cr_assert_eq(read_into(real(UST), &c, &st, err, sizeof(err)), 0, "%s", err);
	m = tag_of(&c, "lttng_ust_libc:malloc");
	f = tag_of(&c, "lttng_ust_libc:free");
	cr_assert_geq(m, 0);
	cr_assert_geq(f, 0);
	/* The first malloc: { size = 8, ptr = 0x1F4BEE0 }. */
	cr_assert(c.first[m][0].present);
	cr_assert_not(c.first[m][0].is_str);
	cr_assert_eq(c.first[m][0].u, 8);
	cr_assert(c.first[m][1].present);
	cr_assert_eq(c.first[m][1].u, 0x1F4BEE0);
	cr_assert_not(c.first[m][2].present);
	cr_assert_eq(c.first[f][0].u, 0x1F4BEA0);
	/* Every value, not only the first: sums as computed from babeltrace2's text. */
	cr_assert_eq(c.sum[m][0], 336429352ull);
	cr_assert_eq(c.sum[m][1], 4568399526960ull);
	counter_fini(&c);
}

Test(ctf_read, kernel_string_and_signed_fields)
{
	static const struct want wants[] = {
		{ "rpm_suspend", { "name", "runtime_auto", "usage_count", "no_such_field" }, 4 },
		{ "rpm_return_int", { "name", "ip", "ret" }, 3 },
		{ .event = NULL },
	};
	struct counter c = { .wants = wants };
	struct ctf_stats st;
	char err[512];
	int s, r;

	cr_assert_eq(read_into(real(KERNEL), &c, &st, err, sizeof(err)), 0, "%s", err);
	s = tag_of(&c, "rpm_suspend");
	r = tag_of(&c, "rpm_return_int");
	cr_assert_geq(s, 0);
	cr_assert_geq(r, 0);
	cr_assert(c.first[s][0].present);
	cr_assert(c.first[s][0].is_str);
	cr_assert_str_eq(c.first_str[s], "e6530000.i2c");
	cr_assert(c.first[s][1].present);
	cr_assert_eq(c.first[s][1].u, 1);
	cr_assert(c.first[s][2].present);
	cr_assert_eq(c.first[s][2].u, 0);
	cr_assert_not(c.first[s][3].present);
	/* The first rpm_return_int: { ip = 3223964248, ret = -11 } (a signed field). */
	cr_assert_eq(c.first[r][1].u, 3223964248ull);
	cr_assert_eq((int64_t)c.first[r][2].u, -11);
	cr_assert(c.first[r][2].negative);
	cr_assert_not(c.first[r][1].negative);
	counter_fini(&c);
}

Test(ctf_read, skipped_classes_still_count_in_the_index)
{
	static const struct want wants[] = {
		{ "lttng_ust_libc:free", { "ptr" }, 1 },
		{ .event = NULL },
	};
	struct counter c = { .wants = wants, .bind_only_wanted = true };
	struct ctf_stats st;
	char err[512];

	cr_assert_eq(read_into(real(UST), &c, &st, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(st.events, UST_EVENTS);
	cr_assert_eq(c.calls, 164028);
	cr_assert(c.index_ok);
	/* The first event is a malloc: the first free cannot have index 0. */
	cr_assert_eq(c.nnames, 1);
	cr_assert_lt(c.last_index, UST_EVENTS);
	cr_assert_gt(c.last_index, c.calls);
	counter_fini(&c);
}

Test(ctf_read, callback_error_stops_the_read)
{
	struct counter c = { .fail_at = 1000 };
	struct ctf_stats st;
	char err[512] = "";

	cr_assert_eq(read_into(real(UST), &c, &st, err, sizeof(err)), -ECANCELED);
	cr_assert_eq(c.calls, 1000);
	cr_assert_eq(st.events, 1000);
	cr_assert_neq(err[0], '\0');
	counter_fini(&c);
}

Test(ctf_read, bind_error_stops_the_read)
{
	struct counter c = { .bind_error = -EPROTO };
	struct ctf_stats st;
	char err[512] = "";

	cr_assert_eq(read_into(real(KERNEL), &c, &st, err, sizeof(err)), -EPROTO);
	cr_assert_eq(c.binds, 1);
	cr_assert_eq(c.calls, 0);
	cr_assert_neq(err[0], '\0');
	counter_fini(&c);
}

/* ---- finding traces below a folder ---- */

Test(ctf_read, parent_folder_holds_both_traces)
{
	struct counter c = { 0 };
	struct ctf_stats st;
	char err[512];

	cr_assert_eq(read_into(real_dir(), &c, &st, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(st.traces, 2);
	cr_assert_eq(st.events, UST_EVENTS + KERNEL_EVENTS);
	cr_assert_eq(count_of(&c, "lttng_ust_libc:malloc"), 164028);
	cr_assert_eq(count_of(&c, "rpm_idle"), 4);
	cr_assert(c.order_ok);
	counter_fini(&c);
}

Test(ctf_read, trace_two_levels_down)
{
	char dir[PATH_MAX], sub[PATH_MAX + 32], err[512];
	struct counter c = { 0 };
	struct ctf_stats st;

	tmpdir(dir, sizeof(dir));
	snprintf(sub, sizeof(sub), "%s/ust", dir);
	cr_assert_eq(mkdir(sub, 0755), 0);
	snprintf(sub, sizeof(sub), "%s/ust/64-bit", dir);
	cr_assert_eq(mkdir(sub, 0755), 0);
	copy_trace(UST, sub);
	cr_assert_eq(read_into(dir, &c, &st, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(st.traces, 1);
	cr_assert_eq(st.events, UST_EVENTS);
	snprintf(sub, sizeof(sub), "%s/ust", dir);
	cr_assert_eq(read_into(sub, &c, &st, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(st.events, UST_EVENTS);
	rm_tree(dir);
	counter_fini(&c);
}

/* ---- small traces written here: discarded events, no clock ---- */

struct pkt {
	uint8_t b[4096];
	size_t o;
};

/* Little-endian, aligned to its own size, as the metadata below declares. */
static void put_le(struct pkt *p, uint64_t v, size_t bytes)
{
	p->o = (p->o + bytes - 1) / bytes * bytes;
	for (size_t i = 0; i < bytes; i++)
		p->b[p->o++] = (uint8_t)(v >> (8 * i));
}

/*
 * One stream, two packets: events v=1..3 at 100, 200, 300 ns, then v=4..5 at
 * 400, 500 ns; the second packet's events_discarded counter says @lost
 * events were lost in between, and its sequence number that @lost_packets
 * packets were. Without @clock there are no timestamps. With @back, event 3
 * (index 2) is stamped 150 ns: time goes back in a stream.
 */
static void write_small_trace(const char *dir, bool clock, uint64_t lost, uint64_t lost_packets,
			      bool back)
{
	static const char *const ts_type =
		"typealias integer { size = 64; align = 64; signed = false; map = clock.c.value; } := ts_t;\n";
	char p[PATH_MAX + 32], meta[2048];
	FILE *f;
	int n;

	n = snprintf(meta, sizeof(meta),
		"/* CTF 1.8 */\n"
		"typealias integer { size = 32; align = 32; signed = false; } := uint32_t;\n"
		"typealias integer { size = 64; align = 64; signed = false; } := uint64_t;\n"
		"trace { major = 1; minor = 8; byte_order = le;\n"
		"  packet.header := struct { uint32_t magic; uint32_t stream_id; }; };\n"
		"%s%s"
		"stream { id = 0;\n"
		"  packet.context := struct { %s uint64_t content_size; uint64_t packet_size;\n"
		"    uint64_t events_discarded; uint64_t packet_seq_num; };\n"
		"  event.header := struct { uint32_t id; %s }; };\n"
		"event { name = \"t:ev\"; id = 0; stream_id = 0;\n"
		"  fields := struct { uint64_t v; }; };\n",
		clock ? "clock { name = c; freq = 1000000000; offset = 0; };\n" : "",
		clock ? ts_type : "",
		clock ? "ts_t timestamp_begin; ts_t timestamp_end;" : "",
		clock ? "ts_t timestamp;" : "");
	cr_assert_lt((size_t)n, sizeof(meta));
	snprintf(p, sizeof(p), "%s/metadata", dir);
	write_file(p, meta, (size_t)n);

	snprintf(p, sizeof(p), "%s/stream_0", dir);
	f = fopen(p, "wb");
	cr_assert_not_null(f);
	for (int k = 0; k < 2; k++) {
		uint64_t first = k == 0 ? 1 : 4, last = k == 0 ? 3 : 5;
		struct pkt pk = { .o = 0 };
		size_t content_at;

		memset(pk.b, 0, sizeof(pk.b));
		put_le(&pk, 0xC1FC1FC1, 4);
		put_le(&pk, 0, 4);
		if (clock) {
			put_le(&pk, first * 100, 8);
			put_le(&pk, last * 100, 8);
		}
		content_at = pk.o;
		put_le(&pk, 0, 8);                  /* content_size, below */
		put_le(&pk, sizeof(pk.b) * 8, 8);   /* packet_size in bits */
		put_le(&pk, k == 0 ? 0 : lost, 8);  /* a running count */
		put_le(&pk, k == 0 ? 0 : 1 + lost_packets, 8);
		for (uint64_t v = first; v <= last; v++) {
			put_le(&pk, 0, 4);
			if (clock)
				put_le(&pk, back && v == 3 ? 150 : v * 100, 8);
			put_le(&pk, v, 8);
		}
		for (size_t i = 0; i < 8; i++)
			pk.b[content_at + i] = (uint8_t)((pk.o * 8) >> (8 * i));
		cr_assert_eq(fwrite(pk.b, 1, sizeof(pk.b), f), sizeof(pk.b));
	}
	fclose(f);
}

Test(ctf_read, discarded_events_are_counted)
{
	static const struct want wants[] = {
		{ "t:ev", { "v" }, 1 },
		{ .event = NULL },
	};
	struct counter c = { .wants = wants };
	char dir[PATH_MAX], err[512];
	struct ctf_stats st;
	char *doc = NULL;
	size_t len = 0;
	FILE *f;

	tmpdir(dir, sizeof(dir));
	write_small_trace(dir, true, 5, 4, false);
	cr_assert_eq(read_into(dir, &c, &st, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(st.events, 5);
	cr_assert_eq(st.discarded, 5);
	cr_assert_eq(st.lost_packets, 4);
	cr_assert_eq(st.first_ts, 100);
	cr_assert_eq(st.last_ts, 500);
	cr_assert_eq(c.sum[0][0], 15);

	f = open_memstream(&doc, &len);
	cr_assert_eq(trace_info(dir, false, f, err, sizeof(err)), 0, "%s", err);
	fclose(f);
	cr_assert_not_null(strstr(doc, "trace is incomplete"), "%s", doc);
	cr_assert_not_null(strstr(doc, "4 packets"), "%s", doc);
	free(doc);
	rm_tree(dir);
	counter_fini(&c);
}

Test(ctf_read, trace_without_clock_has_time_zero)
{
	static const struct want wants[] = {
		{ "t:ev", { "v" }, 1 },
		{ .event = NULL },
	};
	struct counter c = { .wants = wants };
	char dir[PATH_MAX], err[512];
	struct ctf_stats st;

	tmpdir(dir, sizeof(dir));
	write_small_trace(dir, false, 0, 0, false);
	cr_assert_eq(read_into(dir, &c, &st, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(st.events, 5);
	cr_assert_eq(st.discarded, 0);
	cr_assert_eq(st.first_ts, 0);
	cr_assert_eq(st.last_ts, 0);
	cr_assert_eq(c.sum[0][0], 15);
	rm_tree(dir);
	counter_fini(&c);
}

/* One stream whose time goes back: an error naming the event, not a replay out of order. */
Test(ctf_read, time_going_back_in_a_stream_says_where)
{
	char dir[PATH_MAX], err[512];

	tmpdir(dir, sizeof(dir));
	write_small_trace(dir, true, 0, 0, true);
	cr_assert_eq(read_bad(dir, err, sizeof(err)), -EINVAL, "%s", err);
	cr_assert_not_null(strstr(err, "event 2 at 150 ns"), "%s", err);
	cr_assert_not_null(strstr(err, "200 ns"), "%s", err);
	rm_tree(dir);
}

/* ---- a stream that is corrupt part way: an error that says where ---- */

Test(ctf_read, corrupt_event_says_where)
{
	char dir[PATH_MAX], p[PATH_MAX + 16], err[512], ff[64];
	FILE *f;

	tmpdir(dir, sizeof(dir));
	copy_trace(UST, dir);
	snprintf(p, sizeof(p), "%s/channel0_1", dir);
	/* An event header of all ones names an event class that does not exist. */
	memset(ff, 0xff, sizeof(ff));
	f = fopen(p, "r+b");
	cr_assert_not_null(f);
	cr_assert_eq(fseek(f, 500000, SEEK_SET), 0);
	cr_assert_eq(fwrite(ff, 1, sizeof(ff), f), sizeof(ff));
	fclose(f);
	cr_assert_eq(read_bad(dir, err, sizeof(err)), -EINVAL);
	cr_assert_not_null(strstr(err, "after event "), "%s", err);
	cr_assert_not_null(strstr(err, " ns"), "%s", err);
	cr_assert_not_null(strstr(err, "channel0_1"), "%s", err);
	cr_assert_null(strstr(err, "addr=0x"), "debugger noise left in: %s", err);
	rm_tree(dir);
}

/* Before the first event, one packet lost: ctf_write_lossy() writes an empty packet first. */
static int lost_first(void *ctx, struct wl_event *e, struct ctf_loss *loss)
{
	int *left = ctx;

	if (!*left)
		return 0;
	*e = (struct wl_event){ .ts = 40 - 10 * (uint64_t)*left, .kind = WL_FENCE_CREATE,
				.v = { [WL_ID] = (uint64_t)*left } };
	if (*left == 3)
		loss->packets = 1;
	(*left)--;
	return 1;
}

/*
 * An event header that declares an array of 4e9 bytes: babeltrace2 gives up
 * on the stream at its first event and ends the run as if the stream had
 * ended there, with its error left behind. The stream file has bytes and
 * yields no event: damaged, not empty, and said where.
 */
Test(ctf_read, a_stream_babeltrace2_gives_up_on_is_damaged_not_empty)
{
	char dir[PATH_MAX], p[PATH_MAX + 64], want[PATH_MAX + 64], err[1024];
	struct stat sb;
	struct gen *g;
	int left = 3;

	tmpdir(dir, sizeof(dir));
	cr_assert_eq(gen_create("desktop", 20, 1, &g), 0);
	snprintf(p, sizeof(p), "%s/t", dir);
	cr_assert_eq(ctf_write(p, gen_next, g, err, sizeof(err)), 0, "%s", err);
	gen_destroy(g);
	snprintf(p, sizeof(p), "%s/t/metadata", dir);
	edit_file(p, "} timestamp;\n\t} align(8);",
		  "} timestamp;\n\t\tinteger { size = 8; align = 8; } pad[4000000000];\n\t} align(8);");
	snprintf(p, sizeof(p), "%s/t", dir);
	cr_assert_eq(read_bad(p, err, sizeof(err)), -EINVAL);
	cr_assert_not_null(strstr(err, "/t: corrupt trace before the first event: "), "%s", err);
	snprintf(p, sizeof(p), "%s/t/stream", dir);
	cr_assert_eq(stat(p, &sb), 0);
	snprintf(want, sizeof(want), "/t/stream at packet 0 (byte 0 of %lld) and went on as if it "
		 "ended there: ", (long long)sb.st_size);
	cr_assert_not_null(strstr(err, want), "%s", err);
	cr_assert_not_null(strstr(err, "DSCOPE_EVENT_HEADER"), "babeltrace2's words: %s", err);
	cr_assert_null(strstr(err, "addr=0x"), "debugger noise left in: %s", err);

	/* an empty packet first, then the one it gives up on */
	snprintf(p, sizeof(p), "%s/l", dir);
	cr_assert_eq(ctf_write_lossy(p, lost_first, &left, err, sizeof(err)), 0, "%s", err);
	snprintf(p, sizeof(p), "%s/l/metadata", dir);
	edit_file(p, "} timestamp;\n\t} align(8);",
		  "} timestamp;\n\t\tinteger { size = 8; align = 8; } pad[4000000000];\n\t} align(8);");
	snprintf(p, sizeof(p), "%s/l", dir);
	cr_assert_eq(read_bad(p, err, sizeof(err)), -EINVAL);
	cr_assert_not_null(strstr(err, "/l/stream at packet 1 and went on"), "%s", err);

	/* where packet 1 begins, as an LTTng packet index says */
	{
		uint8_t *data, idx[16 + 2 * 56] = { 0xc1, 0xf1, 0xdc, 0xc1, 0, 0, 0, 1, 0, 0, 0, 0,
						    0, 0, 0, 56 };
		uint8_t *second;
		size_t len;

		snprintf(p, sizeof(p), "%s/l/stream", dir);
		data = slurp_file(p, &len);
		/* each packet begins with the same magic and trace UUID */
		second = memmem(data + 1, len - 1, data, 20);
		cr_assert_not_null(second);
		for (int e = 0; e < 2; e++) {
			uint64_t at = e ? (uint64_t)(second - data) : 0;
			uint64_t bits = 8 * (e ? len - at : (uint64_t)(second - data));

			for (int b = 0; b < 8; b++) {
				idx[16 + 56 * e + b] = (uint8_t)(at >> (56 - 8 * b));
				idx[16 + 56 * e + 8 + b] = (uint8_t)(bits >> (56 - 8 * b));
				idx[16 + 56 * e + 16 + b] = (uint8_t)(bits >> (56 - 8 * b));
			}
		}
		snprintf(p, sizeof(p), "%s/l/index", dir);
		cr_assert_eq(mkdir(p, 0755), 0);
		snprintf(p, sizeof(p), "%s/l/index/stream.idx", dir);
		write_file(p, idx, sizeof(idx));
		snprintf(p, sizeof(p), "%s/l", dir);
		cr_assert_eq(read_bad(p, err, sizeof(err)), -EINVAL);
		snprintf(want, sizeof(want), "/l/stream at packet 1 (byte %zu of %zu) and went on",
			 (size_t)(second - data), len);
		cr_assert_not_null(strstr(err, want), "%s", err);
		free(data);
	}
	rm_tree(dir);
}

/* ---- array fields: NAME[I], NAME.count, NAME.sum (as a trace.dat's) ---- */

struct arrays_seen {
	struct ctf_value v[2][CTF_MAX_FIELDS];
	unsigned int n;
};

static int arrays_bind(void *ctx, const char *name, struct ctf_binding *b)
{
	static const char *const fields[] = { "a[0]", "a[2]", "a[3]", "a.count", "a.sum",
					      "s[0]", "s.sum", "s.count" };

	b->tag = 0;
	b->n = CTF_MAX_FIELDS;
	memcpy(b->names, fields, sizeof(fields));
	return 0;
}

static int arrays_event(void *ctx, int tag, uint64_t index, uint64_t ts,
			const struct ctf_value *values)
{
	struct arrays_seen *s = ctx;

	cr_assert_lt(s->n, 2);
	memcpy(s->v[s->n++], values, sizeof(s->v[0]));
	return 0;
}

Test(ctf_read, array_fields_by_element_count_and_sum)
{
	static const char meta[] =
		"/* CTF 1.8 */\n"
		"typealias integer { size = 32; align = 32; signed = false; } := uint32_t;\n"
		"typealias integer { size = 64; align = 64; signed = false; } := uint64_t;\n"
		"typealias integer { size = 64; align = 64; signed = true; } := int64_t;\n"
		"trace { major = 1; minor = 8; byte_order = le;\n"
		"  packet.header := struct { uint32_t magic; uint32_t stream_id; }; };\n"
		"stream { id = 0;\n"
		"  packet.context := struct { uint64_t content_size; uint64_t packet_size; };\n"
		"  event.header := struct { uint32_t id; }; };\n"
		"event { name = \"t:arr\"; id = 0; stream_id = 0;\n"
		"  fields := struct { uint64_t a[3]; uint32_t n; int64_t s[n]; }; };\n";
	static const int64_t s1[] = { -5, 7 };
	struct arrays_seen seen = { 0 };
	char dir[PATH_MAX], p[PATH_MAX + 32], err[512];
	struct pkt pk = { .o = 0 };
	struct ctf_stats st;
	size_t content_at;
	const struct ctf_value *e;

	tmpdir(dir, sizeof(dir));
	snprintf(p, sizeof(p), "%s/metadata", dir);
	write_file(p, meta, sizeof(meta) - 1);
	memset(pk.b, 0, sizeof(pk.b));
	put_le(&pk, 0xC1FC1FC1, 4);
	put_le(&pk, 0, 4);
	content_at = pk.o;
	put_le(&pk, 0, 8);
	put_le(&pk, sizeof(pk.b) * 8, 8);
	for (int k = 0; k < 2; k++) { /* {1,2,3} with s {-5,7}; {10,20,30} with s empty */
		put_le(&pk, 0, 4);
		for (int i = 1; i <= 3; i++)
			put_le(&pk, (uint64_t)(k ? 10 * i : i), 8);
		put_le(&pk, k ? 0 : 2, 4);
		pk.o = (pk.o + 7) / 8 * 8; /* the sequence is aligned, even when empty */
		for (int i = 0; !k && i < 2; i++)
			put_le(&pk, (uint64_t)s1[i], 8);
	}
	for (size_t i = 0; i < 8; i++)
		pk.b[content_at + i] = (uint8_t)((pk.o * 8) >> (8 * i));
	snprintf(p, sizeof(p), "%s/stream_0", dir);
	write_file(p, pk.b, sizeof(pk.b));

	cr_assert_eq(ctf_read(dir, arrays_bind, arrays_event, &seen, NULL, &st, err, sizeof(err)), 0,
		     "%s", err);
	cr_assert_eq(seen.n, 2);
	e = seen.v[0];
	cr_assert(e[0].present && e[0].u == 1 && e[1].present && e[1].u == 3);
	cr_assert(!e[2].present, "a[3] of a 3-element array");
	cr_assert(e[3].present && e[3].u == 3 && e[4].present && e[4].u == 6);
	cr_assert(e[5].present && e[5].negative && (int64_t)e[5].u == -5);
	cr_assert(e[6].present && e[6].u == 2 && e[7].present && e[7].u == 2);
	e = seen.v[1];
	cr_assert(e[0].u == 10 && e[1].u == 30 && e[4].u == 60);
	cr_assert(!e[5].present, "s[0] of an empty sequence");
	cr_assert(e[6].present && e[6].u == 0 && e[7].present && e[7].u == 0);
	rm_tree(dir);
}
