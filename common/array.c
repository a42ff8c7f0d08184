/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "array.h"

int array_reserve(void *arrp, size_t *cap, size_t n, size_t elem)
{
	void *arr, *grown;
	size_t want;

	if (n < *cap)
		return 0;
	memcpy(&arr, arrp, sizeof(arr));
	want = *cap ? *cap * 2 : 16;
	grown = realloc(arr, want * elem);
	if (!grown)
		return -ENOMEM;
	memcpy(arrp, &grown, sizeof(grown));
	*cap = want;
	return 0;
}

int array_reserve_shared(void *arrp, size_t *cap, size_t n, size_t elem)
{
	void *arr, *grown;
	size_t want;

	if (n < *cap)
		return 0;
	memcpy(&arr, arrp, sizeof(arr));
	want = *cap ? *cap * 2 : 16;
	if (want > SIZE_MAX / elem)
		return -ENOMEM;
	/* a new mapping, not mremap(): a shared one's object keeps its first size */
	grown = mmap(NULL, want * elem, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (grown == MAP_FAILED)
		return -ENOMEM;
	if (arr) {
		memcpy(grown, arr, *cap * elem);
		munmap(arr, *cap * elem);
	}
	memcpy(arrp, &grown, sizeof(grown));
	*cap = want;
	return 0;
}

void array_free_shared(void *arr, size_t cap, size_t elem)
{
	if (arr)
		munmap(arr, cap * elem);
}
