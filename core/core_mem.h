/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_CORE_CORE_MEM_H
#define GPUISO_CORE_CORE_MEM_H

#include "common/types.h"
#include "core/core_types.h"

/* The WDDM 2.4 memory callbacks a KMD calls: contiguous memory and MDLs (core/mem.c). */

/* --- WDDM 2.4 memory callbacks (DXGKCB_*) --- */

/**
 * core_alloc_contiguous() - DxgkCbAllocateContiguousMemory: physically
 * contiguous pages, mapped to the IOMMU in one step.
 * @core: the model.
 * @adapter: index.
 * @bytes: size (rounded up to pages).
 * @cache: caching type.
 * @h: out: handle for core_free_contiguous().
 * @logical: out: the device address of its first byte (may be NULL).
 *
 * Return: 0, -EINVAL (no bytes, a caching type the DDI does not define),
 * -ENOMEM, -EPERM (refused: a driver reporting linear remapping, a WDDM
 * 3.2 bugcheck, exclusive access), -ENODEV, -ESHUTDOWN (after a bugcheck).
 */
int core_alloc_contiguous(struct core *core, unsigned int adapter, uint64_t bytes,
			  enum cache_type cache, core_handle_t *h, iova_t *logical);

/**
 * core_free_contiguous() - DxgkCbFreeContiguousMemory.
 * @core, @adapter, @h: as allocated.
 *
 * Return: 0, -EINVAL (not a live allocation of @adapter: a violation says
 * which), or -ENODEV or -ESHUTDOWN as every callback (no adapter, after a bugcheck).
 */
int core_free_contiguous(struct core *core, unsigned int adapter, core_handle_t h);

/**
 * core_alloc_mdl() - DxgkCbAllocatePagesForMdl: pages (not necessarily
 * contiguous) described by an MDL, mapped to the IOMMU in one step.
 * @core: the model.
 * @adapter: index.
 * @bytes: size (rounded up to pages).
 * @h: out: the MDL handle.
 *
 * Return: as core_alloc_contiguous().
 */
int core_alloc_mdl(struct core *core, unsigned int adapter, uint64_t bytes, core_handle_t *h);

/**
 * core_free_mdl() - DxgkCbFreePagesFromMdl.
 * @core, @adapter, @h: the MDL.
 *
 * Return: as core_free_contiguous().
 */
int core_free_mdl(struct core *core, unsigned int adapter, core_handle_t h);

/**
 * core_map_mdl() - DxgkCbMapMdlToIoMmu: map a driver-managed MDL; the MDL
 * must outlive the mapping (unmapping after freeing it is a violation).
 * @core: the model.
 * @adapter: index.
 * @mdl: the MDL.
 * @h: out: the mapping handle.
 * @logical: out: device address of the first page (may be NULL).
 *
 * Return: 0, -EINVAL (not a live MDL of @adapter), -ENOMEM, -EPERM (a
 * deprecated callback refused), or -ENODEV or -ESHUTDOWN as every callback (no adapter, after a bugcheck).
 */
int core_map_mdl(struct core *core, unsigned int adapter, core_handle_t mdl, core_handle_t *h,
		 iova_t *logical);

/**
 * core_driver_mdl_create() - the driver builds an MDL over memory it
 * obtained itself (non-paged: committed and locked), not through a
 * callback: nothing is mapped for the device until core_map_mdl(), which
 * exists to track exactly such MDLs. Freed with core_driver_mdl_free(),
 * never with core_free_mdl().
 * @core: the model.
 * @adapter: index.
 * @bytes: size (rounded up to pages).
 * @h: out: the MDL.
 *
 * Return: 0, -EINVAL (no bytes), -ENOMEM, -ENODEV, -ESHUTDOWN (bugchecked).
 */
int core_driver_mdl_create(struct core *core, unsigned int adapter, uint64_t bytes,
			   core_handle_t *h);

/**
 * core_driver_mdl_free() - the driver frees its own MDL and the memory under
 * it. It must outlive every mapping of it (UNMAP_AFTER_FREE at the unmap).
 * @core: the model.
 * @adapter: index.
 * @h: from core_driver_mdl_create().
 *
 * Return: 0, -EINVAL (BAD_HANDLE: not a live driver MDL of @adapter).
 */
int core_driver_mdl_free(struct core *core, unsigned int adapter, core_handle_t h);

/**
 * core_unmap_mdl() - DxgkCbUnmapMdlFromIoMmu.
 * @core, @adapter, @h: the mapping.
 *
 * Return: as core_free_contiguous().
 */
int core_unmap_mdl(struct core *core, unsigned int adapter, core_handle_t h);

#endif
