/* SPDX-License-Identifier: MIT */
/*
 * The calls behind replay/trace.h. The probes themselves are in replay/tp.c;
 * without LTTng-UST this file compiles to nothing (trace.h has the no-ops).
 */
#include "config.h"

#if GPUISO_HAVE_TRACING

#define LTTNG_UST_COMPAT_API_VERSION 1
#include "common/child.h"
#include "replay/tp.h"
#include "replay/trace.h"

/*
 * Each kind's tracepoint, to test its enabled state before looking at the
 * event at all. lttng_ust_tracepoint_enabled(gpuiso_wl, NAME) reads
 * lttng_ust_tracepoint_gpuiso_wl___NAME.state: the same object, reached
 * through a table instead of a switch.
 */
static struct lttng_ust_tracepoint *const wl_tp[WL_NKINDS] = {
	[WL_SECURE_VM_CREATE] = &lttng_ust_tracepoint_gpuiso_wl___secure_vm_create,
	[WL_ALLOC_CONTIGUOUS] = &lttng_ust_tracepoint_gpuiso_wl___alloc_contiguous,
	[WL_FREE_CONTIGUOUS] = &lttng_ust_tracepoint_gpuiso_wl___free_contiguous,
	[WL_ALLOC_MDL] = &lttng_ust_tracepoint_gpuiso_wl___alloc_mdl,
	[WL_FREE_MDL] = &lttng_ust_tracepoint_gpuiso_wl___free_mdl,
	[WL_MAP_MDL] = &lttng_ust_tracepoint_gpuiso_wl___map_mdl,
	[WL_UNMAP_MDL] = &lttng_ust_tracepoint_gpuiso_wl___unmap_mdl,
	[WL_PMO_CREATE] = &lttng_ust_tracepoint_gpuiso_wl___pmo_create,
	[WL_PMO_DESTROY] = &lttng_ust_tracepoint_gpuiso_wl___pmo_destroy,
	[WL_ADL_ALLOC] = &lttng_ust_tracepoint_gpuiso_wl___adl_alloc,
	[WL_ADL_FREE] = &lttng_ust_tracepoint_gpuiso_wl___adl_free,
	[WL_ALLOC_CREATE] = &lttng_ust_tracepoint_gpuiso_wl___alloc_create,
	[WL_ALLOC_DESTROY] = &lttng_ust_tracepoint_gpuiso_wl___alloc_destroy,
	[WL_MAP_APERTURE] = &lttng_ust_tracepoint_gpuiso_wl___map_aperture,
	[WL_UNMAP_APERTURE] = &lttng_ust_tracepoint_gpuiso_wl___unmap_aperture,
	[WL_TRANSFER] = &lttng_ust_tracepoint_gpuiso_wl___transfer,
	[WL_FENCE_CREATE] = &lttng_ust_tracepoint_gpuiso_wl___fence_create,
	[WL_FENCE_DESTROY] = &lttng_ust_tracepoint_gpuiso_wl___fence_destroy,
	[WL_DMA] = &lttng_ust_tracepoint_gpuiso_wl___dma,
	[WL_POWER] = &lttng_ust_tracepoint_gpuiso_wl___power,
	[WL_MEMORY] = &lttng_ust_tracepoint_gpuiso_wl___memory,
	[WL_IRQL] = &lttng_ust_tracepoint_gpuiso_wl___irql,
	[WL_DRIVER_MDL_CREATE] = &lttng_ust_tracepoint_gpuiso_wl___driver_mdl_create,
	[WL_DRIVER_MDL_FREE] = &lttng_ust_tracepoint_gpuiso_wl___driver_mdl_free,
	[WL_DMA_RAW] = &lttng_ust_tracepoint_gpuiso_wl___dma_raw,
	[WL_DMA_EXCLUSIVE] = &lttng_ust_tracepoint_gpuiso_wl___dma_exclusive,
	[WL_FB_PIN] = &lttng_ust_tracepoint_gpuiso_wl___fb_pin,
	[WL_FB_UNPIN] = &lttng_ust_tracepoint_gpuiso_wl___fb_unpin,
	[WL_FB_MAP] = &lttng_ust_tracepoint_gpuiso_wl___fb_map,
	[WL_FB_UNMAP] = &lttng_ust_tracepoint_gpuiso_wl___fb_unmap,
	[WL_CPU_ACCESS] = &lttng_ust_tracepoint_gpuiso_wl___cpu_access,
	[WL_PMO_CREATE_IO] = &lttng_ust_tracepoint_gpuiso_wl___pmo_create_io,
	[WL_PMO_MAP_CPU] = &lttng_ust_tracepoint_gpuiso_wl___pmo_map_cpu,
	[WL_PMO_UNMAP_CPU] = &lttng_ust_tracepoint_gpuiso_wl___pmo_unmap_cpu,
	[WL_IOMMU_DISABLE] = &lttng_ust_tracepoint_gpuiso_wl___iommu_disable,
	[WL_FB_SAVE_SIZE] = &lttng_ust_tracepoint_gpuiso_wl___fb_save_size,
};

/* The {adapter, id} events. */
#define WL_AI(name) lttng_ust_do_tracepoint(gpuiso_wl, name, v[WL_ADAPTER], v[WL_ID])

/*
 * The emitting halves live in functions of their own, never inlined: the
 * probe calls want many registers, and some compilers (clang) would otherwise
 * save them all before the enabled test, on the fast path too.
 */
#define EMIT_FN static __attribute__((noinline, cold)) void

EMIT_FN emit_wl(const struct wl_event *e)
{
	const uint64_t *v = e->v;

	switch ((enum wl_kind)e->kind) {
	case WL_SECURE_VM_CREATE:
		lttng_ust_do_tracepoint(gpuiso_wl, secure_vm_create, v[WL_ADAPTER]);
		break;
	case WL_ALLOC_CONTIGUOUS:
		lttng_ust_do_tracepoint(gpuiso_wl, alloc_contiguous, v[WL_ADAPTER], v[WL_ID],
					v[WL_BYTES], v[WL_ARG]);
		break;
	case WL_FREE_CONTIGUOUS:
		WL_AI(free_contiguous);
		break;
	case WL_ALLOC_MDL:
		lttng_ust_do_tracepoint(gpuiso_wl, alloc_mdl, v[WL_ADAPTER], v[WL_ID], v[WL_BYTES]);
		break;
	case WL_FREE_MDL:
		WL_AI(free_mdl);
		break;
	case WL_MAP_MDL:
		lttng_ust_do_tracepoint(gpuiso_wl, map_mdl, v[WL_ADAPTER], v[WL_ID], v[WL_REF]);
		break;
	case WL_UNMAP_MDL:
		WL_AI(unmap_mdl);
		break;
	case WL_PMO_CREATE:
		lttng_ust_do_tracepoint(gpuiso_wl, pmo_create, v[WL_ADAPTER], v[WL_ID], v[WL_BYTES],
					v[WL_ARG]);
		break;
	case WL_PMO_DESTROY:
		WL_AI(pmo_destroy);
		break;
	case WL_ADL_ALLOC:
		lttng_ust_do_tracepoint(gpuiso_wl, adl_alloc, v[WL_ADAPTER], v[WL_ID], v[WL_REF],
					v[WL_OFFSET], v[WL_BYTES]);
		break;
	case WL_ADL_FREE:
		WL_AI(adl_free);
		break;
	case WL_ALLOC_CREATE:
		lttng_ust_do_tracepoint(gpuiso_wl, alloc_create, v[WL_ADAPTER], v[WL_ID],
					v[WL_BYTES], v[WL_ARG], v[WL_FLAGS]);
		break;
	case WL_ALLOC_DESTROY:
		WL_AI(alloc_destroy);
		break;
	case WL_MAP_APERTURE:
		lttng_ust_do_tracepoint(gpuiso_wl, map_aperture, v[WL_ADAPTER], v[WL_ID],
					v[WL_OFFSET], v[WL_BYTES]);
		break;
	case WL_UNMAP_APERTURE:
		WL_AI(unmap_aperture);
		break;
	case WL_TRANSFER:
		lttng_ust_do_tracepoint(gpuiso_wl, transfer, v[WL_ADAPTER], v[WL_ID], v[WL_ARG],
					v[WL_BYTES]);
		break;
	case WL_FENCE_CREATE:
		WL_AI(fence_create);
		break;
	case WL_FENCE_DESTROY:
		WL_AI(fence_destroy);
		break;
	case WL_DMA:
		lttng_ust_do_tracepoint(gpuiso_wl, dma, v[WL_ADAPTER], v[WL_PHYS], v[WL_ID],
					v[WL_OFFSET], v[WL_BYTES], v[WL_ARG]);
		break;
	case WL_POWER:
		lttng_ust_do_tracepoint(gpuiso_wl, power, v[WL_ADAPTER], v[WL_PHYS], v[WL_ARG]);
		break;
	case WL_MEMORY:
		lttng_ust_do_tracepoint(gpuiso_wl, memory, v[WL_OFFSET], v[WL_BYTES]);
		break;
	case WL_IRQL:
		lttng_ust_do_tracepoint(gpuiso_wl, irql, v[WL_ARG]);
		break;
	case WL_DRIVER_MDL_CREATE:
		lttng_ust_do_tracepoint(gpuiso_wl, driver_mdl_create, v[WL_ADAPTER], v[WL_ID],
					v[WL_BYTES]);
		break;
	case WL_DRIVER_MDL_FREE:
		WL_AI(driver_mdl_free);
		break;
	case WL_DMA_RAW:
		lttng_ust_do_tracepoint(gpuiso_wl, dma_raw, v[WL_ADAPTER], v[WL_PHYS], v[WL_OFFSET],
					v[WL_BYTES], v[WL_ARG]);
		break;
	case WL_DMA_EXCLUSIVE:
		lttng_ust_do_tracepoint(gpuiso_wl, dma_exclusive, v[WL_ADAPTER], v[WL_PHYS],
					v[WL_OFFSET], v[WL_BYTES], v[WL_ARG]);
		break;
	case WL_FB_PIN:
		lttng_ust_do_tracepoint(gpuiso_wl, fb_pin, v[WL_ADAPTER], v[WL_ID], v[WL_PHYS],
					v[WL_ARG]);
		break;
	case WL_FB_UNPIN:
		lttng_ust_do_tracepoint(gpuiso_wl, fb_unpin, v[WL_ADAPTER], v[WL_ID], v[WL_ARG]);
		break;
	case WL_FB_MAP:
		lttng_ust_do_tracepoint(gpuiso_wl, fb_map, v[WL_ADAPTER], v[WL_ID], v[WL_PHYS],
					v[WL_ARG], v[WL_OFFSET], v[WL_BYTES]);
		break;
	case WL_FB_UNMAP:
		lttng_ust_do_tracepoint(gpuiso_wl, fb_unmap, v[WL_ADAPTER], v[WL_ID], v[WL_ARG]);
		break;
	case WL_CPU_ACCESS:
		lttng_ust_do_tracepoint(gpuiso_wl, cpu_access, v[WL_ADAPTER], v[WL_ID],
					v[WL_OFFSET], v[WL_BYTES], v[WL_ARG]);
		break;
	case WL_PMO_CREATE_IO:
		lttng_ust_do_tracepoint(gpuiso_wl, pmo_create_io, v[WL_ADAPTER], v[WL_ID],
					v[WL_OFFSET], v[WL_BYTES], v[WL_ARG]);
		break;
	case WL_PMO_MAP_CPU:
		lttng_ust_do_tracepoint(gpuiso_wl, pmo_map_cpu, v[WL_ADAPTER], v[WL_ID], v[WL_REF],
					v[WL_ARG], v[WL_OFFSET], v[WL_BYTES]);
		break;
	case WL_PMO_UNMAP_CPU:
		WL_AI(pmo_unmap_cpu);
		break;
	case WL_IOMMU_DISABLE:
		lttng_ust_do_tracepoint(gpuiso_wl, iommu_disable, v[WL_ADAPTER]);
		break;
	case WL_FB_SAVE_SIZE:
		lttng_ust_do_tracepoint(gpuiso_wl, fb_save_size, v[WL_ADAPTER], v[WL_PHYS],
					v[WL_BYTES]);
		break;
	case WL_NKINDS:
		break;
	}
}

void trace_wl(const struct wl_event *e)
{
	if (caa_unlikely(e->kind < WL_NKINDS && CMM_LOAD_SHARED(wl_tp[e->kind]->state)))
		emit_wl(e);
}

EMIT_FN emit_op(uint32_t kind, uint32_t adapter, uint64_t id, int status, uint64_t latency_ns,
		uint64_t modeled_ns, uint64_t event)
{
	lttng_ust_do_tracepoint(gpuiso, op, kind, adapter, id, status, latency_ns, modeled_ns,
				event);
}

void trace_op(uint32_t kind, uint32_t adapter, uint64_t id, int status, uint64_t latency_ns,
	      uint64_t modeled_ns, uint64_t event)
{
	if (lttng_ust_tracepoint_enabled(gpuiso, op))
		emit_op(kind, adapter, id, status, latency_ns, modeled_ns, event);
}

EMIT_FN emit_dma_fault(const struct core_fault *f)
{
	lttng_ust_do_tracepoint(gpuiso, dma_fault, f->adapter, f->phys, f->iova,
				(uint8_t)f->write, f->reason, f->domain, f->cause, f->event,
				f->by_event);
}

void trace_dma_fault(const struct core_fault *f)
{
	if (lttng_ust_tracepoint_enabled(gpuiso, dma_fault))
		emit_dma_fault(f);
}

EMIT_FN emit_fault_injected(int point)
{
	lttng_ust_do_tracepoint(gpuiso, fault_injected, point);
}

void trace_fault_injected(int point)
{
	if (lttng_ust_tracepoint_enabled(gpuiso, fault_injected))
		emit_fault_injected(point);
}

EMIT_FN emit_power(const struct core_power_record *r)
{
	lttng_ust_do_tracepoint(gpuiso, power, r->adapter, r->phys, (uint32_t)r->to,
				(uint32_t)r->path, r->chunks, r->bytes, (uint8_t)r->completed,
				r->copy_ns);
}

void trace_power(const struct core_power_record *r)
{
	if (lttng_ust_tracepoint_enabled(gpuiso, power))
		emit_power(r);
}

EMIT_FN emit_violation(const struct core_violation *v)
{
	lttng_ust_do_tracepoint(gpuiso, violation, (uint32_t)v->code, v->event);
}

void trace_violation(const struct core_violation *v)
{
	if (lttng_ust_tracepoint_enabled(gpuiso, violation))
		emit_violation(v);
}

/* Whether any tracepoint of gpuiso's is enabled: this process is being recorded. */
static bool trace_recording(void)
{
	for (size_t k = 0; k < WL_NKINDS; k++)
		if (wl_tp[k] && CMM_LOAD_SHARED(wl_tp[k]->state))
			return true;
	return lttng_ust_tracepoint_enabled(gpuiso, op) ||
	       lttng_ust_tracepoint_enabled(gpuiso, dma_fault) ||
	       lttng_ust_tracepoint_enabled(gpuiso, fault_injected) ||
	       lttng_ust_tracepoint_enabled(gpuiso, power) ||
	       lttng_ust_tracepoint_enabled(gpuiso, violation);
}

/* A forked child is started as a traced process of its own only while recording (child.h). */
static void __attribute__((constructor)) trace_tell_fork(void)
{
	child_fork_set_traced(trace_recording);
}

#else

/* ISO C wants at least one declaration in a translation unit. */
typedef int trace_compiled_out_t;

#endif
