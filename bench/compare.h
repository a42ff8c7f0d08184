/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_BENCH_COMPARE_H
#define GPUISO_BENCH_COMPARE_H

#include <stdio.h>

#include "metric.h"
#include "runfile.h"
#include "stats.h"
#include "store.h"

/*
 * Comparing two sets of runs metric by metric, and finding where a metric's
 * history changed level. A side is one or more runs: with repeated samples
 * on both sides a change is significant when the Mann-Whitney U test says so;
 * with one sample on a side, when it exceeds a relative threshold. Only a
 * change in the metric's worse direction (metric_better()) is a regression.
 */

/* One metric's samples from one side. */
struct sample {
	char *name;
	char unit[16];
	double *v;
	size_t n, cap;
};

struct sample_set {
	struct sample *s;
	size_t n, cap;
};

/**
 * sample_set_add() - add one value of a metric.
 * @set: the set.
 * @name: the metric.
 * @unit: its unit.
 * @value: the value.
 *
 * Return: 0, -ENOMEM.
 */
int sample_set_add(struct sample_set *set, const char *name, const char *unit, double value);

/**
 * sample_set_add_run() - add every metric of a run.
 * @set: the set.
 * @rec: the run.
 *
 * Return: 0, -ENOMEM.
 */
int sample_set_add_run(struct sample_set *set, const struct run_record *rec);

/** sample_set_free() - free a set. @set: the set. */
void sample_set_free(struct sample_set *set);

enum verdict { V_SAME, V_IMPROVED, V_REGRESSED, V_CHANGED, V_ONLY_BEFORE, V_ONLY_AFTER };

struct compare_opts {
	double alpha;     /* significance for repeated samples (0.05) */
	double threshold; /* relative change that counts with one sample (0.10) */
	const char *glob; /* only metrics matching it, or NULL */
	bool all;         /* print unchanged metrics too */
};

struct compare_row {
	const char *name, *unit;
	double before, after; /* medians */
	double change;        /* (after - before) / |before|, or NAN */
	double p;             /* Mann-Whitney p, or NAN with one sample */
	size_t nbefore, nafter;
	enum verdict verdict;
};

/**
 * compare_sets() - compare @after against @before.
 * @before: the reference.
 * @after: the candidate.
 * @o: options.
 * @rows: out: one row per metric (free() it), regressions first.
 * @nrows: out: how many.
 *
 * Return: 0, -ENOMEM.
 */
int compare_sets(const struct sample_set *before, const struct sample_set *after,
		 const struct compare_opts *o, struct compare_row **rows, size_t *nrows);

/**
 * compare_print() - the table: metric, before, after, change, test, verdict.
 * @rows: from compare_sets().
 * @n: how many.
 * @o: options (@all).
 * @f: where.
 *
 * Return: the number of regressions.
 */
size_t compare_print(const struct compare_row *rows, size_t n, const struct compare_opts *o, FILE *f);

/** verdict_name() - "regressed", "improved", ... @v: the verdict. */
const char *verdict_name(enum verdict v);

/* A change point found in a stored metric's history. */
struct history_change {
	char metric[160];
	char unit[16];
	char rev[48];  /* the revision of the first run of the new level */
	char date[32];
	struct change_point cp;
	double change; /* (after - before) / |before| */
	enum verdict verdict;
};

/**
 * store_changes() - change points of every stored metric matching @glob.
 * @s: the store.
 * @glob: metric glob, or NULL for all.
 * @alpha: significance of each change.
 * @out: out: the changes (free() it), metric by metric, in time order.
 * @n: out: how many.
 *
 * Return: 0 or a negative errno.
 */
int store_changes(struct store *s, const char *glob, double alpha, struct history_change **out,
		  size_t *n);

#endif
