/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_REPLAY_FTRACE_H
#define GPUISO_REPLAY_FTRACE_H

#include <stddef.h>

#include "replay/ctf_decode.h"

/*
 * ftrace recordings: trace-cmd's trace.dat, file versions 6 and 7,
 * compressed or not. ctf_read() reads one wherever it reads a CTF folder
 * (it tells them apart by the file's magic): its events are named
 * "system:name", its fields are those of each event's format, and its
 * per-CPU buffers are merged in time order. libtracecmd decodes it, in the
 * same child process as babeltrace2 decodes CTF.
 *
 * Before libtracecmd sees a file, ftrace_file_check() walks its layout
 * itself: libtracecmd says little more than "failed to init data" about a
 * file it cannot read, and reads some files it should refuse (options that
 * other writers' copies of the format number differently) as if they were
 * sound. The walk says what it could not read and where: the section, the
 * option id, the byte offset.
 */

#define FTRACE_VERSION_MIN 6
#define FTRACE_VERSION_MAX 7

/**
 * ftrace_file_is() - whether @path is a trace.dat file (by its magic).
 * @path: any path.
 *
 * Return: true for a regular file that begins as a trace.dat does.
 */
bool ftrace_file_is(const char *path);

/* What the walk of a file's layout found. */
struct ftrace_layout {
	unsigned int version;     /* 6 or 7 */
	bool big_endian;
	unsigned int long_size;   /* 4 or 8: the recording machine's user space */
	unsigned int page_size;
	char compression[32];     /* "none", "zlib", "zstd" (version 7) */
	unsigned int cpus;        /* CPUs with data in the top buffer */
	unsigned int buffers;     /* trace instances with data (the top one counts) */
	unsigned long long data_bytes; /* the top buffer's data, as stored */
};

/**
 * ftrace_file_check() - walk a trace.dat file's layout and say where it breaks.
 * @path: the file.
 * @lay: out: what the walk found (may be NULL).
 * @err: out: on failure, "PATH: SECTION at offset N: what" (or the option's
 *       id and offset).
 * @errlen: size of @err.
 *
 * Every size and offset the headers give is checked against the file's
 * size; in version 6, options are checked against the ids the format
 * defines; the ring buffer pages of uncompressed data are checked against
 * their page size. Compressed sections of version 7 are left to
 * libtracecmd, which decompresses them.
 *
 * Return: 0, -EINVAL (not a trace.dat file libtracecmd can read: @err says
 * why), -ENOENT, -EACCES and the like (cannot open it), -ENOMEM.
 */
int ftrace_file_check(const char *path, struct ftrace_layout *lay, char *err, size_t errlen);

/**
 * ftrace_decode() - ctf_decode() of a trace.dat file, by libtracecmd.
 * @path: the file.
 * @bind: as ctf_read()'s: asked once per event class ("system:name"); a
 *        field name may also be "NAME[I]" (element I of an array field),
 *        "NAME.count" (its elements) or "NAME.sum" (their sum).
 * @on_event: as ctf_read()'s.
 * @mark: told where the decoder is: the file (CTF_MARK_FOLDER), each ring
 *        buffer page as it begins (CTF_MARK_PACKET, "cpu N" and the page's
 *        index on that CPU), the statistics (CTF_MARK_STATS).
 * @ctx: passed to the three callbacks.
 * @st: as ctf_read()'s; events the kernel's ring buffer dropped count as
 *      discarded (one when it did not say how many).
 * @err: as ctf_read()'s.
 * @errlen: size of @err.
 *
 * libtracecmd may crash on a damaged file: only a process that can die for
 * it calls this.
 *
 * Return: as ctf_read().
 */
int ftrace_decode(const char *path, ctf_bind_fn bind, ctf_event_fn on_event, ctf_mark_fn mark,
		  void *ctx, struct ctf_stats *st, char *err, size_t errlen);

#endif
