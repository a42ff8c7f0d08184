/* SPDX-License-Identifier: MIT */
/* Compact records: every kind, every value length, index and time going backwards. */
#include <criterion/criterion.h>
#include <string.h>

#include "replay/record.h"

/* An event of @kind whose catalogue fields hold @v; the other slots stay 0 (they are not carried). */
static struct wl_event event(unsigned int kind, uint64_t ts, uint64_t v)
{
	struct wl_event e = { .ts = ts, .kind = kind };

	for (unsigned int i = 0; i < wl_catalogue[kind].nfields; i++)
		e.v[wl_catalogue[kind].fields[i].slot] = v + i;
	return e;
}

Test(record, every_kind_and_length_decodes_as_encoded)
{
	static const uint64_t values[] = { 0, 1, 0xff, 0x100, 0xffffff, 0x1000000, 0xffffffffffull,
					   0x1000000000000ull, UINT64_MAX - 6 };
	/* the indexes repeat, skip and go back; the times go back too */
	static const uint64_t indexes[] = { 0, 0, 1, 5, 3, 1ull << 40, 7 };
	struct wl_event in[WL_NKINDS * 9 * 7];
	uint64_t index_in[WL_NKINDS * 9 * 7];
	uint8_t buf[sizeof(in) / sizeof(in[0]) * REC_MAX + REC_READ];
	struct rec_codec enc, dec;
	size_t n = 0, used = 0, at = 0;

	rec_codec_init(&enc);
	for (unsigned int k = 0; k < WL_NKINDS; k++)
		for (size_t v = 0; v < 9; v++)
			for (size_t i = 0; i < 7; i++) {
				index_in[n] = indexes[i];
				in[n] = event(k, values[(v + i) % 9], values[v]);
				in[n].flags = (v + i) % 2 ? WL_AFTER_LOSS : 0;
				used += rec_encode(&enc, buf + used, index_in[n], &in[n]);
				n++;
			}
	memset(buf + used, 0xa5, sizeof(buf) - used); /* what follows is never taken for a value */
	rec_codec_init(&dec);
	for (size_t i = 0; i < n; i++) {
		struct wl_event out;
		uint64_t index;
		size_t len = rec_decode(&dec, buf + at, &index, &out);

		cr_assert(len > 0 && len <= REC_MAX, "record %zu: length %zu", i, len);
		cr_assert_eq(rec_length(buf + at), len, "record %zu: its framing", i);
		cr_assert_eq(index, index_in[i], "record %zu", i);
		cr_assert_eq(memcmp(&out, &in[i], sizeof(out)), 0, "record %zu (kind %u)", i, in[i].kind);
		at += len;
	}
	cr_assert_eq(at, used);
}

Test(record, a_kind_that_is_not_one_is_refused)
{
	uint8_t buf[REC_READ] = { 0 };
	struct rec_codec dec;
	struct wl_event e;
	uint64_t index;

	buf[0] = 63; /* the largest kind the head can hold */
	rec_codec_init(&dec);
	cr_assert_eq(rec_decode(&dec, buf, &index, &e), 0);
	cr_assert_eq(dec.index, UINT64_MAX, "the codec is unchanged");
	cr_assert_eq(rec_length(buf), 0);
}

Test(record, the_next_event_with_small_values_takes_a_byte_a_value)
{
	struct wl_event e = event(WL_ALLOC_MDL, 1000, 7);
	uint8_t buf[2 * REC_MAX];
	struct rec_codec enc;
	size_t first;

	rec_codec_init(&enc);
	first = rec_encode(&enc, buf, 0, &e);
	e.ts += 200;
	/* the head, no index bytes (the next one), a byte of time, a byte per field */
	cr_assert_eq(rec_encode(&enc, buf + first, 1, &e), 4 + 1 + wl_catalogue[WL_ALLOC_MDL].nfields);
}
