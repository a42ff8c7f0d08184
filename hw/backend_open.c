/* SPDX-License-Identifier: MIT */
/*
 * The factory of backends: every backend is made here, from its name, each
 * through its entry of one table. A backend's own settings are read by it
 * alone: nothing above hw/ knows what they mean.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "backend.h"
#include "hw/sim/sim.h"
#include "hw/vfio/vfio.h"

struct hw_backend_kind_ops {
	/* whether it takes these settings; err gains a line per one refused */
	int (*check)(const struct hw_settings *s, char *err, size_t errlen);
	/* make it on @pm, already made for the machine */
	int (*create)(const struct hw_backend_name *name, const struct hw_machine *m,
		      const struct hw_settings *s, struct physmem *pm, struct hw **out,
		      char *err, size_t errlen);
};

static int hw_sim_check(const struct hw_settings *s, char *err, size_t errlen)
{
	struct sim_config scratch = { 0 };

	return sim_settings_read(s, &scratch, err, errlen);
}

static int hw_sim_create(const struct hw_backend_name *name, const struct hw_machine *m,
			 const struct hw_settings *s, struct physmem *pm, struct hw **out,
			 char *err, size_t errlen)
{
	struct sim_config scfg = { .pm = pm, .ndevs = m->ngpus, .vram_bytes = m->vram };
	int rc = sim_settings_read(s, &scfg, err, errlen);

	if (rc)
		return rc;
	rc = sim_create(&scfg, out);
	if (rc)
		snprintf(err, errlen, "simulator: %s", strerror(-rc));
	return rc;
}

/* VFIO's IOMMU is the machine's: it has no settings of a scenario to read. */
static int hw_vfio_check(const struct hw_settings *s, char *err, size_t errlen)
{
	return 0;
}

static int hw_vfio_create(const struct hw_backend_name *name, const struct hw_machine *m,
			  const struct hw_settings *s, struct physmem *pm, struct hw **out,
			  char *err, size_t errlen)
{
	struct vfio_config vcfg = { .pm = pm, .bdf = name->bdf, .iommu = name->iommu,
				    .journal = name->journal[0] ? name->journal : NULL };

	if (m->ngpus != 1) {
		snprintf(err, errlen, "the vfio backend drives one device; the machine has %u GPUs",
			 m->ngpus);
		return -EINVAL;
	}
	vcfg.vram_bytes = m->vram[0];
	return vfio_create(&vcfg, out, err, errlen);
}

static const struct hw_backend_kind_ops hw_backend_kinds[] = {
	[HW_BACKEND_SIM] = { hw_sim_check, hw_sim_create },
	[HW_BACKEND_VFIO] = { hw_vfio_check, hw_vfio_create },
};

static const struct hw_backend_kind_ops *hw_backend_kind(const struct hw_backend_name *name,
							 char *err, size_t errlen)
{
	if ((size_t)name->kind >= ARRAY_SIZE(hw_backend_kinds)) {
		snprintf(err, errlen, "backend kind %d is none the factory makes (a defect)",
			 (int)name->kind);
		return NULL;
	}
	return &hw_backend_kinds[name->kind];
}

int hw_backend_check(const struct hw_backend_name *name, const struct hw_settings *settings,
		     char *err, size_t errlen)
{
	const struct hw_backend_kind_ops *k;

	if (errlen)
		err[0] = '\0';
	k = hw_backend_kind(name, err, errlen);
	return k ? k->check(settings, err, errlen) : -EINVAL;
}

int hw_backend_open(const struct hw_backend_name *name, const struct hw_machine *m,
		    const struct hw_settings *settings, struct hw_backend *b, char *err,
		    size_t errlen)
{
	const struct hw_backend_kind_ops *k;
	int rc;

	memset(b, 0, sizeof(*b));
	if (errlen)
		err[0] = '\0';
	k = hw_backend_kind(name, err, errlen);
	if (!k)
		return -EINVAL;
	rc = physmem_init(&b->pm, &m->memory);
	if (rc) {
		snprintf(err, errlen, "system memory: %s", strerror(-rc));
		return rc;
	}
	rc = k->create(name, m, settings, &b->pm, &b->hw, err, errlen);
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
