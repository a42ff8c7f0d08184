/* SPDX-License-Identifier: MIT */
#include <criterion/criterion.h>

#include "bench/metric.h"

Test(metric, which_way_is_better)
{
	cr_assert_eq(metric_better("ops.alloc_mdl.latency_ns.p99", "ns"), METRIC_BETTER_LOWER);
	cr_assert_eq(metric_better("ops.alloc_mdl.count", "count"), METRIC_BETTER_NONE);
	cr_assert_eq(metric_better("ops.alloc_mdl.errors", "count"), METRIC_BETTER_LOWER);
	cr_assert_eq(metric_better("ops.alloc_mdl.latency_ns.overflow", "count"), METRIC_BETTER_LOWER);
	cr_assert_eq(metric_better("power.reset", "count"), METRIC_BETTER_LOWER);
	cr_assert_eq(metric_better("invariants.no_leaks", "bool"), METRIC_BETTER_HIGHER);
	cr_assert_eq(metric_better("replay.cache_speedup", "ratio"), METRIC_BETTER_HIGHER);
	cr_assert_eq(metric_better("replay.ctf_vs_bt2_ratio", "ratio"), METRIC_BETTER_LOWER);
	cr_assert_eq(metric_better("replay.tracing_disabled_overhead", "ratio"), METRIC_BETTER_LOWER);
	cr_assert_eq(metric_better("fbsave.pinned_ratio", "ratio"), METRIC_BETTER_HIGHER);
	cr_assert_eq(metric_better("sweep.runs_per_s", "ops/s"), METRIC_BETTER_HIGHER);
	cr_assert_eq(metric_better("campaign.failed", "count"), METRIC_BETTER_LOWER);
	cr_assert_eq(metric_better("sweep.failures", "count"), METRIC_BETTER_LOWER);
}

Test(metric, wall_clock_is_measured_the_rest_of_a_replay_exact)
{
	cr_assert_eq(metric_class(RUN_RESULTS, "ops.dma.latency_ns.p99"), METRIC_MEASURED);
	cr_assert_eq(metric_class(RUN_RESULTS, "power.longest_stall_ns"), METRIC_MEASURED);
	cr_assert_eq(metric_class(RUN_RESULTS, "power.time_to_complete_ns.p50"), METRIC_MEASURED);
	cr_assert_eq(metric_class(RUN_RESULTS, "ops.dma.modeled_ns.p99"), METRIC_EXACT);
	cr_assert_eq(metric_class(RUN_RESULTS, "ops.dma.count"), METRIC_EXACT);
	cr_assert_eq(metric_class(RUN_RESULTS, "power.reset"), METRIC_EXACT);
	cr_assert_eq(metric_class(RUN_RESULTS, "invariants.no_leaks"), METRIC_EXACT);
	cr_assert_eq(metric_class(RUN_RESULTS, "faults.violations"), METRIC_EXACT);
	/* a benchmark's figures are measured whatever their names */
	cr_assert_eq(metric_class(RUN_BENCH, "faults.disabled_point_ns"), METRIC_MEASURED);
	cr_assert_eq(metric_class(RUN_BENCH, "sweep.fork_s"), METRIC_MEASURED);
	cr_assert_eq(metric_class(RUN_CAMPAIGN, "campaign.failed"), METRIC_EXACT);
	cr_assert_eq(metric_class(RUN_SWEEP, "sweep.iommu/map.violation"), METRIC_EXACT);
}

Test(metric, a_percentile_needs_its_operations_and_a_maximum_is_never_judged)
{
	char count[64];

	cr_assert_eq(metric_support("ops.dma.latency_ns.p99", count, sizeof(count)), 100);
	cr_assert_str_eq(count, "ops.dma.count");
	cr_assert_eq(metric_support("ops.unmap_mdl.latency_ns.p999", count, sizeof(count)), 1000);
	cr_assert_str_eq(count, "ops.unmap_mdl.count");
	cr_assert_eq(metric_support("ops.dma.latency_ns.p90", count, sizeof(count)), 10);
	cr_assert_eq(metric_support("ops.dma.latency_ns.p50", count, sizeof(count)), 2);
	cr_assert_eq(metric_support("ops.dma.latency_ns.mean", count, sizeof(count)), 1);
	cr_assert_eq(metric_support("ops.dma.latency_ns.max", count, sizeof(count)), METRIC_NEVER_JUDGED);
	cr_assert_eq(metric_support("power.longest_stall_ns", count, sizeof(count)), METRIC_NEVER_JUDGED);
	cr_assert_eq(metric_support("power.time_to_complete_ns.p90", count, sizeof(count)), 10);
	cr_assert_str_eq(count, "power.transitions");
	cr_assert_eq(metric_support("replay.ctf_s", count, sizeof(count)), 0);
	cr_assert_str_eq(count, "");
}
