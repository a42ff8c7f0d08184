/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>

#include "array.h"
#include "digest.h"
#include "sparse_internal.h"

/*
 * Digests of a store's content: of a range (each whole chunk's digest
 * cached in it), and of the whole store, kept as it changes by noting
 * each chunk slot before it does.
 */

/* Feed [off, off+n) of @ch (NULL: absent, all zero) to @d. */
static void chunk_feed(struct digest *d, const struct sparse_chunk *ch, uint64_t off, uint64_t n)
{
	while (n) {
		uint64_t end = ch ? GPUISO_MIN(sparse_stretch_end(ch, off), off + n) : off + n;
		bool zero = !ch || sparse_page_zero(ch, off >> SPARSE_PAGE_SHIFT);

		digest_update(d, zero ? NULL : sparse_bytes_at(ch, off), end - off);
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
void sparse_slot_touch(struct sparse_mem *sm, uint64_t addr)
{
	uint64_t c = addr >> SPARSE_CHUNK_SHIFT;

	if (!sm->track || sm->touch_lost || (sm->dirty[c / 64] >> (c % 64) & 1))
		return;
	touch_note(sm, c, slot_term(c, sparse_chunk_at(sm, addr)));
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

		if (sparse_whole_chunk(sm, addr, len)) {
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
