/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_BENCH_HIST_H
#define GPUISO_BENCH_HIST_H

#include "common/types.h"

/*
 * A log-linear latency histogram with HdrHistogram's bucketing: values from
 * 1 to 2^HIST_MAX_MAGNITUDE - 1 (about 73 minutes in ns) are kept to @digits
 * significant decimal digits (1 to 5, default 3), so every percentile is
 * within 10^-digits of the exact one. A value above the range is counted
 * (overflow) and kept in the top slot: a percentile that lands there reads
 * 2^HIST_MAX_MAGNITUDE - 1, a lower bound. Histograms of the same precision
 * merge by adding counts (hist_merge()). Recording is an index computation
 * and an increment; the counts cover the slots up to the highest bucket
 * recorded so far and grow when a value lands above (a few times per
 * histogram: once per new power of two at most).
 */

#define HIST_MAX_MAGNITUDE 42
#define HIST_TOP (((uint64_t)1 << HIST_MAX_MAGNITUDE) - 1) /* the highest value kept as itself */

struct hist {
	unsigned int sub_half_magnitude; /* log2 of half the sub-buckets per bucket */
	uint64_t sub_mask;               /* sub-bucket count - 1 */
	size_t ncounts;                  /* slots allocated: through the highest bucket recorded */
	uint64_t *counts;
	uint64_t total;                  /* values recorded */
	uint64_t overflow;               /* of them above HIST_TOP (counted at HIST_TOP) */
	uint64_t min, max;               /* exact extremes */
	unsigned __int128 sum;           /* for the mean: exact, and an integer add per value */
};

/**
 * hist_init() - an empty histogram (it allocates nothing until a value is recorded).
 * @h: the histogram.
 * @digits: significant decimal digits kept, 1..5.
 *
 * Return: 0, -EINVAL.
 */
int hist_init(struct hist *h, unsigned int digits);

/** hist_fini() - free the counts. @h: the histogram. */
void hist_fini(struct hist *h);

/**
 * hist_count_at() - count @v (at least 1) in slot @i, which the counts cover.
 * @h: the histogram.
 * @i: the slot.
 * @v: the value, for the extremes and the mean.
 */
static inline void hist_count_at(struct hist *h, size_t i, uint64_t v)
{
	h->counts[i]++;
	h->total++;
	h->sum += v;
	h->min = v < h->min ? v : h->min;
	h->max = v > h->max ? v : h->max;
}

/**
 * hist_record_rare() - hist_record() of a value whose slot @i the counts do
 * not cover yet: they grow to it, or the value is above HIST_TOP (@i past
 * the top slot) and counted there, as an overflow.
 * @h: the histogram.
 * @v: the value (at least 1).
 * @i: its slot, as hist_record() computes it.
 *
 * Return: 0, -ENOMEM (@h unchanged).
 */
int hist_record_rare(struct hist *h, uint64_t v, size_t i);

/**
 * hist_record() - count one value (0 counts as 1; above HIST_TOP, as
 * HIST_TOP, and as an overflow). min, max and the mean keep the value itself.
 * Inline: a replay records two values per event.
 * @h: the histogram.
 * @value: e.g. nanoseconds.
 *
 * Bucket b holds values in [2^(b + sub_half_magnitude), 2^(b +
 * sub_half_magnitude + 1)) (bucket 0 also everything below), each split into
 * sub-buckets of width 2^b: the top half of bucket b's sub-buckets. Index
 * arithmetic as in HdrHistogram. A value above HIST_TOP gets an index past
 * the top slot, so one comparison finds both rare cases: counts to grow, and
 * a value out of range.
 *
 * Return: 0, -ENOMEM (the counts could not grow to the value's bucket: not
 * recorded).
 */
__attribute__((warn_unused_result))
static inline int hist_record(struct hist *h, uint64_t value)
{
	uint64_t v = value ? value : 1;
	unsigned int bucket = 63u - (unsigned int)__builtin_clzll(v | h->sub_mask) -
			      h->sub_half_magnitude;
	size_t i = ((size_t)bucket << h->sub_half_magnitude) + (size_t)(v >> bucket);

	if (__builtin_expect(i >= h->ncounts, 0))
		return hist_record_rare(h, v, i);
	hist_count_at(h, i, v);
	return 0;
}

/**
 * hist_merge() - add @src's values to @dst, as if each had been recorded in
 * @dst: counts, overflow, sum and extremes (runs, repeats and shards of one
 * measurement).
 * @dst: the histogram added to.
 * @src: the histogram added (unchanged; may be @dst).
 *
 * Return: 0, -EINVAL (not of the same precision), -ENOMEM (@dst unchanged).
 */
int hist_merge(struct hist *dst, const struct hist *src);

/**
 * hist_percentiles() - for each @p[k], the value at or below which @p[k]
 * percent of values fall, in one pass over the counts.
 * @h: the histogram.
 * @p: percentiles, 0..100, in any order (ascending is the natural one).
 * @n: how many.
 * @out: the values, @out[k] for @p[k]: the highest value equivalent to its
 * slot, capped at the exact max (so HIST_TOP where the slot is the top one
 * and the max above it), the max for 100, or 0 for an empty histogram.
 */
void hist_percentiles(const struct hist *h, const double *p, size_t n, uint64_t *out);

/** hist_mean() - the exact mean of recorded values (0 when empty). @h. */
double hist_mean(const struct hist *h);

#endif
