/* SPDX-License-Identifier: MIT */
/*
 * ctf_read() and trace_info() on real traces recorded elsewhere (shared/
 * traces-real, see its README) and on damaged copies of them. Expected
 * counts and values come from `babeltrace2 DIR` on the same traces.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "replay/ctf.h"
#include "replay/gen.h"
#include "replay/info.h"
#include "tests/common/jsonq.h"
#include "tests/common/traces_real.h"

#define UST "tc-ust-libc-memory"
#define KERNEL "tc-kernel-rpm-kmem"
#define UST_EVENTS 328056
#define KERNEL_EVENTS 31556

/* ---- where the traces are, and scratch copies of them ---- */

static const char *real_dir(void)
{
	return traces_real(NULL);
}

static const char *real(const char *name)
{
	static char p[PATH_MAX];

	cr_assert_lt((size_t)snprintf(p, sizeof(p), "%s/%s", real_dir(), name), sizeof(p));
	return p;
}

static void tmpdir(char *buf, size_t len)
{
	snprintf(buf, len, "%s/gpuiso-ctfread-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	cr_assert_not_null(mkdtemp(buf));
}

static int rm_one(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
	return remove(p);
}

static void rm_tree(const char *dir)
{
	nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static void copy_file(const char *from, const char *to)
{
	char buf[1 << 16];
	int in = open(from, O_RDONLY), out;
	ssize_t n;

	cr_assert_geq(in, 0, "%s: %s", from, strerror(errno));
	out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	cr_assert_geq(out, 0, "%s: %s", to, strerror(errno));
	while ((n = read(in, buf, sizeof(buf))) > 0)
		cr_assert_eq(write(out, buf, (size_t)n), n);
	close(in);
	close(out);
}

/* Copies the real trace @name's top-level files (not index/) into @dst. */
static void copy_trace(const char *name, const char *dst)
{
	static const char *const files[] = {
		"metadata", "channel0_0", "channel0_1", "channel0_2", "channel0_3",
	};
	char from[PATH_MAX + 32], to[PATH_MAX + 32];

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(from, sizeof(from), "%s/%s", real(name), files[i]);
		snprintf(to, sizeof(to), "%s/%s", dst, files[i]);
		copy_file(from, to);
	}
}

static void write_file(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "wb");

	cr_assert_not_null(f, "%s", path);
	cr_assert_eq(fwrite(data, 1, len, f), len);
	fclose(f);
}

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

/* ---- a counting reader: one tag per name, optional fields per name ---- */

#define MAX_NAMES 256

struct want {
	const char *event;          /* bind these fields for this event name */
	const char *fields[CTF_MAX_FIELDS];
	unsigned int n;
};

struct counter {
	const struct want *wants;   /* NULL-event terminated, may be NULL */
	bool bind_only_wanted;      /* other names get tag -1 */
	char *names[MAX_NAMES];
	uint64_t counts[MAX_NAMES];
	unsigned int nnames;
	unsigned int binds;

	uint64_t calls, last_index, last_ts;
	bool order_ok, index_ok;
	int fail_at;                /* > 0: return -ECANCELED at this callback */
	int bind_error;             /* != 0: bind returns it */

	/* Filled by check callbacks. */
	struct ctf_value first[MAX_NAMES][CTF_MAX_FIELDS];
	bool seen[MAX_NAMES];
	uint64_t sum[MAX_NAMES][CTF_MAX_FIELDS];
	char first_str[MAX_NAMES][64];
};

static int tag_of(const struct counter *c, const char *name)
{
	for (unsigned int i = 0; i < c->nnames; i++)
		if (strcmp(c->names[i], name) == 0)
			return (int)i;
	return -1;
}

static int count_bind(void *ctx, const char *name, struct ctf_binding *b)
{
	struct counter *c = ctx;
	const struct want *w = NULL;
	int tag;

	c->binds++;
	if (c->bind_error)
		return c->bind_error;
	for (const struct want *p = c->wants; p && p->event; p++)
		if (strcmp(p->event, name) == 0)
			w = p;
	if (c->bind_only_wanted && !w) {
		b->tag = -1;
		return 0;
	}
	tag = tag_of(c, name);
	if (tag < 0) {
		cr_assert_lt(c->nnames, MAX_NAMES);
		tag = (int)c->nnames;
		c->names[c->nnames++] = strdup(name);
	}
	b->tag = tag;
	b->n = w ? w->n : 0;
	for (unsigned int i = 0; i < b->n; i++)
		b->names[i] = w->fields[i];
	return 0;
}

static int count_event(void *ctx, int tag, uint64_t index, uint64_t ts, const struct ctf_value *v)
{
	struct counter *c = ctx;
	const struct want *w = NULL;

	if (c->calls > 0) {
		c->order_ok = c->order_ok && ts >= c->last_ts;
		c->index_ok = c->index_ok && index > c->last_index;
	} else {
		c->order_ok = c->index_ok = true;
	}
	c->last_ts = ts;
	c->last_index = index;
	c->calls++;
	c->counts[tag]++;
	for (const struct want *p = c->wants; p && p->event; p++)
		if (strcmp(p->event, c->names[tag]) == 0)
			w = p;
	for (unsigned int f = 0; w && f < w->n; f++) {
		if (!c->seen[tag]) {
			c->first[tag][f] = v[f];
			c->first[tag][f].s = NULL; /* valid during the callback only */
			if (v[f].present && v[f].is_str)
				snprintf(c->first_str[tag], sizeof(c->first_str[tag]), "%s", v[f].s);
		}
		if (v[f].present && !v[f].is_str)
			c->sum[tag][f] += v[f].u;
	}
	c->seen[tag] = true;
	if (c->fail_at > 0 && c->calls == (uint64_t)c->fail_at)
		return -ECANCELED;
	return 0;
}

static void counter_fini(struct counter *c)
{
	for (unsigned int i = 0; i < c->nnames; i++)
		free(c->names[i]);
}

static uint64_t count_of(const struct counter *c, const char *name)
{
	int t = tag_of(c, name);

	return t < 0 ? 0 : c->counts[t];
}

static int read_into(const char *path, struct counter *c, struct ctf_stats *st, char *err,
		     size_t errlen)
{
	return ctf_read(path, count_bind, count_event, c, NULL, st, err, errlen);
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

/* ---- bad input: an error with a message, never a crash ---- */

static int read_bad(const char *path, char *err, size_t errlen)
{
	struct counter c = { 0 };
	struct ctf_stats st;
	int ret;

	err[0] = '\0';
	ret = read_into(path, &c, &st, err, errlen);
	cr_assert_lt(ret, 0, "reading %s succeeded", path);
	cr_assert_neq(err[0], '\0', "no message for %s", path);
	cr_assert_null(strchr(err, '\n'), "not one line: %s", err);
	counter_fini(&c);
	return ret;
}

Test(ctf_read, missing_path)
{
	char err[512];

	cr_assert_eq(read_bad("/nonexistent/gpuiso/trace", err, sizeof(err)), -ENOENT);
	cr_assert_not_null(strstr(err, "/nonexistent/gpuiso/trace"), "%s", err);
}

Test(ctf_read, folder_without_metadata)
{
	char dir[PATH_MAX], err[512];

	tmpdir(dir, sizeof(dir));
	cr_assert_eq(read_bad(dir, err, sizeof(err)), -ENOENT);
	cr_assert_not_null(strstr(err, "no CTF trace"), "%s", err);
	cr_assert_not_null(strstr(err, dir), "%s", err);
	rm_tree(dir);
}

Test(ctf_read, file_instead_of_folder)
{
	char p[PATH_MAX + 16], err[512];

	snprintf(p, sizeof(p), "%s/README.md", real_dir());
	cr_assert_eq(read_bad(p, err, sizeof(err)), -ENOENT);
}

Test(ctf_read, garbage_metadata)
{
	char dir[PATH_MAX], p[PATH_MAX + 16], err[512], junk[3000];

	for (size_t i = 0; i < sizeof(junk); i++)
		junk[i] = (char)(i * 2654435761u >> 13);
	tmpdir(dir, sizeof(dir));
	snprintf(p, sizeof(p), "%s/metadata", dir);
	write_file(p, junk, sizeof(junk));
	cr_assert_eq(read_bad(dir, err, sizeof(err)), -EINVAL);
	cr_assert_not_null(strstr(err, dir), "%s", err);
	cr_assert_not_null(strstr(err, "metadata"), "%s", err);
	rm_tree(dir);
}

Test(ctf_read, metadata_text_that_does_not_parse)
{
	static const char text[] = "/* CTF 1.8 */\ntrace { major = 1; minor = 8; byte_order = ";
	char dir[PATH_MAX], p[PATH_MAX + 16], err[512];

	tmpdir(dir, sizeof(dir));
	snprintf(p, sizeof(p), "%s/metadata", dir);
	write_file(p, text, sizeof(text) - 1);
	cr_assert_eq(read_bad(dir, err, sizeof(err)), -EINVAL);
	cr_assert_not_null(strstr(err, "parse"), "%s", err);
	rm_tree(dir);
}

/* babeltrace2 would spin for ever on these: each packet must be whole. */
Test(ctf_read, packetized_metadata_cut_short)
{
	static const off_t cuts[] = { 4, 100, 4096 + 37 - 1, 4096 + 3000 };
	char dir[PATH_MAX], p[PATH_MAX + 16], whole[PATH_MAX + 16], err[512];

	tmpdir(dir, sizeof(dir));
	copy_trace(UST, dir);
	snprintf(p, sizeof(p), "%s/metadata", dir);
	snprintf(whole, sizeof(whole), "%s/metadata", real(UST));
	for (size_t i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
		copy_file(whole, p);
		cr_assert_eq(truncate(p, cuts[i]), 0);
		cr_assert_eq(read_bad(dir, err, sizeof(err)), -EINVAL, "cut at %lld", (long long)cuts[i]);
		cr_assert_not_null(strstr(err, "metadata is cut short"), "%s", err);
		cr_assert_not_null(strstr(err, cuts[i] > 4096 ? "packet 1 " : "packet 0 "), "%s", err);
	}
	rm_tree(dir);
}

Test(ctf_read, empty_metadata)
{
	char dir[PATH_MAX], p[PATH_MAX + 16], err[512];

	tmpdir(dir, sizeof(dir));
	snprintf(p, sizeof(p), "%s/metadata", dir);
	write_file(p, "", 0);
	cr_assert_eq(read_bad(dir, err, sizeof(err)), -EINVAL);
	cr_assert_not_null(strstr(err, "empty"), "%s", err);
	rm_tree(dir);
}

/* babeltrace2 would skip these silently: the trace would replay with fewer events. */
Test(ctf_read, stream_files_that_are_not_regular_files)
{
	char dir[PATH_MAX], p[PATH_MAX + 16], err[512];

	tmpdir(dir, sizeof(dir));
	copy_trace(UST, dir);
	snprintf(p, sizeof(p), "%s/channel0_1", dir);
	cr_assert_eq(unlink(p), 0);
	cr_assert_eq(mkfifo(p, 0600), 0);
	cr_assert_eq(read_bad(dir, err, sizeof(err)), -EINVAL);
	cr_assert_not_null(strstr(err, "channel0_1: not a regular file"), "%s", err);
	cr_assert_eq(unlink(p), 0);
	cr_assert_eq(symlink("/nonexistent/gpuiso/stream", p), 0);
	cr_assert_eq(read_bad(dir, err, sizeof(err)), -EINVAL);
	cr_assert_not_null(strstr(err, "channel0_1: No such file"), "%s", err);
	rm_tree(dir);
}

Test(ctf_read, truncated_stream_file)
{
	char dir[PATH_MAX], p[PATH_MAX + 16], err[512];

	tmpdir(dir, sizeof(dir));
	copy_trace(UST, dir);
	snprintf(p, sizeof(p), "%s/channel0_1", dir);
	/* Mid-packet: the last packet's header says more than the file holds. */
	cr_assert_eq(truncate(p, 1000123), 0);
	cr_assert_eq(read_bad(dir, err, sizeof(err)), -EINVAL);
	cr_assert_not_null(strstr(err, "channel0_1"), "%s", err);
	rm_tree(dir);
}

/* A packet after the first that is no packet is found while indexing: the file is named. */
Test(ctf_read, a_damaged_later_packet_names_its_stream_file)
{
	char dir[PATH_MAX], p[PATH_MAX + 16], err[1024];
	unsigned char zero[4] = { 0 };
	FILE *f;

	tmpdir(dir, sizeof(dir));
	copy_trace(UST, dir);
	snprintf(p, sizeof(p), "%s/channel0_1", dir);
	f = fopen(p, "r+b");
	cr_assert_not_null(f);
	cr_assert_eq(fseek(f, 1 << 20, SEEK_SET), 0); /* the second packet's magic (packets of 1 MiB) */
	cr_assert_eq(fwrite(zero, 1, sizeof(zero), f), sizeof(zero));
	fclose(f);
	cr_assert_eq(read_bad(dir, err, sizeof(err)), -EINVAL);
	cr_assert_not_null(strstr(err, "stream file "), "%s", err);
	cr_assert_not_null(strstr(err, "/channel0_1: Invalid CTF magic number"), "%s", err);
	rm_tree(dir);
}

/* babeltrace2 does not say which file it could not take for a stream: we do. */
Test(ctf_read, a_file_that_is_no_stream_is_named)
{
	char dir[PATH_MAX], p[PATH_MAX + 16], err[512];

	tmpdir(dir, sizeof(dir));
	copy_trace(UST, dir);
	snprintf(p, sizeof(p), "%s/README.txt", dir);
	write_file(p, "notes\n", 6);
	cr_assert_eq(read_bad(dir, err, sizeof(err)), -EINVAL);
	cr_assert_not_null(strstr(err, "README.txt: not a CTF stream file"), "%s", err);
	cr_assert_eq(unlink(p), 0);
	snprintf(p, sizeof(p), "%s/channel0_1", dir);
	cr_assert_eq(truncate(p, 10), 0);
	cr_assert_eq(read_bad(dir, err, sizeof(err)), -EINVAL);
	cr_assert_not_null(strstr(err, "channel0_1: cut short in its first packet"), "%s", err);
	rm_tree(dir);
}

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

/* ---- trace info ---- */

static char *info(const char *path, bool json)
{
	char *doc = NULL, err[512];
	size_t len = 0;
	FILE *f = open_memstream(&doc, &len);

	cr_assert_not_null(f);
	cr_assert_eq(trace_info(path, json, f, err, sizeof(err)), 0, "%s", err);
	fclose(f);
	return doc;
}

static void expect(const char *doc, const char *path, const char *want)
{
	char got[512];

	cr_assert(jsonq_get(doc, path, got, sizeof(got)), "%s missing in\n%s", path, doc);
	cr_assert_str_eq(got, want, "%s", path);
}

Test(trace_info, text)
{
	char *doc = info(real(UST), false);
	const char *malloc_line, *free_line;

	cr_assert_not_null(strstr(doc, "328056"), "%s", doc);
	cr_assert_not_null(strstr(doc, "1448652394359148425"), "%s", doc);
	cr_assert_not_null(strstr(doc, "0.525960314 s"), "span:\n%s", doc);
	cr_assert_null(strstr(doc, "incomplete"), "%s", doc);
	malloc_line = strstr(doc, "lttng_ust_libc:malloc");
	free_line = strstr(doc, "lttng_ust_libc:free");
	cr_assert_not_null(malloc_line, "%s", doc);
	cr_assert_not_null(free_line, "%s", doc);
	cr_assert_lt(free_line, malloc_line, "not sorted by name:\n%s", doc);
	free(doc);
}

Test(trace_info, json)
{
	char *doc = info(real(UST), true);
	char path[PATH_MAX];

	cr_assert(jsonq_valid(doc), "not valid JSON:\n%s", doc);
	snprintf(path, sizeof(path), "%s", real(UST));
	expect(doc, "schema", "gpuiso-trace-info/1");
	expect(doc, "path", path);
	expect(doc, "traces", "1");
	expect(doc, "events", "328056");
	expect(doc, "discarded", "0");
	expect(doc, "first_ts", "1448652394359148425");
	expect(doc, "last_ts", "1448652394885108739");
	expect(doc, "by_name.lttng_ust_libc:malloc", "164028");
	expect(doc, "by_name.lttng_ust_libc:free", "164028");
	free(doc);
}

Test(trace_info, json_two_traces)
{
	char *doc = info(real_dir(), true);

	cr_assert(jsonq_valid(doc), "not valid JSON:\n%s", doc);
	expect(doc, "traces", "2");
	expect(doc, "events", "359612");
	expect(doc, "by_name.rpm_suspend", "1");
	expect(doc, "by_name.lttng_ust_libc:free", "164028");
	free(doc);
}

Test(trace_info, error_prints_nothing)
{
	char *doc = NULL, err[512] = "";
	size_t len = 0;
	FILE *f = open_memstream(&doc, &len);

	cr_assert_eq(trace_info("/nonexistent/gpuiso", true, f, err, sizeof(err)), -ENOENT);
	fclose(f);
	cr_assert_eq(len, 0);
	cr_assert_neq(err[0], '\0');
	free(doc);
}

/* ---- the decoder dies, hangs or grows: an answer about the trace ---- */

/* The kernel trace with its index/ (copy_trace() leaves that out). */
static void copy_indexed(const char *dst)
{
	char from[PATH_MAX + 64], to[PATH_MAX + 64];

	copy_trace(KERNEL, dst);
	snprintf(to, sizeof(to), "%s/index", dst);
	cr_assert_eq(mkdir(to, 0755), 0);
	for (int i = 0; i < 4; i++) {
		snprintf(from, sizeof(from), "%s/index/channel0_%d.idx", real(KERNEL), i);
		snprintf(to, sizeof(to), "%s/index/channel0_%d.idx", dst, i);
		copy_file(from, to);
	}
}

/* Replace the first @from in file @path by @to (same length or not). */
static void edit_file(const char *path, const char *from, const char *to)
{
	char *text, *at;
	long n;
	FILE *f = fopen(path, "rb");

	cr_assert_not_null(f, "%s", path);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	text = calloc(1, (size_t)n + 1);
	cr_assert_eq(fread(text, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	at = memmem(text, (size_t)n, from, strlen(from));
	cr_assert_not_null(at, "%s has no \"%s\"", path, from);
	f = fopen(path, "wb");
	fwrite(text, 1, (size_t)(at - text), f);
	fwrite(to, 1, strlen(to), f);
	fwrite(at + strlen(from), 1, (size_t)n - (size_t)(at - text) - strlen(from), f);
	fclose(f);
	free(text);
}

/* babeltrace2 aborts on a precondition when a structure names a member twice. */
Test(ctf_read, decoder_that_aborts_is_bad_input)
{
	char dir[PATH_MAX], p[PATH_MAX + 16], err[512];

	tmpdir(dir, sizeof(dir));
	copy_trace(KERNEL, dir);
	snprintf(p, sizeof(p), "%s/metadata", dir);
	/* (the same length: its metadata is in packets of a given size) */
	edit_file(p, " _dir_name;", " _dev_name;");
	cr_assert_eq(read_bad(dir, err, sizeof(err)), -EINVAL);
	cr_assert_not_null(strstr(err, dir), "%s", err);
	cr_assert_not_null(strstr(err, "babeltrace2 crashed (Aborted)"), "%s", err);
	cr_assert_not_null(strstr(err, "Duplicate member"), "the decoder's last words: %s", err);
	cr_assert_null(strstr(err, "addr=0x"), "debugger noise left in: %s", err);
	rm_tree(dir);
}

/* src.ctf.fs trusts LTTng's index and aborts on a packet past the file's end: checked first. */
Test(ctf_read, index_past_the_stream_file_is_named)
{
	char dir[PATH_MAX], p[PATH_MAX + 32], err[512];
	unsigned char far[8] = { 0, 0, 0, 0, 0, 0x34, 0, 0 };
	FILE *f;

	tmpdir(dir, sizeof(dir));
	copy_indexed(dir);
	snprintf(p, sizeof(p), "%s/index/channel0_0.idx", dir);
	f = fopen(p, "r+b");
	cr_assert_not_null(f);
	cr_assert_eq(fseek(f, 16 + 56, SEEK_SET), 0); /* packet 1's offset (its entries are 56 bytes) */
	cr_assert_eq(fwrite(far, 1, sizeof(far), f), sizeof(far));
	fclose(f);
	cr_assert_eq(read_bad(dir, err, sizeof(err)), -EINVAL);
	cr_assert_not_null(strstr(err, "stream file channel0_0: its index (index/channel0_0.idx) "
				   "says packet 1 is at byte 3407872"), "%s", err);
	rm_tree(dir);
}

/* The decoder's pid: this process's child named ctf-decode. */
static pid_t decoder_pid(void)
{
	char path[64], stat[512];
	pid_t found = 0;
	DIR *proc = opendir("/proc");
	struct dirent *e;

	cr_assert_not_null(proc);
	while (!found && (e = readdir(proc))) {
		int pid = atoi(e->d_name), ppid = 0;
		char comm[32] = "";
		FILE *f;

		if (pid <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/stat", pid);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(stat, sizeof(stat), f) &&
		    sscanf(stat, "%*d (%31[^)]) %*c %d", comm, &ppid) == 2 && ppid == getpid() &&
		    !strcmp(comm, "ctf-decode"))
			found = pid;
		fclose(f);
	}
	closedir(proc);
	return found;
}

/* At the first event class, stop the decoder dead: it says nothing more. */
static int freeze_bind(void *ctx, const char *name, struct ctf_binding *b)
{
	pid_t pid = decoder_pid();

	cr_assert_gt(pid, 0, "no ctf-decode child");
	cr_assert_eq(kill(pid, SIGSTOP), 0);
	b->tag = -1;
	return 0;
}

static int no_event(void *ctx, int tag, uint64_t index, uint64_t ts, const struct ctf_value *v)
{
	return 0;
}

/*
 * A decoder that neither runs nor decodes anything (stopped here, as one
 * deadlocked on a lock inherited at fork() would be) is killed, and that is
 * not the trace's doing: an environment problem, never a corrupt trace.
 */
Test(ctf_read, a_decoder_that_neither_runs_nor_decodes_is_not_the_traces_doing)
{
	struct ctf_limits lim = { .idle_s = 1 };
	char err[512];
	uint64_t t0 = (uint64_t)time(NULL);

	cr_assert_eq(ctf_read(real(KERNEL), freeze_bind, no_event, NULL, &lim, NULL, err,
			      sizeof(err)), -ECHILD);
	cr_assert(ctf_error_is_environment(-ECHILD));
	cr_assert_not_null(strstr(err, "the CTF decoder neither ran nor moved on for 1 s (state T"),
			   "%s", err);
	cr_assert_not_null(strstr(err, "(killed) after event"), "%s", err);
	cr_assert_not_null(strstr(err, "not the trace's doing"), "%s", err);
	cr_assert_not_null(strstr(err, real(KERNEL)), "%s", err);
	cr_assert_leq((uint64_t)time(NULL) - t0, 10, "the watchdog took too long");
	cr_assert_eq(decoder_pid(), 0, "the decoder outlived the read");
}

/* Keep the decoder waiting for its first binding long enough for its memory to be looked at. */
static int slow_bind(void *ctx, const char *name, struct ctf_binding *b)
{
	usleep(600 * 1000);
	return count_bind(ctx, name, b);
}

Test(ctf_read, decoder_that_grows_too_big_is_killed)
{
	struct ctf_limits lim = { .anon_bytes = 64 << 10 }; /* it needs about 1 MiB */
	struct counter c = { 0 };
	char err[512];

	cr_assert_eq(ctf_read(real(UST), slow_bind, count_event, &c, &lim, NULL, err, sizeof(err)),
		     -EINVAL);
	cr_assert_not_null(strstr(err, "grew by more than 64KiB of memory (killed)"), "%s", err);
	cr_assert_eq(decoder_pid(), 0, "the decoder outlived the read");
	counter_fini(&c);
}

/* What the decoder dies of at the 1000th event (each test is a process of its own). */
static int crash_signal = SIGSEGV;

/* At the 1000th event, the decoder crashes (as far as anyone can tell). */
static int crash_at_event(void *ctx, int tag, uint64_t index, uint64_t ts,
			  const struct ctf_value *v)
{
	struct counter *c = ctx;

	if (c->calls == 999)
		cr_assert_eq(kill(decoder_pid(), crash_signal), 0);
	return count_event(ctx, tag, index, ts, v);
}

/* Where the decoder was when it died: the stream, its packet, the last event. */
Test(ctf_read, decoder_death_mid_trace_says_where)
{
	struct counter c = { 0 };
	char err[512];

	cr_assert_eq(ctf_read(real(UST), count_bind, crash_at_event, &c, NULL, NULL, err,
			      sizeof(err)), -EINVAL);
	cr_assert_not_null(strstr(err, "corrupt trace after event "), "%s", err);
	cr_assert_not_null(strstr(err, ", in or after packet "), "no packet: %s", err);
	cr_assert_not_null(strstr(err, " of /"), "no stream named: %s", err);
	cr_assert_not_null(strstr(err, "/channel0_"), "no stream named: %s", err);
	cr_assert_not_null(strstr(err, "babeltrace2 crashed (Segmentation fault)"), "%s", err);
	counter_fini(&c);
}

/* Found by fuzzing (fuzz/corpus/ctf): babeltrace2 grows without end on this 4 KiB trace. */
Test(ctf_read, decoder_that_grows_on_a_damaged_trace_is_killed)
{
	struct ctf_limits lim = { .anon_bytes = 64 << 20 };
	char path[PATH_MAX], err[512];
	struct counter c = { 0 };
	time_t t0 = time(NULL);

	snprintf(path, sizeof(path), "%s/tests/data/traces/bt2-grows", getenv("GPUISO_SOURCE_ROOT"));
	cr_assert_eq(ctf_read(path, count_bind, count_event, &c, &lim, NULL, err, sizeof(err)),
		     -EINVAL, "%s", err);
	cr_assert_not_null(strstr(err, "bt2-grows: cannot open CTF trace: babeltrace2 grew by more "
				   "than 64MiB of memory (killed)"), "%s", err);
	cr_assert_leq(time(NULL) - t0, 20, "the limit took too long");
	counter_fini(&c);
}

/* A SIGKILL this process did not send is the machine's doing, not the trace's. */
Test(ctf_read, decoder_killed_from_outside_is_the_machines_fault)
{
	struct counter c = { 0 };
	char err[512];
	int rc;

	crash_signal = SIGKILL; /* as the OOM killer, or kill -9, sends it */
	rc = ctf_read(real(UST), count_bind, crash_at_event, &c, NULL, NULL, err, sizeof(err));

	cr_assert_eq(rc, -ECHILD, "%d: %s", rc, err);
	cr_assert(ctf_error_is_environment(rc));
	cr_assert_not_null(strstr(err, "the CTF decoder was killed from outside"), "%s", err);
	counter_fini(&c);
}

/* Of two trace folders, the one whose stream the decoder died in is named. */
Test(ctf_read, decoder_death_names_the_folder_it_died_in)
{
	char dir[PATH_MAX], a[PATH_MAX + 8], z[PATH_MAX + 8], p[PATH_MAX + 32], to[PATH_MAX + 32];
	char err[1024];
	struct counter c = { 0 };
	const char *of;

	tmpdir(dir, sizeof(dir));
	snprintf(a, sizeof(a), "%s/a", dir);
	snprintf(z, sizeof(z), "%s/z", dir);
	cr_assert_eq(mkdir(a, 0755), 0);
	cr_assert_eq(mkdir(z, 0755), 0);
	copy_trace(UST, a);
	/* z: a trace without events, opened after a */
	snprintf(p, sizeof(p), "%s/traces/desktop/metadata", getenv("GPUISO_SOURCE_ROOT"));
	snprintf(to, sizeof(to), "%s/metadata", z);
	copy_file(p, to);
	snprintf(to, sizeof(to), "%s/stream", z);
	write_file(to, "", 0);
	cr_assert_eq(ctf_read(dir, count_bind, crash_at_event, &c, NULL, NULL, err, sizeof(err)),
		     -EINVAL);
	cr_assert_eq(strncmp(err, a, strlen(a)), 0, "not named after %s: %s", a, err);
	of = strstr(err, " of ");
	cr_assert_not_null(of, "no stream named: %s", err);
	cr_assert_eq(strncmp(of + 4, a, strlen(a)), 0, "%s", err);
	rm_tree(dir);
	counter_fini(&c);
}

static int skip_bind(void *ctx, const char *name, struct ctf_binding *b)
{
	b->tag = -1;
	return 0;
}

/*
 * A trace whose stream file is one packet (no packet context: CTF makes
 * the whole file the packet) of @n events of one class, "e" {v}.
 */
static void write_one_packet_trace(const char *dir, uint64_t n)
{
	static const char metadata[] =
		"/* CTF 1.8 */\n"
		"typealias integer { size = 8; align = 8; signed = false; } := uint8_t;\n"
		"typealias integer { size = 32; align = 8; signed = false; } := uint32_t;\n"
		"trace { major = 1; minor = 8; byte_order = le;\n"
		"	packet.header := struct { uint32_t magic; }; };\n"
		"clock { name = c; freq = 1000000000; };\n"
		"typealias integer { size = 64; align = 8; signed = false; map = clock.c.value; }"
		" := ts_t;\n"
		"stream { event.header := struct { uint8_t id; ts_t timestamp; }; };\n"
		"event { name = \"e\"; id = 0; fields := struct { uint32_t v; }; };\n";
	static uint8_t rec[13 * 4096];
	char p[PATH_MAX + 16];
	uint32_t magic = 0xC1FC1FC1;
	FILE *f;

	snprintf(p, sizeof(p), "%s/metadata", dir);
	write_file(p, metadata, sizeof(metadata) - 1);
	snprintf(p, sizeof(p), "%s/stream", dir);
	f = fopen(p, "wb");
	cr_assert_not_null(f, "%s", p);
	cr_assert_eq(fwrite(&magic, 4, 1, f), 1); /* (this machine is little-endian) */
	for (uint64_t i = 0; i < n; i += 4096) {
		for (uint64_t k = 0; k < 4096; k++) {
			uint64_t ts = 1000 + i + k;
			uint32_t v = (uint32_t)(i + k);

			rec[13 * k] = 0;
			memcpy(&rec[13 * k + 1], &ts, 8);
			memcpy(&rec[13 * k + 9], &v, 4);
		}
		cr_assert_eq(fwrite(rec, 13, 4096, f), 4096);
	}
	cr_assert_eq(fclose(f), 0);
}

/*
 * A decoder that skips every event still says where it is (every 4096
 * events), also in a trace of one long packet: 10M events take it longer
 * than a second, and none of that is silence.
 */
Test(ctf_read, a_decoder_skipping_every_event_is_not_silent, .timeout = 120)
{
	struct ctf_limits lim = { .idle_s = 1 };
	char dir[PATH_MAX], err[512];
	struct ctf_stats st;

	tmpdir(dir, sizeof(dir));
	write_one_packet_trace(dir, 10 * 1024 * 1024);
	cr_assert_eq(ctf_read(dir, skip_bind, no_event, NULL, &lim, &st, err, sizeof(err)), 0,
		     "%s", err);
	cr_assert_eq(st.events, 10 * 1024 * 1024);
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
