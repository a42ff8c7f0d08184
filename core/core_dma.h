/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_CORE_CORE_DMA_H
#define GPUISO_CORE_CORE_DMA_H

#include "common/types.h"
#include "core/core_types.h"
#include "hw/iommu.h"

/*
 * What the GPU does with memory: DMA through a handle, at an address of its
 * own, through a freed handle or inside exclusive access, copy-engine jobs,
 * and the device address of a handle (core/vidmm.c, core/rogue.c).
 */

/**
 * core_dma() - the GPU of physical adapter @phys reads or writes memory
 * behind a handle (any kind the GPU can address).
 * @core: the model.
 * @adapter: index.
 * @phys: physical adapter.
 * @h: target.
 * @offset: byte offset in it.
 * @bytes: length.
 * @write: true: the device writes system memory.
 *
 * Return: 0, -EFAULT when the IOMMU blocked it (a core_fault is recorded),
 * -EINVAL, -EPERM (exclusive access).
 */
int core_dma(struct core *core, unsigned int adapter, unsigned int phys, core_handle_t h,
	     uint64_t offset, uint64_t bytes, bool write);

/**
 * core_dma_raw() - the GPU of physical adapter @phys reads or writes at a
 * device address of its own choosing, through no handle: a device gone rogue.
 * @core: the model.
 * @adapter: index.
 * @phys: physical adapter.
 * @address: the address the device issues (in 1:1 mode a physical address,
 *           in logical mode a logical one; with no domain, physical).
 * @bytes: length.
 * @write: true: the device writes system memory.
 *
 * What the IOMMU blocks is recorded as core_faults(); what reaches memory
 * with no domain in between, as core_exposures().
 *
 * Return: 0, -EFAULT (blocked), -EINVAL (no bytes, or more than the GPU's
 * VRAM), -ENOENT, -ENODEV (not started), -EPERM (scheduler suspended), -ERANGE
 * (beyond what the device can address).
 */
int core_dma_raw(struct core *core, unsigned int adapter, unsigned int phys, uint64_t address,
		 uint64_t bytes, bool write);

/**
 * core_dma_stale() - a DMA through a handle that is no longer live: the
 * device still holds the addresses the object had, and uses them.
 * @core: the model.
 * @adapter: index.
 * @phys: physical adapter.
 * @h: the handle as it was given (now freed).
 * @offset: byte offset in the object.
 * @bytes: length.
 * @write: true: the device writes system memory.
 *
 * The model remembers the device addresses of the last CORE_TOMBS objects
 * freed. A DMA the IOMMU lets through to an address mapped again since is
 * an exposure (CORE_EXPOSED_STALE); with no domain, CORE_EXPOSED_NO_DOMAIN.
 *
 * Return: as core_dma_raw(), and -ENOENT when @h is not among the objects
 * remembered, -ERANGE when @offset + @bytes runs past the object.
 */
int core_dma_stale(struct core *core, unsigned int adapter, unsigned int phys, core_handle_t h,
		   uint64_t offset, uint64_t bytes, bool write);

/**
 * core_dma_exclusive() - the GPU of physical adapter @phys will read or write
 * at @address inside its adapter's next exclusive access (the bracket of a
 * domain attach or detach), where the hardware must be silent.
 * @core: the model.
 * @adapter: index.
 * @phys: physical adapter.
 * @address: the device address (as core_dma_raw()).
 * @bytes: length.
 * @write: true: the device writes system memory.
 *
 * At DxgkDdiBeginExclusiveAccess the device issues it, before its domain
 * changes: a DMA_IN_EXCLUSIVE violation, and what the IOMMU blocks is a
 * fault of cause CORE_FAULT_SWITCH. With no exclusive access before the
 * adapter stops (no domain to detach), the device issues it as it stops.
 *
 * Return: 0 (armed), -ENOENT, -ENODEV (not started), -EINVAL, -ERANGE, -ENOMEM.
 */
int core_dma_exclusive(struct core *core, unsigned int adapter, unsigned int phys,
		       uint64_t address, uint64_t bytes, bool write);

/* How many freed objects core_dma_stale() can still reach. */
#define CORE_TOMBS 4096


/**
 * core_gpu_copy() - submit copy-engine jobs on a physical adapter and wait
 * for them: VRAM <-> the memory behind handle @h (split where its device
 * addresses are not contiguous).
 * @core: the model.
 * @adapter: index.
 * @phys: physical adapter.
 * @dir: HW_COPY_TO_SYSTEM or HW_COPY_FROM_SYSTEM.
 * @vram_off: VRAM offset.
 * @h: the system-side memory (any handle with pages).
 * @offset: byte offset in it.
 * @bytes: length.
 *
 * Return: 0, -EFAULT (blocked: faults recorded), -EPERM (scheduler
 * suspended), -EIO (device off or injected), -EINVAL, -ERANGE.
 */
int core_gpu_copy(struct core *core, unsigned int adapter, unsigned int phys,
		  enum hw_copy_dir dir, uint64_t vram_off, core_handle_t h, uint64_t offset,
		  uint64_t bytes);

/**
 * core_handle_iova() - device address of byte @offset of a handle's memory.
 * @core: the model.
 * @h: any handle with pages (MDL, contiguous memory, ADL, fence, allocation...).
 * @offset: byte offset.
 * @iova: out.
 *
 * Return: 0, -EINVAL (no device-visible memory), -ERANGE.
 */
int core_handle_iova(struct core *core, core_handle_t h, uint64_t offset, iova_t *iova);

#endif
