/* SPDX-License-Identifier: MIT */
#include <criterion/criterion.h>
#include <errno.h>

#include "hw/backend.h"

static struct hw_backend_name parse_ok(const char *name)
{
	struct hw_backend_name b;
	char err[256] = "";

	cr_assert_eq(hw_backend_parse(name, &b, err, sizeof(err)), 0, "%s: %s", name, err);
	return b;
}

Test(backend, names)
{
	struct hw_backend_name b = parse_ok("sim");

	cr_assert_eq(b.kind, HW_BACKEND_SIM);
	b = parse_ok("vfio:0000:00:03.0");
	cr_assert_eq(b.kind, HW_BACKEND_VFIO);
	cr_assert_str_eq(b.bdf, "0000:00:03.0");
	cr_assert_eq(b.iommu, HW_IOMMU_AUTO);
	b = parse_ok("vfio:0000:00:03.0,iommu=type1");
	cr_assert_str_eq(b.bdf, "0000:00:03.0");
	cr_assert_eq(b.iommu, HW_IOMMU_TYPE1);
	b = parse_ok("vfio:0000:01:00.0,iommu=iommufd");
	cr_assert_str_eq(b.bdf, "0000:01:00.0");
	cr_assert_eq(b.iommu, HW_IOMMU_IOMMUFD);
	cr_assert_str_eq(b.journal, "");
	/* a journal, before or after the interface */
	b = parse_ok("vfio:0000:00:03.0,iommu=type1,journal=/sys/kernel/tracing/trace_marker");
	cr_assert_eq(b.iommu, HW_IOMMU_TYPE1);
	cr_assert_str_eq(b.journal, "/sys/kernel/tracing/trace_marker");
	b = parse_ok("vfio:0000:00:03.0,journal=/tmp/j,iommu=iommufd");
	cr_assert_eq(b.iommu, HW_IOMMU_IOMMUFD);
	cr_assert_str_eq(b.journal, "/tmp/j");
	cr_assert_str_eq(b.bdf, "0000:00:03.0");
}

Test(backend, bad_names_say_what_there_is)
{
	static const char *const bad[] = {
		"", "simulator", "vfio", "vfio:", "vfio:,iommu=type1", "vfio:0000:00:03.0,",
		"vfio:0000:00:03.0,iommu=", "vfio:0000:00:03.0,iommu=type2",
		"vfio:0000:00:03.0,iommu=iommufd,x", "vfio:0123456789012345678901234567890123456789",
		"vfio:0000:00:03.0,journal=", "vfio:0000:00:03.0,journal", "vfio:0000:00:03.0,iommu=type1x",
	};
	struct hw_backend_name b;
	char err[256];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		cr_assert_eq(hw_backend_parse(bad[i], &b, err, sizeof(err)), -EINVAL, "'%s'", bad[i]);
		cr_assert(strstr(err, "unknown backend") && strstr(err, "iommu=iommufd") &&
			  strstr(err, "journal=PATH"), "%s", err);
		cr_assert_eq(b.kind, HW_BACKEND_SIM, "'%s': half read", bad[i]);
	}
}
