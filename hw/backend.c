/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "backend.h"

int hw_backend_parse(const char *name, struct hw_backend_name *out, char *err, size_t errlen)
{
	const char *bdf, *opt, *end;
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
	memcpy(out->bdf, bdf, n);
	out->bdf[n] = '\0';
	for (; opt; opt = end) {
		opt++;
		end = strchr(opt, ',');
		n = end ? (size_t)(end - opt) : strlen(opt);
		if (n == strlen("iommu=type1") && !strncmp(opt, "iommu=type1", n)) {
			out->iommu = HW_IOMMU_TYPE1;
		} else if (n == strlen("iommu=iommufd") && !strncmp(opt, "iommu=iommufd", n)) {
			out->iommu = HW_IOMMU_IOMMUFD;
		} else if (!strncmp(opt, "journal=", 8) && n > 8 &&
			   n - 8 < sizeof(out->journal)) {
			memcpy(out->journal, opt + 8, n - 8);
			out->journal[n - 8] = '\0';
		} else {
			goto bad_name;
		}
	}
	out->kind = HW_BACKEND_VFIO;
	return 0;

bad_name:
	*out = (struct hw_backend_name){ .kind = HW_BACKEND_SIM };
	snprintf(err, errlen,
		 "unknown backend '%s' (sim, or vfio:BDF such as vfio:0000:00:03.0, optionally with "
		 ",iommu=type1 or ,iommu=iommufd, and ,journal=PATH)", name);
	return -EINVAL;
}
