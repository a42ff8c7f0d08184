/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_COMMON_CLOCK_H
#define GPUISO_COMMON_CLOCK_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

/*
 * Time in nanoseconds. clock_mono_ns() is CLOCK_MONOTONIC, for anything
 * that waits, paces or compares with other processes. struct fast_clock is
 * for timing many short operations back to back (each replayed event): on
 * x86-64 with an invariant TSC it reads the TSC and scales it by a factor
 * measured against CLOCK_MONOTONIC once, which costs a fraction of a
 * clock_gettime() (under a hypervisor's kvm-clock, 57 ns against 22 ns
 * here); elsewhere it is clock_mono_ns().
 */

/** clock_mono_ns() - CLOCK_MONOTONIC in nanoseconds. */
static inline uint64_t clock_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/** clock_mono_s() - CLOCK_MONOTONIC in seconds (progress, time limits, wall time). */
static inline double clock_mono_s(void)
{
	return (double)clock_mono_ns() / 1e9;
}

struct fast_clock {
	bool tsc;       /* reads the TSC (else clock_mono_ns()) */
	uint64_t tsc0;  /* TSC at calibration */
	uint64_t mult;  /* nanoseconds per TSC tick, times 2^32 */
};

/**
 * fast_clock_init() - choose the clock and calibrate it.
 * @c: the clock.
 * @allow_tsc: false to use clock_mono_ns() whatever the CPU has.
 *
 * Uses the TSC only where the CPU says it is invariant (constant rate, not
 * stopped in idle states: /proc/cpuinfo's constant_tsc and nonstop_tsc);
 * the calibration spins for 0.5 ms, its error bounded by how tightly a TSC
 * read brackets a clock_gettime() (well under 0.1%).
 */
void fast_clock_init(struct fast_clock *c, bool allow_tsc);

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

/**
 * fast_clock_ns() - nanoseconds since an arbitrary origin fixed at
 * fast_clock_init(); differences of two readings are durations.
 * @c: the clock.
 */
static inline uint64_t fast_clock_ns(const struct fast_clock *c)
{
#if defined(__x86_64__)
	if (c->tsc)
		return (uint64_t)(((unsigned __int128)(__rdtsc() - c->tsc0) * c->mult) >> 32);
#endif
	return clock_mono_ns();
}

#endif
