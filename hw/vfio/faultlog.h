/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_HW_VFIO_FAULTLOG_H
#define GPUISO_HW_VFIO_FAULTLOG_H

#include <stdbool.h>
#include <stdint.h>

#include "hw/iommu.h"

/*
 * The kernel's reports of blocked DMA, as each IOMMU's driver words them in
 * the kernel log (Linux 6.12):
 *
 *   VT-d    DMAR: [DMA Write NO_PASID] Request device [00:03.0] fault addr 0x8000000
 *           [fault reason 0x05] PTE Write access is not set
 *   AMD-Vi  vfio-pci 0000:00:03.0: Event logged [IO_PAGE_FAULT domain=0x0002
 *           address=0x8000000 flags=0x0020]  (or "device=0000:00:03.0 domain=...")
 *   virtio  virtio_iommu virtio1: page fault from EP 24 at 0x8000000 [W]
 *           (EP: the endpoint, a PCI device's requester id)
 *
 * A leaf: it knows hw/iommu.h only.
 */

/* The device whose reports are read. */
struct vfio_fault_source {
	enum hw_iommu_model model; /* whose words */
	char bdf[32];              /* "0000:00:03.0" */
	uint32_t endpoint;         /* its requester id: bus << 8 | device << 3 | function */
};

/**
 * vfio_fault_source_init() - the source of @bdf's reports on @model.
 * @src: out: the source.
 * @model: the IOMMU the device is behind.
 * @bdf: "DDDD:BB:DD.F".
 *
 * Return: 0, or -EINVAL when @bdf is not that.
 */
int vfio_fault_source_init(struct vfio_fault_source *src, enum hw_iommu_model model,
			   const char *bdf);

/**
 * vfio_fault_parse() - read one record of the kernel log as a fault report
 * about @src's device.
 * @src: the device and its IOMMU model.
 * @rec: the record's text (a line of /dev/kmsg: "PRIO,SEQ,TIME,FLAGS;TEXT").
 * @f: out: the fault (its page, its direction, the reason in VT-d's numbers:
 *     AMD-Vi and virtio-iommu report only a read or write not allowed).
 *
 * Return: true when @rec is such a report, false for any other record.
 */
bool vfio_fault_parse(const struct vfio_fault_source *src, const char *rec, struct hw_fault *f);

/**
 * vfio_iommu_model_of() - the IOMMU a PCI device is behind, from the name
 * its IOMMU has in sysfs (/sys/bus/pci/devices/BDF/iommu): "dmar" VT-d,
 * "ivhd" AMD-Vi, "virtio" virtio-iommu.
 * @iommu: that name (the link's last component).
 *
 * Return: the model, or -ENOENT for a name of none of them.
 */
int vfio_iommu_model_of(const char *iommu);

#endif
