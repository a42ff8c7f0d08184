/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_BENCH_SUITES_SUITES_H
#define GPUISO_BENCH_SUITES_SUITES_H

#include "bench/bench.h"

/*
 * The suites of `gpuiso bench`: they drive the model and the replay, so
 * they sit above both, beside the CLI; the reports they fill are bench/'s
 * (which depends on common/ alone). docs/benchmarks.md says what each measures.
 */

/**
 * bench_suite_micro() - the micro suite: IOMMU map/unmap through the backend
 * ops, large-page maps, a core MDL cycle, what disabled injection points and
 * tracepoints cost, and frame-buffer save paths against memcpy.
 * @r: out: metrics.
 *
 * Return: 0 or a negative errno.
 */
int bench_suite_micro(struct bench_report *r);

/**
 * bench_suite_replay() - the replay suite: CTF replay against babeltrace2's
 * own decoding, the compiled cache, peak memory of a 10M-event replay, and
 * what disabled tracepoints cost.
 * @r: out: metrics.
 *
 * Return: 0 or a negative errno.
 */
int bench_suite_replay(struct bench_report *r);

/*
 * The scenario of the replay and floor suites: default.yaml with a 1 MiB
 * frame-buffer save area (they measure replay, not 64 MiB saves).
 */
extern const char bench_replay_scenario[];

/**
 * bench_suite_floor() - the floor suite: a replay of 1M desktop events from
 * the compiled cache against the same simulator operations and live-map
 * lookups replayed alone (recorded in a pass of their own), alternately.
 * @r: out: metrics.
 *
 * Return: 0, or a negative errno (-ENOTRECOVERABLE, gpuiso's own fault,
 * when the floor did not do the model's simulator work: its counters differ).
 */
int bench_suite_floor(struct bench_report *r);

#endif
