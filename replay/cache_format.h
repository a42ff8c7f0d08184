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
#define CACHE_VERSION 5u

struct cache_header {
	char magic[8];
	uint32_t version;
	uint32_t header_size;
	uint64_t key;
	uint64_t payload_bytes;
	uint64_t checksum;
	struct cache_meta meta;
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

#endif
