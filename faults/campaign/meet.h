/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_FAULTS_MEET_H
#define GPUISO_FAULTS_MEET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Where forked runs meet. A sweep's runs are processes forked from one
 * replay; two of them that reach the same state at the same event go on
 * alike from there, so the second can stop and take the first one's
 * outcome. The table lives in memory shared by the process that creates
 * it and every child it forks afterwards: a run claims each state it
 * checks (a 64-bit key: the event, the state digest, the findings so far)
 * and learns whether an earlier run claimed it first. Claims are lock-free
 * (atomic compare-and-swap), so a run that dies mid-claim blocks nobody.
 */

struct meet_slot;

struct meet_table {
	struct meet_slot *slots;
	_Atomic uint32_t *followed;  /* per run: 1 + the run whose state it reached, or 0 */
	size_t mask;          /* number of slots - 1 (a power of two) */
	size_t nruns;
	size_t bytes;         /* of the shared mapping */
};

/**
 * meet_table_init() - map a table shared with the children forked from now on.
 * @t: the table.
 * @nruns: runs that will claim (numbered from 0).
 * @nclaims: claims expected in all (sizes the table, up to 64 MiB; claims that
 *           find no room only fail to be stored).
 *
 * Return: 0 or -ENOMEM.
 */
int meet_table_init(struct meet_table *t, size_t nruns, size_t nclaims);

/**
 * meet_table_fini() - unmap the table.
 * @t: the table (may be all zero).
 */
void meet_table_fini(struct meet_table *t);

/**
 * meet_claim() - claim state @key for @run, or learn who reached it first.
 * @t: the table.
 * @key: the state (any value; keys are compared whole).
 * @run: the claiming run.
 *
 * Return: @run when it is the first to claim @key (or when that cannot be
 * told: the table is full, or the first claimant is still writing its
 * number), else the run that claimed @key first.
 */
uint32_t meet_claim(struct meet_table *t, uint64_t key, uint32_t run);

/**
 * meet_follow() - note that @run stopped where @first had been.
 * @t: the table.
 * @run: the run stopping (in its own process).
 * @first: the run meet_claim() returned.
 */
void meet_follow(struct meet_table *t, uint32_t run, uint32_t first);

/**
 * meet_followed() - the run that @run stopped to follow.
 * @t: the table.
 * @run: a run that has ended.
 * @first: out: the run it followed.
 *
 * Return: true if @run followed another run (meet_follow()), else false.
 */
bool meet_followed(const struct meet_table *t, uint32_t run, uint32_t *first);

#endif
