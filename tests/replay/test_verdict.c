/* SPDX-License-Identifier: MIT */
/* A run's verdict: blocked and exposing DMA are findings, each cause its own signature. */
#include <criterion/criterion.h>
#include <string.h>

#include "replay/replay.h"
#include "replay/verdict.h"

static struct dma_record record(uint64_t event, const char *what, bool by)
{
	struct dma_record r = { .event = event, .adapter = 0, .phys = 1, .address = 0x2000,
				.write = true, .has_by = by, .by_event = 2 };

	snprintf(r.what, sizeof(r.what), "%s", what);
	snprintf(r.by_op, sizeof(r.by_op), "%s", by ? "free_mdl" : "");
	return r;
}

Test(verdict, dma_findings_take_their_place_by_event)
{
	struct violation_result v = { .code = "BAD_HANDLE", .event = 5 };
	struct results res = { .violations = &v, .nviolations = 1 };
	struct verdict out;

	res.dma.blocked = 2;
	res.dma.nblocked_kept = 2;
	res.dma.blocked_first[0] = record(3, "after_free", true);
	res.dma.blocked_first[1] = record(9, "not_mapped", false);
	res.dma.exposed = 1;
	res.dma.nexposed_kept = 1;
	res.dma.exposed_first[0] = record(7, "no_domain", false);
	verdict_of(&res, &out);
	cr_assert_eq(out.outcome, VERDICT_VIOLATION);
	cr_assert_eq(out.nfindings, 4);
	cr_assert_eq(out.kept, 4);
	cr_assert_str_eq(out.findings[0].code, "DMA_BLOCKED_AFTER_FREE");
	cr_assert_eq(out.findings[0].event, 3);
	cr_assert_not(out.findings[0].by_os, "the driver's: its device reached for it");
	cr_assert(strstr(out.findings[0].detail, "(event 2, free_mdl)"), "%s", out.findings[0].detail);
	cr_assert_str_eq(out.findings[1].code, "BAD_HANDLE");
	cr_assert_str_eq(out.findings[2].code, "DMA_EXPOSED_NO_DOMAIN");
	cr_assert(out.findings[2].by_os, "isolation is the OS's to give");
	cr_assert_str_eq(out.findings[3].code, "DMA_BLOCKED_NOT_MAPPED");
}

Test(verdict, each_cause_is_its_own_signature)
{
	struct results a = { 0 }, b = { 0 };
	struct verdict va, vb;

	a.dma.blocked = b.dma.blocked = 1;
	a.dma.nblocked_kept = b.dma.nblocked_kept = 1;
	a.dma.blocked_first[0] = record(3, "after_free", true);
	b.dma.blocked_first[0] = record(3, "after_unmap", true);
	verdict_of(&a, &va);
	verdict_of(&b, &vb);
	cr_assert_not(verdict_same(&va, &vb));
	b.dma.blocked_first[0] = record(4, "after_free", true);
	verdict_of(&b, &vb);
	cr_assert(verdict_same(&va, &vb), "the same cause, elsewhere: the same finding");
	/* and a run that blocked nothing recovered */
	memset(&b, 0, sizeof(b));
	verdict_of(&b, &vb);
	cr_assert_eq(vb.outcome, VERDICT_RECOVERED);
}
