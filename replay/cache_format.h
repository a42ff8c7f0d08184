/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_REPLAY_CACHE_FORMAT_H
#define GPUISO_REPLAY_CACHE_FORMAT_H

#include <stddef.h>

#include "replay/cache.h"

/*
 * The layout of a cache file (replay/cache.h): a fixed header, then the
 * events as records (replay/record.h), the first encoded against the
 * codec's initial state. All integers little endian. The checksum covers
 * the records, the key and the header's counts.
 */

#define CACHE_MAGIC "GPUISOWC"
#define CACHE_VERSION 6u

struct cache_header {
	char magic[8];
	uint32_t version;
	uint32_t header_size;
	uint64_t key;
	uint64_t payload_bytes;
	uint64_t checksum;
	struct cache_meta meta;
};

/*
 * An identity file (IDENTITY.wli, beside the cache files): what the inputs
 * of one identity (cache_find()) hold. All integers little endian; the
 * key must be the one the digests give, the checksum that of every byte
 * before it.
 */
#define CACHE_IDENT_MAGIC "GPUISOWI"

struct cache_ident {
	char magic[8];
	uint32_t version;                  /* CACHE_VERSION */
	uint32_t ninputs;                  /* the trace and its maps */
	uint64_t identity;                 /* as the file's name says */
	uint64_t key;                      /* the content key: names the cache file */
	uint64_t digest[CACHE_MAX_INPUTS]; /* each input's content; 0 past ninputs */
	uint64_t checksum;
};

/**
 * cache_checksum() - the checksum a cache file's header carries.
 * @key: the header's key.
 * @payload: the records.
 * @n: their length in bytes.
 * @meta: the header's counts.
 *
 * Return: the checksum.
 */
uint64_t cache_checksum(uint64_t key, const uint8_t *payload, size_t n,
			const struct cache_meta *meta);

/**
 * cache_ident_checksum() - the checksum an identity file carries.
 * @id: the file's content (its checksum field is not read).
 *
 * Return: the checksum.
 */
uint64_t cache_ident_checksum(const struct cache_ident *id);

#endif
