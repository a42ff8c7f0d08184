/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_CORE_CORE_TYPES_H
#define GPUISO_CORE_CORE_TYPES_H

#include "common/types.h"

/*
 * The model and its handles, and the values the callback families share
 * (core/core.h, which includes this).
 */

struct core;

/** typedef core_handle_t - a handle the model gives a driver; 0 is never valid. */
typedef uint32_t core_handle_t;

enum core_irql {
	CORE_IRQL_PASSIVE = 0,
	CORE_IRQL_APC = 1,
	CORE_IRQL_DISPATCH = 2, /* callbacks here are a violation (WDDM 3.2 bugchecks) */
	CORE_IRQL_HIGH = 15,    /* HIGH_LEVEL on x64: the highest level a trace may give */
};

/* DXGK_MEMORY_CACHING_TYPE: these three values and no other. */
enum cache_type {
	CACHE_NONCACHED = 0,
	CACHE_CACHED = 1,
	CACHE_WRITECOMBINED = 2,
};

enum power_state {
	POWER_D0 = 0,
	POWER_D3 = 3,
};

#endif
