/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LOG_PREFIX "core"
#include "common/log.h"
#include "gate_internal.h"
#include "handle_internal.h"
#include "hwcall_internal.h"
#include "internal.h"

/*
 * The gate every driver callback passes (the event and IRQL it is made at,
 * exclusive access, a started adapter, a machine that has not bugchecked),
 * and what the hardware reports back between calls (faults, stale IOTLB use).
 */

void core_set_event(struct core *core, uint64_t index, uint64_t ts_ns, const char *op)
{
	core->event = index;
	core->ts_ns = ts_ns;
	core->op = op;
	if (core->fp) {
		/* injection windows are in events and trace time */
		core->fp->event = index;
		core->fp->ts = ts_ns;
		core->fp->op = op;
	}
}

void core_set_irql(struct core *core, enum core_irql irql)
{
	core->irql = irql;
}

struct adapter *adapter_get(struct core *c, unsigned int adapter)
{
	return adapter < c->nadapters ? &c->adapters[adapter] : NULL;
}

/*
 * Callbacks "must be called at IRQL <= APC_LEVEL. Starting in WDDM 3.2,
 * drivers that call any of these functions are validated against this
 * requirement and bugcheck if the IRQL is DISPATCH_LEVEL or higher."
 * Before 3.2 nothing checks: the violation is recorded and the call goes
 * on. From 3.2 the machine stops: the violation is the last thing
 * recorded and every later callback fails.
 */
static int irql_check(struct core *c, struct adapter *a, const char *name)
{
	if (c->irql < CORE_IRQL_DISPATCH)
		return 0;
	if (a->cfg->wddm < SCN_WDDM(3, 2)) {
		viol(c, CORE_V_CB_IRQL, "%s called at IRQL %u (callbacks require IRQL <= APC_LEVEL); WDDM %u.%u does not validate it: the call goes on",
		     name, (unsigned int)c->irql, a->cfg->wddm / 10, a->cfg->wddm % 10);
		return 0;
	}
	c->bugcheck = (struct core_violation){ .code = CORE_V_CB_IRQL, .event = c->event,
					       .ts_ns = c->ts_ns };
	snprintf(c->bugcheck.detail, sizeof(c->bugcheck.detail),
		 "%s called at IRQL %u on %s (WDDM %u.%u): bugcheck, the machine stops", name,
		 (unsigned int)c->irql, a->cfg->name, a->cfg->wddm / 10, a->cfg->wddm % 10);
	viol(c, CORE_V_CB_IRQL, "%s", c->bugcheck.detail);
	c->bugchecked = true;
	return -EPERM;
}

/*
 * The gate every driver callback passes: IRQL (callbacks are legal at
 * PASSIVE or APC level only), exclusive access (no call between Begin and
 * EndExclusiveAccess), and a started adapter. After a bugcheck nothing runs.
 */
int cb_enter(struct core *c, unsigned int adapter, const char *name, struct adapter **out)
{
	struct adapter *a = adapter_get(c, adapter);
	int rc;

	if (c->bugchecked)
		return -ESHUTDOWN;
	if (!a)
		return -ENODEV;
	rc = irql_check(c, a, name);
	if (rc)
		return rc;
	if (a->in_exclusive) {
		viol(c, CORE_V_CB_IN_EXCLUSIVE, "%s called on %s between Begin and EndExclusiveAccess",
		     name, a->cfg->name);
		return -EPERM;
	}
	if (!a->started)
		return -ENODEV;
	*out = a;
	return 0;
}

const struct core_violation *core_bugcheck(const struct core *core)
{
	return core->bugchecked ? &core->bugcheck : NULL;
}

/* cb_enter() and handle_get() together: the start of every callback on a handle. */
struct hobj *cb_handle(struct core *c, unsigned int adapter, const char *name, core_handle_t h,
		       enum hkind kind, struct adapter **a, int *rc)
{
	struct hobj *o;

	*rc = cb_enter(c, adapter, name, a);
	if (*rc)
		return NULL;
	o = handle_get(c, h, kind, adapter, name);
	if (!o)
		*rc = -EINVAL;
	return o;
}

/* Move the faults the backend queued into the record. Returns how many. */
int hw_err_pop(struct core *c, struct adapter *a, unsigned int phys)
{
	struct hw_fault f;
	int n = 0;

	while (!hwc_fault_pop(c, &f)) {
		struct core_fault cf = {
			.event = c->event, .ts_ns = c->ts_ns, .adapter = a->index, .phys = phys,
			.iova = f.iova, .write = f.write, .reason = f.reason,
		};

		/* the fault names its device; map it back to its adapter when it differs */
		for (size_t i = 0; i < c->nadapters; i++)
			for (size_t j = 0; j < c->adapters[i].nphys; j++)
				if (c->adapters[i].phys[j].dev == f.dev) {
					cf.adapter = (unsigned int)i;
					cf.phys = (unsigned int)j;
				}
		cf.domain = c->adapters[cf.adapter].phys[cf.phys].domain;
		blocked_classify(c, &c->adapters[cf.adapter], &cf);
		if (vec_push(&c->faults, &cf))
			log_err("out of memory recording a DMA fault");
		n++;
	}
	return n;
}

void exposure_note(struct core *c, struct adapter *a, unsigned int phys, uint64_t address,
		   uint64_t bytes, bool write, enum core_exposure_how how)
{
	struct core_exposure x = { .event = c->event, .ts_ns = c->ts_ns, .adapter = a->index,
				   .phys = phys, .address = address, .bytes = bytes,
				   .write = write, .how = (uint8_t)how };

	if (vec_push(&c->exposures, &x))
		log_err("out of memory recording an exposure");
}

int device_wait(struct core *c, struct adapter *a, unsigned int phys, int submitted)
{
	/* after a refused submit too: what was queued before it runs, and may fault */
	int wait = hwc_gpu_wait(c, a, phys);

	if (wait == -EFAULT)
		hw_err_pop(c, a, phys);
	stale_check(c);
	return submitted ? submitted : wait;
}

int device_dma(struct core *c, struct adapter *a, unsigned int phys, uint64_t address,
	       uint64_t bytes, bool write, bool stale)
{
	struct hw_job job = { .dir = write ? HW_COPY_TO_SYSTEM : HW_COPY_FROM_SYSTEM,
			      .iova = address, .len = bytes };
	int rc = device_wait(c, a, phys, hwc_gpu_submit(c, a, phys, &job));

	if (!rc && a->phys[phys].domain == CORE_NO_DOMAIN)
		exposure_note(c, a, phys, address, bytes, write, CORE_EXPOSED_NO_DOMAIN);
	else if (!rc && stale)
		exposure_note(c, a, phys, address, bytes, write, CORE_EXPOSED_STALE);
	return rc;
}

/* A DMA that an IOTLB entry translated after its PTE was cleared broke isolation. */
void stale_check(struct core *c)
{
	struct hw_stats st;

	hwc_stats(c, &st);
	if (st.stale_hits > c->stale_seen) {
		viol(c, CORE_V_STALE_TRANSLATION,
		     "%llu access(es) translated by stale IOTLB entries (unmap without flush)",
		     (unsigned long long)(st.stale_hits - c->stale_seen));
		c->stale_seen = st.stale_hits;
	}
}
