/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_COMMON_SPARSE_H
#define GPUISO_COMMON_SPARSE_H

#include "types.h"

/*
 * Sparse byte storage over a large address space (system RAM, VRAM): reads of
 * never-written bytes return zero without allocating; storage is allocated in
 * 2 MiB chunks on first write. A two-level directory (1 GiB slots, then 512
 * chunk pointers) keeps lookups to two loads.
 */

#define SPARSE_CHUNK_SHIFT 21
#define SPARSE_CHUNK ((uint64_t)1 << SPARSE_CHUNK_SHIFT)

struct sparse_mem {
	uint64_t size;     /* addressable bytes */
	uint8_t ***dir;    /* [size / 1 GiB] -> [512] -> chunk or NULL */
	size_t ndir;
	uint64_t resident; /* bytes of chunks allocated */
};

/**
 * sparse_init() - make an empty store.
 * @sm: the store.
 * @size: addressable bytes (at most 2^52).
 *
 * Return: 0, -EINVAL for a bad size, -ENOMEM.
 */
int sparse_init(struct sparse_mem *sm, uint64_t size);

/**
 * sparse_fini() - free all storage.
 * @sm: the store.
 */
void sparse_fini(struct sparse_mem *sm);

/**
 * sparse_ptr() - a writable pointer at @addr, allocating its chunk if needed.
 * @sm: the store.
 * @addr: address (< size).
 * @avail: out: bytes valid from the pointer to the end of its chunk.
 *
 * Return: the pointer, or NULL if @addr is out of range or memory ran out.
 */
void *sparse_ptr(struct sparse_mem *sm, uint64_t addr, uint64_t *avail);

/**
 * sparse_peek() - a read-only pointer at @addr without allocating.
 * @sm: the store.
 * @addr: address (< size).
 * @avail: out: bytes to the end of the chunk (also set when NULL is returned).
 *
 * Return: the pointer, or NULL when the chunk was never written (reads as zero).
 */
const void *sparse_peek(const struct sparse_mem *sm, uint64_t addr, uint64_t *avail);

/**
 * sparse_read() - copy bytes out.
 * @sm: the store.
 * @addr: first address.
 * @buf: destination.
 * @len: bytes.
 *
 * Return: 0, -ERANGE if the range leaves the store.
 */
int sparse_read(const struct sparse_mem *sm, uint64_t addr, void *buf, uint64_t len);

/**
 * sparse_write() - copy bytes in.
 * @sm: the store.
 * @addr: first address.
 * @buf: source.
 * @len: bytes.
 *
 * Return: 0, -ERANGE, -ENOMEM.
 */
int sparse_write(struct sparse_mem *sm, uint64_t addr, const void *buf, uint64_t len);

/**
 * sparse_discard() - forget the content of a range (it reads as zero again);
 * whole chunks inside it are freed.
 * @sm: the store.
 * @addr: first address.
 * @len: bytes.
 *
 * Return: 0, -ERANGE.
 */
int sparse_discard(struct sparse_mem *sm, uint64_t addr, uint64_t len);

#endif
