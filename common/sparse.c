/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <string.h>

#include "copy.h"
#include "sparse_internal.h"

/*
 * The store (common/sparse.h): its chunks, where they come from and where
 * they go (a pool, for reuse), the directory of their slots, and the
 * reads, writes, discards and pins of its bytes. Copies are sparse_copy.c's,
 * digests sparse_digest.c's, a chunk's pages sparse_page.c's.
 */

#define SPARSE_MAX_SIZE ((uint64_t)1 << 52)
/* Chunks a store keeps for reuse (each holds 2 MiB of the process's memory). */
#define SPARSE_POOL 8

/* --- chunks --- */

/* Where chunks come from (sparse_chunks_from_heap()): the process's, as mallopt() is. */
static bool sparse_heap_chunks;

void sparse_chunks_from_heap(bool heap)
{
	sparse_heap_chunks = heap;
}

/* A chunk's bytes: a mapping of their own (huge pages where they can), or from the heap. */
static void *chunk_data_new(bool heap)
{
	void *p;

	if (heap)
		return malloc(SPARSE_CHUNK);
	p = mmap(NULL, SPARSE_CHUNK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	madvise(p, SPARSE_CHUNK, MADV_HUGEPAGE);
	return p;
}

/*
 * A chunk's bytes are their own 2 MiB anonymous mapping that the kernel may
 * back with one huge page: copies through it then cost no more TLB misses
 * than a plain memcpy's. A chunk from the pool keeps its old bytes: every
 * page reads as zero until written.
 */
static struct sparse_chunk *chunk_new(struct sparse_mem *sm)
{
	struct sparse_chunk *ch = sm->pool;
	void *p;

	if (ch) {
		sm->pool = ch->next;
		sm->npool--;
	} else {
		ch = malloc(sizeof(*ch));
		if (!ch)
			return NULL;
		ch->heap_data = sparse_heap_chunks;
		p = chunk_data_new(ch->heap_data);
		if (!p) {
			free(ch);
			return NULL;
		}
		ch->data = p;
		ch->borrow = NULL;
		ch->nborrowed = 0;
	}
	memset(ch->zero, 0xff, sizeof(ch->zero));
	ch->refs = 1;
	ch->pins = 0;
	ch->digest_valid = false;
	ch->next = NULL;
	return ch;
}

static void chunk_release(struct sparse_chunk *ch)
{
	if (ch->heap_data)
		free(ch->data);
	else
		munmap(ch->data, SPARSE_CHUNK);
	free(ch->borrow);
	free(ch);
}

/* Drop a reference; the last one gives back what it borrowed and puts it in @sm's pool or frees it. */
void sparse_chunk_put(struct sparse_mem *sm, struct sparse_chunk *ch)
{
	if (!ch || --ch->refs)
		return;
	for (uint64_t page = 0; ch->nborrowed && page < SPARSE_PAGES; page++)
		if (ch->borrow[page].from)
			sparse_unborrow(sm, ch, page);
	if (sm->npool < SPARSE_POOL) {
		ch->next = sm->pool;
		sm->pool = ch;
		sm->npool++;
		return;
	}
	chunk_release(ch);
}

int sparse_init(struct sparse_mem *sm, uint64_t size)
{
	*sm = (struct sparse_mem){ 0 };
	if (!size || size > SPARSE_MAX_SIZE)
		return -EINVAL;
	sm->ndir = (size_t)((size + (SZ_1G - 1)) >> SPARSE_SLOT_SHIFT);
	/* calloc of a large directory is mmap'ed zero pages: untouched slots cost nothing. */
	sm->dir = calloc(sm->ndir, sizeof(*sm->dir));
	sm->present = calloc(sm->ndir * (SPARSE_PER_SLOT / 64), sizeof(*sm->present));
	sm->present_dirs = calloc((sm->ndir + 63) / 64, sizeof(*sm->present_dirs));
	if (!sm->dir || !sm->present || !sm->present_dirs) {
		free(sm->dir);
		free(sm->present);
		free(sm->present_dirs);
		return -ENOMEM;
	}
	sm->size = size;
	return 0;
}

void sparse_fini(struct sparse_mem *sm)
{
	for (size_t i = 0; i < sm->ndir; i++) {
		if (!sm->dir[i])
			continue;
		for (size_t j = 0; j < SPARSE_PER_SLOT; j++)
			sparse_chunk_put(sm, sm->dir[i][j]);
		free(sm->dir[i]);
	}
	while (sm->pool) {
		struct sparse_chunk *ch = sm->pool;

		sm->pool = ch->next;
		chunk_release(ch);
	}
	free(sm->dir);
	free(sm->present);
	free(sm->present_dirs);
	free(sm->dirty);
	free(sm->touched);
	*sm = (struct sparse_mem){ 0 };
}

/* The chunk slot of @addr; its directory slot is made when @make, else NULL if absent. */
struct sparse_chunk **sparse_slot(const struct sparse_mem *sm, uint64_t addr, bool make)
{
	struct sparse_chunk ***dirp = &sm->dir[addr >> SPARSE_SLOT_SHIFT];

	if (!*dirp) {
		if (!make)
			return NULL;
		*dirp = calloc(SPARSE_PER_SLOT, sizeof(**dirp));
		if (!*dirp)
			return NULL;
	}
	return &(*dirp)[(addr >> SPARSE_CHUNK_SHIFT) & (SPARSE_PER_SLOT - 1)];
}

struct sparse_chunk *sparse_chunk_at(const struct sparse_mem *sm, uint64_t addr)
{
	struct sparse_chunk **slot = sparse_slot(sm, addr, false);

	return slot ? *slot : NULL;
}

/* Bytes from @addr to the end of its chunk, clipped to the store. */
uint64_t sparse_avail(const struct sparse_mem *sm, uint64_t addr)
{
	return GPUISO_MIN(SPARSE_CHUNK - SPARSE_OFF(addr), sm->size - addr);
}

bool sparse_in_range(const struct sparse_mem *sm, uint64_t addr, uint64_t len)
{
	return addr <= sm->size && len <= sm->size - addr;
}

/* Mark the slot of @addr as holding a chunk (@held) or not. */
void sparse_present_mark(struct sparse_mem *sm, uint64_t addr, bool held)
{
	uint64_t c = addr >> SPARSE_CHUNK_SHIFT, bit = (uint64_t)1 << (c % 64), any = 0;
	uint64_t dir = addr >> SPARSE_SLOT_SHIFT, *words = sm->present + dir * (SPARSE_PER_SLOT / 64);

	sm->present[c / 64] = held ? sm->present[c / 64] | bit : sm->present[c / 64] & ~bit;
	for (size_t w = 0; w < SPARSE_PER_SLOT / 64; w++)
		any |= words[w];
	bit = (uint64_t)1 << (dir % 64);
	sm->present_dirs[dir / 64] = any ? sm->present_dirs[dir / 64] | bit
					 : sm->present_dirs[dir / 64] & ~bit;
}

/* Make *@slot (the slot of @addr) a chunk only this slot holds, about to change. */
static struct sparse_chunk *slot_own(struct sparse_mem *sm, struct sparse_chunk **slot,
				     uint64_t addr)
{
	struct sparse_chunk *ch = *slot, *copy;

	sparse_slot_touch(sm, addr);
	if (!ch) {
		ch = chunk_new(sm);
		if (!ch)
			return NULL;
		*slot = ch;
		sparse_present_mark(sm, addr, true);
		sm->resident += SPARSE_CHUNK;
	} else if (ch->refs > 1) {
		copy = chunk_new(sm);
		if (!copy)
			return NULL;
		if (ch->nborrowed && !sparse_borrow_table(copy)) {
			sparse_chunk_put(sm, copy);
			return NULL;
		}
		for (uint64_t off = 0, end; off < SPARSE_CHUNK; off = end) {
			uint64_t page = off >> SPARSE_PAGE_SHIFT;

			end = sparse_stretch_end(ch, off);
			if (!sparse_page_borrowed(ch, page)) {
				if (!sparse_page_zero(ch, page))
					copy_stream(copy->data + off, ch->data + off, end - off);
				continue;
			}
			for (; page < end >> SPARSE_PAGE_SHIFT; page++) {
				copy->borrow[page] = ch->borrow[page];
				copy->borrow[page].from->refs++;
				copy->nborrowed++;
			}
		}
		memcpy(copy->zero, ch->zero, sizeof(copy->zero));
		sparse_chunk_put(sm, ch);
		*slot = ch = copy;
	}
	ch->digest_valid = false;
	return ch;
}

/* Drop the whole chunk at @slot (the slot of @addr), if any. */
void sparse_slot_drop(struct sparse_mem *sm, struct sparse_chunk **slot, uint64_t addr)
{
	if (!slot || !*slot)
		return;
	sparse_slot_touch(sm, addr);
	sparse_chunk_put(sm, *slot);
	*slot = NULL;
	sparse_present_mark(sm, addr, false);
	sm->resident -= SPARSE_CHUNK;
}

/* The chunk of @addr, made and owned for a change of @len bytes there (*@avail: to its end). */
struct sparse_chunk *sparse_chunk_to_change(struct sparse_mem *sm, uint64_t addr, uint64_t len,
					    uint64_t *avail)
{
	struct sparse_chunk **slot;

	if (addr >= sm->size || !len)
		return NULL;
	slot = sparse_slot(sm, addr, true);
	if (!slot)
		return NULL;
	*avail = sparse_avail(sm, addr);
	return slot_own(sm, slot, addr);
}

void *sparse_ptr(struct sparse_mem *sm, uint64_t addr, uint64_t len, uint64_t *avail)
{
	struct sparse_chunk *ch = sparse_chunk_to_change(sm, addr, len, avail);

	if (!ch)
		return NULL;
	sparse_pages_prepare_write(sm, ch, SPARSE_OFF(addr), GPUISO_MIN(len, *avail));
	return ch->data + SPARSE_OFF(addr);
}

const void *sparse_peek(const struct sparse_mem *sm, uint64_t addr, uint64_t *avail)
{
	const struct sparse_chunk *ch;
	uint64_t off = SPARSE_OFF(addr);

	if (addr >= sm->size) {
		*avail = 0;
		return NULL;
	}
	*avail = sparse_avail(sm, addr);
	ch = sparse_chunk_at(sm, addr);
	if (!ch)
		return NULL;
	*avail = GPUISO_MIN(*avail, sparse_stretch_end(ch, off) - off);
	return sparse_page_zero(ch, off >> SPARSE_PAGE_SHIFT) ? NULL : sparse_bytes_at(ch, off);
}

int sparse_read(const struct sparse_mem *sm, uint64_t addr, void *buf, uint64_t len)
{
	uint8_t *out = buf;

	if (!sparse_in_range(sm, addr, len))
		return -ERANGE;
	while (len) {
		uint64_t avail;
		const void *p = sparse_peek(sm, addr, &avail);
		uint64_t n = GPUISO_MIN(avail, len);

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
		void *p = sparse_ptr(sm, addr, len, &avail);
		uint64_t n;

		if (!p)
			return -ENOMEM;
		n = GPUISO_MIN(avail, len);
		memcpy(p, in, n);
		in += n;
		addr += n;
		len -= n;
	}
	return 0;
}

int sparse_fill(struct sparse_mem *sm, uint64_t addr, uint64_t len, const void *pattern,
		uint64_t plen)
{
	uint64_t done = GPUISO_MIN(plen, len);
	int rc;

	if (!plen)
		return -EINVAL;
	if (!sparse_in_range(sm, addr, len))
		return -ERANGE;
	rc = sparse_write(sm, addr, pattern, done);
	/* [addr, addr+done) holds whole periods: its copy right after it continues the pattern */
	while (!rc && done < len) {
		uint64_t n = GPUISO_MIN(done, len - done);

		rc = sparse_copy(sm, addr + done, sm, addr, n, false);
		done += n;
	}
	return rc;
}

/*
 * Whether [addr, addr+n) of @sm holds the bytes at @p, or reads as zero
 * when @p is NULL; "no" where pages that read as zero meet real bytes.
 */
bool sparse_holds(const struct sparse_mem *sm, uint64_t addr, const uint8_t *p, uint64_t n)
{
	while (n) {
		uint64_t avail;
		const void *have = sparse_peek(sm, addr, &avail);
		uint64_t k = GPUISO_MIN(avail, n);

		if (!have != !p || (p && have != p && memcmp(have, p, k)))
			return false;
		addr += k;
		p = p ? p + k : NULL;
		n -= k;
	}
	return true;
}

/* Whether [addr, addr+len) of @sm starts a whole chunk that it covers. */
bool sparse_whole_chunk(const struct sparse_mem *sm, uint64_t addr, uint64_t len)
{
	return SPARSE_OFF(addr) == 0 && len >= SPARSE_CHUNK && sparse_avail(sm, addr) == SPARSE_CHUNK;
}

int sparse_discard(struct sparse_mem *sm, uint64_t addr, uint64_t len)
{
	if (!sparse_in_range(sm, addr, len))
		return -ERANGE;
	while (len) {
		struct sparse_chunk **slot, *ch;
		uint64_t n;

		if (!sm->dir[addr >> SPARSE_SLOT_SHIFT]) {
			/* nothing in this gigabyte: on to the next */
			n = GPUISO_MIN(ALIGN_DOWN(addr, SZ_1G) + SZ_1G - addr, len);
			addr += n;
			len -= n;
			continue;
		}
		slot = sparse_slot(sm, addr, false);
		n = GPUISO_MIN(sparse_avail(sm, addr), len);

		/*
		 * A whole chunk (up to the store's end) is let go, a part reads as
		 * zero; a shared chunk is not copied for a part that does already.
		 */
		if (slot && *slot) {
			if (SPARSE_OFF(addr) == 0 && n == sparse_avail(sm, addr) && !(*slot)->pins) {
				sparse_slot_drop(sm, slot, addr);
			} else if ((*slot)->refs == 1 || !sparse_holds(sm, addr, NULL, n)) {
				ch = slot_own(sm, slot, addr);
				if (!ch)
					return -ENOMEM;
				sparse_pages_discard(sm, ch, SPARSE_OFF(addr), n);
			}
		}
		addr += n;
		len -= n;
	}
	return 0;
}

void *sparse_pin(struct sparse_mem *sm, uint64_t addr, uint64_t len, uint64_t *avail)
{
	struct sparse_chunk *ch = sparse_chunk_to_change(sm, addr, len, avail);
	uint64_t off = SPARSE_OFF(addr), n;

	if (!ch)
		return NULL;
	n = GPUISO_MIN(len, *avail);
	/* pages that read as zero become real zeros, borrowed ones own bytes: the device will see them */
	for (uint64_t page = off >> SPARSE_PAGE_SHIFT; page <= (off + n - 1) >> SPARSE_PAGE_SHIFT; page++) {
		if (sparse_page_borrowed(ch, page))
			sparse_page_own(sm, ch, page, true);
		if (sparse_page_zero(ch, page)) {
			memset(ch->data + (page << SPARSE_PAGE_SHIFT), 0, SPARSE_PAGE);
			sparse_page_set_zero(ch, page, false);
		}
	}
	ch->pins++;
	return ch->data + off;
}

void sparse_unpin(struct sparse_mem *sm, uint64_t addr)
{
	struct sparse_chunk *ch = addr < sm->size ? sparse_chunk_at(sm, addr) : NULL;

	if (ch && ch->pins)
		ch->pins--;
}
