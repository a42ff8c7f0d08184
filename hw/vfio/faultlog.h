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
 *           (EP: the endpoint, a PCI device's requester id; QEMU 7.2 sends no
 *           direction, "[]", and reports every access of a blocked DMA)
 *
 * A leaf: it knows hw/iommu.h only.
 */

/* What vfio_fault_parse() found. */
enum {
	VFIO_FAULT_REPORT = 1,       /* a report about the device */
	VFIO_FAULT_NO_DIRECTION = 2, /* ... that does not say read or write */
};

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
 * Return: VFIO_FAULT_REPORT for such a report, VFIO_FAULT_NO_DIRECTION for
 * one that does not say whether it was a read or a write (@f says a read:
 * the caller knows better), 0 for any other record.
 */
int vfio_fault_parse(const struct vfio_fault_source *src, const char *rec, struct hw_fault *f);

/**
 * vfio_iommu_model_of() - the IOMMU a PCI device is behind, from what sysfs
 * says of it (/sys/bus/pci/devices/BDF/iommu): VT-d's are named "dmar*",
 * AMD-Vi's "ivhd*"; virtio-iommu's is named after its transport's device
 * (a PCI address), and its sysfs device is the virtio device, of the
 * virtio-iommu id.
 * @iommu: the IOMMU's name (the link's last component).
 * @pci_id: its sysfs device's "VENDOR:DEVICE" (virtio-iommu: "0x1af4:0x0017"
 *          on the virtio bus), or NULL when it has none.
 *
 * Return: the model, or -ENOENT for none of them.
 */
int vfio_iommu_model_of(const char *iommu, const char *pci_id);

#endif
