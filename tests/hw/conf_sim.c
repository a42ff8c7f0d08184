/* SPDX-License-Identifier: MIT */
#include "conformance.h"
#include "hw/sim/sim.h"

int conf_backend_open(struct physmem *pm, struct hw **hw)
{
	static const uint64_t vram[] = { (uint64_t)64 << 20, (uint64_t)64 << 20 };
	struct sim_config cfg = {
		.pm = pm,
		.ndevs = ARRAY_SIZE(vram),
		.vram_bytes = vram,
	};

	sim_cost_default(&cfg.cost);
	return sim_create(&cfg, hw);
}
