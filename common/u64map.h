/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_COMMON_U64MAP_H
#define GPUISO_COMMON_U64MAP_H

#include "types.h"

/*
 * A hash map from 64-bit keys to 64-bit values: open addressing with linear
 * probing and backward-shift deletion, so a long run of inserts and deletes
 * (a replay's allocations and frees) leaves no tombstones behind. A zeroed
 * map is empty too: it allocates at its first put.
 */

struct u64map {
	uint64_t *keys;   /* key + 1; 0 marks an empty slot */
	uint64_t *vals;
	size_t cap, used;
};

/** u64map_init() - an empty map. @m: the map. Return: 0, -ENOMEM. */
int u64map_init(struct u64map *m);

/** u64map_fini() - free the map. @m: the map. */
void u64map_fini(struct u64map *m);

/**
 * u64map_get() - the value of @key.
 * @m: the map.
 * @key: any value but UINT64_MAX.
 *
 * Return: a pointer to the value (valid until the next put or del), or NULL.
 */
uint64_t *u64map_get(const struct u64map *m, uint64_t key);

/**
 * u64map_put() - set @key to @val (inserting or replacing).
 * @m: the map.
 * @key: any value but UINT64_MAX.
 * @val: the value.
 *
 * Return: 0, -ENOMEM.
 */
int u64map_put(struct u64map *m, uint64_t key, uint64_t val);

/**
 * u64map_del() - remove @key.
 * @m: the map.
 * @key: the key.
 *
 * Return: true if it was there.
 */
bool u64map_del(struct u64map *m, uint64_t key);

/**
 * u64map_next() - iterate: the next used slot from *@pos.
 * @m: the map.
 * @pos: in/out: 0 to start.
 * @key: out.
 * @val: out.
 *
 * Return: false at the end. The map must not change while iterating.
 */
bool u64map_next(const struct u64map *m, size_t *pos, uint64_t *key, uint64_t *val);

#endif
