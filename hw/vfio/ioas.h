/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_HW_VFIO_IOAS_H
#define GPUISO_HW_VFIO_IOAS_H

#include <stddef.h>
#include <stdint.h>

#include "common/types.h"

/*
 * The I/O address space the VFIO backend puts its device's mappings in, in
 * front of the kernel's two interfaces for it: a type1 container reached
 * through the device's IOMMU group (hw/vfio/type1.c), or an iommufd IOAS
 * the device's character device is attached to (hw/vfio/iommufd.c). Either
 * opens the device too; the rest of the backend only maps and unmaps.
 */

#define VFIO_IOAS_MAX_RANGES 16

struct vfio_ioas;

/**
 * struct vfio_ioas_ops - what an I/O address space does.
 * @map: map @size bytes of the process's memory at @vaddr at @iova with
 *       HW_PERM_READ/HW_PERM_WRITE @perm; the pages are pinned until unmapped.
 *       Returns 0 or the kernel's negative errno (-ENOSPC: the container's
 *       mapping limit; -ENOMEM: the locked-memory limit; -EEXIST).
 * @unmap: unmap exactly what one @map mapped at @iova; 0 or negative errno.
 * @close: release the device and the address space, and free @io.
 */
struct vfio_ioas_ops {
	int (*map)(struct vfio_ioas *io, iova_t iova, void *vaddr, uint64_t size, unsigned int perm);
	int (*unmap)(struct vfio_ioas *io, iova_t iova, uint64_t size);
	void (*close)(struct vfio_ioas *io);
};

/**
 * struct vfio_ioas - an opened device and its I/O address space.
 * @ops: the interface's operations.
 * @api: "type1" or "iommufd".
 * @device: the VFIO device file (regions, configuration space).
 * @ranges: the IOVA ranges the kernel lets the device use, inclusive.
 * @nranges: how many of @ranges.
 * @pgsizes: page sizes the kernel says it maps (bit n: 2^n bytes).
 */
struct vfio_ioas {
	const struct vfio_ioas_ops *ops;
	const char *api;
	int device;
	struct {
		uint64_t start, last;
	} ranges[VFIO_IOAS_MAX_RANGES];
	size_t nranges;
	uint64_t pgsizes;
};

/**
 * vfio_type1_open() - open a device through its IOMMU group and a type1 container.
 * @bdf: the device's PCI address, bound to vfio-pci.
 * @group: its group's file, e.g. "/dev/vfio/7".
 * @out: out: the address space; free with ops->close().
 * @err: out: why not, saying what to do.
 * @errlen: size of @err.
 *
 * Return: 0; -EACCES, -EBUSY (the group is not viable), -ENOTSUP (no type1v2
 * IOMMU), -ENODEV, -ENOMEM or -EIO.
 */
int vfio_type1_open(const char *bdf, const char *group, struct vfio_ioas **out, char *err,
		    size_t errlen);

/**
 * vfio_iommufd_available() - whether the kernel offers iommufd for a device.
 * @bdf: the device's PCI address.
 *
 * Return: true if /dev/iommu exists and the device has a VFIO character device.
 */
bool vfio_iommufd_available(const char *bdf);

/**
 * vfio_iommufd_open() - open a device's character device and attach it to a new IOAS.
 * @bdf: the device's PCI address, bound to vfio-pci.
 * @out: out: the address space; free with ops->close().
 * @err: out: why not, saying what to do.
 * @errlen: size of @err.
 *
 * Return: 0; -EACCES, -ENOTSUP (the kernel has no iommufd, or the device no
 * character device), -ENODEV, -ENOMEM or -EIO.
 */
int vfio_iommufd_open(const char *bdf, struct vfio_ioas **out, char *err, size_t errlen);

#endif
