/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_TESTS_HW_VFIO_ENV_H
#define GPUISO_TESTS_HW_VFIO_ENV_H

#include <stdlib.h>
#include <string.h>

#include "hw/backend.h"

/*
 * Which kernel interface the guest checks of scripts/vm-test run against:
 * $GPUISO_VFIO_IOMMU is "type1" or "iommufd" (the guest runs each suite
 * once per interface); unset, the backend chooses.
 */
static inline enum hw_iommu_api vfio_env_iommu(void)
{
	const char *s = getenv("GPUISO_VFIO_IOMMU");

	if (!s)
		return HW_IOMMU_AUTO;
	return !strcmp(s, "iommufd") ? HW_IOMMU_IOMMUFD : HW_IOMMU_TYPE1;
}

#endif
