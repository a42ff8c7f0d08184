/* SPDX-License-Identifier: MIT */
/*
 * The .etl reader (replay/etl_*.c) on an excerpt of a real recording
 * (tests/data/etl/README.md), and on copies of it damaged where a reader
 * must notice: the walk's counts and the decoder's events and fields are
 * those an independent reader (airbus-cert/etl-parser) gives, and each
 * damage is refused saying where.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "replay/ctf.h"
#include "replay/etl.h"
#include "replay/etl_schema.h"
#include "tests/tools/run_gpuiso.h"

#define EXCERPT "tests/data/etl/steamvr-4buffers.etl"
#define BUF 65536

static char *slurp(const char *rel, size_t *n)
{
	char path[4096];
	FILE *f;
	char *d;

	snprintf(path, sizeof(path), "%s/%s", getenv("GPUISO_SOURCE_ROOT"), rel);
	f = fopen(path, "rb");
	cr_assert(f, "%s", path);
	d = malloc(4 * BUF + 1);
	cr_assert(d);
	*n = fread(d, 1, 4 * BUF + 1, f);
	fclose(f);
	return d;
}

/* @len bytes of @d to a new file; its path in @path. */
static void spill(const char *d, size_t len, char path[static 64])
{
	FILE *f;

	snprintf(path, 64, "/tmp/gpuiso-etl-XXXXXX.etl");
	cr_assert_geq(close(mkstemps(path, 4)), 0);
	f = fopen(path, "wb");
	cr_assert(f && fwrite(d, 1, len, f) == len);
	fclose(f);
}

Test(etl, the_excerpt_walks_as_counted_independently)
{
	char path[4096], err[512] = "";
	struct etl_layout l;

	snprintf(path, sizeof(path), "%s/%s", getenv("GPUISO_SOURCE_ROOT"), EXCERPT);
	cr_assert(etl_file_is(path));
	cr_assert_eq(etl_file_check(path, &l, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(l.buffers, 4);
	cr_assert_eq(l.buffer_size, BUF);
	cr_assert_eq(l.records, 1843, "2 header records and 1,841 events");
	cr_assert_eq(l.event_records, 1841, "1,755 DxgKrnl and 86 SteamVR events");
	cr_assert_eq(l.cpus, 8);
	cr_assert_eq(l.pointer_size, 4, "the logfile header is written with 4-byte pointers");
	cr_assert_eq(l.clock_type, 1, "the performance counter");
	cr_assert_eq(l.perf_freq, 3119142);
	cr_assert_eq(l.start_ticks, 746858886363ull);
	cr_assert_eq(l.events_lost + l.buffers_lost + l.buffers_flagged_lost, 0);
}

Test(etl, damage_is_refused_with_its_buffer_and_offset)
{
	static const struct {
		size_t at;       /* where the damage is */
		unsigned char byte;
		size_t cut;      /* or the length the file is cut to (0: whole) */
		const char *says;
		size_t at2;      /* and a second byte made 0 (0: none) */
	} cases[] = {
		{ 0, 0, 3 * BUF + 100, "buffer 3 at offset 196608: the file ends 100 bytes", 0 },
		{ BUF + 0x48 + 2, 0x7e, 0, "buffer 1 at offset 65608: a record of kind 0x7e", 0 },
		{ BUF + 0x48 + 3, 0x00, 0, "buffer 1 at offset 65608: no trace header here", 0 },
		{ 2 * BUF + 6, 0x01, 0, "bytes in use in a buffer of 65536", 0 },
		{ 0x48 + 6, 0x05, 0, "buffer 0 at offset 72: the first record is not the logfile header", 0 },
		{ 0x48 + 0x20 + 0x2C, 0x05, 0, "pointer size 5", 0 },
		/* the first buffer in use up to its header only (found by fuzzing) */
		{ 4, 0x48, 0, "buffer 0 at offset 0: the first buffer holds no record", 5 },
	};
	struct run r;
	size_t n;
	char *orig = slurp(EXCERPT, &n);

	cr_assert_eq(n, 4 * BUF);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *d = malloc(n), path[64], err[512] = "";

		memcpy(d, orig, n);
		if (!cases[i].cut)
			d[cases[i].at] = (char)cases[i].byte;
		if (cases[i].at2)
			d[cases[i].at2] = 0;
		spill(d, cases[i].cut ? cases[i].cut : n, path);
		cr_expect_eq(etl_file_check(path, NULL, err, sizeof(err)), -22, "case %zu", i);
		cr_expect(strstr(err, cases[i].says), "case %zu: %s", i, err);
		cr_expect_null(strchr(err, '\n'), "one line: %s", err);
		/* as a user meets it: bad input, said where */
		RUN(&r, "trace", "info", path);
		cr_expect_eq(r.status, 2, "case %zu: %s", i, r.err);
		cr_expect(strstr(r.err, cases[i].says), "case %zu: %s", i, r.err);
		unlink(path);
		free(d);
	}
	free(orig);
}

/* The records in time order: every processor's, merged; the events by provider. */
Test(etl, the_records_come_in_time_order_by_provider)
{
	static const uint8_t dxgkrnl[16] = { 0x5a, 0xc4, 0x2e, 0x80, 0x99, 0x1e, 0x83, 0x4b,
					     0x99, 0x20, 0x87, 0xc9, 0x82, 0x77, 0xba, 0x9d };
	char path[4096], err[512] = "";
	uint64_t n = 0, dxg = 0, events = 0, last = 0, cpus = 0;
	struct etl_reader *r;
	struct etl_layout l;
	struct etl_event ev;

	snprintf(path, sizeof(path), "%s/%s", getenv("GPUISO_SOURCE_ROOT"), EXCERPT);
	cr_assert_eq(etl_open(path, &r, &l, err, sizeof(err)), 0, "%s", err);
	while (etl_next(r, &ev) == 1) {
		cr_assert_eq(ev.index, n, "indexes count up");
		cr_assert_geq(ev.ts_ns, last, "record %llu goes back in time",
			      (unsigned long long)ev.index);
		last = ev.ts_ns;
		cpus |= 1ull << (ev.cpu & 63);
		if (ev.kind == 0x13) {
			events++;
			dxg += !memcmp(ev.provider, dxgkrnl, 16);
		}
		n++;
	}
	etl_close(r);
	cr_assert_eq(n, 1842, "every record but the logfile header");
	cr_assert_eq(events, 1841);
	cr_assert_eq(dxg, 1755, "as the count of the provider's GUID bytes gives");
	cr_assert_gt(last, 0);
	cr_assert_lt(last, 3000000000ull, "the excerpt spans under 3 s");
	cr_assert_gt(__builtin_popcountll(cpus), 1, "buffers of several processors merged");
}

/* ---- the decoder, through ctf_read() (the child process) ---- */

#define DXGKRNL "Microsoft-Windows-DxgKrnl:"

struct counted {
	char names[256][128];
	uint64_t count[256];
	unsigned int n;
};

static int count_bind(void *ctx, const char *name, struct ctf_binding *b)
{
	struct counted *c = ctx;

	b->tag = -1;
	if (b->listed)
		return 0;
	cr_assert_lt(c->n, 256);
	/* several classes (versions, ids) may share a name */
	for (unsigned int i = 0; i < c->n; i++)
		if (!strcmp(c->names[i], name)) {
			b->tag = (int)i;
			return 0;
		}
	snprintf(c->names[c->n], sizeof(c->names[0]), "%s", name);
	b->tag = (int)c->n++;
	return 0;
}

static int count_event(void *ctx, int tag, uint64_t index, uint64_t ts,
		       const struct ctf_value *values)
{
	((struct counted *)ctx)->count[tag]++;
	return 0;
}

/* How the decoder names a DxgKrnl event (its manifest's task and opcode). */
static const char *dxgkrnl_name(unsigned int id, unsigned int version, unsigned int opcode,
				unsigned int task)
{
	for (size_t i = 0; i < etl_dxgkrnl.nevents; i++) {
		const struct etl_event_desc *e = &etl_dxgkrnl.events[i];

		if (e->id == id && e->version == version && e->opcode == opcode && e->task == task)
			return e->name;
	}
	cr_assert_fail("DxgKrnl event %u version %u is not in the table", id, version);
	return NULL;
}

/*
 * Every event of the excerpt, named and counted: per provider and event,
 * the counts etl-parser gives (tests/data/etl/steamvr-4buffers.counts);
 * plus the one SYSTEM record it does not count as an event.
 */
Test(etl, every_event_is_named_and_counted_as_an_independent_reader_counts_it)
{
	char path[4096], err[512] = "", line[512], guid[64], name[160];
	struct counted *got = calloc(1, sizeof(*got));
	unsigned int id, version, opcode, task;
	unsigned long long count, total = 0;
	bool seen[256] = { false };
	struct ctf_stats st;
	FILE *f;

	cr_assert(got);
	snprintf(path, sizeof(path), "%s/%s", getenv("GPUISO_SOURCE_ROOT"), EXCERPT);
	cr_assert_eq(ctf_read(path, count_bind, count_event, got, NULL, &st, err, sizeof(err)), 0,
		     "%s", err);
	cr_assert_eq(st.events, 1842);
	cr_assert_eq(st.first_ts, 0, "the first event is at the logfile header's time");
	snprintf(path, sizeof(path), "%s/tests/data/etl/steamvr-4buffers.counts",
		 getenv("GPUISO_SOURCE_ROOT"));
	f = fopen(path, "r");
	cr_assert(f, "%s", path);
	while (fgets(line, sizeof(line), f)) {
		unsigned int i;

		if (line[0] == '#')
			continue;
		cr_assert_eq(sscanf(line, "%63s %u %u %u %u %llu", guid, &id, &version, &opcode,
				    &task, &count), 6, "%s", line);
		if (!strcmp(guid, "{802ec45a-1e99-4b83-9920-87c98277ba9d}"))
			snprintf(name, sizeof(name), DXGKRNL "%s",
				 dxgkrnl_name(id, version, opcode, task));
		else
			snprintf(name, sizeof(name), "%s:%u", guid, id);
		for (i = 0; i < got->n && strcmp(got->names[i], name); i++)
			;
		cr_assert_lt(i, got->n, "no event named %s", name);
		/* several versions or ids may share a name: their counts add up */
		seen[i] = true;
		got->count[i] -= count;
		total += count;
	}
	fclose(f);
	cr_assert_eq(total, 1841);
	for (unsigned int i = 0; i < got->n; i++) {
		if (!strcmp(got->names[i], "ETW:SYSTEM64")) {
			cr_expect_eq(got->count[i], 1, "the SYSTEM record after the logfile header");
			continue;
		}
		cr_expect(seen[i], "%s is not in the independent count", got->names[i]);
		cr_expect_eq(got->count[i], 0, "%s: %lld more than the independent count",
			     got->names[i], (long long)got->count[i]);
	}
	free(got);
}

/*
 * Another writer's file (airbus-cert/etl-parser's test recording of a WSL
 * kernel session): 8 KiB buffers, 64-bit pointers, a 10 MHz clock, and a
 * provider gpuiso has no manifest of, named by its GUID and event id.
 */
Test(etl, another_recording_reads_as_etl_parser_reads_it)
{
	char path[4096], err[512] = "";
	struct counted *got = calloc(1, sizeof(*got));
	struct etl_layout l;
	struct ctf_stats st;

	cr_assert(got);
	snprintf(path, sizeof(path), "%s/tests/data/etl/lxcore-kernel.etl",
		 getenv("GPUISO_SOURCE_ROOT"));
	cr_assert_eq(etl_file_check(path, &l, err, sizeof(err)), 0, "%s", err);
	cr_expect_eq(l.buffer_size, 8192);
	cr_expect_eq(l.buffers, 3);
	cr_expect_eq(l.pointer_size, 8);
	cr_expect_eq(l.cpus, 6);
	cr_expect_eq(l.perf_freq, 10000000);
	cr_assert_eq(ctf_read(path, count_bind, count_event, got, NULL, &st, err, sizeof(err)), 0,
		     "%s", err);
	cr_assert_eq(st.events, 3);
	cr_assert_eq(got->n, 2);
	cr_expect_str_eq(got->names[0], "ETW:SYSTEM64");
	cr_expect_str_eq(got->names[1], "{0cd1c309-0878-4515-83db-749843b3f5c9}:0");
	cr_expect_eq(got->count[1], 2, "as etl-parser counts them");
	free(got);
}

/* A binding of fixed fields to one class, and what its events held. */
struct fields_seen {
	const char *event;
	const char *names[4];
	unsigned int n;
	uint64_t ts[8];
	struct ctf_value v[8][4];
	char str[8][4][64];
	unsigned int seen;
	unsigned int present[4];   /* events where each field was present */
};

static int fields_bind(void *ctx, const char *name, struct ctf_binding *b)
{
	struct fields_seen *fs = ctx;

	b->tag = -1;
	if (strcmp(name, fs->event))
		return 0;
	b->tag = 0;
	b->n = fs->n;
	for (unsigned int i = 0; i < fs->n; i++)
		b->names[i] = fs->names[i];
	return 0;
}

static int fields_event(void *ctx, int tag, uint64_t index, uint64_t ts,
			const struct ctf_value *values)
{
	struct fields_seen *fs = ctx;

	for (unsigned int i = 0; i < fs->n; i++)
		fs->present[i] += values[i].present;
	if (fs->seen < 8) {
		fs->ts[fs->seen] = ts;
		for (unsigned int i = 0; i < fs->n; i++) {
			fs->v[fs->seen][i] = values[i];
			if (values[i].is_str)
				snprintf(fs->str[fs->seen][i], 64, "%s", values[i].s);
		}
	}
	fs->seen++;
	return 0;
}

static void read_fields(const char *file, struct fields_seen *fs)
{
	char err[512] = "";

	cr_assert_eq(ctf_read(file, fields_bind, fields_event, fs, NULL, NULL, err, sizeof(err)),
		     0, "%s", err);
}

/*
 * Field values, as etl-parser decodes the same events (its DxgKrnl
 * parser, generated from a manifest of its own): AdapterAllocation/Stop
 * version 3 and DmaPacket version 1, the first in time order; timestamps
 * as (QPC - logfile header's) * 10^9 / PerfFreq.
 */
Test(etl, fields_read_as_an_independent_reader_reads_them)
{
	struct fields_seen alloc = { .event = DXGKRNL "AdapterAllocation/Stop", .n = 4,
		.names = { "allocSize", "hVidMmGlobalAlloc", "dwWriteSegment", "PreferredSegment" } };
	struct fields_seen dma = { .event = DXGKRNL "DmaPacket", .n = 3,
		.names = { "hContext", "uliCompletionId", "ulQueueSubmitSequence" } };
	static const uint64_t want[4][5] = {
		{ 23358987, 4096, 18446698478598355616ull, 2, 0 },
		{ 23444588, 4096, 18446698478081726368ull, 2, 0 },
		{ 23994418, 8192, 18446698478594939360ull, 15, 33566786 },
		{ 24046356, 1048576, 18446698478029244336ull, 12, 50331651 },
	};
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", getenv("GPUISO_SOURCE_ROOT"), EXCERPT);
	read_fields(path, &alloc);
	cr_assert_eq(alloc.seen, 4);
	for (unsigned int e = 0; e < 4; e++) {
		cr_expect_eq(alloc.ts[e], want[e][0], "event %u at %llu ns", e,
			     (unsigned long long)alloc.ts[e]);
		for (unsigned int i = 0; i < 4; i++) {
			cr_expect(alloc.v[e][i].present && !alloc.v[e][i].is_str);
			cr_expect_eq(alloc.v[e][i].u, want[e][i + 1], "event %u: %s is %llu", e,
				     alloc.names[i], (unsigned long long)alloc.v[e][i].u);
		}
	}
	read_fields(path, &dma);
	cr_assert_eq(dma.seen, 32);
	cr_expect_eq(dma.ts[0], 22771646);
	cr_expect_eq(dma.v[0][0].u, 18446607758057605136ull);
	cr_expect_eq(dma.v[0][1].u, 4117141);
	cr_expect_eq(dma.v[0][2].u, 10429770);
	cr_expect_eq(dma.v[1][1].u, 4117142);
}

/*
 * Array fields: QueuePacket/Start at version 2 (id 245) holds ObjectCount
 * handles and as many fence values; its other ids (178, 244) have no
 * ObjectCount, which is then absent.
 */
Test(etl, array_fields_read_by_their_count_field)
{
	struct fields_seen qp = { .event = DXGKRNL "QueuePacket/Start", .n = 4,
		.names = { "ObjectCount", "ObjectArray.count", "FenceValue.count", "ObjectArray[0]" } };
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", getenv("GPUISO_SOURCE_ROOT"), EXCERPT);
	read_fields(path, &qp);
	cr_assert_eq(qp.seen, 15 + 5 + 15, "ids 178, 244 and 245, as etl-parser counts them");
	cr_assert_eq(qp.present[0], 15, "id 245's events");
	cr_assert_eq(qp.present[1], 15);
	cr_assert_eq(qp.present[2], 15);
	cr_assert_lt(qp.present[3], 15, "element 0 is absent from an empty array");
	cr_assert_gt(qp.present[3], 0);
	for (unsigned int e = 0; e < 8; e++) {
		if (!qp.v[e][0].present)
			continue;
		cr_expect_eq(qp.v[e][1].u, qp.v[e][0].u);
		cr_expect_eq(qp.v[e][2].u, qp.v[e][0].u);
		cr_expect_eq(qp.v[e][3].present, qp.v[e][0].u > 0);
		cr_expect(!qp.v[e][3].present || qp.v[e][3].u, "a handle");
	}
}

/* The offset in the excerpt of the first record of DxgKrnl event @id. */
static uint64_t first_record(const char *path, unsigned int id)
{
	struct etl_reader *r;
	struct etl_event ev;
	char err[512] = "";
	uint64_t at = 0;

	cr_assert_eq(etl_open(path, &r, NULL, err, sizeof(err)), 0, "%s", err);
	while (!at && etl_next(r, &ev) == 1)
		if (ev.kind == 0x13 && ev.id == id)
			at = ev.offset;
	etl_close(r);
	cr_assert_neq(at, 0, "no event %u", id);
	return at;
}

/*
 * A version whose layout gpuiso does not know is refused when its fields
 * are read, saying which event and version, and where its first event is;
 * an event of it that nothing reads does not stop the read.
 */
Test(etl, an_unknown_version_is_refused_by_name)
{
	struct fields_seen any = { .event = DXGKRNL "AdapterAllocation/Stop", .n = 0 };
	struct fields_seen one = { .event = DXGKRNL "AdapterAllocation/Stop", .n = 1,
				   .names = { "allocSize" } };
	char path[4096], copy[64], err[512] = "";
	struct run r;
	size_t n;
	char *d;
	uint64_t at;

	snprintf(path, sizeof(path), "%s/%s", getenv("GPUISO_SOURCE_ROOT"), EXCERPT);
	at = first_record(path, 34);
	d = slurp(EXCERPT, &n);
	cr_assert_eq(d[at + 0x2A], 3, "AdapterAllocation/Stop is at version 3");
	d[at + 0x2A] = 9;
	spill(d, n, copy);
	cr_assert_eq(ctf_read(copy, fields_bind, fields_event, &one, NULL, NULL, err, sizeof(err)),
		     -EINVAL);
	cr_expect(strstr(err, DXGKRNL "AdapterAllocation/Stop (id 34) is at version 9, whose "
			 "layout gpuiso does not know (it knows versions 1, 3)"), "%s", err);
	cr_expect(strstr(err, ": event ") && strstr(err, " ns (CPU "), "where: %s", err);
	cr_expect_eq(one.seen, 0);
	read_fields(copy, &any);
	cr_expect_eq(any.seen, 4, "read, as nothing of it is");
	/* as a user meets it: the shipped map reads its handle */
	RUN(&r, "replay", copy, "--map", "traces/maps/windows-dxgkrnl.yaml", "--no-cache");
	cr_expect_eq(r.status, 2, "%s", r.err);
	cr_expect(strstr(r.err, "AdapterAllocation/Stop (id 34) is at version 9"), "%s", r.err);
	RUN(&r, "trace", "info", copy);
	cr_expect_eq(r.status, 0, "nothing reads its fields: %s", r.err);
	unlink(copy);
	free(d);
}

/* A count that puts an array past its payload: a corrupt trace, said where. */
Test(etl, a_payload_shorter_than_its_layout_is_corrupt)
{
	struct fields_seen qp = { .event = DXGKRNL "QueuePacket/Start", .n = 1,
				  .names = { "ObjectCount" } };
	char path[4096], copy[64], err[512] = "";
	size_t n;
	char *d;
	uint64_t at;

	snprintf(path, sizeof(path), "%s/%s", getenv("GPUISO_SOURCE_ROOT"), EXCERPT);
	at = first_record(path, 245);
	d = slurp(EXCERPT, &n);
	/* hContext (8 bytes), SubmitSequence, Flags, then ObjectCount */
	d[at + 0x50 + 16] = (char)0xff;
	d[at + 0x50 + 17] = (char)0xff;
	spill(d, n, copy);
	cr_assert_eq(ctf_read(copy, fields_bind, fields_event, &qp, NULL, NULL, err, sizeof(err)),
		     -EINVAL);
	cr_expect(strstr(err, "corrupt trace: " DXGKRNL "QueuePacket/Start (version 2)'s field "
			 "'ObjectArray' lies beyond its"), "%s", err);
	cr_expect(strstr(err, ", buffer ") && strstr(err, ", offset "), "where: %s", err);
	unlink(copy);
	free(d);
}

/* ---- crafted recordings: the excerpt's logfile header, then events of ours ---- */

struct craft_field {
	const char *name;
	uint64_t value;
};

/* A DxgKrnl event: id, version, fields by name (the others 0); id CRAFT_WPP: a WPP message. */
#define CRAFT_WPP 0xFFFFu
struct craft_event {
	unsigned int id, version;
	struct craft_field f[4];
};

static uint32_t craft_size(uint8_t type)
{
	switch (type) {
	case ETL_U8: case ETL_I8: return 1;
	case ETL_U16: case ETL_I16: return 2;
	case ETL_U32: case ETL_I32: case ETL_BOOL: case ETL_F32: return 4;
	case ETL_GUID: case ETL_SYSTEMTIME: return 16;
	case ETL_WSTR: return 2;
	case ETL_ASTR: case ETL_BINARY: return 1;
	default: return 8; /* 64-bit integers, pointers of an EVENT_HEADER64 record, FILETIME */
	}
}

/* The payload of @e by the table's layout (arrays and strings empty); its length. */
static uint32_t craft_payload(const struct craft_event *e, uint8_t *out, uint16_t *task,
			      uint8_t *opcode)
{
	const struct etl_event_desc *d = NULL;
	uint32_t at = 0;

	for (size_t i = 0; i < etl_dxgkrnl.nevents && !d; i++)
		if (etl_dxgkrnl.events[i].id == e->id && etl_dxgkrnl.events[i].version == e->version)
			d = &etl_dxgkrnl.events[i];
	cr_assert(d, "no event %u version %u", e->id, e->version);
	*task = d->task;
	*opcode = d->opcode;
	for (unsigned int i = 0; i < d->nfields; i++) {
		const struct etl_field *f = &d->fields[i];
		uint32_t size = craft_size(f->type);
		uint64_t v = 0;

		if (f->count_of >= 0 || f->count != 1) {
			/* an empty array (its count field is 0), or a string of just its NUL */
			if (f->count_of < 0 && (f->type == ETL_WSTR || f->type == ETL_ASTR)) {
				memset(out + at, 0, size);
				at += size;
			}
			cr_assert(f->count_of >= 0 || f->type == ETL_WSTR || f->type == ETL_ASTR,
				  "a fixed array in %u", e->id);
			continue;
		}
		for (unsigned int k = 0; k < 4 && e->f[k].name; k++)
			if (!strcmp(e->f[k].name, f->name))
				v = e->f[k].value;
		for (uint32_t b = 0; b < size; b++)
			out[at + b] = (uint8_t)(size > 8 || b >= 8 ? 0 : v >> (8 * b));
		at += size;
	}
	for (unsigned int k = 0; k < 4 && e->f[k].name; k++) {
		bool known = false;

		for (unsigned int i = 0; i < d->nfields; i++)
			known |= !strcmp(d->fields[i].name, e->f[k].name);
		cr_assert(known, "event %u has no field %s", e->id, e->f[k].name);
	}
	return at;
}

/*
 * A one-buffer .etl file at @path: the excerpt's first buffer header and
 * logfile header, then @n DxgKrnl events of processor 0, 1 ms apart.
 */
static void craft(const char *path, const struct craft_event *ev, size_t n)
{
	static const uint8_t dxgkrnl[16] = { 0x5a, 0xc4, 0x2e, 0x80, 0x99, 0x1e, 0x83, 0x4b,
					     0x99, 0x20, 0x87, 0xc9, 0x82, 0x77, 0xba, 0x9d };
	size_t len;
	char *orig = slurp(EXCERPT, &len);
	uint8_t *b = calloc(1, BUF);
	uint32_t at = 0x48 + (uint32_t)((uint8_t)orig[0x48 + 4] | (uint8_t)orig[0x48 + 5] << 8);
	FILE *f;

	cr_assert(b);
	memcpy(b, orig, at);
	b[0x28] = 0; /* processor 0 */
	at = (at + 7) & ~7u;
	for (size_t i = 0; i < n; i++) {
		uint64_t ts = 746858886363ull + 3119ull * (i + 1);
		uint16_t task;
		uint8_t opcode, *r = b + at;
		uint32_t size;

		if (ev[i].id == CRAFT_WPP) {
			/* a MESSAGE_TRACE_HEADER of 8 bytes: its size, then its marker */
			r[0] = 8;
			r[3] = 0x90;
			at += 8;
			continue;
		}
		size = 0x50 + craft_payload(&ev[i], r + 0x50, &task, &opcode);

		r[0] = (uint8_t)size;
		r[1] = (uint8_t)(size >> 8);
		r[2] = 0x13;
		r[3] = 0xC0;
		r[8] = 4;       /* thread */
		r[12] = 4;      /* process */
		for (unsigned int k = 0; k < 8; k++)
			r[0x10 + k] = (uint8_t)(ts >> (8 * k));
		memcpy(r + 0x18, dxgkrnl, 16);
		r[0x28] = (uint8_t)ev[i].id;
		r[0x29] = (uint8_t)(ev[i].id >> 8);
		r[0x2A] = (uint8_t)ev[i].version;
		r[0x2D] = opcode;
		r[0x2E] = (uint8_t)task;
		r[0x2F] = (uint8_t)(task >> 8);
		at = (at + size + 7) & ~7u;
		cr_assert_lt(at, BUF);
	}
	b[4] = (uint8_t)at;
	b[5] = (uint8_t)(at >> 8);
	b[6] = b[7] = 0;
	f = fopen(path, "wb");
	cr_assert(f && fwrite(b, 1, BUF, f) == BUF);
	fclose(f);
	free(b);
	free(orig);
}

static const char *tmp_path(const char *name)
{
	static char path[8][256];
	static unsigned int next;
	char *p = path[next++ % 8];

	snprintf(p, 256, "/tmp/gpuiso-etl-%d-%s", (int)getpid(), name);
	return p;
}

/*
 * The shipped map: an allocation made, evicted and destroyed, a fence, the
 * adapter powered down and up; an event no rule takes is ignored; the
 * second replay comes from the replay cache, with the same counts.
 */
Test(etl, the_dxgkrnl_map_replays_a_recording)
{
	static const struct craft_event ev[] = {
		{ 33, 3, { { "hVidMmGlobalAlloc", 0xffffbc8a00001000 }, { "allocSize", 65536 } } },
		{ 92, 0, { { "hSyncObject", 0xffffbc8a00002000 } } },
		{ 17, 0, { { "FrameNumber", 7 } } },
		{ 74, 0, { { "hGlobalAllocationHandle", 0xffffbc8a00001000 } } },
		{ 154, 0, { { "DeviceUid", 0xffffffff }, { "DevicePowerState", 4 } } },
		{ 154, 0, { { "DeviceUid", 0xffffffff }, { "DevicePowerState", 1 } } },
		{ 94, 0, { { "hSyncObject", 0xffffbc8a00002000 } } },
		{ 34, 3, { { "hVidMmGlobalAlloc", 0xffffbc8a00001000 }, { "allocSize", 65536 } } },
	};
	const char *file = tmp_path("map.etl"), *cache = tmp_path("cache");
	char cmd[512];
	struct run r;
	FILE *f;

	craft(file, ev, sizeof(ev) / sizeof(ev[0]));
	RUN(&r, "replay", file, "--map", "traces/maps/windows-dxgkrnl.yaml", "--cache-dir", cache);
	cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
	cr_expect(strstr(r.out, "events: 8 in the trace: 7 used, 1 ignored, 0 unmatched"), "%s",
		  r.out);
	cr_expect(strstr(r.out, "power: 2 transitions, 2 completed"), "%s", r.out);
	cr_expect(strstr(r.out, "\ntransfer ") && strstr(r.out, "\nfence_create "), "%s", r.out);
	cr_expect(strstr(r.out, "violations: 0"), "%s", r.out);
	RUN(&r, "replay", file, "--map", "traces/maps/windows-dxgkrnl.yaml", "--cache-dir", cache);
	cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
	cr_expect(strstr(r.out, "(from the replay cache)"), "%s", r.out);
	cr_expect(strstr(r.out, "events: 8 in the trace: 7 used, 1 ignored, 0 unmatched"), "%s",
		  r.out);
	/* a map may name an event by its id: EvictAllocation is id 74 */
	f = fopen(tmp_path("by-id.yaml"), "w");
	cr_assert(f);
	fputs("rules:\n"
	      "  - event: Microsoft-Windows-DxgKrnl:AdapterAllocation/Start\n"
	      "    op: alloc_create\n    key: hVidMmGlobalAlloc\n"
	      "    fields: {bytes: allocSize, segment: 0}\n"
	      "  - event: Microsoft-Windows-DxgKrnl:74\n"
	      "    op: transfer\n    key: hGlobalAllocationHandle\n    fields: {dir: 1, bytes: 0}\n",
	      f);
	fclose(f);
	RUN(&r, "replay", file, "--map", tmp_path("by-id.yaml"), "--no-cache");
	cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
	cr_expect(strstr(r.out, "events: 8 in the trace: 2 used, 6 ignored, 0 unmatched"), "%s",
		  r.out);
	cr_expect(strstr(r.out, "\ntransfer "), "%s", r.out);
	unlink(tmp_path("by-id.yaml"));
	/* a sweep takes it as a trace too: every hit of the allocation's life failed in turn */
	RUN(&r, "sweep", file, "--map", "traces/maps/windows-dxgkrnl.yaml", "-o", tmp_path("sweep"));
	cr_expect(r.status == 0 || r.status == 1, "%s", r.err);
	cr_expect(strstr(r.err, "sweep: 28 hits, 28 runs:") || strstr(r.out, "sweep: 28 hits, 28 runs:"),
		  "%s%s", r.out, r.err);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s' '%s' '%s'", file, cache, tmp_path("sweep"));
	cr_assert_eq(system(cmd), 0);
}

/* The real recording: its events through the map, none refused, none an error. */
Test(etl, the_excerpt_replays_through_the_dxgkrnl_map)
{
	struct run r;

	RUN(&r, "replay", EXCERPT, "--map", "traces/maps/windows-dxgkrnl.yaml", "--no-cache");
	cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
	cr_expect(strstr(r.out, "events: 1842 in the trace: "), "%s", r.out);
	/* without a map, the replay names the one for it */
	RUN(&r, "replay", EXCERPT, "--no-cache");
	cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
	cr_expect(strstr(r.out, "NOTHING USED") && strstr(r.out, "traces/maps/windows-dxgkrnl.yaml"),
		  "%s", r.out);
	RUN(&r, "trace", "info", EXCERPT);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.out, "format:     .etl, 4 buffers of 65536 bytes, 8 CPUs, 4-byte pointers, "
			 "clock QPC at 3119142 Hz\n"), "%s", r.out);
	cr_expect(strstr(r.out, "by provider:\n  ETW "), "%s", r.out);
	cr_expect(strstr(r.out, "\n  Microsoft-Windows-DxgKrnl                        1755\n"), "%s",
		  r.out);
	cr_expect(strstr(r.out, "\n  {8f8f13b1-60eb-4b6a-a433-de86104115ac}             86\n"), "%s",
		  r.out);
}

/*
 * A WPP message among the events: an 8-byte header whose timestamp, if
 * any, its own flags place; it is read as a record of no kind, at the time
 * of the record before it on its processor, with nothing read past it.
 */
Test(etl, a_wpp_message_is_a_record_of_its_own)
{
	static const struct craft_event ev[] = {
		{ 17, 0, { { "FrameNumber", 1 } } },
		{ CRAFT_WPP, 0, { { NULL, 0 } } },
		{ 17, 0, { { "FrameNumber", 2 } } },
	};
	const char *file = tmp_path("wpp.etl");
	struct run r;

	craft(file, ev, sizeof(ev) / sizeof(ev[0]));
	RUN(&r, "trace", "info", file);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.out, "events:     3\n"), "%s", r.out);
	cr_expect(strstr(r.out, "  ETW:MESSAGE "), "%s", r.out);
	cr_expect(strstr(r.out, "  Microsoft-Windows-DxgKrnl:VSyncDPC "), "%s", r.out);
	unlink(file);
}

/*
 * The events the session lost, as its logfile header counts them, are a
 * tracer's losses: discarded events before the first, the trace incomplete.
 */
Test(etl, the_sessions_losses_make_the_trace_incomplete)
{
	char copy[64];
	struct run r;
	size_t n;
	char *d = slurp(EXCERPT, &n);

	/* EventsLost: the logfile header's u32 at 0x30, after its 0x20-byte SYSTEM header */
	cr_assert_eq(d[0x48 + 0x20 + 0x30], 0);
	d[0x48 + 0x20 + 0x30] = 5;
	spill(d, n, copy);
	RUN(&r, "trace", "info", copy);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.out, "discarded:  5 (trace is incomplete)"), "%s", r.out);
	RUN(&r, "replay", copy, "--map", "traces/maps/windows-dxgkrnl.yaml", "--no-cache");
	cr_expect(strstr(r.out, "INCOMPLETE: the tracer discarded 5 events"), "%s", r.out);
	unlink(copy);
	free(d);
}

/*
 * scenario from-trace: one adapter per hardware adapter of a DxgKrnl
 * rundown, the software one left out; the address limit the trace gives,
 * integrated as its type says; the file written is one the model takes.
 */
Test(etl, a_scenario_is_made_from_a_rundown_of_adapters)
{
	static const struct craft_event ev[] = {
		{ 26, 0, { { "pDxgAdapter", 0xffff9d8100a00000 }, { "AdapterType", 0x3 },
			   { "HighestAcceptableAddress", 0xfffffffff } } },
		{ 26, 0, { { "pDxgAdapter", 0xffff9d8100b00000 }, { "AdapterType", 0x5 },
			   { "HighestAcceptableAddress", 0xffffffffffffffff } } },
		{ 24, 0, { { "pDxgAdapter", 0xffff9d8100c00000 }, { "AdapterType", 0x23 },
			   { "HighestAcceptableAddress", 0xffffffffffffffff } } },
	};
	const char *file = tmp_path("rundown.etl"), *out = tmp_path("machine.yaml");
	char text[8192] = "";
	struct run r;
	FILE *f;

	craft(file, ev, sizeof(ev) / sizeof(ev[0]));
	RUN(&r, "scenario", "from-trace", file, "-o", out);
	cr_assert_eq(r.status, 0, "%s", r.err);
	f = fopen(out, "r");
	cr_assert(f);
	cr_assert_gt(fread(text, 1, sizeof(text) - 1, f), 0);
	fclose(f);
	cr_expect(strstr(text, "  - name: gpu0\n    wddm: \"3.0\""), "%s", text);
	cr_expect(strstr(text, "      highest_visible_address: 0xfffffffff\n"), "%s", text);
	cr_expect(strstr(text, "a software adapter (AdapterType 0x5), which does no DMA: left out"),
		  "%s", text);
	cr_expect(strstr(text, "  - name: gpu1\n    wddm: \"2.9\"\n    integrated: true\n"), "%s",
		  text);
	cr_expect_null(strstr(text, "gpu2"), "%s", text);
	RUN(&r, "scenario", "explain", out);
	cr_expect_eq(r.status, 0, "%s", r.err);
	/* the recording has no adapter events */
	RUN(&r, "scenario", "from-trace", EXCERPT);
	cr_expect_eq(r.status, 2);
	cr_expect(strstr(r.err, "no hardware adapter in the trace"), "%s", r.err);
	unlink(file);
	unlink(out);
}
