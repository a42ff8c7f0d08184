/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/array.h"
#include "handle_internal.h"
#include "internal.h"

/*
 * Every handle the model gives a driver lives here, whatever its kind, so
 * one walk at teardown finds every leak. A handle carries a generation: a
 * freed handle no longer resolves, which is how use-after-free (and unmap
 * after free) is caught.
 */

static const char *const hkind_names[H_NKINDS] = {
	[H_FREE] = "free", [H_CONTIG] = "contiguous memory", [H_MDL] = "MDL",
	[H_MDL_MAP] = "MDL mapping", [H_PMO] = "physical memory object",
	[H_PMO_OPEN] = "PMO open handle", [H_VIEW] = "CPU view", [H_ADL] = "ADL",
	[H_ALLOC] = "allocation", [H_FENCE] = "monitored fence",
	[H_DRIVER_MDL] = "driver-managed MDL",
};

const char *hkind_name(enum hkind kind)
{
	return (unsigned int)kind < H_NKINDS ? hkind_names[kind] : "?";
}

static struct hobj *slot(const struct handle_table *ht, uint32_t index)
{
	return &ht->chunks[index / H_CHUNK][index % H_CHUNK];
}

void handle_touch(struct handle_table *ht, uint32_t index)
{
	struct hdig *d;

	if (!ht->track || ht->touch_lost)
		return;
	d = &ht->dig[index / H_CHUNK][index % H_CHUNK];
	if (d->touched)
		return;
	if (array_reserve(&ht->touched, &ht->touched_cap, ht->ntouched, sizeof(*ht->touched))) {
		ht->touch_lost = true;
		return;
	}
	d->touched = true;
	ht->touched[ht->ntouched++] = index;
}

int handle_new(struct core *c, enum hkind kind, unsigned int adapter, core_handle_t *h,
	       struct hobj **obj)
{
	struct handle_table *ht = &c->ht;
	struct hobj *o;
	uint32_t index;

	/*
	 * The lowest free slot: which slots are taken then depends on which
	 * objects are live, not on the order they were freed in, so two runs
	 * that hold the same objects hold them in the same slots.
	 */
	while (ht->first_free < ht->next_index && !ht->free_bits[ht->first_free / 64])
		ht->first_free = (ht->first_free / 64 + 1) * 64;
	if (ht->first_free < ht->next_index) {
		uint64_t *word = &ht->free_bits[ht->first_free / 64];

		index = ht->first_free / 64 * 64 + (uint32_t)__builtin_ctzll(*word);
		*word &= *word - 1;
		ht->first_free = index + 1;
		o = slot(ht, index);
	} else {
		if (ht->next_index > H_INDEX_MASK)
			return -ENOSPC;
		index = ht->next_index;
		if (index / H_CHUNK == ht->nchunks) {
			struct hobj **chunks = realloc(ht->chunks, (ht->nchunks + 1) * sizeof(*chunks));
			struct hdig **dig;
			uint64_t *bits;

			if (!chunks)
				return -ENOMEM;
			ht->chunks = chunks;
			dig = realloc(ht->dig, (ht->nchunks + 1) * sizeof(*dig));
			if (!dig)
				return -ENOMEM;
			ht->dig = dig;
			bits = realloc(ht->free_bits, (ht->nchunks + 1) * (H_CHUNK / 8));
			if (!bits)
				return -ENOMEM;
			ht->free_bits = bits;
			memset(bits + ht->nchunks * (H_CHUNK / 64), 0, H_CHUNK / 8);
			chunks[ht->nchunks] = calloc(H_CHUNK, sizeof(struct hobj));
			dig[ht->nchunks] = calloc(H_CHUNK, sizeof(struct hdig));
			if (!chunks[ht->nchunks] || !dig[ht->nchunks]) {
				free(chunks[ht->nchunks]);
				free(dig[ht->nchunks]);
				return -ENOMEM;
			}
			ht->nchunks++;
		}
		ht->next_index++;
		o = slot(ht, index);
	}
	uint32_t gen = (o->gen + 1) & ((1u << (32 - H_INDEX_BITS)) - 1);

	/*
	 * Field by field, not memset(): a string-store clear of the whole
	 * object stalls the loads that follow at once.
	 */
	o->gen = gen ? gen : 1; /* never 0: handle 0 stays invalid */
	o->kind = kind;
	o->adapter = adapter;
	o->pg = (struct pages){ 0 };
	o->map = (struct dmap){ 0 };
	memset(&o->u, 0, sizeof(o->u));
	ht->live++;
	handle_touch(ht, index);
	*h = (o->gen << H_INDEX_BITS) | index;
	*obj = o;
	return 0;
}

struct hobj *handle_peek(struct core *c, core_handle_t h)
{
	uint32_t index = h & H_INDEX_MASK;
	struct hobj *o;

	if (!h || index >= c->ht.next_index)
		return NULL;
	o = slot(&c->ht, index);
	if (o->kind == H_FREE || o->gen != h >> H_INDEX_BITS)
		return NULL;
	/* given to be changed, perhaps */
	handle_touch(&c->ht, index);
	return o;
}

struct hobj *handle_get(struct core *c, core_handle_t h, enum hkind kind, unsigned int adapter,
			const char *what)
{
	struct hobj *o = handle_peek(c, h);

	if (!o) {
		viol(c, CORE_V_BAD_HANDLE, "%s: handle 0x%x is not live (never given or already freed)",
		     what, h);
		return NULL;
	}
	if (o->kind != kind) {
		viol(c, CORE_V_BAD_HANDLE, "%s: handle 0x%x is a %s, not a %s", what, h,
		     hkind_name(o->kind), hkind_name(kind));
		return NULL;
	}
	if (o->adapter != adapter) {
		viol(c, CORE_V_BAD_HANDLE, "%s: handle 0x%x belongs to adapter %u, not %u", what, h,
		     o->adapter, adapter);
		return NULL;
	}
	return o;
}

/* Any live handle of any kind: for operations that only need its pages. */
struct hobj *handle_any(struct core *c, core_handle_t h, const char *what)
{
	struct hobj *o = handle_peek(c, h);

	if (!o)
		viol(c, CORE_V_BAD_HANDLE, "%s: handle 0x%x is not live (never given or already freed)",
		     what, h);
	return o;
}

void handle_release(struct core *c, core_handle_t h)
{
	struct hobj *o = handle_peek(c, h);
	struct hdig *d;

	if (!o)
		return;
	/* the references to it no longer resolve (handle_peek() noted the slot) */
	d = &c->ht.dig[(h & H_INDEX_MASK) / H_CHUNK][(h & H_INDEX_MASK) % H_CHUNK];
	c->ht.refs ^= d->refs;
	d->refs = 0;
	phys_runs_free(&o->pg.runs);
	o->kind = H_FREE;
	c->ht.free_bits[(h & H_INDEX_MASK) / 64] |= 1ull << (h & 63);
	c->ht.first_free = GPUISO_MIN(c->ht.first_free, h & H_INDEX_MASK);
	c->ht.live--;
}

void handle_table_free(struct handle_table *ht)
{
	for (size_t i = 0; i < ht->nchunks; i++) {
		free(ht->chunks[i]);
		free(ht->dig[i]);
	}
	free(ht->chunks);
	free(ht->dig);
	free(ht->free_bits);
	free(ht->touched);
	memset(ht, 0, sizeof(*ht));
}

size_t core_live_handles(const struct core *core)
{
	return core->ht.live;
}
