/* SPDX-License-Identifier: MIT */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench/compare.h"
#include "common/types.h"

#define BENCH "results trace=t backend=sim host=h"

static const struct compare_row *row(const struct compare_row *rows, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(rows[i].name, name))
			return &rows[i];
	cr_assert_fail("no row %s", name);
	return NULL;
}

/* @n values of a replay's metric: @base, @base + @step ... (ops: the operations behind each). */
static void add_values(struct compare_sample_set *set, const char *name, double base, double step,
		       int n, uint64_t ops)
{
	for (int i = 0; i < n; i++)
		cr_assert_eq(compare_sample_set_add(set, BENCH, RUN_RESULTS, name, "ns",
						    base + step * i, ops), 0);
}

Test(compare, exact_metrics_change_whatever_the_size)
{
	struct compare_sample_set a = { 0 }, b = { 0 };
	struct compare_opts o = { .alpha = 0.05, .threshold = 0.10 };
	struct compare_row *rows;
	size_t n;

	add_values(&a, "ops.x.modeled_ns.p99", 1000, 0, 1, UINT64_MAX);
	add_values(&b, "ops.x.modeled_ns.p99", 1200, 0, 1, UINT64_MAX); /* +20%: worse */
	add_values(&a, "ops.y.modeled_ns.p99", 1000, 0, 1, UINT64_MAX);
	add_values(&b, "ops.y.modeled_ns.p99", 1001, 0, 1, UINT64_MAX); /* +0.1%: worse all the same */
	compare_sample_set_add(&a, BENCH, RUN_RESULTS, "ops.x.count", "count", 10, UINT64_MAX);
	compare_sample_set_add(&b, BENCH, RUN_RESULTS, "ops.x.count", "count", 20,
			       UINT64_MAX); /* neither */
	compare_sample_set_add(&a, BENCH, RUN_RESULTS, "invariants.no_leaks", "bool", 1,
			       UINT64_MAX);
	compare_sample_set_add(&b, BENCH, RUN_RESULTS, "invariants.no_leaks", "bool", 1,
			       UINT64_MAX);
	add_values(&a, "gone", 1, 0, 1, UINT64_MAX);
	cr_assert_eq(compare_sets(&a, &b, &o, &rows, &n), 0);
	cr_assert_eq(n, 5);
	cr_assert_eq(rows[0].verdict, COMPARE_REGRESSED, "regressions first");
	cr_assert_float_eq(row(rows, n, "ops.x.modeled_ns.p99")->change, 0.2, 1e-12);
	cr_assert_eq(row(rows, n, "ops.y.modeled_ns.p99")->verdict, COMPARE_REGRESSED);
	cr_assert(row(rows, n, "ops.y.modeled_ns.p99")->exact);
	cr_assert_eq(row(rows, n, "ops.x.count")->verdict, COMPARE_CHANGED);
	cr_assert_eq(row(rows, n, "invariants.no_leaks")->verdict, COMPARE_SAME);
	cr_assert_eq(row(rows, n, "gone")->verdict, COMPARE_ONLY_BEFORE);
	cr_assert_eq(compare_print(rows, n, &o, fopen("/dev/null", "w")), 2);
	free(rows);
	compare_sample_set_free(&a);
	compare_sample_set_free(&b);
}

Test(compare, exact_samples_that_differ_within_a_side_are_said)
{
	struct compare_sample_set a = { 0 }, b = { 0 };
	struct compare_opts o = { .alpha = 0.05, .threshold = 0.10 };
	struct compare_row *rows;
	size_t n;

	add_values(&a, "ops.x.modeled_ns.p50", 100, 0, 3, UINT64_MAX);
	add_values(&b, "ops.x.modeled_ns.p50", 100, 1, 3, UINT64_MAX);
	cr_assert_eq(compare_sets(&a, &b, &o, &rows, &n), 0);
	cr_assert_eq(rows[0].verdict, COMPARE_VARIES);
	cr_assert(strstr(rows[0].why, "after"), "%s", rows[0].why);
	cr_assert_eq(compare_print(rows, n, &o, fopen("/dev/null", "w")), 0, "shown, not gated");
	free(rows);
	compare_sample_set_free(&a);
	compare_sample_set_free(&b);
}

Test(compare, one_wall_clock_sample_a_side_is_shown_not_judged)
{
	struct compare_sample_set a = { 0 }, b = { 0 };
	struct compare_opts o = { .alpha = 0.05, .threshold = 0.10 };
	struct compare_row *rows;
	size_t n;

	add_values(&a, "ops.dma.latency_ns.p50", 100, 0, 1, 500);
	add_values(&b, "ops.dma.latency_ns.p50", 2000, 0, 1, 500); /* +1900%, one sample */
	compare_sample_set_add(&a, "bench host=h", RUN_BENCH, "sweep.runs_per_s", "ops/s", 10,
			       UINT64_MAX);
	compare_sample_set_add(&b, "bench host=h", RUN_BENCH, "sweep.runs_per_s", "ops/s", 5,
			       UINT64_MAX);
	cr_assert_eq(compare_sets(&a, &b, &o, &rows, &n), 0);
	cr_assert_eq(row(rows, n, "ops.dma.latency_ns.p50")->verdict, COMPARE_UNJUDGED);
	cr_assert(strstr(row(rows, n, "ops.dma.latency_ns.p50")->why, "too few samples"));
	cr_assert_eq(row(rows, n, "sweep.runs_per_s")->verdict, COMPARE_UNJUDGED);
	cr_assert_eq(compare_print(rows, n, &o, fopen("/dev/null", "w")), 0);
	free(rows);
	/* an explicit threshold judges them, for who wants it */
	o.threshold_set = true;
	cr_assert_eq(compare_sets(&a, &b, &o, &rows, &n), 0);
	cr_assert_eq(row(rows, n, "ops.dma.latency_ns.p50")->verdict, COMPARE_REGRESSED);
	cr_assert_eq(row(rows, n, "sweep.runs_per_s")->verdict, COMPARE_REGRESSED, "higher is better");
	free(rows);
	compare_sample_set_free(&a);
	compare_sample_set_free(&b);
}

Test(compare, a_percentile_needs_its_operations_and_a_maximum_is_never_judged)
{
	struct compare_sample_set a = { 0 }, b = { 0 };
	struct compare_opts o = { .alpha = 0.05, .threshold = 0.10 };
	struct compare_row *rows;
	size_t n;

	add_values(&a, "ops.dma.latency_ns.p99", 100, 1, 8, 99);
	add_values(&b, "ops.dma.latency_ns.p99", 300, 1, 8, 99);
	add_values(&a, "ops.dma.latency_ns.max", 100, 1, 8, 5000);
	add_values(&b, "ops.dma.latency_ns.max", 300, 1, 8, 5000);
	add_values(&a, "ops.dma.latency_ns.p50", 100, 1, 8, 99);
	add_values(&b, "ops.dma.latency_ns.p50", 300, 1, 8, 99);
	cr_assert_eq(compare_sets(&a, &b, &o, &rows, &n), 0);
	cr_assert_eq(row(rows, n, "ops.dma.latency_ns.p99")->verdict, COMPARE_UNJUDGED);
	cr_assert(strstr(row(rows, n, "ops.dma.latency_ns.p99")->why, "100 operations"));
	cr_assert_eq(row(rows, n, "ops.dma.latency_ns.max")->verdict, COMPARE_UNJUDGED);
	cr_assert_eq(row(rows, n, "ops.dma.latency_ns.p50")->verdict, COMPARE_REGRESSED, "99 ops make a p50");
	free(rows);
	compare_sample_set_free(&a);
	compare_sample_set_free(&b);
}

Test(compare, repeated_samples_need_significance_and_size)
{
	struct compare_sample_set a = { 0 }, b = { 0 }, c = { 0 }, d = { 0 };
	struct compare_opts o = { .alpha = 0.05, .threshold = 0.10 };
	struct compare_row *rows;
	size_t n;

	add_values(&a, "ops.t.latency_ns.mean", 100, 1, 8, 1000);  /* 100..107 */
	add_values(&b, "ops.t.latency_ns.mean", 105, 1, 8, 1000);  /* +5%, every run */
	add_values(&c, "ops.t.latency_ns.mean", 130, 1, 8, 1000);  /* +30%, every run */
	for (int i = 0; i < 8; i++)
		compare_sample_set_add(&d, BENCH, RUN_RESULTS, "ops.t.latency_ns.mean", "ns",
				       100 + (i * 5) % 8, 1000); /* the same values, shuffled */
	cr_assert_eq(compare_sets(&a, &b, &o, &rows, &n), 0);
	cr_assert_lt(rows[0].p, 0.05, "significant");
	cr_assert_eq(rows[0].verdict, COMPARE_SAME, "but under the threshold");
	free(rows);
	cr_assert_eq(compare_sets(&a, &c, &o, &rows, &n), 0);
	cr_assert_eq(rows[0].verdict, COMPARE_REGRESSED);
	cr_assert(rows[0].ci_lo > 0.2 && rows[0].ci_hi < 0.4, "%g..%g", rows[0].ci_lo, rows[0].ci_hi);
	free(rows);
	cr_assert_eq(compare_sets(&a, &d, &o, &rows, &n), 0);
	cr_assert_eq(rows[0].verdict, COMPARE_SAME);
	cr_assert_gt(rows[0].p, 0.5);
	free(rows);
	compare_sample_set_free(&a);
	compare_sample_set_free(&b);
	compare_sample_set_free(&c);
	compare_sample_set_free(&d);
}

/* One series apart among many that did not move: chance, once the family is counted. */
Test(compare, many_series_are_judged_as_a_family)
{
	struct compare_sample_set a = { 0 }, b = { 0 };
	struct compare_opts o = { .alpha = 0.05, .threshold = 0.10 };
	struct compare_row *rows;
	char name[64];
	size_t n;

	add_values(&a, "ops.moved.latency_ns.mean", 100, 1, 5, 1000);
	add_values(&b, "ops.moved.latency_ns.mean", 120, 1, 5, 1000);
	cr_assert_eq(compare_sets(&a, &b, &o, &rows, &n), 0);
	cr_assert_eq(rows[0].verdict, COMPARE_REGRESSED, "alone, 5 of 5 apart is p=0.008");
	free(rows);
	for (int k = 0; k < 20; k++) {
		snprintf(name, sizeof(name), "ops.still%d.latency_ns.mean", k);
		for (int i = 0; i < 5; i++) {
			compare_sample_set_add(&a, BENCH, RUN_RESULTS, name, "ns", 100 + i, 1000);
			compare_sample_set_add(&b, BENCH, RUN_RESULTS, name, "ns",
					       100 + (i * 3) % 5, 1000);
		}
	}
	cr_assert_eq(compare_sets(&a, &b, &o, &rows, &n), 0);
	cr_assert_eq(row(rows, n, "ops.moved.latency_ns.mean")->verdict, COMPARE_SAME,
		     "among 21, p=0.008 is what chance gives one of them");
	cr_assert_gt(row(rows, n, "ops.moved.latency_ns.mean")->p, 0.05);
	free(rows);
	compare_sample_set_free(&a);
	compare_sample_set_free(&b);
}

static int noise_of(const char *benchmark, const char *metric, struct compare_series_noise *out,
		    void *ctx)
{
	*out = (struct compare_series_noise){ *(double *)ctx, 8 };
	return 0;
}

/* A change the series' own history often shows between revisions is no finding. */
Test(compare, the_history_noise_of_a_series_bounds_what_counts)
{
	struct compare_sample_set a = { 0 }, b = { 0 };
	double sigma = 0.3;
	struct compare_opts o = { .alpha = 0.05, .threshold = 0.10, .noise = noise_of,
				  .noise_ctx = &sigma };
	struct compare_row *rows;
	size_t n;

	add_values(&a, "ops.t.latency_ns.mean", 100, 1, 5, 1000);
	add_values(&b, "ops.t.latency_ns.mean", 130, 1, 5, 1000);
	cr_assert_eq(compare_sets(&a, &b, &o, &rows, &n), 0);
	cr_assert_eq(rows[0].verdict, COMPARE_SAME, "+30%% where revisions move by 30%%: p=%g", rows[0].p);
	cr_assert(rows[0].history);
	free(rows);
	sigma = 0.02;
	cr_assert_eq(compare_sets(&a, &b, &o, &rows, &n), 0);
	cr_assert_eq(rows[0].verdict, COMPARE_REGRESSED, "+30%% where revisions move by 2%%: p=%g", rows[0].p);
	free(rows);
	compare_sample_set_free(&a);
	compare_sample_set_free(&b);
}

Test(compare, series_of_two_benchmarks_are_not_compared)
{
	struct compare_sample_set a = { 0 }, b = { 0 };
	struct compare_opts o = { .alpha = 0.05, .threshold = 0.10 };
	struct compare_row *rows;
	const char *one;
	size_t n;

	compare_sample_set_add(&a, "results trace=desktop", RUN_RESULTS, "power.completed",
			       "count", 0, UINT64_MAX);
	compare_sample_set_add(&b, "results trace=game", RUN_RESULTS, "power.completed", "count",
			       56, UINT64_MAX);
	cr_assert_eq(compare_sample_set_benchmarks(&a, &one), 1);
	cr_assert_str_eq(one, "results trace=desktop");
	cr_assert_eq(compare_sets(&a, &b, &o, &rows, &n), 0);
	cr_assert_eq(n, 2);
	cr_assert_eq(rows[0].verdict, COMPARE_ONLY_BEFORE);
	cr_assert_eq(rows[1].verdict, COMPARE_ONLY_AFTER);
	free(rows);
	/* unless asked: one benchmark a side, on purpose */
	o.across = true;
	cr_assert_eq(compare_sets(&a, &b, &o, &rows, &n), 0);
	cr_assert_eq(n, 1);
	cr_assert_eq(rows[0].verdict, COMPARE_IMPROVED);
	free(rows);
	compare_sample_set_free(&a);
	compare_sample_set_free(&b);
}

/* Revisions of a store that ran the same code on the same inputs differ by the machine alone. */
Test(compare, in_a_store_the_same_code_on_the_same_inputs_is_not_judged)
{
	struct compare_sample_set a = { 0 }, b = { 0 };
	struct compare_opts o = { .alpha = 0.05, .threshold = 0.10, .code_tracked = true };
	struct run_metric m[] = { { (char *)"ops.t.count", 1000, "count" },
				  { (char *)"ops.t.latency_ns.mean", 0, "ns" } };
	struct run_record rec = { .kind = RUN_RESULTS, .benchmark = (char *)BENCH, .code = (char *)"t1 release",
				  .inputs = (char *)"t=1\n", .metrics = m, .nmetrics = 2 };
	const char *mean = "ops.t.latency_ns.mean";
	struct compare_row *rows;
	size_t n;

	for (int i = 0; i < 5; i++) {
		m[1].value = 100 + i;
		cr_assert_eq(compare_sample_set_add_run(&a, &rec), 0);
		m[1].value = 200 + i;
		cr_assert_eq(compare_sample_set_add_run(&b, &rec), 0);
	}
	cr_assert_eq(compare_sets(&a, &b, &o, &rows, &n), 0);
	cr_assert_eq(row(rows, n, mean)->verdict, COMPARE_UNJUDGED, "+100%% of the same code: the machine's");
	cr_assert(strstr(row(rows, n, mean)->why, "the machine's"), "%s", row(rows, n, mean)->why);
	free(rows);
	/* two folders of files are an experiment of the user's: judged */
	o.code_tracked = false;
	cr_assert_eq(compare_sets(&a, &b, &o, &rows, &n), 0);
	cr_assert_eq(row(rows, n, mean)->verdict, COMPARE_REGRESSED);
	free(rows);
	compare_sample_set_free(&b);
	/* other code: judged */
	o.code_tracked = true;
	rec.code = (char *)"t2 release";
	for (int i = 0; i < 5; i++) {
		m[1].value = 200 + i;
		cr_assert_eq(compare_sample_set_add_run(&b, &rec), 0);
	}
	cr_assert_eq(compare_sets(&a, &b, &o, &rows, &n), 0);
	cr_assert_eq(row(rows, n, mean)->verdict, COMPARE_REGRESSED);
	free(rows);
	compare_sample_set_free(&a);
	compare_sample_set_free(&b);
}

/* Runs whose metrics differ in order and in number, of two benchmarks: each value in its own sample. */
Test(compare, each_value_of_a_run_goes_into_its_benchmarks_sample)
{
	struct run_metric m1[] = { { (char *)"a", 1, "count" }, { (char *)"b", 2, "count" },
				   { (char *)"c", 3, "count" } };
	struct run_metric m2[] = { { (char *)"c", 30, "count" }, { (char *)"a", 10, "count" } };
	struct run_metric m3[] = { { (char *)"b", 200, "count" }, { (char *)"d", 400, "count" },
				   { (char *)"a", 100, "count" } };
	struct run_record r[] = {
		{ .kind = RUN_RESULTS, .benchmark = (char *)"results trace=x", .metrics = m1, .nmetrics = 3 },
		{ .kind = RUN_RESULTS, .benchmark = (char *)"results trace=x", .metrics = m2, .nmetrics = 2 },
		{ .kind = RUN_RESULTS, .benchmark = (char *)"results trace=y", .metrics = m3, .nmetrics = 3 },
		{ .kind = RUN_RESULTS, .benchmark = (char *)"results trace=x", .metrics = m3, .nmetrics = 3 },
	};
	static const struct { const char *benchmark, *name; size_t n; double v[3]; } want[] = {
		{ "results trace=x", "a", 3, { 1, 10, 100 } }, { "results trace=x", "b", 2, { 2, 200 } },
		{ "results trace=x", "c", 2, { 3, 30 } },      { "results trace=y", "b", 1, { 200 } },
		{ "results trace=y", "d", 1, { 400 } },        { "results trace=y", "a", 1, { 100 } },
		{ "results trace=x", "d", 1, { 400 } },
	};
	struct compare_sample_set set = { 0 };

	for (size_t i = 0; i < ARRAY_SIZE(r); i++)
		cr_assert_eq(compare_sample_set_add_run(&set, &r[i]), 0);
	cr_assert_eq(set.n, ARRAY_SIZE(want), "one sample a benchmark and metric");
	for (size_t i = 0; i < ARRAY_SIZE(want); i++) {
		cr_assert_str_eq(set.s[i].benchmark, want[i].benchmark, "in the order first seen");
		cr_assert_str_eq(set.s[i].name, want[i].name);
		cr_assert_eq(set.s[i].n, want[i].n, "%s %s", want[i].benchmark, want[i].name);
		for (size_t k = 0; k < want[i].n; k++)
			cr_assert_eq(set.s[i].v[k], want[i].v[k]);
	}
	compare_sample_set_free(&set);
}
