/* SPDX-License-Identifier: MIT */
/*
 * The device's DMA, through its engine (edu.h) from the driver's bounce
 * page, and the faults the kernel reports for it, read back from /dev/kmsg
 * in the words of the IOMMU the device is behind (faultlog.h).
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "common/clock.h"
#include "edu.h"
#include "faultlog.h"
#include "vfio_internal.h"

/*
 * How long a fault the mappings predict may take to be reported. The kernel
 * ratelimits its DMAR reports (10 lines per 5 s, two lines per fault) and
 * QEMU drops a fault while an earlier one is pending: a report that does not
 * come is recorded from the mappings (hw_stats.faults_unreported).
 */
#define FAULT_WAIT_NS 300000000ull

/* --- faults: the kernel's reports (faultlog.h) --- */

static void fault_push(struct vfio *v, const struct hw_fault *f)
{
	v->st.faults++;
	if (v->nfaults == VFIO_FAULTS)
		return;
	v->faults[(v->fhead + v->nfaults++) % VFIO_FAULTS] = *f;
}

/* Read the kernel log for fault reports about our device (vfio_fault_parse()). Returns how many. */
static int faults_read(struct vfio *v)
{
	char rec[1024];
	int found = 0;
	ssize_t n;

	while ((n = read(v->kmsg, rec, sizeof(rec) - 1)) > 0 || (n < 0 && errno == EPIPE)) {
		struct hw_fault f;
		int kind;

		if (n < 0)
			continue; /* records were overwritten: go on with the next */
		rec[n] = '\0';
		kind = vfio_fault_parse(&v->src, rec, &f);
		if (!kind)
			continue;
		if (kind == VFIO_FAULT_NO_DIRECTION) {
			f.write = v->dma_write;
			f.reason = f.write ? HW_FAULT_NO_WRITE : HW_FAULT_NO_READ;
		}
		/* virtio-iommu reports a blocked DMA access by access: one fault */
		if (v->reported && f.iova == v->reported_page)
			continue;
		v->reported = true;
		v->reported_page = f.iova;
		fault_push(v, &f);
		found++;
	}
	return found;
}

/* Wait for the report of a fault the mappings predict. */
static int fault_wait(struct vfio *v)
{
	uint64_t deadline = clock_mono_ns() + FAULT_WAIT_NS;

	while (clock_mono_ns() < deadline) {
		if (faults_read(v))
			return 0;
		usleep(1000);
	}
	return -ETIMEDOUT;
}

int vfio_op_fault_pop(struct hw *hw, struct hw_fault *fault)
{
	struct vfio *v = to_vfio(hw);

	faults_read(v);
	if (!v->nfaults)
		return -ENOENT;
	*fault = v->faults[v->fhead];
	v->fhead = (v->fhead + 1) % VFIO_FAULTS;
	v->nfaults--;
	return 0;
}

/*
 * Move @len bytes (within one page) between @buf and system memory at @iova
 * through the device: the buffer goes in and out of the device by DMA from
 * the driver's bounce page.
 */
int vfio_device_dma(struct vfio *v, iova_t iova, void *buf, uint32_t len, bool write)
{
	bool blocked = !vfio_reachable(v, ALIGN_DOWN(iova, GPUISO_PAGE_SIZE), write);
	int rc, before;

	/* the last DMA's reports still to come are its own, not this one's */
	faults_read(v);
	before = (int)v->st.faults;
	v->reported = false;
	v->dma_write = write;
	v->st.dma_transfers++;
	if (write) {
		memcpy(v->staging, buf, len);
		rc = edu_dma(&v->edu, VFIO_STAGING_IOVA, len, false);
		if (!rc)
			rc = edu_dma(&v->edu, iova, len, true);
	} else {
		rc = edu_dma(&v->edu, iova, len, false);
		if (!rc && !blocked)
			rc = edu_dma(&v->edu, VFIO_STAGING_IOVA, len, true);
		if (!rc && !blocked)
			memcpy(buf, v->staging, len);
	}
	if (rc)
		return rc;
	if (blocked && fault_wait(v)) {
		fault_push(v, &(struct hw_fault){ 0, ALIGN_DOWN(iova, GPUISO_PAGE_SIZE), write,
						  write ? HW_FAULT_NO_WRITE : HW_FAULT_NO_READ });
		v->st.faults_unreported++;
		return -EFAULT;
	}
	faults_read(v);
	if ((int)v->st.faults != before)
		return -EFAULT;
	v->st.dma_bytes += len;
	return 0;
}

/* Every page first: the first one the mappings block is sent alone, so nothing else moves. */
int vfio_dma_pages(struct vfio *v, iova_t iova, void *buf, uint64_t len, bool write,
		   int (*piece)(struct vfio *v, iova_t iova, void *buf, uint32_t n, bool write))
{
	uint8_t *p = buf;

	for (iova_t page = ALIGN_DOWN(iova, GPUISO_PAGE_SIZE); page < iova + len;
	     page += GPUISO_PAGE_SIZE) {
		if (!vfio_reachable(v, page, write)) {
			iova_t at = GPUISO_MAX(page, iova);

			return piece(
				v, at, p + (at - iova),
				(uint32_t)GPUISO_MIN(EDU_DMA_MAX, page + GPUISO_PAGE_SIZE - at),
				write);
		}
	}
	while (len) {
		uint32_t n =
			(uint32_t)GPUISO_MIN(GPUISO_MIN(len, EDU_DMA_MAX),
					     GPUISO_PAGE_SIZE - (iova & (GPUISO_PAGE_SIZE - 1)));
		int rc = piece(v, iova, p, n, write);

		if (rc)
			return rc;
		iova += n;
		p += n;
		len -= n;
	}
	return 0;
}

int vfio_op_dma(struct hw *hw, uint32_t dev, iova_t iova, void *buf, uint64_t len, bool write)
{
	struct vfio *v = to_vfio(hw);

	if (dev != 0)
		return -ENOENT;
	if (!v->engine)
		return -EOPNOTSUPP;
	if (!v->powered)
		return -EIO;
	if (iova >> EDU_DMA_BITS || (iova + len - 1) >> EDU_DMA_BITS)
		return -ERANGE;
	return vfio_dma_pages(v, iova, buf, len, write, vfio_device_dma);
}
