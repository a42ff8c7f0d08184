/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_CORE_IDMAP_H
#define GPUISO_CORE_IDMAP_H

#include "internal.h"

/*
 * --- identity-map reference counts ---
 *
 * One count per page frame, kept per 2 MiB chunk of 512 frames: a chunk
 * whose frames all have the same count holds that one count; a chunk whose
 * frames differ (mixed) keeps a count per frame. Save areas and large
 * allocations come as whole, aligned chunks, so counting them touches a word
 * per chunk, not 2 KiB of counts (which a forked sweep run would also have
 * to copy). A whole-chunk update of a mixed chunk makes it one count again
 * when its frames end up equal.
 *
 * Chunks live in lazily allocated leaves of 1 GiB of physical addresses:
 * two loads to find a count, nothing to probe or rehash. A leaf's per-frame
 * counts are allocated with it but only touched for mixed chunks, so a
 * chunk can turn mixed without an allocation that could fail.
 */

#define IDMAP_CHUNK_SHIFT 9
#define IDMAP_CHUNK (1u << IDMAP_CHUNK_SHIFT)
#define IDMAP_LEAF_SHIFT 18
#define IDMAP_CHUNKS (1u << (IDMAP_LEAF_SHIFT - IDMAP_CHUNK_SHIFT))
#define IDMAP_BLOCK 16

struct idmap_leaf {
	struct {
		uint32_t same;  /* every frame's count, unless mixed */
		bool mixed;     /* the frames' counts are in each[] */
		bool touched;   /* noted in the idmap's touched (idmap_digest()) ... */
		uint64_t term;  /* ... and its term there as of the last one */
	} chunk[IDMAP_CHUNKS];
	uint32_t each[IDMAP_CHUNKS][IDMAP_CHUNK];
};

/* The part of a frame range in one chunk. */
struct idmap_piece {
	struct idmap_leaf *leaf; /* NULL: every count is zero */
	unsigned int chunk, in;  /* the chunk in its leaf; pfn's frame in the chunk */
	uint64_t len;
};

/**
 * idmap_piece() - the part of [@pfn, @pfn + @n) in @pfn's chunk.
 * @im: the counts.
 * @pfn: first frame.
 * @n: frames.
 *
 * Return: the piece (its leaf NULL where no count was ever taken).
 */
static inline struct idmap_piece idmap_piece(const struct idmap *im, uint64_t pfn, uint64_t n)
{
	uint64_t top = pfn >> IDMAP_LEAF_SHIFT;
	struct idmap_piece p = {
		.leaf = top < im->nleaves ? im->leaves[top] : NULL,
		.chunk = (unsigned int)(pfn >> IDMAP_CHUNK_SHIFT) & (IDMAP_CHUNKS - 1),
		.in = (unsigned int)pfn & (IDMAP_CHUNK - 1),
	};

	p.len = GPUISO_MIN(n, IDMAP_CHUNK - p.in);
	return p;
}

/**
 * idmap_stretch() - how many frames from @pfn on, up to @n, have counts
 * that are all zero (@zero) or all non-zero. Inline: the mapping code
 * calls it in its loops.
 * @im: the counts.
 * @pfn: first frame.
 * @n: frames at most.
 * @zero: which kind of stretch.
 *
 * Return: the stretch's length in frames.
 */
static inline uint64_t idmap_stretch(const struct idmap *im, uint64_t pfn, uint64_t n,
				     bool zero)
{
	uint64_t done = 0;

	while (done < n) {
		struct idmap_piece p = idmap_piece(im, pfn + done, n - done);
		const uint32_t *cnt;
		uint64_t i = 0;

		if (!p.leaf || !p.leaf->chunk[p.chunk].mixed) {
			if ((!p.leaf || !p.leaf->chunk[p.chunk].same) != zero)
				break;
			done += p.len;
			continue;
		}
		cnt = p.leaf->each[p.chunk] + p.in;
		/* a block at a time while all of it qualifies (the compiler vectorises it) */
		for (; i + IDMAP_BLOCK <= p.len; i += IDMAP_BLOCK) {
			uint32_t any = 0, zeros = 0;

			for (unsigned int j = 0; j < IDMAP_BLOCK; j++) {
				any |= cnt[i + j];
				zeros |= cnt[i + j] == 0;
			}
			if (zero ? any != 0 : zeros != 0)
				break;
		}
		while (i < p.len && (cnt[i] == 0) == zero)
			i++;
		done += i;
		if (i < p.len)
			break;
	}
	return done;
}

#endif
