/* SPDX-License-Identifier: MIT */
/*
 * trace_emit N [EXPECT_FILE] [--harness]: emits N gpuiso_wl events of every
 * kind through trace_wl(), with field values derived from (kind, field,
 * repetition) so that a swapped or truncated field shows, then exits 0.
 * Every event it emitted is written to EXPECT_FILE as wl_format() text, one
 * per line, for test_trace.c to compare with what babeltrace2 read back.
 * With --harness it also emits one of each gpuiso:* event (see test_trace.c
 * for the values).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay/trace.h"

/* Value of field @f of kind @k in repetition @i; repetition 0 tests the top bits. */
static uint64_t value(unsigned int k, unsigned int f, uint64_t i)
{
	if (i == 0)
		return UINT64_MAX - (uint64_t)(k * WL_MAX_FIELDS + f);
	return ((uint64_t)(k + 1) << 40) | ((uint64_t)(f + 1) << 32) | i;
}

int main(int argc, char **argv)
{
	FILE *expect = NULL;
	bool harness = false;
	char *end;
	unsigned long long n;

	if (argc < 2) {
		fprintf(stderr, "usage: trace_emit N [EXPECT_FILE] [--harness]\n");
		return 2;
	}
	errno = 0;
	n = strtoull(argv[1], &end, 10);
	if (errno || *end || end == argv[1]) {
		fprintf(stderr, "trace_emit: bad count '%s'\n", argv[1]);
		return 2;
	}
	for (int a = 2; a < argc; a++) {
		if (!strcmp(argv[a], "--harness")) {
			harness = true;
		} else if (!expect) {
			expect = fopen(argv[a], "w");
			if (!expect) {
				perror(argv[a]);
				return 1;
			}
		}
	}

	for (uint64_t i = 0; i < n; i++) {
		for (unsigned int k = 0; k < WL_NKINDS; k++) {
			const struct wl_desc *d = &wl_catalogue[k];
			struct wl_event e = { .ts = i, .kind = k };
			char line[512];

			for (unsigned int f = 0; f < d->nfields; f++)
				e.v[d->fields[f].slot] = value(k, f, i);
			trace_wl(&e);
			if (expect)
				fprintf(expect, "%s\n", wl_format(&e, line, sizeof(line)));
		}
	}

	if (harness) {
		struct core_fault fault = { .adapter = 1, .phys = 2, .iova = 0xdead000,
					    .write = true, .reason = 5, .domain = 3,
					    .cause = CORE_FAULT_AFTER_FREE, .event = 9,
					    .by_event = 7 };
		struct core_power_record pr = { .adapter = 3, .phys = 1, .to = POWER_D3,
						.path = PATH_CHUNKED, .completed = true,
						.bytes = 1u << 20, .chunks = 16, .copy_ns = 12345 };
		struct core_violation v = { .code = CORE_V_UNMAP_AFTER_FREE, .event = 77 };

		trace_op(WL_MAP_MDL, 1, 42, -12, 1000, 2000, 99);
		trace_dma_fault(&fault);
		trace_fault_injected(FP_IOMMU_MAP);
		trace_power(&pr);
		trace_violation(&v);
	}
	if (expect && fclose(expect)) {
		perror("trace_emit: expect file");
		return 1;
	}
	return 0;
}
