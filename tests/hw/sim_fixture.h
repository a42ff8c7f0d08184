/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_TESTS_HW_SIM_FIXTURE_H
#define GPUISO_TESTS_HW_SIM_FIXTURE_H

#include <stdint.h>

#include "hw/sim/sim.h"

/*
 * Shared by the simulator's suites (test_sim.c, test_sim_pt.c,
 * test_sim_iotlb.c): 4 GiB of RAM and a simulator of two GPUs of 64 MiB
 * VRAM each on it, opened by setup() for each test.
 */

#define MiB ((uint64_t)1 << 20)

/* Each GPU's VRAM. */
extern const uint64_t vram[];

/* The system memory, the simulator and its ops table of the test. */
extern struct physmem pm;
extern struct hw *hw;
extern const struct hw_ops *ops;

/* The system memory alone (a suite's .init where the test opens its own simulator). */
void pm_setup(void);

/* A simulator on pm with @iotlb_entries IOTLB entries (0: the default). */
struct hw *sim_open(unsigned int iotlb_entries);

/* The suites' .init (pm, and hw of the default IOTLB) and .fini. */
void setup(void);
void teardown(void);

/* hw's counters now. */
struct hw_stats stats(void);

/* A new domain, device 0 attached to it. */
uint32_t attached_domain(void);

/* Device 0 reads the byte at @iova into @b: what the dma op returned. */
int read_byte(iova_t iova, uint8_t *b);

/* What one byte at @iova reads, through device 0 (-1 when the read faults). */
int byte_at(iova_t iova);

/* The mark of the page at @pa: the low byte of its page number. */
#define MARK(pa) ((int)(((pa) >> GPUISO_PAGE_SHIFT) & 0xff))

/* Mark the first byte of each page of [pa, pa+size). */
void mark_pages(pa_t pa, uint64_t size);

#endif
