/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_CORE_CORE_POWER_H
#define GPUISO_CORE_CORE_POWER_H

#include "common/types.h"
#include "core/core_types.h"

/*
 * Power transitions and the frame-buffer save they take: the callbacks a KMD
 * saves and restores its reserve with, and its forward-progress buffer
 * (core/fbsave.c).
 */

/**
 * core_power() - a power transition of one physical adapter: D0->D3 saves
 * its frame-buffer reserve (pinned, else chunked, else reset), D3->D0
 * restores it and checks VRAM equals what was saved. One core_power_record each.
 * @core: the model.
 * @adapter: index.
 * @phys: physical adapter.
 * @state: target state.
 *
 * Return: 0 when the transition completed (possibly by reset), -EINVAL for a
 * transition to the state it is in.
 */
int core_power(struct core *core, unsigned int adapter, unsigned int phys,
	       enum power_state state);

/* --- frame-buffer save callbacks (DXGKCB_*FRAMEBUFFER*), used by the KMD --- */

/**
 * core_fb_pin() - DxgkCbPinFrameBufferForSave: lock the whole save section
 * and map it to the IOMMU.
 * @core: the model.
 * @adapter: index.
 * @caller: the physical adapter whose hAdapter the driver passed (must be the lead).
 * @phys: the physical adapter whose section (shared mode: the one section).
 * @mdl: out: the locked, mapped section (for core_gpu_copy()).
 *
 * Return: 0, -ENOMEM (could not lock or map), -EINVAL (not the lead, no
 * save area), -EBUSY (pinned already).
 */
int core_fb_pin(struct core *core, unsigned int adapter, unsigned int caller, unsigned int phys,
		core_handle_t *mdl);
/**
 * core_fb_unpin() - DxgkCbUnpinFrameBufferForSave.
 * @core, @adapter, @caller: as for core_fb_pin().
 * @mdl: from core_fb_pin().
 *
 * Return: 0, -EINVAL (not a pinned save area: a violation says why), or
 * what every save-area callback's entry refuses (core_fb_pin()).
 */
int core_fb_unpin(struct core *core, unsigned int adapter, unsigned int caller, core_handle_t mdl);
/**
 * core_fb_map_chunk() - DxgkCbMapFrameBufferPointer: lock and CPU-map
 * [offset, offset+bytes) of the save section.
 * @core: the model.
 * @adapter: index.
 * @caller: hAdapter's physical adapter (must be the lead).
 * @phys: whose section.
 * @offset: byte offset (page aligned).
 * @bytes: length.
 * @view: out: a view for core_view_rw().
 *
 * Return: 0, -EINVAL (a range outside the section, not page aligned),
 * -ENOMEM, or what every save-area callback's entry refuses (core_fb_pin()).
 */
int core_fb_map_chunk(struct core *core, unsigned int adapter, unsigned int caller,
		      unsigned int phys, uint64_t offset, uint64_t bytes, core_handle_t *view);
/**
 * core_fb_unmap_chunk() - DxgkCbUnmapFrameBufferPointer.
 * @core, @adapter, @caller: as for core_fb_map_chunk().
 * @view: from core_fb_map_chunk().
 *
 * Return: as core_fb_unpin(), for a mapped save-area chunk.
 */
int core_fb_unmap_chunk(struct core *core, unsigned int adapter, unsigned int caller,
			core_handle_t view);

/**
 * core_fb_save_size() - the driver's frame-buffer save size from now on.
 * @core: the model.
 * @adapter: index.
 * @phys: the physical adapter.
 * @bytes: what the reference KMD answers when Dxgkrnl asks it at the next
 *         power-downs (QAI_FRAMEBUFFERSAVESIZE_NOW); not judged here.
 *
 * A state of the driver, not a callback: no gate. Until the first, the
 * reference KMD saves all of its part of the save area.
 *
 * Return: 0, -ENOENT (no such adapter or physical adapter), -ENODEV (not
 * started), -ESHUTDOWN (bugchecked).
 */
int core_fb_save_size(struct core *core, unsigned int adapter, unsigned int phys,
		      uint64_t bytes);

/**
 * core_fb_region() - where a physical adapter's reserve lives: its VRAM
 * offset and size, and its byte offset in its save section.
 * @core: the model.
 * @adapter: index.
 * @phys: physical adapter.
 * @vram_off: out.
 * @bytes: out: the bytes of it the current (or last) power-down saves, as
 *         the driver said when asked (all of it until then).
 * @section_off: out.
 *
 * Return: 0, or -ENOENT when there is no such adapter or physical adapter.
 */
int core_fb_region(struct core *core, unsigned int adapter, unsigned int phys,
		   uint64_t *vram_off, uint64_t *bytes, uint64_t *section_off);

/**
 * core_small_buffer() - the forward-progress buffer a physical adapter's KMD
 * preallocated (the reference KMD registers it here).
 * @core: the model.
 * @adapter: index.
 * @phys: physical adapter.
 * @gpu: out: the handle the GPU copies through (an MDL, or an ADL).
 * @cpu: out: the handle the CPU copies through (the MDL, or a CPU view of
 * the PMO behind the ADL: an ADL is never CPU-accessible).
 * @bytes: out: its size.
 *
 * Return: 0, or -ENOENT when the physical adapter has none.
 */
int core_small_buffer(struct core *core, unsigned int adapter, unsigned int phys,
		      core_handle_t *gpu, core_handle_t *cpu, uint64_t *bytes);

#endif
