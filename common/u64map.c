/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>

#include "u64map.h"

static size_t home(const struct u64map *m, uint64_t stored)
{
	return (size_t)((stored * 0x9e3779b97f4a7c15ull) >> 20) & (m->cap - 1);
}

int u64map_init(struct u64map *m)
{
	m->cap = 256;
	m->used = 0;
	m->keys = calloc(m->cap, sizeof(*m->keys));
	m->vals = calloc(m->cap, sizeof(*m->vals));
	if (!m->keys || !m->vals) {
		u64map_fini(m);
		return -ENOMEM;
	}
	return 0;
}

void u64map_fini(struct u64map *m)
{
	free(m->keys);
	free(m->vals);
	m->keys = m->vals = NULL;
	m->cap = m->used = 0;
}

static size_t find(const struct u64map *m, uint64_t stored)
{
	size_t i = home(m, stored);

	while (m->keys[i] && m->keys[i] != stored)
		i = (i + 1) & (m->cap - 1);
	return i;
}

uint64_t *u64map_get(const struct u64map *m, uint64_t key)
{
	size_t i;

	if (!m->cap)
		return NULL;
	i = find(m, key + 1);
	return m->keys[i] ? &m->vals[i] : NULL;
}

static int grow(struct u64map *m)
{
	struct u64map bigger = { .cap = m->cap ? m->cap * 2 : 256 };

	bigger.keys = calloc(bigger.cap, sizeof(*bigger.keys));
	bigger.vals = calloc(bigger.cap, sizeof(*bigger.vals));
	if (!bigger.keys || !bigger.vals) {
		u64map_fini(&bigger);
		return -ENOMEM;
	}
	for (size_t i = 0; i < m->cap; i++) {
		if (!m->keys[i])
			continue;
		size_t j = find(&bigger, m->keys[i]);

		bigger.keys[j] = m->keys[i];
		bigger.vals[j] = m->vals[i];
	}
	bigger.used = m->used;
	u64map_fini(m);
	*m = bigger;
	return 0;
}

int u64map_put(struct u64map *m, uint64_t key, uint64_t val)
{
	size_t i;

	if ((m->used + 1) * 4 > m->cap * 3 && grow(m))
		return -ENOMEM;
	i = find(m, key + 1);
	if (!m->keys[i]) {
		m->keys[i] = key + 1;
		m->used++;
	}
	m->vals[i] = val;
	return 0;
}

bool u64map_del(struct u64map *m, uint64_t key)
{
	size_t i, j;

	if (!m->cap)
		return false;
	i = j = find(m, key + 1);
	if (!m->keys[i])
		return false;
	for (;;) {
		j = (j + 1) & (m->cap - 1);
		if (!m->keys[j])
			break;
		size_t h = home(m, m->keys[j]);

		/* move j into the hole unless its home lies cyclically in (i, j] */
		if (i <= j ? (h <= i || h > j) : (h <= i && h > j)) {
			m->keys[i] = m->keys[j];
			m->vals[i] = m->vals[j];
			i = j;
		}
	}
	m->keys[i] = 0;
	m->used--;
	return true;
}

bool u64map_next(const struct u64map *m, size_t *pos, uint64_t *key, uint64_t *val)
{
	for (; *pos < m->cap; (*pos)++) {
		if (m->keys[*pos]) {
			*key = m->keys[*pos] - 1;
			*val = m->vals[*pos];
			(*pos)++;
			return true;
		}
	}
	return false;
}
