/* SPDX-License-Identifier: MIT */
#include "sim.h"

/*
 * Defaults are round figures of the right order for a PCIe GPU behind a
 * VT-d class IOMMU at 1 GHz: a page-table entry write is a cached store, a
 * walk level is a memory read, an invalidation is a queued command. AMD-Vi
 * is charged alike. Behind virtio-iommu the guest writes no page table:
 * each map and unmap is a request the host serves (a virtqueue kick, an
 * exit to the host, its own mapping, a completion), of the order of 10 us.
 */
void sim_cost_default(enum hw_iommu_model model, struct sim_cost_model *cost)
{
	*cost = (struct sim_cost_model){
		.clock_mhz = 1000,
		.pte_write = 10,
		.pt_walk_level = 20,
		.iotlb_hit = 1,
		.iotlb_miss = 5,
		.iotlb_invalidate = 100,
		.dma_setup = 500,
		.bytes_per_cycle = 16,
	};
	if (model == HW_MODEL_VIRTIO) {
		cost->pte_write = 0;
		cost->request = 10000;
	}
}

uint64_t sim_cost_ns(const struct sim_cost_model *cost, const struct hw_stats *st)
{
	uint64_t cycles = 0;

	cycles += st->pte_writes * cost->pte_write;
	cycles += st->pt_walk_levels * cost->pt_walk_level;
	cycles += st->iotlb_hits * cost->iotlb_hit;
	cycles += st->iotlb_misses * cost->iotlb_miss;
	cycles += st->iotlb_invalidations * cost->iotlb_invalidate;
	cycles += st->dma_transfers * cost->dma_setup;
	cycles += st->requests * cost->request;
	if (cost->bytes_per_cycle)
		cycles += st->dma_bytes / cost->bytes_per_cycle;
	if (!cost->clock_mhz)
		return cycles;
	return cycles * 1000 / cost->clock_mhz;
}
