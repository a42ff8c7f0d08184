/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define LOG_PREFIX "domain"
#include "common/log.h"
#include "domain_internal.h"
#include "gate_internal.h"
#include "hwcall_internal.h"
#include "internal.h"

/* The exclusive-access bracket around every attach and detach of a domain. */

static uint64_t dma_count(struct core *c)
{
	struct hw_stats st;

	hwc_stats(c, &st);
	return st.dma_transfers;
}

/*
 * Dxgkrnl suspends the scheduler, lets in-flight work finish, then calls
 * DxgkDdiBeginExclusiveAccess. From here until the end call no callback is
 * accepted and the device must not touch system memory. Returns the DMA
 * count that exclusive_end() compares against.
 */
uint64_t exclusive_begin(struct core *c, struct adapter *a)
{
	uint64_t before;

	a->sched_suspended = true;
	for (size_t i = 0; i < a->nphys; i++)
		if (hwc_gpu_wait(c, a, (unsigned int)i))
			hw_err_pop(c, a, (unsigned int)i);
	before = dma_count(c);
	a->in_exclusive = true;
	/* the device does on its own what the trace armed it to: the hardware is not silent */
	for (size_t i = 0; i < a->armed.n; i++) {
		const struct armed_dma *d = &((const struct armed_dma *)a->armed.data)[i];

		device_dma(c, a, d->phys, d->address, d->bytes, d->write, false);
	}
	vec_free(&a->armed);
	if (a->started)
		c->kmd_merged.begin_exclusive_access(c, c->kmd, a->index);
	for (size_t i = 0; i < a->nphys; i++)
		if (hwc_gpu_pending(c, a, (unsigned int)i))
			viol(c, CORE_V_WORK_IN_EXCLUSIVE,
			     "%s: physical adapter %zu has work queued inside exclusive access",
			     a->cfg->name, i);
	return before;
}

void exclusive_end(struct core *c, struct adapter *a, uint64_t dma_before)
{
	uint64_t after = dma_count(c);

	if (after != dma_before)
		viol(c, CORE_V_DMA_IN_EXCLUSIVE,
		     "%s: %llu device DMA transfer(s) between Begin and EndExclusiveAccess",
		     a->cfg->name, (unsigned long long)(after - dma_before));
	if (a->started)
		c->kmd_merged.end_exclusive_access(c, c->kmd, a->index);
	a->in_exclusive = false;
	a->sched_suspended = false;
}

/* Attach (domain != CORE_NO_DOMAIN) or detach every physical adapter, under exclusive access. */
int attach_all(struct core *c, struct adapter *a, uint32_t domain)
{
	uint64_t dma_before = exclusive_begin(c, a);
	size_t i;
	int rc = 0;

	for (i = 0; i < a->nphys; i++) {
		struct phys_adapter *p = &a->phys[i];

		if (domain == CORE_NO_DOMAIN) {
			/* one the backend would not detach stays attached (an internal error) */
			if (p->domain != CORE_NO_DOMAIN && !hwc_detach(c, a, (unsigned int)i))
				p->domain = CORE_NO_DOMAIN;
			continue;
		}
		rc = fp_should_fail(c->fp, FP_DOMAIN_ATTACH) ? -EIO
			: hwc_attach(c, a, (unsigned int)i, domain);
		if (rc)
			break;
		p->domain = domain;
	}
	if (rc) {
		while (i--)
			if (!hwc_detach(c, a, (unsigned int)i))
				a->phys[i].domain = CORE_NO_DOMAIN;
	}
	exclusive_end(c, a, dma_before);
	return rc;
}
