/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_CORE_CORE_DIGEST_H
#define GPUISO_CORE_CORE_DIGEST_H

#include "common/types.h"
#include "core/core_types.h"

/*
 * The state digest: what decides what the model does next, so that two
 * models in equal states can be told equal (core/digest.c).
 */

/**
 * core_state_digest() - a digest of everything that decides what the model
 * does next: handles and what they hold, adapters, domains, physical memory
 * and its bytes, and the backend's state. Records (violations, faults,
 * power transitions), counters and latencies are not in it. Two models in
 * equal states give equal digests, so from equal states and equal input
 * they go on alike: a forked sweep run whose digest meets the unfailed
 * run's at the same event can stop there.
 * @core: the model.
 * @digest: out.
 *
 * Its large parts (handles, memory, page tables, IOTLB, 1:1 counts, free
 * extents) are sums of a term per object kept as the objects change, from
 * the first call on: a call costs what changed since the last one, plus
 * the adapters, domains and devices.
 *
 * Return: 0, or -EOPNOTSUPP when part of the state is out of sight: a
 * backend without a state digest (real hardware) or a KMD of the caller's.
 */
int core_state_digest(struct core *core, uint64_t *digest);

/**
 * core_state_digest_full() - core_state_digest() computed again from all of
 * the state, without the parts kept as the state changes.
 * @core: the model.
 * @digest: out.
 *
 * The cross-check of the kept parts (tests): the two are always equal.
 *
 * Return: 0, or -EOPNOTSUPP as core_state_digest().
 */
int core_state_digest_full(struct core *core, uint64_t *digest);

/**
 * core_digest_ref() - count a handle held outside the model (a trace id's
 * object) in the state digest, or, called again alike, no longer.
 * @core: the model.
 * @h: the handle.
 * @tag: what holds it, the same for both calls (distinct for each holder).
 *
 * While @h resolves, a term of its slot and @tag is in its slot's part of
 * the digest: freeing the object takes it out, so a holder's own term need
 * only name the slot. Nothing is counted for a handle that does not
 * resolve, nor before the first core_state_digest(): a holder that starts
 * counting then counts every handle it holds.
 * The value is core_digest_ref_term()'s.
 */
void core_digest_ref(struct core *core, core_handle_t h, uint64_t tag);

/**
 * core_digest_ref_term() - the term core_digest_ref() counts for @h and
 * @tag now, as a holder's recomputation (engine_state_digest_full()) adds it.
 * @core: the model.
 * @h: the handle.
 * @tag: its holder's tag.
 *
 * Return: the term, or 0 when @h does not resolve.
 */
uint64_t core_digest_ref_term(const struct core *core, core_handle_t h, uint64_t tag);

/**
 * core_handle_digest() - a handle as core_state_digest() counts it: by the
 * object slot it names and whether it resolves there, not its generation.
 * @core: the model.
 * @h: the handle (0 stays 0).
 *
 * Return: the value to fold into a digest.
 */
uint64_t core_handle_digest(const struct core *core, core_handle_t h);

#endif
