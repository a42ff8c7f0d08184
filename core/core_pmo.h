/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_CORE_CORE_PMO_H
#define GPUISO_CORE_CORE_PMO_H

#include "common/types.h"
#include "core/core_types.h"

/*
 * The WDDM 3.0 memory services a KMD calls: physical memory objects, their
 * CPU views and ADLs, and the CPU's access through a handle (core/pmo.c).
 */

/* DXGK_ACCESS_MODE: whom a CPU view of a PMO is mapped for. */
enum cpu_access {
	CPU_KERNEL = 0,
	CPU_USER = 1,
};

/*
 * --- WDDM 3.0 memory management services ---
 * Each refuses a driver of a WDDM version before 3.0 (-EPERM, a CB_VERSION
 * violation): the services are WDDM 3.0's.
 */

/**
 * core_pmo_create() - create a physical memory object over system memory
 * (pages committed and allocated, not locked).
 * @core: the model.
 * @adapter: index.
 * @bytes: size (rounded up to pages).
 * @cache: caching type of its CPU views (DXGK_MEMORY_CACHING_TYPE).
 * @h: out: the PMO.
 *
 * Return: 0, -EINVAL (no bytes, a caching type the DDI does not define),
 * -ENOMEM, -EPERM, -ENODEV.
 */
int core_pmo_create(struct core *core, unsigned int adapter, uint64_t bytes,
		    enum cache_type cache, core_handle_t *h);
/**
 * core_pmo_create_io() - create a physical memory object over a range of IO
 * space the driver provides (DXGK_PHYSICAL_MEMORY_TYPE_IO_SPACE): device
 * memory, not RAM, so nothing is committed, allocated or locked; an ADL
 * maps it for the GPU and CPU views map it for the CPU.
 * @core: the model.
 * @adapter: index.
 * @base: physical address of the range (page aligned).
 * @bytes: its size (whole pages).
 * @cache: caching type of its CPU views.
 * @h: out: the PMO.
 *
 * Return: 0, -EINVAL (unaligned, empty, beyond the address space, a caching
 * type the DDI does not define), -EFAULT (the range overlaps installed
 * memory: that is RAM, not IO space), -EPERM, -ENODEV.
 */
int core_pmo_create_io(struct core *core, unsigned int adapter, uint64_t base, uint64_t bytes,
		       enum cache_type cache, core_handle_t *h);
/**
 * core_pmo_destroy() - destroy a PMO with nothing outstanding on it.
 * @core, @adapter, @h: the PMO.
 *
 * Return: 0, -EINVAL (not a live PMO of @adapter), -EBUSY (opened, viewed
 * or mapped still), or -ENODEV or -ESHUTDOWN as every callback (no adapter, after a bugcheck).
 */
int core_pmo_destroy(struct core *core, unsigned int adapter, core_handle_t h);
/**
 * core_pmo_open() - another reference to a PMO.
 * @core, @adapter, @pmo: the PMO.
 * @h: out: the reference.
 *
 * Return: 0, -EINVAL (not a live PMO of @adapter), -ENOMEM, or -ENODEV or -ESHUTDOWN as every callback (no adapter, after a bugcheck).
 */
int core_pmo_open(struct core *core, unsigned int adapter, core_handle_t pmo, core_handle_t *h);
/**
 * core_pmo_close() - drop a reference from core_pmo_open().
 * @core, @adapter, @h: the reference.
 *
 * Return: as core_free_contiguous().
 */
int core_pmo_close(struct core *core, unsigned int adapter, core_handle_t h);

/**
 * core_pmo_map_cpu() - DxgkCbMapPhysicalMemory: map a CPU view of part of a
 * PMO, for kernel or user mode, with the PMO's caching type. The view
 * covers the whole pages around [@offset, @offset + @bytes): the requested
 * data starts core_view_info().start bytes into it.
 * @core: the model.
 * @adapter: index.
 * @pmo: the PMO.
 * @mode: CPU_KERNEL or CPU_USER.
 * @offset: byte offset in the PMO.
 * @bytes: length (not 0).
 * @h: out: the view.
 *
 * Return: 0, -ERANGE (outside the PMO), -EINVAL, -EPERM, -ENODEV.
 */
int core_pmo_map_cpu(struct core *core, unsigned int adapter, core_handle_t pmo,
		     enum cpu_access mode, uint64_t offset, uint64_t bytes, core_handle_t *h);

/* A CPU view as the driver holds it. */
struct core_view_info {
	enum cpu_access mode;   /* kernel or user mode */
	enum cache_type cache;  /* its PMO's (a frame-buffer chunk: write-combined) */
	bool io_space;          /* it maps IO space, not RAM */
	uint64_t start;         /* where the requested bytes begin in it */
	uint64_t bytes;         /* mapped size: whole pages */
};

/**
 * core_view_info() - what a CPU view maps and how.
 * @core: the model.
 * @h: a CPU view (of a PMO, a frame-buffer chunk or an aperture mapping).
 * @info: out.
 *
 * Return: 0, or -EINVAL when @h is not a live view.
 */
int core_view_info(struct core *core, core_handle_t h, struct core_view_info *info);
/**
 * core_pmo_unmap_cpu() - drop a view.
 * @core, @adapter, @h: the view.
 *
 * Return: as core_free_contiguous().
 */
int core_pmo_unmap_cpu(struct core *core, unsigned int adapter, core_handle_t h);

/**
 * core_view_rw() - CPU access through a handle with a CPU address: a CPU
 * view (of a PMO, a frame-buffer chunk, an aperture mapping), an MDL,
 * contiguous memory, an allocation's or fence's memory.
 * @core: the model.
 * @h: the view.
 * @offset: byte offset in the view.
 * @buf: data.
 * @len: bytes.
 * @write: direction.
 *
 * Return: 0; -EPERM with a CPU_ACCESS violation for an ADL, an MDL's
 * IOMMU mapping or a PMO (no CPU address); -EINVAL for a handle that is not
 * live.
 */
int core_view_rw(struct core *core, core_handle_t h, uint64_t offset, void *buf, uint64_t len,
		 bool write);

/**
 * core_cpu_access() - the driver's CPU reads or writes memory through the
 * CPU address it holds for a handle: contiguous memory, an MDL (Dxgkrnl's
 * or its own), a CPU view (of a PMO, a frame-buffer chunk), a pinned save
 * area, a monitored fence; for a VidMm allocation, its CpuVisibleAddress
 * (MapApertureSegment2 with MapApertureCpuVisible), valid only while the
 * allocation is mapped into the aperture segment. Not a callback: no IRQL
 * or exclusive-access gate. A write stores a byte pattern of the event.
 * @core: the model.
 * @adapter: index.
 * @h: the handle, of @adapter.
 * @offset: byte offset in the memory the CPU address maps (an allocation:
 *          from its CpuVisibleAddress).
 * @bytes: length (not 0).
 * @write: direction.
 *
 * Return: 0; -EPERM with a CPU_ACCESS violation when @h gives the CPU no
 * address (an ADL, an MDL's IOMMU mapping, a PMO or an open handle of it,
 * an allocation that is not mapped with a CpuVisibleAddress now: never,
 * without MapApertureCpuVisible, or after the unmap freed it); -ERANGE
 * (beyond what it maps); -EINVAL (no bytes; with BAD_HANDLE: not live, or
 * another adapter's); -ENODEV; -ESHUTDOWN (bugchecked).
 */
int core_cpu_access(struct core *core, unsigned int adapter, core_handle_t h, uint64_t offset,
		    uint64_t bytes, bool write);

/**
 * core_adl_alloc() - lock part of a PMO for the GPU and describe it by an ADL:
 * logical pages (one contiguous run) in logical-remap mode, physical pages
 * otherwise. Locked and mapped for the ADL's lifetime.
 * @core: the model.
 * @adapter: index.
 * @pmo: the PMO.
 * @offset: byte offset, page aligned.
 * @bytes: length.
 * @h: out: the ADL.
 *
 * Return: 0, -ERANGE (outside the PMO), -ENOSPC (no logical range free below
 * the device's limit), -ENOMEM (cannot lock or map), -EPERM, -ENODEV.
 */
int core_adl_alloc(struct core *core, unsigned int adapter, core_handle_t pmo, uint64_t offset,
		   uint64_t bytes, core_handle_t *h);
/**
 * core_adl_free() - unlock and unmap an ADL.
 * @core, @adapter, @h: the ADL.
 *
 * Return: as core_free_contiguous().
 */
int core_adl_free(struct core *core, unsigned int adapter, core_handle_t h);

struct core_adl_info {
	bool logical;    /* addresses are logical */
	bool contiguous; /* one run */
	iova_t base;     /* device address of the first page */
	uint64_t pages;
};
/**
 * core_adl_info() - describe an ADL.
 * @core, @h: the ADL.
 * @info: out.
 *
 * Return: 0, or -EINVAL when @h is not a live ADL.
 */
int core_adl_info(struct core *core, core_handle_t h, struct core_adl_info *info);

/**
 * core_view_copy() - CPU copy between the memory of two handles (what a
 * driver's RtlCopyMemory between two mapped buffers does).
 * @core: the model.
 * @dst: destination handle.
 * @dst_off: byte offset in it.
 * @src: source handle.
 * @src_off: byte offset in it.
 * @bytes: length.
 *
 * Return: as core_view_rw(), for either handle.
 */
int core_view_copy(struct core *core, core_handle_t dst, uint64_t dst_off, core_handle_t src,
		   uint64_t src_off, uint64_t bytes);

#endif
