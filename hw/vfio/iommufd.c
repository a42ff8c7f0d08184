/* SPDX-License-Identifier: MIT */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <linux/vfio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "hw/iommu.h"
#include "ioas.h"

/*
 * The kernel's iommufd interface (Linux 6.6 and later, with
 * CONFIG_IOMMUFD and CONFIG_VFIO_DEVICE_CDEV), spelled out here because the
 * C library's kernel headers may predate it: the ioctl numbers and argument
 * layouts of include/uapi/linux/iommufd.h and vfio.h that gpuiso uses.
 */
#define IOFD_TYPE ';'
#define IOFD_DESTROY _IO(IOFD_TYPE, 0x80)
#define IOFD_IOAS_ALLOC _IO(IOFD_TYPE, 0x81)
#define IOFD_IOAS_IOVA_RANGES _IO(IOFD_TYPE, 0x84)
#define IOFD_IOAS_MAP _IO(IOFD_TYPE, 0x85)
#define IOFD_IOAS_UNMAP _IO(IOFD_TYPE, 0x86)
#define IOFD_VFIO_BIND _IO(VFIO_TYPE, VFIO_BASE + 18)
#define IOFD_VFIO_ATTACH _IO(VFIO_TYPE, VFIO_BASE + 19)

enum {
	IOFD_MAP_FIXED_IOVA = 1 << 0,
	IOFD_MAP_WRITEABLE = 1 << 1,
	IOFD_MAP_READABLE = 1 << 2,
};

struct iofd_destroy {
	uint32_t size, id;
};

struct iofd_ioas_alloc {
	uint32_t size, flags, out_ioas_id;
};

struct iofd_range {
	uint64_t start, last;
};

struct iofd_ioas_iova_ranges {
	uint32_t size, ioas_id, num_iovas, reserved;
	uint64_t allowed_iovas; /* user pointer to struct iofd_range[num_iovas] */
	uint64_t out_iova_alignment;
};

struct iofd_ioas_map {
	uint32_t size, flags, ioas_id, reserved;
	uint64_t user_va, length, iova;
};

struct iofd_ioas_unmap {
	uint32_t size, ioas_id;
	uint64_t iova, length;
};

struct iofd_vfio_bind {
	uint32_t argsz, flags;
	int32_t iommufd;
	uint32_t out_devid;
};

struct iofd_vfio_attach {
	uint32_t argsz, flags, pt_id;
};

/*
 * Each layout above pinned to the kernel's. Debian 12's linux-libc-dev (6.1)
 * has no <linux/iommufd.h> and its <linux/vfio.h> predates the device
 * cdev, so the numbers are written out: they come from Linux 6.12 (the
 * guest kernel of scripts/vm-test), include/uapi/linux/iommufd.h
 * (struct iommu_destroy, iommu_ioas_alloc, iommu_iova_range,
 * iommu_ioas_iova_ranges, iommu_ioas_map, iommu_ioas_unmap and the
 * IOMMUFD_CMD_* numbers) and include/uapi/linux/vfio.h
 * (struct vfio_device_bind_iommufd and vfio_device_attach_iommufd_pt, as
 * introduced in 6.6). These are ABI: later kernels only append fields, which
 * the size in the first word tells them we do not pass.
 */
#define IOFD_PIN(type, field, off) \
	_Static_assert(offsetof(struct type, field) == (off), #type "." #field " moved")
#define IOFD_SIZE(type, n) _Static_assert(sizeof(struct type) == (n), #type " resized")

_Static_assert(IOFD_DESTROY == 0x3b80 && IOFD_IOAS_ALLOC == 0x3b81, "IOMMUFD_CMD_* numbers");
_Static_assert(IOFD_IOAS_IOVA_RANGES == 0x3b84 && IOFD_IOAS_MAP == 0x3b85 &&
		       IOFD_IOAS_UNMAP == 0x3b86,
	       "IOMMUFD_CMD_* numbers");
_Static_assert(IOFD_VFIO_BIND == 0x3b76 && IOFD_VFIO_ATTACH == 0x3b77,
	       "VFIO_DEVICE_{BIND,ATTACH}_IOMMUFD* numbers");
_Static_assert(IOFD_MAP_FIXED_IOVA == 1 && IOFD_MAP_WRITEABLE == 2 && IOFD_MAP_READABLE == 4,
	       "enum iommufd_ioas_map_flags");

IOFD_SIZE(iofd_destroy, 8); /* struct iommu_destroy */
IOFD_PIN(iofd_destroy, size, 0);
IOFD_PIN(iofd_destroy, id, 4);

IOFD_SIZE(iofd_ioas_alloc, 12); /* struct iommu_ioas_alloc */
IOFD_PIN(iofd_ioas_alloc, size, 0);
IOFD_PIN(iofd_ioas_alloc, flags, 4);
IOFD_PIN(iofd_ioas_alloc, out_ioas_id, 8);

IOFD_SIZE(iofd_range, 16); /* struct iommu_iova_range */
IOFD_PIN(iofd_range, start, 0);
IOFD_PIN(iofd_range, last, 8);

IOFD_SIZE(iofd_ioas_iova_ranges, 32); /* struct iommu_ioas_iova_ranges */
IOFD_PIN(iofd_ioas_iova_ranges, size, 0);
IOFD_PIN(iofd_ioas_iova_ranges, ioas_id, 4);
IOFD_PIN(iofd_ioas_iova_ranges, num_iovas, 8);
IOFD_PIN(iofd_ioas_iova_ranges, reserved, 12);
IOFD_PIN(iofd_ioas_iova_ranges, allowed_iovas, 16);
IOFD_PIN(iofd_ioas_iova_ranges, out_iova_alignment, 24);

IOFD_SIZE(iofd_ioas_map, 40); /* struct iommu_ioas_map */
IOFD_PIN(iofd_ioas_map, size, 0);
IOFD_PIN(iofd_ioas_map, flags, 4);
IOFD_PIN(iofd_ioas_map, ioas_id, 8);
IOFD_PIN(iofd_ioas_map, reserved, 12);
IOFD_PIN(iofd_ioas_map, user_va, 16);
IOFD_PIN(iofd_ioas_map, length, 24);
IOFD_PIN(iofd_ioas_map, iova, 32);

IOFD_SIZE(iofd_ioas_unmap, 24); /* struct iommu_ioas_unmap */
IOFD_PIN(iofd_ioas_unmap, size, 0);
IOFD_PIN(iofd_ioas_unmap, ioas_id, 4);
IOFD_PIN(iofd_ioas_unmap, iova, 8);
IOFD_PIN(iofd_ioas_unmap, length, 16);

IOFD_SIZE(iofd_vfio_bind, 16); /* struct vfio_device_bind_iommufd */
IOFD_PIN(iofd_vfio_bind, argsz, 0);
IOFD_PIN(iofd_vfio_bind, flags, 4);
IOFD_PIN(iofd_vfio_bind, iommufd, 8);
IOFD_PIN(iofd_vfio_bind, out_devid, 12);

IOFD_SIZE(iofd_vfio_attach, 12); /* struct vfio_device_attach_iommufd_pt */
IOFD_PIN(iofd_vfio_attach, argsz, 0);
IOFD_PIN(iofd_vfio_attach, flags, 4);
IOFD_PIN(iofd_vfio_attach, pt_id, 8);

/* An iommufd, one IOAS in it, and the device's character device attached to that IOAS. */
struct iofd {
	struct vfio_ioas io;
	int iommufd;
	uint32_t ioas;
};

static struct iofd *to_iofd(struct vfio_ioas *io)
{
	return container_of(io, struct iofd, io);
}

static int iofd_map(struct vfio_ioas *io, iova_t iova, void *vaddr, uint64_t size, unsigned int perm)
{
	struct iofd *f = to_iofd(io);
	struct iofd_ioas_map m = {
		.size = sizeof(m), .ioas_id = f->ioas,
		.flags = IOFD_MAP_FIXED_IOVA | ((perm & HW_PERM_READ) ? IOFD_MAP_READABLE : 0) |
			 ((perm & HW_PERM_WRITE) ? IOFD_MAP_WRITEABLE : 0),
		.user_va = (uintptr_t)vaddr, .length = size, .iova = iova,
	};

	return ioctl(f->iommufd, IOFD_IOAS_MAP, &m) ? -errno : 0;
}

static int iofd_unmap(struct vfio_ioas *io, iova_t iova, uint64_t size)
{
	struct iofd *f = to_iofd(io);
	struct iofd_ioas_unmap u = { .size = sizeof(u), .ioas_id = f->ioas, .iova = iova,
				     .length = size };

	return ioctl(f->iommufd, IOFD_IOAS_UNMAP, &u) ? -errno : 0;
}

static void iofd_close(struct vfio_ioas *io)
{
	struct iofd *f = to_iofd(io);

	/* closing the device detaches it; the IOAS goes once nothing holds it */
	if (io->device >= 0)
		close(io->device);
	if (f->ioas) {
		struct iofd_destroy d = { .size = sizeof(d), .id = f->ioas };

		ioctl(f->iommufd, IOFD_DESTROY, &d);
	}
	if (f->iommufd >= 0)
		close(f->iommufd);
	free(f);
}

static const struct vfio_ioas_ops iofd_ops = {
	.map = iofd_map,
	.unmap = iofd_unmap,
	.close = iofd_close,
};

/* The name of the device's VFIO character device ("vfio3"), from sysfs. */
static int cdev_name(const char *bdf, char *name, size_t len)
{
	char path[256];
	struct dirent *e;
	DIR *dir;
	int rc = -ENOTSUP;

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/vfio-dev", bdf);
	dir = opendir(path);
	if (!dir)
		return -ENOTSUP;
	while ((e = readdir(dir))) {
		if (!strncmp(e->d_name, "vfio", 4) && e->d_name[4] && strlen(e->d_name) < len) {
			memcpy(name, e->d_name, strlen(e->d_name) + 1);
			rc = 0;
			break;
		}
	}
	closedir(dir);
	return rc;
}

bool vfio_iommufd_available(const char *bdf)
{
	char name[64];

	return !access("/dev/iommu", F_OK) && !cdev_name(bdf, name, sizeof(name));
}

/* The IOVA ranges the IOAS allows, now that the device is attached (its reserved regions are out). */
static int iofd_ranges(struct iofd *f)
{
	struct iofd_range r[VFIO_IOAS_MAX_RANGES] = { 0 };
	struct iofd_ioas_iova_ranges q = { .size = sizeof(q), .ioas_id = f->ioas,
					   .num_iovas = VFIO_IOAS_MAX_RANGES,
					   .allowed_iovas = (uintptr_t)r };

	/* more ranges than gpuiso keeps: the kernel says EMSGSIZE, the first ones are filled in */
	if (ioctl(f->iommufd, IOFD_IOAS_IOVA_RANGES, &q) && errno != EMSGSIZE)
		return -errno;
	f->io.nranges = GPUISO_MIN(q.num_iovas, VFIO_IOAS_MAX_RANGES);
	for (size_t i = 0; i < f->io.nranges; i++) {
		f->io.ranges[i].start = r[i].start;
		f->io.ranges[i].last = r[i].last;
	}
	/* iommufd does not say which larger pages the page tables use: the smallest one */
	f->io.pgsizes = q.out_iova_alignment;
	return 0;
}

static int open_file(const char *path, int *fd, char *err, size_t errlen)
{
	int e;

	*fd = open(path, O_RDWR | O_CLOEXEC);
	if (*fd >= 0)
		return 0;
	e = errno;
	snprintf(err, errlen, "%s: %s%s", path, strerror(e),
		 e == EACCES || e == EPERM ? " (run as root, or give your user the device)" : "");
	return e == EACCES || e == EPERM ? -EACCES : -ENODEV;
}

static int iofd_setup(struct iofd *f, const char *bdf, char *err, size_t errlen)
{
	struct iofd_ioas_alloc alloc = { .size = sizeof(alloc) };
	char name[64], path[128];
	struct iofd_vfio_bind bind = { .argsz = sizeof(bind) };
	struct iofd_vfio_attach attach = { .argsz = sizeof(attach) };
	int rc;

	if (access("/dev/iommu", F_OK)) {
		snprintf(err, errlen, "/dev/iommu: %s: this kernel has no iommufd (CONFIG_IOMMUFD): "
			 "use vfio:%s,iommu=type1", strerror(errno), bdf);
		return -ENOTSUP;
	}
	if (cdev_name(bdf, name, sizeof(name))) {
		snprintf(err, errlen,
			 "%s: no VFIO character device (a kernel without CONFIG_VFIO_DEVICE_CDEV): "
			 "use vfio:%s,iommu=type1", bdf, bdf);
		return -ENOTSUP;
	}
	snprintf(path, sizeof(path), "/dev/vfio/devices/%s", name);
	rc = open_file("/dev/iommu", &f->iommufd, err, errlen);
	if (!rc)
		rc = open_file(path, &f->io.device, err, errlen);
	if (rc)
		return rc;
	bind.iommufd = f->iommufd;
	if (ioctl(f->io.device, IOFD_VFIO_BIND, &bind)) {
		int e = errno;

		snprintf(err, errlen, "%s: VFIO_DEVICE_BIND_IOMMUFD: %s", path, strerror(e));
		return e == EBUSY ? -EBUSY : -EIO;
	}
	if (ioctl(f->iommufd, IOFD_IOAS_ALLOC, &alloc)) {
		snprintf(err, errlen, "/dev/iommu: IOMMU_IOAS_ALLOC: %s", strerror(errno));
		return -EIO;
	}
	f->ioas = alloc.out_ioas_id;
	attach.pt_id = f->ioas;
	if (ioctl(f->io.device, IOFD_VFIO_ATTACH, &attach)) {
		snprintf(err, errlen, "%s: VFIO_DEVICE_ATTACH_IOMMUFD_PT: %s", path, strerror(errno));
		return -EIO;
	}
	rc = iofd_ranges(f);
	if (rc)
		snprintf(err, errlen, "/dev/iommu: IOMMU_IOAS_IOVA_RANGES: %s", strerror(-rc));
	return rc;
}

int vfio_iommufd_open(const char *bdf, struct vfio_ioas **out, char *err, size_t errlen)
{
	struct iofd *f = calloc(1, sizeof(*f));
	int rc;

	*out = NULL;
	if (!f)
		return -ENOMEM;
	f->io = (struct vfio_ioas){ .ops = &iofd_ops, .api = "iommufd", .device = -1 };
	f->iommufd = -1;
	rc = iofd_setup(f, bdf, err, errlen);
	if (rc) {
		iofd_close(&f->io);
		return rc;
	}
	*out = &f->io;
	return 0;
}
