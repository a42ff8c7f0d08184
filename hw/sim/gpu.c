/* SPDX-License-Identifier: MIT */
#include <errno.h>

#include "sim_internal.h"

/*
 * Simulated GPUs: sparse VRAM, reachable by the CPU through the BAR while
 * powered, and a copy engine whose jobs queue until gpu_wait() (or until the
 * queue is full, when the oldest runs to make room). Jobs run in the order
 * submitted, so the modeled time of a sequence does not depend on when the
 * caller waits.
 */

int sim_gpu_init(struct sim_dev *dv, uint64_t vram_bytes)
{
	*dv = (struct sim_dev){ .powered = true };
	/* An integrated GPU may have none: an empty store, where only empty ranges fit. */
	return vram_bytes ? sparse_init(&dv->vram, vram_bytes) : 0;
}

void sim_gpu_fini(struct sim_dev *dv)
{
	sparse_fini(&dv->vram);
}

static struct sim_dev *sim_gpu(struct sim *s, uint32_t dev)
{
	return dev < s->ndevs ? &s->devs[dev] : NULL;
}

static bool sim_vram_range_ok(const struct sim_dev *dv, uint64_t off, uint64_t len)
{
	return off <= dv->vram.size && len <= dv->vram.size - off;
}

uint64_t sim_op_vram_size(struct hw *hw, uint32_t dev)
{
	struct sim_dev *dv = sim_gpu(to_sim(hw), dev);

	return dv ? dv->vram.size : 0;
}

/* @dev's VRAM for a CPU access to [off, off+len): NULL with *err set when it cannot be. */
static struct sim_dev *vram_access(struct hw *hw, uint32_t dev, uint64_t off, uint64_t len, int *err)
{
	struct sim_dev *dv = sim_gpu(to_sim(hw), dev);

	*err = !dv ? -ENOENT : !sim_vram_range_ok(dv, off, len) ? -ERANGE
		/* A powered-off device does not answer on its BAR. */
		: !dv->powered ? -EIO : 0;
	return *err ? NULL : dv;
}

int sim_op_vram_rw(struct hw *hw, uint32_t dev, uint64_t off, void *buf, uint64_t len,
		   bool write)
{
	int err;
	struct sim_dev *dv = vram_access(hw, dev, off, len, &err);

	if (!dv)
		return err;
	return write ? sparse_write(&dv->vram, off, buf, len) : sparse_read(&dv->vram, off, buf, len);
}

int sim_op_vram_fill(struct hw *hw, uint32_t dev, uint64_t off, uint64_t len,
		     const void *pattern, uint64_t plen)
{
	int err;
	struct sim_dev *dv = vram_access(hw, dev, off, len, &err);

	return dv ? sparse_fill(&dv->vram, off, len, pattern, plen) : err;
}

int sim_op_vram_digest(struct hw *hw, uint32_t dev, uint64_t off, uint64_t len,
		       uint64_t *digest)
{
	int err;
	struct sim_dev *dv = vram_access(hw, dev, off, len, &err);

	if (!dv)
		return err;
	return sparse_digest(&dv->vram, off, len, digest);
}

int sim_op_power(struct hw *hw, uint32_t dev, bool on)
{
	struct sim_dev *dv = sim_gpu(to_sim(hw), dev);

	if (!dv)
		return -ENOENT;
	if (on == dv->powered)
		return 0;
	if (!on) {
		/* Queued jobs would read or write VRAM that is going away: wait first. */
		if (dv->count)
			return -EBUSY;
		sparse_discard(&dv->vram, 0, dv->vram.size);
	}
	dv->powered = on;
	return 0;
}

/* Run the oldest queued job; returns its result. */
static int sim_gpu_run_one(struct sim *s, uint32_t dev)
{
	struct sim_dev *dv = &s->devs[dev];
	struct hw_job job = dv->queue[dv->head];

	dv->head = (dv->head + 1) % SIM_QUEUE;
	dv->count--;
	return sim_dma_job(s, dev, &job);
}

int sim_op_gpu_submit(struct hw *hw, uint32_t dev, const struct hw_job *job)
{
	struct sim *s = to_sim(hw);
	struct sim_dev *dv = sim_gpu(s, dev);

	if (!dv)
		return -ENOENT;
	if (job->dir != HW_COPY_TO_SYSTEM && job->dir != HW_COPY_FROM_SYSTEM)
		return -EINVAL;
	if (!sim_vram_range_ok(dv, job->vram_off, job->len))
		return -ERANGE;
	if (!dv->powered)
		return -EIO;
	if (dv->count == SIM_QUEUE) {
		int err = sim_gpu_run_one(s, dev);

		if (!dv->err)
			dv->err = err;
	}
	dv->queue[(dv->head + dv->count) % SIM_QUEUE] = *job;
	dv->count++;
	return 0;
}

int sim_op_gpu_wait(struct hw *hw, uint32_t dev)
{
	struct sim *s = to_sim(hw);
	struct sim_dev *dv = sim_gpu(s, dev);
	int err;

	if (!dv)
		return -ENOENT;
	while (dv->count) {
		int job_err = sim_gpu_run_one(s, dev);

		if (!dv->err)
			dv->err = job_err;
	}
	err = dv->err;
	dv->err = 0;
	return err;
}

unsigned int sim_op_gpu_pending(struct hw *hw, uint32_t dev)
{
	struct sim_dev *dv = sim_gpu(to_sim(hw), dev);

	return dv ? dv->count : 0;
}
