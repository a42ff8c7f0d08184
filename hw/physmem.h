/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_HW_PHYSMEM_H
#define GPUISO_HW_PHYSMEM_H

#include "common/range.h"
#include "common/sparse.h"
#include "common/types.h"

/*
 * The system's physical memory as the OS memory manager sees it: the RAM
 * ranges of the OS memory map, page-frame allocation (scattered or one
 * contiguous run), the commit charge against a commit limit, locked pages
 * against a lockable limit, and the bytes themselves (sparse). Memory
 * pressure lowers what is available below the limits and can fragment
 * contiguous allocation. Backends read and write these bytes for DMA.
 *
 * Page frames are handed out as physical addresses (pa_t, page aligned).
 */

/* RAM ends at or below this address: a 52-bit physical address space (4 PiB). */
#define PHYSMEM_MAX_ADDR ((uint64_t)1 << 52)

struct physmem_config {
	const struct range_extent *ram; /* OS memory map: RAM ranges, page aligned,
					 * ending at or below PHYSMEM_MAX_ADDR */
	size_t nram;
	uint64_t commit_limit;   /* bytes that may be committed at once */
	uint64_t lockable_limit; /* bytes that may be locked at once */
};

/*
 * What pressure leaves available. UINT64_MAX in a field means "no pressure":
 * the limit alone applies.
 */
struct physmem_pressure {
	uint64_t commit_available;   /* bytes of commit charge still grantable */
	uint64_t lockable_available; /* bytes that may still be locked */
	uint64_t max_contiguous;     /* largest contiguous run an allocation gets */
};

struct physmem_usage {
	uint64_t committed; /* bytes of commit charge held */
	uint64_t locked;    /* bytes locked */
	uint64_t allocated; /* bytes of page frames handed out */
	uint64_t resident;  /* bytes of host storage behind written pages */
};

struct physmem {
	struct range_extent *ram;        /* copy of the OS memory map, sorted */
	size_t nram;
	struct range_alloc frames;       /* free page frames */
	struct range_alloc held;         /* frames a device may still reach (physmem_hold()) */
	struct range_alloc withheld;     /* held frames freed since: out of circulation */
	struct sparse_mem bytes;         /* content, addressed by pa */
	uint64_t highest_pa;             /* last byte of RAM (inclusive) */
	uint64_t commit_limit, lockable_limit;
	struct physmem_pressure pressure;
	struct physmem_usage usage;
};

/**
 * physmem_init() - set up physical memory from the OS memory map.
 * @pm: the memory.
 * @cfg: RAM ranges and limits; ranges must be page aligned and disjoint.
 *
 * Return: 0, -EINVAL for a bad map, -ENOMEM.
 */
int physmem_init(struct physmem *pm, const struct physmem_config *cfg);

/**
 * physmem_fini() - free everything (frames need not have been returned).
 * @pm: the memory.
 */
void physmem_fini(struct physmem *pm);

/**
 * physmem_commit() - take commit charge.
 * @pm: the memory.
 * @bytes: the charge.
 *
 * Return: 0, -ENOMEM when the limit or pressure leaves less than @bytes.
 */
int physmem_commit(struct physmem *pm, uint64_t bytes);

/**
 * physmem_uncommit() - return commit charge taken by physmem_commit().
 * @pm: the memory.
 * @bytes: the charge.
 */
void physmem_uncommit(struct physmem *pm, uint64_t bytes);

/**
 * physmem_lock() - lock pages (count only: which pages is the caller's business).
 * @pm: the memory.
 * @bytes: bytes to lock, page multiple.
 *
 * Return: 0, -ENOMEM when the lockable limit or pressure leaves less.
 */
int physmem_lock(struct physmem *pm, uint64_t bytes);

/**
 * physmem_unlock() - undo physmem_lock().
 * @pm: the memory.
 * @bytes: bytes.
 */
void physmem_unlock(struct physmem *pm, uint64_t bytes);

/* A run of consecutive page frames. */
struct phys_run {
	pa_t pa;         /* the first frame */
	uint64_t npages; /* how many */
};

/*
 * Runs of frames, in order. The first is kept inline, so memory in one run
 * (the common case) costs no array; once there are two, every run is in
 * @more. Read them with phys_runs_array().
 */
struct phys_runs {
	size_t n;               /* how many runs */
	struct phys_run one;    /* the run, while there is one */
	struct phys_run *more;  /* every run, from two on */
	size_t cap;             /* room in @more */
};

/**
 * phys_runs_array() - the runs of @r as an array of @r->n.
 * @r: the runs.
 * Return: the array (not to be freed: see phys_runs_free()).
 */
static inline const struct phys_run *phys_runs_array(const struct phys_runs *r)
{
	return r->n > 1 ? r->more : &r->one;
}

/**
 * phys_runs_add() - append a run, or extend the last one when it ends where
 * this one begins.
 * @r: the runs.
 * @pa: the run's first frame.
 * @npages: its length in frames.
 * Return: 0, -ENOMEM (nothing changed).
 */
int phys_runs_add(struct phys_runs *r, pa_t pa, uint64_t npages);

/**
 * phys_runs_free() - forget every run and free the array (not the frames).
 * @r: the runs.
 */
void phys_runs_free(struct phys_runs *r);

/**
 * physmem_alloc_runs() - allocate page frames, as runs of consecutive frames.
 * @pm: the memory.
 * @npages: how many 4 KiB frames.
 * @contiguous: true for one physically contiguous run.
 * @runs: out: the runs (initialised here; none for no pages); the caller
 *        frees them with phys_runs_free() after giving the frames back.
 * The frames are those physmem_alloc() would hand out, in the same order;
 * a run never ends where the next one begins. Charges no commit and locks
 * nothing.
 * Return: 0, -ENOMEM when there are not enough frames (or no run long
 * enough, or no memory for the array); nothing is allocated then.
 */
int physmem_alloc_runs(struct physmem *pm, uint64_t npages, bool contiguous,
		       struct phys_runs *runs);

/**
 * physmem_alloc() - allocate page frames.
 * @pm: the memory.
 * @npages: how many 4 KiB frames.
 * @contiguous: true for one physically contiguous run.
 * @pages: out: @npages page-aligned physical addresses, in order.
 *
 * Scattered allocations still take the longest runs available (so large
 * IOMMU pages stay possible) but never a run above the pressure's
 * max_contiguous. Charges no commit and locks nothing.
 *
 * Return: 0, -ENOMEM when there are not enough frames (or no run long enough).
 */
int physmem_alloc(struct physmem *pm, uint64_t npages, bool contiguous, pa_t *pages);

/**
 * physmem_free() - return page frames and forget their content.
 * @pm: the memory.
 * @pages: addresses from physmem_alloc().
 * @npages: how many.
 */
void physmem_free(struct physmem *pm, const pa_t *pages, uint64_t npages);

/**
 * physmem_free_run() - physmem_free() of the contiguous frames [pa, pa+npages*GPUISO_PAGE_SIZE).
 * @pm: the memory.
 * @pa: first frame.
 * @npages: how many.
 */
void physmem_free_run(struct physmem *pm, pa_t pa, uint64_t npages);

/**
 * physmem_hold() - keep frames out of circulation while a device may still
 * reach them (an IOMMU refused to unmap them): freed, they are withheld
 * instead of joining the free pool, until physmem_unhold().
 * @pm: the memory.
 * @pa: the first frame.
 * @npages: frames.
 *
 * Return: 0 or -ENOMEM.
 */
int physmem_hold(struct physmem *pm, pa_t pa, uint64_t npages);

/**
 * physmem_unhold() - no device can reach these frames any more: those freed
 * while held join the free pool now.
 * @pm: the memory.
 * @pa: the first frame.
 * @npages: frames.
 */
void physmem_unhold(struct physmem *pm, pa_t pa, uint64_t npages);

/**
 * physmem_set_pressure() - change what is available (see struct physmem_pressure).
 * @pm: the memory.
 * @p: the new pressure.
 */
void physmem_set_pressure(struct physmem *pm, const struct physmem_pressure *p);

/**
 * physmem_is_ram() - whether [pa, pa+len) lies entirely in RAM of the memory map.
 * @pm: the memory.
 * @pa: first byte.
 * @len: bytes.
 *
 * Return: true or false.
 */
bool physmem_is_ram(const struct physmem *pm, pa_t pa, uint64_t len);

/**
 * physmem_overlaps_ram() - whether any byte of [pa, pa+len) is RAM.
 * @pm: the memory.
 * @pa: first byte.
 * @len: bytes.
 *
 * Return: true or false.
 */
bool physmem_overlaps_ram(const struct physmem *pm, pa_t pa, uint64_t len);

/**
 * physmem_digest() - a digest of everything that decides what later calls
 * do: free frames, charges, limits and pressure, and the bytes.
 * @pm: the memory.
 *
 * The frames' and the bytes' parts are kept as they change
 * (range_digest(), sparse_state_digest()): this costs what changed since
 * the last call, not what the memory holds.
 *
 * Return: the digest.
 */
uint64_t physmem_digest(struct physmem *pm);

/**
 * physmem_digest_full() - physmem_digest() computed again from every free
 * extent and every chunk of bytes, without the kept values.
 * @pm: the memory.
 *
 * The cross-check of the kept values (tests): the two are always equal.
 *
 * Return: the digest.
 */
uint64_t physmem_digest_full(const struct physmem *pm);

#endif
