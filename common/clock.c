/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <string.h>

#include "clock.h"

#if defined(__x86_64__)
/* Whether /proc/cpuinfo lists both flags that make the TSC a clock. */
static bool tsc_invariant(void)
{
	bool constant = false, nonstop = false;
	char line[4096];
	FILE *f = fopen("/proc/cpuinfo", "r");

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "flags", 5))
			continue;
		constant = strstr(line, " constant_tsc") != NULL;
		nonstop = strstr(line, " nonstop_tsc") != NULL;
		break;
	}
	fclose(f);
	return constant && nonstop;
}

/*
 * One (TSC, CLOCK_MONOTONIC) pair: the TSC read on both sides of the
 * clock_gettime(), the narrowest of a few tries, so that being preempted
 * between the two reads cannot skew the pair.
 */
static void pair(uint64_t *tsc, uint64_t *ns)
{
	uint64_t best = UINT64_MAX;

	*tsc = *ns = 0; /* the first try always wins over UINT64_MAX */
	for (int i = 0; i < 8; i++) {
		uint64_t before = __rdtsc(), t = clock_mono_ns(), after = __rdtsc();

		if (after - before < best) {
			best = after - before;
			*tsc = before + (after - before) / 2;
			*ns = t;
		}
	}
}
#endif

void fast_clock_init(struct fast_clock *c, bool allow_tsc)
{
	*c = (struct fast_clock){ 0 };
#if defined(__x86_64__)
	if (allow_tsc && tsc_invariant()) {
		uint64_t k0, t0, k1, t1;

		pair(&k0, &t0);
		do
			pair(&k1, &t1);
		while (t1 - t0 < 500000);
		if (k1 > k0) {
			c->mult = (uint64_t)(((unsigned __int128)(t1 - t0) << 32) / (k1 - k0));
			c->tsc0 = k0;
			c->tsc = c->mult > 0;
		}
	}
#else
	(void)allow_tsc;
#endif
}
