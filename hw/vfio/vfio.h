/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_HW_VFIO_H
#define GPUISO_HW_VFIO_H

#include <stddef.h>

#include "hw/backend.h"
#include "hw/iommu.h"
#include "hw/physmem.h"

/*
 * The real IOMMU backend: Linux VFIO in front of a PCI device bound to
 * vfio-pci, through iommufd (an IOAS the device's character device is
 * attached to) where the kernel has it, else a type1 container. Mappings are
 * real IOMMU page-table entries the kernel writes; DMA is the device's own, through its
 * DMA engine (hw/vfio/edu.h: QEMU's edu device); blocked accesses are the
 * kernel's DMAR fault reports, read back from /dev/kmsg.
 *
 * "Physical memory" is the harness's own: the pages of struct physmem's
 * store (pm->bytes) at physical address pa are what the IOMMU maps for pa,
 * pinned while mapped. One device; its VRAM is emulated in memory behind
 * the DMA engine. Domains are the backend's records: the address space holds
 * the mappings of the domain the device is attached to (a switch remaps), and
 * a device attached to no domain reaches nothing (VFIO has no passthrough).
 */

struct vfio_config {
	struct physmem *pm;     /* system memory; not owned */
	const char *bdf;        /* PCI address, e.g. "0000:00:03.0" */
	uint64_t vram_bytes;    /* emulated VRAM of the device */
	enum hw_iommu_api iommu; /* which interface (hw/backend.h) */
	/*
	 * A file (or ftrace's trace_marker, so that the lines land in the
	 * kernel's own record beside its iommu events) that gets one line,
	 * written at once, per IOMMU call of the backend, after the call:
	 *   gpuiso-vfio open api=type1|iommufd bdf=BDF
	 *   gpuiso-vfio map iova=0xIOVA size=0xSIZE rc=RC
	 *   gpuiso-vfio unmap iova=0xIOVA size=0xSIZE rc=RC
	 *   gpuiso-vfio close
	 * (close once the device and its address space are closed, the
	 * kernel having unmapped what was left); or NULL.
	 */
	const char *journal;
};

/**
 * vfio_create() - open the device through VFIO and make the backend.
 * @cfg: configuration; copied.
 * @out: out: the backend; free with hw->ops->destroy().
 * @err: out: why not, saying what to do.
 * @errlen: size of @err.
 *
 * A device whose DMA engine gpuiso does not drive (anything but edu) still
 * maps and unmaps (mapping latency, limits): its dma and copy-job ops return
 * -EOPNOTSUPP and hw_caps.dma_bits is 0.
 *
 * hw_caps.name says which interface holds the mappings: "vfio/iommufd" or
 * "vfio/type1".
 *
 * Return: 0; -ENODEV (no such device, or not bound to vfio-pci), -EBUSY (its
 * IOMMU group is not viable: another device of the group is bound to a host
 * driver), -EACCES (no permission on /dev/vfio or /dev/iommu), -ENOTSUP (no
 * type1 IOMMU, or iommufd asked for and the kernel lacks it), -ENOMEM, -EIO.
 */
int vfio_create(const struct vfio_config *cfg, struct hw **out, char *err, size_t errlen);

#endif
