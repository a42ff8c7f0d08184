/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_CORE_CORE_KMD_H
#define GPUISO_CORE_CORE_KMD_H

#include "common/range.h"
#include "common/types.h"
#include "core/core_types.h"

/*
 * The KMD as Dxgkrnl sees it: the queries Dxgkrnl makes of it, the paging
 * operations it receives and its DDIs; the reference KMD is core/kmd.c.
 */

/* A MapApertureSegment2 (or legacy MapApertureSegment) the KMD received. */
struct paging_op {
	enum { PAGING_MAP_APERTURE, PAGING_MAP_APERTURE2, PAGING_UNMAP_APERTURE } kind;
	core_handle_t allocation;
	uint64_t offset_pages, pages;
	/* MAP_APERTURE2: the ADL */
	bool adl_logical;    /* pages are logical addresses */
	bool adl_contiguous; /* DXGK_ADL flag: one run */
	iova_t adl_base;     /* first page's address (as the device uses it) */
	uint64_t adl_offset; /* AdlOffset in pages */
	/*
	 * CpuVisibleAddress: a CPU view of the mapped pages (core_view_rw()),
	 * valid while the allocation is mapped into the aperture segment and
	 * freed right after the matching unmap; 0 (NULL) without
	 * MapApertureCpuVisible.
	 */
	core_handle_t cpu_visible_address;
};

/* Queries Dxgkrnl makes of the KMD (DXGKQAITYPE_*). */
enum qai_type {
	QAI_DRIVERCAPS,           /* out: struct scn_caps (VidMm caps part) */
	QAI_PHYSICAL_MEMORY_CAPS, /* out: uint64_t highest visible address; -ENOTSUP if none */
	QAI_IOMMU_CAPS,           /* out: bool linear remap supported */
	QAI_FRAMEBUFFERSAVESIZE,  /* in: phys; out: uint64_t bytes */
	QAI_HARDWARERESERVEDRANGES, /* in: phys; out: count, then array (two calls) */
	/*
	 * in: phys; out: uint64_t bytes the driver saves at this power-down
	 * ("the exact amount ... can change dynamically"); asked at each one,
	 * within the maximum of QAI_FRAMEBUFFERSAVESIZE. An error: the maximum.
	 */
	QAI_FRAMEBUFFERSAVESIZE_NOW,
};

struct qai_reserved {
	size_t count;               /* in/out */
	struct range_extent *ranges; /* NULL on the first call */
};

/* The KMD as Dxgkrnl sees it: the DDIs Dxgkrnl calls. */
struct kmd_ops {
	int (*query_adapter_info)(struct core *core, void *kmd, unsigned int adapter,
				  enum qai_type type, unsigned int phys, void *out);
	int (*start_device)(struct core *core, void *kmd, unsigned int adapter);
	void (*stop_device)(struct core *core, void *kmd, unsigned int adapter);
	void (*begin_exclusive_access)(struct core *core, void *kmd, unsigned int adapter);
	void (*end_exclusive_access)(struct core *core, void *kmd, unsigned int adapter);
	int (*build_paging_buffer)(struct core *core, void *kmd, unsigned int adapter,
				   const struct paging_op *op);
	int (*set_power_state)(struct core *core, void *kmd, unsigned int adapter,
			       unsigned int phys, enum power_state state);
};

/**
 * core_set_kmd() - replace the reference KMD (before core_start()).
 * @core: the model.
 * @ops: the DDIs; NULL members fall back to the reference KMD's.
 * @kmd: passed back to @ops.
 */
void core_set_kmd(struct core *core, const struct kmd_ops *ops, void *kmd);

/**
 * core_kmd_reference() - the reference KMD's DDIs (for a test KMD to wrap).
 *
 * Return: the ops table; its functions ignore the kmd argument.
 */
const struct kmd_ops *core_kmd_reference(void);

#endif
