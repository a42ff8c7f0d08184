/* SPDX-License-Identifier: MIT */
#include <sqlite3.h>
#include <stdbool.h>
#include <stdio.h>
#include <time.h>

#include "store_internal.h"

/*
 * Writing to the store: runs with their metrics and findings, each call one
 * transaction, and acknowledgements.
 */

static void bind_text(sqlite3_stmt *st, int i, const char *v)
{
	if (v)
		sqlite3_bind_text(st, i, v, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, i);
}

int store_findings_prepare(struct store *s, struct store_findings_stmts *fs)
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

void store_findings_finalize(struct store_findings_stmts *fs)
{
	sqlite3_finalize(fs->finding);
	sqlite3_finalize(fs->count);
}

/* Keep the findings of run @id, as its file @r lists them (none when it lists none). */
int store_put_findings(struct store_findings_stmts *fs, long long id, const struct run_record *r)
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

static void now_iso(char *buf, size_t len)
{
	time_t t = time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* Insert one run, its metrics and findings; *added tells whether it was new. */
static int add_one(struct store *s, sqlite3_stmt *run, sqlite3_stmt *metric,
		   struct store_findings_stmts *fs, const struct run_record *r, const char *now,
		   bool *added)
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
	return store_put_findings(fs, id, r);
}

int store_add(struct store *s, const struct run_record *recs, size_t n, size_t *added, char *err,
	      size_t errlen)
{
	sqlite3_stmt *run = NULL, *metric = NULL;
	struct store_findings_stmts fs = { 0 };
	char now[32];
	int rc;

	*added = 0;
	now_iso(now, sizeof(now));
	rc = sqlite3_exec(s->db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
	if (rc)
		return store_db_error(s, rc, "add", err, errlen);
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
		rc = store_findings_prepare(s, &fs);
	for (size_t i = 0; !rc && i < n; i++) {
		bool is_new = false;

		rc = add_one(s, run, metric, &fs, &recs[i], now, &is_new);
		*added += is_new;
	}
	if (!rc)
		rc = sqlite3_exec(s->db, "COMMIT", NULL, NULL, NULL);
	if (rc) {
		rc = store_db_error(s, rc, "add", err, errlen);
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
		*added = 0;
	}
	sqlite3_finalize(run);
	sqlite3_finalize(metric);
	store_findings_finalize(&fs);
	return rc;
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
		return store_db_error(s, rc, "ack", err, errlen);
	bind_text(st, 1, a->benchmark);
	bind_text(st, 2, a->metric);
	bind_text(st, 3, a->rev);
	bind_text(st, 4, a->note);
	bind_text(st, 5, now);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : store_db_error(s, rc, "ack", err, errlen);
}

