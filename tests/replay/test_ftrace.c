/* SPDX-License-Identifier: MIT */
/*
 * ctf_read() on trace.dat files (replay/ftrace_decode.c, ftrace_file.c):
 * real ftrace recordings (tests/data/ftrace, see its README), their
 * versions 6 and 7 made by `trace-cmd convert`, and damaged copies. What
 * gpuiso reads is compared with what trace-cmd itself reports of the same
 * file, at test time: the events, their order, their raw field values, and
 * the events the ring buffer dropped.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/digest.h"
#include "replay/ctf.h"
#include "replay/ftrace.h"
#include "tests/common/jsonq.h"
#include "tests/hw/kernel_agree.h"
#include "tests/tools/run_gpuiso.h"

#define TWO_CPU "tests/data/ftrace/host-2cpu.dat"
#define LOSSY "tests/data/ftrace/host-lossy.dat"
#define LISA "tests/data/ftrace/foreign/lisa-thermal-arm32.dat"      /* v6, 32-bit ARM, 8 CPUs */
#define LANGRAPH "tests/data/ftrace/foreign/langraph-irq-sched.dat"  /* v7 zstd, 4 CPUs */

/* The recordings every reading test runs on: this machine's, and two no one here wrote. */
static const char *const recordings[] = { TWO_CPU, LISA, LANGRAPH };

/* The fields compared, per event (by short name): integers, signed ones, strings. */
static const struct {
	const char *event;
	const char *fields[CTF_MAX_FIELDS];
} compared_fields[] = {
	{ "mm_page_alloc", { "pfn", "order", "migratetype" } },
	{ "mm_page_free", { "pfn", "order" } },
	{ "sched_switch", { "prev_comm", "prev_pid", "prev_prio", "prev_state", "next_comm",
			    "next_pid", "next_prio" } },
	{ "sched_waking", { "comm", "pid", "prio", "target_cpu" } },
	{ "irq_handler_entry", { "irq", "name" } },
	{ "irq_handler_exit", { "irq", "ret" } },
	{ "softirq_raise", { "vec" } },
	{ "softirq_entry", { "vec" } },
	{ "softirq_exit", { "vec" } },
	{ "thermal_power_limit", { "freq", "cdev_state", "power" } },
	{ "thermal_power_allocator_pi", { "err", "err_integral", "p", "i", "output" } },
	{ "bprint", { "ip", "fmt" } },
	{ "print", { "ip", "buf" } },
	{ "kernel_stack", { "size" } },
};

static const char *src(const char *rel)
{
	static char p[4][PATH_MAX];
	static int next;
	const char *root = getenv("GPUISO_SOURCE_ROOT");

	cr_assert_not_null(root, "set GPUISO_SOURCE_ROOT");
	next = (next + 1) % 4;
	snprintf(p[next], sizeof(p[next]), "%s/%s", root, rel);
	return p[next];
}

static void tmpdir(char *buf, size_t len)
{
	snprintf(buf, len, "%s/gpuiso-ftrace-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	cr_assert_not_null(mkdtemp(buf));
}

/* ---- what gpuiso reads: every event, by short name, with the fields a test names ---- */

#define MAX_NAMES 16

struct got {
	char names[MAX_NAMES][64];  /* short names (no system), by tag */
	uint64_t count[MAX_NAMES];
	const char *fields[CTF_MAX_FIELDS]; /* bound for every class (nfields > 0) ... */
	unsigned int nfields;
	bool by_event;              /* ... or compared_fields' of each class */
	const char *const *tag_fields[MAX_NAMES];
	unsigned int tag_nfields[MAX_NAMES];
	FILE *lines;                /* "name f1=v1 f2=v2 ..." per event, or NULL */
	uint64_t events, digest, last_ts;
	bool ordered;
};

static int got_bind(void *ctx, const char *name, struct ctf_binding *b)
{
	struct got *g = ctx;
	const char *colon = strchr(name, ':');
	int i;

	if (b->listed) { /* bound at its first event, if any */
		b->tag = -1;
		return 0;
	}
	cr_assert_not_null(colon, "'%s' is not system:name", name);
	for (i = 0; i < MAX_NAMES && g->names[i][0]; i++)
		cr_assert_str_neq(g->names[i], colon + 1, "class %s bound twice", name);
	cr_assert_lt(i, MAX_NAMES);
	snprintf(g->names[i], sizeof(g->names[i]), "%s", colon + 1);
	b->tag = i;
	g->tag_fields[i] = g->fields;
	g->tag_nfields[i] = g->nfields;
	for (size_t k = 0; g->by_event && k < sizeof(compared_fields) / sizeof(compared_fields[0]);
	     k++) {
		if (strcmp(compared_fields[k].event, colon + 1))
			continue;
		g->tag_fields[i] = compared_fields[k].fields;
		for (g->tag_nfields[i] = 0; g->tag_nfields[i] < CTF_MAX_FIELDS &&
		     compared_fields[k].fields[g->tag_nfields[i]]; g->tag_nfields[i]++)
			;
	}
	b->n = g->tag_nfields[i];
	for (unsigned int f = 0; f < b->n; f++)
		b->names[f] = g->tag_fields[i][f];
	return 0;
}

static int got_event(void *ctx, int tag, uint64_t index, uint64_t ts, const struct ctf_value *v)
{
	struct got *g = ctx;

	if (g->events && ts < g->last_ts)
		g->ordered = false;
	g->last_ts = ts;
	g->count[tag]++;
	g->digest = digest_combine(g->digest, digest_bytes(&ts, sizeof(ts)));
	g->digest = digest_combine(g->digest, digest_bytes(g->names[tag], strlen(g->names[tag])));
	if (g->lines)
		fprintf(g->lines, "%s", g->names[tag]);
	for (unsigned int f = 0; f < g->tag_nfields[tag]; f++) {
		const char *field = g->tag_fields[tag][f];

		if (!v[f].present)
			continue;
		if (v[f].is_str)
			g->digest = digest_combine(g->digest, digest_bytes(v[f].s, strlen(v[f].s)));
		else
			g->digest = digest_combine(g->digest, digest_bytes(&v[f].u, sizeof(v[f].u)));
		if (g->lines && v[f].is_str) /* (a print's newline ends trace-cmd's line) */
			fprintf(g->lines, "\t%s=\"%.*s\"", field,
				(int)strcspn(v[f].s, "\n"), v[f].s);
		else if (g->lines && v[f].negative)
			fprintf(g->lines, "\t%s=%" PRId64, field, (int64_t)v[f].u);
		else if (g->lines)
			fprintf(g->lines, "\t%s=%" PRIu64, field, v[f].u);
	}
	if (g->lines)
		fputc('\n', g->lines);
	g->events = index + 1;
	return 0;
}

static void read_all(const char *path, struct got *g, struct ctf_stats *st)
{
	char err[1024] = "";
	int rc;

	g->ordered = true;
	rc = ctf_read(path, got_bind, got_event, g, NULL, st, err, sizeof(err));
	cr_assert_eq(rc, 0, "%s: %d: %s", path, rc, err);
	cr_assert_eq(st->events, g->events);
	cr_assert(g->ordered, "%s: events out of time order", path);
}

/* ---- what trace-cmd reports of the same file ---- */

/* `trace-cmd report ARGS FILE`, its output in a temporary file opened for reading. */
static FILE *report(const char *args, const char *path)
{
	char cmd[PATH_MAX + 128];
	FILE *out = tmpfile();
	FILE *p;
	char buf[4096];
	size_t n;

	cr_assert_not_null(out);
	snprintf(cmd, sizeof(cmd), "trace-cmd report %s '%s' 2>/dev/null", args, path);
	p = popen(cmd, "r");
	cr_assert_not_null(p, "cannot run trace-cmd (scripts/install-deps installs it)");
	while ((n = fread(buf, 1, sizeof(buf), p)))
		fwrite(buf, 1, n, out);
	cr_assert_eq(pclose(p), 0, "trace-cmd report %s %s failed", args, path);
	rewind(out);
	return out;
}

/* An event line of `trace-cmd report`: "comm-pid [cpu] secs.usecs: name: rest". */
static bool report_event(const char *line, char *name, size_t len, const char **rest)
{
	const char *b = strstr(line, "] "), *c, *e;

	if (!b)
		return false;
	c = strstr(b + 2, ": ");
	if (!c)
		return false;
	e = strstr(c + 2, ": ");
	if (!e || (size_t)(e - (c + 2)) >= len)
		return false;
	snprintf(name, len, "%.*s", (int)(e - (c + 2)), c + 2);
	while (*name == ' ')
		memmove(name, name + 1, strlen(name));
	*rest = e + 2;
	return true;
}

static void counts_match(const char *rel)
{
	struct got g = { 0 };
	struct ctf_stats st;
	char line[4096], name[64];
	uint64_t want[MAX_NAMES] = { 0 }, total = 0;
	const char *rest;
	FILE *r;

	read_all(src(rel), &g, &st);
	cr_assert_eq(st.traces, 1);
	r = report("", src(rel));
	while (fgets(line, sizeof(line), r)) {
		int i;

		if (!report_event(line, name, sizeof(name), &rest))
			continue;
		for (i = 0; i < MAX_NAMES && strcmp(g.names[i], name); i++)
			;
		cr_assert_lt(i, MAX_NAMES, "%s: trace-cmd reports %s, gpuiso read none", rel, name);
		want[i]++;
		total++;
	}
	fclose(r);
	cr_assert_gt(total, 500, "%s holds %" PRIu64 " events", rel, total);
	cr_assert_eq(st.events, total, "%s: gpuiso read %" PRIu64 ", trace-cmd reports %" PRIu64,
		     rel, st.events, total);
	for (int i = 0; i < MAX_NAMES && g.names[i][0]; i++)
		cr_assert_eq(g.count[i], want[i], "%s: %s: gpuiso %" PRIu64 ", trace-cmd %" PRIu64,
			     rel, g.names[i], g.count[i], want[i]);
}

Test(ftrace, every_event_is_read_in_time_order_as_trace_cmd_reports_it)
{
	struct got g = { 0 };
	struct ctf_stats st;

	for (size_t i = 0; i < sizeof(recordings) / sizeof(recordings[0]); i++)
		counts_match(recordings[i]);
	read_all(src(TWO_CPU), &g, &st);
	cr_assert_eq(st.discarded, 0);
}

/* In trace-cmd's raw line @raw, field @name's value: the same as gpuiso's @mine? */
static bool same_value(const char *raw, const char *name, const char *mine)
{
	char key[80];
	const char *at;
	char *end;

	snprintf(key, sizeof(key), " %s=", name);
	at = strstr(raw, key);
	if (!at)
		return false;
	at += strlen(key);
	if (*mine == '"') { /* a string, quoted by the caller */
		size_t n = strlen(mine) - 2;

		return !strncmp(at, mine + 1, n) && (at[n] == ' ' || at[n] == '\0');
	}
	if (*at == '-')
		return strtoll(at, &end, 0) == strtoll(mine, NULL, 10);
	return strtoull(at, &end, 0) == strtoull(mine, NULL, 10);
}

static void fields_match(const char *rel)
{
	struct got g = { .by_event = true };
	struct ctf_stats st;
	char line[4096], raw[4200], mine[4096], name[64];
	const char *rest;
	uint64_t compared = 0, values = 0;
	FILE *r;

	g.lines = tmpfile();
	cr_assert_not_null(g.lines);
	read_all(src(rel), &g, &st);
	rewind(g.lines);
	r = report("-R", src(rel));
	while (fgets(line, sizeof(line), r)) {
		char *tok, *save;

		if (!report_event(line, name, sizeof(name), &rest))
			continue;
		line[strcspn(line, "\n")] = '\0';
		snprintf(raw, sizeof(raw), " %s", rest);
		cr_assert_not_null(fgets(mine, sizeof(mine), g.lines), "%s: gpuiso read fewer events",
				   rel);
		mine[strcspn(mine, "\n")] = '\0';
		tok = strtok_r(mine, "\t", &save);
		cr_assert_str_eq(tok, name, "%s: event %" PRIu64 ": gpuiso read %s, trace-cmd %s",
				 rel, compared, tok, name);
		while ((tok = strtok_r(NULL, "\t", &save))) {
			char *eq = strchr(tok, '=');

			*eq = '\0';
			cr_assert(same_value(raw, tok, eq + 1), "%s: event %" PRIu64 " (%s): gpuiso "
				  "read %s=%s, trace-cmd says:%s", rel, compared, name, tok, eq + 1,
				  raw);
			values++;
		}
		compared++;
	}
	fclose(r);
	fclose(g.lines);
	cr_assert_eq(compared, st.events);
	cr_assert_gt(values, compared, "%s: few values compared: %" PRIu64, rel, values);
}

/*
 * Field by field: gpuiso's values (integers, signed ones too, and strings)
 * are those of `trace-cmd report -R`, event by event, in the same order.
 */
Test(ftrace, field_values_are_those_trace_cmd_reports, .timeout = 120)
{
	for (size_t i = 0; i < sizeof(recordings) / sizeof(recordings[0]); i++)
		fields_match(recordings[i]);
}

/* An array field's elements, count and sum: ftrace:kernel_stack's return addresses. */
static int stack_bind(void *ctx, const char *name, struct ctf_binding *b)
{
	static const char *const fields[] = { "caller[0]", "caller[1]", "caller.count",
					      "caller.sum", "caller[99]", "caller" };

	b->tag = strcmp(name, "ftrace:kernel_stack") ? -1 : 0;
	b->n = 6;
	memcpy(b->names, fields, sizeof(fields));
	return 0;
}

static int stack_event(void *ctx, int tag, uint64_t index, uint64_t ts, const struct ctf_value *v)
{
	FILE *f = ctx;

	cr_assert(v[0].present && v[1].present && v[2].present && v[3].present);
	cr_assert(!v[4].present, "element 99 of an 8-element array");
	cr_assert(!v[5].present, "a bare array is not a value");
	fprintf(f, "%" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", v[0].u, v[1].u, v[2].u,
		v[3].u);
	return 0;
}

Test(ftrace, array_fields_read_by_element_count_and_sum)
{
	char line[8192], mine[128], name[64];
	const char *rest;
	struct ctf_stats st;
	uint64_t stacks = 0;
	FILE *f = tmpfile(), *r;
	char err[512];

	cr_assert_not_null(f);
	cr_assert_eq(ctf_read(src(LANGRAPH), stack_bind, stack_event, f, NULL, &st, err,
			      sizeof(err)), 0, "%s", err);
	rewind(f);
	r = report("-R", src(LANGRAPH));
	while (fgets(line, sizeof(line), r)) {
		uint64_t w[8] = { 0 }, sum = 0, got[4], depth;
		unsigned int nbytes = 0;
		const char *arr;
		char *end;

		if (!report_event(line, name, sizeof(name), &rest) || strcmp(name, "kernel_stack"))
			continue;
		/* trace-cmd shows the array as its bytes: 8-byte little-endian words here */
		arr = strstr(rest, "caller=ARRAY[");
		cr_assert_not_null(arr);
		for (arr += strlen("caller=ARRAY["); nbytes < 64; arr = end + 1) {
			unsigned long byte = strtoul(arr, &end, 16);

			cr_assert(end != arr && (*end == ',' || *end == ']'), "%s", rest);
			w[nbytes / 8] |= (uint64_t)byte << (8 * (nbytes % 8));
			nbytes++;
			if (*end == ']')
				break;
		}
		cr_assert_eq(nbytes, 64);
		for (int i = 0; i < 8; i++)
			sum += w[i];
		cr_assert_not_null(fgets(mine, sizeof(mine), f));
		cr_assert_eq(sscanf(mine, "%" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64, &got[0],
				    &got[1], &got[2], &got[3]), 4);
		cr_assert_eq(got[0], w[0], "stack %" PRIu64 ": caller[0] %#" PRIx64 ", trace-cmd %#"
			     PRIx64, stacks, got[0], w[0]);
		cr_assert_eq(got[1], w[1]);
		/* a stack of fewer than 8 entries ends the record early: its count says so */
		depth = strtoull(strstr(rest, "size=") + 5, NULL, 10);
		cr_assert_eq(got[2], depth < 8 ? depth : 8, "stack %" PRIu64 " of %" PRIu64 ": count %"
			     PRIu64, stacks, depth, got[2]);
		if (depth >= 8)
			cr_assert_eq(got[3], sum);
		stacks++;
	}
	fclose(r);
	fclose(f);
	cr_assert_gt(stacks, 10000);
}

/* The events the ring buffer dropped, as trace-cmd reports them ("[N EVENTS DROPPED]", or none said). */
Test(ftrace, dropped_events_count_as_discarded_as_trace_cmd_says)
{
	struct got g = { 0 };
	struct ctf_stats st;
	char line[4096];
	uint64_t want = 0, said = 0;
	FILE *r;

	read_all(src(LOSSY), &g, &st);
	r = report("", src(LOSSY));
	while (fgets(line, sizeof(line), r)) {
		unsigned long long n;
		const char *d = strstr(line, "EVENTS DROPPED]");

		if (!d)
			continue;
		said++;
		want += sscanf(strchr(line, '['), "[%llu EVENTS", &n) == 1 ? n : 1;
	}
	fclose(r);
	cr_assert_gt(said, 0, "the lossy recording lost nothing?");
	cr_assert_eq(st.discarded, want, "gpuiso: %" PRIu64 " discarded, trace-cmd: %" PRIu64,
		     st.discarded, want);
	cr_assert_gt(st.events, 0);
}

/* The same recording as versions 6 and 7, compressed or not: the same events, values and order. */
Test(ftrace, versions_and_compression_read_alike, .timeout = 120)
{
	static const char *const fields[] = { "pfn", "order", "gfp_flags", "prev_comm", "next_pid" };
	static const char *const variants[] = { "--file-version 6", "--compression none" };
	char dir[PATH_MAX], out[PATH_MAX + 16], cmd[3 * PATH_MAX];
	struct got base = { .nfields = 5 };
	struct ctf_stats st;

	memcpy(base.fields, fields, sizeof(fields));
	read_all(src(TWO_CPU), &base, &st);
	tmpdir(dir, sizeof(dir));
	for (size_t i = 0; i < sizeof(variants) / sizeof(variants[0]); i++) {
		struct got g = { .nfields = 5 };
		struct ftrace_layout lay;
		char err[512];

		memcpy(g.fields, fields, sizeof(fields));
		snprintf(out, sizeof(out), "%s/v%zu.dat", dir, i);
		snprintf(cmd, sizeof(cmd), "trace-cmd convert -i '%s' -o '%s' %s >/dev/null 2>&1",
			 src(TWO_CPU), out, variants[i]);
		cr_assert_eq(system(cmd), 0, "%s", cmd);
		cr_assert_eq(ftrace_file_check(out, &lay, err, sizeof(err)), 0, "%s", err);
		cr_assert_eq(lay.version, i == 0 ? 6u : 7u);
		cr_assert_str_eq(lay.compression, "none");
		cr_assert_eq(lay.cpus, 2);
		read_all(out, &g, &st);
		cr_assert_eq(g.events, base.events, "%s: %" PRIu64 " events, not %" PRIu64,
			     variants[i], g.events, base.events);
		cr_assert_eq(g.digest, base.digest, "%s: other events or values", variants[i]);
		unlink(out);
	}
	rmdir(dir);
}

/* ---- damaged files: exit 2, saying what and where ---- */

/* An uncompressed version 6 copy of the recording, as bytes. */
static uint8_t *v6_bytes(const char *dir, size_t *len)
{
	char out[PATH_MAX + 16], cmd[3 * PATH_MAX];
	struct stat sb;
	uint8_t *buf;
	FILE *f;

	snprintf(out, sizeof(out), "%s/v6.dat", dir);
	snprintf(cmd, sizeof(cmd), "trace-cmd convert -i '%s' -o '%s' --file-version 6 >/dev/null 2>&1",
		 src(LOSSY), out);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
	cr_assert_eq(stat(out, &sb), 0);
	buf = malloc((size_t)sb.st_size);
	f = fopen(out, "rb");
	cr_assert(buf && f && fread(buf, 1, (size_t)sb.st_size, f) == (size_t)sb.st_size);
	fclose(f);
	unlink(out);
	*len = (size_t)sb.st_size;
	return buf;
}

static void put(const char *path, const uint8_t *data, size_t len)
{
	FILE *f = fopen(path, "wb");

	cr_assert(f && fwrite(data, 1, len, f) == len && !fclose(f));
}

/* `gpuiso trace info` and `replay` of @data: exit 2, the message holding @want. */
static void refused(const char *dir, const char *name, const uint8_t *data, size_t len,
		    const char *want)
{
	char path[PATH_MAX + 64];
	struct run r;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	put(path, data, len);
	RUN(&r, "trace", "info", path);
	cr_assert_eq(r.status, 2, "%s: trace info exit %d: %s", name, r.status, r.err);
	cr_assert(strstr(r.err, want), "%s: expected '%s' in: %s", name, want, r.err);
	RUN(&r, "replay", path, "--no-cache");
	cr_assert_eq(r.status, 2, "%s: replay exit %d: %s", name, r.status, r.err);
	cr_assert(strstr(r.err, want), "%s: expected '%s' in: %s", name, want, r.err);
}

/* Where version 6's flyrecord CPU table begins, and its options (after "options  "). */
static size_t find(const uint8_t *buf, size_t len, const char *s)
{
	const uint8_t *p = memmem(buf, len, s, strlen(s) + 1);

	cr_assert_not_null(p, "'%s' not in the file", s);
	return (size_t)(p - buf);
}

static uint64_t le(const uint8_t *p, unsigned int n)
{
	uint64_t v = 0;

	for (unsigned int i = 0; i < n; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

Test(ftrace, damaged_files_are_refused_saying_where, .timeout = 120)
{
	char dir[PATH_MAX];
	size_t len, at;
	uint8_t *buf, *copy;

	tmpdir(dir, sizeof(dir));
	buf = v6_bytes(dir, &len);
	copy = malloc(len);
	cr_assert_not_null(copy);

	refused(dir, "truncated.dat", buf, 4000, "at offset");
	memcpy(copy, buf, len);
	copy[3] = 'T';
	/* no magic: not a trace.dat, so read as a CTF folder, which a file is not */
	refused(dir, "magic.dat", copy, len, "magic.dat");
	memcpy(copy, buf, len);
	copy[10] = '8';
	refused(dir, "version.dat", copy, len, "file version '8': libtracecmd reads versions 6 and 7");

	/* CPU 0's first ring buffer page says it holds more than a page */
	memcpy(copy, buf, len);
	at = find(copy, len, "flyrecord") + 10;
	at = le(copy + at, 8);
	cr_assert_lt(at + 16, len);
	memset(copy + at + 8, 0x7f, 3);
	refused(dir, "page.dat", copy, len, "CPU 0's page 0 says it holds");

	/* an option numbered as another writer numbers it: CPUCOUNT (8) with a string's size */
	memcpy(copy, buf, len);
	at = find(copy, len, "options  ") + 10;
	for (;;) {
		uint64_t id = le(copy + at, 2), size = le(copy + at + 2, 4);

		cr_assert_neq(id, 0, "no string option to renumber");
		if (size > 4 && (id == 5 || id == 9)) { /* UNAME or VERSION */
			copy[at] = 8;
			break;
		}
		at += 6 + size;
	}
	refused(dir, "option.dat", copy, len, "option 8 (CPUCOUNT) holds");
	free(copy);
	free(buf);
	rmdir(dir);
}

/* A trace.dat replays through a map, its events named system:name. */
Test(ftrace, replays_through_an_import_map)
{
	char dir[PATH_MAX], map[PATH_MAX + 16], line[4096], name[64], want[160];
	uint64_t alloc = 0, free_ = 0, other = 0;
	const char *rest;
	struct run r;
	FILE *f = report("", src(TWO_CPU));

	while (fgets(line, sizeof(line), f))
		if (report_event(line, name, sizeof(name), &rest))
			*(!strcmp(name, "mm_page_alloc") ? &alloc : !strcmp(name, "mm_page_free") ?
			  &free_ : &other) += 1;
	fclose(f);
	cr_assert(alloc && free_ && other);
	tmpdir(dir, sizeof(dir));
	snprintf(map, sizeof(map), "%s/map.yaml", dir);
	f = fopen(map, "w");
	cr_assert_not_null(f);
	fputs("rules:\n"
	      "  - event: kmem:mm_page_alloc\n    op: pressure\n    add: \"4096 << order\"\n"
	      "  - event: kmem:mm_page_free\n    op: pressure\n    sub: \"4096 << order\"\n", f);
	fclose(f);
	RUN(&r, "replay", src(TWO_CPU), "--map", map, "--no-cache");
	cr_assert_eq(r.status, 0, "%s", r.err);
	snprintf(want, sizeof(want), "events: %" PRIu64 " in the trace: %" PRIu64 " used, %" PRIu64
		 " ignored", alloc + free_ + other, alloc + free_, other);
	cr_assert(strstr(r.out, want), "expected '%s' in:\n%s", want, r.out);
	unlink(map);
	rmdir(dir);
}

/*
 * A trace.dat lists every event class it defines: a map none of whose
 * rules names one of them (amdgpu's, on a machine without amdgpu) is bad
 * input, said at the map's first rule, even beside a map that fits; a map
 * that fits replays, also with --strict, as long as every event it has is
 * taken (classes defined but never recorded are not events).
 */
Test(ftrace, a_map_for_events_the_file_lacks_is_refused_where_it_is)
{
	char dir[PATH_MAX], map[PATH_MAX + 16];
	struct run r;
	FILE *f;

	RUN(&r, "replay", src(TWO_CPU), "--map", "traces/maps/linux-page-alloc.yaml", "--map",
	    "traces/maps/amdgpu.yaml", "--no-cache");
	cr_assert_eq(r.status, 2, "%s", r.err);
	cr_assert(strstr(r.err, "traces/maps/amdgpu.yaml:") && strstr(r.err, "(rules[0]): the trace "
		  "defines none of the event classes this map's rules name"), "%s", r.err);
	RUN(&r, "trace", "dump", src(TWO_CPU), "--map", "traces/maps/amdgpu.yaml");
	cr_assert_eq(r.status, 2, "%s", r.err);
	RUN(&r, "replay", src(TWO_CPU), "--map", "traces/maps/linux-page-alloc.yaml", "--no-cache");
	cr_assert_eq(r.status, 0, "%s", r.err);

	/* --strict: what a map does not take must not be in the trace, whatever the file defines */
	tmpdir(dir, sizeof(dir));
	snprintf(map, sizeof(map), "%s/all.yaml", dir);
	f = fopen(map, "w");
	cr_assert_not_null(f);
	fputs("import:\n  memory_base: 16GiB\nrules:\n"
	      "  - event: kmem:mm_page_alloc\n    op: pressure\n    add: \"4096 << order\"\n"
	      "  - event: kmem:mm_page_free\n    op: pressure\n    sub: \"4096 << order\"\n"
	      "  - event: sched:sched_switch\n    op: irql\n    fields: {level: 0}\n", f);
	fclose(f);
	RUN(&r, "replay", src(TWO_CPU), "--map", map, "--strict", "--no-cache");
	cr_assert_eq(r.status, 0, "%s", r.err);
	RUN(&r, "replay", src(TWO_CPU), "--map", "traces/maps/linux-page-alloc.yaml", "--strict",
	    "--no-cache");
	cr_assert_eq(r.status, 2, "%s", r.err);
	cr_assert(strstr(r.err, "no rule of the import maps takes event class 'sched:sched_switch' "
			 "(--strict)"), "%s", r.err);
	unlink(map);
	rmdir(dir);
}

/* ---- a real GPU driver behind the emulated VT-d (traces/virtio-gpu, scripts/record-guest) ---- */

#define VIRTIO_GPU "traces/virtio-gpu/trace.dat"

/* How many events of @name (short) `trace-cmd report` shows in @rel. */
static uint64_t reported(const char *rel, const char *name)
{
	char line[4096], got[64];
	const char *rest;
	uint64_t n = 0;
	FILE *r = report("", src(rel));

	while (fgets(line, sizeof(line), r))
		if (report_event(line, got, sizeof(got), &rest) && !strcmp(got, name))
			n++;
	fclose(r);
	return n;
}

static uint64_t json_u64(const char *doc, const char *path)
{
	char v[64];

	cr_assert(jsonq_get(doc, path, v, sizeof(v)), "no %s in the results", path);
	return strtoull(v, NULL, 10);
}

/*
 * Replayed through each layer's map, the recording's operations are the
 * kernel's own events, one for one: as many allocations, maps and unmaps
 * as the file holds of the events the map takes, none refused, none
 * unmatched, no error, no violation; every other event ignored.
 */
Test(ftrace, a_gpu_drivers_recording_replays_as_the_kernel_recorded_it, .timeout = 120)
{
	static const struct {
		const char *maps[2];
		const char *events[4]; /* short names, in the order of ops[] */
		const char *ops[4];
	} layers[] = {
		{ { "traces/maps/linux-dma.yaml" },
		  { "dma_map_page", "dma_unmap_page", "dma_map_sg", "dma_unmap_sg" },
		  { "alloc_contiguous", "free_contiguous", "alloc_mdl", "free_mdl" } },
		{ { "traces/maps/virtio-gpu.yaml" },
		  { "virtio_gpu_cmd_queue", "virtio_gpu_cmd_response" },
		  { "fence_create", "fence_destroy" } },
	};
	uint64_t total = 0;
	char line[4096], name[64];
	const char *rest;
	FILE *f = report("", src(VIRTIO_GPU));

	while (fgets(line, sizeof(line), f))
		total += report_event(line, name, sizeof(name), &rest);
	fclose(f);
	cr_assert_gt(total, 1000);
	for (size_t l = 0; l < sizeof(layers) / sizeof(layers[0]); l++) {
		uint64_t used = 0;
		char path[128];
		struct run r;

		RUN(&r, "replay", VIRTIO_GPU, "--map", layers[l].maps[0], "--no-cache", "--json", "-");
		cr_assert_eq(r.status, 0, "%s: %s", layers[l].maps[0], r.err);
		cr_assert(jsonq_valid(r.out));
		for (int k = 0; k < 4 && layers[l].events[k]; k++) {
			uint64_t want = reported(VIRTIO_GPU, layers[l].events[k]);

			cr_assert_gt(want, 0, "%s: none in the file", layers[l].events[k]);
			snprintf(path, sizeof(path), "ops.%s.count", layers[l].ops[k]);
			cr_assert_eq(json_u64(r.out, path), want, "%s: %s %" PRIu64 ", the kernel's %s %"
				     PRIu64, layers[l].maps[0], layers[l].ops[k], json_u64(r.out, path),
				     layers[l].events[k], want);
			snprintf(path, sizeof(path), "ops.%s.errors", layers[l].ops[k]);
			cr_assert_eq(json_u64(r.out, path), 0, "%s: %s refused", layers[l].maps[0],
				     layers[l].ops[k]);
			used += want;
		}
		cr_assert_eq(json_u64(r.out, "events.total"), total);
		cr_assert_eq(json_u64(r.out, "events.used"), used, "%s", layers[l].maps[0]);
		cr_assert_eq(json_u64(r.out, "events.ignored"), total - used);
		cr_assert_eq(json_u64(r.out, "events.unmatched"), 0);
		cr_assert_eq(json_u64(r.out, "events.refused"), 0);
		cr_assert(strstr(r.err, "violations: 0"), "%s", r.err);
	}
}

/*
 * The IOMMU layer: one object per iommu:map, and an iommu:unmap ends every
 * object it finishes (a scatter list mapped run by run is unmapped in one
 * call). What the replay leaves live is checked against the kernel's own
 * end state: the map events no later map replaced whose range the kernel
 * still maps at the end (the ranges kernel_agree.c keeps of the events).
 */
Test(ftrace, the_iommu_layer_ends_what_each_unmap_covers, .timeout = 120)
{
	struct { uint64_t iova, size; } maps[4096];
	size_t nmaps = 0;
	uint64_t unmaps = 0, live = 0, index = 0;
	char line[4096], name[64];
	const char *rest;
	struct agree a;
	struct run r;
	FILE *f = report("-R", src(VIRTIO_GPU));

	agree_init(&a);
	while (fgets(line, sizeof(line), f)) {
		struct agree_event e = { .index = index++ };
		unsigned long long iova, size, paddr;

		if (!report_event(line, name, sizeof(name), &rest))
			continue;
		if (!strcmp(name, "map")) {
			cr_assert_eq(sscanf(rest, " iova=%llx paddr=%llx size=%llu", &iova, &paddr,
					    &size), 3, "%s", rest);
			cr_assert_lt(nmaps, sizeof(maps) / sizeof(maps[0]));
			maps[nmaps].iova = iova;
			maps[nmaps++].size = size;
			e.map = true;
		} else if (!strcmp(name, "unmap")) {
			cr_assert_eq(sscanf(rest, " iova=%llx size=%*u unmapped_size=%llu", &iova,
					    &size), 2, "%s", rest);
			unmaps++;
		} else {
			continue;
		}
		e.iova = iova;
		e.size = size;
		cr_assert_eq(agree_kernel(&a, &e), 0);
	}
	fclose(f);
	for (size_t i = 0; i < nmaps; i++) {
		bool replaced = false, mapped = false;

		for (size_t j = i + 1; j < nmaps && !replaced; j++)
			replaced = maps[j].iova < maps[i].iova + maps[i].size &&
				   maps[i].iova < maps[j].iova + maps[j].size;
		mapped = !replaced && range_first_overlap(&a.kernel, maps[i].iova, maps[i].size);
		live += mapped;
	}
	cr_assert_eq(a.kernel_odd, 0, "the recording is of one domain, or it is not what it was");
	agree_fini(&a);
	cr_assert(nmaps > 200 && unmaps > 200 && live > 0, "%zu maps, %" PRIu64 " unmaps, %" PRIu64
		  " live", nmaps, unmaps, live);
	cr_assert_lt(unmaps + live, nmaps, "no unmap covers several maps: the test tests nothing");

	RUN(&r, "replay", VIRTIO_GPU, "--map", "traces/maps/linux-iommu.yaml", "--no-cache",
	    "--json", "-");
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_assert_eq(json_u64(r.out, "ops.alloc_contiguous.count"), nmaps);
	cr_assert_eq(json_u64(r.out, "ops.alloc_contiguous.errors"), 0);
	cr_assert_eq(json_u64(r.out, "ops.free_contiguous.count"), nmaps - live);
	cr_assert_eq(json_u64(r.out, "ops.free_contiguous.errors"), 0);
	cr_assert_eq(json_u64(r.out, "events.used"), nmaps + unmaps);
	cr_assert_eq(json_u64(r.out, "events.unmatched"), 0);
	cr_assert_eq(json_u64(r.out, "events.left_live"), live, "the replay left %" PRIu64 " live, "
		     "the kernel still maps %" PRIu64, json_u64(r.out, "events.left_live"), live);
}
