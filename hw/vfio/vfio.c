/* SPDX-License-Identifier: MIT */
/*
 * The VFIO backend: opening the device (vfio_create()) and closing it, what
 * it can do, and its ops table. Its domains and mappings are in
 * vfio_space.c, its DMA and the kernel's fault reports in vfio_dma.c, its
 * VRAM and copy engine in vfio_vram.c (vfio_internal.h: what they share).
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <linux/vfio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/sparse.h"
#include "edu.h"
#include "faultlog.h"
#include "ioas.h"
#include "vfio.h"
#include "vfio_internal.h"

/* --- what the backend is, and what it did --- */

static void op_stats(struct hw *hw, struct hw_stats *stats)
{
	*stats = to_vfio(hw)->st;
}

static void op_query_caps(struct hw *hw, struct hw_caps *caps)
{
	struct vfio *v = to_vfio(hw);

	*caps = (struct hw_caps){ .name = v->name, .pgsize_bitmap = v->ioas->pgsizes,
				  .iova_bits = v->iova_bits, .dma_bits = v->engine ? EDU_DMA_BITS : 0,
				  .ndevs = 1, .model = v->src.model };
}

/* --- opening --- */

static void op_destroy(struct hw *hw)
{
	struct vfio *v = to_vfio(hw);

	if (v->attached)
		vfio_op_detach(hw, 0);
	for (uint32_t i = 0; i < VFIO_MAX_DOMAINS; i++)
		if (v->doms[i].used)
			vfio_op_domain_free(hw, i + 1);
	if (v->staging && v->ioas)
		vfio_space_unmap(v, VFIO_STAGING_IOVA, GPUISO_PAGE_SIZE);
	free(v->staging);
	if (v->bar0)
		munmap(v->bar0, v->bar0_size);
	if (v->ioas)
		v->ioas->ops->close(v->ioas);
	if (v->ioas)
		vfio_journal_say(v, "gpuiso-vfio close\n");
	if (v->journal >= 0)
		close(v->journal);
	if (v->kmsg >= 0)
		close(v->kmsg);
	sparse_fini(&v->vram);
	free(v);
}

static const struct hw_ops vfio_ops = {
	.destroy = op_destroy,
	.query_caps = op_query_caps,
	.domain_alloc = vfio_op_domain_alloc,
	.domain_free = vfio_op_domain_free,
	.attach = vfio_op_attach,
	.detach = vfio_op_detach,
	.map = vfio_op_map,
	.unmap = vfio_op_unmap,
	.flush = vfio_op_flush,
	.dma = vfio_op_dma,
	.fault_pop = vfio_op_fault_pop,
	.stats = op_stats,
	.vram_size = vfio_op_vram_size,
	.vram_rw = vfio_op_vram_rw,
	.vram_fill = vfio_op_vram_fill,
	.vram_digest = vfio_op_vram_digest,
	.power = vfio_op_power,
	.gpu_submit = vfio_op_gpu_submit,
	.gpu_wait = vfio_op_gpu_wait,
	.gpu_pending = vfio_op_gpu_pending,
};

static int map_bar0(struct vfio *v);

/* Bits of IOVA the reported ranges reach (the IOMMU's input width). */
static unsigned int iova_width(const struct vfio *v)
{
	uint64_t top = 0;
	unsigned int bits = 0;

	for (size_t i = 0; i < v->ioas->nranges; i++)
		top = GPUISO_MAX(top, v->ioas->ranges[i].last);
	while (bits < 64 && top >> bits)
		bits++;
	return bits;
}

/* Read (or write) @len bytes of the device's PCI configuration space at @off. */
static int config_rw(struct vfio *v, unsigned int off, void *buf, size_t len, bool write)
{
	struct vfio_region_info reg = { .argsz = sizeof(reg), .index = VFIO_PCI_CONFIG_REGION_INDEX };
	ssize_t n;

	if (ioctl(v->ioas->device, VFIO_DEVICE_GET_REGION_INFO, &reg))
		return -EIO;
	n = write ? pwrite(v->ioas->device, buf, len, (off_t)(reg.offset + off))
		  : pread(v->ioas->device, buf, len, (off_t)(reg.offset + off));
	return n == (ssize_t)len ? 0 : -EIO;
}

/* Set bus mastering in the PCI command register: edu's DMA does nothing without it. */
static int bus_master(struct vfio *v)
{
	uint16_t cmd;
	int rc = config_rw(v, 4, &cmd, 2, false);

	cmd |= 0x4;
	return rc ? rc : config_rw(v, 4, &cmd, 2, true);
}

/* Whether the device is one whose DMA engine gpuiso drives (its IDs, then its registers). */
static bool has_engine(struct vfio *v)
{
	uint16_t id[2];

	if (config_rw(v, 0, id, sizeof(id), false) || id[0] != EDU_VENDOR || id[1] != EDU_DEVICE)
		return false;
	return !map_bar0(v) && !edu_probe(&v->edu);
}

static int map_bar0(struct vfio *v)
{
	struct vfio_region_info reg = { .argsz = sizeof(reg), .index = VFIO_PCI_BAR0_REGION_INDEX };
	void *p;

	if (ioctl(v->ioas->device, VFIO_DEVICE_GET_REGION_INFO, &reg) || !(reg.flags & VFIO_REGION_INFO_FLAG_MMAP))
		return -EIO;
	p = mmap(NULL, reg.size, PROT_READ | PROT_WRITE, MAP_SHARED, v->ioas->device, (off_t)reg.offset);
	if (p == MAP_FAILED)
		return -errno;
	v->bar0 = p;
	v->bar0_size = reg.size;
	v->edu.bar0 = p;
	return 0;
}

/* Which IOMMU group the device is in, and whether vfio-pci drives it. */
static int device_group(struct vfio *v, char *group, size_t len, char *err, size_t errlen)
{
	char path[PATH_MAX], link[PATH_MAX];
	ssize_t n;

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/driver", v->bdf);
	n = readlink(path, link, sizeof(link) - 1);
	if (n < 0 && access(path, F_OK) && errno == ENOENT) {
		snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s", v->bdf);
		if (access(path, F_OK)) {
			snprintf(err, errlen, "%s: no such PCI device", v->bdf);
			return -ENODEV;
		}
	}
	if (n < 0 || (link[n] = '\0', strcmp(basename(link), "vfio-pci"))) {
		snprintf(err, errlen,
			 "%s is %s, not bound to vfio-pci: echo vfio-pci > /sys/bus/pci/devices/%s/driver_override; "
			 "echo %s > /sys/bus/pci/drivers_probe (with its driver unbound first)",
			 v->bdf, n < 0 ? "bound to no driver" : "bound to another driver", v->bdf, v->bdf);
		return -ENODEV;
	}
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/iommu_group", v->bdf);
	n = readlink(path, link, sizeof(link) - 1);
	if (n < 0) {
		snprintf(err, errlen, "%s: no IOMMU group (is the IOMMU enabled? intel_iommu=on)", v->bdf);
		return -ENODEV;
	}
	link[n] = '\0';
	snprintf(group, len, "/dev/vfio/%s", basename(link));
	return 0;
}

/*
 * Whose words the kernel's fault reports about the device are in: the
 * IOMMU it is behind (its sysfs link). One gpuiso does not know is read as
 * VT-d's: its reports are not recognised, and faults are recorded from the
 * mappings (hw_stats.faults_unreported).
 */
/* The word in /sys/class/iommu/@iommu/device/@attr into @buf (16 bytes): true, or false when there is none. */
static bool iommu_device_attr(const char *iommu, const char *attr, char buf[16])
{
	char path[PATH_MAX];
	FILE *f;
	bool ok;

	snprintf(path, sizeof(path), "/sys/class/iommu/%.200s/device/%s", iommu, attr);
	f = fopen(path, "r");
	if (!f)
		return false;
	ok = fscanf(f, "%15s", buf) == 1;
	fclose(f);
	return ok;
}

static int fault_source(struct vfio *v, char *err, size_t errlen)
{
	char link[PATH_MAX], target[PATH_MAX], vendor[16], device[16], id[40];
	const char *name;
	bool has_id;
	ssize_t n;
	int model;

	snprintf(link, sizeof(link), "/sys/bus/pci/devices/%s/iommu", v->bdf);
	n = readlink(link, target, sizeof(target) - 1);
	target[n > 0 ? n : 0] = '\0';
	name = strrchr(target, '/') ? strrchr(target, '/') + 1 : target;
	/* the IOMMU's own device: VENDOR:DEVICE */
	has_id = iommu_device_attr(name, "vendor", vendor) && iommu_device_attr(name, "device", device);
	if (has_id)
		snprintf(id, sizeof(id), "%s:%s", vendor, device);
	model = vfio_iommu_model_of(name, has_id ? id : NULL);
	if (vfio_fault_source_init(&v->src, model < 0 ? HW_MODEL_VTD : (enum hw_iommu_model)model,
				   v->bdf)) {
		snprintf(err, errlen, "%s: not a PCI address (DDDD:BB:DD.F)", v->bdf);
		return -EINVAL;
	}
	return 0;
}

/* The device and its address space: iommufd where the kernel has it, else a type1 container. */
static int open_ioas(struct vfio *v, const char *group, enum hw_iommu_api iommu, char *err, size_t errlen)
{
	if (iommu == HW_IOMMU_AUTO)
		iommu = vfio_iommufd_available(v->bdf) ? HW_IOMMU_IOMMUFD : HW_IOMMU_TYPE1;
	return iommu == HW_IOMMU_IOMMUFD ? vfio_iommufd_open(v->bdf, &v->ioas, err, errlen)
					    : vfio_type1_open(v->bdf, group, &v->ioas, err, errlen);
}

int vfio_create(const struct vfio_config *cfg, struct hw **out, char *err, size_t errlen)
{
	struct vfio *v = calloc(1, sizeof(*v));
	char group[PATH_MAX];
	int rc;

	*out = NULL;
	if (!v)
		return -ENOMEM;
	v->hw.ops = &vfio_ops;
	v->pm = cfg->pm;
	v->kmsg = -1;
	v->journal = -1;
	v->powered = true;
	snprintf(v->bdf, sizeof(v->bdf), "%s", cfg->bdf);
	rc = fault_source(v, err, errlen);
	if (!rc)
		rc = sparse_init(&v->vram, cfg->vram_bytes ? cfg->vram_bytes : (uint64_t)64 << 20);
	if (!rc && cfg->journal) {
		v->journal = open(cfg->journal, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
		if (v->journal < 0) {
			rc = -errno;
			snprintf(err, errlen, "journal %s: %s", cfg->journal, strerror(errno));
		}
	}
	if (!rc)
		rc = device_group(v, group, sizeof(group), err, errlen);
	if (!rc)
		rc = open_ioas(v, group, cfg->iommu, err, errlen);
	if (!rc) {
		vfio_journal_say(v, "gpuiso-vfio open api=%s bdf=%s\n", v->ioas->api, v->bdf);
		snprintf(v->name, sizeof(v->name), "vfio/%s", v->ioas->api);
		/* a device whose DMA engine gpuiso does not know still maps and unmaps */
		v->engine = has_engine(v);
		v->iova_bits = v->engine ? EDU_DMA_BITS : iova_width(v);
	}
	if (!rc && v->engine && (rc = bus_master(v)))
		snprintf(err, errlen, "%s: cannot enable bus mastering", v->bdf);
	if (!rc && v->engine) {
		v->staging = aligned_alloc(GPUISO_PAGE_SIZE, GPUISO_PAGE_SIZE);
		rc = !v->staging ? -ENOMEM : vfio_space_map(v, VFIO_STAGING_IOVA, v->staging, GPUISO_PAGE_SIZE, HW_PERM_RW);
		if (rc)
			snprintf(err, errlen, "%s: cannot map the driver's bounce page: %s", v->bdf, strerror(-rc));
	}
	if (!rc) {
		v->kmsg = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
		if (v->kmsg < 0 || lseek(v->kmsg, 0, SEEK_END) < 0) {
			snprintf(err, errlen, "/dev/kmsg: %s (the kernel's fault reports are read there)",
				 strerror(errno));
			rc = -EACCES;
		}
	}
	if (rc) {
		op_destroy(&v->hw);
		return rc;
	}
	*out = &v->hw;
	return 0;
}
