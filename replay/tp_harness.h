/* SPDX-License-Identifier: MIT */
/*
 * LTTng-UST provider "gpuiso": the harness's own events (operation results,
 * DMA faults, fault injections, power transitions, verifier violations).
 * docs/trace-events.md describes every field.
 *
 * Include replay/trace.h, not this: only replay/tp.c and replay/trace.c
 * include the provider headers (and only when GPUISO_HAVE_TRACING).
 */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER gpuiso

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "replay/tp_harness.h"

#if !defined(GPUISO_REPLAY_TP_HARNESS_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define GPUISO_REPLAY_TP_HARNESS_H

#ifndef LTTNG_UST_COMPAT_API_VERSION
#define LTTNG_UST_COMPAT_API_VERSION 1
#endif
#include <stdint.h>
#include <lttng/tracepoint.h>

/* One workload operation executed: its result and time. */
LTTNG_UST_TRACEPOINT_EVENT(gpuiso, op,
	LTTNG_UST_TP_ARGS(uint32_t, kind, uint32_t, adapter, uint64_t, id, int, status,
			  uint64_t, latency_ns, uint64_t, modeled_ns, uint64_t, event),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, kind, kind)
		lttng_ust_field_integer(uint32_t, adapter, adapter)
		lttng_ust_field_integer(uint64_t, id, id)
		lttng_ust_field_integer(int, status, status)
		lttng_ust_field_integer(uint64_t, latency_ns, latency_ns)
		lttng_ust_field_integer(uint64_t, modeled_ns, modeled_ns)
		lttng_ust_field_integer(uint64_t, event, event)))

/* A device access the IOMMU blocked, and why (enum core_fault_cause). */
LTTNG_UST_TRACEPOINT_EVENT(gpuiso, dma_fault,
	LTTNG_UST_TP_ARGS(uint32_t, adapter, uint32_t, phys, uint64_t, iova, uint8_t, write,
			  uint8_t, reason, uint32_t, domain, uint8_t, cause, uint64_t, event,
			  uint64_t, by_event),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, adapter, adapter)
		lttng_ust_field_integer(uint32_t, phys, phys)
		lttng_ust_field_integer_hex(uint64_t, iova, iova)
		lttng_ust_field_integer(uint8_t, write, write)
		lttng_ust_field_integer_hex(uint8_t, reason, reason)
		lttng_ust_field_integer(uint32_t, domain, domain)
		lttng_ust_field_integer(uint8_t, cause, cause)
		lttng_ust_field_integer(uint64_t, event, event)
		lttng_ust_field_integer(uint64_t, by_event, by_event)))

/* An injection point returned a failure (enum fp_point). */
LTTNG_UST_TRACEPOINT_EVENT(gpuiso, fault_injected,
	LTTNG_UST_TP_ARGS(int, point),
	LTTNG_UST_TP_FIELDS(lttng_ust_field_integer(int, point, point)))

/* One power transition of one physical adapter and how its VRAM was saved or restored. */
LTTNG_UST_TRACEPOINT_EVENT(gpuiso, power,
	LTTNG_UST_TP_ARGS(uint32_t, adapter, uint32_t, phys, uint32_t, state, uint32_t, path,
			  uint64_t, chunks, uint64_t, bytes, uint8_t, completed, uint64_t, copy_ns),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, adapter, adapter)
		lttng_ust_field_integer(uint32_t, phys, phys)
		lttng_ust_field_integer(uint32_t, state, state)
		lttng_ust_field_integer(uint32_t, path, path)
		lttng_ust_field_integer(uint64_t, chunks, chunks)
		lttng_ust_field_integer(uint64_t, bytes, bytes)
		lttng_ust_field_integer(uint8_t, completed, completed)
		lttng_ust_field_integer(uint64_t, copy_ns, copy_ns)))

/* A rule the verifier saw broken (enum core_violation_code). */
LTTNG_UST_TRACEPOINT_EVENT(gpuiso, violation,
	LTTNG_UST_TP_ARGS(uint32_t, code, uint64_t, event),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, code, code)
		lttng_ust_field_integer(uint64_t, event, event)))

#endif /* GPUISO_REPLAY_TP_HARNESS_H */

#include <lttng/tracepoint-event.h>
