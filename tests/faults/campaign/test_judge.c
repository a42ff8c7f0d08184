/* SPDX-License-Identifier: MIT */
/* faults/campaign/judge.c: a run's outcome from its results. */
#include <criterion/criterion.h>
#include <string.h>

#include "faults/campaign/campaign_internal.h"

/* An internal error of the model fails a run even when the file requires no invariant. */
Test(judge, an_internal_error_fails_a_run_whatever_the_file_requires)
{
	struct campaign c = { 0 };
	struct results res = { 0 };
	struct camp_outcome oc = { 0 };

	res.invariants[res.ninvariants++] = (struct invariant_result){ "no_leaks", false };
	res.invariants[res.ninvariants++] = (struct invariant_result){ "model_sound", true };
	campaign_judge(&c, &res, &oc);
	cr_assert_not(oc.failed, "no_leaks is not required: %s", oc.reason);
	res.invariants[1].holds = false;
	campaign_judge(&c, &res, &oc);
	cr_assert(oc.failed);
	cr_assert(strstr(oc.reason, "internal error of the model"), "%s", oc.reason);
	cr_assert_null(strstr(oc.reason, "no_leaks"), "%s", oc.reason);
}
