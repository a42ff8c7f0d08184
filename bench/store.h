/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_BENCH_STORE_H
#define GPUISO_BENCH_STORE_H

#include <stdbool.h>
#include <stddef.h>

#include "runfile.h"

/*
 * The results store: every run in one SQLite file, with its tags (git
 * revision, date, host, backend, trace, scenario, campaign), the benchmark it
 * belongs to, the digests of its inputs and the code that ran (runfile.h),
 * its metrics, the findings of a campaign or sweep and the JSON it came
 * from; and the changes people acknowledged as expected. A series is one
 * metric of one benchmark. The schema is versioned (PRAGMA user_version)
 * and upgraded in place, in a transaction, by the migrations in
 * store_schema.c. Every write is one transaction: a writer killed half-way
 * leaves the store as it was before it began.
 */

#define STORE_SCHEMA_VERSION 4

struct store;

/**
 * store_open() - open (or with @create, make) a store, upgrading its schema.
 * @path: the file.
 * @create: make it if it does not exist.
 * @out: out: the store.
 * @err: out: why not.
 * @errlen: size of @err.
 *
 * A store made anew (@create) is made whole or not at all: nothing is left
 * at @path when it cannot be. Runs whose stored JSON an upgrade of the
 * schema cannot read are kept as they are and said on stderr, by id.
 *
 * Return: 0; -ENOENT (missing and not @create), -EPROTO (its schema is
 * newer than this gpuiso), -EINVAL (not a gpuiso store, or corrupt or
 * damaged; a folder), -EBUSY (locked by another writer for longer than the
 * wait), -EIO (the machine's trouble: a full disk, a file or folder that
 * cannot be opened, written or made, an I/O error), -ENOMEM.
 */
int store_open(const char *path, bool create, struct store **out, char *err, size_t errlen);

/**
 * store_set_busy_wait() - how long a write waits for another writer's lock
 * before failing with -EBUSY (store_open() sets 5 s).
 * @s: the store.
 * @ms: milliseconds.
 */
void store_set_busy_wait(struct store *s, int ms);

/**
 * store_error() - what the last failed read of the store said, with the
 * store's path ("runs.sqlite: read: not a gpuiso store, or corrupt (…)").
 * @s: the store.
 *
 * Return: the message, or "" when the last read did not fail in SQLite.
 */
const char *store_error(const struct store *s);

/** store_close() - close the store. @s: the store, or NULL. */
void store_close(struct store *s);

/**
 * store_add() - add runs in one transaction; runs already stored (same key)
 * are left as they are.
 * @s: the store.
 * @recs: the runs.
 * @n: how many.
 * @added: out: how many were new.
 * @err: out: why not.
 * @errlen: size of @err.
 *
 * Return: 0, or a negative errno as store_open(); nothing is added then.
 */
int store_add(struct store *s, const struct run_record *recs, size_t n, size_t *added, char *err,
	      size_t errlen);

/* One stored run, as listed. */
struct store_run {
	long long id;
	const char *kind, *key, *git_rev, *date, *host, *backend, *trace, *scenario, *campaign;
	const char *benchmark;
	long long nmetrics;
};

/**
 * store_runs() - every run in order (date, then when it was added).
 * @s: the store.
 * @fn: called per run; a non-zero return stops and is returned.
 * @ctx: for @fn.
 *
 * Return: 0, @fn's return, or a negative errno.
 */
int store_runs(struct store *s, int (*fn)(const struct store_run *run, void *ctx), void *ctx);

/* One value of one metric of one run, with where it comes from. */
struct store_row {
	long long run;      /* the run's id: the values of one run come one after the other */
	const char *benchmark, *kind, *git_rev, *date;
	const char *inputs; /* the run's input digests (runfile.h), or NULL */
	const char *code;   /* the code that ran (runfile.h), or NULL */
	const char *metric, *unit;
	double value;
};

/**
 * store_points() - every stored value, by benchmark, then in run order
 * (date, then when added), then by metric: one pass for the history of
 * every series (a series is one metric of one benchmark). A run without
 * values is not seen.
 * @s: the store.
 * @fn: called per value (the row is valid during the call); a non-zero
 *      return stops and is returned.
 * @ctx: for @fn.
 *
 * Return: 0, @fn's return, or a negative errno.
 */
int store_points(struct store *s, int (*fn)(const struct store_row *row, void *ctx), void *ctx);

/**
 * store_run_json() - the JSON a run came from.
 * @s: the store.
 * @id: the run.
 * @json: out: a copy (free() it).
 *
 * Return: 0, -ENOENT, -ENOMEM, -EIO.
 */
int store_run_json(struct store *s, long long id, char **json);

/**
 * store_rev_resolve() - the one stored revision @prefix begins.
 * @s: the store.
 * @prefix: a git revision, or its first characters.
 * @full: out: the revision as stored.
 * @len: size of @full.
 * @err: out: why not (none, or which ones when several).
 * @errlen: size of @err.
 *
 * Return: 0, -ENOENT (no such revision), -EINVAL (several), -ENOMEM, -EIO.
 */
int store_rev_resolve(struct store *s, const char *prefix, char *full, size_t len, char *err,
		      size_t errlen);

/**
 * store_rev_runs() - the runs of revision @rev, in run order, each as a
 * record with its kind, benchmark, revision, date, code, inputs and metrics
 * (the other fields NULL).
 * @s: the store.
 * @rev: a git revision as stored (store_rev_resolve() finds it from a prefix).
 * @fn: called per run; a non-zero return stops and is returned.
 * @ctx: for @fn.
 *
 * Return: 0, @fn's return, -ENOMEM, -EIO.
 */
int store_rev_runs(struct store *s, const char *rev,
		   int (*fn)(const struct run_record *rec, void *ctx), void *ctx);

/* A stored campaign or sweep run and one of its findings. */
struct store_finding_row {
	long long run;
	const char *kind, *benchmark, *git_rev, *date;
	long long nfindings;         /* how many its summary lists; -1 when it lists none
				      * (a summary written before findings: nothing known) */
	const struct run_finding *f; /* the finding, or NULL in the one row of a run without any */
};

/**
 * store_findings() - the findings of every stored campaign and sweep run,
 * by benchmark, then in run order (date, then when added), each run's in
 * its summary's order; a run without findings is one row of its own.
 * @s: the store.
 * @fn: called per row (valid during the call); a non-zero return stops and is returned.
 * @ctx: for @fn.
 *
 * Return: 0, @fn's return, or a negative errno.
 */
int store_findings(struct store *s, int (*fn)(const struct store_finding_row *row, void *ctx),
		   void *ctx);

/* A change acknowledged as expected: of the series matching both globs, at @rev. */
struct store_ack {
	const char *benchmark; /* glob */
	const char *metric;    /* glob */
	const char *rev;       /* as stored */
	const char *note;
	const char *added;     /* when (set by the store) */
};

/**
 * store_ack_add() - keep an acknowledgement.
 * @s: the store.
 * @a: what is acknowledged (@a->added is ignored: the store sets it).
 * @err: out: why not.
 * @errlen: size of @err.
 *
 * Return: 0, or a negative errno as store_open().
 */
int store_ack_add(struct store *s, const struct store_ack *a, char *err, size_t errlen);

/**
 * store_acks() - every acknowledgement, oldest first.
 * @s: the store.
 * @fn: called per acknowledgement; a non-zero return stops and is returned.
 * @ctx: for @fn.
 *
 * Return: 0, @fn's return, or a negative errno.
 */
int store_acks(struct store *s, int (*fn)(const struct store_ack *a, void *ctx), void *ctx);

#endif
