/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sparse_internal.h"

/*
 * The pages of a chunk: a bit per page that says it reads as zero, and
 * pages that hold another chunk's bytes by reference (borrowed); both
 * walked a stretch at a time, made ready to be written, or discarded.
 */

/* Offset in @ch, at most SPARSE_CHUNK, where the pages from @off's stop being as zero as it is. */
static uint64_t run_end(const struct sparse_chunk *ch, uint64_t off)
{
	uint64_t page = (off >> SPARSE_PAGE_SHIFT) + 1;
	bool zero = sparse_page_zero(ch, page - 1);

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

/* Whether @page of @ch holds the bytes that follow those of the page before it in memory. */
static bool page_follows(const struct sparse_chunk *ch, uint64_t page)
{
	const struct sparse_borrow *b = ch->borrow;

	if (!sparse_page_borrowed(ch, page - 1))
		return !sparse_page_borrowed(ch, page);
	return b[page].from == b[page - 1].from && b[page].page == b[page - 1].page + 1;
}

/*
 * The end of the stretch from @off over which @ch reads as zero, or has its
 * bytes contiguous in memory: its own, or borrowed from consecutive pages of
 * one chunk.
 */
uint64_t sparse_stretch_end(const struct sparse_chunk *ch, uint64_t off)
{
	uint64_t end = run_end(ch, off), page = off >> SPARSE_PAGE_SHIFT;

	if (!ch->nborrowed || sparse_page_zero(ch, page))
		return end;
	while (++page << SPARSE_PAGE_SHIFT < end && page_follows(ch, page))
		;
	return page << SPARSE_PAGE_SHIFT;
}

/* Give @page of @ch back what it borrowed; it has its own bytes again, whatever they hold. */
void sparse_unborrow(struct sparse_mem *sm, struct sparse_chunk *ch, uint64_t page)
{
	struct sparse_chunk *from = ch->borrow[page].from;

	ch->borrow[page].from = NULL;
	ch->nborrowed--;
	sparse_chunk_put(sm, from);
}

/* Let @page of @ch, which borrowed, have its own bytes: a copy of those it borrowed if @keep. */
void sparse_page_own(struct sparse_mem *sm, struct sparse_chunk *ch, uint64_t page, bool keep)
{
	uint64_t start = page << SPARSE_PAGE_SHIFT;

	if (keep)
		memcpy(ch->data + start, sparse_bytes_at(ch, start), SPARSE_PAGE);
	sparse_unborrow(sm, ch, page);
}

/* @ch's table of borrowed pages, made on first need; false when out of memory. */
bool sparse_borrow_table(struct sparse_chunk *ch)
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
int sparse_borrow(struct sparse_mem *sm, struct sparse_chunk *ch, uint64_t page,
		  struct sparse_chunk *from, uint64_t fpage)
{
	if (sparse_page_borrowed(from, fpage)) {
		struct sparse_borrow b = from->borrow[fpage];

		from = b.from;
		fpage = b.page;
	}
	if (!sparse_borrow_table(ch))
		return -ENOMEM;
	from->refs++;
	if (sparse_page_borrowed(ch, page))
		sparse_unborrow(sm, ch, page);
	ch->borrow[page] = (struct sparse_borrow){ from, (uint32_t)fpage };
	ch->nborrowed++;
	sparse_page_set_zero(ch, page, false);
	return 0;
}

/*
 * Make [off, off+n) of @ch ready to be overwritten: pages half in it that
 * read as zero are cleared, those it borrowed get their bytes back.
 */
void sparse_pages_prepare_write(struct sparse_mem *sm, struct sparse_chunk *ch, uint64_t off,
				uint64_t n)
{
	uint64_t first = off >> SPARSE_PAGE_SHIFT, last = (off + n - 1) >> SPARSE_PAGE_SHIFT;

	for (uint64_t page = first; page <= last; page++) {
		uint64_t start = page << SPARSE_PAGE_SHIFT;
		bool whole = start >= off && start + SPARSE_PAGE <= off + n;

		if (sparse_page_borrowed(ch, page)) {
			sparse_page_own(sm, ch, page, !whole);
			continue;
		}
		if (!sparse_page_zero(ch, page))
			continue;
		if (!whole)
			memset(ch->data + start, 0, SPARSE_PAGE);
		sparse_page_set_zero(ch, page, false);
	}
}

/* Make [off, off+n) of @ch read as zero. */
void sparse_pages_discard(struct sparse_mem *sm, struct sparse_chunk *ch, uint64_t off, uint64_t n)
{
	uint64_t first = off >> SPARSE_PAGE_SHIFT, last = (off + n - 1) >> SPARSE_PAGE_SHIFT;

	for (uint64_t page = first; page <= last; page++) {
		uint64_t start = page << SPARSE_PAGE_SHIFT;
		uint64_t from = GPUISO_MAX(start, off), to = GPUISO_MIN(start + SPARSE_PAGE, off + n);
		/* a device may write a pinned page behind our back: no bit can stand for it */
		bool whole = from == start && to == start + SPARSE_PAGE && !ch->pins;

		if (sparse_page_zero(ch, page)) {
			/* on past the pages that read as zero, a word of bits at a time */
			page = (run_end(ch, start) >> SPARSE_PAGE_SHIFT) - 1;
			continue;
		}
		if (sparse_page_borrowed(ch, page))
			sparse_page_own(sm, ch, page, !whole);
		if (whole)
			sparse_page_set_zero(ch, page, true);
		else
			memset(ch->data + from, 0, to - from);
	}
}
