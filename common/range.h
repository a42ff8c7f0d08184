/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_COMMON_RANGE_H
#define GPUISO_COMMON_RANGE_H

#include "types.h"

/*
 * An extent allocator over a 64-bit address space: the free space is a sorted
 * array of disjoint [base, base+size) extents, coalesced on free. One
 * mechanism serves physical page frames (hw/physmem) and logical addresses
 * (the IOVA allocator of a remapped adapter).
 */

struct range_extent {
	uint64_t base;
	uint64_t size;
};

struct range_alloc {
	struct range_extent *ext; /* free extents, sorted by base, disjoint, never adjacent */
	size_t n;                 /* extents in use */
	size_t cap;               /* extents allocated */
	uint64_t free_bytes;      /* sum of extent sizes */
	uint64_t digest;          /* XOR of each extent's term, kept as they change (range_digest()) */
};

/**
 * range_init() - start with nothing free.
 * @ra: the allocator.
 */
void range_init(struct range_alloc *ra);

/**
 * range_fini() - release the extent array.
 * @ra: the allocator.
 */
void range_fini(struct range_alloc *ra);

/**
 * range_add() - make [base, base+size) free (used to seed and to free).
 * @ra: the allocator.
 * @base: first address.
 * @size: bytes; 0 is a no-op.
 *
 * Return: 0, -EINVAL if the range overlaps free space already there (a double
 * free), -ENOMEM if the extent array cannot grow.
 */
int range_add(struct range_alloc *ra, uint64_t base, uint64_t size);

/**
 * range_take() - allocate @size bytes as one run, first fit, aligned to @align.
 * @ra: the allocator.
 * @size: bytes, non-zero.
 * @align: power of two alignment of the returned base.
 * @max_end: the run must end at or below this address (exclusive bound);
 *           UINT64_MAX for no bound.
 * @base: out: the run's first address.
 *
 * Return: 0, -ENOSPC if no free run fits, -ENOMEM if the extent array cannot grow.
 */
int range_take(struct range_alloc *ra, uint64_t size, uint64_t align, uint64_t max_end,
	       uint64_t *base);

/**
 * range_remove() - mark a specific [base, base+size) as used.
 * @ra: the allocator.
 * @base: first address.
 * @size: bytes.
 *
 * Return: 0, -ENOENT if any part of it is not free, -ENOMEM.
 */
int range_remove(struct range_alloc *ra, uint64_t base, uint64_t size);

/**
 * range_remove_at() - range_remove() of a range the caller found inside the
 * free extent @ra->ext[@i], without looking for it again.
 * @ra: the allocator.
 * @i: the extent that holds [base, base+size).
 * @base: first address.
 * @size: bytes.
 *
 * Return: 0, -ENOMEM.
 */
int range_remove_at(struct range_alloc *ra, size_t i, uint64_t base, uint64_t size);

/**
 * range_contains() - whether [@base, @base + @size) lies inside one extent.
 * @ra: the allocator.
 * @base: start.
 * @size: bytes (> 0).
 *
 * Return: true or false.
 */
bool range_contains(const struct range_alloc *ra, uint64_t base, uint64_t size);

/**
 * range_first_overlap() - the first extent that overlaps [@base, @base + @size).
 * @ra: the allocator.
 * @base: start.
 * @size: bytes.
 *
 * Return: the extent (valid until @ra changes), or NULL when none does.
 */
const struct range_extent *range_first_overlap(const struct range_alloc *ra, uint64_t base,
					       uint64_t size);

/**
 * range_largest() - the size of the largest free extent.
 * @ra: the allocator.
 *
 * Return: bytes (0 when full).
 */
uint64_t range_largest(const struct range_alloc *ra);

/**
 * range_digest() - a digest of the free space, kept as it changes: O(1).
 * @ra: the allocator.
 *
 * The XOR of a term per free extent (its base and size): the extents are
 * coalesced, so equal free space is equal extents and gives equal values.
 *
 * Return: the digest (0 when nothing is free).
 */
static inline uint64_t range_digest(const struct range_alloc *ra)
{
	return ra->digest;
}

/**
 * range_digest_full() - range_digest() computed again from every extent.
 * @ra: the allocator.
 *
 * The cross-check of the kept value (tests): the two are always equal.
 *
 * Return: the digest.
 */
uint64_t range_digest_full(const struct range_alloc *ra);

#endif
