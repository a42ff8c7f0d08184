/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "digest.h"
#include "range.h"

void range_init(struct range_alloc *ra)
{
	*ra = (struct range_alloc){ 0 };
}

void range_fini(struct range_alloc *ra)
{
	free(ra->ext);
	*ra = (struct range_alloc){ 0 };
}

/* The term of one free extent in the allocator's digest. */
static uint64_t ext_term(uint64_t base, uint64_t size)
{
	return DIGEST_FOLD(0x72616e6765ull, base, size);
}

/* Set extent @i to [base, base+size), keeping the digest. */
static void ext_set(struct range_alloc *ra, size_t i, uint64_t base, uint64_t size)
{
	struct range_extent *e = &ra->ext[i];

	ra->digest ^= ext_term(e->base, e->size) ^ ext_term(base, size);
	e->base = base;
	e->size = size;
}

/* Index of the first extent whose base is above @addr (0..n). */
static size_t range_upper(const struct range_alloc *ra, uint64_t addr)
{
	size_t lo = 0, hi = ra->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ra->ext[mid].base <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int range_insert(struct range_alloc *ra, size_t i, uint64_t base, uint64_t size)
{
	if (array_reserve(&ra->ext, &ra->cap, ra->n, sizeof(*ra->ext)))
		return -ENOMEM;
	memmove(&ra->ext[i + 1], &ra->ext[i], (ra->n - i) * sizeof(ra->ext[0]));
	ra->ext[i] = (struct range_extent){ base, size };
	ra->n++;
	ra->digest ^= ext_term(base, size);
	return 0;
}

static void range_delete(struct range_alloc *ra, size_t i)
{
	ra->digest ^= ext_term(ra->ext[i].base, ra->ext[i].size);
	memmove(&ra->ext[i], &ra->ext[i + 1], (ra->n - i - 1) * sizeof(ra->ext[0]));
	ra->n--;
}

static uint64_t ext_end(const struct range_extent *e)
{
	return e->base + e->size;
}

int range_add(struct range_alloc *ra, uint64_t base, uint64_t size)
{
	struct range_extent *prev, *next;
	uint64_t end = base + size;
	size_t i;

	if (!size)
		return 0;
	if (end < base)
		return -EINVAL;
	i = range_upper(ra, base);
	prev = i ? &ra->ext[i - 1] : NULL;
	next = i < ra->n ? &ra->ext[i] : NULL;
	/* Overlap with free space means the caller frees something twice. */
	if ((prev && ext_end(prev) > base) || (next && next->base < end))
		return -EINVAL;

	if (prev && ext_end(prev) == base) {
		uint64_t grown = prev->size + size + (next && next->base == end ? next->size : 0);

		if (next && next->base == end)
			range_delete(ra, i);
		ext_set(ra, i - 1, ra->ext[i - 1].base, grown);
	} else if (next && next->base == end) {
		ext_set(ra, i, base, next->size + size);
	} else {
		int err = range_insert(ra, i, base, size);

		if (err)
			return err;
	}
	ra->free_bytes += size;
	return 0;
}

int range_remove_at(struct range_alloc *ra, size_t i, uint64_t base, uint64_t size)
{
	struct range_extent *e = &ra->ext[i];
	uint64_t end = base + size, e_end = ext_end(e);

	if (base == e->base && end == e_end) {
		range_delete(ra, i);
	} else if (base == e->base) {
		ext_set(ra, i, end, e->size - size);
	} else if (end == e_end) {
		ext_set(ra, i, e->base, e->size - size);
	} else {
		/* A hole in the middle: the tail becomes a new extent. */
		int err = range_insert(ra, i + 1, end, e_end - end);

		if (err)
			return err;
		ext_set(ra, i, ra->ext[i].base, base - ra->ext[i].base);
	}
	ra->free_bytes -= size;
	return 0;
}

int range_take(struct range_alloc *ra, uint64_t size, uint64_t align, uint64_t max_end,
	       uint64_t *base)
{
	if (!size || !align || (align & (align - 1)))
		return -EINVAL;
	for (size_t i = 0; i < ra->n; i++) {
		const struct range_extent *e = &ra->ext[i];
		uint64_t b = ALIGN_UP(e->base, align);
		int err;

		if (b < e->base || b >= ext_end(e) || ext_end(e) - b < size)
			continue;
		if (b + size > max_end)
			break; /* extents are sorted: later ones end even higher */
		err = range_remove_at(ra, i, b, size);
		if (err)
			return err;
		*base = b;
		return 0;
	}
	return -ENOSPC;
}

int range_remove(struct range_alloc *ra, uint64_t base, uint64_t size)
{
	size_t i;

	if (!size)
		return 0;
	if (base + size < base)
		return -ENOENT;
	i = range_upper(ra, base);
	if (!i || ext_end(&ra->ext[i - 1]) < base + size)
		return -ENOENT;
	return range_remove_at(ra, i - 1, base, size);
}

bool range_contains(const struct range_alloc *ra, uint64_t base, uint64_t size)
{
	size_t i = range_upper(ra, base);

	return size && base + size > base && i && ext_end(&ra->ext[i - 1]) >= base + size;
}

const struct range_extent *range_first_overlap(const struct range_alloc *ra, uint64_t base,
					       uint64_t size)
{
	uint64_t end = base + size < base ? UINT64_MAX : base + size;
	size_t i = range_upper(ra, base);

	/* the extent starting at or before base, if it reaches past it; else the next */
	if (i && ext_end(&ra->ext[i - 1]) > base)
		i--;
	return size && i < ra->n && ra->ext[i].base < end ? &ra->ext[i] : NULL;
}

uint64_t range_largest(const struct range_alloc *ra)
{
	uint64_t best = 0;

	for (size_t i = 0; i < ra->n; i++)
		best = GPUISO_MAX(best, ra->ext[i].size);
	return best;
}

uint64_t range_digest_full(const struct range_alloc *ra)
{
	uint64_t h = 0;

	for (size_t i = 0; i < ra->n; i++)
		h ^= ext_term(ra->ext[i].base, ra->ext[i].size);
	return h;
}
