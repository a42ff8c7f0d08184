/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_REPLAY_CACHE_H
#define GPUISO_REPLAY_CACHE_H

#include "replay/event.h"

/*
 * The compiled replay cache: a trace's workload events in a compact binary
 * form (varint deltas), so later replays of the same trace skip CTF decoding.
 * A cache file names the key of what it was built from (a hash of every file
 * of the trace, and of the import map if one was used) and a checksum of
 * its payload; anything that does not match — another trace, a newer
 * version of this one, a truncated or foreign file — is refused, and the
 * caller rebuilds it.
 */

/* What the trace held besides the events kept. */
struct cache_meta {
	uint64_t events;    /* events in the trace (the index space) */
	uint64_t records;   /* workload events kept */
	uint64_t ignored;   /* events of unknown classes */
	uint64_t unmatched; /* foreign events an import map could not pair */
	uint64_t discarded; /* events the tracer lost */
	uint64_t lost_packets; /* packets the tracer lost */
	uint64_t first_ts, last_ts;
	uint64_t unmatched_ends; /* of the unmatched, ends: objects live before the trace began */
};

/**
 * cache_key() - a hash of every regular file below @trace (names and
 * contents, in a fixed order) and of the @nextra files in @extra.
 * @trace: the trace folder.
 * @extra: other files the events depend on (import maps), or NULL.
 * @nextra: how many.
 * @key: out.
 *
 * Return: 0, -ENOENT, -EIO.
 */
int cache_key(const char *trace, const char *const *extra, size_t nextra, uint64_t *key);

/**
 * cache_path() - where the cache file of @key lives: @dir, or
 * $XDG_CACHE_HOME/gpuiso, or ~/.cache/gpuiso.
 * @dir: the cache folder, or NULL for the default.
 * @key: the key.
 * @out: destination.
 * @len: its size.
 *
 * Return: 0, -ENAMETOOLONG, -ENOENT (no home to put it in), -EINVAL (@dir is "").
 */
int cache_path(const char *dir, uint64_t key, char *out, size_t len);

struct cache_writer;

/**
 * cache_writer_open() - start writing the cache file @path (to @path.tmp).
 * @path: the final name.
 * @key: the key it is built from.
 * @out: out: the writer.
 *
 * Return: 0 or a negative errno (the folder is created if missing).
 */
int cache_writer_open(const char *path, uint64_t key, struct cache_writer **out);

/**
 * cache_writer_add() - append one event.
 * @w: the writer.
 * @index: its index in the trace.
 * @e: the event.
 *
 * Return: 0, -ENOMEM, -EIO.
 */
int cache_writer_add(struct cache_writer *w, uint64_t index, const struct wl_event *e);

/**
 * cache_writer_commit() - finish the file and move it into place atomically.
 * @w: the writer (freed).
 * @meta: what the trace held.
 *
 * Return: 0 or a negative errno (nothing is left behind then).
 */
int cache_writer_commit(struct cache_writer *w, const struct cache_meta *meta);

/** cache_writer_abort() - drop a half-written file. @w: the writer (freed), or NULL. */
void cache_writer_abort(struct cache_writer *w);

/* Receives each cached event. */
typedef int (*cache_event_fn)(void *ctx, uint64_t index, const struct wl_event *e);

/**
 * cache_read() - replay the events of a cache file.
 * @path: the file.
 * @key: the key it must have been built from.
 * @fn: called per event (a negative return stops the read with it); NULL to
 *      only decode.
 * @ctx: passed to @fn.
 * @meta: out: what the trace held.
 *
 * The file is read twice through a buffer of a fixed size, so that its
 * length costs no memory: the first reading checks all of it, the second
 * delivers the events (and checks them again).
 *
 * Return: 0, -ENOENT (no file), -ESTALE (wrong key, version, size,
 * checksum, a record that does not decode, or a count that is not the
 * header's: rebuild it; @fn was not called then, unless the file was
 * written in place between the two readings, which gpuiso never does),
 * -ENOMEM, or @fn's error.
 */
int cache_read(const char *path, uint64_t key, cache_event_fn fn, void *ctx,
	       struct cache_meta *meta);

#endif
