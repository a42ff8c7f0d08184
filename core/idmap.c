/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define LOG_PREFIX "idmap"
#include "common/array.h"
#include "common/digest.h"
#include "common/log.h"
#include "domain_internal.h"
#include "idmap.h"
#include "internal.h"

/*
 * In 1:1 mode a page's logical address is its physical address, so two
 * handles can describe the same page (an MDL and its MapMdlToIoMmu mapping,
 * overlapping ADLs): such pages are reference counted and mapped once.
 */

/*
 * One reference more (@get) or one fewer to each frame of @p; IDMAP_SAW_*
 * of the counts (before a get, after a put) added to *@saw.
 * Return: the frames a put found with no reference to drop (an impossible
 * state: the caller reports it); their counts stay at zero.
 */
static inline uint64_t idmap_update(const struct idmap_piece *p, bool get, unsigned int *saw)
{
	struct idmap_leaf *l = p->leaf;
	uint32_t *same, *cnt, diff = 0, zero = 0, set = 0;
	uint64_t none = 0;
	bool *mixed;

	if (!l) {
		*saw |= IDMAP_SAW_ZERO;
		return p->len; /* only a put comes here: nothing was ever counted */
	}
	same = &l->chunk[p->chunk].same;
	mixed = &l->chunk[p->chunk].mixed;
	cnt = l->each[p->chunk];
	if (!*mixed) {
		if (!get && !*same) {
			*saw |= IDMAP_SAW_ZERO;
			return p->len;
		}
		if (p->len == IDMAP_CHUNK) {
			*saw |= (get ? *same : *same - 1) ? IDMAP_SAW_SET : IDMAP_SAW_ZERO;
			*same = get ? *same + 1 : *same - 1;
			return 0;
		}
		for (unsigned int i = 0; i < IDMAP_CHUNK; i++)
			cnt[i] = *same;
		*mixed = true;
	}
	if (get) {
		for (uint64_t i = 0; i < p->len; i++) {
			zero |= !cnt[p->in + i];
			set |= cnt[p->in + i];
			cnt[p->in + i]++;
		}
	} else {
		for (uint64_t i = 0; i < p->len; i++) {
			none += !cnt[p->in + i];
			cnt[p->in + i] -= cnt[p->in + i] != 0;
			zero |= !cnt[p->in + i];
			set |= cnt[p->in + i];
		}
	}
	*saw |= (zero ? IDMAP_SAW_ZERO : 0) | (set ? IDMAP_SAW_SET : 0);
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

/* The term of chunk @chunk of @l (the chunk's index among all) in the digest. */
static uint64_t chunk_term(const struct idmap_leaf *l, unsigned int c, uint64_t chunk)
{
	const uint32_t *cnt = l->each[c];
	uint32_t same = l->chunk[c].same, diff = 0;

	if (l->chunk[c].mixed) {
		for (unsigned int i = 1; i < IDMAP_CHUNK; i++)
			diff |= cnt[i] ^ cnt[0];
		same = cnt[0];
	}
	/* a chunk of equal counts reads alike however it is held */
	if (!diff)
		return same ? DIGEST_FOLD(0x69646d6170ull, chunk << 1, same) : 0;
	return DIGEST_FOLD(0x69646d6170ull, chunk << 1 | 1,
			   digest_bytes(cnt, IDMAP_CHUNK * sizeof(*cnt)));
}

/* The chunk of @p (of frame @pfn) is about to change: note it for the digest, once. */
static void idmap_touch(struct idmap *im, const struct idmap_piece *p, uint64_t pfn)
{
	if (!im->track || im->touch_lost || !p->leaf || p->leaf->chunk[p->chunk].touched)
		return;
	if (array_reserve(&im->touched, &im->touched_cap, im->ntouched, sizeof(*im->touched))) {
		im->touch_lost = true;
		return;
	}
	p->leaf->chunk[p->chunk].touched = true;
	im->touched[im->ntouched++] = pfn >> IDMAP_CHUNK_SHIFT;
}

/* Count one more reference to each frame of [pfn, pfn+n). Nothing is counted on failure. */
int idmap_get(struct idmap *im, uint64_t pfn, uint64_t n, unsigned int *saw)
{
	uint64_t last = (pfn + n - 1) >> IDMAP_LEAF_SHIFT;
	unsigned int seen = 0;

	if (saw)
		*saw = 0;
	if (!n)
		return 0;
	/* every leaf first, so that counting cannot fail half way */
	if (array_extend_zeroed(&im->leaves, &im->nleaves, (size_t)last + 1, sizeof(*im->leaves)))
		return -ENOMEM;
	for (uint64_t top = pfn >> IDMAP_LEAF_SHIFT; top <= last; top++) {
		if (!im->leaves[top])
			im->leaves[top] = calloc(1, sizeof(struct idmap_leaf));
		if (!im->leaves[top])
			return -ENOMEM;
	}
	for (uint64_t done = 0, len; done < n; done += len) {
		struct idmap_piece p = idmap_piece(im, pfn + done, n - done);

		idmap_touch(im, &p, pfn + done);
		(void)idmap_update(&p, true, &seen); /* a get always has a count to raise */
		len = p.len;
	}
	if (saw)
		*saw = seen;
	return 0;
}

/* Drop one reference to each frame of [pfn, pfn+n). Return: the frames that had none. */
uint64_t idmap_put(struct idmap *im, uint64_t pfn, uint64_t n, unsigned int *saw)
{
	uint64_t none = 0;
	unsigned int seen = 0;

	for (uint64_t done = 0, len; done < n; done += len) {
		struct idmap_piece p = idmap_piece(im, pfn + done, n - done);

		idmap_touch(im, &p, pfn + done);
		none += idmap_update(&p, false, &seen);
		len = p.len;
	}
	if (saw)
		*saw = seen;
	return none;
}

/* The XOR of every chunk's term; with @keep, each chunk keeps its own, noted as not touched. */
static uint64_t idmap_walk(struct idmap *im, bool keep)
{
	uint64_t h = 0;

	for (size_t top = 0; top < im->nleaves; top++) {
		struct idmap_leaf *l = im->leaves[top];

		for (unsigned int c = 0; l && c < IDMAP_CHUNKS; c++) {
			uint64_t term = chunk_term(l, c, top * IDMAP_CHUNKS + c);

			h ^= term;
			if (keep) {
				l->chunk[c].term = term;
				l->chunk[c].touched = false;
			}
		}
	}
	return h;
}

uint64_t idmap_digest_full(const struct idmap *im)
{
	/* without @keep the walk changes nothing */
	return idmap_walk((struct idmap *)im, false);
}

uint64_t idmap_digest(struct idmap *im)
{
	if (!im->track || im->touch_lost) {
		/* the first call, or a chunk went unnoted: start again from every chunk */
		im->state = idmap_walk(im, true);
		im->ntouched = 0;
		im->touch_lost = false;
		im->track = true;
		return im->state;
	}
	for (size_t i = 0; i < im->ntouched; i++) {
		uint64_t chunk = im->touched[i];
		struct idmap_leaf *l = im->leaves[chunk / IDMAP_CHUNKS];
		unsigned int c = (unsigned int)(chunk % IDMAP_CHUNKS);
		uint64_t term = chunk_term(l, c, chunk);

		im->state ^= l->chunk[c].term ^ term;
		l->chunk[c].term = term;
		l->chunk[c].touched = false;
	}
	im->ntouched = 0;
	return im->state;
}

void idmap_free(struct idmap *im)
{
	for (size_t i = 0; i < im->nleaves; i++)
		free(im->leaves[i]);
	free(im->leaves);
	free(im->touched);
	memset(im, 0, sizeof(*im));
}
