/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_BENCH_COMPARE_H
#define GPUISO_BENCH_COMPARE_H

#include <stdint.h>
#include <stdio.h>

#include "metric.h"
#include "runfile.h"
#include "stats.h"

/*
 * Comparing two sets of runs series by series (a series is one metric of
 * one benchmark). Exact metrics (metric.h) do not vary between runs of the
 * same code and input: any difference is a change, without statistics.
 * Measured ones are judged only on repeated samples (3 or more a side),
 * where the statistic is supported by the operations behind it: a change
 * counts when the Mann-Whitney U test (and, where the history of the series
 * is known, the revision-to-revision noise of its medians) gives p < alpha
 * after the Benjamini-Hochberg adjustment over every measured series
 * judged, and when it is at least the threshold. Only a change in the
 * metric's worse direction is a regression.
 */

/* One series' samples from one side. */
struct compare_sample {
	char *benchmark;
	char *name;
	char unit[16];
	enum run_kind kind;
	double *v;
	size_t n, cap;
	uint64_t ops; /* fewest operations behind one value (metric_support()), or UINT64_MAX */
	char *ran;    /* the code and inputs all its runs had ("CODE\nINPUTS"), or NULL: unknown or mixed */
	bool mixed;   /* its runs had different code or inputs, or did not say */
};

struct compare_sample_set {
	struct compare_sample *s;
	size_t n, cap;
};

/**
 * compare_sample_set_add() - add one value of a series.
 * @set: the set.
 * @benchmark: the benchmark.
 * @kind: the kind of run it came from.
 * @name: the metric.
 * @unit: its unit.
 * @value: the value.
 * @ops: how many operations the value summarises (UINT64_MAX: not counted).
 *
 * Return: 0, -ENOMEM.
 */
int compare_sample_set_add(struct compare_sample_set *set, const char *benchmark,
			   enum run_kind kind, const char *name, const char *unit, double value,
			   uint64_t ops);

/**
 * compare_sample_set_add_run() - add every metric of a run, with the
 * operation counts of the run behind its percentiles.
 * @set: the set.
 * @rec: the run (its benchmark, or its kind's name when it has none).
 *
 * Return: 0, -ENOMEM.
 */
int compare_sample_set_add_run(struct compare_sample_set *set, const struct run_record *rec);

/**
 * compare_sample_set_benchmarks() - how many benchmarks a set holds.
 * @set: the set.
 * @one: out: one of them (NULL for none).
 *
 * Return: the number.
 */
size_t compare_sample_set_benchmarks(const struct compare_sample_set *set, const char **one);

/** compare_sample_set_free() - free a set. @set: the set. */
void compare_sample_set_free(struct compare_sample_set *set);

enum compare_verdict {
	COMPARE_SAME,
	COMPARE_IMPROVED,
	COMPARE_REGRESSED,
	COMPARE_CHANGED,     /* a significant change of a metric that is better neither way */
	COMPARE_ONLY_BEFORE,
	COMPARE_ONLY_AFTER,
	COMPARE_UNJUDGED,    /* measured, but not judgeable: too few samples or operations, a maximum */
	COMPARE_VARIES,      /* exact, yet its samples differ within a side */
};

/* How much a measured series moves between revisions, from its history. */
struct compare_series_noise {
	double sigma;     /* standard deviation of the log of its per-revision medians */
	size_t revisions; /* how many revisions that was estimated from (0: unknown) */
};

struct compare_opts {
	double alpha;       /* significance, after adjustment (0.05) */
	double threshold;   /* smallest relative change of a measured metric that counts */
	bool threshold_set; /* given by the user: it then judges measured series with few samples */
	const char *glob;   /* only metrics matching it, or NULL */
	bool all;           /* print unchanged metrics too */
	bool across;        /* match series by metric alone (each side is one benchmark, not the same) */
	bool code_tracked;  /* revisions of a store: a measured difference between runs of the
			     * same code on the same inputs is the machine's, not judged */
	/* the between-revision noise of a measured series; NULL, or -ENOENT: unknown */
	int (*noise)(const char *benchmark, const char *metric, struct compare_series_noise *out,
		     void *ctx);
	void *noise_ctx;
};

struct compare_row {
	const char *benchmark, *name, *unit;
	bool exact;
	double before, after; /* medians */
	double change;        /* (after - before) / |before|, or NAN */
	double ci_lo, ci_hi;  /* 95% interval of the change of the mean, relative; NAN if none */
	double p;             /* adjusted p of a judged measured series, or NAN */
	size_t nbefore, nafter;
	enum compare_verdict verdict;
	bool history;         /* judged against the history's revision-to-revision noise too */
	char why[96];         /* why unjudged, or how an exact metric varies */
};

/**
 * compare_sets() - compare @after against @before, series by series.
 * @before: the reference.
 * @after: the candidate.
 * @o: options.
 * @rows: out: one row per series (free() it), regressions first.
 * @nrows: out: how many.
 *
 * Return: 0, -ENOMEM, or what @o->noise returned other than -ENOENT.
 */
int compare_sets(const struct compare_sample_set *before, const struct compare_sample_set *after,
		 const struct compare_opts *o, struct compare_row **rows, size_t *nrows);

/**
 * compare_print() - the table, benchmark by benchmark: metric, before,
 * after, change, test, verdict.
 * @rows: from compare_sets().
 * @n: how many.
 * @o: options (@o->all: unchanged metrics too).
 * @f: where.
 *
 * Return: the number of regressions.
 */
size_t compare_print(const struct compare_row *rows, size_t n, const struct compare_opts *o, FILE *f);

/** compare_verdict_name() - "REGRESSED", "improved", ... @v: the verdict. */
const char *compare_verdict_name(enum compare_verdict v);

/**
 * compare_change_verdict() - the verdict of a real change of a metric.
 * @name: the metric.
 * @unit: its unit.
 * @change: the relative change (its sign matters).
 *
 * Return: COMPARE_REGRESSED, COMPARE_IMPROVED, COMPARE_CHANGED (better neither way), or
 * COMPARE_SAME for no change.
 */
enum compare_verdict compare_change_verdict(const char *name, const char *unit, double change);

/**
 * compare_rel_change() - (@after - @before) / |@before|, infinite from 0.
 * @before: the old value.
 * @after: the new one.
 *
 * Return: the relative change.
 */
double compare_rel_change(double before, double after);


#endif
