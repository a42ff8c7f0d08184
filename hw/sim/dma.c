/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/array.h"
#include "sim_internal.h"

/*
 * The DMA engine. A transfer is translated leaf by leaf before any byte
 * moves (so a blocked page leaves memory untouched), collecting physically
 * contiguous runs; the bytes then move run by run (sparse_copy(), which
 * shares whole chunks instead of copying them).
 */

/* Queue a fault record for fault_pop. */
static void sim_fault_push(struct sim *s, const struct hw_fault *f)
{
	/* Like the VT-d fault recording registers: when full, new faults are lost. */
	if (s->fault_count == SIM_FAULTS) {
		s->faults_dropped++;
		return;
	}
	s->faults[(s->fault_head + s->fault_count) % SIM_FAULTS] = *f;
	s->fault_count++;
}

/*
 * Copy-engine data goes around the CPU caches (the device writes memory or
 * VRAM directly), so large runs copy with streaming stores where the CPU
 * has them. Small runs (a driver's bounce buffer, read again at once) stay
 * in the cache.
 */
#define SIM_STREAM_MIN (256 * 1024)

static int sim_runs_add(struct sim *s, pa_t pa, uint64_t len)
{
	struct sim_run *last = s->nruns ? &s->runs[s->nruns - 1] : NULL;

	if (last && last->pa + last->len == pa) {
		last->len += len;
		return 0;
	}
	if (array_reserve(&s->runs, &s->runs_cap, s->nruns, sizeof(*s->runs)))
		return -ENOMEM;
	s->runs[s->nruns++] = (struct sim_run){ pa, len };
	return 0;
}

/*
 * An access past what the tables translate: VT-d says so; AMD-Vi and
 * virtio-iommu have no such reason and report a read or write not allowed.
 */
static uint8_t sim_beyond(const struct sim *s, bool write)
{
	if (s->model == HW_MODEL_VTD)
		return HW_FAULT_BEYOND_AW;
	return write ? HW_FAULT_NO_WRITE : HW_FAULT_NO_READ;
}

/*
 * Translate the page @page for @dv: 0 with *pa and in *reach the bytes from
 * @page on that translate contiguously (the rest of its leaf), or the fault
 * reason (hw/iommu.h, as the model reports it).
 */
static uint8_t sim_translate(struct sim *s, const struct sim_dev *dv, iova_t page, bool write,
			     pa_t *pa, uint64_t *reach)
{
	uint64_t need = write ? HW_PERM_WRITE : HW_PERM_READ;
	uint64_t pte;

	if (!dv->domain) {
		/* Passthrough: the address is physical; beyond the store there is nothing. */
		if (page >= s->pm->bytes.size)
			return sim_beyond(s, write);
		*pa = page;
		*reach = s->pm->bytes.size - page;
		return 0;
	}
	if (page >= SIM_IOVA_END)
		return sim_beyond(s, write);
	pte = sim_iotlb_lookup(s, dv->domain, sim_dom(s, dv->domain), page, reach);
	if (!(pte & need))
		return write ? HW_FAULT_NO_WRITE : HW_FAULT_NO_READ;
	*pa = pte & SIM_PTE_ADDR;
	return 0;
}

/*
 * Translate [iova, iova+len) for device @dev into s->runs, a leaf at a
 * time. On the first blocked page, queue its fault and return -EFAULT.
 */
static int sim_dma_translate(struct sim *s, uint32_t dev, iova_t iova, uint64_t len, bool write)
{
	const struct sim_dev *dv = &s->devs[dev];
	iova_t page = ALIGN_DOWN(iova, GPUISO_PAGE_SIZE);
	uint64_t in_page = iova - page;

	s->nruns = 0;
	while (len) {
		uint64_t reach, n;
		uint8_t reason;
		pa_t pa;
		int err;

		reason = sim_translate(s, dv, page, write, &pa, &reach);
		if (reason) {
			sim_fault_push(s, &(struct hw_fault){ dev, page, write, reason });
			s->st.faults++;
			return -EFAULT;
		}
		n = GPUISO_MIN(reach - in_page, len);
		err = sim_runs_add(s, pa + in_page, n);
		if (err)
			return err;
		len -= n;
		page += in_page + n;
		in_page = 0;
	}
	return 0;
}

int sim_dma_job(struct sim *s, uint32_t dev, const struct hw_job *job)
{
	struct sim_dev *dv = &s->devs[dev];
	bool write = job->dir == HW_COPY_TO_SYSTEM;
	uint64_t voff = job->vram_off;
	int err;

	s->st.dma_transfers++;
	err = sim_dma_translate(s, dev, job->iova, job->len, write);
	for (size_t i = 0; !err && i < s->nruns; i++) {
		const struct sim_run *r = &s->runs[i];

		bool stream = r->len >= SIM_STREAM_MIN;

		if (write)
			err = sparse_copy(&s->pm->bytes, r->pa, &dv->vram, voff, r->len, stream);
		else
			err = sparse_copy(&dv->vram, voff, &s->pm->bytes, r->pa, r->len, stream);
		voff += r->len;
		s->st.dma_bytes += r->len;
	}
	s->pm->usage.resident = s->pm->bytes.resident;
	return err;
}

int sim_op_dma(struct hw *hw, uint32_t dev, iova_t iova, void *buf, uint64_t len, bool write)
{
	struct sim *s = to_sim(hw);
	uint8_t *p = buf;
	int err;

	if (dev >= s->ndevs)
		return -ENOENT;
	if (!s->devs[dev].powered)
		return -EIO;
	s->st.dma_transfers++;
	err = sim_dma_translate(s, dev, iova, len, write);
	for (size_t i = 0; !err && i < s->nruns; i++) {
		const struct sim_run *r = &s->runs[i];

		if (write)
			err = sparse_write(&s->pm->bytes, r->pa, p, r->len);
		else
			err = sparse_read(&s->pm->bytes, r->pa, p, r->len);
		p += r->len;
		s->st.dma_bytes += r->len;
	}
	s->pm->usage.resident = s->pm->bytes.resident;
	return err;
}
