/* SPDX-License-Identifier: MIT */
/*
 * The kernel's fault reports as the VFIO backend reads them
 * (hw/vfio/faultlog.h): each IOMMU driver's words, in /dev/kmsg records as
 * Linux 6.12 writes them, about our device and about others.
 */
#include <criterion/criterion.h>
#include <errno.h>

#include "hw/vfio/faultlog.h"

static struct vfio_fault_source src(enum hw_iommu_model model)
{
	struct vfio_fault_source s;

	cr_assert_eq(vfio_fault_source_init(&s, model, "0000:00:03.0"), 0);
	return s;
}

Test(faultlog, vtd_reports_with_their_reason)
{
	struct vfio_fault_source s = src(HW_MODEL_VTD);
	struct hw_fault f;

	cr_assert(vfio_fault_parse(&s, "3,512,9000000,-;DMAR: [DMA Write NO_PASID] Request device "
				   "[00:03.0] fault addr 0x8000123 [fault reason 0x05] PTE Write access "
				   "is not set", &f));
	cr_assert_eq(f.iova, 0x8000000);
	cr_assert(f.write);
	cr_assert_eq(f.reason, HW_FAULT_NO_WRITE);
	cr_assert(vfio_fault_parse(&s, "3,513,9000001,-;DMAR: [DMA Read NO_PASID] Request device "
				   "[00:03.0] fault addr 0x1000000000000 [fault reason 0x04] Access "
				   "beyond MGAW", &f));
	cr_assert_not(f.write);
	cr_assert_eq(f.reason, HW_FAULT_BEYOND_AW);
	cr_assert_not(vfio_fault_parse(&s, "3,514,9000002,-;DMAR: [DMA Read NO_PASID] Request device "
				       "[00:04.0] fault addr 0x1000 [fault reason 0x06] PTE Read access "
				       "is not set", &f), "another device");
	cr_assert_not(vfio_fault_parse(&s, "6,515,9000003,-;DMAR: DRHD: handling fault status reg 2",
				       &f), "the line before a report");
}

Test(faultlog, amd_vi_reports_by_the_device_or_in_the_event)
{
	struct vfio_fault_source s = src(HW_MODEL_AMD_VI);
	struct hw_fault f;

	cr_assert(vfio_fault_parse(&s, "3,700,5000,-;vfio-pci 0000:00:03.0: Event logged "
				   "[IO_PAGE_FAULT domain=0x0002 address=0x8000040 flags=0x0020]", &f));
	cr_assert_eq(f.iova, 0x8000000);
	cr_assert(f.write, "flags bit 5: a write");
	cr_assert_eq(f.reason, HW_FAULT_NO_WRITE);
	cr_assert(vfio_fault_parse(&s, "3,701,5001,-;AMD-Vi: Event logged [IO_PAGE_FAULT "
				   "device=0000:00:03.0 domain=0x0000 address=0x2000 flags=0x0000]", &f));
	cr_assert_eq(f.iova, 0x2000);
	cr_assert_not(f.write);
	cr_assert_eq(f.reason, HW_FAULT_NO_READ);
	cr_assert_not(vfio_fault_parse(&s, "3,702,5002,-;vfio-pci 0000:00:04.0: Event logged "
				       "[IO_PAGE_FAULT domain=0x0003 address=0x2000 flags=0x0020]", &f),
		      "another device");
	cr_assert_not(vfio_fault_parse(&s, "3,703,5003,-;DMAR: [DMA Write NO_PASID] Request device "
				       "[00:03.0] fault addr 0x1000 [fault reason 0x05] x", &f),
		      "another model's words");
}

Test(faultlog, virtio_reports_by_endpoint)
{
	struct vfio_fault_source s = src(HW_MODEL_VIRTIO);
	struct hw_fault f;

	cr_assert_eq(s.endpoint, 0x18, "00:03.0 is requester id 24");
	cr_assert(vfio_fault_parse(&s, "3,80,100,-;virtio_iommu virtio1: page fault from EP 24 at "
				   "0x8000010 [W]", &f));
	cr_assert_eq(f.iova, 0x8000000);
	cr_assert(f.write);
	cr_assert_eq(vfio_fault_parse(&s, "3,81,101,-;virtio_iommu virtio1: page fault from EP 24 at "
				      "0x3000 [R]", &f), VFIO_FAULT_REPORT);
	cr_assert_not(f.write);
	cr_assert_eq(f.reason, HW_FAULT_NO_READ);
	/* as QEMU 7.2 sends them: no direction */
	cr_assert_eq(vfio_fault_parse(&s, "3,84,104,-;virtio_iommu virtio0: page fault from EP 24 at "
				      "0x3000024 []", &f), VFIO_FAULT_NO_DIRECTION);
	cr_assert_eq(f.iova, 0x3000000);
	cr_assert_not(vfio_fault_parse(&s, "3,82,102,-;virtio_iommu virtio1: page fault from EP 32 at "
				       "0x3000 [R]", &f), "another endpoint");
	cr_assert_not(vfio_fault_parse(&s, "3,83,103,-;virtio_iommu virtio1: domain fault from EP 24",
				       &f), "no address: nothing to place");
}

Test(faultlog, models_by_their_sysfs_names_and_bad_addresses)
{
	struct vfio_fault_source s;

	cr_assert_eq(vfio_iommu_model_of("dmar0", NULL), HW_MODEL_VTD);
	cr_assert_eq(vfio_iommu_model_of("ivhd0", "0x1022:0x0020"), HW_MODEL_AMD_VI);
	/* as a QEMU 7.2 guest's sysfs has it: virtio-iommu-pci at 00:03.0, virtio0 below it */
	cr_assert_eq(vfio_iommu_model_of("0000:00:03.0", "0x1af4:0x0017"), HW_MODEL_VIRTIO);
	cr_assert_eq(vfio_iommu_model_of("0000:00:03.0", "0x1af4:0x1057"), HW_MODEL_VIRTIO);
	cr_assert_eq(vfio_iommu_model_of("0000:00:03.0", "0x1af4:0x0010"), -ENOENT, "virtio-gpu");
	cr_assert_eq(vfio_iommu_model_of("smmu3.0x0000000009050000", NULL), -ENOENT);
	cr_assert_eq(vfio_fault_source_init(&s, HW_MODEL_VTD, "00:03.0"), -EINVAL);
	cr_assert_eq(vfio_fault_source_init(&s, HW_MODEL_VTD, "0000:00:20.0"), -EINVAL);
	cr_assert_eq(vfio_fault_source_init(&s, HW_MODEL_VTD, "0000:01:1f.7"), 0);
	cr_assert_eq(s.endpoint, 0x1ff);
}
