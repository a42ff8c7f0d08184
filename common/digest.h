/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_COMMON_DIGEST_H
#define GPUISO_COMMON_DIGEST_H

#include <stddef.h>
#include <stdint.h>

/*
 * A fast 64-bit digest of byte content, fed in pieces of any size: the same
 * bytes give the same digest however they are split. Not cryptographic: it
 * tells whether a restore reproduced what was saved, where a difference is a
 * bug, not an attack. Four independent lanes keep it near memory speed.
 */

struct digest {
	uint64_t lane[4];
	uint64_t total;     /* bytes fed */
	uint8_t tail[32];   /* bytes not yet folded into the lanes */
	size_t ntail;
};

/**
 * digest_init() - start a digest.
 * @d: the state.
 */
void digest_init(struct digest *d);

/**
 * digest_update() - feed bytes.
 * @d: the state.
 * @p: bytes (NULL feeds @n zero bytes).
 * @n: how many.
 */
void digest_update(struct digest *d, const void *p, size_t n);

/**
 * digest_final() - the digest of everything fed.
 * @d: the state (unchanged: more may be fed afterwards).
 *
 * Return: the digest.
 */
uint64_t digest_final(const struct digest *d);

/**
 * digest_bytes() - the digest of @n bytes at @p, in one call.
 * @p: the bytes.
 * @n: how many.
 *
 * Return: what digest_init(), digest_update() and digest_final() give.
 */
uint64_t digest_bytes(const void *p, size_t n);

/**
 * digest_combine() - fold one digest into a running one, order-sensitively.
 * @h: the running value.
 * @part: the digest to add.
 *
 * Return: the new running value.
 */
uint64_t digest_combine(uint64_t h, uint64_t part);

/**
 * digest_fold() - digest_combine() each of @n values into @h, in order.
 * @h: the running value.
 * @v: the values.
 * @n: how many.
 *
 * Return: the new running value.
 */
uint64_t digest_fold(uint64_t h, const uint64_t *v, size_t n);

/* DIGEST_FOLD(h, a, b, ...): digest_fold() of the values listed (converted to uint64_t). */
#define DIGEST_FOLD(h, ...) \
	digest_fold((h), (const uint64_t[]){ __VA_ARGS__ }, \
		    sizeof((const uint64_t[]){ __VA_ARGS__ }) / sizeof(uint64_t))

/*
 * FNV-1a, 64-bit: a byte-at-a-time hash for short keys (a name, a run's
 * parameters). Slower than the digest above on long content, but its values
 * are what cache keys, campaign run keys and trace UUIDs were made with: they
 * must never change.
 */
#define DIGEST_FNV_BASIS 0xcbf29ce484222325ull
#define DIGEST_FNV_PRIME 0x100000001b3ull

/**
 * digest_fnv1a() - fold @n bytes into a 64-bit FNV-1a hash.
 * @h: the running value (DIGEST_FNV_BASIS to start).
 * @p: the bytes.
 * @n: how many.
 *
 * Return: the new running value.
 */
uint64_t digest_fnv1a(uint64_t h, const void *p, size_t n);

/**
 * digest_fnv1a_str() - fold a string and its NUL into a 64-bit FNV-1a hash
 * (with the NUL, "ab" then "c" differs from "a" then "bc").
 * @h: the running value.
 * @s: the string.
 *
 * Return: the new running value.
 */
uint64_t digest_fnv1a_str(uint64_t h, const char *s);

/**
 * digest_fnv1a_word() - fold a whole 64-bit word into an FNV-1a hash, as one
 * step folds a byte (xor, then multiply): for hashing a stream of words fast.
 * @h: the running value.
 * @w: the word.
 *
 * Return: the new running value.
 */
static inline uint64_t digest_fnv1a_word(uint64_t h, uint64_t w)
{
	return (h ^ w) * DIGEST_FNV_PRIME;
}

#endif
