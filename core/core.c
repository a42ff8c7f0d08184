/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LOG_PREFIX "core"
#include "common/log.h"
#include "adapter_internal.h"
#include "domain_internal.h"
#include "gate_internal.h"
#include "handle_internal.h"
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
	c->exposures.elem = sizeof(struct core_exposure);
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
		a->armed.elem = sizeof(struct armed_dma);
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
	blocked_fini(core);
	for (size_t i = 0; i < core->nadapters; i++) {
		struct adapter *a = &core->adapters[i];

		for (size_t j = 0; a->phys && j < a->nphys; j++)
			free(a->phys[j].reserved);
		free(a->phys);
		free(a->sections);
		range_fini(&a->iova);
		range_fini(&a->vram);
		idmap_free(&a->idmap);
		phys_runs_free(&a->held);
		vec_free(&a->armed);
	}
	free(core->adapters);
	handle_table_free(&core->ht);
	vec_free(&core->violations);
	vec_free(&core->faults);
	vec_free(&core->exposures);
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
	core->op = "teardown"; /* what unmaps or fails from here on does so in it */
	if (core->fp)
		core->fp->op = core->op;
	for (size_t i = 0; i < core->nadapters; i++) {
		struct adapter *a = &core->adapters[i];

		adapter_stop(core, a);
		/* armed for an exclusive access that never came: the device issues it as it stops */
		for (size_t j = 0; j < a->armed.n; j++) {
			const struct armed_dma *d = &((const struct armed_dma *)a->armed.data)[j];

			device_dma(core, a, d->phys, d->address, d->bytes, d->write, false);
		}
		vec_free(&a->armed);
	}
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
