/* SPDX-License-Identifier: MIT */
/*
 * The .etl layout walk (replay/etl_file.c) on an excerpt of a real
 * recording (tests/data/etl/README.md), and on copies of it damaged where
 * a reader must notice: the walk's counts are the independent count's, and
 * each damage is refused saying its buffer and offset.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "replay/etl.h"

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

	snprintf(path, 64, "/tmp/gpuiso-etl-XXXXXX");
	cr_assert_geq(close(mkstemp(path)), 0);
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
	} cases[] = {
		{ 0, 0, 3 * BUF + 100, "buffer 3 at offset 196608: the file ends 100 bytes" },
		{ BUF + 0x48 + 2, 0x7e, 0, "buffer 1 at offset 65608: a record of kind 0x7e" },
		{ BUF + 0x48 + 3, 0x00, 0, "buffer 1 at offset 65608: no trace header here" },
		{ 2 * BUF + 6, 0x01, 0, "bytes in use in a buffer of 65536" },
		{ 0x48 + 6, 0x05, 0, "buffer 0 at offset 72: the first record is not the logfile header" },
		{ 0x48 + 0x20 + 0x2C, 0x05, 0, "pointer size 5" },
	};
	size_t n;
	char *orig = slurp(EXCERPT, &n);

	cr_assert_eq(n, 4 * BUF);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *d = malloc(n), path[64], err[512] = "";

		memcpy(d, orig, n);
		if (!cases[i].cut)
			d[cases[i].at] = (char)cases[i].byte;
		spill(d, cases[i].cut ? cases[i].cut : n, path);
		cr_expect_eq(etl_file_check(path, NULL, err, sizeof(err)), -22, "case %zu", i);
		cr_expect(strstr(err, cases[i].says), "case %zu: %s", i, err);
		cr_expect_null(strchr(err, '\n'), "one line: %s", err);
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
