/* SPDX-License-Identifier: MIT */
/* Faults files: rules, policies, windows, pressure schedules, and errors that say where. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "faults/plan.h"

static char path[] = "/tmp/gpuiso-plan-XXXXXX";

static int load(const char *text, struct fault_plan *plan, char *err, size_t len)
{
	int fd = mkstemp(path);
	int rc;

	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	rc = fault_plan_load(path, plan, err, len);
	unlink(path);
	memcpy(path + strlen(path) - 6, "XXXXXX", 6);
	return rc;
}

Test(plan, rules_expand_globs_and_keep_their_policies)
{
	struct fault_plan plan;
	char err[1024] = "";

	cr_assert_eq(load("faults:\n"
			  "  - point: fbsave/*\n"
			  "    every: 3\n"
			  "    times: 2\n"
			  "  - point: mem/lock\n"
			  "    probability: 25%\n"
			  "    seed: 9\n"
			  "    space: 1MiB\n"
			  "    window: {events: [10, 20]}\n",
			  &plan, err, sizeof(err)), 0, "%s", err);
	cr_assert(plan.armed[FP_FBSAVE_PIN] && plan.armed[FP_FBSAVE_MAP_CHUNK]);
	cr_assert_not(plan.armed[FP_MEM_COMMIT]);
	cr_assert_eq(plan.rule[FP_FBSAVE_PIN].nth, 3, "every N starts at hit N");
	cr_assert_eq(plan.rule[FP_FBSAVE_PIN].every, 3);
	cr_assert_eq(plan.rule[FP_FBSAVE_PIN].times, 2);
	cr_assert_eq(plan.rule[FP_MEM_LOCK].probability_ppm, 250000);
	cr_assert_eq(plan.rule[FP_MEM_LOCK].seed, 9);
	cr_assert_eq(plan.rule[FP_MEM_LOCK].space, 1 << 20);
	cr_assert_eq(plan.rule[FP_MEM_LOCK].window, FP_WINDOW_EVENTS);
	cr_assert_eq(plan.rule[FP_MEM_LOCK].from, 10);
	cr_assert_eq(plan.rule[FP_MEM_LOCK].to, 20);
	fault_plan_free(&plan);
}

Test(plan, pressure_steps_by_event_or_time_in_sizes_or_percents)
{
	struct fault_plan plan;
	char err[1024] = "";

	cr_assert_eq(load("pressure:\n"
			  "  - at: {event: 500}\n"
			  "    commit_available: 10%\n"
			  "    lockable_available: 1MiB\n"
			  "  - at: {time_ns: 2000000000}\n"
			  "    max_contiguous: 64KiB\n",
			  &plan, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(plan.nsteps, 2);
	cr_assert_not(plan.steps[0].by_time);
	cr_assert_eq(plan.steps[0].at, 500);
	cr_assert(plan.steps[0].commit.set && plan.steps[0].commit.percent);
	cr_assert_eq(plan.steps[0].commit.v, 10);
	cr_assert(plan.steps[0].lockable.set && !plan.steps[0].lockable.percent);
	cr_assert_eq(plan.steps[0].lockable.v, 1 << 20);
	cr_assert(plan.steps[1].by_time);
	cr_assert(plan.steps[1].contiguous_set);
	cr_assert_eq(plan.steps[1].max_contiguous, 64 << 10);
	cr_assert_not(plan.steps[1].commit.set);
	fault_plan_free(&plan);
}

static void expect_error(const char *text, const char *where_what)
{
	struct fault_plan plan;
	char err[1024] = "";

	cr_assert_eq(load(text, &plan, err, sizeof(err)), -EINVAL, "accepted:\n%s", text);
	cr_assert(strstr(err, where_what), "wanted '%s' in:\n%s", where_what, err);
	fault_plan_free(&plan);
}

Test(plan, malformed_files_say_where)
{
	expect_error("faults:\n  - point: nowhere/*\n    nth: 1\n", ":2:12: error:");
	expect_error("faults:\n  - point: nowhere/*\n    nth: 1\n", "names no injection point");
	expect_error("faults:\n  - point: fbsave/pin\n    nth: 1\n    probability: 0.5\n",
		     "give one of probability, nth");
	expect_error("faults:\n  - point: fbsave/pin\n    probability: 2\n", ":3:18: error:");
	/* not a number between 0 and 1: NaN compares false with both bounds */
	expect_error("faults:\n  - point: fbsave/pin\n    probability: nan\n", ":3:18: error:");
	expect_error("faults:\n  - point: fbsave/pin\n    probability: -nan%\n", ":3:18: error:");
	expect_error("faults:\n  - point: fbsave/pin\n    probability: inf\n", ":3:18: error:");
	expect_error("faults:\n  - point: fbsave/pin\n    nth: 0\n", "count from 1");
	expect_error("faults:\n  - point: fbsave/pin\n    nth: 1\n    window: {events: [5, 1]}\n",
		     "ends before it starts");
	expect_error("faults:\n  - point: fbsave/pin\n    nth: 1\n    colour: red\n",
		     "unknown key 'colour'");
	expect_error("pressure:\n  - at: {event: 1}\n    commit_available: 150%\n", ":3:23: error:");
	expect_error("pressure:\n  - commit_available: 1MiB\n", "needs 'at'");
	expect_error("nonsense: 1\n", ":1:1: error:");
}

/* The probability of rule @prob: its millionths, or -1 when refused. */
static long probability_of(const char *prob)
{
	struct fault_plan plan;
	char text[512], err[1024] = "";
	long ppm;

	snprintf(text, sizeof(text), "faults:\n  - point: fbsave/pin\n    probability: %s\n", prob);
	if (load(text, &plan, err, sizeof(err))) {
		cr_assert(strstr(err, "is not a probability"), "%s: %s", prob, err);
		fault_plan_free(&plan);
		return -1;
	}
	ppm = plan.rule[FP_FBSAVE_PIN].probability_ppm;
	fault_plan_free(&plan);
	return ppm;
}

Test(plan, a_probability_is_a_decimal_or_a_percent_and_nothing_else)
{
	/* quoted, so YAML keeps the spaces; what strtod() took before */
	static const char *const bad[] = {
		"\" 0.5\"", "\"0.5 \"", "\"0. 5\"", "+0.5", "\"-0\"", "5e-1", "0x0.8p0", "0x1",
		"\"0.5 %\"", "\" 50%\"", "+50%", "50%%", "\"%\"", "\"\"", ".5", "1.", "1,0", "0.5x",
		"infinity", "1.0000001",
	};
	char pct[80];

	cr_assert_eq(probability_of("0.25"), 250000);
	cr_assert_eq(probability_of("1"), 1000000);
	cr_assert_eq(probability_of("1.0"), 1000000);
	cr_assert_eq(probability_of("0"), 0);
	cr_assert_eq(probability_of("25%"), 250000);
	cr_assert_eq(probability_of("12.5%"), 125000);
	/* a long one is read whole, not cut */
	snprintf(pct, sizeof(pct), "%s25%%", "00000000000000000000000000000000000000000000000000000000000");
	cr_assert_eq(probability_of(pct), 250000);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		cr_assert_eq(probability_of(bad[i]), -1, "probability %s was taken", bad[i]);
}

Test(plan, a_long_percent_of_pressure_is_read_whole)
{
	struct fault_plan plan;
	char text[512], err[1024] = "";

	/* leading zeros are decimal: 50%, not what the first 31 characters say */
	snprintf(text, sizeof(text), "pressure:\n  - at: {event: 1}\n    commit_available: %s50%%\n",
		 "000000000000000000000000000000000000000000");
	cr_assert_eq(load(text, &plan, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(plan.steps[0].commit.v, 50);
	fault_plan_free(&plan);
	expect_error("pressure:\n  - at: {event: 1}\n    commit_available: \" 50%\"\n",
		     "is not a percent");
	expect_error("pressure:\n  - at: {event: 1}\n    commit_available: +50%\n", ":3:23: error:");
}

Test(plan, missing_file_is_enoent_with_a_message)
{
	struct fault_plan plan;
	char err[512] = "";

	cr_assert_eq(fault_plan_load("/no/such/faults.yaml", &plan, err, sizeof(err)), -ENOENT);
	cr_assert(strstr(err, "/no/such/faults.yaml"), "%s", err);
}

static unsigned int fails(struct fp_ctx *ctx, enum fp_point p, unsigned int hits, uint64_t bytes)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < hits; i++)
		n += fp_should_fail_bytes(ctx, p, bytes);
	return n;
}

Test(plan, probability_is_seeded_and_about_right)
{
	struct fp_ctx a = { 0 }, b = { 0 }, c = { 0 };
	struct fp_rule r = { .probability_ppm = 100000, .seed = 1 };
	unsigned int na, nb, nc;

	fp_arm(&a, FP_IOMMU_MAP, &r);
	fp_arm(&b, FP_IOMMU_MAP, &r);
	r.seed = 2;
	fp_arm(&c, FP_IOMMU_MAP, &r);
	na = fails(&a, FP_IOMMU_MAP, 10000, 0);
	nb = fails(&b, FP_IOMMU_MAP, 10000, 0);
	nc = fails(&c, FP_IOMMU_MAP, 10000, 0);
	cr_assert_eq(na, nb, "the same seed must fail the same hits");
	cr_assert(na > 850 && na < 1150, "10%% of 10000 hits failed %u times", na);
	cr_assert_neq(memcmp(a.rng, c.rng, sizeof(a.rng)), 0);
	cr_assert(nc > 850 && nc < 1150);
}

Test(plan, space_lets_the_first_bytes_through)
{
	struct fp_ctx ctx = { 0 };
	struct fp_rule r = { .nth = 1, .every = 1, .space = 10000 };

	fp_arm(&ctx, FP_MEM_COMMIT, &r);
	cr_assert_eq(fails(&ctx, FP_MEM_COMMIT, 2, 4096), 0, "8 KiB of a 10000-byte budget");
	cr_assert_eq(fails(&ctx, FP_MEM_COMMIT, 3, 4096), 3, "past the budget every hit fails");
}

Test(plan, windows_in_events_and_time)
{
	struct fp_ctx ctx = { 0 };
	struct fp_rule r = { .nth = 1, .every = 1, .window = FP_WINDOW_EVENTS, .from = 5, .to = 6 };

	fp_arm(&ctx, FP_GPU_COPY, &r);
	for (uint64_t ev = 0; ev < 10; ev++) {
		ctx.event = ev;
		cr_assert_eq(fp_should_fail(&ctx, FP_GPU_COPY), ev == 5 || ev == 6, "event %llu",
			     (unsigned long long)ev);
	}
	r = (struct fp_rule){ .nth = 1, .every = 1, .window = FP_WINDOW_TIME, .from = 1000,
			      .to = 2000 };
	fp_arm(&ctx, FP_GPU_COPY, &r);
	ctx.ts = 999;
	cr_assert_not(fp_should_fail(&ctx, FP_GPU_COPY));
	ctx.ts = 1500;
	cr_assert(fp_should_fail(&ctx, FP_GPU_COPY));
	ctx.ts = 2001;
	cr_assert_not(fp_should_fail(&ctx, FP_GPU_COPY));
}

Test(plan, arming_a_plan_arms_only_its_points)
{
	struct fault_plan plan;
	struct fp_ctx ctx;
	char err[512] = "";

	cr_assert_eq(load("faults:\n  - point: gpu/copy\n    nth: 2\n", &plan, err, sizeof(err)), 0,
		     "%s", err);
	memset(&ctx, 0xff, sizeof(ctx));
	fault_plan_arm(&plan, &ctx);
	for (int p = 0; p < FP_NPOINTS; p++)
		cr_assert_eq(ctx.armed[p], p == FP_GPU_COPY, "%s", fp_point_name(p));
	cr_assert_not(fp_should_fail(&ctx, FP_GPU_COPY));
	cr_assert(fp_should_fail(&ctx, FP_GPU_COPY));
	fault_plan_free(&plan);
}

/* What a sweep's reproducer says: POINT:N arms that point for its Nth hit, and nothing else. */
Test(plan, fail_nth_arms_one_point_for_one_hit)
{
	static const char *const bad[] = {
		"fbsave/pin", "fbsave/pin:", "fbsave/pin:0", "fbsave/pin:-3", "fbsave/pin:3x",
		"no/such:3", ":3", "fbsave/pin:99999999999999999999",
	};
	struct fault_plan plan = { 0 };
	int p = fp_point_lookup("fbsave/pin");

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cr_assert_eq(fault_plan_fail_nth(&plan, bad[i]), -EINVAL, "%s", bad[i]);
		for (int q = 0; q < FP_NPOINTS; q++)
			cr_assert_not(plan.armed[q], "%s armed %s", bad[i], fp_point_name(q));
	}
	cr_assert_eq(fault_plan_fail_nth(&plan, "fbsave/pin:0x10"), 0, "hex, as every number");
	cr_assert_eq(plan.rule[p].nth, 16);
	cr_assert_eq(fault_plan_fail_nth(&plan, "fbsave/pin:3"), 0);
	cr_assert(plan.armed[p]);
	cr_assert_eq(plan.rule[p].nth, 3);
	fault_plan_seed(&plan, 77);
	for (int q = 0; q < FP_NPOINTS; q++)
		cr_assert_eq(plan.rule[q].seed, 77);
	fault_plan_free(&plan);
}

/* Equal plans compare equal; a change in a rule, an armed point or a step does not. */
Test(plan, equal_plans_and_what_makes_them_differ)
{
	struct pressure_step steps[2] = { { .at = 500 }, { .at = 900 } };
	struct fault_plan a = { 0 }, b = { 0 };
	int p = fp_point_lookup("fbsave/pin");

	cr_assert(fault_plan_equal(&a, &b));
	cr_assert_eq(fault_plan_fail_nth(&a, "fbsave/pin:3"), 0);
	cr_assert_not(fault_plan_equal(&a, &b), "an armed point");
	cr_assert_eq(fault_plan_fail_nth(&b, "fbsave/pin:3"), 0);
	cr_assert(fault_plan_equal(&a, &b));
	b.rule[p].seed = 9;
	cr_assert_not(fault_plan_equal(&a, &b), "a rule's seed");
	b.rule[p].seed = a.rule[p].seed;
	a.steps = steps;
	a.nsteps = 2;
	b.steps = steps;
	b.nsteps = 1;
	cr_assert_not(fault_plan_equal(&a, &b), "a step fewer");
	b.nsteps = 2;
	cr_assert(fault_plan_equal(&a, &b));
}

/* hits: lists the hits that fail, and nothing else; a bad list says where. */
Test(plan, hits_fail_exactly_the_hits_listed)
{
	struct fault_plan plan;
	struct fp_ctx ctx;
	char err[1024] = "";
	int p = fp_point_lookup("iommu/map");
	unsigned int failed[12] = { 0 };

	cr_assert_eq(load("faults:\n  - point: iommu/map\n    hits: [2, 5, 11]\n", &plan, err,
			  sizeof(err)), 0, "%s", err);
	cr_assert_eq(plan.rule[p].nhits, 3);
	fault_plan_arm(&plan, &ctx);
	for (unsigned int i = 1; i <= 11; i++)
		failed[i] = fp_should_fail(&ctx, p);
	for (unsigned int i = 1; i <= 11; i++)
		cr_assert_eq(failed[i], i == 2 || i == 5 || i == 11, "hit %u", i);
	cr_assert_eq(fails(&ctx, p, 100, 0), 0, "nothing after the last");
	fault_plan_free(&plan);
	expect_error("faults:\n  - point: iommu/map\n    hits: [3, 3]\n", "ascend");
	expect_error("faults:\n  - point: iommu/map\n    hits: [0]\n", "count from 1");
	expect_error("faults:\n  - point: iommu/map\n    hits: []\n", "1 to 16 hits");
	expect_error("faults:\n  - point: iommu/map\n    hits: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, "
		     "12, 13, 14, 15, 16, 17]\n", "1 to 16 hits");
	expect_error("faults:\n  - point: iommu/map\n    hits: [1]\n    nth: 2\n", "give one of");
}

/* A written plan reads back as the plan that was written, every key of it. */
Test(plan, a_written_plan_reads_back_equal)
{
	static const char *const texts[] = {
		"faults:\n  - point: fbsave/*\n    probability: 25%\n    times: 2\n    space: 1MiB\n"
		"    seed: 42\n    window: {events: [3, 9]}\n  - point: iommu/map\n    nth: 3\n"
		"    every: 4\n    window: {time_ns: [100, 200]}\n  - point: gpu/copy\n"
		"    hits: [1, 7]\n"
		"pressure:\n  - at: {event: 5}\n    commit_available: 10%\n    lockable_available: 1MiB\n"
		"  - at: {time_ns: 900}\n    max_contiguous: 64KiB\n",
		"faults: []\n",
		"pressure:\n  - at: {event: 0}\n    commit_available: 0\n",
	};

	for (size_t i = 0; i < sizeof(texts) / sizeof(*texts); i++) {
		struct fault_plan a, b;
		char err[1024] = "", *text = NULL;
		size_t len;
		FILE *f = open_memstream(&text, &len);

		cr_assert_eq(load(texts[i], &a, err, sizeof(err)), 0, "%s", err);
		cr_assert_eq(fault_plan_write(f, &a), 0);
		fclose(f);
		cr_assert_eq(load(text, &b, err, sizeof(err)), 0, "%s\n%s", text, err);
		cr_assert(fault_plan_equal(&a, &b), "written:\n%s", text);
		fault_plan_free(&a);
		fault_plan_free(&b);
		free(text);
	}
}
