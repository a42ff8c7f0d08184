/* SPDX-License-Identifier: MIT */
/* The units a trim keeps or drops whole (trim_internal.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/array.h"
#include "common/u64map.h"
#include "replay/trim_internal.h"

/* An id on an adapter, as the engine keys its live objects. */
#define UNITS_ID_BITS 56
#define UNITS_ID_MAX ((1ull << UNITS_ID_BITS) - 1)

/* An IRQL raise not yet lowered: its unit and the level it raised to. */
struct unit_raise {
	uint32_t unit;
	uint64_t level;
};

/* What the partition knows while it walks the events once. */
struct unit_walk {
	uint32_t *parent;          /* per unit: the unit it was merged into, or itself */
	size_t nunits, cap;
	struct u64map live;        /* (adapter, id) -> the unit of the object live under it */
	struct u64map dead;        /* (adapter, id) -> the unit of the object last freed under it */
	struct u64map down;        /* (adapter, phys) -> the unit of a power-down not yet undone */
	struct unit_raise *raised; /* raises not yet lowered, lowest first */
	size_t nraised, raised_cap;
	uint64_t irql;             /* the level callbacks are made at (PASSIVE at the start) */
	struct trim_need *needs;
	size_t nneeds, needs_cap;
};

static uint32_t walk_find(const struct unit_walk *w, uint32_t u)
{
	while (w->parent[u] != u)
		u = w->parent[u];
	return u;
}

/* A new unit (of one event, so far); -ENOMEM. */
static int walk_new(struct unit_walk *w, uint32_t *u)
{
	if (array_reserve(&w->parent, &w->cap, w->nunits, sizeof(*w->parent)))
		return -ENOMEM;
	*u = (uint32_t)w->nunits;
	w->parent[w->nunits] = *u;
	w->nunits++;
	return 0;
}

/* Units @a and @b become one (the earlier one names it). */
static void walk_merge(struct unit_walk *w, uint32_t a, uint32_t b)
{
	a = walk_find(w, a);
	b = walk_find(w, b);
	if (a < b)
		w->parent[b] = a;
	else if (b < a)
		w->parent[a] = b;
}

static uint64_t walk_key(uint64_t adapter, uint64_t id)
{
	return adapter << UNITS_ID_BITS | (id & UNITS_ID_MAX);
}

/*
 * The unit of the object live under (@adapter, @id), or a new one for an
 * id never created (the replay refuses that trace, but the partition still
 * holds every event); with @create, a new object's. -ENOMEM.
 */
static int walk_object(struct unit_walk *w, uint64_t adapter, uint64_t id, bool create,
		       uint32_t *u)
{
	uint64_t key = walk_key(adapter, id), *v;

	if (adapter > 0xff || id > UNITS_ID_MAX || key == UINT64_MAX)
		return walk_new(w, u); /* an id the engine refuses: an event of its own */
	v = create ? NULL : u64map_get(&w->live, key);
	if (v) {
		*u = (uint32_t)*v;
		return 0;
	}
	return walk_new(w, u) ?: u64map_put(&w->live, key, *u);
}

/* The unit of an IRQL change to @level: a raise opens one, a lowering joins what it ends. */
static int walk_irql(struct unit_walk *w, uint64_t level, uint32_t *u)
{
	int rc;

	if (level > w->irql) {
		if ((rc = walk_new(w, u)) ||
		    array_reserve(&w->raised, &w->raised_cap, w->nraised, sizeof(*w->raised)))
			return rc ?: -ENOMEM;
		w->raised[w->nraised++] = (struct unit_raise){ .unit = *u, .level = level };
	} else if (level < w->irql && w->nraised && w->raised[w->nraised - 1].level > level) {
		*u = w->raised[--w->nraised].unit;
		while (w->nraised && w->raised[w->nraised - 1].level > level)
			walk_merge(w, *u, w->raised[--w->nraised].unit);
	} else if ((rc = walk_new(w, u))) {
		return rc;
	}
	w->irql = level;
	return 0;
}

/* The unit of a power transition: a power-down opens one, the power-up after it joins it. */
static int walk_power(struct unit_walk *w, const struct wl_event *e, uint32_t *u)
{
	uint64_t key = e->v[WL_ADAPTER] << 32 | (e->v[WL_PHYS] & 0xffffffffu), *v;
	int rc;

	if (key == UINT64_MAX)
		return walk_new(w, u);
	v = u64map_get(&w->down, key);
	if (e->v[WL_ARG] == WL_POWER_D0) {
		if (!v)
			return walk_new(w, u);
		*u = (uint32_t)*v;
		u64map_del(&w->down, key);
		return 0;
	}
	if (v) /* down again without an up in between: this one's own */
		return walk_new(w, u);
	return (rc = walk_new(w, u)) ? rc : u64map_put(&w->down, key, *u);
}

/* The unit event @e goes with; an object it refers to goes in *@ref (else UINT32_MAX). */
static int walk_event(struct unit_walk *w, const struct wl_event *e, uint32_t *u,
		      uint32_t *ref)
{
	uint64_t adapter = e->v[WL_ADAPTER];
	int rc;

	*ref = UINT32_MAX;
	if (wl_refers(e->kind)) {
		rc = walk_object(w, adapter, e->v[WL_REF], false, ref);
		if (rc)
			return rc;
	}
	if (wl_creates(e->kind))
		return walk_object(w, adapter, e->v[WL_ID], true, u);
	if (wl_destroys(e->kind)) {
		rc = walk_object(w, adapter, e->v[WL_ID], false, u);
		if (!rc && adapter <= 0xff && e->v[WL_ID] <= UNITS_ID_MAX) {
			u64map_del(&w->live, walk_key(adapter, e->v[WL_ID]));
			rc = u64map_put(&w->dead, walk_key(adapter, e->v[WL_ID]), *u);
		}
		return rc;
	}
	/* a DMA through a freed id reaches what the object had: it goes with the object */
	if (e->kind == WL_DMA && adapter <= 0xff && e->v[WL_ID] <= UNITS_ID_MAX &&
	    !u64map_get(&w->live, walk_key(adapter, e->v[WL_ID]))) {
		const uint64_t *dead = u64map_get(&w->dead, walk_key(adapter, e->v[WL_ID]));

		if (dead) {
			*u = (uint32_t)*dead;
			return 0;
		}
	}
	if (wl_uses(e->kind))
		return walk_object(w, adapter, e->v[WL_ID], false, u);
	if (e->kind == WL_POWER)
		return walk_power(w, e, u);
	if (e->kind == WL_IRQL)
		return walk_irql(w, e->v[WL_ARG], u);
	return walk_new(w, u);
}

static int need_cmp(const void *a, const void *b)
{
	const struct trim_need *x = a, *y = b;

	if (x->unit != y->unit)
		return x->unit < y->unit ? -1 : 1;
	return x->needs < y->needs ? -1 : x->needs > y->needs;
}

/* Merged units renumbered in the order they begin; needs in those numbers, sorted, once each. */
static int walk_settle(struct unit_walk *w, size_t n, struct trim_units *u)
{
	uint32_t *number = malloc((w->nunits ? w->nunits : 1) * sizeof(*number));
	size_t k = 0;

	if (!number)
		return -ENOMEM;
	u->nunits = 0;
	for (size_t i = 0; i < w->nunits; i++)
		number[i] = walk_find(w, (uint32_t)i) == i ? (uint32_t)u->nunits++ : UINT32_MAX;
	for (size_t i = 0; i < n; i++)
		u->unit_of[i] = number[walk_find(w, u->unit_of[i])];
	for (size_t i = 0; i < w->nneeds; i++) {
		struct trim_need nd = { number[walk_find(w, w->needs[i].unit)],
					number[walk_find(w, w->needs[i].needs)] };

		if (nd.unit != nd.needs)
			w->needs[k++] = nd;
	}
	free(number);
	if (k)
		qsort(w->needs, k, sizeof(*w->needs), need_cmp);
	u->nneeds = 0;
	for (size_t i = 0; i < k; i++)
		if (!u->nneeds || need_cmp(&w->needs[i], &w->needs[u->nneeds - 1]))
			w->needs[u->nneeds++] = w->needs[i];
	u->needs = w->needs;
	w->needs = NULL;
	return 0;
}

int trim_units_build(const struct wl_event *ev, size_t n, struct trim_units *u)
{
	struct unit_walk w = { 0 };
	int rc = 0;

	memset(u, 0, sizeof(*u));
	if (n >= UINT32_MAX)
		return -E2BIG;
	u->unit_of = malloc((n ? n : 1) * sizeof(*u->unit_of));
	if (!u->unit_of)
		return -ENOMEM;
	for (size_t i = 0; i < n && !rc; i++) {
		uint32_t ref;

		rc = walk_event(&w, &ev[i], &u->unit_of[i], &ref);
		if (rc || ref == UINT32_MAX)
			continue;
		if (array_reserve(&w.needs, &w.needs_cap, w.nneeds, sizeof(*w.needs)))
			rc = -ENOMEM;
		else
			w.needs[w.nneeds++] = (struct trim_need){ .unit = u->unit_of[i], .needs = ref };
	}
	if (!rc)
		rc = walk_settle(&w, n, u);
	free(w.parent);
	free(w.raised);
	free(w.needs);
	u64map_fini(&w.live);
	u64map_fini(&w.dead);
	u64map_fini(&w.down);
	if (rc)
		trim_units_free(u); /* a failed constructor leaves nothing */
	return rc;
}

void trim_units_close(const struct trim_units *u, bool *keep)
{
	bool changed = true;

	while (changed) {
		changed = false;
		for (size_t i = 0; i < u->nneeds; i++) {
			if (keep[u->needs[i].unit] && !keep[u->needs[i].needs]) {
				keep[u->needs[i].unit] = false;
				changed = true;
			}
		}
	}
}

void trim_units_need_all(const struct trim_units *u, bool *keep)
{
	bool changed = true;

	while (changed) {
		changed = false;
		for (size_t i = 0; i < u->nneeds; i++) {
			if (keep[u->needs[i].unit] && !keep[u->needs[i].needs]) {
				keep[u->needs[i].needs] = true;
				changed = true;
			}
		}
	}
}

void trim_units_free(struct trim_units *u)
{
	free(u->unit_of);
	free(u->needs);
	memset(u, 0, sizeof(*u));
}
