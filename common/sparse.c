/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <string.h>

#include "array.h"
#include "copy.h"
#include "digest.h"
#include "sparse.h"

#define SPARSE_SLOT_SHIFT 30
#define SPARSE_PER_SLOT ((size_t)1 << (SPARSE_SLOT_SHIFT - SPARSE_CHUNK_SHIFT))
#define SPARSE_MAX_SIZE ((uint64_t)1 << 52)
#define SPARSE_OFF(addr) ((addr) & (SPARSE_CHUNK - 1))

#define SPARSE_PAGE_SHIFT 12
#define SPARSE_PAGE ((uint64_t)1 << SPARSE_PAGE_SHIFT)
#define SPARSE_PAGES (SPARSE_CHUNK / SPARSE_PAGE)
/* Chunks a store keeps for reuse (each holds 2 MiB of the process's memory). */
#define SPARSE_POOL 8

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

/* --- pages that read as zero --- */

static bool page_zero(const struct sparse_chunk *ch, uint64_t page)
{
	return ch->zero[page / 64] >> (page % 64) & 1;
}

static void page_set_zero(struct sparse_chunk *ch, uint64_t page, bool zero)
{
	if (zero)
		ch->zero[page / 64] |= (uint64_t)1 << (page % 64);
	else
		ch->zero[page / 64] &= ~((uint64_t)1 << (page % 64));
}

/* Offset in @ch, at most SPARSE_CHUNK, where the pages from @off's stop being as zero as it is. */
static uint64_t run_end(const struct sparse_chunk *ch, uint64_t off)
{
	uint64_t page = (off >> SPARSE_PAGE_SHIFT) + 1;
	bool zero = page_zero(ch, page - 1);

	while (page < SPARSE_PAGES) {
		uint64_t in_word = 64 - page % 64;
		uint64_t bits = ch->zero[page / 64] >> (page % 64);
		/* 1 for each page of this word, from @page on, in the other state */
		uint64_t other = zero ? ~bits : bits;

		if (in_word < 64)
			other &= ((uint64_t)1 << in_word) - 1;
		if (other)
			return (page + (uint64_t)__builtin_ctzll(other)) << SPARSE_PAGE_SHIFT;
		page += in_word;
	}
	return SPARSE_CHUNK;
}

/* --- pages borrowed from other chunks --- */

static void chunk_put(struct sparse_mem *sm, struct sparse_chunk *ch);

static bool page_borrowed(const struct sparse_chunk *ch, uint64_t page)
{
	return ch->nborrowed && ch->borrow[page].from;
}

/* Where the bytes at @off of @ch are: its own, or those of the page it borrowed. */
static uint8_t *bytes_at(const struct sparse_chunk *ch, uint64_t off)
{
	uint64_t page = off >> SPARSE_PAGE_SHIFT;
	const struct sparse_borrow *b;

	if (!page_borrowed(ch, page))
		return ch->data + off;
	b = &ch->borrow[page];
	return b->from->data + ((uint64_t)b->page << SPARSE_PAGE_SHIFT) + (off & (SPARSE_PAGE - 1));
}

/* Whether @page of @ch holds the bytes that follow those of the page before it in memory. */
static bool page_follows(const struct sparse_chunk *ch, uint64_t page)
{
	const struct sparse_borrow *b = ch->borrow;

	if (!page_borrowed(ch, page - 1))
		return !page_borrowed(ch, page);
	return b[page].from == b[page - 1].from && b[page].page == b[page - 1].page + 1;
}

/*
 * The end of the stretch from @off over which @ch reads as zero, or has its
 * bytes contiguous in memory: its own, or borrowed from consecutive pages of
 * one chunk.
 */
static uint64_t stretch_end(const struct sparse_chunk *ch, uint64_t off)
{
	uint64_t end = run_end(ch, off), page = off >> SPARSE_PAGE_SHIFT;

	if (!ch->nborrowed || page_zero(ch, page))
		return end;
	while (++page << SPARSE_PAGE_SHIFT < end && page_follows(ch, page))
		;
	return page << SPARSE_PAGE_SHIFT;
}

/* Give @page of @ch back what it borrowed; it has its own bytes again, whatever they hold. */
static void unborrow(struct sparse_mem *sm, struct sparse_chunk *ch, uint64_t page)
{
	struct sparse_chunk *from = ch->borrow[page].from;

	ch->borrow[page].from = NULL;
	ch->nborrowed--;
	chunk_put(sm, from);
}

/* Let @page of @ch, which borrowed, have its own bytes: a copy of those it borrowed if @keep. */
static void page_own(struct sparse_mem *sm, struct sparse_chunk *ch, uint64_t page, bool keep)
{
	uint64_t start = page << SPARSE_PAGE_SHIFT;

	if (keep)
		memcpy(ch->data + start, bytes_at(ch, start), SPARSE_PAGE);
	unborrow(sm, ch, page);
}

/* @ch's table of borrowed pages, made on first need; false when out of memory. */
static bool borrow_table(struct sparse_chunk *ch)
{
	if (!ch->borrow)
		ch->borrow = calloc(SPARSE_PAGES, sizeof(*ch->borrow));
	return ch->borrow != NULL;
}

/*
 * Let @page of @ch (held by one slot only, not pinned, not @from) hold the
 * bytes of @fpage of @from (not pinned) by reference: those of the page it
 * borrowed itself, if so. No chunk can then borrow from a chunk that borrows
 * from it: a chunk lent from is shared, and changing it copies it first.
 *
 * Return: 0, or -ENOMEM (nothing changed).
 */
static int borrow(struct sparse_mem *sm, struct sparse_chunk *ch, uint64_t page,
		  struct sparse_chunk *from, uint64_t fpage)
{
	if (page_borrowed(from, fpage)) {
		struct sparse_borrow b = from->borrow[fpage];

		from = b.from;
		fpage = b.page;
	}
	if (!borrow_table(ch))
		return -ENOMEM;
	from->refs++;
	if (page_borrowed(ch, page))
		unborrow(sm, ch, page);
	ch->borrow[page] = (struct sparse_borrow){ from, (uint32_t)fpage };
	ch->nborrowed++;
	page_set_zero(ch, page, false);
	return 0;
}

/*
 * Make [off, off+n) of @ch ready to be overwritten: pages half in it that
 * read as zero are cleared, those it borrowed get their bytes back.
 */
static void pages_prepare_write(struct sparse_mem *sm, struct sparse_chunk *ch, uint64_t off,
				uint64_t n)
{
	uint64_t first = off >> SPARSE_PAGE_SHIFT, last = (off + n - 1) >> SPARSE_PAGE_SHIFT;

	for (uint64_t page = first; page <= last; page++) {
		uint64_t start = page << SPARSE_PAGE_SHIFT;
		bool whole = start >= off && start + SPARSE_PAGE <= off + n;

		if (page_borrowed(ch, page)) {
			page_own(sm, ch, page, !whole);
			continue;
		}
		if (!page_zero(ch, page))
			continue;
		if (!whole)
			memset(ch->data + start, 0, SPARSE_PAGE);
		page_set_zero(ch, page, false);
	}
}

/* Make [off, off+n) of @ch read as zero. */
static void pages_discard(struct sparse_mem *sm, struct sparse_chunk *ch, uint64_t off, uint64_t n)
{
	uint64_t first = off >> SPARSE_PAGE_SHIFT, last = (off + n - 1) >> SPARSE_PAGE_SHIFT;

	for (uint64_t page = first; page <= last; page++) {
		uint64_t start = page << SPARSE_PAGE_SHIFT;
		uint64_t from = GPUISO_MAX(start, off), to = GPUISO_MIN(start + SPARSE_PAGE, off + n);
		/* a device may write a pinned page behind our back: no bit can stand for it */
		bool whole = from == start && to == start + SPARSE_PAGE && !ch->pins;

		if (page_zero(ch, page)) {
			/* on past the pages that read as zero, a word of bits at a time */
			page = (run_end(ch, start) >> SPARSE_PAGE_SHIFT) - 1;
			continue;
		}
		if (page_borrowed(ch, page))
			page_own(sm, ch, page, !whole);
		if (whole)
			page_set_zero(ch, page, true);
		else
			memset(ch->data + from, 0, to - from);
	}
}

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
static void chunk_put(struct sparse_mem *sm, struct sparse_chunk *ch)
{
	if (!ch || --ch->refs)
		return;
	for (uint64_t page = 0; ch->nborrowed && page < SPARSE_PAGES; page++)
		if (ch->borrow[page].from)
			unborrow(sm, ch, page);
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
			chunk_put(sm, sm->dir[i][j]);
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
static struct sparse_chunk **sparse_slot(const struct sparse_mem *sm, uint64_t addr, bool make)
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

static struct sparse_chunk *sparse_chunk_at(const struct sparse_mem *sm, uint64_t addr)
{
	struct sparse_chunk **slot = sparse_slot(sm, addr, false);

	return slot ? *slot : NULL;
}

/* Bytes from @addr to the end of its chunk, clipped to the store. */
static uint64_t sparse_avail(const struct sparse_mem *sm, uint64_t addr)
{
	return GPUISO_MIN(SPARSE_CHUNK - SPARSE_OFF(addr), sm->size - addr);
}

static bool sparse_in_range(const struct sparse_mem *sm, uint64_t addr, uint64_t len)
{
	return addr <= sm->size && len <= sm->size - addr;
}

/* Mark the slot of @addr as holding a chunk (@held) or not. */
static void present_mark(struct sparse_mem *sm, uint64_t addr, bool held)
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

static uint64_t chunk_digest(struct sparse_chunk *ch);
static uint64_t zero_chunk_digest(void);

/* The term of chunk slot @c holding @ch (NULL: none) in the state digest. */
static uint64_t slot_term(uint64_t c, struct sparse_chunk *ch)
{
	uint64_t d = chunk_digest(ch);

	/* a chunk of zeros reads as an absent one */
	return d == zero_chunk_digest() ? 0 : DIGEST_FOLD(0x737061727365ull, c, d);
}

/* Note slot @c with its term before it changes; false when it cannot be. */
static bool touch_note(struct sparse_mem *sm, uint64_t c, uint64_t term)
{
	if (array_reserve(&sm->touched, &sm->touched_cap, sm->ntouched, sizeof(*sm->touched))) {
		sm->touch_lost = true;
		return false;
	}
	sm->dirty[c / 64] |= (uint64_t)1 << (c % 64);
	sm->touched[sm->ntouched++] = (struct sparse_touch){ c, term };
	return true;
}

/* The slot of @addr is about to change: note it for the state digest, once. */
static void slot_touch(struct sparse_mem *sm, uint64_t addr)
{
	uint64_t c = addr >> SPARSE_CHUNK_SHIFT;

	if (!sm->track || sm->touch_lost || (sm->dirty[c / 64] >> (c % 64) & 1))
		return;
	touch_note(sm, c, slot_term(c, sparse_chunk_at(sm, addr)));
}

/* Make *@slot (the slot of @addr) a chunk only this slot holds, about to change. */
static struct sparse_chunk *slot_own(struct sparse_mem *sm, struct sparse_chunk **slot,
				     uint64_t addr)
{
	struct sparse_chunk *ch = *slot, *copy;

	slot_touch(sm, addr);
	if (!ch) {
		ch = chunk_new(sm);
		if (!ch)
			return NULL;
		*slot = ch;
		present_mark(sm, addr, true);
		sm->resident += SPARSE_CHUNK;
	} else if (ch->refs > 1) {
		copy = chunk_new(sm);
		if (!copy)
			return NULL;
		if (ch->nborrowed && !borrow_table(copy)) {
			chunk_put(sm, copy);
			return NULL;
		}
		for (uint64_t off = 0, end; off < SPARSE_CHUNK; off = end) {
			uint64_t page = off >> SPARSE_PAGE_SHIFT;

			end = stretch_end(ch, off);
			if (!page_borrowed(ch, page)) {
				if (!page_zero(ch, page))
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
		chunk_put(sm, ch);
		*slot = ch = copy;
	}
	ch->digest_valid = false;
	return ch;
}

/* Drop the whole chunk at @slot (the slot of @addr), if any. */
static void slot_drop(struct sparse_mem *sm, struct sparse_chunk **slot, uint64_t addr)
{
	if (!slot || !*slot)
		return;
	slot_touch(sm, addr);
	chunk_put(sm, *slot);
	*slot = NULL;
	present_mark(sm, addr, false);
	sm->resident -= SPARSE_CHUNK;
}

/* The chunk of @addr, made and owned for a change of @len bytes there (*@avail: to its end). */
static struct sparse_chunk *chunk_to_change(struct sparse_mem *sm, uint64_t addr, uint64_t len,
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
	struct sparse_chunk *ch = chunk_to_change(sm, addr, len, avail);

	if (!ch)
		return NULL;
	pages_prepare_write(sm, ch, SPARSE_OFF(addr), GPUISO_MIN(len, *avail));
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
	*avail = GPUISO_MIN(*avail, stretch_end(ch, off) - off);
	return page_zero(ch, off >> SPARSE_PAGE_SHIFT) ? NULL : bytes_at(ch, off);
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
static bool holds(const struct sparse_mem *sm, uint64_t addr, const uint8_t *p, uint64_t n)
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
static bool whole_chunk(const struct sparse_mem *sm, uint64_t addr, uint64_t len)
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
				slot_drop(sm, slot, addr);
			} else if ((*slot)->refs == 1 || !holds(sm, addr, NULL, n)) {
				ch = slot_own(sm, slot, addr);
				if (!ch)
					return -ENOMEM;
				pages_discard(sm, ch, SPARSE_OFF(addr), n);
			}
		}
		addr += n;
		len -= n;
	}
	return 0;
}

/* Let *@slot (the slot of @addr) hold @ch (shared) instead of what it held. */
static void slot_share(struct sparse_mem *sm, struct sparse_chunk **slot, uint64_t addr,
		       struct sparse_chunk *ch)
{
	if (*slot == ch)
		return;
	slot_touch(sm, addr);
	ch->refs++;
	slot_drop(sm, slot, addr);
	*slot = ch;
	present_mark(sm, addr, true);
	sm->resident += SPARSE_CHUNK;
}

/* A chunk whose every page borrowed the same page of one chunk is that chunk: share it instead. */
static void collapse(struct sparse_mem *sm, struct sparse_chunk **slot, uint64_t addr)
{
	struct sparse_chunk *ch = *slot, *from = ch->borrow[0].from;

	for (uint64_t page = 0; page < SPARSE_PAGES; page++)
		if (ch->borrow[page].from != from || ch->borrow[page].page != page)
			return;
	slot_share(sm, slot, addr, from);
}

/*
 * Copy @n bytes that do not read as zero (at @from, as sparse_peek() gave
 * them), within one chunk on each side.
 * Bytes already there are left alone: their chunk is not copied if shared,
 * nor its digest lost (a save over the same content; in a forked process,
 * pages stay shared with the parent). Whole pages at the same place within
 * a page on both sides are taken by reference: a copy through a bounce
 * buffer moves no bytes, and a chunk that ends up borrowing every page of
 * another, in place, becomes that chunk.
 */
static int bytes_copy(struct sparse_mem *dst, uint64_t doff, const struct sparse_mem *src,
		      uint64_t soff, const uint8_t *from, uint64_t n, bool stream)
{
	struct sparse_chunk *dch, *sch;
	uint64_t avail, off = SPARSE_OFF(doff);
	bool lend;

	if (holds(dst, doff, from, n))
		return 0;
	/* Own the destination first: that may copy the very chunk read from. */
	dch = chunk_to_change(dst, doff, n, &avail);
	if (!dch)
		return -ENOMEM;
	sch = sparse_chunk_at(src, soff);
	soff = SPARSE_OFF(soff);
	/* memory a device may access is read and written as bytes */
	lend = sch != dch && !sch->pins && !dch->pins && !((off ^ soff) & (SPARSE_PAGE - 1));
	while (n) {
		uint64_t k = lend ? GPUISO_MIN(n, SPARSE_PAGE - (off & (SPARSE_PAGE - 1))) : n;

		if (!lend || k < SPARSE_PAGE ||
		    borrow(dst, dch, off >> SPARSE_PAGE_SHIFT, sch, soff >> SPARSE_PAGE_SHIFT)) {
			pages_prepare_write(dst, dch, off, k);
			if (stream)
				copy_stream(dch->data + off, bytes_at(sch, soff), k);
			else
				memcpy(dch->data + off, bytes_at(sch, soff), k);
		}
		off += k;
		soff += k;
		n -= k;
	}
	if (dch->nborrowed == SPARSE_PAGES)
		collapse(dst, sparse_slot(dst, doff, false), doff);
	return 0;
}

int sparse_copy(struct sparse_mem *dst, uint64_t doff, const struct sparse_mem *src,
		uint64_t soff, uint64_t len, bool stream)
{
	if (!sparse_in_range(dst, doff, len) || !sparse_in_range(src, soff, len))
		return -ERANGE;
	while (len) {
		struct sparse_chunk *whole = NULL, **slot;
		const uint8_t *from;
		uint64_t n, savail;
		int rc;

		if (whole_chunk(src, soff, len) && whole_chunk(dst, doff, len))
			whole = sparse_chunk_at(src, soff);
		/* memory a device may access stays where it is, and its own */
		if (whole && (whole->pins || (sparse_chunk_at(dst, doff) && sparse_chunk_at(dst, doff)->pins)))
			whole = NULL;
		if (whole) {
			slot = sparse_slot(dst, doff, true);
			if (!slot)
				return -ENOMEM;
			slot_share(dst, slot, doff, whole);
			n = SPARSE_CHUNK;
		} else if (!(from = sparse_peek(src, soff, &savail))) {
			n = GPUISO_MIN(GPUISO_MIN(savail, sparse_avail(dst, doff)), len);
			rc = sparse_discard(dst, doff, n);
			if (rc)
				return rc;
		} else {
			n = GPUISO_MIN(GPUISO_MIN(savail, sparse_avail(dst, doff)), len);
			rc = bytes_copy(dst, doff, src, soff, from, n, stream);
			if (rc)
				return rc;
		}
		doff += n;
		soff += n;
		len -= n;
	}
	return 0;
}

/* Feed [off, off+n) of @ch (NULL: absent, all zero) to @d. */
static void chunk_feed(struct digest *d, const struct sparse_chunk *ch, uint64_t off, uint64_t n)
{
	while (n) {
		uint64_t end = ch ? GPUISO_MIN(stretch_end(ch, off), off + n) : off + n;
		bool zero = !ch || page_zero(ch, off >> SPARSE_PAGE_SHIFT);

		digest_update(d, zero ? NULL : bytes_at(ch, off), end - off);
		n -= end - off;
		off = end;
	}
}

/* The digest of a chunk of zeros, computed once. */
static uint64_t zero_chunk_digest(void)
{
	static uint64_t digest;
	static bool known;
	struct digest d;

	if (!known) {
		digest_init(&d);
		digest_update(&d, NULL, SPARSE_CHUNK);
		digest = digest_final(&d);
		known = true;
	}
	return digest;
}

static uint64_t chunk_digest(struct sparse_chunk *ch)
{
	struct digest d;

	if (!ch)
		return zero_chunk_digest();
	/* a device may have written a pinned chunk since */
	if (!ch->digest_valid || ch->pins) {
		digest_init(&d);
		chunk_feed(&d, ch, 0, SPARSE_CHUNK);
		ch->digest = digest_final(&d);
		ch->digest_valid = true;
	}
	return ch->digest;
}

int sparse_digest(const struct sparse_mem *sm, uint64_t addr, uint64_t len, uint64_t *out)
{
	uint64_t h = len;

	if (!sparse_in_range(sm, addr, len))
		return -ERANGE;
	/* One digest per chunk-sized piece: a whole chunk's is cached in it. */
	while (len) {
		struct sparse_chunk *ch = sparse_chunk_at(sm, addr);
		uint64_t n = GPUISO_MIN(sparse_avail(sm, addr), len);
		struct digest d;

		if (whole_chunk(sm, addr, len)) {
			h = digest_combine(h, chunk_digest(ch));
		} else {
			digest_init(&d);
			chunk_feed(&d, ch, SPARSE_OFF(addr), n);
			h = digest_combine(h, digest_final(&d));
		}
		addr += n;
		len -= n;
	}
	*out = h;
	return 0;
}

/*
 * The XOR of every present chunk's term; with @note, the pinned ones are
 * noted as changed (a device writes them behind the store's back).
 */
static uint64_t state_walk(struct sparse_mem *sm, bool note)
{
	uint64_t h = 0;

	for (size_t dw = 0; dw < (sm->ndir + 63) / 64; dw++) {
		for (uint64_t dirs = sm->present_dirs[dw]; dirs; dirs &= dirs - 1) {
			size_t dir = dw * 64 + (size_t)__builtin_ctzll(dirs);

			const size_t per_dir = SPARSE_PER_SLOT / 64;

			for (size_t w = dir * per_dir; w < (dir + 1) * per_dir; w++) {
				for (uint64_t bits = sm->present[w]; bits; bits &= bits - 1) {
					uint64_t c = w * 64 + (uint64_t)__builtin_ctzll(bits);
					struct sparse_chunk *ch = sm->dir[dir][c % SPARSE_PER_SLOT];
					uint64_t term = slot_term(c, ch);

					h ^= term;
					if (note && ch->pins)
						touch_note(sm, c, term);
				}
			}
		}
	}
	return h;
}

uint64_t sparse_state_digest_full(const struct sparse_mem *sm)
{
	/* without @note the walk changes nothing but the chunks' cached digests */
	return state_walk((struct sparse_mem *)sm, false);
}

uint64_t sparse_state_digest(struct sparse_mem *sm)
{
	size_t kept = 0;

	if (!sm->track || sm->touch_lost) {
		/*
		 * The first call, or a slot went unnoted: start again from every
		 * chunk. The bits come from calloc(), not memset(): as large as
		 * present (4 MiB for system memory's 2^46 bytes), they cost only
		 * the pages a bit is set in (and a forked process copies only those).
		 */
		free(sm->dirty);
		sm->dirty = calloc(sm->ndir * (SPARSE_PER_SLOT / 64), sizeof(*sm->dirty));
		if (!sm->dirty)
			return sparse_state_digest_full(sm);
		sm->ntouched = 0;
		sm->touch_lost = false;
		sm->track = true;
		sm->state = state_walk(sm, true);
		return sm->state;
	}
	for (size_t i = 0; i < sm->ntouched; i++) {
		uint64_t c = sm->touched[i].chunk;
		struct sparse_chunk *ch = sparse_chunk_at(sm, c << SPARSE_CHUNK_SHIFT);
		uint64_t term = slot_term(c, ch);

		sm->state ^= sm->touched[i].term ^ term;
		if (ch && ch->pins)
			sm->touched[kept++] = (struct sparse_touch){ c, term };
		else
			sm->dirty[c / 64] &= ~((uint64_t)1 << (c % 64));
	}
	sm->ntouched = kept;
	return sm->state;
}

void *sparse_pin(struct sparse_mem *sm, uint64_t addr, uint64_t len, uint64_t *avail)
{
	struct sparse_chunk *ch = chunk_to_change(sm, addr, len, avail);
	uint64_t off = SPARSE_OFF(addr), n;

	if (!ch)
		return NULL;
	n = GPUISO_MIN(len, *avail);
	/* pages that read as zero become real zeros, borrowed ones own bytes: the device will see them */
	for (uint64_t page = off >> SPARSE_PAGE_SHIFT; page <= (off + n - 1) >> SPARSE_PAGE_SHIFT; page++) {
		if (page_borrowed(ch, page))
			page_own(sm, ch, page, true);
		if (page_zero(ch, page)) {
			memset(ch->data + (page << SPARSE_PAGE_SHIFT), 0, SPARSE_PAGE);
			page_set_zero(ch, page, false);
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
