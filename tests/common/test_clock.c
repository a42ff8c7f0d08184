/* SPDX-License-Identifier: MIT */
#include <criterion/criterion.h>
#include <unistd.h>

#include "common/clock.h"

/* A duration on @c over a 50 ms sleep, against CLOCK_MONOTONIC's. */
static void agrees_with_monotonic(const struct fast_clock *c)
{
	uint64_t m0 = clock_mono_ns(), f0 = fast_clock_ns(c), m1, f1;
	double ratio;

	usleep(50000);
	f1 = fast_clock_ns(c);
	m1 = clock_mono_ns();
	cr_assert_geq(m1 - m0, 50000000ull);
	ratio = (double)(f1 - f0) / (double)(m1 - m0);
	/* the two reads of each clock bracket differently: a few µs in 50 ms */
	cr_assert(ratio > 0.995 && ratio < 1.005, "fast %llu ns, monotonic %llu ns",
		  (unsigned long long)(f1 - f0), (unsigned long long)(m1 - m0));
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
