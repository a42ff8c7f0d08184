/* SPDX-License-Identifier: MIT */
/*
 * The meeting table: open addressing over a power-of-two array of slots in
 * one shared anonymous mapping (which fork() does not copy: children fault
 * in its pages as they touch them). A slot is claimed by swapping its key
 * in, then its run is published; a reader that finds the key but no run
 * yet cannot say who was first and carries on as if it were.
 */
#include <errno.h>
#include <stdatomic.h>
#include <sys/mman.h>

#include "faults/campaign/meet.h"

/* a key of 0 marks a free slot: this one stands for it */
#define MEET_KEY_ZERO 0x9e3779b97f4a7c15ull
/* slots looked at before a claim gives up (the table is far from full) */
#define MEET_PROBES 64
/* at most 64 MiB of slots: past that, claims that find no room only let their runs go on */
#define MEET_MAX_SLOTS ((size_t)1 << 22)

struct meet_slot {
	_Atomic uint64_t key;
	_Atomic uint32_t run;   /* 1 + the run that claimed it, 0 while unpublished */
	uint32_t pad;
};

int meet_table_init(struct meet_table *t, size_t nruns, size_t nclaims)
{
	size_t nslots = 64, slots_bytes;
	void *p;

	/* at most half full */
	while (nslots < 2 * nclaims && nslots < MEET_MAX_SLOTS)
		nslots *= 2;
	slots_bytes = nslots * sizeof(struct meet_slot);
	t->bytes = slots_bytes + nruns * sizeof(*t->followed);
	p = mmap(NULL, t->bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		*t = (struct meet_table){ 0 };
		return -ENOMEM;
	}
	t->slots = p;
	t->followed = (_Atomic uint32_t *)((char *)p + slots_bytes);
	t->mask = nslots - 1;
	t->nruns = nruns;
	return 0;
}

void meet_table_fini(struct meet_table *t)
{
	if (t->slots)
		munmap(t->slots, t->bytes);
	*t = (struct meet_table){ 0 };
}

uint32_t meet_claim(struct meet_table *t, uint64_t key, uint32_t run)
{
	uint64_t found;
	uint32_t first;
	size_t i;

	if (!key)
		key = MEET_KEY_ZERO;
	i = key & t->mask;
	for (unsigned int probe = 0; probe < MEET_PROBES; probe++, i = (i + 1) & t->mask) {
		struct meet_slot *slot = &t->slots[i];

		found = 0;
		if (atomic_compare_exchange_strong(&slot->key, &found, key)) {
			atomic_store(&slot->run, run + 1);
			return run;
		}
		if (found != key)
			continue;
		first = atomic_load(&slot->run);
		return first ? first - 1 : run;
	}
	return run;
}

void meet_follow(struct meet_table *t, uint32_t run, uint32_t first)
{
	if (run < t->nruns)
		atomic_store(&t->followed[run], first + 1);
}

bool meet_followed(const struct meet_table *t, uint32_t run, uint32_t *first)
{
	uint32_t v = run < t->nruns ? atomic_load(&t->followed[run]) : 0;

	if (v)
		*first = v - 1;
	return v != 0;
}
