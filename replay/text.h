/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_REPLAY_TEXT_H
#define GPUISO_REPLAY_TEXT_H

#include <stdio.h>

#include "replay/ctf.h"
#include "replay/event.h"

/*
 * The text form of a workload trace (docs/trace-events.md, "The text
 * form"): one line per workload event, its catalogue name then NAME=VALUE
 * for its timestamp and every catalogue field,
 *
 *   alloc_create ts=1000 adapter=0 id=7 bytes=65536 segment=system flags=0x1
 *
 * a line "lost events=N packets=M" where the tracer lost events (every
 * event after it is read as coming after a loss, WL_AFTER_LOSS), comments
 * from '#', blank lines. `gpuiso trace dump` writes it, `gpuiso trace make`
 * reads it back into CTF; dump, make and dump again prints the same lines.
 */

/* The longest line, its newline not counted. */
#define TEXT_LINE_MAX 4096
/* A parse says this many errors, and how many more it found. */
#define TEXT_MAX_ERRORS 10

/* What the tracer lost before an event of a text trace. */
struct text_loss {
	size_t before;        /* the index of the event it came before; the count of events: after the last */
	struct ctf_loss loss;
};

/* A text trace, read. */
struct text_trace {
	struct wl_event *ev;  /* in time order; WL_AFTER_LOSS set after the first loss */
	size_t n, cap;
	struct text_loss *loss; /* in order of @before, one per place */
	size_t nloss, capl;
};

/**
 * text_format_event() - one workload event as a line of the text form
 * (without its newline): its name, ts=, then its catalogue fields in
 * catalogue order; enumerated values by name where the format has one.
 * @e: the event (its kind below WL_NKINDS).
 * @buf: destination.
 * @len: its size (TEXT_LINE_MAX + 1 always suffices).
 *
 * Return: the length of the line, or -ENOSPC when @buf is too small, or
 * -EINVAL for a kind out of range.
 */
int text_format_event(const struct wl_event *e, char *buf, size_t len);

/**
 * text_format_loss() - a loss as a line of the text form ("lost events=N
 * packets=M", a zero count left out), without its newline.
 * @l: the loss (not all zero).
 * @buf: destination.
 * @len: its size.
 *
 * Return: the length of the line, or -ENOSPC when @buf is too small.
 */
int text_format_loss(const struct ctf_loss *l, char *buf, size_t len);

/**
 * text_parse() - read a text trace from @in, whole: every line is checked
 * before anything is returned.
 * @in: the text.
 * @name: what to call it in errors (a file name, "<stdin>").
 * @t: out: the trace (text_trace_free() afterwards, also on error).
 * @err: out: on -EINVAL, one line per error (the first TEXT_MAX_ERRORS,
 *       then how many more), "NAME:LINE:COL: error: what"; else what went
 *       wrong.
 * @errlen: size of @err.
 *
 * Return: 0, -EINVAL (the text is malformed), -ENOMEM, -EIO (@in cannot be read).
 */
int text_parse(FILE *in, const char *name, struct text_trace *t, char *err, size_t errlen);

/**
 * text_load() - text_parse() of the file @path, or of standard input for "-".
 * @path: the file, or "-".
 * @t: out: the trace (text_trace_free() afterwards, also on error).
 * @err: out: as text_parse(), or why the file cannot be opened.
 * @errlen: size of @err.
 *
 * Return: as text_parse(), or -ENOENT and the like when the file cannot be opened.
 */
int text_load(const char *path, struct text_trace *t, char *err, size_t errlen);

/** text_trace_free() - free what a text trace holds. @t: the trace (zeroed). */
void text_trace_free(struct text_trace *t);

/**
 * text_write_ctf() - write a text trace as CTF into @dir (ctf_write(), or
 * ctf_write_lossy() when it has losses).
 * @t: the trace.
 * @dir: output folder; must not exist or be empty.
 * @err: out: what went wrong.
 * @errlen: size of @err.
 *
 * Return: as ctf_write().
 */
int text_write_ctf(const struct text_trace *t, const char *dir, char *err, size_t errlen);

/**
 * text_make() - `gpuiso trace make`: the text trace @path (or standard
 * input for "-") as a CTF trace in @dir, written only once all of it has
 * been read and found good.
 * @path: the text, or "-".
 * @dir: output folder; must not exist or be empty.
 * @err: out: what went wrong, and where.
 * @errlen: size of @err.
 *
 * Return: 0, -EINVAL (malformed text), -EEXIST (@dir not empty), what
 * fopen() or ctf_write() return.
 */
int text_make(const char *path, const char *dir, char *err, size_t errlen);

/**
 * text_dump() - `gpuiso trace dump`: the workload events of a trace as
 * text, read as a replay reads them (through import maps for a foreign
 * trace), after a first comment line saying what the text is.
 * @trace: the trace folder (or a folder above one).
 * @maps: import maps (docs/import-maps.md), or NULL.
 * @nmaps: how many.
 * @out: where the text goes.
 * @err: out: on failure, one line saying what and where (a map's
 *       FILE:LINE:COL, or the event index and timestamp of the trace).
 * @errlen: size of @err.
 *
 * Return: 0, what import_map_load() and ctf_read() return, or -EIO when
 * writing to @out fails.
 */
int text_dump(const char *trace, const char *const *maps, size_t nmaps, FILE *out, char *err,
	      size_t errlen);

/**
 * text_dump_file() - text_dump() into the file @path, replaced at once and
 * only when the whole trace was read (standard output for NULL or "-").
 * @trace: the trace folder.
 * @maps: import maps, or NULL.
 * @nmaps: how many.
 * @path: the output file, or NULL or "-".
 * @err: out: as text_dump().
 * @errlen: size of @err.
 *
 * Return: as text_dump(), or an errno of creating @path.
 */
int text_dump_file(const char *trace, const char *const *maps, size_t nmaps, const char *path,
		   char *err, size_t errlen);

#endif
