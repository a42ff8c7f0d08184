/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_BENCH_BENCH_H
#define GPUISO_BENCH_BENCH_H

#include <stdio.h>

#include "common/types.h"

/*
 * Benchmarks: each suite measures in one process and reports named metrics
 * (bench JSON contract gpuiso-bench/1). Targets are checked as ratios
 * against a reference measured in the same run, never as timed tests.
 */

#define BENCH_MAX_METRICS 64

struct bench_metric {
	char name[64];
	double value;
	const char *unit; /* "ns", "ratio", "GB/s", "ops/s", "s" or "MiB" */
	char note[96];    /* shown in the table only */
};

struct bench_report {
	struct bench_metric m[BENCH_MAX_METRICS];
	size_t n;
	FILE *progress; /* where to say what is being measured, or NULL */
	const char *suite; /* its name, for the JSON */
	const char *notes; /* what the figures were measured on, for the JSON, or NULL */
};

/**
 * bench_add() - record one metric.
 * @r: the report.
 * @name: metric name, e.g. "sim.map_unmap_4k_ns".
 * @value: the figure.
 * @unit: its unit (one of the contract's).
 * @note: a remark for the table, or NULL.
 */
void bench_add(struct bench_report *r, const char *name, double value, const char *unit,
	       const char *note);

/**
 * bench_write_json() - write the report as gpuiso-bench/1, atomically.
 * @r: the report.
 * @path: the file (written as json_write_file() does).
 *
 * Return: 0 or a negative errno.
 */
int bench_write_json(const struct bench_report *r, const char *path);

/* A named suite; suites of other libraries (replay) register with the command. */
struct bench_suite {
	const char *name;
	int (*run)(struct bench_report *r);
};

/**
 * bench_main() - run a suite, print its table to @out, optionally write JSON.
 * @suites: the suites there are.
 * @nsuites: how many.
 * @suite: the one to run.
 * @json_path: where to write the JSON, or NULL.
 * @out: the table's destination.
 *
 * Return: 0, -ENOENT for an unknown suite, -EIO when the JSON could not be
 * written (said on stderr), other negative errno of the suite.
 */
int bench_main(const struct bench_suite *suites, size_t nsuites, const char *suite,
	       const char *json_path, FILE *out);

/**
 * bench_progress() - say what is being measured (when someone is watching).
 * @r: the report.
 * @what: the text.
 */
void bench_progress(const struct bench_report *r, const char *what);


#endif
