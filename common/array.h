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

/**
 * array_extend_zeroed() - lengthen an array to @want elements, the new ones
 * zero: an array indexed by something that only grows (a CPU, a leaf, a
 * bucket).
 * @arrp: address of the array pointer (any T **, NULL at first); realloc'ed.
 * @n: in/out: its length, in elements.
 * @want: the length wanted; an array as long already is left as it is.
 * @elem: size of one element.
 *
 * Return: 0, or -ENOMEM with the array as it was.
 */
int array_extend_zeroed(void *arrp, size_t *n, size_t want, size_t elem);

/**
 * array_reserve_shared() - array_reserve() for an array that fork() does
 * not copy: it lives in shared anonymous memory (zero filled), whose page
 * table entries a fork leaves to the child's faults, so a process that
 * forks thousands of times pays nothing for it. The children must not
 * write it: they share it. Free it with array_free_shared().
 * @arrp: address of the array pointer (any T **, NULL at first); moved when it grows.
 * @cap: in/out: its capacity, in elements.
 * @n: elements in use.
 * @elem: size of one element.
 *
 * Return: 0, or -ENOMEM with the array as it was.
 */
int array_reserve_shared(void *arrp, size_t *cap, size_t n, size_t elem);

/**
 * array_free_shared() - free an array of array_reserve_shared().
 * @arr: the array, or NULL.
 * @cap: its capacity.
 * @elem: size of one element.
 */
void array_free_shared(void *arr, size_t cap, size_t elem);

#endif
