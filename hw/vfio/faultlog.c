/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common/types.h"
#include "faultlog.h"

int vfio_fault_source_init(struct vfio_fault_source *src, enum hw_iommu_model model,
			   const char *bdf)
{
	unsigned int dom, bus, dev, fn;
	char tail;

	if (sscanf(bdf, "%x:%x:%x.%x%c", &dom, &bus, &dev, &fn, &tail) != 4 || bus > 0xff ||
	    dev > 0x1f || fn > 7 || strlen(bdf) >= sizeof(src->bdf))
		return -EINVAL;
	*src = (struct vfio_fault_source){ .model = model, .endpoint = bus << 8 | dev << 3 | fn };
	snprintf(src->bdf, sizeof(src->bdf), "%s", bdf);
	return 0;
}

/* "DMAR: [DMA Write NO_PASID] Request device [00:03.0] fault addr 0x... [fault reason 0x05]" */
static int parse_dmar(const struct vfio_fault_source *src, const char *rec, struct hw_fault *f)
{
	const char *at = strstr(rec, "DMAR: [DMA "), *addr;
	unsigned long long a;
	unsigned int reason;
	char dev[32];

	snprintf(dev, sizeof(dev), "[%s]", src->bdf + 5);
	if (!at || !strstr(at, dev) || !(addr = strstr(at, "fault addr")) ||
	    sscanf(addr, "fault addr %llx [fault reason %x]", &a, &reason) != 2)
		return 0;
	*f = (struct hw_fault){ .iova = ALIGN_DOWN(a, GPUISO_PAGE_SIZE),
				.write = !strncmp(at + 11, "Write", 5), .reason = (uint8_t)reason };
	return VFIO_FAULT_REPORT;
}

/* "0000:00:03.0: Event logged [IO_PAGE_FAULT domain=... address=0x... flags=0x0020]" */
static int parse_amd(const struct vfio_fault_source *src, const char *rec, struct hw_fault *f)
{
	const char *at = strstr(rec, "Event logged [IO_PAGE_FAULT "), *addr;
	unsigned long long a;
	unsigned int flags;
	char dev[48];

	if (!at)
		return 0;
	/* the device: before the event (a driver's device), or in it (device=) */
	snprintf(dev, sizeof(dev), "device=%s ", src->bdf);
	if (!strstr(at, dev)) {
		snprintf(dev, sizeof(dev), " %s: Event logged", src->bdf);
		if (!strstr(rec, dev))
			return 0;
	}
	if (!(addr = strstr(at, "address=")) || sscanf(addr, "address=%llx flags=%x", &a, &flags) != 2)
		return 0;
	/* the event's RW flag (bit 5): a write */
	*f = (struct hw_fault){ .iova = ALIGN_DOWN(a, GPUISO_PAGE_SIZE), .write = flags & 0x20 };
	f->reason = f->write ? HW_FAULT_NO_WRITE : HW_FAULT_NO_READ;
	return VFIO_FAULT_REPORT;
}

/* "page fault from EP 24 at 0x... [W]" (reasons: page, domain, unknown) */
static int parse_virtio(const struct vfio_fault_source *src, const char *rec, struct hw_fault *f)
{
	const char *at = strstr(rec, " fault from EP ");
	unsigned long long a;
	unsigned int ep;
	char rwx[8] = "";

	if (!at || sscanf(at, " fault from EP %u at %llx [%7[RWX]]", &ep, &a, rwx) < 2 ||
	    ep != src->endpoint)
		return 0;
	*f = (struct hw_fault){ .iova = ALIGN_DOWN(a, GPUISO_PAGE_SIZE), .write = !!strchr(rwx, 'W') };
	f->reason = f->write ? HW_FAULT_NO_WRITE : HW_FAULT_NO_READ;
	return strchr(rwx, 'R') || strchr(rwx, 'W') ? VFIO_FAULT_REPORT : VFIO_FAULT_NO_DIRECTION;
}

int vfio_fault_parse(const struct vfio_fault_source *src, const char *rec, struct hw_fault *f)
{
	switch (src->model) {
	case HW_MODEL_AMD_VI:
		return parse_amd(src, rec, f);
	case HW_MODEL_VIRTIO:
		return parse_virtio(src, rec, f);
	default:
		return parse_dmar(src, rec, f);
	}
}

int vfio_iommu_model_of(const char *iommu, const char *pci_id)
{
	if (!strncmp(iommu, "dmar", 4))
		return HW_MODEL_VTD;
	if (!strncmp(iommu, "ivhd", 4))
		return HW_MODEL_AMD_VI;
	/*
	 * virtio-iommu's IOMMU is named after its transport's device and its
	 * sysfs device is the virtio device: device id 23 (0x0017) on the
	 * virtio bus; as a PCI device it would be 0x1040 + 23
	 */
	if (!strncmp(iommu, "virtio", 6) ||
	    (pci_id && (!strcmp(pci_id, "0x1af4:0x0017") || !strcmp(pci_id, "0x1af4:0x1057"))))
		return HW_MODEL_VIRTIO;
	return -ENOENT;
}
