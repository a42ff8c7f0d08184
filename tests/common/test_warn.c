/* SPDX-License-Identifier: MIT */
/*
 * common/warn.h: a check that holds costs nothing and counts nothing; a
 * broken one is counted and is the value of its condition, and in debug and
 * sanitizer builds stops the program where it broke.
 */
#include <criterion/criterion.h>
#include <signal.h>

#include "common/warn.h"
#include "config.h"

Test(warn, a_check_that_holds_counts_nothing)
{
	uint64_t count = 0;

	cr_assert(!WARN_ON(&count, 1 + 1 == 3));
	cr_assert_eq(count, 0);
}

#if GPUISO_WARN_ABORT
Test(warn, a_broken_check_stops_a_debug_build, .signal = SIGABRT)
{
	uint64_t count = 0;

	(void)WARN_ON(&count, 1 + 1 == 2);
}
#else
Test(warn, a_broken_check_is_counted_and_goes_on)
{
	uint64_t count = 0;

	cr_assert(WARN_ON(&count, 1 + 1 == 2));
	cr_assert(WARN_ON(&count, count == 1));
	cr_assert_eq(count, 2);
}
#endif
