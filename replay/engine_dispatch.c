/* SPDX-License-Identifier: MIT */
/* The model call for each kind of event, the format's values as the model's. */
#include <errno.h>

#include "replay/engine_internal.h"

/*
 * The trace format's values (replay/event.h) as the model's. A value the
 * format does not define becomes one the model does not either, and the
 * model refuses it: the refusal is the trace's finding.
 */
static enum cache_type model_cache(uint64_t v)
{
	return v == WL_CACHE_NONCACHED ? CACHE_NONCACHED : v == WL_CACHE_CACHED ? CACHE_CACHED
	       : v == WL_CACHE_WRITECOMBINED ? CACHE_WRITECOMBINED
					      : (enum cache_type)(CACHE_WRITECOMBINED + 1);
}

static enum core_segment model_segment(uint64_t v)
{
	return v == WL_SEG_VRAM ? CORE_SEG_VRAM : v == WL_SEG_APERTURE ? CORE_SEG_APERTURE
	       : v == WL_SEG_SYSTEM ? CORE_SEG_SYSTEM : (enum core_segment)(CORE_SEG_SYSTEM + 1);
}

/* The two flags the format defines, mapped; its reserved bits pass on as they are (ignored). */
static uint32_t model_alloc_flags(uint64_t v)
{
	const uint64_t known = WL_ALLOC_ACCESSED_PHYSICALLY | WL_ALLOC_MAP_APERTURE_CPU_VISIBLE;

	return (v & WL_ALLOC_ACCESSED_PHYSICALLY ? ALLOC_ACCESSED_PHYSICALLY : 0) |
	       (v & WL_ALLOC_MAP_APERTURE_CPU_VISIBLE ? ALLOC_MAP_APERTURE_CPU_VISIBLE : 0) |
	       (uint32_t)(v & ~known);
}

static enum transfer_dir model_dir(uint64_t v)
{
	return v == WL_DIR_TO_VRAM ? TRANSFER_TO_VRAM : v == WL_DIR_FROM_VRAM ? TRANSFER_FROM_VRAM
	       : (enum transfer_dir)(TRANSFER_FROM_VRAM + 1);
}

static enum cpu_access model_access(uint64_t v)
{
	return v == WL_ACCESS_KERNEL ? CPU_KERNEL : v == WL_ACCESS_USER ? CPU_USER
	       : (enum cpu_access)(CPU_USER + 1);
}

/* The physical adapter whose hAdapter a frame-buffer callback was given (none: never the lead). */
static unsigned int model_hadapter(uint64_t v)
{
	return v > UINT32_MAX ? UINT32_MAX : (unsigned int)v;
}

static enum power_state model_power(uint64_t v)
{
	/* D1 is a state the model does not take: refused */
	return v == WL_POWER_D0 ? POWER_D0 : v == WL_POWER_D3 ? POWER_D3 : (enum power_state)1;
}

int engine_dispatch(struct replay_engine *e, const struct wl_event *ev, core_handle_t target,
		    bool target_dead, core_handle_t ref, core_handle_t *h)
{
	struct core *c = e->core;
	unsigned int a = (unsigned int)ev->v[WL_ADAPTER], p = (unsigned int)ev->v[WL_PHYS];
	const uint64_t *v = ev->v;

	switch (ev->kind) {
	case WL_SECURE_VM_CREATE: return core_secure_vm_create(c, a);
	case WL_ALLOC_CONTIGUOUS:
		return core_alloc_contiguous(c, a, v[WL_BYTES], model_cache(v[WL_ARG]), h, NULL);
	case WL_FREE_CONTIGUOUS: return core_free_contiguous(c, a, target);
	case WL_ALLOC_MDL: return core_alloc_mdl(c, a, v[WL_BYTES], h);
	case WL_FREE_MDL: return core_free_mdl(c, a, target);
	case WL_MAP_MDL: return core_map_mdl(c, a, ref, h, NULL);
	case WL_UNMAP_MDL: return core_unmap_mdl(c, a, target);
	case WL_PMO_CREATE: return core_pmo_create(c, a, v[WL_BYTES], model_cache(v[WL_ARG]), h);
	case WL_PMO_DESTROY: return core_pmo_destroy(c, a, target);
	case WL_ADL_ALLOC: return core_adl_alloc(c, a, ref, v[WL_OFFSET], v[WL_BYTES], h);
	case WL_ADL_FREE: return core_adl_free(c, a, target);
	case WL_ALLOC_CREATE:
		return core_alloc_create(c, a, v[WL_BYTES], model_segment(v[WL_ARG]),
					 model_alloc_flags(v[WL_FLAGS]), h);
	case WL_ALLOC_DESTROY: return core_alloc_destroy(c, a, target);
	case WL_MAP_APERTURE: return core_map_aperture(c, a, target, v[WL_OFFSET], v[WL_BYTES]);
	case WL_UNMAP_APERTURE: return core_unmap_aperture(c, a, target);
	case WL_TRANSFER:
		return core_transfer(c, a, target, model_dir(v[WL_ARG]), v[WL_BYTES]);
	case WL_FENCE_CREATE: return core_fence_create(c, a, h);
	case WL_FENCE_DESTROY: return core_fence_destroy(c, a, target);
	case WL_DMA:
		if (target_dead)
			return core_dma_stale(c, a, p, target, v[WL_OFFSET], v[WL_BYTES],
					      v[WL_ARG] != 0);
		return core_dma(c, a, p, target, v[WL_OFFSET], v[WL_BYTES], v[WL_ARG] != 0);
	case WL_DMA_RAW:
		return core_dma_raw(c, a, p, v[WL_OFFSET], v[WL_BYTES], v[WL_ARG] != 0);
	case WL_DMA_EXCLUSIVE:
		return core_dma_exclusive(c, a, p, v[WL_OFFSET], v[WL_BYTES], v[WL_ARG] != 0);
	case WL_POWER: return core_power(c, a, p, model_power(v[WL_ARG]));
	case WL_MEMORY: {
		struct physmem_pressure pr = { .commit_available = v[WL_OFFSET],
					       .lockable_available = v[WL_BYTES],
					       .max_contiguous = UINT64_MAX };

		core_memory(c, &pr);
		return 0;
	}
	case WL_IRQL: core_set_irql(c, (enum core_irql)v[WL_ARG]); return 0; /* a level is its number */
	case WL_DRIVER_MDL_CREATE: return core_driver_mdl_create(c, a, v[WL_BYTES], h);
	case WL_DRIVER_MDL_FREE: return core_driver_mdl_free(c, a, target);
	case WL_FB_PIN: return core_fb_pin(c, a, model_hadapter(v[WL_ARG]), p, h);
	case WL_FB_UNPIN: return core_fb_unpin(c, a, model_hadapter(v[WL_ARG]), target);
	case WL_FB_MAP:
		return core_fb_map_chunk(c, a, model_hadapter(v[WL_ARG]), p, v[WL_OFFSET], v[WL_BYTES],
					 h);
	case WL_FB_UNMAP: return core_fb_unmap_chunk(c, a, model_hadapter(v[WL_ARG]), target);
	case WL_CPU_ACCESS:
		return core_cpu_access(c, a, target, v[WL_OFFSET], v[WL_BYTES], v[WL_ARG] != 0);
	case WL_PMO_CREATE_IO:
		return core_pmo_create_io(c, a, v[WL_OFFSET], v[WL_BYTES], model_cache(v[WL_ARG]), h);
	case WL_PMO_MAP_CPU:
		return core_pmo_map_cpu(c, a, ref, model_access(v[WL_ARG]), v[WL_OFFSET], v[WL_BYTES],
					h);
	case WL_PMO_UNMAP_CPU: return core_pmo_unmap_cpu(c, a, target);
	case WL_IOMMU_DISABLE: return core_iommu_disable(c, a);
	case WL_FB_SAVE_SIZE: return core_fb_save_size(c, a, p, v[WL_BYTES]);
	}
	return -EINVAL;
}
