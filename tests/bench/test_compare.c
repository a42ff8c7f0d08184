/* SPDX-License-Identifier: MIT */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench/compare.h"

static const struct compare_row *row(const struct compare_row *rows, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(rows[i].name, name))
			return &rows[i];
	return NULL;
}

Test(compare, one_sample_uses_the_threshold_and_the_direction)
{
	struct sample_set a = { 0 }, b = { 0 };
	struct compare_opts o = { .alpha = 0.05, .threshold = 0.10 };
	struct compare_row *rows;
	size_t n;

	sample_set_add(&a, "ops.x.modeled_ns.p99", "ns", 1000);
	sample_set_add(&b, "ops.x.modeled_ns.p99", "ns", 1200); /* +20%: worse */
	sample_set_add(&a, "ops.y.modeled_ns.p99", "ns", 1000);
	sample_set_add(&b, "ops.y.modeled_ns.p99", "ns", 1050); /* +5%: within */
	sample_set_add(&a, "sweep.runs_per_s", "ops/s", 10);
	sample_set_add(&b, "sweep.runs_per_s", "ops/s", 15); /* higher is better */
	sample_set_add(&a, "ops.x.count", "count", 10);
	sample_set_add(&b, "ops.x.count", "count", 20); /* neither */
	sample_set_add(&a, "gone", "ns", 1);
	cr_assert_eq(compare_sets(&a, &b, &o, &rows, &n), 0);
	cr_assert_eq(n, 5);
	cr_assert_eq(rows[0].verdict, V_REGRESSED, "regressions first");
	cr_assert_float_eq(row(rows, n, "ops.x.modeled_ns.p99")->change, 0.2, 1e-12);
	cr_assert_eq(row(rows, n, "ops.y.modeled_ns.p99")->verdict, V_SAME);
	cr_assert_eq(row(rows, n, "sweep.runs_per_s")->verdict, V_IMPROVED);
	cr_assert_eq(row(rows, n, "ops.x.count")->verdict, V_CHANGED);
	cr_assert_eq(row(rows, n, "gone")->verdict, V_ONLY_BEFORE);
	cr_assert_eq(compare_print(rows, n, &o, fopen("/dev/null", "w")), 1);
	free(rows);
	sample_set_free(&a);
	sample_set_free(&b);
}

Test(compare, repeated_samples_use_the_u_test)
{
	struct sample_set a = { 0 }, b = { 0 }, c = { 0 };
	struct compare_opts o = { .alpha = 0.05, .threshold = 0.10 };
	struct compare_row *rows;
	size_t n;

	for (int i = 0; i < 8; i++) {
		sample_set_add(&a, "t.latency_ns", "ns", 100 + i);      /* 100..107 */
		sample_set_add(&b, "t.latency_ns", "ns", 105 + i);      /* +5%, but every run */
		sample_set_add(&c, "t.latency_ns", "ns", 100 + (i * 5) % 8); /* same values, shuffled */
	}
	cr_assert_eq(compare_sets(&a, &b, &o, &rows, &n), 0);
	cr_assert_eq(rows[0].verdict, V_REGRESSED, "below the threshold, but significant");
	cr_assert_lt(rows[0].p, 0.05);
	free(rows);
	cr_assert_eq(compare_sets(&a, &c, &o, &rows, &n), 0);
	cr_assert_eq(rows[0].verdict, V_SAME);
	cr_assert_gt(rows[0].p, 0.5);
	free(rows);
	sample_set_free(&a);
	sample_set_free(&b);
	sample_set_free(&c);
}
