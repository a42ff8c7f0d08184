/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_HW_SIM_H
#define GPUISO_HW_SIM_H

#include "hw/iommu.h"
#include "hw/physmem.h"
#include "hw/sim/cost.h"

/*
 * The simulated IOMMU backend: per-domain 4-level radix I/O page tables
 * (4 KiB, 2 MiB and 1 GiB pages, 48-bit input addresses), an IOTLB, a DMA
 * engine that translates every access, simulated GPUs (sparse VRAM, a copy
 * engine with a work queue) over a struct physmem, and a deterministic cost
 * model. Its IOMMU model (docs/backends.md, "IOMMU models") decides what a
 * flush invalidates, whether an unmap invalidates by itself, what a fault
 * past the address width reports and what a map or unmap costs.
 */

struct sim_config {
	struct physmem *pm;            /* system memory DMA reaches; not owned */
	unsigned int ndevs;            /* simulated GPUs */
	const uint64_t *vram_bytes;    /* [ndevs] VRAM size of each: a page multiple up to
					* SIM_MAX_VRAM; 0 for a GPU without VRAM */
	unsigned int iotlb_entries;    /* 0 for the default (512) */
	enum hw_iommu_model model;     /* how it invalidates and reports faults */
	struct sim_cost_model cost;
};

struct hw_settings;

/**
 * sim_settings_read() - the simulator's model and costs from a scenario's
 * settings (hw/backend.h): iommu.model, then cost_model.* over its defaults.
 * @s: the settings, or NULL for none (VT-d at its default costs).
 * @cfg: its model and cost are set; nothing else is touched.
 * @err: out: a line per setting refused, appended.
 * @errlen: size of @err.
 *
 * Return: 0, or -EINVAL (@cfg untouched).
 */
int sim_settings_read(const struct hw_settings *s, struct sim_config *cfg, char *err,
		      size_t errlen);

/**
 * sim_create() - make a simulated IOMMU with its devices.
 * @cfg: configuration; copied.
 * @out: out: the backend; free with hw->ops->destroy().
 *
 * Return: 0, -EINVAL for a bad configuration, -ENOMEM.
 */
int sim_create(const struct sim_config *cfg, struct hw **out);

#endif
