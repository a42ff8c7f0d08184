/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#define LOG_PREFIX "store"

#include "common/array.h"
#include "common/log.h"
#include "store_internal.h"

/*
 * The store's schema: its version (PRAGMA user_version), the migrations
 * from each version to the next, run in one transaction, and the steps
 * that fill new columns and tables from the JSON of the runs stored
 * before them.
 */

/* PRAGMA application_id of a gpuiso store: "gpui". */
#define STORE_APP_ID 0x67707569

static int fill_identities(struct store *s);
static int fill_findings(struct store *s);

/*
 * migrations[i] takes the schema from version i to i + 1: its SQL, then its
 * function (or NULL) in the same transaction. A released step is never
 * edited: a change is a new step (tests open stores made by old ones).
 */
static const struct migration {
	const char *sql;
	int (*fill)(struct store *s); /* an SQLite result code */
} migrations[STORE_SCHEMA_VERSION] = {
	/* 0 -> 1: runs and their metrics */
	{ "CREATE TABLE runs ("
	"  id INTEGER PRIMARY KEY,"
	"  key TEXT NOT NULL UNIQUE,"
	"  kind TEXT NOT NULL,"
	"  git_rev TEXT, date TEXT NOT NULL, host TEXT, backend TEXT, trace TEXT, scenario TEXT,"
	"  json TEXT NOT NULL,"
	"  added TEXT NOT NULL);"
	"CREATE TABLE metrics ("
	"  run INTEGER NOT NULL REFERENCES runs(id),"
	"  name TEXT NOT NULL,"
	"  value REAL NOT NULL,"
	"  unit TEXT NOT NULL,"
	"  PRIMARY KEY (run, name));", NULL },
	/* 1 -> 2: campaign tag; history and revision lookups by index */
	{ "ALTER TABLE runs ADD COLUMN campaign TEXT;"
	  "CREATE INDEX metrics_by_name ON metrics(name, run);"
	  "CREATE INDEX runs_by_rev ON runs(git_rev);", NULL },
	/*
	 * 2 -> 3: each run's benchmark (runfile.h: kind, the names it was run
	 * with, host), the digests of its inputs and the code that ran, read
	 * again from the JSON of the runs already stored; acknowledged changes.
	 */
	{ "ALTER TABLE runs ADD COLUMN benchmark TEXT;"
	  "ALTER TABLE runs ADD COLUMN inputs TEXT;"
	  "ALTER TABLE runs ADD COLUMN code TEXT;"
	  "CREATE INDEX runs_by_benchmark ON runs(benchmark, date, id);"
	  "CREATE TABLE acks ("
	  "  id INTEGER PRIMARY KEY,"
	  "  benchmark TEXT NOT NULL,"
	  "  metric TEXT NOT NULL,"
	  "  rev TEXT NOT NULL,"
	  "  note TEXT NOT NULL,"
	  "  added TEXT NOT NULL);",
	  fill_identities },
	/*
	 * 3 -> 4: the findings of campaigns and sweeps (runs grouped by what
	 * broke), read again from the JSON of the ones already stored; per run,
	 * how many its summary lists (NULL: it lists none, written before them).
	 */
	{ "ALTER TABLE runs ADD COLUMN nfindings INTEGER;"
	  "CREATE TABLE findings ("
	  "  run INTEGER NOT NULL REFERENCES runs(id),"
	  "  pos INTEGER NOT NULL,"
	  "  signature TEXT NOT NULL,"
	  "  key TEXT NOT NULL,"
	  "  title TEXT NOT NULL,"
	  "  blame TEXT NOT NULL,"
	  "  outcome TEXT NOT NULL,"
	  "  code TEXT,"
	  "  invariants TEXT NOT NULL,"
	  "  point TEXT, operation TEXT,"
	  "  runs INTEGER NOT NULL,"
	  "  nth_min INTEGER NOT NULL, nth_max INTEGER NOT NULL,"
	  "  reproduce TEXT NOT NULL,"
	  "  trimmed TEXT, trimmed_events INTEGER NOT NULL, trimmed_of INTEGER NOT NULL,"
	  "  PRIMARY KEY (run, signature));"
	  "CREATE INDEX findings_by_signature ON findings(signature, run);",
	  fill_findings },
};

static int pragma_int(struct store *s, const char *sql, int *out)
{
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(s->db, sql, -1, &st, NULL);

	*out = 0;
	if (rc)
		return rc;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*out = sqlite3_column_int(st, 0);
		rc = SQLITE_OK;
	}
	sqlite3_finalize(st);
	return rc;
}

/*
 * Read the stored JSON of run @id, for an upgrade step: 0, or -EINVAL when it
 * does not read (the run is noted, said once the upgrade is done), -ENOMEM.
 */
static int read_stored(struct store *s, long long id, const char *json, struct run_record *rec)
{
	char name[64], err[512];
	struct store_unread *u;
	size_t i;
	int rc;

	snprintf(name, sizeof(name), "run %lld", id);
	rc = json ? runfile_parse(name, json, rec, err, sizeof(err)) : -EINVAL;
	if (rc != -EINVAL && rc != -EPROTO)
		return rc;
	if (!json)
		snprintf(err, sizeof(err), "%s: no JSON", name);
	for (i = 0; i < s->nunread && s->unread[i].id != id; i++)
		;
	if (i == s->nunread) {
		if (array_reserve(&s->unread, &s->unreadcap, s->nunread, sizeof(*s->unread)))
			return -ENOMEM;
		u = &s->unread[s->nunread++];
		u->id = id;
		snprintf(u->why, sizeof(u->why), "%.*s", (int)strcspn(err, "\n"), err);
	}
	return -EINVAL;
}

/*
 * Step 2 -> 3: the benchmark and inputs of every stored run, from its JSON
 * (a run whose JSON no longer reads is a benchmark of its own: its kind).
 */
static int fill_identities(struct store *s)
{
	sqlite3_stmt *get = NULL, *set = NULL;
	int rc;

	rc = sqlite3_prepare_v2(s->db, "SELECT id, kind, json FROM runs", -1, &get, NULL);
	if (!rc)
		rc = sqlite3_prepare_v2(s->db,
					"UPDATE runs SET benchmark = ?, inputs = ?, code = ? WHERE id = ?",
					-1, &set, NULL);
	while (!rc && (rc = sqlite3_step(get)) == SQLITE_ROW) {
		long long id = sqlite3_column_int64(get, 0);
		const char *kind = (const char *)sqlite3_column_text(get, 1);
		const char *json = (const char *)sqlite3_column_text(get, 2);
		struct run_record rec;
		int got = read_stored(s, id, json, &rec);
		bool read = !got;

		if (got == -ENOMEM) {
			rc = SQLITE_NOMEM;
			break;
		}
		sqlite3_reset(set);
		sqlite3_bind_text(set, 1, read ? rec.benchmark : kind, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(set, 2, read ? rec.inputs : NULL, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(set, 3, read ? rec.code : NULL, -1, SQLITE_TRANSIENT);
		sqlite3_bind_int64(set, 4, id);
		if (read)
			runfile_free(&rec);
		rc = sqlite3_step(set);
		rc = rc == SQLITE_DONE ? SQLITE_OK : rc;
	}
	if (rc == SQLITE_DONE)
		rc = SQLITE_OK;
	sqlite3_finalize(get);
	sqlite3_finalize(set);
	return rc;
}
/*
 * Step 3 -> 4: the findings of every stored campaign and sweep, from its
 * JSON (one whose JSON no longer reads, or lists none, gets none).
 */
static int fill_findings(struct store *s)
{
	struct store_findings_stmts fs = { 0 };
	sqlite3_stmt *get = NULL;
	int rc;

	rc = sqlite3_prepare_v2(s->db, "SELECT id, json FROM runs WHERE kind IN ('campaign', 'sweep')",
				-1, &get, NULL);
	if (!rc)
		rc = store_findings_prepare(s, &fs);
	while (!rc && (rc = sqlite3_step(get)) == SQLITE_ROW) {
		long long id = sqlite3_column_int64(get, 0);
		const char *json = (const char *)sqlite3_column_text(get, 1);
		struct run_record rec;
		int got = read_stored(s, id, json, &rec);

		if (got == -ENOMEM)
			rc = SQLITE_NOMEM;
		else if (got)
			rc = SQLITE_OK; /* noted: no findings of it are known */
		else
			rc = store_put_findings(&fs, id, &rec);
		if (!got)
			runfile_free(&rec);
	}
	if (rc == SQLITE_DONE)
		rc = SQLITE_OK;
	sqlite3_finalize(get);
	store_findings_finalize(&fs);
	return rc;
}

/* The store's schema version, application id and number of schema objects. */
static int schema_state(struct store *s, int *version, int *app, int *tables)
{
	int rc = pragma_int(s, "PRAGMA user_version", version);

	if (!rc)
		rc = pragma_int(s, "PRAGMA application_id", app);
	if (!rc)
		rc = pragma_int(s, "SELECT count(*) FROM sqlite_schema", tables);
	return rc;
}

/* Whether the file can be (or be made) a store of this gpuiso: 0, or why not. */
static int schema_check(struct store *s, int version, int app, int tables, bool create,
			char *err, size_t errlen)
{
	if ((version || tables) && app != STORE_APP_ID) {
		snprintf(err, errlen, "%s: not a gpuiso store (an SQLite database of something else)",
			 s->path);
		return -EINVAL;
	}
	if (!version && !tables && !create) {
		snprintf(err, errlen, "%s: not a gpuiso store (an empty file)", s->path);
		return -EINVAL;
	}
	if (!version && tables) {
		snprintf(err, errlen,
			 "%s: a damaged gpuiso store: it holds tables, but its schema version (PRAGMA "
			 "user_version) is 0, which only an empty store has: it was reset",
			 s->path);
		return -EINVAL;
	}
	if (version < 0) {
		snprintf(err, errlen, "%s: not a gpuiso store: schema version %d, which no gpuiso writes",
			 s->path, version);
		return -EINVAL;
	}
	if (version > STORE_SCHEMA_VERSION) {
		snprintf(err, errlen,
			 "%s: store schema version %d is newer than this gpuiso knows (%d): update gpuiso",
			 s->path, version, STORE_SCHEMA_VERSION);
		return -EPROTO;
	}
	return 0;
}

/*
 * Bring the schema to STORE_SCHEMA_VERSION. A store already there is only
 * read (a read-only file, a reader beside a writer); one that is not is
 * upgraded in one write transaction, its state read again under the lock.
 */
int store_migrate(struct store *s, bool create, char *err, size_t errlen)
{
	int version, app, tables, rc;
	const char *what;
	char sql[64];

	rc = schema_state(s, &version, &app, &tables);
	if (rc)
		return store_db_error(s, rc, "open", err, errlen);
	rc = schema_check(s, version, app, tables, create, err, errlen);
	if (rc || version == STORE_SCHEMA_VERSION)
		return rc;
	what = version ? "schema upgrade" : "create";
	rc = sqlite3_exec(s->db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
	if (rc)
		return store_db_error(s, rc, what, err, errlen);
	rc = schema_state(s, &version, &app, &tables);
	if (rc) {
		rc = store_db_error(s, rc, "open", err, errlen);
		goto rollback;
	}
	rc = schema_check(s, version, app, tables, create, err, errlen);
	if (rc)
		goto rollback;
	s->nunread = 0;
	for (int v = version; v < STORE_SCHEMA_VERSION; v++) {
		rc = sqlite3_exec(s->db, migrations[v].sql, NULL, NULL, NULL);
		if (!rc && migrations[v].fill)
			rc = migrations[v].fill(s);
		if (rc) {
			rc = store_db_error(s, rc, what, err, errlen);
			goto rollback;
		}
	}
	snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", STORE_SCHEMA_VERSION);
	rc = sqlite3_exec(s->db, sql, NULL, NULL, NULL);
	if (!rc) {
		snprintf(sql, sizeof(sql), "PRAGMA application_id = %d", STORE_APP_ID);
		rc = sqlite3_exec(s->db, sql, NULL, NULL, NULL);
	}
	if (!rc)
		rc = sqlite3_exec(s->db, "COMMIT", NULL, NULL, NULL);
	if (rc) {
		rc = store_db_error(s, rc, what, err, errlen);
		goto rollback;
	}
	/* done: the runs it could not read are said, each once */
	for (size_t i = 0; i < s->nunread; i++)
		log_warn("%s: schema upgrade from version %d: run %lld kept out of it: its stored JSON "
			 "does not read (%s); the run and its metrics are kept as they were",
			 s->path, version, s->unread[i].id, s->unread[i].why);
	return 0;
rollback:
	sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	return rc;
}

