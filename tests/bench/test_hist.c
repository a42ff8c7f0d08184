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

/* Log-uniform over [1, span): latencies spread over decades. */
static uint64_t spread(uint64_t *seed, uint64_t span)
{
	return 1 + (uint64_t)exp((double)(next(seed) % 1000000) / 1e6 * log((double)span));
}

/* One percentile, asked alone. */
static uint64_t pct(const struct hist *h, double p)
{
	uint64_t v;

	hist_percentiles(h, &p, 1, &v);
	return v;
}

static void record(struct hist *h, uint64_t v)
{
	cr_assert_eq(hist_record(h, v), 0);
}

static void check_against_sorting(unsigned int digits, uint64_t span)
{
	enum { N = 100000 };
	static const double ps[] = { 1, 10, 50, 90, 99, 99.9, 99.99, 100 };
	uint64_t *v = malloc(N * sizeof(*v)), seed = 42, got[ARRAY_SIZE(ps)];
	double sum = 0, tolerance = pow(10, -(double)digits);
	struct hist h;

	cr_assert_not_null(v);
	cr_assert_eq(hist_init(&h, digits), 0);
	for (size_t i = 0; i < N; i++) {
		v[i] = spread(&seed, span);
		record(&h, v[i]);
		sum += (double)v[i];
	}
	qsort(v, N, sizeof(*v), cmp_u64);
	hist_percentiles(&h, ps, ARRAY_SIZE(ps), got);
	for (size_t i = 0; i < ARRAY_SIZE(ps); i++) {
		uint64_t want = exact(v, N, ps[i]);
		double err = fabs((double)got[i] - (double)want) / (double)want;

		cr_assert_leq(err, tolerance, "p%g: %llu vs exact %llu (digits %u)", ps[i],
			      (unsigned long long)got[i], (unsigned long long)want, digits);
	}
	cr_assert_eq(h.max, v[N - 1]);
	cr_assert_eq(h.min, v[0]);
	cr_assert_eq(h.overflow, 0);
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
	static const double ps[] = { 50, 99, 100 };
	uint64_t got[ARRAY_SIZE(ps)];
	struct hist h;

	cr_assert_eq(hist_init(&h, 3), 0);
	for (uint64_t v = 1; v <= 1000; v++)
		record(&h, v);
	hist_percentiles(&h, ps, ARRAY_SIZE(ps), got);
	cr_assert_eq(got[0], 500);
	cr_assert_eq(got[1], 990);
	cr_assert_eq(got[2], 1000);
	hist_fini(&h);
}

Test(hist, edges_empty_and_zero)
{
	static const double ps[] = { 0, 50, 100 };
	uint64_t got[ARRAY_SIZE(ps)] = { 7, 7, 7 };
	struct hist h;

	cr_assert_eq(hist_init(&h, 0), -EINVAL);
	cr_assert_eq(hist_init(&h, 6), -EINVAL);
	cr_assert_eq(hist_init(&h, 3), 0);
	cr_assert_null(h.counts, "nothing is allocated before a value is recorded");
	hist_percentiles(&h, ps, ARRAY_SIZE(ps), got);
	cr_assert(!got[0] && !got[1] && !got[2], "an empty histogram says 0");
	cr_assert_float_eq(hist_mean(&h), 0, 1e-12);
	record(&h, 0);
	cr_assert_eq(pct(&h, 50), 1);
	cr_assert_eq(h.min, 1);
	hist_fini(&h);
}

/* Above the range: counted, kept at the top (a lower bound), the extremes and mean exact. */
Test(hist, out_of_range_values_are_counted_at_the_top)
{
	static const double ps[] = { 25, 50, 75, 100 };
	uint64_t got[ARRAY_SIZE(ps)];
	struct hist h;

	cr_assert_eq(hist_init(&h, 3), 0);
	record(&h, 1000);
	record(&h, HIST_TOP); /* the highest value in range */
	cr_assert_eq(h.overflow, 0);
	record(&h, HIST_TOP + 1);
	record(&h, UINT64_MAX);
	cr_assert_eq(h.overflow, 2);
	cr_assert_eq(h.total, 4);
	hist_percentiles(&h, ps, ARRAY_SIZE(ps), got);
	cr_assert_eq(got[0], 1000);
	cr_assert_eq(got[1], HIST_TOP);
	cr_assert_eq(got[2], HIST_TOP, "at least HIST_TOP: the top slot's value");
	cr_assert_eq(got[3], UINT64_MAX, "the max is the value itself");
	cr_assert_float_eq(hist_mean(&h), ((double)HIST_TOP * 2 + 1 + (double)UINT64_MAX + 1000) / 4,
			   1e-12 * (double)UINT64_MAX);
	/* the top slot is the last there can be: the counts never grow past it */
	cr_assert_eq(h.ncounts, (size_t)(HIST_MAX_MAGNITUDE - h.sub_half_magnitude + 1)
					<< h.sub_half_magnitude);
	hist_fini(&h);
}

/* Percentiles asked together, in any order and with repeats, are those asked one by one. */
Test(hist, percentiles_in_one_pass_are_those_asked_alone)
{
	static const double ps[] = { 99.9, 0, 50, 100, 1, 50, 99.99, 90, 10, 99, 75, 0.001 };
	uint64_t got[ARRAY_SIZE(ps)], seed = 7;
	struct hist h;

	cr_assert_eq(hist_init(&h, 3), 0);
	for (int i = 0; i < 50000; i++)
		record(&h, spread(&seed, 100000000ull));
	hist_percentiles(&h, ps, ARRAY_SIZE(ps), got);
	for (size_t k = 0; k < ARRAY_SIZE(ps); k++)
		cr_assert_eq(got[k], pct(&h, ps[k]), "p%g", ps[k]);
	cr_assert_lt(got[1], got[2]);
	cr_assert_lt(got[2], got[0]);
	cr_assert_eq(got[3], h.max);
	hist_fini(&h);
}

/* The slots a histogram needs for values up to @max: through the end of max's bucket. */
static size_t slots_for(const struct hist *h, uint64_t max)
{
	unsigned int log2 = 63u - (unsigned int)__builtin_clzll(max);
	unsigned int half = h->sub_half_magnitude;

	if (log2 < half)
		return (size_t)1 << half;
	if (log2 == half)
		return (size_t)2 << half;
	return (size_t)(log2 - half + 2) << half;
}

/*
 * Values on each side of every power of two, recorded into two histograms
 * in turn (so that one's growth reuses memory the other freed): the counts
 * cover exactly what was recorded, grow without losing a count, and every
 * value reads back as itself or within the precision.
 */
Test(hist, counts_grow_at_bucket_boundaries)
{
	enum { N = 2 * (HIST_MAX_MAGNITUDE - 1) + 1 };
	uint64_t v[N];
	struct hist h[2];
	size_t n = 0;

	for (unsigned int k = 1; k < HIST_MAX_MAGNITUDE; k++) {
		v[n++] = ((uint64_t)1 << k) - 1;
		v[n++] = (uint64_t)1 << k;
	}
	v[n++] = HIST_TOP;
	for (int d = 0; d < 2; d++)
		cr_assert_eq(hist_init(&h[d], d ? 2 : 3), 0);
	for (size_t i = 0; i < n; i++) {
		for (int d = 0; d < 2; d++) {
			uint64_t in_slots = 0;

			record(&h[d], v[i]);
			cr_assert_eq(h[d].ncounts, slots_for(&h[d], v[i]), "%llu",
				     (unsigned long long)v[i]);
			for (size_t s = 0; s < h[d].ncounts; s++)
				in_slots += h[d].counts[s];
			cr_assert_eq(in_slots, i + 1, "after %llu: new slots are zero, old ones kept",
				     (unsigned long long)v[i]);
		}
	}
	for (int d = 0; d < 2; d++) {
		double precision = d ? 1e-2 : 1e-3;

		for (size_t i = 0; i < n; i++) {
			/* the (i + 1)-th smallest value */
			uint64_t got = pct(&h[d], 100.0 * ((double)i + 0.75) / (double)n);

			cr_assert_geq(got, v[i]);
			cr_assert_leq((double)(got - v[i]), precision * (double)v[i],
				      "%llu read as %llu", (unsigned long long)v[i],
				      (unsigned long long)got);
			if (!((v[i] + 1) & v[i])) /* 2^k - 1: the highest value of its slot */
				cr_assert_eq(got, v[i]);
		}
		hist_fini(&h[d]);
		cr_assert_null(h[d].counts);
		cr_assert_eq(h[d].ncounts, 0);
	}
}

static void expect_same(const struct hist *a, const struct hist *b)
{
	static const double ps[] = { 1, 50, 90, 99, 99.9, 100 };
	uint64_t pa[ARRAY_SIZE(ps)], pb[ARRAY_SIZE(ps)];

	cr_assert_eq(a->ncounts, b->ncounts);
	for (size_t i = 0; i < a->ncounts; i++)
		cr_assert_eq(a->counts[i], b->counts[i], "slot %zu", i);
	cr_assert_eq(a->total, b->total);
	cr_assert_eq(a->overflow, b->overflow);
	cr_assert(a->sum == b->sum);
	cr_assert_eq(a->min, b->min);
	cr_assert_eq(a->max, b->max);
	hist_percentiles(a, ps, ARRAY_SIZE(ps), pa);
	hist_percentiles(b, ps, ARRAY_SIZE(ps), pb);
	for (size_t k = 0; k < ARRAY_SIZE(ps); k++)
		cr_assert_eq(pa[k], pb[k], "p%g", ps[k]);
}

/*
 * Two runs merged are one run that recorded both: the smaller into the
 * larger and the larger into the smaller, into an empty one, and an empty
 * one merged changes nothing.
 */
Test(hist, merging_is_recording_every_value_in_one)
{
	struct hist fast, slow, all, empty, into_fast;
	uint64_t seed = 3;

	cr_assert_eq(hist_init(&fast, 3), 0);
	cr_assert_eq(hist_init(&slow, 3), 0);
	cr_assert_eq(hist_init(&all, 3), 0);
	cr_assert_eq(hist_init(&empty, 3), 0);
	cr_assert_eq(hist_init(&into_fast, 3), 0);
	for (int i = 0; i < 20000; i++) {
		uint64_t f = spread(&seed, 10000), s = 1000000 + spread(&seed, 1000000000ull);

		record(&fast, f);
		record(&into_fast, f);
		record(&slow, s);
		record(&all, f);
		record(&all, s);
	}
	record(&slow, UINT64_MAX);
	record(&all, UINT64_MAX);
	cr_assert_lt(fast.ncounts, slow.ncounts);

	cr_assert_eq(hist_merge(&into_fast, &slow), 0, "the larger into the smaller");
	expect_same(&into_fast, &all);
	cr_assert_eq(hist_merge(&slow, &fast), 0, "the smaller into the larger");
	expect_same(&slow, &all);
	cr_assert_eq(hist_merge(&empty, &all), 0, "into an empty one");
	expect_same(&empty, &all);
	hist_fini(&empty);
	cr_assert_eq(hist_init(&empty, 3), 0);
	cr_assert_eq(hist_merge(&all, &empty), 0, "an empty one");
	expect_same(&all, &slow);
	cr_assert_eq(all.overflow, 1);
	hist_fini(&fast);
	hist_fini(&slow);
	hist_fini(&all);
	hist_fini(&empty);
	hist_fini(&into_fast);
}

Test(hist, merging_different_precisions_is_refused)
{
	struct hist three, two;

	cr_assert_eq(hist_init(&three, 3), 0);
	cr_assert_eq(hist_init(&two, 2), 0);
	record(&three, 1234);
	record(&two, 5678);
	cr_assert_eq(hist_merge(&three, &two), -EINVAL);
	cr_assert_eq(hist_merge(&two, &three), -EINVAL);
	cr_assert_eq(three.total, 1);
	cr_assert_eq(three.max, 1234);
	cr_assert_eq(two.total, 1);
	cr_assert_eq(two.min, 5678);
	hist_fini(&three);
	hist_fini(&two);
}
