/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_HW_SIM_H
#define GPUISO_HW_SIM_H

#include "hw/iommu.h"
#include "hw/physmem.h"

/*
 * The simulated IOMMU backend: per-domain 4-level radix I/O page tables
 * (4 KiB, 2 MiB and 1 GiB pages, 48-bit input addresses), an IOTLB, a DMA
 * engine that translates every access, simulated GPUs (sparse VRAM, a copy
 * engine with a work queue) over a struct physmem, and a deterministic cost
 * model.
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
};

/**
 * sim_cost_default() - the documented default cost model.
 * @cost: filled with the defaults (see docs/cost-model.md).
 */
void sim_cost_default(struct sim_cost_model *cost);

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

struct sim_config {
	struct physmem *pm;            /* system memory DMA reaches; not owned */
	unsigned int ndevs;            /* simulated GPUs */
	const uint64_t *vram_bytes;    /* [ndevs] VRAM size of each: a page multiple up to
					* SIM_MAX_VRAM; 0 for a GPU without VRAM */
	unsigned int iotlb_entries;    /* 0 for the default (512) */
	struct sim_cost_model cost;
};

/**
 * sim_create() - make a simulated IOMMU with its devices.
 * @cfg: configuration; copied.
 * @out: out: the backend; free with hw->ops->destroy().
 *
 * Return: 0, -EINVAL for a bad configuration, -ENOMEM.
 */
int sim_create(const struct sim_config *cfg, struct hw **out);

#endif
