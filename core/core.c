/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LOG_PREFIX "core"
#include "common/log.h"
#include "internal.h"

static void kmd_merge(struct core *c, const struct kmd_ops *ops)
{
	const struct kmd_ops *ref = kmd_reference();

	c->kmd_merged = *ref;
	if (!ops)
		return;
#define TAKE(f) if (ops->f) c->kmd_merged.f = ops->f
	TAKE(query_adapter_info);
	TAKE(start_device);
	TAKE(stop_device);
	TAKE(begin_exclusive_access);
	TAKE(end_exclusive_access);
	TAKE(build_paging_buffer);
	TAKE(set_power_state);
#undef TAKE
}

int core_create(const struct scenario *scn, struct hw_backend *be, struct core **out)
{
	struct core *c;
	uint32_t dev = 0;
	int rc;

	if (!scn || !scn->nadapters || !be || !be->hw)
		return -EINVAL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->scn = scn;
	c->violations.elem = sizeof(struct core_violation);
	c->faults.elem = sizeof(struct core_fault);
	c->power.elem = sizeof(struct core_power_record);
	kmd_merge(c, NULL);
	c->hw = be->hw;
	c->pm = &be->pm;
	c->adapters = calloc(scn->nadapters, sizeof(*c->adapters));
	if (!c->adapters) {
		rc = -ENOMEM;
		goto free_core;
	}
	c->nadapters = scn->nadapters;
	for (size_t i = 0; i < scn->nadapters; i++) {
		struct adapter *a = &c->adapters[i];

		a->index = (unsigned int)i;
		a->cfg = &scn->adapters[i];
		a->domain = CORE_NO_DOMAIN;
		a->nphys = a->cfg->nphys;
		a->phys = calloc(a->nphys, sizeof(*a->phys));
		a->sections = calloc(a->nphys, sizeof(*a->sections));
		if (!a->phys || !a->sections) {
			rc = -ENOMEM;
			goto free_core;
		}
		for (size_t j = 0; j < a->nphys; j++) {
			a->phys[j].dev = dev++;
			a->phys[j].domain = CORE_NO_DOMAIN;
			a->phys[j].powered = true;
		}
	}
	*out = c;
	return 0;

free_core:
	core_destroy(c);
	return rc;
}

void core_destroy(struct core *core)
{
	if (!core)
		return;
	if (core->started && !core->stopped)
		core_stop(core);
	for (size_t i = 0; i < core->nadapters; i++) {
		struct adapter *a = &core->adapters[i];

		for (size_t j = 0; a->phys && j < a->nphys; j++)
			free(a->phys[j].reserved);
		free(a->phys);
		free(a->sections);
		range_fini(&a->iova);
		range_fini(&a->vram);
		idmap_free(&a->idmap);
	}
	free(core->adapters);
	handle_table_free(&core->ht);
	vec_free(&core->violations);
	vec_free(&core->faults);
	vec_free(&core->power);
	free(core);
}

void core_set_kmd(struct core *core, const struct kmd_ops *ops, void *kmd)
{
	kmd_merge(core, ops);
	core->kmd = kmd;
}

const struct kmd_ops *core_kmd_reference(void)
{
	return kmd_reference();
}

void core_set_faults(struct core *core, struct fp_ctx *fp)
{
	core->fp = fp;
}

int core_start(struct core *core)
{
	if (core->started)
		return -EALREADY;
	core->started = true;
	for (size_t i = 0; i < core->nadapters; i++)
		adapter_start(core, &core->adapters[i]);
	return 0;
}

void core_stop(struct core *core)
{
	if (!core->started || core->stopped)
		return;
	core->stopped = true;
	core->irql = CORE_IRQL_PASSIVE; /* DxgkDdiStopDevice and what it frees run at PASSIVE_LEVEL */
	for (size_t i = 0; i < core->nadapters; i++)
		adapter_stop(core, &core->adapters[i]);
}

size_t core_adapter_count(const struct core *core)
{
	return core->nadapters;
}

int core_adapter_info(const struct core *core, unsigned int adapter, struct core_adapter_info *info)
{
	const struct adapter *a;

	if (adapter >= core->nadapters)
		return -ENOENT;
	a = &core->adapters[adapter];
	memset(info, 0, sizeof(*info));
	info->name = a->cfg->name;
	info->wddm = a->cfg->wddm;
	info->integrated = a->cfg->integrated;
	info->started = a->started;
	memcpy(info->start_error, a->start_error, sizeof(info->start_error));
	info->wddm30_memory = adapter_wddm30_memory(a);
	memcpy(info->certification, a->certification, sizeof(info->certification));
	info->iommu_enabled = a->iommu_enabled;
	info->mappings = a->mappings;
	info->attached = a->attached;
	info->attach_on = a->attach_on;
	info->domain = a->domain;
	info->mode = a->mode;
	info->logical_limit = a->mode == MODE_LOGICAL ? a->logical_limit : 0;
	info->nphys = a->nphys;
	info->nerrors = a->nerrors;
	memcpy(info->errors, a->errors, sizeof(info->errors));
	return 0;
}

int core_phys_info(const struct core *core, unsigned int adapter, unsigned int phys,
		   struct core_phys_info *info)
{
	const struct adapter *a;

	if (adapter >= core->nadapters || phys >= core->adapters[adapter].nphys)
		return -ENOENT;
	a = &core->adapters[adapter];
	info->domain = a->phys[phys].domain;
	info->save_area = a->sections[phys].bytes;
	info->saves = a->phys[phys].fb_bytes;
	info->save_off = a->phys[phys].fb_section_off;
	info->powered = a->phys[phys].powered;
	info->reset = a->phys[phys].reset;
	return 0;
}

void core_set_event(struct core *core, uint64_t index, uint64_t ts_ns)
{
	core->event = index;
	core->ts_ns = ts_ns;
	if (core->fp) {
		/* injection windows are in events and trace time */
		core->fp->event = index;
		core->fp->ts = ts_ns;
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

	while (!c->hw->ops->fault_pop(c->hw, &f)) {
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
		if (vec_push(&c->faults, &cf))
			log_err("out of memory recording a DMA fault");
		n++;
	}
	return n;
}

/* A DMA that an IOTLB entry translated after its PTE was cleared broke isolation. */
void stale_check(struct core *c)
{
	struct hw_stats st;

	c->hw->ops->stats(c->hw, &st);
	if (st.stale_hits > c->stale_seen) {
		viol(c, CORE_V_STALE_TRANSLATION,
		     "%llu access(es) translated by stale IOTLB entries (unmap without flush)",
		     (unsigned long long)(st.stale_hits - c->stale_seen));
		c->stale_seen = st.stale_hits;
	}
}

struct hw *core_hw(struct core *core)
{
	return core->hw;
}

struct physmem *core_physmem(struct core *core)
{
	return core->pm;
}

void core_memory(struct core *core, const struct physmem_pressure *p)
{
	physmem_set_pressure(core->pm, p);
}

int core_secure_vm_create(struct core *core, unsigned int adapter)
{
	struct adapter *a = adapter_get(core, adapter);
	int rc;

	if (!a)
		return -ENOENT;
	if (!a->started)
		return -ENODEV;
	if (core->scn->registry.secure_vm_staging) {
		/* AllowFailure does not apply here: no IOMMU support, no secure VM. */
		if (!a->caps.iommu_secure_mode)
			return -ENOTSUP;
		rc = dom_enable(core, a, true, true);
		if (rc)
			return rc;
	}
	a->secure_vms++;
	return 0;
}

int core_iommu_disable(struct core *core, unsigned int adapter)
{
	struct adapter *a = adapter_get(core, adapter);

	if (!a)
		return -ENOENT;
	return a->iommu_enabled ? -EPERM : -EINVAL;
}
