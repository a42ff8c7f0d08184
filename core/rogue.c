/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define LOG_PREFIX "core"
#include "common/log.h"
#include "gate_internal.h"
#include "hwcall_internal.h"
#include "internal.h"

/*
 * DMA a device starts on its own (docs/model.md, "Blocked DMA"): at an
 * address of its choosing (a device gone rogue), or through a handle the
 * driver freed, at the addresses the object had (blocked.c remembers them).
 * What the IOMMU blocks is a fault record; what reaches memory the device
 * was not given, an exposure.
 */

const struct core_exposure *core_exposures(const struct core *core, size_t *n)
{
	*n = core->exposures.n;
	return core->exposures.data;
}

/* What every DMA a device starts on its own needs: an adapter, started, a length it can move. */
static int dma_check(struct core *c, unsigned int adapter, unsigned int phys, uint64_t address,
		     uint64_t bytes, struct adapter **out)
{
	struct adapter *a = adapter_get(c, adapter);

	if (!a || phys >= a->nphys)
		return -ENOENT;
	if (!a->started)
		return -ENODEV;
	if (!bytes || bytes > hwc_vram_size(c, a, phys))
		return -EINVAL;
	if (address + bytes < address)
		return -ERANGE;
	*out = a;
	return 0;
}

/* dma_check(), and a scheduler that runs: work the trace submits now. */
static int dma_enter(struct core *c, unsigned int adapter, unsigned int phys, uint64_t address,
		     uint64_t bytes, struct adapter **out)
{
	int rc = dma_check(c, adapter, phys, address, bytes, out);

	if (!rc && (*out)->sched_suspended) {
		viol(c, CORE_V_WORK_IN_EXCLUSIVE, "%s: GPU work submitted while the scheduler is suspended",
		     (*out)->cfg->name);
		return -EPERM;
	}
	return rc;
}

int core_dma_raw(struct core *core, unsigned int adapter, unsigned int phys, uint64_t address,
		 uint64_t bytes, bool write)
{
	struct adapter *a;
	int rc = dma_enter(core, adapter, phys, address, bytes, &a);

	return rc ? rc : device_dma(core, a, phys, address, bytes, write, false);
}

int core_dma_exclusive(struct core *core, unsigned int adapter, unsigned int phys,
		       uint64_t address, uint64_t bytes, bool write)
{
	struct armed_dma d = { .phys = phys, .address = address, .bytes = bytes, .write = write };
	struct adapter *a;
	int rc = dma_check(core, adapter, phys, address, bytes, &a);

	return rc ? rc : vec_push(&a->armed, &d);
}

static const struct tomb *tomb_of(const struct core *c, core_handle_t h)
{
	uint64_t n = GPUISO_MIN(c->tombs_next, (uint64_t)CORE_TOMBS);

	for (uint64_t i = 1; h && i <= n; i++) {
		const struct tomb *t = &c->tombs[(c->tombs_next - i) % CORE_TOMBS];

		if (t->h == h)
			return t;
	}
	return NULL;
}

int core_dma_stale(struct core *core, unsigned int adapter, unsigned int phys, core_handle_t h,
		   uint64_t offset, uint64_t bytes, bool write)
{
	const struct tomb *t = tomb_of(core, h);
	struct adapter *a;
	int rc;

	if (!t || t->adapter != adapter)
		return -ENOENT;
	rc = dma_enter(core, adapter, phys, 0, bytes, &a);
	if (rc)
		return rc;
	if (offset + bytes < offset || offset + bytes > t->npages * GPUISO_PAGE_SIZE)
		return -ERANGE;
	if (t->logical)
		return device_dma(core, a, phys, t->iova + offset, bytes, write, true);
	for (size_t r = 0; r < t->runs.n && bytes && !rc; r++) {
		const struct phys_run *run = &phys_runs_array(&t->runs)[r];
		uint64_t run_bytes = run->npages * GPUISO_PAGE_SIZE, len;

		if (offset >= run_bytes) {
			offset -= run_bytes;
			continue;
		}
		len = GPUISO_MIN(bytes, run_bytes - offset);
		rc = device_dma(core, a, phys, run->pa + offset, len, write, true);
		bytes -= len;
		offset = 0;
	}
	return rc;
}
