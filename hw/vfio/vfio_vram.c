/* SPDX-License-Identifier: MIT */
/*
 * The device's VRAM, emulated in memory behind its DMA engine, and its copy
 * engine: a copy job moves every byte between VRAM and system memory
 * through the device's DMA (vfio_dma.c).
 */
#include <errno.h>

#include "common/sparse.h"
#include "edu.h"
#include "vfio_internal.h"

uint64_t vfio_op_vram_size(struct hw *hw, uint32_t dev)
{
	return dev == 0 ? to_vfio(hw)->vram.size : 0;
}

static int vram_check(struct vfio *v, uint32_t dev, uint64_t off, uint64_t len)
{
	if (dev != 0)
		return -ENOENT;
	if (off > v->vram.size || len > v->vram.size - off)
		return -ERANGE;
	return v->powered ? 0 : -EIO;
}

int vfio_op_vram_rw(struct hw *hw, uint32_t dev, uint64_t off, void *buf, uint64_t len, bool write)
{
	struct vfio *v = to_vfio(hw);
	int rc = vram_check(v, dev, off, len);

	if (rc)
		return rc;
	return write ? sparse_write(&v->vram, off, buf, len) : sparse_read(&v->vram, off, buf, len);
}

int vfio_op_vram_fill(struct hw *hw, uint32_t dev, uint64_t off, uint64_t len,
		      const void *pattern, uint64_t plen)
{
	struct vfio *v = to_vfio(hw);
	int rc = vram_check(v, dev, off, len);

	return rc ? rc : sparse_fill(&v->vram, off, len, pattern, plen);
}

int vfio_op_vram_digest(struct hw *hw, uint32_t dev, uint64_t off, uint64_t len, uint64_t *digest)
{
	struct vfio *v = to_vfio(hw);
	int rc = vram_check(v, dev, off, len);

	return rc ? rc : sparse_digest(&v->vram, off, len, digest);
}

int vfio_op_power(struct hw *hw, uint32_t dev, bool on)
{
	struct vfio *v = to_vfio(hw);

	if (dev != 0)
		return -ENOENT;
	if (on == v->powered)
		return 0;
	if (!on) {
		if (v->nqueued)
			return -EBUSY;
		sparse_discard(&v->vram, 0, v->vram.size);
	}
	v->powered = on;
	return 0;
}

int vfio_op_gpu_submit(struct hw *hw, uint32_t dev, const struct hw_job *job)
{
	struct vfio *v = to_vfio(hw);
	int rc = vram_check(v, dev, job->vram_off, job->len);

	if (rc)
		return rc;
	if (job->dir != HW_COPY_TO_SYSTEM && job->dir != HW_COPY_FROM_SYSTEM)
		return -EINVAL;
	if (!v->engine)
		return -EOPNOTSUPP;
	if (v->nqueued == VFIO_QUEUE)
		return -EBUSY;
	v->queue[v->nqueued++] = *job;
	return 0;
}

/* A copy job through the device's DMA engine, a page piece at a time via VRAM in memory. */
static int run_job(struct vfio *v, const struct hw_job *job)
{
	uint8_t piece[EDU_DMA_MAX];
	bool to_system = job->dir == HW_COPY_TO_SYSTEM;

	for (uint64_t done = 0; done < job->len;) {
		iova_t iova = job->iova + done;
		uint32_t n = (uint32_t)GPUISO_MIN(GPUISO_MIN(job->len - done, EDU_DMA_MAX),
					   GPUISO_PAGE_SIZE - (iova & (GPUISO_PAGE_SIZE - 1)));
		int rc;

		if (to_system)
			sparse_read(&v->vram, job->vram_off + done, piece, n);
		rc = vfio_dma_pages(v, iova, piece, n, to_system, vfio_device_dma);
		if (rc)
			return rc;
		if (!to_system)
			sparse_write(&v->vram, job->vram_off + done, piece, n);
		done += n;
	}
	return 0;
}

int vfio_op_gpu_wait(struct hw *hw, uint32_t dev)
{
	struct vfio *v = to_vfio(hw);
	int first = 0;

	if (dev != 0)
		return -ENOENT;
	for (unsigned int i = 0; i < v->nqueued; i++) {
		int rc = run_job(v, &v->queue[i]);

		if (rc && !first)
			first = rc;
	}
	v->nqueued = 0;
	return first;
}

unsigned int vfio_op_gpu_pending(struct hw *hw, uint32_t dev)
{
	return dev == 0 ? to_vfio(hw)->nqueued : 0;
}
