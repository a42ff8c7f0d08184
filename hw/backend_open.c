/* SPDX-License-Identifier: MIT */
/* The factory of backends: every backend is made here, from its name. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "backend.h"
#include "hw/sim/sim.h"
#include "hw/vfio/vfio.h"

int hw_backend_open(const struct hw_backend_name *name, const struct hw_machine *m,
		    struct hw_backend *b, char *err, size_t errlen)
{
	int rc;

	memset(b, 0, sizeof(*b));
	if (name->kind == HW_BACKEND_VFIO && m->ngpus != 1) {
		snprintf(err, errlen, "the vfio backend drives one device; the machine has %u GPUs",
			 m->ngpus);
		return -EINVAL;
	}
	rc = physmem_init(&b->pm, &m->memory);
	if (rc) {
		snprintf(err, errlen, "system memory: %s", strerror(-rc));
		return rc;
	}
	if (name->kind == HW_BACKEND_VFIO) {
		struct vfio_config vcfg = { .pm = &b->pm, .bdf = name->bdf, .iommu = name->iommu,
					    .vram_bytes = m->vram[0],
					    .journal = name->journal[0] ? name->journal : NULL };

		rc = vfio_create(&vcfg, &b->hw, err, errlen);
	} else {
		struct sim_config scfg = { .pm = &b->pm, .ndevs = m->ngpus, .vram_bytes = m->vram,
					   .cost = m->cost, .model = m->iommu_model };

		rc = sim_create(&scfg, &b->hw);
		if (rc)
			snprintf(err, errlen, "simulator: %s", strerror(-rc));
	}
	if (rc)
		goto fini_physmem;
	return 0;

fini_physmem:
	physmem_fini(&b->pm);
	b->hw = NULL;
	return rc;
}

void hw_backend_close(struct hw_backend *b)
{
	if (!b->hw)
		return;
	b->hw->ops->destroy(b->hw);
	physmem_fini(&b->pm);
	b->hw = NULL;
}
