/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <string.h>

#include "sparse.h"

#define SPARSE_SLOT_SHIFT 30
#define SPARSE_PER_SLOT ((size_t)1 << (SPARSE_SLOT_SHIFT - SPARSE_CHUNK_SHIFT))
#define SPARSE_MAX_SIZE ((uint64_t)1 << 52)

/*
 * A chunk is its own 2 MiB anonymous mapping, zero until written, that the
 * kernel may back with one huge page: copies through it then cost no more
 * TLB misses than a plain memcpy's.
 */
static uint8_t *chunk_alloc(void)
{
	void *p = mmap(NULL, SPARSE_CHUNK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	madvise(p, SPARSE_CHUNK, MADV_HUGEPAGE);
	return p;
}

static void chunk_free(uint8_t *chunk)
{
	if (chunk)
		munmap(chunk, SPARSE_CHUNK);
}

int sparse_init(struct sparse_mem *sm, uint64_t size)
{
	*sm = (struct sparse_mem){ 0 };
	if (!size || size > SPARSE_MAX_SIZE)
		return -EINVAL;
	sm->ndir = (size_t)((size + (SZ_1G - 1)) >> SPARSE_SLOT_SHIFT);
	/* calloc of a large directory is mmap'ed zero pages: untouched slots cost nothing. */
	sm->dir = calloc(sm->ndir, sizeof(*sm->dir));
	if (!sm->dir)
		return -ENOMEM;
	sm->size = size;
	return 0;
}

void sparse_fini(struct sparse_mem *sm)
{
	for (size_t i = 0; i < sm->ndir; i++) {
		if (!sm->dir[i])
			continue;
		for (size_t j = 0; j < SPARSE_PER_SLOT; j++)
			chunk_free(sm->dir[i][j]);
		free(sm->dir[i]);
	}
	free(sm->dir);
	*sm = (struct sparse_mem){ 0 };
}

/* The chunk pointer slot of @addr, or NULL if its directory slot is absent. */
static uint8_t **sparse_slot(const struct sparse_mem *sm, uint64_t addr)
{
	uint8_t **chunks = sm->dir[addr >> SPARSE_SLOT_SHIFT];

	if (!chunks)
		return NULL;
	return &chunks[(addr >> SPARSE_CHUNK_SHIFT) & (SPARSE_PER_SLOT - 1)];
}

/* Bytes from @addr to the end of its chunk, clipped to the store. */
static uint64_t sparse_avail(const struct sparse_mem *sm, uint64_t addr)
{
	uint64_t to_chunk_end = SPARSE_CHUNK - (addr & (SPARSE_CHUNK - 1));

	return MIN(to_chunk_end, sm->size - addr);
}

void *sparse_ptr(struct sparse_mem *sm, uint64_t addr, uint64_t *avail)
{
	uint8_t ***dirp, **slot;

	if (addr >= sm->size)
		return NULL;
	dirp = &sm->dir[addr >> SPARSE_SLOT_SHIFT];
	if (!*dirp) {
		*dirp = calloc(SPARSE_PER_SLOT, sizeof(**dirp));
		if (!*dirp)
			return NULL;
	}
	slot = &(*dirp)[(addr >> SPARSE_CHUNK_SHIFT) & (SPARSE_PER_SLOT - 1)];
	if (!*slot) {
		*slot = chunk_alloc();
		if (!*slot)
			return NULL;
		sm->resident += SPARSE_CHUNK;
	}
	*avail = sparse_avail(sm, addr);
	return *slot + (addr & (SPARSE_CHUNK - 1));
}

const void *sparse_peek(const struct sparse_mem *sm, uint64_t addr, uint64_t *avail)
{
	uint8_t **slot;

	if (addr >= sm->size) {
		*avail = 0;
		return NULL;
	}
	*avail = sparse_avail(sm, addr);
	slot = sparse_slot(sm, addr);
	if (!slot || !*slot)
		return NULL;
	return *slot + (addr & (SPARSE_CHUNK - 1));
}

static bool sparse_in_range(const struct sparse_mem *sm, uint64_t addr, uint64_t len)
{
	return addr <= sm->size && len <= sm->size - addr;
}

int sparse_read(const struct sparse_mem *sm, uint64_t addr, void *buf, uint64_t len)
{
	uint8_t *out = buf;

	if (!sparse_in_range(sm, addr, len))
		return -ERANGE;
	while (len) {
		uint64_t avail;
		const void *p = sparse_peek(sm, addr, &avail);
		uint64_t n = MIN(avail, len);

		if (p)
			memcpy(out, p, n);
		else
			memset(out, 0, n);
		out += n;
		addr += n;
		len -= n;
	}
	return 0;
}

int sparse_write(struct sparse_mem *sm, uint64_t addr, const void *buf, uint64_t len)
{
	const uint8_t *in = buf;

	if (!sparse_in_range(sm, addr, len))
		return -ERANGE;
	while (len) {
		uint64_t avail;
		void *p = sparse_ptr(sm, addr, &avail);
		uint64_t n;

		if (!p)
			return -ENOMEM;
		n = MIN(avail, len);
		memcpy(p, in, n);
		in += n;
		addr += n;
		len -= n;
	}
	return 0;
}

int sparse_discard(struct sparse_mem *sm, uint64_t addr, uint64_t len)
{
	if (!sparse_in_range(sm, addr, len))
		return -ERANGE;
	while (len) {
		uint8_t **slot = sparse_slot(sm, addr);
		uint64_t off = addr & (SPARSE_CHUNK - 1);
		uint64_t n = MIN(sparse_avail(sm, addr), len);

		if (slot && *slot) {
			/*
			 * A whole chunk (up to the store's end) goes back to the
			 * host; a partly discarded one keeps its storage.
			 */
			if (off == 0 && n == sparse_avail(sm, addr)) {
				chunk_free(*slot);
				*slot = NULL;
				sm->resident -= SPARSE_CHUNK;
			} else {
				memset(*slot + off, 0, n);
			}
		}
		addr += n;
		len -= n;
	}
	return 0;
}
