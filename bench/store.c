/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define LOG_PREFIX "store"

#include "common/array.h"
#include "common/log.h"
#include "store.h"

/* PRAGMA application_id of a gpuiso store: "gpui". */
#define STORE_APP_ID 0x67707569

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

/* The errno for an SQLite result code, and a message that says which file. */
static int db_error(struct store *s, int rc, const char *what, char *err, size_t errlen)
{
	/* the connection's own message, unless a later call of it succeeded ("not an error") */
	const char *msg = s->db && (sqlite3_extended_errcode(s->db) & 0xff) == (rc & 0xff)
				  ? sqlite3_errmsg(s->db) : sqlite3_errstr(rc);
	int sys = s->db ? sqlite3_system_errno(s->db) : 0;

	if (err != s->err) /* kept for store_error() too */
		db_error(s, rc, what, s->err, sizeof(s->err));

	switch (rc & 0xff) {
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		snprintf(err, errlen, "%s: %s: the store is locked by another writer (%s)", s->path,
			 what, msg);
		return -EBUSY;
	case SQLITE_NOTADB:
	case SQLITE_CORRUPT:
		snprintf(err, errlen, "%s: %s: not a gpuiso store, or corrupt (%s)", s->path, what,
			 msg);
		return -EINVAL;
	case SQLITE_NOMEM:
		snprintf(err, errlen, "%s: %s: out of memory", s->path, what);
		return -ENOMEM;
	case SQLITE_CANTOPEN:
		snprintf(err, errlen, "%s: %s: cannot open (%s%s%s)", s->path, what, msg,
			 sys ? ": " : "", sys ? strerror(sys) : "");
		/* a folder named as a store is the user's; a file it cannot have, the machine's */
		return sys == EISDIR || sys == ENOTDIR ? -EINVAL : -EIO;
	default:
		snprintf(err, errlen, "%s: %s: %s", s->path, what, msg);
		return -EIO;
	}
}

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

static void bind_text(sqlite3_stmt *st, int i, const char *v)
{
	if (v)
		sqlite3_bind_text(st, i, v, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, i);
}

/* The statements that keep a run's findings: put_findings()'s. */
struct findings_stmts {
	sqlite3_stmt *finding, *count;
};

static int findings_prepare(struct store *s, struct findings_stmts *fs)
{
	int rc = sqlite3_prepare_v2(s->db,
				    "INSERT INTO findings (run, pos, signature, key, title, blame, outcome,"
				    " code, invariants, point, operation, runs, nth_min, nth_max, reproduce,"
				    " trimmed, trimmed_events, trimmed_of)"
				    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
				    -1, &fs->finding, NULL);

	if (!rc)
		rc = sqlite3_prepare_v2(s->db, "UPDATE runs SET nfindings = ? WHERE id = ?", -1,
					&fs->count, NULL);
	return rc;
}

static void findings_finalize(struct findings_stmts *fs)
{
	sqlite3_finalize(fs->finding);
	sqlite3_finalize(fs->count);
}

/* Keep the findings of run @id, as its file @r lists them (none when it lists none). */
static int put_findings(struct findings_stmts *fs, long long id, const struct run_record *r)
{
	int rc;

	if (!r->findings_recorded)
		return SQLITE_OK;
	for (size_t i = 0; i < r->nfindings; i++) {
		const struct run_finding *f = &r->findings[i];
		sqlite3_stmt *st = fs->finding;

		sqlite3_reset(st);
		sqlite3_bind_int64(st, 1, id);
		sqlite3_bind_int64(st, 2, (long long)i);
		bind_text(st, 3, f->signature);
		bind_text(st, 4, f->key);
		bind_text(st, 5, f->title);
		bind_text(st, 6, f->blame);
		bind_text(st, 7, f->outcome);
		bind_text(st, 8, f->code);
		bind_text(st, 9, f->invariants);
		bind_text(st, 10, f->point);
		bind_text(st, 11, f->operation);
		sqlite3_bind_int64(st, 12, f->runs);
		sqlite3_bind_int64(st, 13, f->nth_min);
		sqlite3_bind_int64(st, 14, f->nth_max);
		bind_text(st, 15, f->reproduce);
		bind_text(st, 16, f->trimmed);
		sqlite3_bind_int64(st, 17, f->trimmed_events);
		sqlite3_bind_int64(st, 18, f->trimmed_of);
		rc = sqlite3_step(st);
		if (rc != SQLITE_DONE)
			return rc;
	}
	sqlite3_reset(fs->count);
	sqlite3_bind_int64(fs->count, 1, (long long)r->nfindings);
	sqlite3_bind_int64(fs->count, 2, id);
	rc = sqlite3_step(fs->count);
	return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

/*
 * Step 3 -> 4: the findings of every stored campaign and sweep, from its
 * JSON (one whose JSON no longer reads, or lists none, gets none).
 */
static int fill_findings(struct store *s)
{
	struct findings_stmts fs = { 0 };
	sqlite3_stmt *get = NULL;
	int rc;

	rc = sqlite3_prepare_v2(s->db, "SELECT id, json FROM runs WHERE kind IN ('campaign', 'sweep')",
				-1, &get, NULL);
	if (!rc)
		rc = findings_prepare(s, &fs);
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
			rc = put_findings(&fs, id, &rec);
		if (!got)
			runfile_free(&rec);
	}
	if (rc == SQLITE_DONE)
		rc = SQLITE_OK;
	sqlite3_finalize(get);
	findings_finalize(&fs);
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
static int migrate(struct store *s, bool create, char *err, size_t errlen)
{
	int version, app, tables, rc;
	const char *what;
	char sql[64];

	rc = schema_state(s, &version, &app, &tables);
	if (rc)
		return db_error(s, rc, "open", err, errlen);
	rc = schema_check(s, version, app, tables, create, err, errlen);
	if (rc || version == STORE_SCHEMA_VERSION)
		return rc;
	what = version ? "schema upgrade" : "create";
	rc = sqlite3_exec(s->db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
	if (rc)
		return db_error(s, rc, what, err, errlen);
	rc = schema_state(s, &version, &app, &tables);
	if (rc) {
		rc = db_error(s, rc, "open", err, errlen);
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
			rc = db_error(s, rc, what, err, errlen);
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
		rc = db_error(s, rc, what, err, errlen);
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

/* Open @file into @s->db as every store is opened: 0, or a negative errno said in @err. */
static int open_db(struct store *s, const char *file, int flags, char *err, size_t errlen)
{
	/* the connection is this process's own and used by one thread: no serialising mutex */
	int rc = sqlite3_open_v2(file, &s->db, flags | SQLITE_OPEN_NOMUTEX, NULL);

	if (rc)
		return db_error(s, rc, "open", err, errlen);
	sqlite3_busy_timeout(s->db, 5000);
	sqlite3_extended_result_codes(s->db, 1);
	rc = sqlite3_exec(s->db, "PRAGMA foreign_keys = ON; PRAGMA synchronous = FULL", NULL, NULL,
			  NULL);
	return rc ? db_error(s, rc, "open", err, errlen) : 0;
}

/*
 * Make the store @s->path, which does not exist, whole or not at all: its
 * schema is written into PATH.PID.tmp, which then takes the path by link(),
 * so no one sees a store half made; where another writer made the store in
 * the meantime, theirs is kept. A full disk or a folder that cannot be
 * written leaves nothing behind. Return: 0, or a negative errno said in @err.
 */
static int make_store(struct store *s, char *err, size_t errlen)
{
	char tmp[PATH_MAX + 32], journal[PATH_MAX + 48];
	int fd, rc;

	if (snprintf(tmp, sizeof(tmp), "%s.%d.tmp", s->path, (int)getpid()) >= (int)sizeof(tmp)) {
		snprintf(err, errlen, "%s: create: %s", s->path, strerror(ENAMETOOLONG));
		return -EINVAL;
	}
	snprintf(journal, sizeof(journal), "%s-journal", tmp);
	unlink(tmp); /* a temporary of an earlier process of this PID is nobody's */
	unlink(journal);
	/* made here, not by SQLite, whose message would not say why not */
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0) {
		int why = errno;

		snprintf(err, errlen, "%s: create: %s", s->path, strerror(why));
		return why == ENOTDIR ? -EINVAL : -EIO; /* a file named as a folder is the user's */
	}
	close(fd);
	rc = open_db(s, tmp, SQLITE_OPEN_READWRITE, err, errlen);
	if (!rc)
		rc = migrate(s, true, err, errlen);
	sqlite3_close(s->db);
	s->db = NULL;
	if (!rc && link(tmp, s->path) && errno != EEXIST) {
		int why = errno;

		snprintf(err, errlen, "%s: create: %s", s->path, strerror(why));
		rc = -EIO;
	}
	unlink(tmp);
	unlink(journal);
	return rc;
}

int store_open(const char *path, bool create, struct store **out, char *err, size_t errlen)
{
	struct store *s;
	struct stat st;
	int rc;

	*out = NULL;
	if (!create && access(path, F_OK)) {
		snprintf(err, errlen, "%s: no such store", path);
		return -ENOENT;
	}
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->path = strdup(path);
	if (!s->path) {
		rc = -ENOMEM;
		goto free_store;
	}
	if (create && lstat(path, &st) && errno == ENOENT) {
		rc = make_store(s, err, errlen);
		if (rc)
			goto free_path;
	}
	/* an empty file (or a link to none) is made a store in place, as before */
	rc = open_db(s, path, SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0), err, errlen);
	if (!rc)
		rc = migrate(s, create, err, errlen);
	if (rc)
		goto close_db;
	*out = s;
	return 0;
close_db:
	sqlite3_close(s->db);
free_path:
	free(s->unread);
	free(s->path);
free_store:
	free(s);
	return rc;
}

const char *store_error(const struct store *s)
{
	return s->err;
}

void store_set_busy_wait(struct store *s, int ms)
{
	sqlite3_busy_timeout(s->db, ms);
}

void store_close(struct store *s)
{
	if (!s)
		return;
	sqlite3_close(s->db);
	free(s->unread);
	free(s->path);
	free(s);
}

static void now_iso(char *buf, size_t len)
{
	time_t t = time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* Insert one run, its metrics and findings; *added tells whether it was new. */
static int add_one(struct store *s, sqlite3_stmt *run, sqlite3_stmt *metric,
		   struct findings_stmts *fs, const struct run_record *r, const char *now, bool *added)
{
	long long id;
	int rc;

	sqlite3_reset(run);
	bind_text(run, 1, r->key);
	bind_text(run, 2, run_kind_name(r->kind));
	bind_text(run, 3, r->git_rev);
	bind_text(run, 4, r->date);
	bind_text(run, 5, r->host);
	bind_text(run, 6, r->backend);
	bind_text(run, 7, r->trace);
	bind_text(run, 8, r->scenario);
	bind_text(run, 9, r->campaign);
	bind_text(run, 10, r->json);
	bind_text(run, 11, now);
	bind_text(run, 12, r->benchmark ? r->benchmark : run_kind_name(r->kind));
	bind_text(run, 13, r->inputs);
	bind_text(run, 14, r->code);
	rc = sqlite3_step(run);
	if (rc != SQLITE_DONE)
		return rc;
	*added = sqlite3_changes(s->db) > 0;
	if (!*added)
		return SQLITE_OK;
	id = sqlite3_last_insert_rowid(s->db);
	for (size_t i = 0; i < r->nmetrics; i++) {
		sqlite3_reset(metric);
		sqlite3_bind_int64(metric, 1, id);
		bind_text(metric, 2, r->metrics[i].name);
		sqlite3_bind_double(metric, 3, r->metrics[i].value);
		bind_text(metric, 4, r->metrics[i].unit);
		rc = sqlite3_step(metric);
		if (rc != SQLITE_DONE)
			return rc;
	}
	return put_findings(fs, id, r);
}

int store_add(struct store *s, const struct run_record *recs, size_t n, size_t *added, char *err,
	      size_t errlen)
{
	sqlite3_stmt *run = NULL, *metric = NULL;
	struct findings_stmts fs = { 0 };
	char now[32];
	int rc;

	*added = 0;
	now_iso(now, sizeof(now));
	rc = sqlite3_exec(s->db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
	if (rc)
		return db_error(s, rc, "add", err, errlen);
	rc = sqlite3_prepare_v2(s->db,
				"INSERT OR IGNORE INTO runs (key, kind, git_rev, date, host, backend,"
				" trace, scenario, campaign, json, added, benchmark, inputs, code)"
				" VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
				-1, &run, NULL);
	if (!rc)
		rc = sqlite3_prepare_v2(s->db,
					"INSERT OR REPLACE INTO metrics (run, name, value, unit)"
					" VALUES (?, ?, ?, ?)",
					-1, &metric, NULL);
	if (!rc)
		rc = findings_prepare(s, &fs);
	for (size_t i = 0; !rc && i < n; i++) {
		bool is_new = false;

		rc = add_one(s, run, metric, &fs, &recs[i], now, &is_new);
		*added += is_new;
	}
	if (!rc)
		rc = sqlite3_exec(s->db, "COMMIT", NULL, NULL, NULL);
	if (rc) {
		rc = db_error(s, rc, "add", err, errlen);
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
		*added = 0;
	}
	sqlite3_finalize(run);
	sqlite3_finalize(metric);
	findings_finalize(&fs);
	return rc;
}

static const char *col_text(sqlite3_stmt *st, int i)
{
	return (const char *)sqlite3_column_text(st, i);
}

/* Step through @st, calling @row per row; SQLite errors become errnos. */
static int each_row(struct store *s, sqlite3_stmt *st, int (*row)(sqlite3_stmt *st, void *ctx),
		    void *ctx)
{
	int rc;

	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int stop = row(st, ctx);

		if (stop) {
			sqlite3_finalize(st);
			return stop;
		}
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : db_error(s, rc, "read", s->err, sizeof(s->err));
}

/* Run @sql with up to two text parameters (NULL: none), calling @row per row. */
static int query(struct store *s, const char *sql, const char *p1, const char *p2,
		 int (*row)(sqlite3_stmt *st, void *ctx), void *ctx)
{
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(s->db, sql, -1, &st, NULL);

	s->err[0] = '\0';
	if (rc)
		return db_error(s, rc, "read", s->err, sizeof(s->err));
	if (p1)
		sqlite3_bind_text(st, 1, p1, -1, SQLITE_STATIC);
	if (p2)
		sqlite3_bind_text(st, 2, p2, -1, SQLITE_STATIC);
	return each_row(s, st, row, ctx);
}

struct runs_ctx {
	int (*fn)(const struct store_run *run, void *ctx);
	void *ctx;
};

static int run_row(sqlite3_stmt *st, void *ctx)
{
	struct runs_ctx *rc = ctx;
	struct store_run r = {
		.id = sqlite3_column_int64(st, 0), .kind = col_text(st, 1), .key = col_text(st, 2),
		.git_rev = col_text(st, 3), .date = col_text(st, 4), .host = col_text(st, 5),
		.backend = col_text(st, 6), .trace = col_text(st, 7), .scenario = col_text(st, 8),
		.campaign = col_text(st, 9), .nmetrics = sqlite3_column_int64(st, 10),
		.benchmark = col_text(st, 11),
	};

	return rc->fn(&r, rc->ctx);
}

int store_runs(struct store *s, int (*fn)(const struct store_run *run, void *ctx), void *ctx)
{
	struct runs_ctx rc = { fn, ctx };

	return query(s,
		     "SELECT id, kind, key, git_rev, date, host, backend, trace, scenario, campaign,"
		     " (SELECT count(*) FROM metrics WHERE run = runs.id), benchmark FROM runs"
		     " ORDER BY date, id",
		     NULL, NULL, run_row, &rc);
}

int store_points(struct store *s, int (*fn)(const struct store_row *row, void *ctx), void *ctx)
{
	sqlite3_stmt *runs = NULL, *values = NULL;
	int rc, stop = 0;

	s->err[0] = '\0';
	/*
	 * The runs by their index on (benchmark, date, id), then each run's
	 * values by their key (run, name): a run's own columns are read once,
	 * not once per value. The runs statement stays active throughout, so
	 * every read is of one snapshot of the store.
	 */
	rc = sqlite3_prepare_v2(s->db,
				"SELECT id, benchmark, kind, git_rev, date, inputs, code FROM runs"
				" ORDER BY benchmark, date, id",
				-1, &runs, NULL);
	if (!rc)
		rc = sqlite3_prepare_v2(s->db,
					"SELECT name, unit, value FROM metrics WHERE run = ?1 ORDER BY name",
					-1, &values, NULL);
	while (!rc && (rc = sqlite3_step(runs)) == SQLITE_ROW) {
		struct store_row row = {
			.run = sqlite3_column_int64(runs, 0), .benchmark = col_text(runs, 1),
			.kind = col_text(runs, 2), .git_rev = col_text(runs, 3),
			.date = col_text(runs, 4), .inputs = col_text(runs, 5), .code = col_text(runs, 6),
		};

		sqlite3_reset(values);
		sqlite3_bind_int64(values, 1, row.run);
		while ((rc = sqlite3_step(values)) == SQLITE_ROW) {
			row.metric = col_text(values, 0);
			row.unit = col_text(values, 1);
			row.value = sqlite3_column_double(values, 2);
			stop = fn(&row, ctx);
			if (stop)
				goto finalize;
		}
		rc = rc == SQLITE_DONE ? SQLITE_OK : rc;
	}
	if (rc != SQLITE_DONE)
		stop = db_error(s, rc, "read", s->err, sizeof(s->err));
finalize:
	sqlite3_finalize(values);
	sqlite3_finalize(runs);
	return stop;
}

int store_run_json(struct store *s, long long id, char **json)
{
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(s->db, "SELECT json FROM runs WHERE id = ?", -1, &st, NULL);

	*json = NULL;
	if (rc)
		return db_error(s, rc, "read", s->err, sizeof(s->err));
	sqlite3_bind_int64(st, 1, id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*json = strdup(col_text(st, 0) ? col_text(st, 0) : "");
		rc = *json ? 0 : -ENOMEM;
	} else {
		rc = rc == SQLITE_DONE ? -ENOENT : db_error(s, rc, "read", s->err, sizeof(s->err));
	}
	sqlite3_finalize(st);
	return rc;
}

struct revs_ctx {
	char *full;
	size_t len, n;
	char list[256];
};

static int rev_row(sqlite3_stmt *st, void *ctx)
{
	struct revs_ctx *rc = ctx;
	const char *rev = col_text(st, 0);
	size_t used = strlen(rc->list);

	if (!rc->n++)
		snprintf(rc->full, rc->len, "%s", rev);
	snprintf(rc->list + used, sizeof(rc->list) - used, "%s%.12s", used ? ", " : "", rev);
	return 0;
}

int store_rev_resolve(struct store *s, const char *prefix, char *full, size_t len, char *err,
		      size_t errlen)
{
	struct revs_ctx rc = { .full = full, .len = len };
	int ret = query(s,
			"SELECT DISTINCT git_rev FROM runs WHERE substr(git_rev, 1, length(?1)) = ?1"
			" ORDER BY git_rev LIMIT 6",
			prefix, NULL, rev_row, &rc);

	if (ret) {
		snprintf(err, errlen, "%s", s->err[0] ? s->err : strerror(-ret));
		return ret;
	}
	if (!rc.n) {
		snprintf(err, errlen, "no stored run of revision '%s'", prefix);
		return -ENOENT;
	}
	if (rc.n > 1) {
		snprintf(err, errlen, "revision '%s' is ambiguous: it begins %s%s", prefix, rc.list,
			 rc.n > 5 ? ", ..." : "");
		return -EINVAL;
	}
	return 0;
}

/* The runs of a revision, each with its metrics, built row by row. */
struct rev_runs_ctx {
	int (*fn)(const struct run_record *rec, void *ctx);
	void *ctx;
	struct run_record rec;
	long long id;
	size_t cap;
};

static void rev_run_clear(struct rev_runs_ctx *rc)
{
	for (size_t i = 0; i < rc->rec.nmetrics; i++)
		free(rc->rec.metrics[i].name);
	rc->rec.nmetrics = 0;
	free(rc->rec.benchmark);
	free(rc->rec.git_rev);
	free(rc->rec.date);
	free(rc->rec.code);
	free(rc->rec.inputs);
	rc->rec.benchmark = rc->rec.git_rev = rc->rec.date = rc->rec.code = rc->rec.inputs = NULL;
}

/* Hand the run gathered so far to the caller. */
static int rev_run_flush(struct rev_runs_ctx *rc)
{
	int stop = rc->rec.benchmark ? rc->fn(&rc->rec, rc->ctx) : 0;

	rev_run_clear(rc);
	return stop;
}

static int rev_run_row(sqlite3_stmt *st, void *ctx)
{
	struct rev_runs_ctx *rc = ctx;
	long long id = sqlite3_column_int64(st, 0);
	struct run_metric *m;
	int stop;

	if (id != rc->id) {
		stop = rev_run_flush(rc);
		if (stop)
			return stop;
		rc->id = id;
		if (run_kind_parse(col_text(st, 1), &rc->rec.kind))
			return 0; /* unknown kind: skipped, as by store_series_names() */
		rc->rec.benchmark = strdup(col_text(st, 2) ? col_text(st, 2) : "");
		rc->rec.git_rev = strdup(col_text(st, 3) ? col_text(st, 3) : "");
		rc->rec.date = strdup(col_text(st, 4) ? col_text(st, 4) : "");
		rc->rec.code = col_text(st, 8) ? strdup(col_text(st, 8)) : NULL;
		rc->rec.inputs = col_text(st, 9) ? strdup(col_text(st, 9)) : NULL;
		if (!rc->rec.benchmark || !rc->rec.git_rev || !rc->rec.date ||
		    (col_text(st, 8) && !rc->rec.code) || (col_text(st, 9) && !rc->rec.inputs))
			return -ENOMEM;
	}
	if (!rc->rec.benchmark)
		return 0;
	if (array_reserve(&rc->rec.metrics, &rc->cap, rc->rec.nmetrics, sizeof(*rc->rec.metrics)))
		return -ENOMEM;
	m = &rc->rec.metrics[rc->rec.nmetrics];
	m->name = strdup(col_text(st, 5));
	if (!m->name)
		return -ENOMEM;
	m->value = sqlite3_column_double(st, 6);
	snprintf(m->unit, sizeof(m->unit), "%s", col_text(st, 7));
	rc->rec.nmetrics++;
	return 0;
}

int store_rev_runs(struct store *s, const char *rev,
		   int (*fn)(const struct run_record *rec, void *ctx), void *ctx)
{
	struct rev_runs_ctx rc = { .fn = fn, .ctx = ctx, .id = -1 };
	int ret = query(s,
			"SELECT runs.id, kind, benchmark, git_rev, date, name, value, unit, code, inputs"
			" FROM runs JOIN metrics ON metrics.run = runs.id WHERE git_rev = ?1"
			" ORDER BY date, runs.id, name",
			rev, NULL, rev_run_row, &rc);

	if (!ret)
		ret = rev_run_flush(&rc);
	rev_run_clear(&rc);
	free(rc.rec.metrics);
	return ret;
}

struct findings_ctx {
	int (*fn)(const struct store_finding_row *row, void *ctx);
	void *ctx;
};

/* A text column as a record's field: records hold char *, this one is only read. */
static char *col_field(sqlite3_stmt *st, int i)
{
	return (char *)sqlite3_column_text(st, i);
}

static int finding_row(sqlite3_stmt *st, void *ctx)
{
	struct findings_ctx *fc = ctx;
	struct run_finding f = {
		.signature = col_field(st, 6), .key = col_field(st, 7), .title = col_field(st, 8),
		.blame = col_field(st, 9), .outcome = col_field(st, 10), .code = col_field(st, 11),
		.invariants = col_field(st, 12), .point = col_field(st, 13),
		.operation = col_field(st, 14), .runs = sqlite3_column_int64(st, 15),
		.nth_min = sqlite3_column_int64(st, 16), .nth_max = sqlite3_column_int64(st, 17),
		.reproduce = col_field(st, 18), .trimmed = col_field(st, 19),
		.trimmed_events = sqlite3_column_int64(st, 20),
		.trimmed_of = sqlite3_column_int64(st, 21),
	};
	struct store_finding_row row = {
		.run = sqlite3_column_int64(st, 0), .kind = col_text(st, 1),
		.benchmark = col_text(st, 2), .git_rev = col_text(st, 3), .date = col_text(st, 4),
		.nfindings = sqlite3_column_type(st, 5) == SQLITE_NULL ? -1
								       : sqlite3_column_int64(st, 5),
		.f = f.signature ? &f : NULL,
	};

	return fc->fn(&row, fc->ctx);
}

int store_findings(struct store *s, int (*fn)(const struct store_finding_row *row, void *ctx),
		   void *ctx)
{
	struct findings_ctx fc = { fn, ctx };

	return query(s,
		     "SELECT r.id, r.kind, r.benchmark, r.git_rev, r.date, r.nfindings, f.signature,"
		     " f.key, f.title, f.blame, f.outcome, f.code, f.invariants, f.point, f.operation,"
		     " f.runs, f.nth_min, f.nth_max, f.reproduce, f.trimmed, f.trimmed_events,"
		     " f.trimmed_of"
		     " FROM runs AS r LEFT JOIN findings AS f ON f.run = r.id"
		     " WHERE r.kind IN ('campaign', 'sweep')"
		     " ORDER BY r.benchmark, r.date, r.id, f.pos",
		     NULL, NULL, finding_row, &fc);
}

int store_ack_add(struct store *s, const struct store_ack *a, char *err, size_t errlen)
{
	sqlite3_stmt *st;
	char now[32];
	int rc;

	now_iso(now, sizeof(now));
	rc = sqlite3_prepare_v2(s->db,
				"INSERT INTO acks (benchmark, metric, rev, note, added) VALUES (?, ?, ?, ?, ?)",
				-1, &st, NULL);
	if (rc)
		return db_error(s, rc, "ack", err, errlen);
	bind_text(st, 1, a->benchmark);
	bind_text(st, 2, a->metric);
	bind_text(st, 3, a->rev);
	bind_text(st, 4, a->note);
	bind_text(st, 5, now);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : db_error(s, rc, "ack", err, errlen);
}

struct acks_ctx {
	int (*fn)(const struct store_ack *a, void *ctx);
	void *ctx;
};

static int ack_row(sqlite3_stmt *st, void *ctx)
{
	struct acks_ctx *ac = ctx;
	struct store_ack a = {
		.benchmark = col_text(st, 0), .metric = col_text(st, 1), .rev = col_text(st, 2),
		.note = col_text(st, 3), .added = col_text(st, 4),
	};

	return ac->fn(&a, ac->ctx);
}

int store_acks(struct store *s, int (*fn)(const struct store_ack *a, void *ctx), void *ctx)
{
	struct acks_ctx ac = { fn, ctx };

	return query(s, "SELECT benchmark, metric, rev, note, added FROM acks ORDER BY id", NULL, NULL,
		     ack_row, &ac);
}
