/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>

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
	h->ncounts = ((size_t)(HIST_MAX_MAGNITUDE - h->sub_half_magnitude) + 1)
		     << h->sub_half_magnitude;
	h->counts = calloc(h->ncounts, sizeof(*h->counts));
	return h->counts ? 0 : -ENOMEM;
}

void hist_fini(struct hist *h)
{
	free(h->counts);
	h->counts = NULL;
}

uint64_t hist_percentile(const struct hist *h, double p)
{
	uint64_t want, seen = 0;

	if (!h->total)
		return 0;
	if (p >= 100.0)
		return h->max;
	want = (uint64_t)((p / 100.0) * (double)h->total + 0.5);
	if (want < 1)
		want = 1;
	for (size_t i = 0; i < h->ncounts; i++) {
		seen += h->counts[i];
		if (seen >= want) {
			uint64_t v = highest_equivalent(h, i);

			return v > h->max ? h->max : v < h->min ? h->min : v;
		}
	}
	return h->max;
}

double hist_mean(const struct hist *h)
{
	return h->total ? (double)h->sum / (double)h->total : 0.0;
}
