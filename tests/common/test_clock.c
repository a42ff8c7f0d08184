/* SPDX-License-Identifier: MIT */
#include <criterion/criterion.h>
#include <unistd.h>

#include "common/clock.h"

/*
 * A reading of @c paired with one of CLOCK_MONOTONIC taken between two reads
 * of @c: the narrowest bracket of a few tries, so that being preempted
 * between the reads (a loaded machine) does not skew the pair.
 */
static void bracket(const struct fast_clock *c, uint64_t *fast, uint64_t *mono)
{
	uint64_t width = UINT64_MAX;

	for (int i = 0; i < 8; i++) {
		uint64_t f0 = fast_clock_ns(c), m = clock_mono_ns(), f1 = fast_clock_ns(c);

		if (f1 - f0 < width) {
			width = f1 - f0;
			*fast = f0 + width / 2;
			*mono = m;
		}
	}
}

/*
 * Durations on @c over 20 ms sleeps, against CLOCK_MONOTONIC's between the
 * same pairs of readings: the best of a few within 0.5%. A bracket is
 * narrower than a microsecond, so only a wrong rate of @c misses by that
 * much in every sample.
 */
static void agrees_with_monotonic(const struct fast_clock *c)
{
	double best = 1.0;
	uint64_t best_fast = 0, best_mono = 0;

	for (int i = 0; i < 5; i++) {
		uint64_t f0, m0, f1, m1;
		double ratio, miss;

		bracket(c, &f0, &m0);
		usleep(20000);
		bracket(c, &f1, &m1);
		cr_assert_geq(m1 - m0, 20000000ull);
		ratio = (double)(f1 - f0) / (double)(m1 - m0);
		miss = ratio > 1 ? ratio - 1 : 1 - ratio;
		if (miss < best) {
			best = miss;
			best_fast = f1 - f0;
			best_mono = m1 - m0;
		}
	}
	cr_assert_lt(best, 0.005, "closest of 5: fast %llu ns, monotonic %llu ns",
		     (unsigned long long)best_fast, (unsigned long long)best_mono);
}

static void never_goes_back(const struct fast_clock *c)
{
	uint64_t last = fast_clock_ns(c);

	for (int i = 0; i < 200000; i++) {
		uint64_t now = fast_clock_ns(c);

		cr_assert_geq(now, last, "read %d", i);
		last = now;
	}
}

Test(clock, fast_clock_measures_what_monotonic_measures)
{
	struct fast_clock c;

	fast_clock_init(&c, true);
	agrees_with_monotonic(&c);
	never_goes_back(&c);
}

Test(clock, without_the_tsc_it_is_monotonic)
{
	struct fast_clock c;

	fast_clock_init(&c, false);
	cr_assert_not(c.tsc);
	agrees_with_monotonic(&c);
	never_goes_back(&c);
}
