/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <string.h>

#include "iommu.h"

static const char *const hw_model_names[HW_MODEL_N] = {
	[HW_MODEL_VTD] = "vtd",
	[HW_MODEL_AMD_VI] = "amd-vi",
	[HW_MODEL_VIRTIO] = "virtio",
};

const char *hw_iommu_model_name(enum hw_iommu_model m)
{
	return (unsigned int)m < HW_MODEL_N ? hw_model_names[m] : NULL;
}

int hw_iommu_model_parse(const char *name)
{
	for (int m = 0; m < HW_MODEL_N; m++)
		if (!strcmp(name, hw_model_names[m]))
			return m;
	return -EINVAL;
}
