/* SPDX-License-Identifier: MIT */
/*
 * LTTng-UST provider "gpuiso_wl": the workload events, one per kind of the
 * catalogue (replay/event.c), with the catalogue's field names in its order,
 * every field an unsigned 64-bit integer. A recording of these events is
 * read by the same code as a trace written by `trace gen`.
 * docs/trace-events.md describes every field.
 *
 * Include replay/trace.h, not this: only replay/tp.c and replay/trace.c
 * include the provider headers (and only when GPUISO_HAVE_TRACING).
 */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER gpuiso_wl

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "replay/tp_wl.h"

#if !defined(GPUISO_REPLAY_TP_WL_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define GPUISO_REPLAY_TP_WL_H

#ifndef LTTNG_UST_COMPAT_API_VERSION
#define LTTNG_UST_COMPAT_API_VERSION 1
#endif
#include <stdint.h>
#include <lttng/tracepoint.h>

/* Helpers for the common shapes; each field is lttng_ust_field_integer(uint64_t, ...). */
#define GPUISO_WL_F(name) lttng_ust_field_integer(uint64_t, name, name)

LTTNG_UST_TRACEPOINT_EVENT(gpuiso_wl, secure_vm_create,
	LTTNG_UST_TP_ARGS(uint64_t, adapter),
	LTTNG_UST_TP_FIELDS(GPUISO_WL_F(adapter)))

LTTNG_UST_TRACEPOINT_EVENT(gpuiso_wl, alloc_contiguous,
	LTTNG_UST_TP_ARGS(uint64_t, adapter, uint64_t, id, uint64_t, bytes, uint64_t, cache),
	LTTNG_UST_TP_FIELDS(GPUISO_WL_F(adapter) GPUISO_WL_F(id) GPUISO_WL_F(bytes)
			    GPUISO_WL_F(cache)))

/* The events that only name an object: {adapter, id}. */
LTTNG_UST_TRACEPOINT_EVENT_CLASS(gpuiso_wl, adapter_id,
	LTTNG_UST_TP_ARGS(uint64_t, adapter, uint64_t, id),
	LTTNG_UST_TP_FIELDS(GPUISO_WL_F(adapter) GPUISO_WL_F(id)))

#define GPUISO_WL_ADAPTER_ID(ev)                                             \
	LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(gpuiso_wl, adapter_id, gpuiso_wl, ev, \
		LTTNG_UST_TP_ARGS(uint64_t, adapter, uint64_t, id))

GPUISO_WL_ADAPTER_ID(free_contiguous)

LTTNG_UST_TRACEPOINT_EVENT(gpuiso_wl, alloc_mdl,
	LTTNG_UST_TP_ARGS(uint64_t, adapter, uint64_t, id, uint64_t, bytes),
	LTTNG_UST_TP_FIELDS(GPUISO_WL_F(adapter) GPUISO_WL_F(id) GPUISO_WL_F(bytes)))

GPUISO_WL_ADAPTER_ID(free_mdl)

LTTNG_UST_TRACEPOINT_EVENT(gpuiso_wl, map_mdl,
	LTTNG_UST_TP_ARGS(uint64_t, adapter, uint64_t, id, uint64_t, mdl),
	LTTNG_UST_TP_FIELDS(GPUISO_WL_F(adapter) GPUISO_WL_F(id) GPUISO_WL_F(mdl)))

GPUISO_WL_ADAPTER_ID(unmap_mdl)

LTTNG_UST_TRACEPOINT_EVENT(gpuiso_wl, pmo_create,
	LTTNG_UST_TP_ARGS(uint64_t, adapter, uint64_t, id, uint64_t, bytes, uint64_t, cache),
	LTTNG_UST_TP_FIELDS(GPUISO_WL_F(adapter) GPUISO_WL_F(id) GPUISO_WL_F(bytes)
			    GPUISO_WL_F(cache)))

GPUISO_WL_ADAPTER_ID(pmo_destroy)

LTTNG_UST_TRACEPOINT_EVENT(gpuiso_wl, adl_alloc,
	LTTNG_UST_TP_ARGS(uint64_t, adapter, uint64_t, id, uint64_t, pmo, uint64_t, offset,
			  uint64_t, bytes),
	LTTNG_UST_TP_FIELDS(GPUISO_WL_F(adapter) GPUISO_WL_F(id) GPUISO_WL_F(pmo)
			    GPUISO_WL_F(offset) GPUISO_WL_F(bytes)))

GPUISO_WL_ADAPTER_ID(adl_free)

LTTNG_UST_TRACEPOINT_EVENT(gpuiso_wl, alloc_create,
	LTTNG_UST_TP_ARGS(uint64_t, adapter, uint64_t, id, uint64_t, bytes, uint64_t, segment,
			  uint64_t, flags),
	LTTNG_UST_TP_FIELDS(GPUISO_WL_F(adapter) GPUISO_WL_F(id) GPUISO_WL_F(bytes)
			    GPUISO_WL_F(segment) GPUISO_WL_F(flags)))

GPUISO_WL_ADAPTER_ID(alloc_destroy)

LTTNG_UST_TRACEPOINT_EVENT(gpuiso_wl, map_aperture,
	LTTNG_UST_TP_ARGS(uint64_t, adapter, uint64_t, id, uint64_t, offset_pages,
			  uint64_t, pages),
	LTTNG_UST_TP_FIELDS(GPUISO_WL_F(adapter) GPUISO_WL_F(id) GPUISO_WL_F(offset_pages)
			    GPUISO_WL_F(pages)))

GPUISO_WL_ADAPTER_ID(unmap_aperture)

LTTNG_UST_TRACEPOINT_EVENT(gpuiso_wl, transfer,
	LTTNG_UST_TP_ARGS(uint64_t, adapter, uint64_t, id, uint64_t, dir, uint64_t, bytes),
	LTTNG_UST_TP_FIELDS(GPUISO_WL_F(adapter) GPUISO_WL_F(id) GPUISO_WL_F(dir)
			    GPUISO_WL_F(bytes)))

GPUISO_WL_ADAPTER_ID(fence_create)
GPUISO_WL_ADAPTER_ID(fence_destroy)

LTTNG_UST_TRACEPOINT_EVENT(gpuiso_wl, dma,
	LTTNG_UST_TP_ARGS(uint64_t, adapter, uint64_t, phys, uint64_t, id, uint64_t, offset,
			  uint64_t, bytes, uint64_t, write),
	LTTNG_UST_TP_FIELDS(GPUISO_WL_F(adapter) GPUISO_WL_F(phys) GPUISO_WL_F(id)
			    GPUISO_WL_F(offset) GPUISO_WL_F(bytes) GPUISO_WL_F(write)))

LTTNG_UST_TRACEPOINT_EVENT(gpuiso_wl, power,
	LTTNG_UST_TP_ARGS(uint64_t, adapter, uint64_t, phys, uint64_t, state),
	LTTNG_UST_TP_FIELDS(GPUISO_WL_F(adapter) GPUISO_WL_F(phys) GPUISO_WL_F(state)))

LTTNG_UST_TRACEPOINT_EVENT(gpuiso_wl, memory,
	LTTNG_UST_TP_ARGS(uint64_t, commit_available, uint64_t, lockable_available),
	LTTNG_UST_TP_FIELDS(GPUISO_WL_F(commit_available) GPUISO_WL_F(lockable_available)))

LTTNG_UST_TRACEPOINT_EVENT(gpuiso_wl, irql,
	LTTNG_UST_TP_ARGS(uint64_t, level),
	LTTNG_UST_TP_FIELDS(GPUISO_WL_F(level)))

LTTNG_UST_TRACEPOINT_EVENT(gpuiso_wl, driver_mdl_create,
	LTTNG_UST_TP_ARGS(uint64_t, adapter, uint64_t, id, uint64_t, bytes),
	LTTNG_UST_TP_FIELDS(GPUISO_WL_F(adapter) GPUISO_WL_F(id) GPUISO_WL_F(bytes)))

GPUISO_WL_ADAPTER_ID(driver_mdl_free)

LTTNG_UST_TRACEPOINT_EVENT_CLASS(gpuiso_wl, device_dma,
	LTTNG_UST_TP_ARGS(uint64_t, adapter, uint64_t, phys, uint64_t, address, uint64_t, bytes,
			  uint64_t, write),
	LTTNG_UST_TP_FIELDS(GPUISO_WL_F(adapter) GPUISO_WL_F(phys) GPUISO_WL_F(address)
			    GPUISO_WL_F(bytes) GPUISO_WL_F(write)))

#define GPUISO_WL_DEVICE_DMA(ev)                                             \
	LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(gpuiso_wl, device_dma, gpuiso_wl, ev, \
		LTTNG_UST_TP_ARGS(uint64_t, adapter, uint64_t, phys, uint64_t, address, \
				  uint64_t, bytes, uint64_t, write))

GPUISO_WL_DEVICE_DMA(dma_raw)
GPUISO_WL_DEVICE_DMA(dma_exclusive)
LTTNG_UST_TRACEPOINT_EVENT(gpuiso_wl, fb_pin,
	LTTNG_UST_TP_ARGS(uint64_t, adapter, uint64_t, id, uint64_t, phys, uint64_t, hadapter),
	LTTNG_UST_TP_FIELDS(GPUISO_WL_F(adapter) GPUISO_WL_F(id) GPUISO_WL_F(phys)
			    GPUISO_WL_F(hadapter)))

/* The events that release a frame-buffer save object: {adapter, id, hadapter}. */
LTTNG_UST_TRACEPOINT_EVENT_CLASS(gpuiso_wl, adapter_id_hadapter,
	LTTNG_UST_TP_ARGS(uint64_t, adapter, uint64_t, id, uint64_t, hadapter),
	LTTNG_UST_TP_FIELDS(GPUISO_WL_F(adapter) GPUISO_WL_F(id) GPUISO_WL_F(hadapter)))

LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(gpuiso_wl, adapter_id_hadapter, gpuiso_wl, fb_unpin,
	LTTNG_UST_TP_ARGS(uint64_t, adapter, uint64_t, id, uint64_t, hadapter))

LTTNG_UST_TRACEPOINT_EVENT(gpuiso_wl, fb_map,
	LTTNG_UST_TP_ARGS(uint64_t, adapter, uint64_t, id, uint64_t, phys, uint64_t, hadapter,
			  uint64_t, offset, uint64_t, bytes),
	LTTNG_UST_TP_FIELDS(GPUISO_WL_F(adapter) GPUISO_WL_F(id) GPUISO_WL_F(phys)
			    GPUISO_WL_F(hadapter) GPUISO_WL_F(offset) GPUISO_WL_F(bytes)))

LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(gpuiso_wl, adapter_id_hadapter, gpuiso_wl, fb_unmap,
	LTTNG_UST_TP_ARGS(uint64_t, adapter, uint64_t, id, uint64_t, hadapter))

LTTNG_UST_TRACEPOINT_EVENT(gpuiso_wl, cpu_access,
	LTTNG_UST_TP_ARGS(uint64_t, adapter, uint64_t, id, uint64_t, offset, uint64_t, bytes,
			  uint64_t, write),
	LTTNG_UST_TP_FIELDS(GPUISO_WL_F(adapter) GPUISO_WL_F(id) GPUISO_WL_F(offset)
			    GPUISO_WL_F(bytes) GPUISO_WL_F(write)))

LTTNG_UST_TRACEPOINT_EVENT(gpuiso_wl, pmo_create_io,
	LTTNG_UST_TP_ARGS(uint64_t, adapter, uint64_t, id, uint64_t, base, uint64_t, bytes,
			  uint64_t, cache),
	LTTNG_UST_TP_FIELDS(GPUISO_WL_F(adapter) GPUISO_WL_F(id) GPUISO_WL_F(base)
			    GPUISO_WL_F(bytes) GPUISO_WL_F(cache)))

LTTNG_UST_TRACEPOINT_EVENT(gpuiso_wl, pmo_map_cpu,
	LTTNG_UST_TP_ARGS(uint64_t, adapter, uint64_t, id, uint64_t, pmo, uint64_t, mode,
			  uint64_t, offset, uint64_t, bytes),
	LTTNG_UST_TP_FIELDS(GPUISO_WL_F(adapter) GPUISO_WL_F(id) GPUISO_WL_F(pmo)
			    GPUISO_WL_F(mode) GPUISO_WL_F(offset) GPUISO_WL_F(bytes)))

GPUISO_WL_ADAPTER_ID(pmo_unmap_cpu)

LTTNG_UST_TRACEPOINT_EVENT(gpuiso_wl, iommu_disable,
	LTTNG_UST_TP_ARGS(uint64_t, adapter),
	LTTNG_UST_TP_FIELDS(GPUISO_WL_F(adapter)))
LTTNG_UST_TRACEPOINT_EVENT(gpuiso_wl, fb_save_size,
	LTTNG_UST_TP_ARGS(uint64_t, adapter, uint64_t, phys, uint64_t, bytes),
	LTTNG_UST_TP_FIELDS(GPUISO_WL_F(adapter) GPUISO_WL_F(phys) GPUISO_WL_F(bytes)))

#endif /* GPUISO_REPLAY_TP_WL_H */

#include <lttng/tracepoint-event.h>
