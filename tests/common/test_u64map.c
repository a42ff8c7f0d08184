/* SPDX-License-Identifier: MIT */
/* The 64-bit hash map (common/u64map.h). */
#include <criterion/criterion.h>
#include <stdint.h>

#include "common/u64map.h"

Test(u64map, put_get_replace_del)
{
	struct u64map m;

	cr_assert_eq(u64map_init(&m), 0);
	cr_assert_null(u64map_get(&m, 7));
	cr_assert_eq(u64map_put(&m, 7, 70), 0);
	cr_assert_eq(u64map_put(&m, 0, 1), 0);
	cr_assert_eq(*u64map_get(&m, 7), 70);
	cr_assert_eq(u64map_put(&m, 7, 71), 0);
	cr_assert_eq(*u64map_get(&m, 7), 71);
	cr_assert_eq(m.used, 2);
	cr_assert(u64map_del(&m, 7));
	cr_assert_not(u64map_del(&m, 7));
	cr_assert_null(u64map_get(&m, 7));
	cr_assert_eq(*u64map_get(&m, 0), 1);
	u64map_fini(&m);
}

/* Many keys: it grows, deletes leave every other key findable, iteration sees each once. */
Test(u64map, grows_deletes_and_iterates)
{
	struct u64map m;
	uint64_t key, val, seen = 0;
	size_t pos = 0;

	cr_assert_eq(u64map_init(&m), 0);
	for (uint64_t k = 0; k < 10000; k++)
		cr_assert_eq(u64map_put(&m, k * 4096, k), 0);
	for (uint64_t k = 0; k < 10000; k += 2)
		cr_assert(u64map_del(&m, k * 4096));
	for (uint64_t k = 0; k < 10000; k++) {
		uint64_t *v = u64map_get(&m, k * 4096);

		if (k % 2)
			cr_assert(v && *v == k, "key %llu", (unsigned long long)k);
		else
			cr_assert_null(v);
	}
	while (u64map_next(&m, &pos, &key, &val)) {
		cr_assert_eq(key, val * 4096);
		seen++;
	}
	cr_assert_eq(seen, 5000);
	u64map_fini(&m);
}

/* A zeroed map is an empty one: it allocates at the first put. */
Test(u64map, zeroed_is_empty)
{
	struct u64map m = { 0 };
	uint64_t key, val;
	size_t pos = 0;

	cr_assert_null(u64map_get(&m, 1));
	cr_assert_not(u64map_del(&m, 1));
	cr_assert_not(u64map_next(&m, &pos, &key, &val));
	cr_assert_eq(u64map_put(&m, 1, 2), 0);
	cr_assert_eq(*u64map_get(&m, 1), 2);
	u64map_fini(&m);
	cr_assert_null(u64map_get(&m, 1));
	u64map_fini(&m);
}
