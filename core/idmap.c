/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define LOG_PREFIX "idmap"
#include "common/digest.h"
#include "common/log.h"
#include "internal.h"

/*
 * In 1:1 mode a page's logical address is its physical address, so two
 * handles can describe the same page (an MDL and its MapMdlToIoMmu mapping,
 * overlapping ADLs): such pages are reference counted and mapped once.
 */

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
	} chunk[IDMAP_CHUNKS];
	uint32_t each[IDMAP_CHUNKS][IDMAP_CHUNK];
};

/* The part of [pfn, pfn + n) in pfn's chunk. */
struct idmap_piece {
	struct idmap_leaf *leaf; /* NULL: every count is zero */
	unsigned int chunk, in;  /* the chunk in its leaf; pfn's frame in the chunk */
	uint64_t len;
};

static struct idmap_piece idmap_piece(const struct idmap *im, uint64_t pfn, uint64_t n)
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

/* Frames from @pfn on, up to @n, whose counts are all zero (@zero) or all non-zero. */
uint64_t idmap_stretch(const struct idmap *im, uint64_t pfn, uint64_t n, bool zero)
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

/*
 * One reference more (@get) or one fewer to each frame of @p.
 * Return: the frames a put found with no reference to drop (an impossible
 * state: the caller reports it); their counts stay at zero.
 */
static inline uint64_t idmap_update(const struct idmap_piece *p, bool get)
{
	struct idmap_leaf *l = p->leaf;
	uint32_t *same, *cnt, diff = 0;
	uint64_t none = 0;
	bool *mixed;

	if (!l)
		return p->len; /* only a put comes here: nothing was ever counted */
	same = &l->chunk[p->chunk].same;
	mixed = &l->chunk[p->chunk].mixed;
	cnt = l->each[p->chunk];
	if (!*mixed) {
		if (!get && !*same)
			return p->len;
		if (p->len == IDMAP_CHUNK) {
			*same = get ? *same + 1 : *same - 1;
			return 0;
		}
		for (unsigned int i = 0; i < IDMAP_CHUNK; i++)
			cnt[i] = *same;
		*mixed = true;
	}
	if (get) {
		for (uint64_t i = 0; i < p->len; i++)
			cnt[p->in + i]++;
	} else {
		for (uint64_t i = 0; i < p->len; i++) {
			none += !cnt[p->in + i];
			cnt[p->in + i] -= cnt[p->in + i] != 0;
		}
	}
	if (p->len < IDMAP_CHUNK)
		return none;
	for (unsigned int i = 1; i < IDMAP_CHUNK; i++)
		diff |= cnt[i] ^ cnt[0];
	if (!diff) {
		*same = cnt[0];
		*mixed = false;
	}
	return none;
}

/* Count one more reference to each frame of [pfn, pfn+n). Nothing is counted on failure. */
int idmap_get(struct idmap *im, uint64_t pfn, uint64_t n)
{
	uint64_t last = (pfn + n - 1) >> IDMAP_LEAF_SHIFT;

	if (!n)
		return 0;
	/* every leaf first, so that counting cannot fail half way */
	if (last >= im->nleaves) {
		struct idmap_leaf **leaves = realloc(im->leaves, (last + 1) * sizeof(*leaves));

		if (!leaves)
			return -ENOMEM;
		memset(leaves + im->nleaves, 0, (last + 1 - im->nleaves) * sizeof(*leaves));
		im->leaves = leaves;
		im->nleaves = last + 1;
	}
	for (uint64_t top = pfn >> IDMAP_LEAF_SHIFT; top <= last; top++) {
		if (!im->leaves[top])
			im->leaves[top] = calloc(1, sizeof(struct idmap_leaf));
		if (!im->leaves[top])
			return -ENOMEM;
	}
	for (uint64_t done = 0, len; done < n; done += len) {
		struct idmap_piece p = idmap_piece(im, pfn + done, n - done);

		(void)idmap_update(&p, true); /* a get always has a count to raise */
		len = p.len;
	}
	return 0;
}

/* Drop one reference to each frame of [pfn, pfn+n). Return: the frames that had none. */
uint64_t idmap_put(struct idmap *im, uint64_t pfn, uint64_t n)
{
	uint64_t none = 0;

	for (uint64_t done = 0, len; done < n; done += len) {
		struct idmap_piece p = idmap_piece(im, pfn + done, n - done);

		none += idmap_update(&p, false);
		len = p.len;
	}
	return none;
}

uint64_t idmap_digest(const struct idmap *im, uint64_t h)
{
	for (size_t top = 0; top < im->nleaves; top++) {
		const struct idmap_leaf *l = im->leaves[top];

		for (unsigned int c = 0; l && c < IDMAP_CHUNKS; c++) {
			const uint32_t *cnt = l->each[c];
			uint64_t chunk = top * IDMAP_CHUNKS + c;
			uint32_t same = l->chunk[c].same, diff = 0;

			if (l->chunk[c].mixed) {
				for (unsigned int i = 1; i < IDMAP_CHUNK; i++)
					diff |= cnt[i] ^ cnt[0];
				same = cnt[0];
			}
			/* a chunk of equal counts reads alike however it is held */
			if (!diff) {
				if (same)
					h = DIGEST_FOLD(h, chunk << 1, same);
				continue;
			}
			h = DIGEST_FOLD(h, chunk << 1 | 1, digest_bytes(cnt, IDMAP_CHUNK * sizeof(*cnt)));
		}
	}
	return h;
}

void idmap_free(struct idmap *im)
{
	for (size_t i = 0; i < im->nleaves; i++)
		free(im->leaves[i]);
	free(im->leaves);
	memset(im, 0, sizeof(*im));
}
