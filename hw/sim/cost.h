/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_HW_SIM_COST_H
#define GPUISO_HW_SIM_COST_H

#include <stdint.h>

#include "hw/iommu.h"

/*
 * What a scenario may set of the simulator, without making one: its cost
 * model and its limits. Making one is hw_backend_open()'s (hw/backend.h).
 */

/*
 * Cycles charged per hardware event, and the clock that turns cycles into
 * modeled nanoseconds. Deterministic: the same operations give the same
 * modeled time on any machine.
 */
struct sim_cost_model {
	uint32_t clock_mhz;        /* device clock; modeled_ns = cycles * 1000 / clock_mhz */
	uint32_t pte_write;        /* per page-table entry written or cleared */
	uint32_t pt_walk_level;    /* per level visited by a page-table walk */
	uint32_t iotlb_hit;        /* per translation served by the IOTLB */
	uint32_t iotlb_miss;       /* per translation that missed (plus its walk) */
	uint32_t iotlb_invalidate; /* per IOTLB entry invalidated */
	uint32_t dma_setup;        /* per DMA transfer or copy job */
	uint32_t bytes_per_cycle;  /* DMA/copy bandwidth */
	uint32_t request;          /* per map or unmap request to the host (virtio-iommu) */
};

/**
 * sim_cost_default() - the documented default cost model of an IOMMU model.
 * @model: the model.
 * @cost: filled with its defaults (see docs/cost-model.md).
 */
void sim_cost_default(enum hw_iommu_model model, struct sim_cost_model *cost);

/**
 * sim_cost_ns() - modeled nanoseconds of a set of counters.
 * @cost: the cost model.
 * @st: counters (modeled_ns is ignored).
 *
 * Return: the modeled time in ns.
 */
uint64_t sim_cost_ns(const struct sim_cost_model *cost, const struct hw_stats *st);

/* The most simulated GPUs one backend holds. */
#define SIM_MAX_DEVS 64
/* The most VRAM a simulated GPU has: 4 PiB (its sparse store's limit). */
#define SIM_MAX_VRAM ((uint64_t)1 << 52)

#endif
