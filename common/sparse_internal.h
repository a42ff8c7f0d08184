/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_COMMON_SPARSE_INTERNAL_H
#define GPUISO_COMMON_SPARSE_INTERNAL_H

#include "sparse.h"
#include "types.h"

/*
 * What the files of sparse memory share (sparse.c the store, its chunks and
 * slots, reads and writes; sparse_page.c a chunk's pages, zero or
 * borrowed; sparse_copy.c copies; sparse_digest.c digests): a chunk, and
 * the steps each of them takes on the others' parts.
 */

#define SPARSE_SLOT_SHIFT 30
#define SPARSE_PER_SLOT ((size_t)1 << (SPARSE_SLOT_SHIFT - SPARSE_CHUNK_SHIFT))
#define SPARSE_OFF(addr) ((addr) & (SPARSE_CHUNK - 1))

#define SPARSE_PAGE_SHIFT 12
#define SPARSE_PAGE ((uint64_t)1 << SPARSE_PAGE_SHIFT)
#define SPARSE_PAGES (SPARSE_CHUNK / SPARSE_PAGE)

/* A page whose bytes are those of another chunk's page: copied by reference. */
struct sparse_borrow {
	struct sparse_chunk *from;  /* holds a reference to it; NULL: the page has its own bytes */
	uint32_t page;              /* a page of @from with its own bytes */
};

struct sparse_chunk {
	uint8_t *data;                     /* SPARSE_CHUNK bytes */
	uint64_t zero[SPARSE_PAGES / 64];  /* bit set: the page reads as zero, whatever data holds */
	struct sparse_borrow *borrow;      /* [SPARSE_PAGES] once a page was borrowed, else NULL */
	uint32_t nborrowed;                /* pages whose bytes are another chunk's */
	uint32_t refs;                     /* directory slots and borrowed pages holding it, in any store */
	uint32_t pins;                     /* sparse_pin() holds: plain memory a device may access */
	bool digest_valid;                 /* @digest is that of the content as it is */
	bool heap_data;                    /* @data came from malloc() (sparse_chunks_from_heap()) */
	uint64_t digest;
	struct sparse_chunk *next;         /* in a store's pool */
};

/* --- a chunk's pages (sparse_page.c) --- */

/**
 * sparse_page_zero() - whether @page of @ch reads as zero.
 * @ch: the chunk.
 * @page: the page's index in it.
 *
 * Return: true when it does, whatever its bytes hold.
 */
static inline bool sparse_page_zero(const struct sparse_chunk *ch, uint64_t page)
{
	return ch->zero[page / 64] >> (page % 64) & 1;
}

/**
 * sparse_page_set_zero() - let @page of @ch read as zero, or not.
 * @ch: the chunk.
 * @page: the page's index in it.
 * @zero: whether it reads as zero.
 */
static inline void sparse_page_set_zero(struct sparse_chunk *ch, uint64_t page, bool zero)
{
	if (zero)
		ch->zero[page / 64] |= (uint64_t)1 << (page % 64);
	else
		ch->zero[page / 64] &= ~((uint64_t)1 << (page % 64));
}

/**
 * sparse_page_borrowed() - whether @page of @ch holds another chunk's bytes.
 * @ch: the chunk.
 * @page: the page's index in it.
 *
 * Return: true when it borrowed them.
 */
static inline bool sparse_page_borrowed(const struct sparse_chunk *ch, uint64_t page)
{
	return ch->nborrowed && ch->borrow[page].from;
}

/**
 * sparse_bytes_at() - where the bytes at @off of @ch are: its own, or those
 * of the page it borrowed.
 * @ch: the chunk.
 * @off: the offset in it.
 *
 * Return: a pointer to them.
 */
static inline uint8_t *sparse_bytes_at(const struct sparse_chunk *ch, uint64_t off)
{
	uint64_t page = off >> SPARSE_PAGE_SHIFT;
	const struct sparse_borrow *b;

	if (!sparse_page_borrowed(ch, page))
		return ch->data + off;
	b = &ch->borrow[page];
	return b->from->data + ((uint64_t)b->page << SPARSE_PAGE_SHIFT) + (off & (SPARSE_PAGE - 1));
}

/**
 * sparse_stretch_end() - the end of the stretch from @off over which @ch
 * reads as zero, or has its bytes contiguous in memory: its own, or borrowed
 * from consecutive pages of one chunk.
 * @ch: the chunk.
 * @off: the offset in it.
 *
 * Return: the offset in @ch, at most SPARSE_CHUNK, where the stretch ends.
 */
uint64_t sparse_stretch_end(const struct sparse_chunk *ch, uint64_t off);

/**
 * sparse_unborrow() - give @page of @ch back what it borrowed; it has its
 * own bytes again, whatever they hold.
 * @sm: the store (the chunk lent from may go to its pool).
 * @ch: the chunk.
 * @page: a page it borrowed.
 */
void sparse_unborrow(struct sparse_mem *sm, struct sparse_chunk *ch, uint64_t page);

/**
 * sparse_page_own() - let @page of @ch, which borrowed, have its own bytes.
 * @sm: the store.
 * @ch: the chunk.
 * @page: a page it borrowed.
 * @keep: with a copy of the bytes it borrowed.
 */
void sparse_page_own(struct sparse_mem *sm, struct sparse_chunk *ch, uint64_t page, bool keep);

/**
 * sparse_borrow_table() - @ch's table of borrowed pages, made on first need.
 * @ch: the chunk.
 *
 * Return: false when out of memory.
 */
bool sparse_borrow_table(struct sparse_chunk *ch);

/**
 * sparse_borrow() - let @page of @ch (held by one slot only, not pinned, not
 * @from) hold the bytes of @fpage of @from (not pinned) by reference: those
 * of the page it borrowed itself, if so.
 * @sm: the store.
 * @ch: the chunk that borrows.
 * @page: its page.
 * @from: the chunk lent from.
 * @fpage: its page.
 *
 * Return: 0, or -ENOMEM (nothing changed).
 */
int sparse_borrow(struct sparse_mem *sm, struct sparse_chunk *ch, uint64_t page,
		  struct sparse_chunk *from, uint64_t fpage);

/**
 * sparse_pages_prepare_write() - make [@off, @off + @n) of @ch ready to be
 * overwritten: pages half in it that read as zero are cleared, those it
 * borrowed get their bytes back.
 * @sm: the store.
 * @ch: the chunk.
 * @off: the first offset.
 * @n: bytes (> 0).
 */
void sparse_pages_prepare_write(struct sparse_mem *sm, struct sparse_chunk *ch, uint64_t off,
				uint64_t n);

/**
 * sparse_pages_discard() - make [@off, @off + @n) of @ch read as zero.
 * @sm: the store.
 * @ch: the chunk.
 * @off: the first offset.
 * @n: bytes (> 0).
 */
void sparse_pages_discard(struct sparse_mem *sm, struct sparse_chunk *ch, uint64_t off, uint64_t n);

/* --- chunks and slots (sparse.c) --- */

/**
 * sparse_chunk_put() - drop a reference to @ch; the last one gives back what
 * it borrowed and puts it in @sm's pool or frees it.
 * @sm: the store.
 * @ch: the chunk, or NULL.
 */
void sparse_chunk_put(struct sparse_mem *sm, struct sparse_chunk *ch);

/**
 * sparse_slot() - the chunk slot of @addr.
 * @sm: the store.
 * @addr: an address (< size).
 * @make: make its directory slot if absent.
 *
 * Return: the slot, or NULL (absent and not @make, or out of memory).
 */
struct sparse_chunk **sparse_slot(const struct sparse_mem *sm, uint64_t addr, bool make);

/**
 * sparse_chunk_at() - the chunk that holds @addr.
 * @sm: the store.
 * @addr: an address (< size).
 *
 * Return: the chunk, or NULL for none.
 */
struct sparse_chunk *sparse_chunk_at(const struct sparse_mem *sm, uint64_t addr);

/**
 * sparse_avail() - bytes from @addr to the end of its chunk, clipped to the store.
 * @sm: the store.
 * @addr: an address (< size).
 *
 * Return: the bytes.
 */
uint64_t sparse_avail(const struct sparse_mem *sm, uint64_t addr);

/**
 * sparse_in_range() - whether [@addr, @addr + @len) is within the store.
 * @sm: the store.
 * @addr: the first address.
 * @len: bytes.
 *
 * Return: true when it is.
 */
bool sparse_in_range(const struct sparse_mem *sm, uint64_t addr, uint64_t len);

/**
 * sparse_present_mark() - mark the slot of @addr as holding a chunk, or not.
 * @sm: the store.
 * @addr: an address in the slot.
 * @held: whether it holds one.
 */
void sparse_present_mark(struct sparse_mem *sm, uint64_t addr, bool held);

/**
 * sparse_slot_drop() - drop the whole chunk at @slot (the slot of @addr), if any.
 * @sm: the store.
 * @slot: the slot, or NULL.
 * @addr: an address in it.
 */
void sparse_slot_drop(struct sparse_mem *sm, struct sparse_chunk **slot, uint64_t addr);

/**
 * sparse_chunk_to_change() - the chunk of @addr, made and owned for a change
 * of @len bytes there.
 * @sm: the store.
 * @addr: the address.
 * @len: bytes to change (> 0).
 * @avail: out: bytes from @addr to the end of its chunk.
 *
 * Return: the chunk, or NULL (out of range, out of memory).
 */
struct sparse_chunk *sparse_chunk_to_change(struct sparse_mem *sm, uint64_t addr, uint64_t len,
					    uint64_t *avail);

/**
 * sparse_holds() - whether [@addr, @addr + @n) of @sm holds the bytes at @p,
 * or reads as zero when @p is NULL; "no" where pages that read as zero meet
 * real bytes.
 * @sm: the store.
 * @addr: the first address.
 * @p: the bytes, or NULL.
 * @n: how many.
 *
 * Return: true when it does.
 */
bool sparse_holds(const struct sparse_mem *sm, uint64_t addr, const uint8_t *p, uint64_t n);

/**
 * sparse_whole_chunk() - whether [@addr, @addr + @len) of @sm starts a whole
 * chunk that it covers.
 * @sm: the store.
 * @addr: the first address.
 * @len: bytes.
 *
 * Return: true when it does.
 */
bool sparse_whole_chunk(const struct sparse_mem *sm, uint64_t addr, uint64_t len);

/* --- the state digest (sparse_digest.c) --- */

/**
 * sparse_slot_touch() - the slot of @addr is about to change: note it for
 * the state digest, once.
 * @sm: the store.
 * @addr: an address in the slot.
 */
void sparse_slot_touch(struct sparse_mem *sm, uint64_t addr);

#endif
