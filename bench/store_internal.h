/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_BENCH_STORE_INTERNAL_H
#define GPUISO_BENCH_STORE_INTERNAL_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stddef.h>

#include "store.h"

/*
 * What the files of the store share (store.c opening it, store_schema.c
 * its schema and migrations, store_add.c writing to it, store_query.c
 * reading it back): the store itself, its errors, and the statements that
 * keep a run's findings, which both adding a run and a migration use.
 */

/* A stored run whose JSON an upgrade could not read: why, and that it was kept out. */
struct store_unread {
	long long id;
	char why[256]; /* the first error the reader said */
};

struct store {
	sqlite3 *db;
	char *path;
	char err[512]; /* what the last failed read said (store_error()) */
	struct store_unread *unread; /* the runs the upgrade under way could not read */
	size_t nunread, unreadcap;
};

/**
 * store_db_error() - the errno for an SQLite result code, and a message that
 * says which file (kept for store_error() too).
 * @s: the store.
 * @rc: the SQLite result code.
 * @what: what was being done ("open", "add", "read").
 * @err: out: the message.
 * @errlen: size of @err.
 *
 * Return: -EBUSY (locked), -EINVAL (not a store, corrupt, a folder),
 * -ENOMEM, or -EIO (the machine's trouble).
 */
int store_db_error(struct store *s, int rc, const char *what, char *err, size_t errlen);

/**
 * store_migrate() - bring the schema to STORE_SCHEMA_VERSION. A store
 * already there is only read (a read-only file, a reader beside a writer);
 * one that is not is upgraded in one write transaction, its state read
 * again under the lock.
 * @s: the store, open.
 * @create: an empty file may be made a store.
 * @err: out: why not.
 * @errlen: size of @err.
 *
 * Return: 0, or a negative errno as store_open().
 */
int store_migrate(struct store *s, bool create, char *err, size_t errlen);

/* The statements that keep a run's findings: store_put_findings()'s. */
struct store_findings_stmts {
	sqlite3_stmt *finding, *count;
};

/**
 * store_findings_prepare() - prepare the statements of store_put_findings().
 * @s: the store.
 * @fs: out: the statements (store_findings_finalize() them, whatever the return).
 *
 * Return: an SQLite result code.
 */
int store_findings_prepare(struct store *s, struct store_findings_stmts *fs);

/** store_findings_finalize() - finalize the statements. @fs: the statements. */
void store_findings_finalize(struct store_findings_stmts *fs);

/**
 * store_put_findings() - keep the findings of run @id, as its file @r lists
 * them (none when it lists none), and how many it lists.
 * @fs: the statements.
 * @id: the stored run.
 * @r: its record.
 *
 * Return: an SQLite result code.
 */
int store_put_findings(struct store_findings_stmts *fs, long long id, const struct run_record *r);

#endif
