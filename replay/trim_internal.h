/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_REPLAY_TRIM_INTERNAL_H
#define GPUISO_REPLAY_TRIM_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "replay/event.h"

/*
 * The units a trim keeps or drops whole (trim.c), so that what is left is
 * a trace whose objects are each created before they are used and ended
 * once: every event naming one object (one lifetime of an id on an
 * adapter), a power-down with the power-up after it on the same physical
 * adapter, an IRQL raise with the lowering that ends it. An event naming
 * another object too (map_mdl and adl_alloc name the MDL and the PMO they
 * are over) makes its unit need that object's: dropping the one drops the
 * other. Other events are units of their own.
 */

/* Unit @unit cannot be kept without unit @needs. */
struct trim_need {
	uint32_t unit, needs;
};

struct trim_units {
	uint32_t *unit_of;       /* event -> its unit; units numbered in the order they begin */
	size_t nunits;
	struct trim_need *needs; /* sorted, no repeats */
	size_t nneeds;
};

/**
 * trim_units_build() - the units of @n events.
 * @ev: the events, in trace order.
 * @n: how many (below 2^32).
 * @u: out: the units (trim_units_free() them; after an error, empty).
 *
 * Return: 0, -ENOMEM, -E2BIG (too many events).
 */
int trim_units_build(const struct wl_event *ev, size_t n, struct trim_units *u);

/**
 * trim_units_close() - drop from @keep every unit that needs a dropped one,
 * directly or through others.
 * @u: the units.
 * @keep: in/out: per unit, whether it is kept.
 */
void trim_units_close(const struct trim_units *u, bool *keep);

/**
 * trim_units_need_all() - add to @keep every unit a kept one needs,
 * directly or through others.
 * @u: the units.
 * @keep: in/out: per unit, whether it is kept.
 */
void trim_units_need_all(const struct trim_units *u, bool *keep);

/** trim_units_free() - free the units. @u: them (left empty). */
void trim_units_free(struct trim_units *u);

#endif
