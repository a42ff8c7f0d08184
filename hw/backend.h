/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_HW_BACKEND_H
#define GPUISO_HW_BACKEND_H

#include <stddef.h>

/*
 * Backend names, as --backend and the scenario's backend key spell them
 * (docs/backends.md): "sim", or "vfio:BDF" with an optional ",iommu=type1"
 * or ",iommu=iommufd" to choose the kernel interface.
 */

enum hw_backend_kind {
	HW_BACKEND_SIM,
	HW_BACKEND_VFIO,
};

/* Which kernel interface holds a VFIO device's mappings. */
enum hw_iommu_api {
	HW_IOMMU_AUTO = 0, /* iommufd if the kernel offers it for the device, else type1 */
	HW_IOMMU_TYPE1,    /* a type1 container through the device's IOMMU group */
	HW_IOMMU_IOMMUFD,  /* an iommufd IOAS and the device's character device */
};

struct hw_backend_name {
	enum hw_backend_kind kind;
	char bdf[32];            /* HW_BACKEND_VFIO: the PCI address */
	enum hw_iommu_api iommu; /* HW_BACKEND_VFIO: the interface asked for */
};

/**
 * hw_backend_parse() - read a backend name.
 * @name: e.g. "sim", "vfio:0000:00:03.0", "vfio:0000:00:03.0,iommu=iommufd".
 * @out: out: what it names.
 * @err: out: why not, listing the names there are.
 * @errlen: size of @err.
 *
 * Return: 0, or -EINVAL if @name names no backend.
 */
int hw_backend_parse(const char *name, struct hw_backend_name *out, char *err, size_t errlen);

#endif
