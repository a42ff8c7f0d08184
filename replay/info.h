/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_REPLAY_INFO_H
#define GPUISO_REPLAY_INFO_H

#include <stdio.h>

#include "common/types.h"

/**
 * trace_info() - summarise the trace(s) at @path (`gpuiso trace info`).
 * @path: a CTF trace folder, any folder above trace folders, a trace.dat or
 *        an .etl file (see ctf_read()).
 * @json: print a gpuiso-trace-info/1 document instead of text.
 * @out: where the summary goes; nothing is printed when reading fails.
 * @err: out: on failure, one line saying what and where.
 * @errlen: size of @err.
 *
 * Prints the number of trace folders (for a trace.dat: its file version,
 * compression, CPUs and page size; for an .etl file: its buffers, CPUs,
 * pointer size and clock), of events and of discarded events ("trace is
 * incomplete" when there are any), the first and last timestamps (ns from
 * the clock's origin) and the span between them, for an .etl file the
 * event counts per provider, and the event counts per event name, sorted by
 * name. JSON:
 * {"schema":"gpuiso-trace-info/1","path","format" ("ctf", "trace.dat" or "etl"; a trace.dat
 * adds "file_version","compression","cpus"; an .etl file "buffers","buffer_size","cpus",
 * "pointer_size","clock_hz","lost_buffers_flagged"),"traces","events","discarded",
 * "lost_packets","first_ts","last_ts",("by_provider":{PROVIDER:count}, .etl only),
 * "by_name":{NAME:count}}.
 *
 * Return: 0, what ctf_read() returns on failure, -ENOMEM, or -EIO when
 * writing to @out fails.
 */
int trace_info(const char *path, bool json, FILE *out, char *err, size_t errlen);

#endif
