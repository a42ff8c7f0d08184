/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_REPLAY_IMPORT_H
#define GPUISO_REPLAY_IMPORT_H

#include "replay/ctf.h"
#include "replay/event.h"

/*
 * Import maps (docs/import-maps.md): rules that turn the events of traces
 * other tools recorded into workload events. A rule names event classes,
 * the workload operation they become, where its fields come from (a payload
 * field, a constant, or a shift or product of the two), an optional filter
 * on field values, and a pairing key: the payload field whose value names
 * the object an allocation creates and its free ends (a malloc's pointer).
 * Memory-pressure rules add or remove outstanding bytes instead, and the
 * workload sees what is left of a base as commit and lockable memory.
 */

struct import_map;

enum import_outcome {
	IMPORT_USED,      /* became one or more workload events */
	IMPORT_IGNORED,   /* no rule applies (a filter did not match) */
	IMPORT_UNMATCHED, /* a free or use whose object was never created */
};

/**
 * import_map_load() - read import maps (rules of later files after earlier ones).
 * @paths: the files.
 * @n: how many (at least one).
 * @out: out: the map.
 * @err: out: errors as "FILE:LINE:COL: error: ..." lines.
 * @errlen: size of @err.
 *
 * Return: 0, -ENOENT, -EINVAL (malformed: @err says where), -ENOMEM.
 */
int import_map_load(const char *const *paths, size_t n, struct import_map **out, char *err,
		    size_t errlen);

/** import_map_free() - free a map. @m: or NULL. */
void import_map_free(struct import_map *m);

/**
 * import_bind() - a ctf_bind_fn: binds the event classes some rule names.
 * The first map file naming a class owns it: the fields bound are those its
 * rules naming the class read, and import_event() tries those rules in order.
 * @ctx: the struct import_map.
 * @event_name: the class.
 * @b: out.
 *
 * Return: 0.
 */
int import_bind(void *ctx, const char *event_name, struct ctf_binding *b);

/**
 * import_unmatched_ends() - how many events so far ended an object the
 * trace never created: each one an object live before the trace began (a
 * span that ended nothing counts one, the least it stands for).
 * @m: the map.
 *
 * Return: the count.
 */
uint64_t import_unmatched_ends(const struct import_map *m);

/**
 * import_warn_unbound() - say, on stderr, which rules no event class of the
 * trace took (a misspelt or absent event name, or a class an earlier map
 * file owns), and where they are: as a
 * warning when no rule took any, else with -v only (a map may name events
 * a trace does not have). Call it after a read of the trace.
 * @m: the map.
 */
void import_warn_unbound(const struct import_map *m);

/**
 * import_check_defined() - for a trace that lists the event classes it
 * defines (a trace.dat, ctf_binding.listed): a map file none of whose rules
 * names one of them does not fit the trace (a wrong map, or its events
 * were not recorded), and the replay of it would be empty for nothing.
 * Call it once every class was bound, before trusting the map's output.
 * @m: the map.
 * @err: out: "FILE:LINE:COL (rules[N]): ..." of the map's first rule.
 * @errlen: size of @err.
 *
 * A map whose classes an earlier map owns is not refused here (see
 * import_warn_unbound()).
 *
 * Return: 0, or -EINVAL.
 */
int import_check_defined(const struct import_map *m, char *err, size_t errlen);

/**
 * import_event() - translate one bound event: the first rule of its class
 * whose filter it passes makes it workload events. The first time an event of a
 * rule lacks a payload field the rule reads, a warning says so (the event
 * counts as ignored for a `where` field, else as unmatched).
 * @m: the map.
 * @tag: the binding's tag.
 * @ts: the event's time.
 * @values: its bound field values.
 * @out: out: up to 2 workload events (a reused key first ends the old object).
 * @nout: out: how many.
 *
 * Return: the outcome.
 */
enum import_outcome import_event(struct import_map *m, int tag, uint64_t ts,
				 const struct ctf_value *values, struct wl_event *out, size_t *nout);

/**
 * import_unmatched_why() - why the last event import_event() returned
 * IMPORT_UNMATCHED for made nothing.
 * @m: the map.
 * @event: out: that event's class, as the map names it.
 *
 * Return: the reason, e.g. "no object was made under its key (its creation
 * is not in the trace)"; static, or the map's.
 */
const char *import_unmatched_why(const struct import_map *m, const char **event);

/**
 * import_next() - the next workload event import_event() made of its last
 * event beyond the two it returned (a `span` rule's event may end many
 * objects). Call it until it returns false after each import_event().
 * @m: the map.
 * @e: out: the event.
 *
 * Return: true with *@e filled, false when there is none left.
 */
bool import_next(struct import_map *m, struct wl_event *e);

#endif
