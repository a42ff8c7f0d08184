/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_BENCH_METRIC_H
#define GPUISO_BENCH_METRIC_H

#include <stddef.h>
#include <stdint.h>

#include "runfile.h"

/*
 * What a metric's figures mean for a verdict: which way is better, whether
 * they are exact (the same on every run of the same code and input: modeled
 * device time, counts, checks, findings) or measured (wall clock, which
 * varies from run to run), and for a measured statistic of a latency
 * distribution, how many operations a sample must summarise before the
 * statistic means something.
 */

/* Whether a metric is better high, better low, or neither (a count of what the trace did). */
enum metric_better { METRIC_BETTER_NONE, METRIC_BETTER_LOWER, METRIC_BETTER_HIGHER };

enum metric_class { METRIC_EXACT, METRIC_MEASURED };

/*
 * The smallest relative change of a measured metric that counts, unless a
 * user says otherwise: the same binary's wall-clock levels were seen to move
 * by 11% and 15% for nights on end on machines of this project's kind
 * (docs/results-store.md), with t-test p below 1e-4.
 */
#define METRIC_MEASURED_THRESHOLD 0.20

/* metric_support(): a statistic that no count of operations supports (a maximum). */
#define METRIC_NEVER_JUDGED UINT64_MAX

/**
 * metric_better() - which way a metric improves, from its name and unit:
 * latencies, times, errors and failures are better low; throughputs,
 * speedups and held invariants high; counts of what the workload did neither.
 * @name: the metric.
 * @unit: its unit.
 *
 * Return: the direction.
 */
enum metric_better metric_better(const char *name, const char *unit);

/**
 * metric_class() - whether a metric of a run of @kind is exact or measured:
 * benchmark figures and wall-clock times of replays (latency_ns, the
 * longest stall, time to complete a transition) are measured; everything
 * else a replay, campaign or sweep reports is exact.
 * @kind: the kind of run it comes from.
 * @name: the metric.
 *
 * Return: the class.
 */
enum metric_class metric_class(enum run_kind kind, const char *name);

/**
 * metric_support() - how many operations each sample of a measured
 * statistic must summarise for a change of it to be judged: a p99 over
 * fewer than 100 operations is its largest value or near it.
 * @name: the metric (ops.OP.latency_ns.p99, power.time_to_complete_ns.p50).
 * @count: out: the metric of the same run that holds that number of
 *         operations (ops.OP.count), or "" when none is needed.
 * @len: size of @count.
 *
 * Return: 0 when any sample will do, METRIC_NEVER_JUDGED for a maximum
 * (one preemption away from any value), else the operations needed.
 */
uint64_t metric_support(const char *name, char *count, size_t len);

#endif
