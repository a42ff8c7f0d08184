/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_BENCH_HISTORY_H
#define GPUISO_BENCH_HISTORY_H

#include <stdbool.h>
#include <stddef.h>

#include "compare.h"
#include "store.h"

/*
 * The history of every stored series (one metric of one benchmark), by
 * revision: consecutive runs of one revision are its samples, their median
 * its value. Where the level changed:
 *
 * - an exact series changes at the first revision whose value differs from
 *   the one before, whatever the size;
 * - a measured series is searched for changes of level by E-divisive means
 *   over its per-revision medians (stats.h), each kept when its t-test
 *   passes alpha divided by the number of measured series searched, and
 *   when it is at least the threshold.
 *
 * A series raises an alarm when its last change made it worse and nobody
 * acknowledged that change (store_ack_add()). A change at a revision whose
 * run read an input (trace, scenario ...) of other content than the
 * revision before says so: the change is explained. A measured change
 * around which (a level's length, 3 revisions, either side) every revision
 * ran the same code (source tree and build) on the same inputs is the
 * machine's, not the code's: it is listed, and raises no alarm.
 */

/* One revision in a series: its runs, in a row. Its strings are the history's. */
struct history_rev {
	const char *rev;
	const char *date;   /* of its first run */
	const double *v;    /* its runs' values (in its series' values) */
	size_t n;
	double value;       /* their median */
	const char *inputs; /* the input digests of its last run (runfile.h), or NULL */
	const char *code;   /* the code its last run ran (runfile.h), or NULL */
	char *changed;      /* the inputs whose content differs from the revision before, or NULL */
};

struct history_change {
	size_t at;             /* the first revision of the new level (its index in the series) */
	double before, after;  /* the values (exact), or the means of the two levels (measured) */
	double change;         /* relative */
	double ci_lo, ci_hi;   /* 95% interval of the change, relative (measured), or NAN */
	double p;              /* the test's p (measured), or NAN (exact) */
	enum compare_verdict verdict;
	bool machine;          /* the same code and inputs on both sides: the machine's change
				* (measured), or a failure of determinism (exact) */
	const char *ack_note;  /* the note of the acknowledgement that covers it, or NULL */
};

struct series {
	char *benchmark, *metric;
	char unit[16];
	enum run_kind kind;
	bool exact;
	char unjudged[96];     /* a measured series not searched: why; "" otherwise */
	bool varies;           /* exact, yet the runs of some revision differ */
	struct history_rev *revs;
	size_t nrevs, revs_cap;
	double *values;        /* every run's value, in run order: the revisions' in a row */
	size_t nvalues, values_cap;
	struct history_change *changes;
	size_t nchanges, changes_cap;
	bool alarm;            /* its last change made it worse, unacknowledged */
};

struct history_opts {
	double alpha;          /* significance of a measured change (0.01) */
	double threshold;      /* smallest relative change of a measured series */
	const char *metric;    /* glob, or NULL for every metric */
	const char *benchmark; /* glob, or NULL for every benchmark */
};

/* What changes, alarms and the dashboard judge by unless told otherwise. */
#define HISTORY_OPTS_DEFAULT { .alpha = 0.01, .threshold = METRIC_MEASURED_THRESHOLD }

struct history {
	struct series *s;
	size_t n, cap;
	size_t searched;       /* measured series of the store that can be searched, shown or not */
	struct history_ack {
		char *benchmark, *metric, *rev, *note, *added;
	} *acks;
	size_t nacks, acks_cap;
	char **strs;           /* the revisions' revisions, dates, inputs and code, each kept once */
	size_t nstrs, strs_cap;
};

/**
 * history_load() - every series of @s matching @o's globs, with its changes.
 * @s: the store.
 * @o: options.
 * @h: out: the history (history_free() it, also on error).
 *
 * Return: 0, -ENOMEM, -EIO.
 */
int history_load(struct store *s, const struct history_opts *o, struct history *h);

/** history_free() - free a history. @h: the history. */
void history_free(struct history *h);

/**
 * history_find() - a series of the history.
 * @h: the history.
 * @benchmark: its benchmark.
 * @metric: its metric.
 *
 * Return: the series, or NULL.
 */
struct series *history_find(const struct history *h, const char *benchmark, const char *metric);

/**
 * history_change_claims() - whether a change of @sr is a claim about the
 * code: not acknowledged, and not a measured change of the same code on
 * the same inputs (the machine's). The last change of a series raises an
 * alarm when it claims a regression.
 * @sr: the series.
 * @c: one of its changes.
 *
 * Return: true when it claims.
 */
bool history_change_claims(const struct series *sr, const struct history_change *c);

/**
 * history_alarms() - how many series raise an alarm.
 * @h: the history.
 *
 * Return: the count.
 */
size_t history_alarms(const struct history *h);

/**
 * history_samples() - the runs of revisions @before and @after of a store
 * as two sample sets, to compare with compare_sets(); with
 * history_noise() as the options' noise, for the between-revision noise of
 * each measured series from a history (struct history_noise_ctx).
 * @s: the store.
 * @before: a revision as stored.
 * @after: another.
 * @b: out: the runs of @before (compare_sample_set_free() it).
 * @a: out: the runs of @after (compare_sample_set_free() it).
 *
 * Return: 0, -ENOMEM, -EIO.
 */
int history_samples(struct store *s, const char *before, const char *after,
		    struct compare_sample_set *b, struct compare_sample_set *a);

/* What history_noise() needs: the history and the two revisions compared. */
struct history_noise_ctx {
	const struct history *h;
	const char *before, *after;
};

/**
 * history_noise() - the revision-to-revision noise of a measured series:
 * the standard deviation of the log of its per-revision medians, over the
 * revisions other than the two compared (compare_opts.noise).
 * @benchmark: the benchmark.
 * @metric: the metric.
 * @out: out: the noise.
 * @ctx: a struct history_noise_ctx.
 *
 * Return: 0, or -ENOENT when the series has no other revision with a
 * positive value.
 */
int history_noise(const char *benchmark, const char *metric, struct compare_series_noise *out,
		  void *ctx);

/* The two sides of a comparison, from a store's revisions or from run files. */
struct history_sides {
	struct compare_sample_set before, after;
	struct history h;            /* from a store: for the noise of measured series */
	struct history_noise_ctx nc;
	char rev[2][128];            /* from a store: the revisions as stored */
	const char *across[2];       /* two files of two different benchmarks: their names */
};

/**
 * history_sides_load() - what `gpuiso compare` compares: with a store, the
 * runs of two revisions and the history whose noise judges measured series
 * (set into @o); without, the run files and folders given, and whether they
 * are two different benchmarks compared on purpose (@o->across).
 * @cs: out: the sides (zeroed first); history_sides_free() it.
 * @s: a store, or NULL for run files.
 * @sides: two revisions (with @s), or two files or folders.
 * @o: in/out: the options the comparison takes.
 * @err: out: why not.
 * @errlen: size of @err.
 *
 * Return: 0, -ENOENT (an unknown revision, no run file), -EINVAL (a refused
 * run file), -ENOMEM, or a store's error.
 */
int history_sides_load(struct history_sides *cs, struct store *s, char *const sides[2],
		       struct compare_opts *o, char *err, size_t errlen);

/** history_sides_free() - free both sides and the history. @cs: loaded, or zeroed. */
void history_sides_free(struct history_sides *cs);

#endif
