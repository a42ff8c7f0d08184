/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "backend.h"

int hw_backend_parse(const char *name, struct hw_backend_name *out, char *err, size_t errlen)
{
	const char *bdf, *opt;
	size_t n;

	*out = (struct hw_backend_name){ .kind = HW_BACKEND_SIM };
	if (!strcmp(name, "sim"))
		return 0;
	if (strncmp(name, "vfio:", 5))
		goto bad_name;
	bdf = name + 5;
	opt = strchr(bdf, ',');
	n = opt ? (size_t)(opt - bdf) : strlen(bdf);
	if (!n || n >= sizeof(out->bdf))
		goto bad_name;
	if (opt && !strcmp(opt, ",iommu=type1"))
		out->iommu = HW_IOMMU_TYPE1;
	else if (opt && !strcmp(opt, ",iommu=iommufd"))
		out->iommu = HW_IOMMU_IOMMUFD;
	else if (opt)
		goto bad_name;
	out->kind = HW_BACKEND_VFIO;
	memcpy(out->bdf, bdf, n);
	out->bdf[n] = '\0';
	return 0;

bad_name:
	snprintf(err, errlen,
		 "unknown backend '%s' (sim, or vfio:BDF such as vfio:0000:00:03.0, optionally with "
		 ",iommu=type1 or ,iommu=iommufd)", name);
	return -EINVAL;
}
