/* SPDX-License-Identifier: MIT */
/* faults/campaign/finding.c: failing runs grouped by what broke, and who broke it. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "common/digest.h"
#include "faults/campaign/finding.h"

/* A verdict whose first violation is @code (of @party), found at teardown or not. */
static struct verdict violated(const char *code, bool by_os, bool at_teardown, uint32_t broken)
{
	struct verdict v = { .outcome = VERDICT_VIOLATION, .broken = broken, .kept = 1,
			     .nfindings = 1 };

	snprintf(v.findings[0].code, sizeof(v.findings[0].code), "%s", code);
	v.findings[0].by_os = by_os;
	v.findings[0].at_teardown = at_teardown;
	return v;
}

/* One run into @set, which must take it. */
static void add(struct finding_set *set, const char *point, const char *op, const char *outcome,
		const struct verdict *v, uint64_t nth, size_t run)
{
	const struct finding_run r = { .point = point, .op = op, .outcome = outcome, .verdict = v };

	cr_assert_eq(finding_add(set, &r, nth, run), 0);
}

static uint32_t bit(const char *invariant)
{
	for (unsigned int i = 0; verdict_invariant_name(i); i++)
		if (!strcmp(verdict_invariant_name(i), invariant))
			return 1u << i;
	cr_assert_fail("no invariant %s", invariant);
	return 0;
}

Test(finding, runs_that_broke_the_same_way_are_one_finding)
{
	struct verdict leak = violated("MAPPING_LEAK", true, true, bit("no_stale_mappings"));
	struct verdict leak_elsewhere = leak;
	struct finding_set set = { 0 };
	const struct finding *f;

	leak_elsewhere.findings[0].event = 12345; /* where and how often do not count */
	leak_elsewhere.nfindings = 3;
	add(&set, "iommu/unmap", "free_mdl", "violation", &leak, 7, 0);
	add(&set, "iommu/unmap", "free_mdl", "violation", &leak_elsewhere, 3, 1);
	add(&set, "iommu/unmap", "free_mdl", "violation", &leak, 9, 2);
	cr_assert_eq(set.n, 1);
	f = &set.v[0];
	cr_assert_eq(f->runs, 3);
	cr_assert_eq(f->nth_min, 3);
	cr_assert_eq(f->nth_max, 9);
	cr_assert_eq(f->first, 1, "the reproducer is the smallest nth's");
	cr_assert_str_eq(f->title, "iommu/unmap during free_mdl \u2192 MAPPING_LEAK at teardown");
	cr_assert_str_eq(f->key, "iommu/unmap|violation|MAPPING_LEAK at teardown");
	cr_assert_eq(f->nctx, 1);
	cr_assert_eq(f->ctx[0].runs, 3);
	cr_assert_eq(f->signature, digest_fnv1a_str(DIGEST_FNV_BASIS, f->key), "a stable signature");
	cr_assert_eq(f->blame, FINDING_BLAME_FAULT, "the OS side's consequence of the fault");
	cr_assert_str_eq(f->code, "MAPPING_LEAK");
	finding_set_free(&set);
}

Test(finding, another_point_code_or_place_is_another_finding)
{
	struct verdict leak = violated("MAPPING_LEAK", true, true, 0);
	struct verdict leak_live = violated("MAPPING_LEAK", true, false, 0);
	struct verdict handle = violated("BAD_HANDLE", false, false, 0);
	struct finding_set set = { 0 };

	add(&set, "iommu/unmap", "free_mdl", "violation", &leak, 1, 0);
	add(&set, "iommu/unmap", "free_mdl", "violation", &leak_live, 3, 2);
	add(&set, "iommu/map", "free_mdl", "violation", &leak, 4, 3);
	add(&set, "iommu/unmap", "free_mdl", "violation", &handle, 5, 4);
	add(&set, "iommu/unmap", "free_mdl", "reset", &leak, 6, 5);
	cr_assert_eq(set.n, 5);
	for (size_t i = 0; i < set.n; i++)
		for (size_t k = i + 1; k < set.n; k++)
			cr_assert_neq(set.v[i].signature, set.v[k].signature);
	finding_set_free(&set);
}

Test(finding, blame_says_who_broke_it)
{
	struct verdict driver = violated("UNMAP_AFTER_FREE", false, false, 0);
	struct verdict os = violated("STALE_TRANSLATION", true, false, bit("no_dma_to_unmapped"));
	struct verdict unsound = { .outcome = VERDICT_VIOLATION, .broken = bit("model_sound") };
	struct verdict reset = { .outcome = VERDICT_RESET };
	struct verdict stuck = { .outcome = VERDICT_VIOLATION, .broken = bit("forward_progress") };
	struct finding_set set = { 0 };

	add(&set, "mem/lock", "map_mdl", "violation", &driver, 1, 0);
	add(&set, "iommu/unmap", "dma", "violation", &os, 1, 1);
	add(&set, NULL, NULL, "failed", &os, 0, 2);
	add(&set, "gpu/copy", "power", "violation", &unsound, 1, 3);
	add(&set, "gpu/copy", "power", "reset", &reset, 1, 4);
	add(&set, "gpu/copy", "power", "crash", NULL, 1, 5);
	add(&set, "gpu/copy", "power", "violation", &stuck, 2, 6);
	cr_assert_eq(set.n, 7);
	cr_assert_eq(set.v[0].blame, FINDING_BLAME_DRIVER, "a driver's rule broken while recovering");
	cr_assert_eq(set.v[1].blame, FINDING_BLAME_FAULT);
	cr_assert_eq(set.v[2].blame, FINDING_BLAME_MODEL, "the OS side failing with no fault injected");
	cr_assert_str_eq(set.v[2].title, "no fault injected \u2192 STALE_TRANSLATION");
	cr_assert_eq(set.v[3].blame, FINDING_BLAME_MODEL, "an impossible state is gpuiso's");
	cr_assert_str_eq(set.v[3].title, "gpu/copy during power \u2192 model_sound broken");
	cr_assert_eq(set.v[4].blame, FINDING_BLAME_FAULT);
	cr_assert_str_eq(set.v[4].title, "gpu/copy during power \u2192 adapter reset");
	cr_assert_eq(set.v[5].blame, FINDING_BLAME_MODEL, "a crash is gpuiso's");
	cr_assert_str_eq(set.v[5].title, "gpu/copy during power \u2192 crash");
	cr_assert_eq(set.v[6].blame, FINDING_BLAME_FAULT);
	cr_assert_str_eq(set.v[6].title, "gpu/copy during power \u2192 forward_progress broken");
	finding_set_free(&set);
}

/*
 * One root cause met in several operations (the unmap that fails leaks a
 * mapping whatever was being done) is one finding with its contexts: each
 * operation with its runs and hits, by name, and the title names them.
 */
Test(finding, one_cause_in_several_operations_is_one_finding_with_contexts)
{
	static const char *const ops[] = { "free_mdl", "fence_destroy", "alloc_destroy", "transfer",
					   "power", NULL, "unmap_mdl" };
	struct verdict leak = violated("MAPPING_LEAK", true, true, 0);
	struct finding_set set = { 0 };
	const struct finding *f;

	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		add(&set, "iommu/unmap", ops[i], "violation", &leak, 10 + i, i);
	add(&set, "iommu/unmap", "power", "violation", &leak, 3, 7);
	cr_assert_eq(set.n, 1);
	f = &set.v[0];
	cr_assert_eq(f->runs, 8);
	cr_assert_eq(f->nctx, 7);
	cr_assert_str_eq(f->key, "iommu/unmap|violation|MAPPING_LEAK at teardown");
	cr_assert_str_eq(f->ctx[0].op, "alloc_destroy");
	cr_assert_null(f->ctx[6].op, "start last");
	cr_assert_str_eq(f->ctx[3].op, "power");
	cr_assert_eq(f->ctx[3].runs, 2);
	cr_assert_eq(f->ctx[3].nth_min, 3);
	cr_assert_eq(f->ctx[3].nth_max, 14);
	cr_assert_eq(f->first, 7, "the reproducer is the smallest nth's, in any context");
	cr_assert_str_eq(f->op, "power");
	cr_assert_str_eq(f->title, "iommu/unmap during alloc_destroy, fence_destroy, free_mdl and 4 "
				   "more \u2192 MAPPING_LEAK at teardown");
	finding_set_free(&set);
}

Test(finding, a_failure_before_the_first_event_is_at_start)
{
	struct verdict leak = violated("MAPPING_LEAK", true, true, 0);
	struct finding_set set = { 0 };

	add(&set, "adapter/enable", NULL, "violation", &leak, 1, 0);
	cr_assert_str_eq(set.v[0].title, "adapter/enable at start \u2192 MAPPING_LEAK at teardown");
	finding_set_free(&set);
}

/* The actionable findings come first, under their heading; the faults' consequences after theirs. */
Test(finding, actionable_findings_are_set_apart_from_expected_ones)
{
	struct verdict driver = violated("UNMAP_AFTER_FREE", false, false, 0);
	struct verdict leak = violated("MAPPING_LEAK", true, true, 0);
	struct verdict reset = { .outcome = VERDICT_RESET };
	struct finding_set set = { 0 };

	add(&set, "iommu/unmap", "free_mdl", "violation", &leak, 1, 0);
	add(&set, "gpu/copy", "power", "reset", &reset, 2, 1);
	add(&set, "mem/lock", "map_mdl", "violation", &driver, 3, 2);
	add(&set, "gpu/copy", "power", "crash", NULL, 4, 3);
	qsort(set.v, set.n, sizeof(*set.v), finding_cmp);
	cr_assert(strstr(finding_section(&set, 0), "actionable: "), "%s", finding_section(&set, 0));
	cr_assert_eq(set.v[0].blame, FINDING_BLAME_MODEL);
	cr_assert_null(finding_section(&set, 1), "the driver's is actionable too");
	cr_assert(strstr(finding_section(&set, 2), "expected: "), "%s", finding_section(&set, 2));
	cr_assert_null(finding_section(&set, 3));
	finding_set_free(&set);

	add(&set, "iommu/unmap", "free_mdl", "violation", &leak, 1, 0);
	cr_assert(strstr(finding_section(&set, 0), "expected: "), "no actionable one: no heading for them");
	finding_set_free(&set);
}
