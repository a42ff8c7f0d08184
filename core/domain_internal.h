/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_CORE_DOMAIN_INTERNAL_H
#define GPUISO_CORE_DOMAIN_INTERNAL_H

#include "internal.h"

/* Private to core/: an adapter's IOMMU domain. */

/*
 * The domain, in the order its files build on each other: idmap.c (1:1
 * reference counts) -> domain.c (mappings) -> exclusive.c (the bracket
 * around an attach) -> reserved.c (hardware-reserved ranges) -> enable.c
 * (the IOMMUFlags steps and teardown).
 */

/* idmap.c: one reference count per page frame mapped 1:1 */

/* What idmap_get() and idmap_put() saw of the frames' counts: */
#define IDMAP_SAW_ZERO 1u /* a frame's count was zero (before a get, after a put) */
#define IDMAP_SAW_SET 2u  /* a frame's count was not (before a get, after a put) */

/**
 * idmap_get() - count one more reference to each frame of [pfn, pfn+n).
 * @im: the counts.
 * @pfn: first page frame number.
 * @n: frames; 0 does nothing.
 * @saw: out: IDMAP_SAW_* of the counts before (IDMAP_SAW_ZERO alone: no
 *       frame was referenced, IDMAP_SAW_SET alone: every frame was), or
 *       NULL; 0 when @n is 0.
 *
 * Return: 0, or -ENOMEM (nothing counted then).
 */
int idmap_get(struct idmap *im, uint64_t pfn, uint64_t n, unsigned int *saw);
/**
 * idmap_put() - drop one reference to each frame of [pfn, pfn+n).
 * @im: the counts.
 * @pfn: first page frame number.
 * @n: frames.
 * @saw: out: IDMAP_SAW_* of the counts after (IDMAP_SAW_ZERO alone: no frame
 *       is referenced any more), or NULL.
 *
 * Return: the frames that had no reference to drop (0 when all is well).
 */
uint64_t idmap_put(struct idmap *im, uint64_t pfn, uint64_t n, unsigned int *saw);
/**
 * idmap_free() - free all counts and empty @im.
 * @im: the counts.
 */
void idmap_free(struct idmap *im);
/**
 * idmap_digest() - a digest of the counts, kept as they change.
 * @im: the counts.
 *
 * The XOR of a term per chunk of counts: equal counts give equal digests
 * however they are held (per chunk or per frame). The first call walks
 * every chunk and starts keeping the value; each later one costs the
 * chunks changed since.
 *
 * Return: the digest.
 */
uint64_t idmap_digest(struct idmap *im);
/**
 * idmap_digest_full() - idmap_digest() computed again from every chunk.
 * @im: the counts.
 *
 * The cross-check of the kept value (tests): the two are always equal.
 *
 * Return: the digest.
 */
uint64_t idmap_digest_full(const struct idmap *im);

/* domain.c: mappings */

/**
 * dom_hw_map() - one map call of the backend in the adapter's domain.
 * @c: the core.
 * @a: the adapter.
 * @iova: device address.
 * @pa: physical address.
 * @bytes: size.
 * @perm: HW_PERM_* and HW_MAP_4K.
 *
 * Return: 0, -ENOMEM for an injected iommu/map failure, or the backend's
 * map error (see struct hw_ops).
 */
int dom_hw_map(struct core *c, struct adapter *a, iova_t iova, pa_t pa, uint64_t bytes,
	       unsigned int perm);
/**
 * dom_hw_unmap() - one unmap call of the backend and its IOTLB flush.
 * @c: the core.
 * @a: the adapter.
 * @iova: device address.
 * @bytes: size.
 *
 * The model unmaps only what it mapped: a failed unmap is an internal error
 * (hwc_unmap()); the flush is made all the same.
 */
void dom_hw_unmap(struct core *c, struct adapter *a, iova_t iova, uint64_t bytes);
/**
 * dom_map() - map some pages in the adapter's domain, if wanted and possible.
 * @c: the core.
 * @a: the adapter.
 * @pg: the pages.
 * @m: their mapping state; does nothing unless wanted, not yet mapped, and
 *     the domain exists and has mappings.
 *
 * Logical mode takes an IOVA range (2 MiB aligned from 2 MiB up) and maps
 * each run there; 1:1 mode maps each frame at its physical address once,
 * reference counted.
 *
 * Return: 0; -ENOSPC when no IOVA range fits (or an injected iommu/iova
 * failure), -ENOMEM, or a map error. Nothing is left mapped on an error.
 */
int dom_map(struct core *c, struct adapter *a, const struct pages *pg, struct dmap *m);
/**
 * dom_unmap() - take some pages out of the adapter's domain, if mapped.
 * @c: the core.
 * @a: the adapter.
 * @pg: the pages.
 * @m: their mapping state; still wanted afterwards.
 *
 * An injected iommu/unmap failure leaves the entries in place (teardown
 * finds them: MAPPING_LEAK). In 1:1 mode a frame is unmapped only when its
 * last reference goes.
 */
void dom_unmap(struct core *c, struct adapter *a, const struct pages *pg, struct dmap *m);
/**
 * dom_iova() - the device address of a byte of some pages.
 * @a: the adapter.
 * @pg: the pages.
 * @m: their mapping state.
 * @offset: byte offset in the pages.
 * @iova: out: the address.
 *
 * Return: 0; -ERANGE beyond the pages, -EINVAL in logical mode while they
 * are not mapped (they have no logical address yet).
 */
int dom_iova(const struct adapter *a, const struct pages *pg, const struct dmap *m,
	     uint64_t offset, iova_t *iova);
/**
 * dom_span() - how far device addresses run on contiguously.
 * @a: the adapter.
 * @pg: the pages.
 * @m: their mapping state.
 * @offset: byte offset in the pages.
 *
 * Return: the bytes from @offset whose device addresses are contiguous (to
 * the end in logical mode, to the end of the run in 1:1); 0 beyond them.
 */
uint64_t dom_span(const struct adapter *a, const struct pages *pg, const struct dmap *m,
		  uint64_t offset);

/* exclusive.c: Begin/EndExclusiveAccess around every attach and detach */

/**
 * exclusive_begin() - suspend the scheduler and enter exclusive access.
 * @c: the core.
 * @a: the adapter.
 *
 * Waits for each physical adapter's queued work (recording its faults),
 * then calls DxgkDdiBeginExclusiveAccess if the adapter is started. Work
 * still queued after it is a WORK_IN_EXCLUSIVE violation.
 *
 * Return: the DMA count that exclusive_end() compares against.
 */
uint64_t exclusive_begin(struct core *c, struct adapter *a);
/**
 * exclusive_end() - leave exclusive access and resume the scheduler.
 * @c: the core.
 * @a: the adapter.
 * @dma_before: what exclusive_begin() returned; any DMA since is a
 *              DMA_IN_EXCLUSIVE violation.
 */
void exclusive_end(struct core *c, struct adapter *a, uint64_t dma_before);
/**
 * attach_all() - attach or detach every physical adapter, under exclusive access.
 * @c: the core.
 * @a: the adapter.
 * @domain: the domain to attach, or CORE_NO_DOMAIN to detach.
 *
 * Return: 0, or the first attach error (-EIO when injected by
 * domain/attach); those attached before it are detached again.
 */
int attach_all(struct core *c, struct adapter *a, uint32_t domain);

/* reserved.c: hardware-reserved ranges, mapped before the attach */

/**
 * reserved_map() - query, validate and map each physical adapter's reserved ranges.
 * @c: the core.
 * @a: the adapter, its domain created.
 *
 * Each range is mapped read/write at its physical address in both modes (in
 * logical mode taken out of the IOVA allocator first). A problem is also
 * told with adapter_error().
 *
 * Return: 0; the KMD's query error, -ENOMEM, -EINVAL for a range that is
 * misaligned, overlaps OS memory or lies above the logical limit, a range
 * collision, or a map error. Nothing stays mapped on an error.
 */
int reserved_map(struct core *c, struct adapter *a);
/**
 * reserved_unmap() - unmap the reserved ranges reserved_map() mapped.
 * @c: the core.
 * @a: the adapter; in logical mode the ranges go back to the IOVA allocator.
 */
void reserved_unmap(struct core *c, struct adapter *a);

/* enable.c: the IOMMUFlags steps, and teardown */

/**
 * dom_enable() - enable the IOMMU for an adapter as far as asked.
 * @c: the core.
 * @a: the adapter.
 * @mappings: map the reserved ranges and everything the adapter was given so far.
 * @attach: attach every physical adapter to the domain.
 *
 * Creates the domain first if there is none (1:1 mode unless the adapter
 * remaps). Steps already done are skipped.
 *
 * Return: 0; -EIO for an injected adapter/enable failure, or the error of
 * the step that failed. Everything done by this call is undone on an error.
 */
int dom_enable(struct core *c, struct adapter *a, bool mappings, bool attach);
/**
 * dom_teardown() - unmap everything, detach, and free the adapter's domain.
 * @c: the core.
 * @a: the adapter; nothing happens without a domain.
 *
 * Bytes still mapped after it all (an unmap that failed) are a
 * MAPPING_LEAK violation.
 */
void dom_teardown(struct core *c, struct adapter *a);

#endif
