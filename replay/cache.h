/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_REPLAY_CACHE_H
#define GPUISO_REPLAY_CACHE_H

#include "replay/event.h"

#include <stdbool.h>

/*
 * The compiled replay cache: a trace's workload events in a compact binary
 * form (varint deltas), so later replays of the same trace skip CTF decoding.
 * A cache file is named by its content key, a digest of the content of
 * every file of the trace and of the import maps used, which its header
 * carries with a checksum of its payload; anything that does not match —
 * another trace, a newer version of this one, a truncated or foreign file —
 * is refused, and the caller rebuilds it.
 *
 * A replay finds the cache file by its inputs' identity (where their files
 * are and when they last changed: common/digest_path.h) without reading
 * them: an identity file, named by the identity, records the content key
 * and each input's content digest. An identity without one (a copied
 * trace, a touched file) has its inputs' contents hashed; the cache file of
 * that content key then serves, and the identity is recorded.
 */

/* Inputs a cache file is built from: the trace and up to 8 import maps. */
#define CACHE_MAX_INPUTS 9

/* Files changed this recently (seconds) are hashed, their identity not trusted nor recorded. */
#define CACHE_SETTLE_S 2

/* A trace's place in the cache (cache_find()). */
struct cache_entry {
	uint64_t key;                      /* the content key: names the cache file */
	uint64_t digest[CACHE_MAX_INPUTS]; /* each input's content (digest_path() from 0) */
	size_t ninputs;                    /* the trace, then each map */
	uint64_t identity;                 /* of the inputs' files: names the identity file */
	bool settled;  /* no file changed in the last CACHE_SETTLE_S seconds */
	bool by_identity; /* key and digests from the identity file: no content was read */
};

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
 * cache_find() - where the cache holds @trace read through @maps: by the
 * files' identity when an identity file records it, else by hashing their
 * contents.
 * @dir: the cache folder, or NULL for the default (cache_path()).
 * @trace: the trace (a folder or a file).
 * @maps: the import maps, or NULL.
 * @nmaps: how many (below CACHE_MAX_INPUTS).
 * @e: out: the content key and digests, and how they were found.
 *
 * Return: 0; -E2BIG (too many maps); errors of digest_path() (an input
 * that cannot be read).
 */
int cache_find(const char *dir, const char *trace, const char *const *maps, size_t nmaps,
	       struct cache_entry *e);

/**
 * cache_hash() - the content key and digests of @trace and @maps, hashed
 * (what cache_find() does without an identity file).
 * @trace: the trace.
 * @maps: the import maps, or NULL.
 * @nmaps: how many (below CACHE_MAX_INPUTS).
 * @e: in and out: key, digest, ninputs set, by_identity cleared; the rest kept.
 *
 * Return: 0; -E2BIG; errors of digest_path().
 */
int cache_hash(const char *trace, const char *const *maps, size_t nmaps, struct cache_entry *e);

/**
 * cache_remember() - record @e's identity in its identity file (atomically),
 * once its cache file is known good: later replays then find it without
 * hashing. Nothing is done for an entry found by its identity, or whose
 * files have not settled.
 * @dir: the cache folder, or NULL for the default.
 * @e: an entry of cache_find() or cache_hash().
 *
 * Return: 0 or a negative errno (the folder is created if missing).
 */
int cache_remember(const char *dir, const struct cache_entry *e);

/**
 * cache_key() - the content key of @trace and the @nextra files in @extra
 * (cache_hash()).
 * @trace: the trace folder.
 * @extra: other files the events depend on (import maps), or NULL.
 * @nextra: how many.
 * @key: out.
 *
 * Return: 0, -ENOENT, -EIO, -E2BIG.
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
