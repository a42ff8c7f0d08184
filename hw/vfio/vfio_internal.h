/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_HW_VFIO_INTERNAL_H
#define GPUISO_HW_VFIO_INTERNAL_H

/*
 * What the files of the VFIO backend share (vfio.h is the public side).
 * Each has one job:
 *
 *   vfio_space.c  domains and their mappings, the attached domain's in the
 *                 device's I/O address space (ioas.h), every map and unmap
 *                 of it a line of the journal
 *   vfio_dma.c    the device's DMA through its engine (edu.h) from the
 *                 driver's bounce page, and the kernel's fault reports it
 *                 causes (faultlog.h)
 *   vfio_vram.c   the device's VRAM, emulated in memory, and its copy
 *                 engine, whose jobs go through vfio_dma.c
 *   vfio.c        vfio_create(): the device opened, its address space,
 *                 engine and fault reports set up; the ops table; closing
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/sparse.h"
#include "edu.h"
#include "faultlog.h"
#include "ioas.h"
#include "vfio.h"

#define VFIO_MAX_DOMAINS 64
#define VFIO_QUEUE 64
#define VFIO_FAULTS 64
/* The driver's own bounce page, mapped in every domain at the top of the DMA mask. */
#define VFIO_STAGING_IOVA (((iova_t)1 << EDU_DMA_BITS) - GPUISO_PAGE_SIZE)

/* One VFIO_IOMMU_MAP_DMA: its pages are pinned in the physmem store. */
struct vfio_map {
	iova_t iova;
	pa_t pa;
	uint64_t size;
	unsigned int perm;
};

struct vfio_domain {
	bool used;
	struct vfio_map *m;
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
	struct vfio_domain doms[VFIO_MAX_DOMAINS]; /* id = index + 1 */
	uint32_t attached;                     /* 0: none */
	struct sparse_mem vram;
	bool powered;
	struct hw_job queue[VFIO_QUEUE];
	unsigned int nqueued;
	struct hw_fault faults[VFIO_FAULTS];
	unsigned int fhead, nfaults;
	struct hw_stats st;
};

/**
 * to_vfio() - the backend a handle belongs to.
 * @hw: the struct hw at the start of a struct vfio (every vfio_op_* receives one).
 *
 * Return: the struct vfio of @hw.
 */
static inline struct vfio *to_vfio(struct hw *hw)
{
	return (struct vfio *)hw;
}

/* ---- vfio_space.c ----------------------------------------------------------- */

/**
 * vfio_journal_say() - one line of the journal (vfio_config.journal), in one
 * write(); nothing without a journal. A line that cannot be written is said
 * once, as a warning.
 * @v: the backend.
 * @fmt: printf format of the line, which ends in a newline.
 */
void vfio_journal_say(struct vfio *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/**
 * vfio_space_map() - map @size bytes of the process's memory at @vaddr at
 * @iova in the device's address space, and say so in the journal.
 * @v: the backend.
 * @iova: where the device sees them.
 * @vaddr: the memory, pinned by the kernel until unmapped.
 * @size: bytes.
 * @perm: HW_PERM_READ, HW_PERM_WRITE or both.
 *
 * Return: 0 or the kernel's negative errno (struct vfio_ioas_ops's map).
 */
int vfio_space_map(struct vfio *v, iova_t iova, void *vaddr, uint64_t size, unsigned int perm);

/**
 * vfio_space_unmap() - unmap what one vfio_space_map() mapped at @iova, and
 * say so in the journal.
 * @v: the backend.
 * @iova: where it was mapped.
 * @size: its bytes.
 *
 * Return: 0 or the kernel's negative errno.
 */
int vfio_space_unmap(struct vfio *v, iova_t iova, uint64_t size);

/**
 * vfio_reachable() - whether the mappings of the domain the device is
 * attached to let it at @page that way.
 * @v: the backend.
 * @page: a page-aligned IOVA.
 * @write: the device writes (else it reads).
 *
 * Return: true when a mapping of @page has the permission; false without
 * one, or attached to no domain.
 */
bool vfio_reachable(struct vfio *v, iova_t page, bool write);

/**
 * vfio_op_domain_alloc() - the domain_alloc op of struct hw_ops (hw/iommu.h).
 * @hw: the backend.
 * @domain: out: the new domain's id (1-based).
 *
 * Return: 0, or -ENOSPC when all VFIO_MAX_DOMAINS are in use.
 */
int vfio_op_domain_alloc(struct hw *hw, uint32_t *domain);

/**
 * vfio_op_domain_free() - the domain_free op of struct hw_ops (hw/iommu.h):
 * its mappings' pages unpinned, the domain forgotten.
 * @hw: the backend.
 * @domain: the domain id.
 *
 * Return: 0; -ENOENT for an unknown domain, -EBUSY while the device is
 * attached to it.
 */
int vfio_op_domain_free(struct hw *hw, uint32_t domain);

/**
 * vfio_op_attach() - the attach op of struct hw_ops (hw/iommu.h): the
 * address space gives up the old domain's mappings and takes @domain's.
 * @hw: the backend.
 * @dev: the device (0, the only one).
 * @domain: the domain id.
 *
 * Return: 0 (attached to it already, too); -ENOENT for another device or an
 * unknown domain; else the kernel's error mapping @domain's mappings (the
 * old domain's are put back).
 */
int vfio_op_attach(struct hw *hw, uint32_t dev, uint32_t domain);

/**
 * vfio_op_detach() - the detach op of struct hw_ops (hw/iommu.h): the
 * attached domain's mappings leave the address space, and the device
 * reaches nothing.
 * @hw: the backend.
 * @dev: the device (0, the only one).
 *
 * Return: 0; -ENOENT for another device or one attached to no domain.
 */
int vfio_op_detach(struct hw *hw, uint32_t dev);

/**
 * vfio_op_map() - the map op of struct hw_ops (hw/iommu.h): one MAP_DMA per
 * 4 KiB page with HW_MAP_4K, else per part of a 2 MiB chunk of the store,
 * in the address space while @domain is attached.
 * @hw: the backend.
 * @domain: the domain id.
 * @iova: first address; page aligned.
 * @pa: system memory it maps (struct physmem's store); page aligned.
 * @size: bytes; a page multiple, not 0.
 * @perm: HW_PERM_READ, HW_PERM_WRITE or both, and HW_MAP_4K.
 *
 * Return: 0; -ENOENT for an unknown domain, -EINVAL for misalignment or a
 * bad @perm, -ERANGE outside the kernel's IOVA ranges (or, with a DMA
 * engine, the DMA mask less the bounce page) or beyond system memory,
 * -EEXIST when it overlaps a mapping, -ENOMEM for pinning or the domain's
 * record, else the kernel's error (struct vfio_ioas_ops's map). What was
 * mapped is taken back on an error.
 */
int vfio_op_map(struct hw *hw, uint32_t domain, iova_t iova, pa_t pa, uint64_t size,
		unsigned int perm);

/**
 * vfio_op_unmap() - the unmap op of struct hw_ops (hw/iommu.h): whole
 * mappings only, none cut.
 * @hw: the backend.
 * @domain: the domain id.
 * @iova: first address; page aligned.
 * @size: bytes; a page multiple, not 0.
 *
 * Return: 0; -ENOENT for an unknown domain or a page not mapped, -EINVAL
 * for misalignment or a mapping it would cut, -ERANGE outside the IOVA
 * ranges. Nothing is changed on an error.
 */
int vfio_op_unmap(struct hw *hw, uint32_t domain, iova_t iova, uint64_t size);

/**
 * vfio_op_flush() - the flush op of struct hw_ops (hw/iommu.h): nothing, as
 * VFIO's unmap invalidates the IOTLB itself.
 * @hw: the backend.
 * @domain: the domain id.
 * @iova: the range's start.
 * @size: its bytes.
 */
void vfio_op_flush(struct hw *hw, uint32_t domain, iova_t iova, uint64_t size);

/* ---- vfio_dma.c ------------------------------------------------------------- */

/**
 * vfio_op_fault_pop() - the fault_pop op of struct hw_ops (hw/iommu.h),
 * once the kernel log has been read for new reports.
 * @hw: the backend.
 * @fault: out: the oldest fault queued.
 *
 * Return: 0, or -ENOENT when none is queued.
 */
int vfio_op_fault_pop(struct hw *hw, struct hw_fault *fault);

/**
 * vfio_device_dma() - move @len bytes (within one page) between @buf and
 * system memory at @iova through the device, by DMA from the driver's
 * bounce page; a DMA the mappings block waits for its fault report, and is
 * recorded from the mappings when none comes (hw_stats.faults_unreported).
 * @v: the backend.
 * @iova: the system side, as the device addresses it.
 * @buf: the CPU side.
 * @len: bytes, at most EDU_DMA_MAX.
 * @write: the device writes memory (@buf -> @iova); else it reads it.
 *
 * Return: 0; -EFAULT when it was blocked (the fault is queued), else
 * edu_dma()'s error.
 */
int vfio_device_dma(struct vfio *v, iova_t iova, void *buf, uint32_t len, bool write);

/**
 * vfio_dma_pages() - a transfer of @len bytes in pieces of a page at most,
 * each through @piece; the first page the mappings block is sent alone
 * first, so that nothing else moves.
 * @v: the backend.
 * @iova: the system side.
 * @buf: the CPU side.
 * @len: bytes.
 * @write: the device writes memory; else it reads it.
 * @piece: moves one piece (vfio_device_dma()).
 *
 * Return: 0, or the first error of @piece.
 */
int vfio_dma_pages(struct vfio *v, iova_t iova, void *buf, uint64_t len, bool write,
		   int (*piece)(struct vfio *v, iova_t iova, void *buf, uint32_t n, bool write));

/**
 * vfio_op_dma() - the dma op of struct hw_ops (hw/iommu.h).
 * @hw: the backend.
 * @dev: the device (0, the only one).
 * @iova: the system side, below the engine's DMA mask.
 * @buf: the CPU side.
 * @len: bytes.
 * @write: the device writes memory; else it reads it.
 *
 * Return: 0; -ENOENT for another device, -EOPNOTSUPP for a device whose
 * engine gpuiso does not drive, -EIO while powered off, -ERANGE beyond the
 * DMA mask, else as vfio_dma_pages() with vfio_device_dma().
 */
int vfio_op_dma(struct hw *hw, uint32_t dev, iova_t iova, void *buf, uint64_t len, bool write);

/* ---- vfio_vram.c ------------------------------------------------------------ */

/**
 * vfio_op_vram_size() - the vram_size op of struct hw_ops (hw/iommu.h).
 * @hw: the backend.
 * @dev: the device.
 *
 * Return: bytes of VRAM, or 0 for a device other than 0.
 */
uint64_t vfio_op_vram_size(struct hw *hw, uint32_t dev);

/**
 * vfio_op_vram_rw() - the vram_rw op of struct hw_ops (hw/iommu.h).
 * @hw: the backend.
 * @dev: the device (0, the only one).
 * @off: offset in its VRAM.
 * @buf: the CPU side of the copy.
 * @len: bytes.
 * @write: true: @buf -> VRAM; false: VRAM -> @buf.
 *
 * Return: 0; -ENOENT for another device, -ERANGE beyond the VRAM, -EIO
 * while powered off, -ENOMEM for a write's memory.
 */
int vfio_op_vram_rw(struct hw *hw, uint32_t dev, uint64_t off, void *buf, uint64_t len, bool write);

/**
 * vfio_op_vram_fill() - the vram_fill op of struct hw_ops (hw/iommu.h).
 * @hw: the backend.
 * @dev: the device.
 * @off: offset in its VRAM.
 * @len: bytes.
 * @pattern: repeated over them.
 * @plen: its bytes.
 *
 * Return: 0; -ENOENT, -ERANGE or -EIO as vfio_op_vram_rw(), else the error
 * of sparse_fill() (-EINVAL for an empty pattern, -ENOMEM).
 */
int vfio_op_vram_fill(struct hw *hw, uint32_t dev, uint64_t off, uint64_t len,
		      const void *pattern, uint64_t plen);

/**
 * vfio_op_vram_digest() - the vram_digest op of struct hw_ops (hw/iommu.h).
 * @hw: the backend.
 * @dev: the device.
 * @off: offset in its VRAM.
 * @len: bytes.
 * @digest: out: their digest.
 *
 * Return: 0; -ENOENT, -ERANGE or -EIO as vfio_op_vram_rw().
 */
int vfio_op_vram_digest(struct hw *hw, uint32_t dev, uint64_t off, uint64_t len, uint64_t *digest);

/**
 * vfio_op_power() - the power op of struct hw_ops (hw/iommu.h): powered
 * off, the VRAM loses what it held.
 * @hw: the backend.
 * @dev: the device.
 * @on: power it on (else off).
 *
 * Return: 0; -ENOENT for another device, -EBUSY to power off with copy jobs
 * queued.
 */
int vfio_op_power(struct hw *hw, uint32_t dev, bool on);

/**
 * vfio_op_gpu_submit() - the gpu_submit op of struct hw_ops (hw/iommu.h):
 * the job is queued for vfio_op_gpu_wait().
 * @hw: the backend.
 * @dev: the device.
 * @job: the copy job.
 *
 * Return: 0; -ENOENT, -ERANGE or -EIO as vfio_op_vram_rw() for its VRAM
 * side, -EINVAL for a bad direction, -EOPNOTSUPP for a device whose engine
 * gpuiso does not drive, -EBUSY with VFIO_QUEUE jobs queued.
 */
int vfio_op_gpu_submit(struct hw *hw, uint32_t dev, const struct hw_job *job);

/**
 * vfio_op_gpu_wait() - the gpu_wait op of struct hw_ops (hw/iommu.h): every
 * queued job runs, through the device's DMA, and the queue empties.
 * @hw: the backend.
 * @dev: the device.
 *
 * Return: 0; -ENOENT for another device, else the first job's error (as
 * vfio_dma_pages() with vfio_device_dma()).
 */
int vfio_op_gpu_wait(struct hw *hw, uint32_t dev);

/**
 * vfio_op_gpu_pending() - the gpu_pending op of struct hw_ops (hw/iommu.h).
 * @hw: the backend.
 * @dev: the device.
 *
 * Return: the jobs queued, 0 for a device other than 0.
 */
unsigned int vfio_op_gpu_pending(struct hw *hw, uint32_t dev);

#endif
