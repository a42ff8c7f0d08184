/* SPDX-License-Identifier: MIT */
/*
 * The conformance cases on the simulator, as the IOMMU model in
 * GPUISO_SIM_MODEL (vtd, amd-vi, virtio; vtd when unset) behaves.
 */
#include <stdlib.h>

#include "conformance.h"
#include "hw/sim/sim.h"

int conf_backend_open(struct physmem *pm, struct hw **hw)
{
	static const uint64_t vram[] = { (uint64_t)64 << 20, (uint64_t)64 << 20 };
	const char *name = getenv("GPUISO_SIM_MODEL");
	int model = name ? hw_iommu_model_parse(name) : HW_MODEL_VTD;
	struct sim_config cfg = {
		.pm = pm,
		.ndevs = ARRAY_SIZE(vram),
		.vram_bytes = vram,
	};

	if (model < 0)
		return model;
	cfg.model = (enum hw_iommu_model)model;
	sim_cost_default(cfg.model, &cfg.cost);
	return sim_create(&cfg, hw);
}
