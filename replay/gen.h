/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_REPLAY_GEN_H
#define GPUISO_REPLAY_GEN_H

#include "replay/event.h"

/*
 * Workload generators: deterministic streams of valid workload events (every
 * object freed after it is created, ids unique among live objects, bounded
 * live memory), one per profile. Same profile, count and seed: the same
 * events, on any machine.
 */

struct gen;

/**
 * gen_profiles() - the profile names, NULL-terminated.
 *
 * Return: the array.
 */
const char *const *gen_profiles(void);

/**
 * gen_describe() - one line on what a profile does and the scenario it targets.
 * @profile: a name from gen_profiles().
 *
 * Return: the text, or NULL for an unknown profile.
 */
const char *gen_describe(const char *profile);

/* The most events a generator makes (a desktop trace of some 46 GB). */
#define GEN_MAX_EVENTS 1000000000ull

/**
 * gen_create() - a generator of @events events of @profile from @seed.
 * @profile: name.
 * @events: how many events (1 to GEN_MAX_EVENTS; objects still live near
 *          the end are freed within the count).
 * @seed: PRNG seed.
 * @out: out: the generator.
 *
 * Return: 0, -ENOENT (unknown profile), -EINVAL, -ENOMEM.
 */
int gen_create(const char *profile, uint64_t events, uint64_t seed, struct gen **out);

/**
 * gen_next() - the next event (a wl_next_fn for ctf_write()).
 * @ctx: the struct gen.
 * @e: out.
 *
 * Return: 1 with *e filled, 0 at the end.
 */
int gen_next(void *ctx, struct wl_event *e);

/** gen_destroy() - free a generator. @g: it, or NULL. */
void gen_destroy(struct gen *g);

#endif
