/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>

#include "common/array.h"
#include "hist.h"

/* Buckets and sub-buckets: hist_record() (hist.h). */

/* The highest value that lands in the same slot as index @i. */
static uint64_t highest_equivalent(const struct hist *h, size_t i)
{
	size_t half = (size_t)1 << h->sub_half_magnitude;
	unsigned int bucket = i < 2 * half ? 0 : (unsigned int)(i >> h->sub_half_magnitude) - 1;
	uint64_t sub = i - ((size_t)bucket << h->sub_half_magnitude);

	return ((sub + 1) << bucket) - 1;
}

int hist_init(struct hist *h, unsigned int digits)
{
	uint64_t largest_single = 2;
	unsigned int sub_magnitude = 0;

	if (digits < 1 || digits > 5)
		return -EINVAL;
	for (unsigned int i = 0; i < digits; i++)
		largest_single *= 10;
	while (((uint64_t)1 << sub_magnitude) < largest_single)
		sub_magnitude++;
	*h = (struct hist){
		.sub_half_magnitude = sub_magnitude - 1,
		.sub_mask = ((uint64_t)1 << sub_magnitude) - 1,
		.min = UINT64_MAX,
	};
	return 0;
}

void hist_fini(struct hist *h)
{
	free(h->counts);
	h->counts = NULL;
	h->ncounts = 0;
}

/*
 * Make the counts cover slot @index and the rest of its bucket, the new
 * slots zero. Bucket 0 takes the first two halves of the slots, bucket b > 0
 * the half b + 1: the counts grow by halves, to the end of @index's.
 */
static int grow(struct hist *h, size_t index)
{
	return array_extend_zeroed(&h->counts, &h->ncounts,
				   ((index >> h->sub_half_magnitude) + 1) << h->sub_half_magnitude,
				   sizeof(*h->counts));
}

int hist_record_rare(struct hist *h, uint64_t v, size_t i)
{
	/* the slot of HIST_TOP: the last of bucket HIST_MAX_MAGNITUDE - 1 - sub_half_magnitude */
	size_t top = ((size_t)(HIST_MAX_MAGNITUDE - h->sub_half_magnitude + 1)
		      << h->sub_half_magnitude) - 1;
	int rc = grow(h, i > top ? top : i);

	if (rc)
		return rc;
	h->overflow += i > top;
	hist_count_at(h, i > top ? top : i, v);
	return 0;
}

int hist_merge(struct hist *dst, const struct hist *src)
{
	int rc;

	if (dst->sub_half_magnitude != src->sub_half_magnitude)
		return -EINVAL;
	if (src->ncounts > dst->ncounts && (rc = grow(dst, src->ncounts - 1)))
		return rc;
	for (size_t i = 0; i < src->ncounts; i++)
		dst->counts[i] += src->counts[i];
	dst->total += src->total;
	dst->overflow += src->overflow;
	dst->sum += src->sum;
	dst->min = src->min < dst->min ? src->min : dst->min;
	dst->max = src->max > dst->max ? src->max : dst->max;
	return 0;
}

/*
 * The index of the percentile after @prev (SIZE_MAX: before the first) in
 * the order of (@p[k], k), or @n when @prev is the last.
 */
static size_t next_in_order(const double *p, size_t n, size_t prev)
{
	size_t best = n;

	for (size_t k = 0; k < n; k++) {
		/* cppcheck-suppress arrayIndexThenCheck ; prev is SIZE_MAX or an index below n */
		bool after = prev == SIZE_MAX || p[k] > p[prev] || (p[k] == p[prev] && k > prev);

		if (after && (best == n || p[k] < p[best]))
			best = k;
	}
	return best;
}

void hist_percentiles(const struct hist *h, const double *p, size_t n, uint64_t *out)
{
	uint64_t seen = 0; /* values in the slots before @i */
	size_t i = 0;

	for (size_t k = 0; k < n; k++)
		out[k] = 0;
	if (!h->total)
		return;
	/* in ascending order, so the walk over the slots only goes forward */
	for (size_t k = next_in_order(p, n, SIZE_MAX); k < n; k = next_in_order(p, n, k)) {
		uint64_t want, v;

		if (p[k] >= 100.0) {
			out[k] = h->max;
			continue;
		}
		want = p[k] > 0 ? (uint64_t)((p[k] / 100.0) * (double)h->total + 0.5) : 1;
		if (want < 1)
			want = 1;
		while (i < h->ncounts && seen + h->counts[i] < want)
			seen += h->counts[i++];
		if (i == h->ncounts) {
			out[k] = h->max;
			continue;
		}
		v = highest_equivalent(h, i);
		out[k] = v > h->max ? h->max : v < h->min ? h->min : v;
	}
}

double hist_mean(const struct hist *h)
{
	return h->total ? (double)h->sum / (double)h->total : 0.0;
}
