/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <linux/vfio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "hw/iommu.h"
#include "ioas.h"

/* A type1 container: the device's group set to it, VFIO_TYPE1v2_IOMMU. */
struct type1 {
	struct vfio_ioas io;
	int container, group;
};

static struct type1 *to_type1(struct vfio_ioas *io)
{
	return container_of(io, struct type1, io);
}

static int type1_map(struct vfio_ioas *io, iova_t iova, void *vaddr, uint64_t size, unsigned int perm)
{
	struct vfio_iommu_type1_dma_map m = {
		.argsz = sizeof(m),
		.flags = ((perm & HW_PERM_READ) ? VFIO_DMA_MAP_FLAG_READ : 0) |
			 ((perm & HW_PERM_WRITE) ? VFIO_DMA_MAP_FLAG_WRITE : 0),
		.vaddr = (uintptr_t)vaddr, .iova = iova, .size = size,
	};

	return ioctl(to_type1(io)->container, VFIO_IOMMU_MAP_DMA, &m) ? -errno : 0;
}

static int type1_unmap(struct vfio_ioas *io, iova_t iova, uint64_t size)
{
	struct vfio_iommu_type1_dma_unmap u = { .argsz = sizeof(u), .iova = iova, .size = size };

	return ioctl(to_type1(io)->container, VFIO_IOMMU_UNMAP_DMA, &u) ? -errno : 0;
}

static void type1_close(struct vfio_ioas *io)
{
	struct type1 *t = to_type1(io);

	if (io->device >= 0)
		close(io->device);
	if (t->group >= 0)
		close(t->group);
	if (t->container >= 0)
		close(t->container);
	free(t);
}

static const struct vfio_ioas_ops type1_ops = {
	.map = type1_map,
	.unmap = type1_unmap,
	.close = type1_close,
};

/* The IOVA ranges (and the page sizes) the kernel reports for the container. */
static int type1_info(struct type1 *t)
{
	struct vfio_iommu_type1_info *info = calloc(1, 4096);
	struct vfio_info_cap_header *cap;
	int rc = 0;

	if (!info)
		return -ENOMEM;
	info->argsz = 4096;
	if (ioctl(t->container, VFIO_IOMMU_GET_INFO, info)) {
		rc = -errno;
		goto free_info;
	}
	t->io.pgsizes = info->iova_pgsizes;
	if (!(info->flags & VFIO_IOMMU_INFO_CAPS) || !info->cap_offset) {
		/* an old kernel: no ranges reported, assume all of them */
		t->io.ranges[0].start = 0;
		t->io.ranges[0].last = UINT64_MAX;
		t->io.nranges = 1;
		goto free_info;
	}
	for (uint32_t off = info->cap_offset; off && off < 4096; off = cap->next) {
		cap = (struct vfio_info_cap_header *)((uint8_t *)info + off);
		if (cap->id == VFIO_IOMMU_TYPE1_INFO_CAP_IOVA_RANGE) {
			struct vfio_iommu_type1_info_cap_iova_range *r = (void *)cap;

			for (uint32_t i = 0; i < r->nr_iovas && t->io.nranges < VFIO_IOAS_MAX_RANGES; i++) {
				t->io.ranges[t->io.nranges].start = r->iova_ranges[i].start;
				t->io.ranges[t->io.nranges++].last = r->iova_ranges[i].end;
			}
		}
	}
free_info:
	free(info);
	return rc;
}

static int type1_setup(struct type1 *t, const char *bdf, const char *group, char *err, size_t errlen)
{
	struct vfio_group_status status = { .argsz = sizeof(status) };
	int rc;

	t->group = open(group, O_RDWR);
	if (t->group < 0) {
		int e = errno;

		snprintf(err, errlen, "%s: %s%s", group, strerror(e),
			 e == EACCES || e == EPERM ? " (run as root, or give your user the group's device)" : "");
		return e == EACCES || e == EPERM ? -EACCES : -ENODEV;
	}
	if (ioctl(t->group, VFIO_GROUP_GET_STATUS, &status) || !(status.flags & VFIO_GROUP_FLAGS_VIABLE)) {
		snprintf(err, errlen,
			 "%s: the IOMMU group is not viable: bind every device of %s to vfio-pci (or no driver)",
			 bdf, group);
		return -EBUSY;
	}
	t->container = open("/dev/vfio/vfio", O_RDWR);
	if (t->container < 0) {
		int e = errno;

		snprintf(err, errlen, "/dev/vfio/vfio: %s", strerror(e));
		return e == EACCES ? -EACCES : -ENODEV;
	}
	if (ioctl(t->container, VFIO_GET_API_VERSION) != VFIO_API_VERSION ||
	    ioctl(t->container, VFIO_CHECK_EXTENSION, VFIO_TYPE1v2_IOMMU) <= 0) {
		snprintf(err, errlen, "/dev/vfio/vfio: no type1v2 IOMMU support in this kernel");
		return -ENOTSUP;
	}
	if (ioctl(t->group, VFIO_GROUP_SET_CONTAINER, &t->container) ||
	    ioctl(t->container, VFIO_SET_IOMMU, VFIO_TYPE1v2_IOMMU)) {
		snprintf(err, errlen, "%s: cannot set up the type1 container: %s", group, strerror(errno));
		return -EIO;
	}
	t->io.device = ioctl(t->group, VFIO_GROUP_GET_DEVICE_FD, bdf);
	if (t->io.device < 0) {
		snprintf(err, errlen, "%s: VFIO_GROUP_GET_DEVICE_FD: %s", bdf, strerror(errno));
		return -EIO;
	}
	rc = type1_info(t);
	if (rc)
		snprintf(err, errlen, "%s: VFIO_IOMMU_GET_INFO: %s", bdf, strerror(-rc));
	return rc;
}

int vfio_type1_open(const char *bdf, const char *group, struct vfio_ioas **out, char *err,
		    size_t errlen)
{
	struct type1 *t = calloc(1, sizeof(*t));
	int rc;

	*out = NULL;
	if (!t)
		return -ENOMEM;
	t->io = (struct vfio_ioas){ .ops = &type1_ops, .api = "type1", .device = -1 };
	t->container = t->group = -1;
	rc = type1_setup(t, bdf, group, err, errlen);
	if (rc) {
		type1_close(&t->io);
		return rc;
	}
	*out = &t->io;
	return 0;
}
