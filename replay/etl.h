/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_REPLAY_ETL_H
#define GPUISO_REPLAY_ETL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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
 * etl_file_is() - whether @path begins as an .etl file does: a buffer whose
 * first record is a logfile header.
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

#endif
