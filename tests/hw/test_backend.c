/* SPDX-License-Identifier: MIT */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

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

/*
 * A backend's settings are read by it alone: the simulator refuses what it
 * does not know, each at its place, all in one go; VFIO reads none.
 */
Test(backend, settings_are_the_backends_own)
{
	static const struct hw_backend_name sim = { .kind = HW_BACKEND_SIM };
	static const struct hw_backend_name vfio = { .kind = HW_BACKEND_VFIO, .bdf = "0000:00:03.0" };
	struct hw_settings s = { .file = strdup("m.yaml") };
	char err[1024] = "";

	cr_assert_eq(hw_settings_add(&s, "iommu.model", "amd-vi", 2, 3, 2, 10), 0);
	cr_assert_eq(hw_settings_add(&s, "cost_model.iotlb_hit", "3", 4, 3, 4, 14), 0);
	cr_assert_eq(hw_backend_check(&sim, &s, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(hw_settings_add(&s, "iommu.width", "48", 5, 3, 5, 10), 0);
	cr_assert_eq(hw_settings_add(&s, "cost_model.clock_mhz", "0", 6, 3, 6, 14), 0);
	cr_assert_eq(hw_settings_add(&s, "cost_model.dma_setup", "0x1g", 7, 3, 7, 14), 0);
	cr_assert_eq(hw_backend_check(&sim, &s, err, sizeof(err)), -EINVAL);
	cr_assert_str_eq(err,
		"m.yaml:5:3: error: iommu: unknown key 'width' (expected one of: model)\n"
		"m.yaml:6:14: error: cost_model.clock_mhz: must not be zero\n"
		"m.yaml:7:14: error: cost_model.dma_setup: invalid integer '0x1g' (expected decimal "
		"or 0x hex)\n");
	cr_assert_eq(hw_backend_check(&vfio, &s, err, sizeof(err)), 0, "%s", err);
	cr_assert_str_eq(err, "");
	hw_settings_free(&s);
	cr_assert_eq(s.n, 0);
	cr_assert_null(s.file);
}
