/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

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
