/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_COMMON_COPY_H
#define GPUISO_COMMON_COPY_H

#include <stddef.h>

/**
 * copy_stream() - memcpy() with non-temporal stores where the CPU has them:
 * for data that will not be read again soon (a device writing memory, a save
 * area filled for a later restore), so it neither evicts useful cache lines
 * nor pays to read the destination first. Does not fence: the calling thread
 * sees the data at once; another thread must be synchronised with as usual.
 * @dst: destination.
 * @src: source.
 * @n: bytes.
 */
void copy_stream(void *dst, const void *src, size_t n);

#endif
