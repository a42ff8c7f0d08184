/* SPDX-License-Identifier: MIT */
/* The conformance cases against the VFIO backend (in the guest of scripts/vm-test). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "conformance.h"
#include "hw/vfio/vfio.h"
#include "vfio_env.h"

int conf_backend_open(struct physmem *pm, struct hw **hw)
{
	struct vfio_config cfg = { .pm = pm, .bdf = getenv("GPUISO_VFIO_BDF"),
				   .vram_bytes = (uint64_t)64 << 20, .iommu = vfio_env_iommu() };
	char err[512] = "";
	int rc;

	if (!cfg.bdf) {
		fprintf(stderr, "GPUISO_VFIO_BDF is not set: scripts/vm-test runs this in its guest\n");
		return -ENODEV;
	}
	rc = vfio_create(&cfg, hw, err, sizeof(err));
	if (rc)
		fprintf(stderr, "%s\n", err);
	return rc;
}
