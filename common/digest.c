/* SPDX-License-Identifier: MIT */
#include <string.h>

#include "digest.h"

#define P1 0x9e3779b185ebca87ull
#define P2 0xc2b2ae3d27d4eb4full
#define P3 0x165667b19e3779f9ull

static const uint8_t zeros[4096];

static inline uint64_t rotl(uint64_t v, int r)
{
	return (v << r) | (v >> (64 - r));
}

static inline uint64_t round64(uint64_t acc, uint64_t w)
{
	return rotl(acc + w * P2, 31) * P1;
}

static inline uint64_t load64(const uint8_t *p)
{
	uint64_t w;

	memcpy(&w, p, sizeof(w));
	return w;
}

void digest_init(struct digest *d)
{
	*d = (struct digest){ .lane = { P1 + P2, P2, 0, (uint64_t)0 - P1 } };
}

static void fold_blocks(struct digest *d, const uint8_t *p, size_t nblocks)
{
	uint64_t a = d->lane[0], b = d->lane[1], c = d->lane[2], e = d->lane[3];

	for (; nblocks; nblocks--, p += 32) {
		a = round64(a, load64(p));
		b = round64(b, load64(p + 8));
		c = round64(c, load64(p + 16));
		e = round64(e, load64(p + 24));
	}
	d->lane[0] = a;
	d->lane[1] = b;
	d->lane[2] = c;
	d->lane[3] = e;
}

static void update_bytes(struct digest *d, const uint8_t *p, size_t n)
{
	d->total += n;
	if (d->ntail) {
		size_t take = n < 32 - d->ntail ? n : 32 - d->ntail;

		memcpy(d->tail + d->ntail, p, take);
		d->ntail += take;
		p += take;
		n -= take;
		if (d->ntail < 32)
			return;
		fold_blocks(d, d->tail, 1);
		d->ntail = 0;
	}
	fold_blocks(d, p, n / 32);
	p += n & ~(size_t)31;
	n &= 31;
	memcpy(d->tail, p, n);
	d->ntail = n;
}

void digest_update(struct digest *d, const void *p, size_t n)
{
	if (p) {
		update_bytes(d, p, n);
		return;
	}
	while (n) {
		size_t take = n < sizeof(zeros) ? n : sizeof(zeros);

		update_bytes(d, zeros, take);
		n -= take;
	}
}

uint64_t digest_bytes(const void *p, size_t n)
{
	struct digest d;

	digest_init(&d);
	digest_update(&d, p, n);
	return digest_final(&d);
}

uint64_t digest_combine(uint64_t h, uint64_t part)
{
	h = rotl(h ^ round64(0, part), 27) * P1 + P3;
	h ^= h >> 33;
	return h;
}

uint64_t digest_fold(uint64_t h, const uint64_t *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		h = digest_combine(h, v[i]);
	return h;
}

uint64_t digest_final(const struct digest *d)
{
	uint64_t h = rotl(d->lane[0], 1) + rotl(d->lane[1], 7) + rotl(d->lane[2], 12) +
		     rotl(d->lane[3], 18);

	h = digest_combine(h, d->total);
	for (size_t i = 0; i < d->ntail; i++)
		h = digest_combine(h, d->tail[i]);
	h ^= h >> 29;
	h *= P3;
	return h ^ (h >> 32);
}

uint64_t digest_fnv1a(uint64_t h, const void *p, size_t n)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * DIGEST_FNV_PRIME;
	return h;
}

uint64_t digest_fnv1a_str(uint64_t h, const char *s)
{
	return digest_fnv1a(h, s, strlen(s) + 1);
}
