/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/array.h"
#include "store_internal.h"

/*
 * Reading the store back: its runs, every value of every series, a run's
 * JSON, the runs of a revision, the findings of campaigns and sweeps, and
 * the acknowledgements; each a query whose rows go to a callback.
 */

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
	return rc == SQLITE_DONE ? 0 : store_db_error(s, rc, "read", s->err, sizeof(s->err));
}

/* Run @sql with up to two text parameters (NULL: none), calling @row per row. */
static int query(struct store *s, const char *sql, const char *p1, const char *p2,
		 int (*row)(sqlite3_stmt *st, void *ctx), void *ctx)
{
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(s->db, sql, -1, &st, NULL);

	s->err[0] = '\0';
	if (rc)
		return store_db_error(s, rc, "read", s->err, sizeof(s->err));
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
		stop = store_db_error(s, rc, "read", s->err, sizeof(s->err));
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
		return store_db_error(s, rc, "read", s->err, sizeof(s->err));
	sqlite3_bind_int64(st, 1, id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*json = strdup(col_text(st, 0) ? col_text(st, 0) : "");
		rc = *json ? 0 : -ENOMEM;
	} else {
		rc = rc == SQLITE_DONE ? -ENOENT : store_db_error(s, rc, "read", s->err, sizeof(s->err));
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
