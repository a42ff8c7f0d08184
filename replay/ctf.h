/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_REPLAY_CTF_H
#define GPUISO_REPLAY_CTF_H

#include <errno.h>

#include "replay/event.h"

/*
 * CTF in and out through libbabeltrace2.
 *
 * Reading is a graph src.ctf.fs -> filter.utils.muxer -> a sink of ours, so
 * several streams are merged in time order and memory stays bounded (a trace
 * of one stream skips the muxer; time going back is an error either way). The
 * caller says once per event class (by name) which payload fields it wants;
 * the reader resolves them to member indices once, then hands each event's
 * values over without any lookup by name.
 *
 * Writing is a source component of ours feeding sink.ctf.fs: one stream,
 * packets with begin/end clock snapshots, a 1 GHz clock, events named
 * "gpuiso_wl:NAME" whose payload is the catalogue's fields as unsigned
 * 64-bit integers.
 */

#define CTF_MAX_FIELDS 8

/*
 * What a CTF trace carries so that babeltrace2 reads it back (more aborts
 * it, or is lost): a clock value becomes signed 64-bit nanoseconds from the
 * clock's origin, INT64_MAX itself refused (a 1 GHz clock of origin 0, as
 * ctf_write() writes: the timestamp in ns); a packet's count of the events
 * discarded so far, and its sequence number (which counts the packets lost
 * and those written), mean "unknown" when all ones. Losses add up over the
 * whole trace; half the sequence numbers' range is left to the packets
 * written.
 */
#define CTF_TS_MAX ((uint64_t)INT64_MAX - 1)
#define CTF_LOST_EVENTS_MAX (UINT64_MAX - 1)
#define CTF_LOST_PACKETS_MAX ((uint64_t)INT64_MAX)

/*
 * What the caller wants of one event class. A decoder that knows every
 * class the trace defines (a trace.dat's event formats) asks about each
 * before the first event, with @listed set: a class whose events, if any,
 * the caller skips (tag < 0) is asked about again, not listed, at its
 * first event, so that a caller may refuse events rather than classes.
 */
struct ctf_binding {
	bool listed;      /* in: asked because the trace defines the class, before any event */
	int tag;          /* the caller's number for the class; < 0: skip its events */
	unsigned int n;   /* fields wanted */
	const char *names[CTF_MAX_FIELDS]; /* payload member names (must outlive the read) */
};

/* One field's value in one event. */
struct ctf_value {
	bool present;     /* the event has the field (and it is an integer or a string) */
	bool is_str;
	bool negative;    /* a signed integer below zero */
	uint64_t u;       /* integers (signed ones as two's complement) */
	const char *s;    /* strings, valid during the callback only */
};

/* Called once per event class, the first time an event of it is seen. */
typedef int (*ctf_bind_fn)(void *ctx, const char *event_name, struct ctf_binding *b);

/*
 * Called per event whose class has tag >= 0, in timestamp order. @index
 * counts every event read so far (skipped ones too), from 0. Return 0 to go
 * on, a negative errno to stop the read with it.
 */
typedef int (*ctf_event_fn)(void *ctx, int tag, uint64_t index, uint64_t ts,
			    const struct ctf_value *values);

struct ctf_stats {
	uint64_t events;        /* events read */
	uint64_t discarded;     /* events the tracer reported as discarded */
	uint64_t lost_packets;  /* packets lost (each held events: how many is unknown) */
	uint64_t first_ts, last_ts;
	unsigned int traces;    /* metadata folders found */
	uint64_t decoder_peak_rss; /* bytes: the decoder's peak resident set, once it ended */
};

/* How long, and how big, the decoder may go; 0: the default. */
struct ctf_limits {
	unsigned int idle_s;  /* seconds of its CPU time without decoding anything, and seconds
			       * it may neither run nor decode anything (CTF_IDLE_S) */
	uint64_t anon_bytes;  /* anonymous memory, the heap and the like (CTF_ANON_BYTES) */
};

#define CTF_IDLE_S 30
#define CTF_ANON_BYTES (512ull << 20)

/**
 * ctf_read() - read every event of the CTF trace(s) below @path, or of the
 * trace.dat file @path (replay/ftrace.h says how it is read).
 * @path: a trace folder, or any folder above one or more (folders holding a
 *        "metadata" file are found recursively), or a trace-cmd trace.dat.
 * @bind: asked once per event class.
 * @on_event: called per bound event.
 * @ctx: passed to both.
 * @lim: the decoder's limits (NULL: the defaults).
 * @st: out: statistics (may be NULL), kept current during the read: a
 *      callback may read them (how many events were discarded so far).
 * @err: out: on failure, one line saying what and where (event index and
 *       timestamp when an event is at fault, the stream and its packet when
 *       the decoder died); when @bind refused a class, only where (the
 *       trace and its first event of that class), as the caller knows what.
 * @errlen: size of @err.
 *
 * The decoder (babeltrace2, or libtracecmd) runs in a child process, so that a trace it
 * crashes on, loops on or grows without end on is bad input like any other:
 * the child is killed past @lim. The callbacks run in this process, while
 * the child decodes ahead. A process forked during the read (by a callback)
 * cannot go on with it.
 *
 * Return: 0, -ENOENT (no trace below @path), -EINVAL (unreadable or corrupt
 * trace, or the decoder died on it), -ENOMEM, -ENOSYS (babeltrace2's CTF
 * plugin missing), -ECHILD (the decoder could not be started, or died
 * before it opened the trace), or what a callback returned.
 */
int ctf_read(const char *path, ctf_bind_fn bind, ctf_event_fn on_event, void *ctx,
	     const struct ctf_limits *lim, struct ctf_stats *st, char *err, size_t errlen);

/**
 * ctf_trace_file_is() - whether @path is a trace in one file that ctf_read()
 * reads: a trace.dat or an .etl file.
 * @path: any path.
 *
 * Return: true or false (a folder, or any other file).
 */
bool ctf_trace_file_is(const char *path);

/* Produces the next event to write: 1 with *e filled, 0 at the end, < 0 on error. */
typedef int (*wl_next_fn)(void *ctx, struct wl_event *e);

/**
 * ctf_write() - write workload events as a CTF trace into @dir (created).
 * @dir: output folder; must not exist or be empty.
 * @next: the event producer; timestamps must not decrease, nor pass CTF_TS_MAX.
 * @ctx: passed to @next.
 * @err: out: what went wrong.
 * @errlen: size of @err.
 *
 * Return: 0, -EEXIST (@dir not empty), -EINVAL (an event a CTF trace
 * cannot carry), -ENOMEM, -EIO, the errno of making @dir (-EROFS,
 * -EACCES, ...) or of growing its files (-ENOSPC, -EFBIG, -EDQUOT), or
 * @next's error.
 */
int ctf_write(const char *dir, wl_next_fn next, void *ctx, char *err, size_t errlen);

/* What the tracer lost just before an event, or after the last one. */
struct ctf_loss {
	uint64_t events;  /* events discarded */
	uint64_t packets; /* packets lost (their events unknown) */
};

/*
 * Produces the next event to write and what was lost just before it: 1
 * with *e and *loss filled, 0 at the end (*loss: what was lost after the
 * last event), < 0 on error. *loss is zero when called.
 */
typedef int (*wl_lossy_next_fn)(void *ctx, struct wl_event *e, struct ctf_loss *loss);

/**
 * ctf_write_lossy() - ctf_write() of a trace whose tracer lost events: each
 * loss is written where CTF 1.8 keeps it, in the counters of the packet
 * after it (events_discarded, packet_seq_num), so that ctf_read() reports
 * it before the event it came before (a new packet begins there), and an
 * empty packet at the end carries a loss after the last event.
 * @dir: output folder; must not exist or be empty.
 * @next: the event producer; timestamps must not decrease, nor pass
 *        CTF_TS_MAX; the losses add up to at most CTF_LOST_EVENTS_MAX
 *        events and CTF_LOST_PACKETS_MAX packets.
 * @ctx: passed to @next.
 * @err: out: what went wrong.
 * @errlen: size of @err.
 *
 * The stream's packets have both counters even when nothing is lost, so
 * that a trace without a loss is better written with ctf_write().
 *
 * Return: as ctf_write().
 */
int ctf_write_lossy(const char *dir, wl_lossy_next_fn next, void *ctx, char *err, size_t errlen);

#endif
