/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_REPLAY_CTF_DECODE_H
#define GPUISO_REPLAY_CTF_DECODE_H

#include "replay/ctf.h"

/*
 * The babeltrace2 decoder behind ctf_read(), which runs it in a child
 * process (replay/ctf_child.c): what it does is ctf_read()'s, and it also
 * marks where it is, so that a death in babeltrace2 can be placed.
 */

enum ctf_mark {
	CTF_MARK_FOLDER, /* a trace folder (@name) is about to be opened */
	CTF_MARK_PACKET, /* a packet of stream @name begins; @n: its index in that stream */
	CTF_MARK_STATS,  /* the statistics moved: events lost, or 4096 more events read */
};

/* Told each mark as it happens. */
typedef void (*ctf_mark_fn)(void *ctx, enum ctf_mark mark, const char *name, uint64_t n);

/**
 * ctf_decode() - ctf_read() in this process.
 * @path: as ctf_read()'s.
 * @bind: as ctf_read()'s.
 * @on_event: as ctf_read()'s.
 * @mark: told where the decoder is.
 * @ctx: passed to the three callbacks.
 * @st: as ctf_read()'s.
 * @err: as ctf_read()'s.
 * @errlen: size of @err.
 *
 * Babeltrace2 may crash or loop on a damaged trace: only a process that can
 * die for it calls this.
 *
 * Return: as ctf_read().
 */
int ctf_decode(const char *path, ctf_bind_fn bind, ctf_event_fn on_event, ctf_mark_fn mark,
	       void *ctx, struct ctf_stats *st, char *err, size_t errlen);

/* What a bound field name reads of its payload member. */
enum ctf_sel {
	CTF_SEL_WHOLE, /* "NAME": the member itself (an integer or a string) */
	CTF_SEL_ELEM,  /* "NAME[I]": element I of an array of integers */
	CTF_SEL_COUNT, /* "NAME.count": its number of elements */
	CTF_SEL_SUM,   /* "NAME.sum": the sum of its elements (modulo 2^64) */
};

/**
 * ctf_name_parse() - split a bound field name into its member and what is read of it.
 * @name: "NAME", "NAME[I]", "NAME.count" or "NAME.sum".
 * @base: out: NAME.
 * @len: size of @base.
 * @index: out: I, for CTF_SEL_ELEM.
 *
 * Both decoders take array fields this way (docs/trace-events.md).
 *
 * Return: the selection; CTF_SEL_WHOLE (with @name whole as @base) for any
 * other form, and for a NAME too long for @base (then @base is "").
 */
enum ctf_sel ctf_name_parse(const char *name, char *base, size_t len, uint32_t *index);

/**
 * ctf_clean_cause() - one of babeltrace2's messages, for a user.
 * @in: "what: key=value, key=value" as babeltrace2 words its errors.
 * @out: out: @in without its address fields ("msg-it-addr=0x…"), which
 *       mean something only in a debugger, and on one line.
 * @len: size of @out.
 */
void ctf_clean_cause(const char *in, char *out, size_t len);

/**
 * ctf_err_first() - say why a decoder stops, unless it already said so.
 * @err: the decoder's message (its caller's @err), left as it is when it
 *       holds one: the first cause is the one to tell.
 * @errlen: size of @err.
 * @fmt: printf() format of the message, and its arguments.
 */
void ctf_err_first(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
