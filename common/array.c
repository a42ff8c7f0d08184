/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "array.h"

/* realloc() in the way array_grow() asks: NULL when it cannot. */
static void *grow_heap(void *arr, size_t old, size_t bytes)
{
	(void)old;
	return realloc(arr, bytes);
}

/* A new shared mapping, not mremap(): a shared one's object keeps its first size. */
static void *grow_shared(void *arr, size_t old, size_t bytes)
{
	void *grown = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (grown == MAP_FAILED)
		return NULL;
	if (arr) {
		memcpy(grown, arr, old);
		munmap(arr, old);
	}
	return grown;
}

/* Room for one more element: the capacity doubles, from 16, through @grow. */
static int array_grow(void *arrp, size_t *cap, size_t n, size_t elem,
		      void *(*grow)(void *arr, size_t old, size_t bytes))
{
	void *arr, *grown;
	size_t want;

	if (n < *cap)
		return 0;
	memcpy(&arr, arrp, sizeof(arr));
	want = *cap ? *cap * 2 : 16;
	if (want > SIZE_MAX / elem)
		return -ENOMEM;
	grown = grow(arr, *cap * elem, want * elem);
	if (!grown)
		return -ENOMEM;
	memcpy(arrp, &grown, sizeof(grown));
	*cap = want;
	return 0;
}

int array_reserve(void *arrp, size_t *cap, size_t n, size_t elem)
{
	return array_grow(arrp, cap, n, elem, grow_heap);
}

int array_extend_zeroed(void *arrp, size_t *n, size_t want, size_t elem)
{
	char *arr, *grown;

	if (want <= *n)
		return 0;
	if (want > SIZE_MAX / elem)
		return -ENOMEM;
	memcpy(&arr, arrp, sizeof(arr));
	grown = realloc(arr, want * elem);
	if (!grown)
		return -ENOMEM;
	memset(grown + *n * elem, 0, (want - *n) * elem);
	memcpy(arrp, &grown, sizeof(grown));
	*n = want;
	/* cppcheck-suppress memleak ; the caller's array pointer holds it (memcpy above) */
	return 0;
}

int array_reserve_shared(void *arrp, size_t *cap, size_t n, size_t elem)
{
	return array_grow(arrp, cap, n, elem, grow_shared);
}

void array_free_shared(void *arr, size_t cap, size_t elem)
{
	if (arr)
		munmap(arr, cap * elem);
}
