/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <stdarg.h>
#include <limits.h>
#include <linux/vfio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "common/array.h"
#include "common/clock.h"
#include "common/log.h"
#include "common/sparse.h"
#include "edu.h"
#include "faultlog.h"
#include "ioas.h"
#include "vfio.h"

#define VFIO_MAX_DOMAINS 64
#define VFIO_QUEUE 64
#define VFIO_FAULTS 64
/* The driver's own bounce page, mapped in every domain at the top of the DMA mask. */
#define STAGING_IOVA (((iova_t)1 << EDU_DMA_BITS) - GPUISO_PAGE_SIZE)
/*
 * How long a fault the mappings predict may take to be reported. The kernel
 * ratelimits its DMAR reports (10 lines per 5 s, two lines per fault) and
 * QEMU drops a fault while an earlier one is pending: a report that does not
 * come is recorded from the mappings (hw_stats.faults_unreported).
 */
#define FAULT_WAIT_NS 300000000ull

/* One VFIO_IOMMU_MAP_DMA: its pages are pinned in the physmem store. */
struct vmap {
	iova_t iova;
	pa_t pa;
	uint64_t size;
	unsigned int perm;
};

struct vdomain {
	bool used;
	struct vmap *m;
	size_t n, cap;
};

struct vfio {
	struct hw hw;
	struct physmem *pm;
	char bdf[32];                /* "0000:00:03.0" */
	struct vfio_fault_source src; /* how the kernel reports its faults (faultlog.h) */
	bool dma_write;               /* the direction of the DMA last issued */
	bool reported;                /* it was reported, at @reported_page */
	iova_t reported_page;
	char name[16];               /* "vfio/type1", "vfio/iommufd" */
	struct vfio_ioas *ioas; /* the device and its I/O address space (type1 or iommufd) */
	int kmsg;
	int journal;   /* the journal's fd (vfio_config.journal), or -1 */
	bool journal_failed;
	void *bar0;
	size_t bar0_size;
	struct edu edu;
	bool engine;   /* a DMA engine gpuiso drives (edu); without one, mappings only */
	unsigned int iova_bits;
	uint8_t *staging;
	struct vdomain doms[VFIO_MAX_DOMAINS]; /* id = index + 1 */
	uint32_t attached;                     /* 0: none */
	struct sparse_mem vram;
	bool powered;
	struct hw_job queue[VFIO_QUEUE];
	unsigned int nqueued;
	struct hw_fault faults[VFIO_FAULTS];
	unsigned int fhead, nfaults;
	struct hw_stats st;
};

static struct vfio *to_vfio(struct hw *hw)
{
	return (struct vfio *)hw;
}

static struct vdomain *dom_get(struct vfio *v, uint32_t id)
{
	return id >= 1 && id <= VFIO_MAX_DOMAINS && v->doms[id - 1].used ? &v->doms[id - 1] : NULL;
}

/* --- the I/O address space --- */

static void journal_say(struct vfio *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* One line, in one write(): each is one event when the journal is ftrace's trace_marker. */
static void journal_say(struct vfio *v, const char *fmt, ...)
{
	char line[160];
	va_list ap;
	int n;

	if (v->journal < 0)
		return;
	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n > 0 && (size_t)n < sizeof(line) && write(v->journal, line, (size_t)n) != n &&
	    !v->journal_failed) {
		v->journal_failed = true; /* said once: a journal missing lines disagrees with the kernel */
		log_warn("%s: the journal lost a line: %s", v->bdf, strerror(errno));
	}
}

static int dma_map(struct vfio *v, iova_t iova, void *vaddr, uint64_t size, unsigned int perm)
{
	int rc = v->ioas->ops->map(v->ioas, iova, vaddr, size, perm);

	journal_say(v, "gpuiso-vfio map iova=0x%" PRIx64 " size=0x%" PRIx64 " rc=%d\n",
		    (uint64_t)iova, size, rc);
	return rc;
}

static int dma_unmap(struct vfio *v, iova_t iova, uint64_t size)
{
	int rc = v->ioas->ops->unmap(v->ioas, iova, size);

	journal_say(v, "gpuiso-vfio unmap iova=0x%" PRIx64 " size=0x%" PRIx64 " rc=%d\n",
		    (uint64_t)iova, size, rc);
	return rc;
}

static void *vmap_vaddr(struct vfio *v, const struct vmap *m)
{
	uint64_t avail;

	/* pinned already: sparse_peek gives the same stable pointer */
	return (void *)sparse_peek(&v->pm->bytes, m->pa, &avail);
}

/* Put a domain's mappings into the address space (or take them out). */
static int space_load(struct vfio *v, struct vdomain *d, bool in)
{
	int rc = 0;

	for (size_t i = 0; i < d->n && !rc; i++) {
		const struct vmap *m = &d->m[i];

		rc = in ? dma_map(v, m->iova, vmap_vaddr(v, m), m->size, m->perm)
			: dma_unmap(v, m->iova, m->size);
		if (rc && in) {
			while (i--)
				dma_unmap(v, d->m[i].iova, d->m[i].size);
		}
	}
	return rc;
}

/* --- ops: domains and mappings --- */

static int op_domain_alloc(struct hw *hw, uint32_t *domain)
{
	struct vfio *v = to_vfio(hw);

	for (uint32_t i = 0; i < VFIO_MAX_DOMAINS; i++) {
		if (!v->doms[i].used) {
			v->doms[i] = (struct vdomain){ .used = true };
			*domain = i + 1;
			return 0;
		}
	}
	return -ENOSPC;
}

static void vmap_release(struct vfio *v, const struct vmap *m)
{
	sparse_unpin(&v->pm->bytes, m->pa);
}

static int op_domain_free(struct hw *hw, uint32_t domain)
{
	struct vfio *v = to_vfio(hw);
	struct vdomain *d = dom_get(v, domain);

	if (!d)
		return -ENOENT;
	if (v->attached == domain)
		return -EBUSY;
	for (size_t i = 0; i < d->n; i++)
		vmap_release(v, &d->m[i]);
	free(d->m);
	*d = (struct vdomain){ 0 };
	return 0;
}

static int op_attach(struct hw *hw, uint32_t dev, uint32_t domain)
{
	struct vfio *v = to_vfio(hw);
	struct vdomain *d = dom_get(v, domain), *old = dom_get(v, v->attached);
	int rc;

	if (dev != 0 || !d)
		return -ENOENT;
	if (v->attached == domain)
		return 0;
	if (old)
		space_load(v, old, false);
	rc = space_load(v, d, true);
	if (rc) {
		if (old)
			space_load(v, old, true);
		return rc;
	}
	v->attached = domain;
	return 0;
}

static int op_detach(struct hw *hw, uint32_t dev)
{
	struct vfio *v = to_vfio(hw);
	struct vdomain *d = dom_get(v, v->attached);

	if (dev != 0 || !d)
		return -ENOENT;
	space_load(v, d, false);
	v->attached = 0;
	return 0;
}

static bool in_ranges(const struct vfio *v, iova_t iova, uint64_t size)
{
	if (v->engine && iova + size > STAGING_IOVA)
		return false; /* the DMA mask, less the driver's bounce page */
	for (size_t i = 0; i < v->ioas->nranges; i++)
		if (iova >= v->ioas->ranges[i].start && iova + size - 1 <= v->ioas->ranges[i].last)
			return true;
	return false;
}

static bool overlaps(const struct vmap *m, iova_t iova, uint64_t size)
{
	return m->iova < iova + size && iova < m->iova + m->size;
}

static int vmap_push(struct vdomain *d, const struct vmap *m)
{
	if (array_reserve(&d->m, &d->cap, d->n, sizeof(*d->m)))
		return -ENOMEM;
	d->m[d->n++] = *m;
	return 0;
}

static void vmap_remove(struct vfio *v, struct vdomain *d, size_t i)
{
	vmap_release(v, &d->m[i]);
	d->m[i] = d->m[--d->n];
}

static int op_unmap(struct hw *hw, uint32_t domain, iova_t iova, uint64_t size);

/*
 * One MAP_DMA per piece: a 4 KiB page with HW_MAP_4K (each can be unmapped
 * alone), else the part of a 2 MiB chunk of the store (a mapping VFIO will
 * not cut, like a large page).
 */
static int op_map(struct hw *hw, uint32_t domain, iova_t iova, pa_t pa, uint64_t size,
		  unsigned int perm)
{
	struct vfio *v = to_vfio(hw);
	struct vdomain *d = dom_get(v, domain);
	uint64_t off = 0;
	int rc = 0;

	if (!d)
		return -ENOENT;
	if (!size || !ALIGNED(iova | pa | size, GPUISO_PAGE_SIZE) || !(perm & HW_PERM_RW) ||
	    (perm & ~(HW_PERM_RW | HW_MAP_4K)))
		return -EINVAL;
	if (!in_ranges(v, iova, size) || pa >= v->pm->bytes.size || size > v->pm->bytes.size - pa)
		return -ERANGE;
	for (size_t i = 0; i < d->n; i++)
		if (overlaps(&d->m[i], iova, size))
			return -EEXIST;
	while (off < size && !rc) {
		uint64_t avail, n = (perm & HW_MAP_4K) ? GPUISO_PAGE_SIZE : size - off;
		struct vmap m = { iova + off, pa + off, 0, perm & HW_PERM_RW };
		void *vaddr = sparse_pin(&v->pm->bytes, m.pa, n, &avail);

		if (!vaddr) {
			rc = -ENOMEM;
			break;
		}
		m.size = GPUISO_MIN(n, avail);
		rc = v->attached == domain ? dma_map(v, m.iova, vaddr, m.size, m.perm) : 0;
		if (!rc)
			rc = vmap_push(d, &m);
		if (rc) {
			if (v->attached == domain)
				dma_unmap(v, m.iova, m.size);
			sparse_unpin(&v->pm->bytes, m.pa);
			break;
		}
		off += m.size;
		v->st.pte_writes += m.size / GPUISO_PAGE_SIZE;
	}
	if (rc && off)
		op_unmap(hw, domain, iova, off);
	return rc;
}

static int op_unmap(struct hw *hw, uint32_t domain, iova_t iova, uint64_t size)
{
	struct vfio *v = to_vfio(hw);
	struct vdomain *d = dom_get(v, domain);
	uint64_t covered = 0;

	if (!d)
		return -ENOENT;
	if (!size || !ALIGNED(iova | size, GPUISO_PAGE_SIZE))
		return -EINVAL;
	if (!in_ranges(v, iova, size))
		return -ERANGE;
	for (size_t i = 0; i < d->n; i++) {
		const struct vmap *m = &d->m[i];

		if (!overlaps(m, iova, size))
			continue;
		if (m->iova < iova || m->iova + m->size > iova + size)
			return -EINVAL; /* it would cut a mapping */
		covered += m->size;
	}
	if (covered != size)
		return -ENOENT;
	for (size_t i = d->n; i-- > 0;) {
		if (!overlaps(&d->m[i], iova, size))
			continue;
		if (v->attached == domain)
			dma_unmap(v, d->m[i].iova, d->m[i].size);
		v->st.pte_writes += d->m[i].size / GPUISO_PAGE_SIZE;
		vmap_remove(v, d, i);
	}
	return 0;
}

/* VFIO's unmap invalidates the IOTLB itself. */
static void op_flush(struct hw *hw, uint32_t domain, iova_t iova, uint64_t size)
{
	(void)hw;
	(void)domain;
	(void)iova;
	(void)size;
}

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

static int op_fault_pop(struct hw *hw, struct hw_fault *fault)
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

/* Whether the attached domain lets the device at [iova, +len) that way. */
static bool reachable(struct vfio *v, iova_t page, bool write)
{
	struct vdomain *d = dom_get(v, v->attached);

	for (size_t i = 0; d && i < d->n; i++)
		if (overlaps(&d->m[i], page, GPUISO_PAGE_SIZE))
			return d->m[i].perm & (write ? HW_PERM_WRITE : HW_PERM_READ);
	return false;
}

/*
 * Move @len bytes (within one page) between @buf and system memory at @iova
 * through the device: the buffer goes in and out of the device by DMA from
 * the driver's bounce page.
 */
static int device_dma(struct vfio *v, iova_t iova, void *buf, uint32_t len, bool write)
{
	bool blocked = !reachable(v, ALIGN_DOWN(iova, GPUISO_PAGE_SIZE), write);
	int rc, before;

	/* the last DMA's reports still to come are its own, not this one's */
	faults_read(v);
	before = (int)v->st.faults;
	v->reported = false;
	v->dma_write = write;
	v->st.dma_transfers++;
	if (write) {
		memcpy(v->staging, buf, len);
		rc = edu_dma(&v->edu, STAGING_IOVA, len, false);
		if (!rc)
			rc = edu_dma(&v->edu, iova, len, true);
	} else {
		rc = edu_dma(&v->edu, iova, len, false);
		if (!rc && !blocked)
			rc = edu_dma(&v->edu, STAGING_IOVA, len, true);
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
static int dma_pages(struct vfio *v, iova_t iova, void *buf, uint64_t len, bool write,
		     int (*piece)(struct vfio *v, iova_t iova, void *buf, uint32_t n, bool write))
{
	uint8_t *p = buf;

	for (iova_t page = ALIGN_DOWN(iova, GPUISO_PAGE_SIZE); page < iova + len;
	     page += GPUISO_PAGE_SIZE) {
		if (!reachable(v, page, write)) {
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

static int op_dma(struct hw *hw, uint32_t dev, iova_t iova, void *buf, uint64_t len, bool write)
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
	return dma_pages(v, iova, buf, len, write, device_dma);
}

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

/* --- the device's (emulated) VRAM and copy engine --- */

static uint64_t op_vram_size(struct hw *hw, uint32_t dev)
{
	return dev == 0 ? to_vfio(hw)->vram.size : 0;
}

static int vram_check(struct vfio *v, uint32_t dev, uint64_t off, uint64_t len)
{
	if (dev != 0)
		return -ENOENT;
	if (off > v->vram.size || len > v->vram.size - off)
		return -ERANGE;
	return v->powered ? 0 : -EIO;
}

static int op_vram_rw(struct hw *hw, uint32_t dev, uint64_t off, void *buf, uint64_t len, bool write)
{
	struct vfio *v = to_vfio(hw);
	int rc = vram_check(v, dev, off, len);

	if (rc)
		return rc;
	return write ? sparse_write(&v->vram, off, buf, len) : sparse_read(&v->vram, off, buf, len);
}

static int op_vram_fill(struct hw *hw, uint32_t dev, uint64_t off, uint64_t len,
			const void *pattern, uint64_t plen)
{
	struct vfio *v = to_vfio(hw);
	int rc = vram_check(v, dev, off, len);

	return rc ? rc : sparse_fill(&v->vram, off, len, pattern, plen);
}

static int op_vram_digest(struct hw *hw, uint32_t dev, uint64_t off, uint64_t len, uint64_t *digest)
{
	struct vfio *v = to_vfio(hw);
	int rc = vram_check(v, dev, off, len);

	return rc ? rc : sparse_digest(&v->vram, off, len, digest);
}

static int op_power(struct hw *hw, uint32_t dev, bool on)
{
	struct vfio *v = to_vfio(hw);

	if (dev != 0)
		return -ENOENT;
	if (on == v->powered)
		return 0;
	if (!on) {
		if (v->nqueued)
			return -EBUSY;
		sparse_discard(&v->vram, 0, v->vram.size);
	}
	v->powered = on;
	return 0;
}

static int op_gpu_submit(struct hw *hw, uint32_t dev, const struct hw_job *job)
{
	struct vfio *v = to_vfio(hw);
	int rc = vram_check(v, dev, job->vram_off, job->len);

	if (rc)
		return rc;
	if (job->dir != HW_COPY_TO_SYSTEM && job->dir != HW_COPY_FROM_SYSTEM)
		return -EINVAL;
	if (!v->engine)
		return -EOPNOTSUPP;
	if (v->nqueued == VFIO_QUEUE)
		return -EBUSY;
	v->queue[v->nqueued++] = *job;
	return 0;
}

/* A copy job through the device's DMA engine, a page piece at a time via VRAM in memory. */
static int run_job(struct vfio *v, const struct hw_job *job)
{
	uint8_t piece[EDU_DMA_MAX];
	bool to_system = job->dir == HW_COPY_TO_SYSTEM;

	for (uint64_t done = 0; done < job->len;) {
		iova_t iova = job->iova + done;
		uint32_t n = (uint32_t)GPUISO_MIN(GPUISO_MIN(job->len - done, EDU_DMA_MAX),
					   GPUISO_PAGE_SIZE - (iova & (GPUISO_PAGE_SIZE - 1)));
		int rc;

		if (to_system)
			sparse_read(&v->vram, job->vram_off + done, piece, n);
		rc = dma_pages(v, iova, piece, n, to_system, device_dma);
		if (rc)
			return rc;
		if (!to_system)
			sparse_write(&v->vram, job->vram_off + done, piece, n);
		done += n;
	}
	return 0;
}

static int op_gpu_wait(struct hw *hw, uint32_t dev)
{
	struct vfio *v = to_vfio(hw);
	int first = 0;

	if (dev != 0)
		return -ENOENT;
	for (unsigned int i = 0; i < v->nqueued; i++) {
		int rc = run_job(v, &v->queue[i]);

		if (rc && !first)
			first = rc;
	}
	v->nqueued = 0;
	return first;
}

static unsigned int op_gpu_pending(struct hw *hw, uint32_t dev)
{
	return dev == 0 ? to_vfio(hw)->nqueued : 0;
}

/* --- opening --- */

static void op_destroy(struct hw *hw)
{
	struct vfio *v = to_vfio(hw);

	if (v->attached)
		op_detach(hw, 0);
	for (uint32_t i = 0; i < VFIO_MAX_DOMAINS; i++)
		if (v->doms[i].used)
			op_domain_free(hw, i + 1);
	if (v->staging && v->ioas)
		dma_unmap(v, STAGING_IOVA, GPUISO_PAGE_SIZE);
	free(v->staging);
	if (v->bar0)
		munmap(v->bar0, v->bar0_size);
	if (v->ioas)
		v->ioas->ops->close(v->ioas);
	if (v->ioas)
		journal_say(v, "gpuiso-vfio close\n");
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
	.domain_alloc = op_domain_alloc,
	.domain_free = op_domain_free,
	.attach = op_attach,
	.detach = op_detach,
	.map = op_map,
	.unmap = op_unmap,
	.flush = op_flush,
	.dma = op_dma,
	.fault_pop = op_fault_pop,
	.stats = op_stats,
	.vram_size = op_vram_size,
	.vram_rw = op_vram_rw,
	.vram_fill = op_vram_fill,
	.vram_digest = op_vram_digest,
	.power = op_power,
	.gpu_submit = op_gpu_submit,
	.gpu_wait = op_gpu_wait,
	.gpu_pending = op_gpu_pending,
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
		journal_say(v, "gpuiso-vfio open api=%s bdf=%s\n", v->ioas->api, v->bdf);
		snprintf(v->name, sizeof(v->name), "vfio/%s", v->ioas->api);
		/* a device whose DMA engine gpuiso does not know still maps and unmaps */
		v->engine = has_engine(v);
		v->iova_bits = v->engine ? EDU_DMA_BITS : iova_width(v);
	}
	if (!rc && v->engine && (rc = bus_master(v)))
		snprintf(err, errlen, "%s: cannot enable bus mastering", v->bdf);
	if (!rc && v->engine) {
		v->staging = aligned_alloc(GPUISO_PAGE_SIZE, GPUISO_PAGE_SIZE);
		rc = !v->staging ? -ENOMEM : dma_map(v, STAGING_IOVA, v->staging, GPUISO_PAGE_SIZE, HW_PERM_RW);
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
