/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_REPLAY_RECORD_H
#define GPUISO_REPLAY_RECORD_H

#include <stddef.h>

#include "replay/event.h"

/*
 * Workload events as compact records, for the replay cache's files: about
 * 9 bytes an event instead of a struct wl_event's 80. Each record is
 * encoded against the one before it, made to be decoded without a branch
 * per value:
 *   u32 head: bits 0-5 the kind, then a 3-bit length code for each of the
 *             REC_VALUES values below (code c: a length of 0, 1, 2, 3, 4,
 *             5, 6 or 8 bytes), then bit 30: WL_AFTER_LOSS
 *   the values, each in as few little-endian bytes as its code says:
 *             index - previous index - 1 (nearly always 0: no bytes; the
 *             "previous index" of the first record is 2^64 - 1),
 *             ts - previous ts, and the kind's catalogue fields in order
 *             (those the kind does not have: code 0).
 */

#define REC_VALUES (2 + WL_MAX_FIELDS)
#define REC_MAX (4 + 8 * REC_VALUES) /* the longest record */
#define REC_READ (REC_MAX + 8)       /* what rec_decode() may read from where it starts */

/* The previous record, which the next one is encoded against; and, for decoding, each kind's slots. */
struct rec_codec {
	uint64_t index, ts;
	uint8_t slots[WL_NKINDS][WL_MAX_FIELDS];
};

/**
 * rec_codec_init() - the state before the first record; the same for both sides.
 * @c: the codec.
 */
void rec_codec_init(struct rec_codec *c);

/**
 * rec_encode() - encode one event after the previous one.
 * @c: the encoding side's codec.
 * @out: where to write; REC_MAX bytes must be free.
 * @index: the event's index in the trace.
 * @e: the event (its kind below WL_NKINDS).
 *
 * Return: the record's length.
 */
size_t rec_encode(struct rec_codec *c, uint8_t *out, uint64_t index, const struct wl_event *e);

/**
 * rec_decode() - decode the record at @in.
 * @c: the decoding side's codec.
 * @in: the record; REC_READ bytes must be readable from there, whatever its
 *      length.
 * @index: out: the event's index.
 * @e: out: the event.
 *
 * Return: the record's length, or 0 if its kind is not one (a corrupt record;
 * @c is unchanged then).
 */
size_t rec_decode(struct rec_codec *c, const uint8_t *in, uint64_t *index, struct wl_event *e);

/**
 * rec_length() - the length of the record at @in, without decoding it: what
 * rec_decode() would return (a check of the records' framing is a quarter of
 * a decode).
 * @in: the record; REC_READ bytes must be readable from there.
 *
 * Return: the record's length, or 0 if its kind is not one.
 */
size_t rec_length(const uint8_t *in);

#endif
