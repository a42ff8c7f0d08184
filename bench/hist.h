/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_BENCH_HIST_H
#define GPUISO_BENCH_HIST_H

#include "common/types.h"

/*
 * A log-linear latency histogram with HdrHistogram's bucketing: values from
 * 1 to 2^HIST_MAX_MAGNITUDE (about 73 minutes in ns) are kept to @digits
 * significant decimal digits (1 to 5, default 3), so every percentile is
 * within 10^-digits of the exact one. Histograms of the same precision merge
 * by adding counts (across runs and processes). Recording is an index
 * computation and an increment.
 */

#define HIST_MAX_MAGNITUDE 42

struct hist {
	unsigned int sub_half_magnitude; /* log2 of half the sub-buckets per bucket */
	uint64_t sub_mask;               /* sub-bucket count - 1 */
	size_t ncounts;
	uint64_t *counts;
	uint64_t total;                  /* values recorded */
	uint64_t min, max;               /* exact extremes */
	unsigned __int128 sum;           /* for the mean: exact, and an integer add per value */
};

/**
 * hist_init() - an empty histogram.
 * @h: the histogram.
 * @digits: significant decimal digits kept, 1..5.
 *
 * Return: 0, -EINVAL, -ENOMEM.
 */
int hist_init(struct hist *h, unsigned int digits);

/** hist_fini() - free the counts. @h: the histogram. */
void hist_fini(struct hist *h);

/**
 * hist_record() - count one value (0 counts as 1; above the range, as the top).
 * Inline: a replay records two values per event.
 * @h: the histogram.
 * @value: e.g. nanoseconds.
 *
 * Bucket b holds values in [2^(b + sub_half_magnitude), 2^(b +
 * sub_half_magnitude + 1)) (bucket 0 also everything below), each split into
 * sub-buckets of width 2^b: the top half of bucket b's sub-buckets. Index
 * arithmetic as in HdrHistogram.
 */
static inline void hist_record(struct hist *h, uint64_t value)
{
	unsigned int bucket;

	if (!value)
		value = 1;
	if (value >> HIST_MAX_MAGNITUDE)
		value = ((uint64_t)1 << HIST_MAX_MAGNITUDE) - 1;
	bucket = 63u - (unsigned int)__builtin_clzll(value | h->sub_mask) - h->sub_half_magnitude;
	h->counts[((size_t)bucket << h->sub_half_magnitude) + (size_t)(value >> bucket)]++;
	h->total++;
	h->sum += value;
	h->min = value < h->min ? value : h->min;
	h->max = value > h->max ? value : h->max;
}

/**
 * hist_percentile() - the value at or below which @p percent of values fall.
 * @h: the histogram.
 * @p: percentile, 0..100.
 *
 * Return: the value (the highest value equivalent to its bucket, capped at
 * the exact max), or 0 for an empty histogram.
 */
uint64_t hist_percentile(const struct hist *h, double p);

/** hist_mean() - the exact mean of recorded values (0 when empty). @h. */
double hist_mean(const struct hist *h);

#endif
