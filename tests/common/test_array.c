/* SPDX-License-Identifier: MIT */
/* common/array.c: growable arrays, on the heap and in memory fork() does not copy. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdint.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/array.h"

Test(array, reserve_doubles_from_16_and_keeps_the_elements)
{
	size_t cap = 0, n;
	int *v = NULL;

	for (n = 0; n < 100; n++) {
		cr_assert_eq(array_reserve(&v, &cap, n, sizeof(*v)), 0);
		v[n] = (int)n;
	}
	cr_assert_eq(cap, 128);
	for (n = 0; n < 100; n++)
		cr_assert_eq(v[n], (int)n);
	free(v);
}

Test(array, extend_zeroed_keeps_the_elements_and_zeroes_the_new_ones)
{
	size_t n = 0;
	long *v = NULL;

	cr_assert_eq(array_extend_zeroed(&v, &n, 3, sizeof(*v)), 0);
	cr_assert_eq(n, 3);
	for (size_t i = 0; i < n; i++) {
		cr_assert_eq(v[i], 0);
		v[i] = (long)i + 1;
	}
	cr_assert_eq(array_extend_zeroed(&v, &n, 2, sizeof(*v)), 0, "never shortened");
	cr_assert_eq(n, 3);
	cr_assert_eq(array_extend_zeroed(&v, &n, 1000, sizeof(*v)), 0);
	cr_assert_eq(n, 1000);
	for (size_t i = 0; i < n; i++)
		cr_assert_eq(v[i], i < 3 ? (long)i + 1 : 0, "element %zu", i);
	cr_assert_eq(array_extend_zeroed(&v, &n, SIZE_MAX / 4, sizeof(*v)), -ENOMEM);
	cr_assert_eq(n, 1000, "as it was");
	cr_assert_eq(v[2], 3);
	free(v);
}

Test(array, a_shared_array_grows_keeps_its_elements_and_is_zero_filled)
{
	size_t cap = 0, n;
	long *v = NULL;

	for (n = 0; n < 5000; n++) {
		cr_assert_eq(array_reserve_shared(&v, &cap, n, sizeof(*v)), 0);
		cr_assert_eq(v[n], 0, "element %zu not zero", n);
		v[n] = (long)n * 3;
	}
	cr_assert_eq(cap, 8192);
	for (n = 0; n < 5000; n++)
		cr_assert_eq(v[n], (long)n * 3);
	array_free_shared(v, cap, sizeof(*v));
}

/* Shared, not copied: a child forked after a growth sees what the parent writes later. */
Test(array, a_shared_array_is_the_same_memory_in_a_child)
{
	size_t cap = 0;
	long *v = NULL;
	int status;
	pid_t pid;

	cr_assert_eq(array_reserve_shared(&v, &cap, 0, sizeof(*v)), 0);
	v[0] = 1;
	pid = fork();
	cr_assert_geq(pid, 0);
	if (!pid) {
		for (int i = 0; i < 2000 && v[0] != 2; i++)
			usleep(1000);
		_exit(v[0] == 2 ? 0 : 1);
	}
	v[0] = 2;
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status) && !WEXITSTATUS(status), "the child did not see the write");
	array_free_shared(v, cap, sizeof(*v));
}
