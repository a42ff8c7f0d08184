/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_TESTS_CORE_FIXTURE_H
#define GPUISO_TESTS_CORE_FIXTURE_H

/*
 * Shared by the core suites: a scenario built in code (default.yaml's
 * values, then changed by the test), a started model on the simulator, and
 * small helpers to look at what the verifier and the backend saw.
 */

#include "core/core.h"
#include "core/scenario.h"

struct fx {
	struct scenario scn;
	struct hw_backend be; /* the simulator of the scenario */
	struct core *core;
};

/* scenario_defaults(): one adapter "gpu0", 64 GiB, IOMMUFlags 0x07, attached 1:1. */
void fx_defaults(struct fx *fx);
/* Load a scenario file named relative to the source tree (GPUISO_SOURCE_ROOT). */
void fx_load(struct fx *fx, const char *relpath);
/* Give adapter @a @n physical adapters, each a copy of its physical adapter 0. */
void fx_set_phys(struct fx *fx, size_t a, size_t n);
/* Append a copy of adapter 0 named @name; returns its index. */
size_t fx_add_adapter(struct fx *fx, const char *name);
/*
 * Make adapter @a a WDDM 3.0 driver that reports linear remapping (and a
 * device that sees all memory: 1:1 mode).
 */
void fx_remap_capable(struct fx *fx, size_t a);
/* The same, with a device unable to see all memory: DMA remapping is needed (logical mode). */
void fx_need_remap(struct fx *fx, size_t a);
/* The scenario's simulator, and core_create() on it (not started), asserting both succeed. */
void fx_create(struct fx *fx);
/* core_create() + core_start(), asserting both succeed. */
void fx_start(struct fx *fx);
/* core_create() + core_set_kmd() + core_start(). */
void fx_start_kmd(struct fx *fx, const struct kmd_ops *ops, void *kmd);
/* Tear down (core_destroy reports leaks first) and free the scenario. */
void fx_fini(struct fx *fx);

/* How many violations with @code the verifier recorded. */
size_t fx_violations(struct fx *fx, enum core_violation_code code);
/* All violations, one per line, for assertion messages. */
const char *fx_violation_text(struct fx *fx);
/* Number of DMA faults recorded. */
size_t fx_faults(struct fx *fx);
/* core_adapter_info(), asserting success. */
struct core_adapter_info fx_info(struct fx *fx, unsigned int adapter);

/*
 * Device @phys of @adapter writes @len bytes of @byte into the memory behind
 * @h at @off (VRAM scratch is filled first), or reads them back into VRAM.
 * Returns what core_dma() returned.
 */
int fx_dma_write(struct fx *fx, unsigned int adapter, unsigned int phys, core_handle_t h,
		 uint64_t off, uint64_t len, uint8_t byte);
int fx_dma_read(struct fx *fx, unsigned int adapter, unsigned int phys, core_handle_t h,
		uint64_t off, uint64_t len, uint8_t *out);

/* Physical memory's usage counters now. */
struct physmem_usage fx_usage(struct fx *fx);
/* Set memory pressure (UINT64_MAX: none). */
void fx_pressure(struct fx *fx, uint64_t commit, uint64_t lock, uint64_t contig);
/* Assert committed, locked and allocated bytes are equal; @when names the moment. */
void fx_assert_usage_eq(struct physmem_usage a, struct physmem_usage b, const char *when);
/* Assert the verifier recorded nothing. */
void fx_assert_no_violations(struct fx *fx);
/* The device address of byte @off of @h, asserting it has one. */
iova_t fx_iova_of(struct fx *fx, core_handle_t h, uint64_t off);

/*
 * Device @dev reaches @iova directly through the backend (no handle),
 * reading or writing @len bytes of @buf. On a block the queued fault is
 * taken and checked; its reason goes to @reason. Returns what the
 * backend's dma op returned.
 */
int fx_raw_dma(struct fx *fx, uint32_t dev, iova_t iova, void *buf, uint64_t len, bool write,
	       uint8_t *reason);
/* fx_raw_dma() of 64 bytes: a write (of 0xEE bytes), or a read. */
int fx_probe_write(struct fx *fx, uint32_t dev, iova_t iova, uint8_t *reason);
int fx_probe_read(struct fx *fx, uint32_t dev, iova_t iova, uint8_t *reason);
/* A write by device @dev to @iova is blocked with VT-d reason 0x05; @what names it in messages. */
void fx_assert_blocked(struct fx *fx, uint32_t dev, iova_t iova, const char *what);
/* A write by device @dev to @iova goes through. */
void fx_assert_reachable(struct fx *fx, uint32_t dev, iova_t iova, const char *what);

#endif
