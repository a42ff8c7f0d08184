/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_CORE_CORE_VIDMM_H
#define GPUISO_CORE_CORE_VIDMM_H

#include "common/types.h"
#include "core/core_types.h"

/*
 * VidMm: allocations in their segments, aperture mappings, paging transfers
 * and monitored fences (core/vidmm.c).
 */

/* Where a VidMm allocation lives. */
enum core_segment {
	CORE_SEG_VRAM = 0,     /* a memory segment in VRAM */
	CORE_SEG_APERTURE = 1, /* an aperture segment (system pages mapped for the GPU) */
	CORE_SEG_SYSTEM = 2,   /* the implicit system-memory segment */
};

/* DXGK_ALLOCATIONINFOFLAGS_WDDM2_0 bits that matter here. */
enum alloc_flag {
	ALLOC_ACCESSED_PHYSICALLY = 0x1,
	ALLOC_MAP_APERTURE_CPU_VISIBLE = 0x2,
};

enum transfer_dir {
	TRANSFER_TO_VRAM = 0,   /* page in: system backing store -> VRAM */
	TRANSFER_FROM_VRAM = 1, /* evict: VRAM -> system backing store */
};

/* --- VidMm --- */

/**
 * core_alloc_create() - DxgkDdiCreateAllocation through VidMm.
 * @core: the model.
 * @adapter: index.
 * @bytes: size.
 * @segment: requested segment; an aperture request without
 *           ALLOC_ACCESSED_PHYSICALLY goes to the implicit system segment.
 * @flags: enum alloc_flag bits.
 * @h: out: the allocation.
 *
 * Return: 0, -EINVAL (MapApertureCpuVisible without MapAperture2Supported),
 * -ENOMEM, -ENODEV.
 */
int core_alloc_create(struct core *core, unsigned int adapter, uint64_t bytes,
		      enum core_segment segment, uint32_t flags, core_handle_t *h);
/**
 * core_alloc_destroy() - destroy an allocation (unmapping what VidMm mapped).
 * @core, @adapter, @h: the allocation, as created.
 *
 * Return: 0, -EINVAL (not a live allocation of @adapter), or -ENODEV or
 * -ESHUTDOWN as every VidMm operation.
 */
int core_alloc_destroy(struct core *core, unsigned int adapter, core_handle_t h);
/**
 * core_alloc_segment() - the segment an allocation was placed in.
 * @core: the model.
 * @h: the allocation.
 *
 * Return: its enum core_segment, or -EINVAL when @h is not a live allocation.
 */
int core_alloc_segment(struct core *core, core_handle_t h);

/**
 * core_map_aperture() - map pages of an aperture-segment allocation
 * (MAP_APERTURE_SEGMENT2 to the KMD when it supports it).
 * @core: the model.
 * @adapter: index.
 * @h: the allocation.
 * @offset_pages: first page.
 * @pages: how many.
 *
 * Return: 0, -EINVAL (not in an aperture segment, out of range), -EBUSY (mapped).
 */
int core_map_aperture(struct core *core, unsigned int adapter, core_handle_t h,
		      uint64_t offset_pages, uint64_t pages);
/**
 * core_unmap_aperture() - UNMAP_APERTURE_SEGMENT; the CPU-visible address dies.
 * @core, @adapter, @h: the allocation, as mapped.
 *
 * Return: 0, -EINVAL (not an allocation of @adapter mapped in the aperture),
 * what every VidMm operation's entry refuses (-ENODEV, -ESHUTDOWN), or the
 * KMD's paging operation's error.
 */
int core_unmap_aperture(struct core *core, unsigned int adapter, core_handle_t h);

/**
 * core_transfer() - a paging transfer between VRAM and the backing store; the
 * backing store is mapped for the duration of the transfer only.
 * @core: the model.
 * @adapter: index.
 * @h: a VRAM-segment allocation.
 * @dir: direction.
 * @bytes: bytes to move (0: the whole allocation).
 *
 * Return: 0, -EINVAL (not in VRAM, a direction that is neither), -ERANGE
 * (more bytes than the allocation), -ENOMEM, -EIO.
 */
int core_transfer(struct core *core, unsigned int adapter, core_handle_t h, enum transfer_dir dir,
		  uint64_t bytes);

/**
 * core_fence_create() - a monitored fence: one page mapped for the GPU.
 * @core: the model.
 * @adapter: index.
 * @h: out: the fence.
 *
 * Return: 0, -ENOMEM (no page, no handle, no page table), or -ENODEV or
 * -ESHUTDOWN as every VidMm operation.
 */
int core_fence_create(struct core *core, unsigned int adapter, core_handle_t *h);
/**
 * core_fence_destroy() - unmap and free a monitored fence.
 * @core, @adapter, @h: the fence, as created.
 *
 * Return: 0, -EINVAL (not a live fence of @adapter), or -ENODEV or
 * -ESHUTDOWN as every VidMm operation.
 */
int core_fence_destroy(struct core *core, unsigned int adapter, core_handle_t h);

#endif
