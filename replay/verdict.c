/* SPDX-License-Identifier: MIT */
/* A run's verdict (verdict.h): its outcome and first findings. */
#include <string.h>

#include "replay/replay.h"
#include "replay/verdict.h"

/* engine_finish()'s invariants, in its order: bit i of verdict.broken is the i-th. */
static const char *const verdict_invariants[] = {
	"no_leaks", "no_stale_mappings", "no_dma_to_unmapped", "baseline_restored",
	"vram_restored", "forward_progress", "model_sound",
};

#define VERDICT_NINVARIANTS (sizeof(verdict_invariants) / sizeof(verdict_invariants[0]))

static const char *const verdict_outcomes[VERDICT_NOUTCOMES] = {
	[VERDICT_RECOVERED] = "recovered",
	[VERDICT_RESET] = "reset",
	[VERDICT_VIOLATION] = "violation",
};

void verdict_of(const struct results *res, struct verdict *v)
{
	memset(v, 0, sizeof(*v));
	for (size_t i = 0; i < res->ninvariants; i++) {
		if (res->invariants[i].holds)
			continue;
		for (unsigned int k = 0; k < VERDICT_NINVARIANTS; k++)
			if (!strcmp(res->invariants[i].name, verdict_invariants[k]))
				v->broken |= 1u << k;
	}
	v->nfindings = res->nviolations;
	for (size_t i = 0; i < res->nviolations && v->kept < VERDICT_MAX_FINDINGS; i++)
		v->findings[v->kept++] = res->violations[i];
	if (replay_findings(res))
		v->outcome = VERDICT_VIOLATION;
	else
		v->outcome = res->power.reset ? VERDICT_RESET : VERDICT_RECOVERED;
}

const char *verdict_outcome_name(enum verdict_outcome o)
{
	return (unsigned int)o < VERDICT_NOUTCOMES ? verdict_outcomes[o] : NULL;
}

const char *verdict_invariant_name(unsigned int i)
{
	return i < VERDICT_NINVARIANTS ? verdict_invariants[i] : NULL;
}

bool verdict_same(const struct verdict *a, const struct verdict *b)
{
	if (a->outcome != b->outcome || a->broken != b->broken || !a->kept != !b->kept)
		return false;
	return !a->kept || (!strcmp(a->findings[0].code, b->findings[0].code) &&
			    a->findings[0].at_teardown == b->findings[0].at_teardown);
}
