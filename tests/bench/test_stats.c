/* SPDX-License-Identifier: MIT */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>

#include "bench/stats.h"

/* Deterministic noise in [-1, 1). */
static double noise(uint64_t *state)
{
	*state = *state * 6364136223846793005ull + 1442695040888963407ull;
	return (double)(*state >> 11) / (double)(1ull << 52) - 1;
}

Test(stats, student_t_tail_matches_tables)
{
	/* two-sided tail probabilities from standard t tables */
	cr_assert_float_eq(stats_student_t_sf2(2.228, 10), 0.05, 5e-4);
	cr_assert_float_eq(stats_student_t_sf2(12.706, 1), 0.05, 5e-4);
	cr_assert_float_eq(stats_student_t_sf2(1.96, 1e6), 0.05, 5e-4);
	cr_assert_float_eq(stats_student_t_sf2(0, 5), 1.0, 1e-12);
}

Test(stats, mann_whitney_exact_small_samples)
{
	const double a[] = { 1, 2, 3 }, b[] = { 4, 5, 6 };
	const double c[] = { 1, 4, 5 }, d[] = { 2, 3, 6 };

	/* complete separation: U = 0, P = 2 * 1/C(6,3) = 0.1 */
	cr_assert_float_eq(stats_mann_whitney_p(a, 3, b, 3), 0.1, 1e-12);
	cr_assert_float_eq(stats_mann_whitney_p(b, 3, a, 3), 0.1, 1e-12, "symmetric");
	/* U = 4 of 9: P(U <= 4) = 10/20, two-sided 1 */
	cr_assert_float_eq(stats_mann_whitney_p(c, 3, d, 3), 1.0, 1e-12);
}

Test(stats, mann_whitney_normal_with_ties)
{
	double a[40], b[40];

	for (int i = 0; i < 40; i++) {
		a[i] = 100 + i % 5; /* many ties */
		b[i] = 103 + i % 5;
	}
	cr_assert_lt(stats_mann_whitney_p(a, 40, b, 40), 1e-6);
	cr_assert_gt(stats_mann_whitney_p(a, 40, a, 40), 0.9, "a sample against itself");
}

Test(stats, welch_detects_shifted_means_only)
{
	double a[30], b[30], c[30];
	uint64_t st = 7;

	for (int i = 0; i < 30; i++) {
		a[i] = 10 + noise(&st);
		b[i] = 10 + noise(&st);
		c[i] = 12 + noise(&st);
	}
	cr_assert_gt(stats_welch_p(a, 30, b, 30), 0.01);
	cr_assert_lt(stats_welch_p(a, 30, c, 30), 1e-6);
	cr_assert_eq(stats_welch_p((double[]){ 1, 1 }, 2, (double[]){ 1, 1 }, 2), 1.0);
	cr_assert_eq(stats_welch_p((double[]){ 1, 1 }, 2, (double[]){ 2, 2 }, 2), 0.0);
}

Test(stats, change_points_find_steps_where_they_are)
{
	double x[90];
	struct stats_change_point cp[8];
	uint64_t st = 42;
	int n;

	for (int i = 0; i < 90; i++)
		x[i] = (i < 30 ? 100 : i < 60 ? 130 : 95) + 3 * noise(&st);
	n = stats_change_points(x, 90, 0.01, 3, cp, 8);
	cr_assert_eq(n, 2, "found %d", n);
	cr_assert_eq(cp[0].index, 30);
	cr_assert_eq(cp[1].index, 60);
	cr_assert_float_eq(cp[0].before, 100, 1.5);
	cr_assert_float_eq(cp[0].after, 130, 1.5);
	cr_assert_lt(cp[0].p, 0.01);
}

Test(stats, change_points_none_in_noise)
{
	double x[120];
	struct stats_change_point cp[8];
	uint64_t st = 3;

	for (int i = 0; i < 120; i++)
		x[i] = 50 + 5 * noise(&st);
	cr_assert_eq(stats_change_points(x, 120, 0.001, 3, cp, 8), 0);
	cr_assert_eq(stats_change_points(x, 4, 0.01, 3, cp, 8), 0, "too short to split");
}

Test(stats, student_t_quantiles_match_tables)
{
	cr_assert_float_eq(stats_student_t_quantile2(0.05, 10), 2.228, 1e-3);
	cr_assert_float_eq(stats_student_t_quantile2(0.01, 4), 4.604, 1e-3);
	cr_assert_float_eq(stats_student_t_quantile2(0.05, 1e6), 1.960, 1e-3);
}

Test(stats, welch_interval_covers_the_difference_of_means)
{
	const double a[] = { 10, 11, 12, 13, 14 }, b[] = { 20, 21, 22, 23, 24 };
	const double c[] = { 5, 5, 5 };
	double lo, hi;

	const double z[] = { -1, 0, 1 };

	cr_assert_eq(stats_welch_ci(a, 5, b, 5, 0.95, &lo, &hi), 0);
	/* difference 10 of a mean of 12, se = sqrt(2.5/5 * 2) = 1, df = 8, t = 2.306 */
	cr_assert_float_eq(lo, (10 - 2.306) / 12, 1e-4);
	cr_assert_float_eq(hi, (10 + 2.306) / 12, 1e-4);
	cr_assert_eq(stats_welch_ci(c, 3, c, 3, 0.95, &lo, &hi), 0);
	cr_assert(lo == 0 && hi == 0);
	cr_assert_eq(stats_welch_ci(a, 1, b, 5, 0.95, &lo, &hi), -EINVAL);
	cr_assert_eq(stats_welch_ci(z, 3, b, 5, 0.95, &lo, &hi), -EINVAL,
		     "no change relative to 0");
}

Test(stats, benjamini_hochberg_adjusts_by_rank)
{
	double p[] = { 0.01, 0.04, 0.03, 0.005 };

	cr_assert_eq(stats_benjamini_hochberg(p, 4), 0);
	cr_assert_float_eq(p[0], 0.02, 1e-12);
	cr_assert_float_eq(p[1], 0.04, 1e-12);
	cr_assert_float_eq(p[2], 0.04, 1e-12);
	cr_assert_float_eq(p[3], 0.02, 1e-12);
	cr_assert_eq(stats_benjamini_hochberg(p, 0), 0);
}

Test(stats, median_of_odd_and_even_counts_leaves_the_values)
{
	const double odd[] = { 5, 1, 3 }, even[] = { 4, 1, 3, 2 };
	double many[40];

	cr_assert_float_eq(stats_median(odd, 3), 3.0, 1e-12);
	cr_assert_float_eq(stats_median(even, 4), 2.5, 1e-12);
	cr_assert_float_eq(odd[0], 5.0, 1e-12, "the values are not sorted in place");
	for (int i = 0; i < 40; i++)
		many[i] = 40 - i; /* more than fit on the stack: 40..1 */
	cr_assert_float_eq(stats_median(many, 40), 20.5, 1e-12);
}
