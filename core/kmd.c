/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <string.h>

#define LOG_PREFIX "kmd"
#include "common/log.h"
#include "adapter_internal.h"
#include "internal.h"

/*
 * The reference KMD: a well-behaved driver. It answers Dxgkrnl's queries
 * from the scenario, preallocates its forward-progress buffer at start
 * through the callbacks its mode allows, keeps its hardware silent during
 * exclusive access, and saves and restores the frame-buffer reserve as the
 * documented pseudocode does: pin the whole area and copy with the GPU, or
 * go chunk by chunk through the small buffer, or give up and reset.
 *
 * Its per-adapter state lives in struct phys_adapter (small, small_pmo).
 */

static int ref_query_adapter_info(struct core *c, void *kmd, unsigned int adapter,
				  enum qai_type type, unsigned int phys, void *out)
{
	const struct scn_adapter *cfg = &c->scn->adapters[adapter];

	switch (type) {
	case QAI_DRIVERCAPS: {
		struct scn_caps *caps = out;

		caps->iommu_secure_mode = cfg->caps.iommu_secure_mode;
		caps->map_aperture2 = cfg->caps.map_aperture2;
		return 0;
	}
	case QAI_PHYSICAL_MEMORY_CAPS:
		if (!cfg->caps.has_physical_caps)
			return -ENOTSUP;
		*(uint64_t *)out = cfg->caps.highest_visible_address;
		return 0;
	case QAI_IOMMU_CAPS:
		*(bool *)out = cfg->caps.iommu_linear_remap;
		return 0;
	case QAI_FRAMEBUFFERSAVESIZE:
		if (phys >= cfg->nphys)
			return -EINVAL;
		*(uint64_t *)out = cfg->phys[phys].fb_save_size;
		return 0;
	case QAI_FRAMEBUFFERSAVESIZE_NOW: {
		const struct phys_adapter *p;

		if (phys >= cfg->nphys)
			return -EINVAL;
		/* what the trace said it needs, else all of its part */
		p = &c->adapters[adapter].phys[phys];
		*(uint64_t *)out = p->save_size_set ? p->save_size : p->fb_bytes;
		return 0;
	}
	case QAI_HARDWARERESERVEDRANGES: {
		struct qai_reserved *q = out;

		if (phys >= cfg->nphys)
			return -EINVAL;
		if (!q->ranges) {
			q->count = cfg->phys[phys].nreserved;
			return 0;
		}
		if (q->count < cfg->phys[phys].nreserved)
			return -ENOSPC;
		memcpy(q->ranges, cfg->phys[phys].reserved,
		       cfg->phys[phys].nreserved * sizeof(*q->ranges));
		q->count = cfg->phys[phys].nreserved;
		return 0;
	}
	}
	return -EINVAL;
}

/*
 * PHYSICAL_ADAPTER::Init(): the small buffer, GPU-accessible, allocated
 * through callbacks: the WDDM 3.0 services when the driver reports linear
 * remapping (a PMO, an ADL over it for the GPU and a CPU view of it, since
 * an ADL's pages may be logical and never CPU-mapped), else an MDL.
 */
static void ref_stop_device(struct core *c, void *kmd, unsigned int adapter)
{
	struct adapter *a = &c->adapters[adapter];

	for (size_t i = 0; i < a->nphys; i++) {
		struct phys_adapter *p = &a->phys[i];

		if (p->small_pmo) {
			if (p->small)
				core_adl_free(c, adapter, p->small);
			if (p->small_cpu)
				core_pmo_unmap_cpu(c, adapter, p->small_cpu);
			core_pmo_destroy(c, adapter, p->small_pmo);
		} else if (p->small) {
			core_free_mdl(c, adapter, p->small);
		}
		p->small = p->small_cpu = p->small_pmo = 0;
	}
}

static int ref_start_device(struct core *c, void *kmd, unsigned int adapter)
{
	struct adapter *a = &c->adapters[adapter];
	uint64_t bytes = a->cfg->small_buffer ? a->cfg->small_buffer : GPUISO_PAGE_SIZE;
	int rc = 0;

	for (size_t i = 0; i < a->nphys && !rc; i++) {
		struct phys_adapter *p = &a->phys[i];

		if (adapter_wddm30_memory(a)) {
			rc = core_pmo_create(c, adapter, bytes, CACHE_CACHED, &p->small_pmo);
			if (!rc)
				rc = core_adl_alloc(c, adapter, p->small_pmo, 0, bytes, &p->small);
			if (!rc)
				rc = core_pmo_map_cpu(c, adapter, p->small_pmo, CPU_KERNEL, 0, bytes,
						      &p->small_cpu);
		} else {
			rc = core_alloc_mdl(c, adapter, bytes, &p->small);
			p->small_cpu = p->small;
		}
		p->small_bytes = rc ? 0 : ALIGN_UP(bytes, GPUISO_PAGE_SIZE);
	}
	if (rc) /* a driver whose start fails frees what it took */
		ref_stop_device(c, kmd, adapter);
	return rc;
}

static void ref_exclusive(struct core *c, void *kmd, unsigned int adapter)
{
	/* Nothing to do: the reference hardware is idle once Dxgkrnl flushed it. */
}

static int ref_build_paging_buffer(struct core *c, void *kmd, unsigned int adapter,
				   const struct paging_op *op)
{
	struct adapter *a = &c->adapters[adapter];

	/* With logical remapping the ADL arrives contiguous; the legacy MDL form never does. */
	if (a->mode == MODE_LOGICAL && op->kind == PAGING_MAP_APERTURE2 && !op->adl_contiguous)
		return -EINVAL;
	if (a->mode == MODE_LOGICAL && op->kind == PAGING_MAP_APERTURE)
		return -EINVAL;
	return 0;
}

/*
 * OnPowerDown / OnPowerUp. A failed GPU copy is handled like a failed
 * chunk mapping: the transfer is cancelled and the adapter reset.
 */
static int ref_set_power_state(struct core *c, void *kmd, unsigned int adapter,
			       unsigned int phys, enum power_state state)
{
	bool save = state == POWER_D3;
	enum hw_copy_dir dir = save ? HW_COPY_TO_SYSTEM : HW_COPY_FROM_SYSTEM;
	uint64_t vram_off, bytes, section_off, small_bytes, off;
	core_handle_t pinned, small, small_cpu, chunk;
	int rc;

	rc = core_fb_region(c, adapter, phys, &vram_off, &bytes, &section_off);
	if (rc || !bytes)
		return rc;
	if (!core_fb_pin(c, adapter, 0, phys, &pinned)) {
		rc = core_gpu_copy(c, adapter, phys, dir, vram_off, pinned, section_off, bytes);
		core_fb_unpin(c, adapter, 0, pinned);
		return rc;
	}
	rc = core_small_buffer(c, adapter, phys, &small, &small_cpu, &small_bytes);
	if (rc)
		return -EIO;
	for (off = 0; off < bytes; off += small_bytes) {
		uint64_t n = GPUISO_MIN(small_bytes, bytes - off);

		rc = core_fb_map_chunk(c, adapter, 0, phys, section_off + off, n, &chunk);
		if (rc)
			return -EIO; /* even a 4 KB mapping may not succeed: cancel, reset */
		if (save) {
			rc = core_gpu_copy(c, adapter, phys, dir, vram_off + off, small, 0, n);
			if (!rc)
				rc = core_view_copy(c, chunk, 0, small_cpu, 0, n);
		} else {
			rc = core_view_copy(c, small_cpu, 0, chunk, 0, n);
			if (!rc)
				rc = core_gpu_copy(c, adapter, phys, dir, vram_off + off, small, 0, n);
		}
		core_fb_unmap_chunk(c, adapter, 0, chunk);
		if (rc)
			return -EIO;
	}
	return 0;
}

static const struct kmd_ops reference_kmd = {
	.query_adapter_info = ref_query_adapter_info,
	.start_device = ref_start_device,
	.stop_device = ref_stop_device,
	.begin_exclusive_access = ref_exclusive,
	.end_exclusive_access = ref_exclusive,
	.build_paging_buffer = ref_build_paging_buffer,
	.set_power_state = ref_set_power_state,
};

const struct kmd_ops *kmd_reference(void)
{
	return &reference_kmd;
}
