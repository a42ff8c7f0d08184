/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_COMMON_SPARSE_H
#define GPUISO_COMMON_SPARSE_H

#include "types.h"

/*
 * Sparse byte storage over a large address space (system RAM, VRAM): reads of
 * never-written bytes return zero without allocating; storage is allocated in
 * 2 MiB chunks on first write. A two-level directory (1 GiB slots, then 512
 * chunk pointers) keeps lookups to two loads.
 *
 * Each chunk keeps a bit per 4 KiB page that says "reads as zero": freeing
 * frames (sparse_discard()) sets bits instead of clearing bytes, and a chunk
 * let go is kept in a small per-store pool to be reused with every bit set,
 * so neither the store nor the kernel clears memory that is about to be
 * overwritten.
 *
 * Chunks are shared copy-on-write: sparse_copy() of a whole, aligned chunk
 * (a frame-buffer save area copied to VRAM and back) takes a reference
 * instead of copying 2 MiB, and the first write through sparse_ptr() gives
 * the writer a private copy. Smaller copies take whole pages by reference
 * the same way (a page borrows another chunk's page), and a chunk that ends
 * up borrowing every page of one chunk, each in its place, becomes a share
 * of it: content moved piece by piece through a bounce buffer (a chunked
 * save) ends as a whole-chunk copy would. A chunk also caches its digest
 * until written, so sparse_digest() of content that was only moved costs
 * nothing.
 */

#define SPARSE_CHUNK_SHIFT 21
#define SPARSE_CHUNK ((uint64_t)1 << SPARSE_CHUNK_SHIFT)

struct sparse_chunk;

/* A chunk slot changed since the state digest was last taken, and its term then. */
struct sparse_touch {
	uint64_t chunk;   /* slot: address >> SPARSE_CHUNK_SHIFT */
	uint64_t term;
};

struct sparse_mem {
	uint64_t size;                 /* addressable bytes */
	struct sparse_chunk ***dir;    /* [size / 1 GiB] -> [512] -> chunk or NULL */
	size_t ndir;
	uint64_t *present;             /* a bit per chunk slot: it holds a chunk (digests walk these) ... */
	uint64_t *present_dirs;        /* ... and a bit per directory slot: one of its chunks does */
	uint64_t resident;             /* bytes of chunks held (a shared chunk counts in each store) */
	struct sparse_chunk *pool;     /* chunks let go, for reuse */
	unsigned int npool;
	/*
	 * The state digest (sparse_state_digest()), kept once first asked
	 * for: the XOR of each present chunk's term as of the last call, and
	 * the slots changed since (each once, with its term then) to fold in
	 * at the next. Pinned chunks stay noted: a device writes them unseen.
	 */
	bool track;
	bool touch_lost;               /* a slot could not be noted: the next call walks every chunk */
	uint64_t state;
	uint64_t *dirty;               /* a bit per chunk slot, as present: noted in touched */
	struct sparse_touch *touched;
	size_t ntouched, touched_cap;
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
 * sparse_chunks_from_heap() - take new chunks from malloc() instead of mappings of their own.
 * @heap: true: from the heap; false (the default): mapped, with huge pages where they can be.
 *
 * Process-wide, like mallopt(): for a process whose memory is under
 * snapshots (common/snap.h), which must map and unmap nothing. Each chunk
 * is given back the way it came.
 */
void sparse_chunks_from_heap(bool heap);

/**
 * sparse_ptr() - a pointer for writing at @addr, allocating its chunk if
 * needed (or copying it, if it is shared).
 * @sm: the store.
 * @addr: address (< size).
 * @len: bytes the caller will write from @addr; it must write all of
 * [@addr, @addr + min(@len, *@avail)), bytes around that range keep their content.
 * @avail: out: bytes valid from the pointer to the end of its chunk.
 *
 * Return: the pointer, or NULL if @addr is out of range or memory ran out.
 */
void *sparse_ptr(struct sparse_mem *sm, uint64_t addr, uint64_t len, uint64_t *avail);

/**
 * sparse_peek() - a read-only pointer at @addr without allocating.
 * @sm: the store.
 * @addr: address (< size).
 * @avail: out: bytes from @addr, within its chunk, that the answer holds for
 * (also set when NULL is returned).
 *
 * Return: the pointer, or NULL when the bytes read as zero (never written or discarded).
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
 * sparse_fill() - write @pattern over and over across a range.
 * @sm: the store.
 * @addr: first address; the pattern's first byte lands here.
 * @len: bytes.
 * @pattern: the bytes to repeat.
 * @plen: their count (> 0).
 *
 * Only the first period is written; the rest is copied from it with
 * sparse_copy(). When @addr and @plen are multiples of SPARSE_CHUNK, those
 * copies share whole chunks: filling any length holds the memory of one period.
 *
 * Return: 0, -EINVAL (@plen is 0), -ERANGE, -ENOMEM.
 */
int sparse_fill(struct sparse_mem *sm, uint64_t addr, uint64_t len, const void *pattern,
		uint64_t plen);

/**
 * sparse_discard() - forget the content of a range (it reads as zero again);
 * whole chunks inside it are let go.
 * @sm: the store.
 * @addr: first address.
 * @len: bytes.
 *
 * Return: 0, -ERANGE, -ENOMEM (a shared chunk partly discarded is copied).
 */
int sparse_discard(struct sparse_mem *sm, uint64_t addr, uint64_t len);

/**
 * sparse_copy() - copy bytes from one store (or place) to another.
 * @dst: destination store.
 * @doff: destination address.
 * @src: source store (may be @dst; the ranges must not overlap).
 * @soff: source address.
 * @len: bytes.
 * @stream: write with streaming stores (data not read again soon).
 *
 * Whole chunks at chunk-aligned addresses on both sides are shared, whole
 * pages at the same place within a page on both sides are borrowed, never
 * written source bytes discard the destination, the rest is copied. Bytes
 * the destination holds already are left as they are.
 *
 * Return: 0, -ERANGE, -ENOMEM.
 */
int sparse_copy(struct sparse_mem *dst, uint64_t doff, const struct sparse_mem *src,
		uint64_t soff, uint64_t len, bool stream);

/**
 * sparse_state_digest() - a digest of the content of the whole store, kept
 * as it changes.
 * @sm: the store.
 *
 * The XOR of a term per chunk slot (its place and its content's digest, 0
 * for content that reads as zero): equal content gives equal values however
 * the store holds it, chunks absent or present, pages zeroed, owned or
 * borrowed. The first call walks every chunk and starts keeping the value;
 * each later one costs what changed since: the slots changed (their chunks'
 * digests, which are cached, so content only moved costs little) and the
 * pinned chunks.
 *
 * Return: the digest.
 */
uint64_t sparse_state_digest(struct sparse_mem *sm);

/**
 * sparse_state_digest_full() - sparse_state_digest() computed again from
 * every chunk, without the kept value.
 * @sm: the store.
 *
 * The cross-check of the kept value (tests): the two are always equal.
 *
 * Return: the digest.
 */
uint64_t sparse_state_digest_full(const struct sparse_mem *sm);

/**
 * sparse_digest() - a digest (common/digest.h) of the content of a range.
 * @sm: the store.
 * @addr: first address.
 * @len: bytes.
 * @out: the digest: equal for equal content at equal addresses, whether
 * written, shared or never written.
 *
 * Return: 0, -ERANGE.
 */
int sparse_digest(const struct sparse_mem *sm, uint64_t addr, uint64_t len, uint64_t *out);

/**
 * sparse_pin() - make the memory at @addr plain memory a device may read and
 * write behind the store's back (through an IOMMU mapping of the pointer):
 * allocated, private, real zeros where it read as zero, never shared, moved
 * or let go while pinned. Pins of a chunk count; sparse_unpin() each.
 * @sm: the store.
 * @addr: address (< size).
 * @len: bytes wanted from @addr.
 * @avail: out: bytes valid from the pointer to the end of its chunk.
 *
 * Return: the pointer, stable until unpinned, or NULL (out of range, no memory).
 */
void *sparse_pin(struct sparse_mem *sm, uint64_t addr, uint64_t len, uint64_t *avail);

/**
 * sparse_unpin() - drop one pin of the chunk holding @addr.
 * @sm: the store.
 * @addr: an address sparse_pin() was given (or any in the same chunk).
 */
void sparse_unpin(struct sparse_mem *sm, uint64_t addr);

#endif
