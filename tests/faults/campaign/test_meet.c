/* SPDX-License-Identifier: MIT */
/*
 * The meeting table: the first run to claim a state keeps it, across the
 * processes forked after the table was made; later claimants learn who was
 * first, and the parent learns whom each stopped run followed.
 */
#include <criterion/criterion.h>
#include <sys/wait.h>
#include <unistd.h>

#include "faults/campaign/meet.h"

/* Run @fn(@t, @arg) in a forked child and wait for it; return its exit code. */
static int in_child(struct meet_table *t, int (*fn)(struct meet_table *, uint64_t), uint64_t arg)
{
	int status;
	pid_t pid = fork();

	cr_assert_geq(pid, 0);
	if (!pid)
		_exit(fn(t, arg));
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status));
	return WEXITSTATUS(status);
}

/* run 3 claims keys 1..@n; exit 0 if it was first to each */
static int claim_as_3(struct meet_table *t, uint64_t n)
{
	for (uint64_t k = 1; k <= n; k++)
		if (meet_claim(t, k * 0x100000001b3ull, 3) != 3)
			return 1;
	return 0;
}

/* run 5 claims @key, and follows whoever was first */
static int follow_as_5(struct meet_table *t, uint64_t key)
{
	uint32_t first = meet_claim(t, key, 5);

	if (first != 5)
		meet_follow(t, 5, first);
	return (int)first;
}

Test(meet, the_first_claim_is_kept_across_forked_processes)
{
	struct meet_table t;
	uint32_t first;

	cr_assert_eq(meet_table_init(&t, 8, 100), 0);
	cr_assert_eq(in_child(&t, claim_as_3, 100), 0);
	/* the parent, and another child, find run 3's claims */
	for (uint64_t k = 1; k <= 100; k++)
		cr_assert_eq(meet_claim(&t, k * 0x100000001b3ull, 7), 3, "key %llu", (unsigned long long)k);
	cr_assert_eq(in_child(&t, follow_as_5, 42 * 0x100000001b3ull), 3);
	cr_assert(meet_followed(&t, 5, &first));
	cr_assert_eq(first, 3);
	cr_assert_not(meet_followed(&t, 3, &first), "run 3 followed nobody");
	/* a new key is the claimant's own; a key of 0 is a key like any other */
	cr_assert_eq(in_child(&t, follow_as_5, 0), 5);
	cr_assert_eq(meet_claim(&t, 0, 6), 5);
	cr_assert_eq(meet_claim(&t, 0x123456789, 6), 6);
	meet_table_fini(&t);
	cr_assert_null(t.slots);
}

Test(meet, a_full_table_lets_every_run_go_on)
{
	struct meet_table t;
	uint64_t k;

	/* 64 slots; keys that all want slot 0 fill them in turn */
	cr_assert_eq(meet_table_init(&t, 2, 1), 0);
	for (k = 1; k <= 64; k++)
		cr_assert_eq(meet_claim(&t, k << 32, 0), 0);
	/* no slot left: the state cannot be stored, so nobody is said to be first but the claimant */
	cr_assert_eq(meet_claim(&t, 65ull << 32, 1), 1);
	cr_assert_eq(meet_claim(&t, 65ull << 32, 0), 0);
	/* stored claims still answer */
	cr_assert_eq(meet_claim(&t, 64ull << 32, 1), 0);
	/* runs past the table's count are not recorded */
	meet_follow(&t, 9, 0);
	cr_assert_not(meet_followed(&t, 9, &(uint32_t){ 0 }));
	meet_table_fini(&t);
}
