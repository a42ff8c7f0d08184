/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_COMMON_TYPES_H
#define GPUISO_COMMON_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** typedef iova_t - an address as a device sees it (logical address, IOVA). */
typedef uint64_t iova_t;
/** typedef pa_t - a system physical address. */
typedef uint64_t pa_t;

#define GPUISO_PAGE_SHIFT 12
#define GPUISO_PAGE_SIZE ((uint64_t)1 << GPUISO_PAGE_SHIFT)
#define SZ_1M ((uint64_t)1 << 20)
#define SZ_2M ((uint64_t)1 << 21)
#define SZ_1G ((uint64_t)1 << 30)

#define ALIGNED(x, a) (((x) & ((a) - 1)) == 0)
#define ALIGN_UP(x, a) (((x) + (a) - 1) & ~((uint64_t)(a) - 1))
#define ALIGN_DOWN(x, a) ((x) & ~((uint64_t)(a) - 1))
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define GPUISO_MIN(a, b) ((a) < (b) ? (a) : (b))
#define GPUISO_MAX(a, b) ((a) > (b) ? (a) : (b))

#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))

#endif
