/* SPDX-License-Identifier: MIT */
/* The latency histogram against exact percentiles computed by sorting. */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "bench/hist.h"

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* Nearest-rank percentile of sorted values. */
static uint64_t exact(const uint64_t *v, size_t n, double p)
{
	size_t rank = (size_t)ceil(p / 100.0 * (double)n - 1e-9); /* 99.9% of 1e5 is 99900 */

	return v[rank ? rank - 1 : 0];
}

static uint64_t next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static void check_against_sorting(unsigned int digits, uint64_t span)
{
	enum { N = 100000 };
	static const double ps[] = { 1, 10, 50, 90, 99, 99.9, 99.99, 100 };
	uint64_t *v = malloc(N * sizeof(*v)), seed = 42;
	double sum = 0, tolerance = pow(10, -(double)digits);
	struct hist h;

	cr_assert_not_null(v);
	cr_assert_eq(hist_init(&h, digits), 0);
	for (size_t i = 0; i < N; i++) {
		/* log-uniform over [1, span): latencies spread over decades */
		v[i] = 1 + (uint64_t)exp((double)(next(&seed) % 1000000) / 1e6 * log((double)span));
		hist_record(&h, v[i]);
		sum += (double)v[i];
	}
	qsort(v, N, sizeof(*v), cmp_u64);
	for (size_t i = 0; i < sizeof(ps) / sizeof(ps[0]); i++) {
		uint64_t want = exact(v, N, ps[i]), got = hist_percentile(&h, ps[i]);
		double err = fabs((double)got - (double)want) / (double)want;

		cr_assert_leq(err, tolerance, "p%g: %llu vs exact %llu (digits %u)", ps[i],
			      (unsigned long long)got, (unsigned long long)want, digits);
	}
	cr_assert_eq(h.max, v[N - 1]);
	cr_assert_eq(h.min, v[0]);
	cr_assert_float_eq(hist_mean(&h), sum / N, 1e-6 * sum / N);
	hist_fini(&h);
	free(v);
}

Test(hist, three_digits_from_ns_to_seconds)
{
	check_against_sorting(3, 10000000000ull);
}

Test(hist, two_and_four_digits)
{
	check_against_sorting(2, 1000000);
	check_against_sorting(4, 100000000ull);
}

Test(hist, small_values_are_exact)
{
	struct hist h;

	cr_assert_eq(hist_init(&h, 3), 0);
	for (uint64_t v = 1; v <= 1000; v++)
		hist_record(&h, v);
	cr_assert_eq(hist_percentile(&h, 50), 500);
	cr_assert_eq(hist_percentile(&h, 99), 990);
	cr_assert_eq(hist_percentile(&h, 100), 1000);
	hist_fini(&h);
}

Test(hist, edges_empty_zero_and_huge)
{
	struct hist h;

	cr_assert_eq(hist_init(&h, 0), -EINVAL);
	cr_assert_eq(hist_init(&h, 6), -EINVAL);
	cr_assert_eq(hist_init(&h, 3), 0);
	cr_assert_eq(hist_percentile(&h, 50), 0);
	cr_assert_float_eq(hist_mean(&h), 0, 1e-12);
	hist_record(&h, 0);
	cr_assert_eq(hist_percentile(&h, 50), 1);
	hist_record(&h, UINT64_MAX);
	cr_assert_eq(hist_percentile(&h, 100), ((uint64_t)1 << HIST_MAX_MAGNITUDE) - 1);
	hist_fini(&h);
}
