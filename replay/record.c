/* SPDX-License-Identifier: MIT */
#include <endian.h>
#include <string.h>

#include "replay/record.h"

#define KIND_BITS 6

static const uint8_t CODE_LEN[8] = { 0, 1, 2, 3, 4, 5, 6, 8 };

_Static_assert(WL_NKINDS <= 1 << KIND_BITS, "a kind must fit the head");
#define LOSS_BIT (KIND_BITS + 3 * REC_VALUES)

_Static_assert(LOSS_BIT < 32, "the length codes and the loss bit must fit the head");

void rec_codec_init(struct rec_codec *c)
{
	c->index = UINT64_MAX;
	c->ts = 0;
	/* the fields a kind does not have go to a slot past the end */
	for (unsigned int k = 0; k < WL_NKINDS; k++)
		for (unsigned int i = 0; i < WL_MAX_FIELDS; i++)
			c->slots[k][i] = i < wl_catalogue[k].nfields ?
						 (uint8_t)wl_catalogue[k].fields[i].slot : WL_NSLOTS;
}

/* The shortest length code for @v. */
static unsigned int code_of(uint64_t v)
{
	unsigned int c = 0;

	while (c < 7 && v >> (8 * CODE_LEN[c]))
		c++;
	return c;
}

size_t rec_encode(struct rec_codec *c, uint8_t *out, uint64_t index, const struct wl_event *e)
{
	const struct wl_desc *d = &wl_catalogue[e->kind];
	uint64_t v[REC_VALUES] = { 0 };
	uint32_t head = e->kind | (e->flags & WL_AFTER_LOSS) << LOSS_BIT;
	size_t len = 4;

	/* modulo 2^64: an index repeated (import maps do) takes 8 bytes, and decodes right */
	v[0] = index - c->index - 1;
	v[1] = e->ts - c->ts;
	for (unsigned int i = 0; i < d->nfields; i++)
		v[2 + i] = e->v[d->fields[i].slot];
	/* all 8 bytes of each value are stored, and the next one overwrites what is not its */
	for (unsigned int i = 0; i < REC_VALUES; i++) {
		unsigned int code = code_of(v[i]);
		uint64_t le = htole64(v[i]);

		head |= code << (KIND_BITS + 3 * i);
		memcpy(out + len, &le, 8);
		len += CODE_LEN[code];
	}
	head = htole32(head);
	memcpy(out, &head, 4);
	c->index = index;
	c->ts = e->ts;
	return len;
}

static inline uint64_t load_le64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return le64toh(v);
}

size_t rec_length(const uint8_t *in)
{
	uint32_t head = (uint32_t)load_le64(in);
	size_t len = 4;

	if ((head & ((1u << KIND_BITS) - 1)) >= WL_NKINDS)
		return 0;
	for (unsigned int i = 0; i < REC_VALUES; i++)
		len += CODE_LEN[(head >> (KIND_BITS + 3 * i)) & 7];
	return len;
}

size_t rec_decode(struct rec_codec *c, const uint8_t *in, uint64_t *index, struct wl_event *e)
{
	static const uint64_t mask[8] = { 0, 0xff, 0xffff, 0xffffff, 0xffffffff, 0xffffffffffull,
					  0xffffffffffffull, ~0ull };
	uint32_t head = (uint32_t)load_le64(in);
	unsigned int kind = head & ((1u << KIND_BITS) - 1);
	uint64_t v[REC_VALUES], slot[WL_NSLOTS + 1] = { 0 };
	size_t len = 4;

	if (kind >= WL_NKINDS)
		return 0;
	for (unsigned int i = 0; i < REC_VALUES; i++) {
		unsigned int code = (head >> (KIND_BITS + 3 * i)) & 7;

		v[i] = load_le64(in + len) & mask[code];
		len += CODE_LEN[code];
	}
	for (unsigned int i = 0; i < WL_MAX_FIELDS; i++)
		slot[c->slots[kind][i]] = v[2 + i];
	c->index += v[0] + 1;
	c->ts += v[1];
	*index = c->index;
	e->ts = c->ts;
	e->kind = kind;
	e->flags = head >> LOSS_BIT & WL_AFTER_LOSS;
	memcpy(e->v, slot, sizeof(e->v));
	return len;
}
