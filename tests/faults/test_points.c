/* SPDX-License-Identifier: MIT */
/* Injection points: names, and the nth / every / times rule. */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "faults/faults.h"

Test(points, every_point_has_a_unique_name_and_description)
{
	for (int p = 0; p < FP_NPOINTS; p++) {
		const char *name = fp_point_name(p);

		cr_assert_not_null(name);
		cr_assert_not_null(fp_point_describe(p));
		cr_assert(strchr(name, '/'), "%s is not hierarchical", name);
		cr_assert_eq(fp_point_lookup(name), p, "%s", name);
		for (int q = 0; q < p; q++)
			cr_assert_str_neq(name, fp_point_name(q));
	}
	cr_assert_eq(fp_point_lookup("fbsave/pin"), FP_FBSAVE_PIN);
	cr_assert_eq(fp_point_lookup("nope/nothing"), -ENOENT);
	cr_assert_null(fp_point_name(FP_NPOINTS));
}

Test(points, no_context_never_fails)
{
	for (int i = 0; i < 10; i++)
		cr_assert_not(fp_should_fail(NULL, FP_IOMMU_MAP));
}

Test(points, unarmed_points_count_hits_but_never_fail)
{
	struct fp_ctx ctx = { 0 };

	for (int i = 0; i < 5; i++)
		cr_assert_not(fp_should_fail(&ctx, FP_MEM_LOCK));
	cr_assert_eq(ctx.hits[FP_MEM_LOCK], 5);
	cr_assert_eq(ctx.injected[FP_MEM_LOCK], 0);
}

static unsigned int failures(struct fp_ctx *ctx, enum fp_point p, int hits, bool *which)
{
	unsigned int n = 0;

	for (int i = 0; i < hits; i++) {
		which[i] = fp_should_fail(ctx, p);
		n += which[i];
	}
	return n;
}

Test(points, nth_fails_exactly_that_hit)
{
	struct fp_ctx ctx = { 0 };
	bool which[10];

	fp_arm(&ctx, FP_GPU_COPY, &(struct fp_rule){ .nth = 3 });
	cr_assert_eq(failures(&ctx, FP_GPU_COPY, 10, which), 1);
	cr_assert(which[2]);
	cr_assert_eq(ctx.injected[FP_GPU_COPY], 1);
}

Test(points, every_repeats_after_nth_and_times_bounds_it)
{
	struct fp_ctx ctx = { 0 };
	bool which[12];

	fp_arm(&ctx, FP_IOMMU_MAP, &(struct fp_rule){ .nth = 2, .every = 3 });
	cr_assert_eq(failures(&ctx, FP_IOMMU_MAP, 12, which), 4);
	cr_assert(which[1] && which[4] && which[7] && which[10]);

	fp_arm(&ctx, FP_IOMMU_MAP, &(struct fp_rule){ .nth = 1, .every = 1, .times = 2 });
	cr_assert_eq(failures(&ctx, FP_IOMMU_MAP, 12, which), 2);
	cr_assert(which[0] && which[1] && !which[2]);
}

Test(points, arming_resets_counters_and_nth_0_disarms)
{
	struct fp_ctx ctx = { 0 };
	bool which[4];

	fp_arm(&ctx, FP_FBSAVE_PIN, &(struct fp_rule){ .nth = 1 });
	cr_assert_eq(failures(&ctx, FP_FBSAVE_PIN, 4, which), 1);
	fp_arm(&ctx, FP_FBSAVE_PIN, &(struct fp_rule){ 0 });
	cr_assert_not(ctx.armed[FP_FBSAVE_PIN]);
	cr_assert_eq(ctx.hits[FP_FBSAVE_PIN], 0);
	cr_assert_eq(failures(&ctx, FP_FBSAVE_PIN, 4, which), 0);
}
