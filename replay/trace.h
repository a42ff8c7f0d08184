/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_REPLAY_TRACE_H
#define GPUISO_REPLAY_TRACE_H

#include "config.h"
#include "core/core.h"
#include "replay/event.h"

/*
 * The tracepoints of gpuiso: the only tracing API the rest of the code uses.
 *
 * Two LTTng-UST providers (docs/trace-events.md): "gpuiso_wl", one event per
 * workload kind with the catalogue's fields (so a recording is a workload
 * trace), and "gpuiso", the harness's own events. Record them with
 * scripts/record.
 *
 * Built without LTTng-UST (GPUISO_HAVE_TRACING == 0, meson -Dtracing=disabled
 * or lttng-ust not found) every function here is an empty static inline.
 * Built with it but with no session enabling an event, a call costs the call
 * and one load and predictable branch: arguments are marshalled only for an
 * enabled event.
 */

#if GPUISO_HAVE_TRACING

/**
 * trace_wl() - emit the gpuiso_wl event of @e->kind with its catalogue fields.
 * @e: the event; an unknown kind emits nothing. The event's time is the
 *     tracer's clock, not @e->ts.
 */
void trace_wl(const struct wl_event *e);

/**
 * trace_op() - gpuiso:op, one workload operation executed.
 * @kind: enum wl_kind of the operation.
 * @adapter: logical adapter.
 * @id: the trace-level id it concerned (0 when none).
 * @status: 0 or a negative errno.
 * @latency_ns: wall time of the operation.
 * @modeled_ns: device time the backend's cost model gave it.
 * @event: index of the workload event.
 */
void trace_op(uint32_t kind, uint32_t adapter, uint64_t id, int status, uint64_t latency_ns,
	      uint64_t modeled_ns, uint64_t event);

/** trace_dma_fault() - gpuiso:dma_fault, a DMA the IOMMU blocked. @f: the fault. */
void trace_dma_fault(const struct core_fault *f);

/** trace_fault_injected() - gpuiso:fault_injected. @point: enum fp_point that failed. */
void trace_fault_injected(int point);

/** trace_power() - gpuiso:power, one power transition. @r: its record. */
void trace_power(const struct core_power_record *r);

/** trace_violation() - gpuiso:violation, one verifier finding. @v: the violation. */
void trace_violation(const struct core_violation *v);

#else /* !GPUISO_HAVE_TRACING */

static inline void trace_wl(const struct wl_event *e)
{
	(void)e;
}

static inline void trace_op(uint32_t kind, uint32_t adapter, uint64_t id, int status,
			    uint64_t latency_ns, uint64_t modeled_ns, uint64_t event)
{
	(void)kind, (void)adapter, (void)id, (void)status;
	(void)latency_ns, (void)modeled_ns, (void)event;
}

static inline void trace_dma_fault(const struct core_fault *f)
{
	(void)f;
}

static inline void trace_fault_injected(int point)
{
	(void)point;
}

static inline void trace_power(const struct core_power_record *r)
{
	(void)r;
}

static inline void trace_violation(const struct core_violation *v)
{
	(void)v;
}

#endif /* GPUISO_HAVE_TRACING */

#endif
