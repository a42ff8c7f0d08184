/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_COMMON_ARRAY_H
#define GPUISO_COMMON_ARRAY_H

#include <stddef.h>

/**
 * array_reserve() - make room for one more element in a growable array
 * (capacity doubles, from 16).
 * @arrp: address of the array pointer (any T **); realloc'ed when full.
 * @cap: in/out: its capacity, in elements.
 * @n: elements in use.
 * @elem: size of one element.
 *
 * Return: 0, or -ENOMEM with the array as it was.
 */
int array_reserve(void *arrp, size_t *cap, size_t n, size_t elem);

#endif
