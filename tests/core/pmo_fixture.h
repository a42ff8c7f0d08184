/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_TESTS_CORE_PMO_FIXTURE_H
#define GPUISO_TESTS_CORE_PMO_FIXTURE_H

/* Shared by the suites of the WDDM 3.0 services (test_pmo.c, test_pmo_adl.c), over fixture.h. */

#include <stdint.h>

#include "fixture.h"

#define PG GPUISO_PAGE_SIZE

/* No memory pressure at all (fx_pressure()'s UINT64_MAX in each field). */
extern const struct physmem_pressure no_pressure;

/* default.yaml's adapter with a WDDM 3.0 driver: the services are WDDM 3.0's (1:1 mode). */
void pmo_defaults(struct fx *fx);

/* Fill a buffer with bytes that differ from page to page and within a page. */
void fill(uint8_t *buf, uint64_t len, uint8_t seed);

/* The device of @adapter writes @buf through @h with core_dma (VRAM scratch filled first). */
int gpu_write(struct fx *fx, uint32_t dev, unsigned int adapter, core_handle_t h,
	      uint64_t off, const uint8_t *buf, uint64_t len);

#endif
