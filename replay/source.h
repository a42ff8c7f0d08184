/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_REPLAY_SOURCE_H
#define GPUISO_REPLAY_SOURCE_H

#include "replay/ctf.h"
#include "replay/event.h"
#include "replay/import.h"

/*
 * A CTF trace's workload events, as every reader of a trace wants them: its
 * gpuiso_wl events by the catalogue, or, through import maps, the events of
 * another tool turned into workload events. Each event after a loss of the
 * tracer (discarded events or lost packets) carries WL_AFTER_LOSS. The
 * replay feeds the model from here (and fills its cache); `gpuiso trace
 * dump` prints what comes out.
 */

/* Receives each workload event, in trace order; a negative return stops the read with it. */
typedef int (*wl_source_fn)(void *ctx, uint64_t index, struct wl_event *e);

/*
 * Receives each foreign event an import map found unmatched: its index,
 * time, class and why (import_unmatched_why()).
 */
typedef void (*wl_source_unmatched_fn)(void *ctx, uint64_t index, uint64_t ts, const char *event,
				       const char *why);

/* What the trace's events became. */
struct wl_source_counts {
	uint64_t used;      /* events that became workload events */
	uint64_t unmatched; /* foreign events naming objects never created (import maps) */
	uint64_t unmatched_ends; /* of them, ends: objects live before the trace began */
};

/* What to read, and how. */
struct wl_source {
	const char *trace;          /* a CTF folder, a folder above one, or a trace.dat */
	struct import_map *map;     /* for a foreign trace, or NULL: the catalogue's events */
	bool strict;                /* an event class that is not read is an error */
	const struct ctf_limits *lim; /* the decoder's limits, or NULL */
	wl_source_unmatched_fn unmatched; /* told each unmatched event (with the read's ctx), or NULL */
};

/**
 * wl_source_read() - read every workload event of @s->trace into @fn.
 * @s: what to read.
 * @fn: called per workload event (two for one foreign event that reuses
 *      the key of a live object: its end first), which may change the event.
 * @ctx: passed to @fn.
 * @st: out: the reader's statistics, current during the read (may be
 *      NULL); @fn may read them.
 * @counts: out: what the events became (may be NULL).
 * @err: out: on failure other than @fn's, one line saying what and where
 *       (the event index and timestamp when an event is at fault).
 * @errlen: size of @err.
 *
 * Return: 0, what ctf_read() returns (-EINVAL for an event without its
 * catalogue fields, or of a class refused with @s->strict), or @fn's error.
 */
int wl_source_read(const struct wl_source *s, wl_source_fn fn, void *ctx, struct ctf_stats *st,
		   struct wl_source_counts *counts, char *err, size_t errlen);

#endif
