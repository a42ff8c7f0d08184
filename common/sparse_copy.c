/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <string.h>

#include "copy.h"
#include "sparse_internal.h"

/*
 * Copies between stores, or within one: whole chunks shared, whole pages
 * borrowed, bytes that read as zero discarded, the rest copied; a chunk
 * that ends up borrowing every page of another, in place, shares it.
 */

/* Let *@slot (the slot of @addr) hold @ch (shared) instead of what it held. */
static void slot_share(struct sparse_mem *sm, struct sparse_chunk **slot, uint64_t addr,
		       struct sparse_chunk *ch)
{
	if (*slot == ch)
		return;
	sparse_slot_touch(sm, addr);
	ch->refs++;
	sparse_slot_drop(sm, slot, addr);
	*slot = ch;
	sparse_present_mark(sm, addr, true);
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

	if (sparse_holds(dst, doff, from, n))
		return 0;
	/* Own the destination first: that may copy the very chunk read from. */
	dch = sparse_chunk_to_change(dst, doff, n, &avail);
	if (!dch)
		return -ENOMEM;
	sch = sparse_chunk_at(src, soff);
	soff = SPARSE_OFF(soff);
	/* memory a device may access is read and written as bytes */
	lend = sch != dch && !sch->pins && !dch->pins && !((off ^ soff) & (SPARSE_PAGE - 1));
	while (n) {
		uint64_t k = lend ? GPUISO_MIN(n, SPARSE_PAGE - (off & (SPARSE_PAGE - 1))) : n;

		if (!lend || k < SPARSE_PAGE ||
		    sparse_borrow(dst, dch, off >> SPARSE_PAGE_SHIFT, sch, soff >> SPARSE_PAGE_SHIFT)) {
			sparse_pages_prepare_write(dst, dch, off, k);
			if (stream)
				copy_stream(dch->data + off, sparse_bytes_at(sch, soff), k);
			else
				memcpy(dch->data + off, sparse_bytes_at(sch, soff), k);
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

		if (sparse_whole_chunk(src, soff, len) && sparse_whole_chunk(dst, doff, len))
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
