/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_BENCH_RUNFILE_H
#define GPUISO_BENCH_RUNFILE_H

#include <stdbool.h>
#include <stddef.h>

#include "common/progress.h"

/*
 * The JSON files a run leaves behind, read back for the results store and
 * for comparisons: results (gpuiso-results/1), benchmarks (gpuiso-bench/1),
 * campaign summaries (gpuiso-campaign/1) and sweep summaries
 * (gpuiso-sweep/1). Each becomes a record: who made it (tags) and its
 * numbers as flat metrics ("ops.alloc_mdl.latency_ns.p99",
 * "sim.map_unmap_4k_ns", "campaign.failed").
 */

enum run_kind { RUN_RESULTS, RUN_BENCH, RUN_CAMPAIGN, RUN_SWEEP };

struct run_metric {
	char *name;
	double value;
	char unit[16]; /* "ns", "s", "ratio", "ops/s", "GB/s", "MiB", "count", "bytes", "bool" */
};

/* A failing run of a campaign, or a failing hit of a sweep. */
struct run_failure {
	char *what;      /* campaign: the run's id (else its name); sweep: "POINT #NTH" */
	char *why;       /* campaign: the reason; sweep: the outcome */
	char *reproduce; /* the command that reproduces it */
};

/*
 * An operation a finding's fault was injected in: the same failure met
 * during another operation is the same finding, in another context.
 */
struct run_context {
	char *operation;            /* the operation ("start" before the first event) */
	long long runs;             /* how many of the finding's runs were in it (1 or more) */
	long long nth_min, nth_max; /* a sweep's hits failed in it, first and last; 0 in campaigns */
};

/*
 * A finding of a campaign or sweep: its failing runs grouped by what broke
 * ("findings" in the summary). Text fields are NULL where the file has null.
 */
struct run_finding {
	char *signature;  /* 16 lowercase hex digits, the same on every night and machine */
	char *key;        /* what the signature is a digest of, readable */
	char *title;      /* UTF-8 */
	char *blame;      /* "fault", "driver", "model" or "none" */
	char *outcome;    /* reset, violation, crash (sweeps), hung; failed (a campaign run that
			   * could not be replayed, or any failed campaign run in older files) */
	char *code;       /* the violation's code, or NULL */
	char *invariants; /* the broken invariants, comma-separated ("" for none) */
	char *point, *operation; /* the injection point and the operation, or NULL */
	long long runs;   /* how many runs it groups (1 or more) */
	long long nth_min, nth_max; /* a sweep's hits failed, first and last; 0 in campaigns */
	char *reproduce;  /* the command that reproduces it */
	char *trimmed;    /* the trimmed trace that still shows it, or NULL */
	long long trimmed_events, trimmed_of; /* its events, of the whole trace's */
	struct run_context *contexts; /* by operation name, as the file lists them; none in
				       * summaries written before contexts (and in the store's
				       * findings table, which keeps none: findings.h reads them) */
	size_t ncontexts;
};

struct run_record {
	enum run_kind kind;
	char *key;   /* identity: adding the same run again is recognised by it */
	char *git_rev, *date, *host, *backend, *trace, *scenario, *campaign; /* NULL when unknown */
	char *benchmark; /* what was run: kind, the names it was run with, host (see runfile_read()) */
	char *inputs;    /* "PATH=DIGEST" a line for each input file, or NULL when not recorded */
	char *code;      /* the source tree and build that ran ("TREE BUILD"), or NULL */
	char *json;  /* the file's text, kept whole */
	char *baseline; /* a sweep's outcome where nothing fails, or NULL */
	struct run_metric *metrics;
	size_t nmetrics;
	struct run_failure *failures; /* a campaign's or sweep's (fields NULL when absent) */
	size_t nfailures;
	bool findings_recorded;       /* a campaign's or sweep's file lists its findings (older
				       * summaries do not: nothing is known of them then) */
	struct run_finding *findings; /* in the file's order */
	size_t nfindings;
};

/**
 * runfile_read() - read and check one run file.
 * @path: the file.
 * @rec: out: the record (runfile_free() it on success).
 * @err: out: why it was refused, with "FILE:LINE:COL" where it applies.
 * @errlen: size of @err.
 *
 * Return: 0; -ENOENT (cannot open), -EINVAL (not JSON, or not a run file:
 * a foreign document, a missing field), -EPROTO (a newer schema version
 * than this gpuiso reads), -ENOMEM.
 */
int runfile_read(const char *path, struct run_record *rec, char *err, size_t errlen);

/**
 * runfile_parse() - runfile_read() of a run file's text, as a store keeps
 * it: everything but the key and date of the kinds whose key comes from
 * the file (bench, campaign, sweep; those stay NULL).
 * @name: what messages call it.
 * @json: the text.
 * @rec: out: the record (runfile_free() it on success).
 * @err: out: why it was refused.
 * @errlen: size of @err.
 *
 * Return: as runfile_read().
 */
int runfile_parse(const char *name, const char *json, struct run_record *rec, char *err,
		  size_t errlen);

/**
 * runfile_value() - the value of a record's metric.
 * @rec: the record.
 * @name: the metric ("campaign.failed").
 *
 * Return: its value, or NAN when @rec has none of that name.
 */
double runfile_value(const struct run_record *rec, const char *name);

/**
 * run_finding_copy() - a deep copy of a finding, contexts included.
 * @dst: out: the copy (run_finding_free() it, whatever the return).
 * @src: the finding.
 *
 * Return: 0 or -ENOMEM.
 */
int run_finding_copy(struct run_finding *dst, const struct run_finding *src);

/** run_finding_free() - free a finding's fields and zero it. @f: the finding. */
void run_finding_free(struct run_finding *f);

/** runfile_free() - free a record's contents. @rec: the record. */
void runfile_free(struct run_record *rec);

/* Run files read from paths given on a command line. */
struct runfile_set {
	struct run_record *r;
	size_t n, cap;
	struct progress *progress; /* shown as each file is read, or NULL */
};

/**
 * runfile_read_path() - read a run file, or every *.json below a folder (in
 * name order, subfolders included), appending each to @set.
 * @path: a file or a folder.
 * @set: the records so far (zeroed at first); runfile_set_free() it.
 * @err: out: why not: the path, or the refused file with FILE:LINE:COL.
 * @errlen: size of @err.
 *
 * Return: 0, -ENOENT (no such path), -EINVAL (a refused file), -ENOMEM.
 * Files read before an error stay in @set.
 */
int runfile_read_path(const char *path, struct runfile_set *set, char *err, size_t errlen);

/** runfile_set_free() - free every record of @set and the set itself. @set: the set. */
void runfile_set_free(struct runfile_set *set);

/** run_kind_name() - "results", "bench", "campaign" or "sweep". @kind: the kind. */
const char *run_kind_name(enum run_kind kind);

/**
 * run_kind_parse() - the kind run_kind_name() calls @name.
 * @name: the name, or NULL.
 * @kind: out: the kind.
 *
 * Return: 0, or -EINVAL for no kind.
 */
int run_kind_parse(const char *name, enum run_kind *kind);

/**
 * runfile_date_ok() - whether @s is a date as the store keeps them: a UTC
 * time, YYYY-MM-DDTHH:MM:SS[.fraction]Z, with fields in their ranges.
 * @s: the text, or NULL.
 *
 * Return: true when it is.
 */
bool runfile_date_ok(const char *s);

#endif
