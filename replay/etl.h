/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_REPLAY_ETL_H
#define GPUISO_REPLAY_ETL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "replay/ctf_decode.h"

/*
 * Windows event traces (.etl: ETW, written by WPR, xperf, tracelog or any
 * session logging to a file), read without Windows. A file is a sequence
 * of fixed-size buffers, each holding the records of one processor; the
 * first record of the first buffer is the logfile header (clock, pointer
 * size, losses). docs/trace-events.md, "Windows event traces", says which
 * structures are read and where their layout is described publicly.
 */

/* What the walk of a file's layout found. */
struct etl_layout {
	uint32_t buffer_size;     /* bytes of every buffer */
	uint64_t buffers;         /* buffers in the file */
	unsigned int cpus;        /* NumberOfProcessors of the logfile header */
	unsigned int pointer_size; /* 4 or 8: the logging machine's */
	uint32_t clock_type;      /* 1 QPC, 2 system time, 3 CPU cycles (ReservedFlags) */
	uint64_t perf_freq;       /* ticks per second of the QPC clock */
	uint64_t start_ticks;     /* the logfile header's timestamp: time 0 */
	uint64_t records;         /* every record of every buffer */
	uint64_t event_records;   /* of them, EVENT_HEADER records (manifest and TraceLogging events) */
	uint64_t events_lost, buffers_lost; /* as the logfile header counts them */
	uint64_t buffers_flagged_lost;      /* buffers flagged EVENTS_LOST or BUFFER_LOST */
};

/**
 * etl_file_is() - whether @path is an .etl file: a regular file named
 * *.etl, or one that begins as an .etl file does (a buffer whose first
 * record is a logfile header).
 * @path: any path.
 *
 * Return: true or false.
 */
bool etl_file_is(const char *path);

/**
 * etl_file_check() - walk an .etl file's buffers and records, and say where it breaks.
 * @path: the file.
 * @lay: out: what the walk found (may be NULL).
 * @err: out: on failure, "PATH: buffer B at offset O: what" (O from the file's start).
 * @errlen: size of @err.
 *
 * Every buffer is checked against the first one's size and the file's; each
 * record's kind, size and alignment against its buffer's filled bytes. The
 * logfile header must be the first record and give a clock gpuiso can turn
 * into nanoseconds.
 *
 * Return: 0, -EINVAL (@err says why and where), -ENOENT, -EACCES and the
 * like (cannot open it), -ENOMEM.
 */
int etl_file_check(const char *path, struct etl_layout *lay, char *err, size_t errlen);

/* One record of the file, in time order (etl_next()). */
struct etl_event {
	uint64_t index;           /* its place in time order, from 0 */
	uint64_t ts_ns;           /* from the logfile header's time */
	unsigned int cpu;         /* the processor whose buffer held it */
	uint64_t buffer;          /* that buffer's index in the file, from 0 */
	uint64_t offset;          /* the record's offset from the file's start */
	uint8_t kind;             /* the record header's kind: 0x12, 0x13 an EVENT_HEADER event;
				   * 0 a WPP message (at the time of the record before it) */
	uint8_t provider[16];     /* EVENT_HEADER: the provider's GUID as stored; else zero */
	uint16_t id, task;        /* EVENT_HEADER: its descriptor */
	uint8_t version, opcode, level, channel;
	uint64_t keyword;
	uint32_t pid, tid;        /* EVENT_HEADER and SYSTEM records */
	const uint8_t *data;      /* the payload (user data), in the file's mapping */
	uint32_t len;
};

struct etl_reader;

/**
 * etl_open() - open an .etl file to read its records in time order: its
 * layout is walked first (etl_file_check()).
 * @path: the file.
 * @out: out: the reader; etl_close() it.
 * @lay: out: the layout (may be NULL).
 * @err: out: why not, as etl_file_check() says it.
 * @errlen: size of @err.
 *
 * Return: 0, or what etl_file_check() returns, -ENOMEM.
 */
int etl_open(const char *path, struct etl_reader **out, struct etl_layout *lay, char *err,
	     size_t errlen);

/**
 * etl_next() - the next record in time order: the processors' buffers
 * merged by timestamp, each processor's in file order; the logfile header
 * itself is not one.
 * @r: the reader.
 * @ev: out: the record; its data stays valid until etl_close().
 *
 * Return: 1, or 0 at the end.
 */
int etl_next(struct etl_reader *r, struct etl_event *ev);

/**
 * etl_rewind() - read the records again from the first.
 * @r: the reader.
 */
void etl_rewind(struct etl_reader *r);

/** etl_close() - close a reader. @r: from etl_open(), or NULL. */
void etl_close(struct etl_reader *r);

/**
 * etl_decode() - ctf_decode() of an .etl file.
 * @path: the file.
 * @bind: as ctf_read()'s: asked once per event class, by its name
 *        ("PROVIDER:TASK/OPCODE", as the provider's manifest names it), and
 *        when the caller skips that name, by its id ("PROVIDER:ID"). A
 *        provider gpuiso has no manifest of is named by its GUID, and its
 *        events have no fields. A field name may also be "NAME[I]",
 *        "NAME.count" or "NAME.sum" of an array field.
 * @on_event: as ctf_read()'s.
 * @mark: told where the decoder is: the file (CTF_MARK_FOLDER), each buffer
 *        as its first record is read (CTF_MARK_PACKET, "cpu N" and the
 *        buffer's index in the file), the statistics (CTF_MARK_STATS).
 * @ctx: passed to the three callbacks.
 * @st: as ctf_read()'s: the events and buffers the session lost count as
 *      discarded events and lost packets, before the first event.
 * @err: as ctf_read()'s.
 * @errlen: size of @err.
 *
 * An event whose fields the caller reads must be at a version whose layout
 * gpuiso knows: any other is refused, never read by guess; a payload
 * shorter than its layout is a corrupt trace.
 *
 * Return: as ctf_read().
 */
int etl_decode(const char *path, ctf_bind_fn bind, ctf_event_fn on_event, ctf_mark_fn mark,
	       void *ctx, struct ctf_stats *st, char *err, size_t errlen);

#endif
