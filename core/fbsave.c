/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define LOG_PREFIX "fbsave"
#include "common/clock.h"
#include "common/log.h"
#include "adapter_internal.h"
#include "gate_internal.h"
#include "handle_internal.h"
#include "hwcall_internal.h"
#include "internal.h"

/*
 * Frame-buffer save areas and power transitions. At init Dxgkrnl asks each
 * physical adapter for its save size (DXGKQAITYPE_FRAMEBUFFERSAVESIZE) and
 * takes commit charge for the upper bound, one section per adapter that
 * reports a size (or one shared section reported by adapter 0). The KMD
 * saves with the four callbacks here: pin the whole section, or map it chunk
 * by chunk to make forward progress; if even a chunk fails it resets the
 * adapter. Dxgkrnl records each transition and checks the restore.
 */

/* A step of the transition under way (a pin, a chunk mapped or released): the stall ends. */
static void xfer_progress(struct adapter *a)
{
	uint64_t now = clock_mono_ns();

	if (!a->xfer.active)
		return;
	a->xfer.max_stall_ns = GPUISO_MAX(a->xfer.max_stall_ns, now - a->xfer.last_progress_ns);
	a->xfer.last_progress_ns = now;
}

/*
 * The section a physical adapter's reserve is saved in. Dxgkrnl makes one
 * for each physical adapter reporting a size; a driver saving into a
 * shared section (the reference KMD's fb_save_mode: shared) uses physical
 * adapter 0's for all of them.
 */
static struct section *section_of(struct adapter *a, unsigned int phys)
{
	return &a->sections[a->cfg->fb_save_mode == FB_SAVE_SHARED ? 0 : phys];
}

/*
 * The reference KMD's part of a shared section for physical adapter @i: the
 * section's pages dealt out in order, the first (pages mod n) adapters one
 * more, so that every byte of it is someone's. With fewer pages than
 * adapters the last ones have none: they save nothing.
 */
static void shared_slice(const struct adapter *a, unsigned int i, uint64_t *off, uint64_t *bytes)
{
	uint64_t pages = a->sections[0].bytes / GPUISO_PAGE_SIZE, each = pages / a->nphys;
	uint64_t extra = pages % a->nphys;

	*off = (i * each + GPUISO_MIN(i, extra)) * GPUISO_PAGE_SIZE;
	*bytes = (each + (i < extra)) * GPUISO_PAGE_SIZE;
}

/*
 * A driver that reports no IOMMU isolation support is not asked its save
 * size; one it would report that is not a page multiple is still the
 * driver's error, said as a note (it does not stop the start: nothing is
 * asked, nothing refused).
 */
static void fb_not_asked(struct adapter *a)
{
	for (unsigned int i = 0; i < a->nphys; i++) {
		uint64_t bytes = a->cfg->phys[i].fb_save_size;

		if (bytes % GPUISO_PAGE_SIZE)
			adapter_error(a, "frame-buffer save size %#llx of physical adapter %u is not a multiple of GPUISO_PAGE_SIZE; not asked (the driver does not report IoMmuSecureModeSupported), so no save area",
				      (unsigned long long)bytes, i);
	}
}

/* The reference KMD's layout, told as notes where it leaves something unused. */
static void shared_notes(struct adapter *a)
{
	for (unsigned int i = 1; i < a->nphys; i++)
		if (a->sections[i].bytes)
			adapter_error(a, "shared save area: physical adapter %u's section of %#llx bytes is charged but never used (the driver saves every adapter into physical adapter 0's)",
				      i, (unsigned long long)a->sections[i].bytes);
	if (a->sections[0].bytes && a->sections[0].bytes < a->nphys * GPUISO_PAGE_SIZE)
		adapter_error(a, "shared save area of %#llx bytes: the driver gives each of the %zu physical adapters a page of it while pages last; the others save nothing",
			      (unsigned long long)a->sections[0].bytes, a->nphys);
}

int fb_init(struct core *c, struct adapter *a, char *why, size_t len)
{
	uint64_t total = 0;
	int rc;

	/* Only a driver that reports IOMMU isolation support is asked. */
	if (!a->caps.iommu_secure_mode) {
		fb_not_asked(a);
		return 0;
	}
	for (unsigned int i = 0; i < a->nphys; i++) {
		uint64_t bytes = 0;

		rc = c->kmd_merged.query_adapter_info(c, c->kmd, a->index, QAI_FRAMEBUFFERSAVESIZE,
						       i, &bytes);
		if (rc) {
			snprintf(why, len, "DXGKQAITYPE_FRAMEBUFFERSAVESIZE for physical adapter %u failed: %s",
				 i, ntstatus_name(rc));
			return rc;
		}
		/* "The maximum size reported by the driver must be a multiple of PAGE_SIZE." */
		if (bytes % GPUISO_PAGE_SIZE) {
			snprintf(why, len, "frame-buffer save size %#llx of physical adapter %u is not a multiple of GPUISO_PAGE_SIZE",
				 (unsigned long long)bytes, i);
			return -EINVAL;
		}
		a->sections[i].bytes = bytes;
		total += bytes;
	}
	if (a->cfg->fb_save_mode == FB_SAVE_SHARED)
		shared_notes(a);
	for (unsigned int i = 0; i < a->nphys; i++) {
		struct phys_adapter *p = &a->phys[i];
		uint64_t vram = hwc_vram_size(c, a, i);

		p->fb_bytes = a->sections[i].bytes;
		p->fb_section_off = 0;
		if (a->cfg->fb_save_mode == FB_SAVE_SHARED)
			shared_slice(a, i, &p->fb_section_off, &p->fb_bytes);
		if (p->fb_bytes > vram) {
			snprintf(why, len, "physical adapter %u saves %#llx bytes but has only %#llx of VRAM",
				 i, (unsigned long long)p->fb_bytes, (unsigned long long)vram);
			return -EINVAL;
		}
		p->fb_vram_off = vram - p->fb_bytes;
		p->fb_now = p->fb_bytes;
	}
	if (!total)
		return 0;
	rc = fp_should_fail(c->fp, FP_MEM_COMMIT) ? -ENOMEM : physmem_commit(c->pm, total);
	if (rc) {
		snprintf(why, len, "commit charge of %#llx bytes for frame-buffer save areas failed: %s",
			 (unsigned long long)total, ntstatus_name(rc));
		return rc;
	}
	a->fb_commit = total;
	return 0;
}

void fb_fini(struct core *c, struct adapter *a)
{
	for (size_t i = 0; i < a->nphys; i++) {
		pages_free(c, &a->sections[i].pg);
		a->sections[i].pinned = false;
	}
	if (a->fb_commit)
		physmem_uncommit(c->pm, a->fb_commit);
	a->fb_commit = 0;
}

/* The section's frames are obtained on first use, under the charge taken at init. */
static int section_frames(struct core *c, struct section *s)
{
	if (s->pg.npages || !s->bytes)
		return 0;
	return pages_alloc(c, &s->pg, s->bytes, PG_CHARGED);
}

/* The four frame-buffer callbacks must be given the lead adapter's hAdapter. */
static int fb_enter(struct core *c, unsigned int adapter, unsigned int caller, const char *name,
		    struct adapter **a)
{
	int rc = cb_enter(c, adapter, name, a);

	if (rc)
		return rc;
	if (caller != 0 && caller < (*a)->nphys) {
		viol(c, CORE_V_FB_NOT_LEAD, "%s on %s with physical adapter %u's hAdapter; the lead's is required",
		     name, (*a)->cfg->name, caller);
		return -EINVAL;
	}
	if (caller != 0) {
		viol(c, CORE_V_FB_NOT_LEAD, "%s on %s with the hAdapter of no physical adapter of its chain (%u); the lead's is required",
		     name, (*a)->cfg->name, caller);
		return -EINVAL;
	}
	return 0;
}

/*
 * A view of [off, off+bytes) of a physical adapter's save section, locked;
 * a pin also maps it for the GPU, a chunk is only for the CPU.
 */
static int section_view(struct core *c, struct adapter *a, unsigned int phys, uint64_t off,
			uint64_t bytes, bool pin, core_handle_t *h)
{
	struct section *s = section_of(a, phys);
	struct hobj *o;
	int rc;

	if (phys >= a->nphys || !s->bytes)
		return -EINVAL;
	rc = section_frames(c, s);
	if (rc)
		return rc;
	rc = handle_new(c, H_VIEW, a->index, h, &o);
	if (rc)
		return rc;
	o->u.view.section = (unsigned int)(s - a->sections);
	o->u.view.fb_pin = pin;
	o->u.view.fb_chunk = !pin;
	o->u.view.cache = CACHE_WRITECOMBINED; /* written once, read back only at the restore */
	rc = pages_slice(&s->pg, off, bytes, &o->pg);
	if (!rc)
		rc = pages_lock(c, &o->pg, o->pg.npages * GPUISO_PAGE_SIZE);
	if (!rc && pin)
		rc = obj_map(c, a, o);
	if (rc) {
		obj_destroy(c, *h);
		*h = 0;
	}
	return rc;
}

/* Unpin or unmap: the view must be the kind the callback releases. */
static int section_view_free(struct core *c, unsigned int adapter, unsigned int caller,
			     const char *name, core_handle_t h, bool pin)
{
	struct adapter *a;
	struct hobj *o;
	int rc;

	rc = fb_enter(c, adapter, caller, name, &a);
	if (rc)
		return rc;
	o = handle_get(c, h, H_VIEW, adapter, name);
	if (!o)
		return -EINVAL;
	if (pin ? !o->u.view.fb_pin : !o->u.view.fb_chunk) {
		viol(c, CORE_V_FB_SEQUENCE, "%s: handle 0x%x is not a %s", name, h,
		     pin ? "pinned save area" : "mapped save-area chunk");
		return -EINVAL;
	}
	if (pin)
		a->sections[o->u.view.section].pinned = false;
	obj_destroy(c, h);
	xfer_progress(a);
	return 0;
}

int core_fb_pin(struct core *core, unsigned int adapter, unsigned int caller, unsigned int phys,
		core_handle_t *mdl)
{
	static const char name[] = "DxgkCbPinFrameBufferForSave";
	struct adapter *a;
	struct section *s;
	int rc;

	rc = fb_enter(core, adapter, caller, name, &a);
	if (rc)
		return rc;
	if (phys >= a->nphys)
		return -EINVAL;
	s = section_of(a, phys);
	if (s->pinned) {
		viol(core, CORE_V_FB_SEQUENCE, "%s: the save area of %s is pinned already", name,
		     a->cfg->name);
		return -EBUSY;
	}
	if (fp_should_fail(core->fp, FP_FBSAVE_PIN))
		return -ENOMEM;
	rc = section_view(core, a, phys, 0, s->bytes, true, mdl);
	if (rc)
		return rc;
	s->pinned = true;
	if (a->xfer.active)
		a->xfer.pinned = true;
	xfer_progress(a);
	return 0;
}

int core_fb_unpin(struct core *core, unsigned int adapter, unsigned int caller, core_handle_t mdl)
{
	return section_view_free(core, adapter, caller, "DxgkCbUnpinFrameBufferForSave", mdl, true);
}

int core_fb_map_chunk(struct core *core, unsigned int adapter, unsigned int caller,
		      unsigned int phys, uint64_t offset, uint64_t bytes, core_handle_t *view)
{
	struct adapter *a;
	int rc;

	rc = fb_enter(core, adapter, caller, "DxgkCbMapFrameBufferPointer", &a);
	if (rc)
		return rc;
	if (!bytes || offset % GPUISO_PAGE_SIZE)
		return -EINVAL;
	/* "Even a 4KB mapping may not succeed." */
	if (fp_should_fail(core->fp, FP_FBSAVE_MAP_CHUNK))
		return -ENOMEM;
	rc = section_view(core, a, phys, offset, bytes, false, view);
	if (rc)
		return rc;
	if (a->xfer.active) {
		a->xfer.chunks++;
		a->xfer.chunk_bytes += bytes;
	}
	xfer_progress(a);
	return 0;
}

int core_fb_unmap_chunk(struct core *core, unsigned int adapter, unsigned int caller,
			core_handle_t view)
{
	return section_view_free(core, adapter, caller, "DxgkCbUnmapFrameBufferPointer", view,
				 false);
}

int core_fb_region(struct core *core, unsigned int adapter, unsigned int phys,
		   uint64_t *vram_off, uint64_t *bytes, uint64_t *section_off)
{
	struct adapter *a = adapter_get(core, adapter);

	if (!a || phys >= a->nphys)
		return -ENOENT;
	*vram_off = a->phys[phys].fb_vram_off;
	*bytes = a->phys[phys].fb_now;
	*section_off = a->phys[phys].fb_section_off;
	return 0;
}

int core_fb_save_size(struct core *core, unsigned int adapter, unsigned int phys,
		      uint64_t bytes)
{
	struct adapter *a = adapter_get(core, adapter);

	if (core->bugchecked)
		return -ESHUTDOWN;
	if (!a || phys >= a->nphys)
		return -ENOENT;
	if (!a->started)
		return -ENODEV;
	a->phys[phys].save_size = bytes;
	a->phys[phys].save_size_set = true;
	return 0;
}

/*
 * "The exact amount of memory required by the driver can change
 * dynamically, but Dxgkrnl takes a commit charge on the upper bound at the
 * time when the adapter is initialized": asked at each power-down, the
 * amount must fit the section the charge was taken for, in whole pages.
 * One that does not is FB_SAVE_SIZE, and the save covers all of the
 * adapter's part, as before it changed. Within the section, a driver
 * saving into a shared one keeps to its part (the reference KMD's layout).
 */
static void fb_ask_size(struct core *c, struct adapter *a, unsigned int phys)
{
	struct phys_adapter *p = &a->phys[phys];
	uint64_t max = section_of(a, phys)->bytes, bytes = 0;

	p->fb_now = p->fb_bytes;
	if (!p->fb_bytes ||
	    c->kmd_merged.query_adapter_info(c, c->kmd, a->index, QAI_FRAMEBUFFERSAVESIZE_NOW, phys,
					     &bytes))
		return;
	if (bytes > max) {
		viol(c, CORE_V_FB_SAVE_SIZE, "%s physical adapter %u: save size %#llx at power-down is above the %#llx bytes committed at start; all of its part is saved",
		     a->cfg->name, phys, (unsigned long long)bytes, (unsigned long long)max);
		return;
	}
	if (bytes % GPUISO_PAGE_SIZE) {
		viol(c, CORE_V_FB_SAVE_SIZE, "%s physical adapter %u: save size %#llx at power-down is not a multiple of GPUISO_PAGE_SIZE; all of its part is saved",
		     a->cfg->name, phys, (unsigned long long)bytes);
		return;
	}
	p->fb_now = GPUISO_MIN(bytes, p->fb_bytes);
}

int core_small_buffer(struct core *core, unsigned int adapter, unsigned int phys,
		      core_handle_t *gpu, core_handle_t *cpu, uint64_t *bytes)
{
	struct adapter *a = adapter_get(core, adapter);

	if (!a || phys >= a->nphys || !a->phys[phys].small)
		return -ENOENT;
	*gpu = a->phys[phys].small;
	*cpu = a->phys[phys].small_cpu;
	*bytes = a->phys[phys].small_bytes;
	return 0;
}

/* --- power transitions --- */

#define SEED_BLOCK (64 * 1024)
#define SEED_PERIOD (2 * 1024 * 1024)

/* A digest of a physical adapter's VRAM reserve: what a restore must reproduce. */
int fb_hash(struct core *c, struct adapter *a, unsigned int phys, uint64_t *digest)
{
	struct phys_adapter *p = &a->phys[phys];

	return hwc_vram_digest(c, a, phys, p->fb_vram_off, p->fb_now, digest);
}

/*
 * Until the workload has written it, the reserve would be zeros and a
 * restore that did nothing would pass: give it content first, different for
 * each adapter and for each 64 KiB block of a 2 MiB period. The period
 * repeats over the whole reserve, so a backend holds one period's memory
 * however large the reserve is (vram_fill). A restore that leaves any part
 * out still fails the check: VRAM reads as zero after a power-off.
 * Returns 0, or an error (-ENOMEM, or the fill's: an internal error) after
 * which the reserve cannot vouch for a restore.
 */
static int fb_seed(struct core *c, struct adapter *a, unsigned int phys)
{
	struct phys_adapter *p = &a->phys[phys];
	uint64_t *buf;
	int rc;

	if (p->seeded || !p->fb_bytes)
		return 0;
	buf = malloc(SEED_PERIOD);
	if (!buf) {
		log_warn("%s physical adapter %u: out of memory seeding the save area: its restore is not checked",
			 a->cfg->name, phys);
		return -ENOMEM;
	}
	for (size_t i = 0; i < SEED_PERIOD / sizeof(uint64_t); i++)
		buf[i] = (i % (SEED_BLOCK / sizeof(uint64_t)) + 1) * 0x9e3779b97f4a7c15ull;
	for (uint64_t off = 0; off < SEED_PERIOD; off += SEED_BLOCK)
		buf[off / sizeof(uint64_t)] = ((uint64_t)a->index << 56) ^ ((uint64_t)phys << 48) ^ off;
	rc = hwc_vram_fill(c, a, phys, p->fb_vram_off, p->fb_bytes, buf, SEED_PERIOD);
	free(buf);
	p->seeded = !rc;
	return rc;
}

static uint64_t modeled_now(struct core *c)
{
	struct hw_stats st;

	hwc_stats(c, &st);
	return st.modeled_ns;
}

int core_power(struct core *core, unsigned int adapter, unsigned int phys,
	       enum power_state state)
{
	struct adapter *a = adapter_get(core, adapter);
	struct core_power_record rec = { .event = core->event, .ts_ns = core->ts_ns,
					 .adapter = adapter, .phys = phys, .to = state };
	struct phys_adapter *p;
	enum core_irql irql;
	uint64_t t0, m0, restored;
	bool checkable = true; /* the backend's answers let the restore be checked */
	int rc;

	if (!a || phys >= a->nphys)
		return -ENOENT;
	if (!a->started)
		return -ENODEV;
	p = &a->phys[phys];
	if ((state == POWER_D0) == p->powered || (state != POWER_D0 && state != POWER_D3))
		return -EINVAL;

	/*
	 * A reserve the backend would not seed or digest, or a device it would
	 * not power, cannot vouch for a restore: no check is made (each backend
	 * error is an internal error), never one of a digest that was not taken.
	 */
	if (state == POWER_D3) {
		fb_ask_size(core, a, phys);
		checkable = !fb_seed(core, a, phys) && !fb_hash(core, a, phys, &p->saved_hash);
	} else {
		checkable = !hwc_power(core, a, phys, true);
		p->powered = true;
	}
	t0 = clock_mono_ns();
	a->xfer = (struct transition){ .active = true, .last_progress_ns = t0 };
	m0 = modeled_now(core);
	/*
	 * Dxgkrnl calls DxgkDdiSetPowerState at PASSIVE_LEVEL, whatever level
	 * the driver's DPCs had reached: the KMD's callbacks from it are judged
	 * there, and the trace's level is back afterwards.
	 */
	irql = core->irql;
	core->irql = CORE_IRQL_PASSIVE;
	rc = core->kmd_merged.set_power_state(core, core->kmd, adapter, phys, state);
	core->irql = irql;
	xfer_progress(a);
	rec.copy_ns = a->xfer.last_progress_ns - t0;
	rec.max_stall_ns = a->xfer.max_stall_ns;
	rec.modeled_ns = modeled_now(core) - m0;
	rec.chunks = a->xfer.chunks;
	rec.path = !p->fb_now ? PATH_NONE : a->xfer.pinned ? PATH_PINNED : PATH_CHUNKED;
	rec.bytes = a->xfer.pinned ? p->fb_now : a->xfer.chunk_bytes;
	a->xfer.active = false;

	if (rc) {
		/* Cancelled: the adapter is reset and what the reserve held is gone. */
		rec.path = PATH_RESET;
		p->reset = true;
		p->saved_valid = false;
		p->seeded = false;
		log_info("%s phys %u: transition to D%d cancelled (%s): adapter reset",
			 a->cfg->name, phys, state, ntstatus_name(rc));
	} else {
		rec.completed = true;
		p->reset = false;
	}
	if (state == POWER_D3) {
		/* a device that kept its power (-EBUSY) kept its VRAM: a restore would prove nothing */
		checkable = !hwc_power(core, a, phys, false) && checkable;
		p->saved_valid = !rc && checkable;
		p->powered = false;
	} else if (!rc && p->saved_valid) {
		if (checkable && !fb_hash(core, a, phys, &restored)) {
			rec.verified = restored == p->saved_hash;
			if (!rec.verified)
				viol(core, CORE_V_FB_RESTORE_MISMATCH,
				     "%s physical adapter %u: VRAM reserve after restore differs from what was saved",
				     a->cfg->name, phys);
		}
		p->saved_valid = false;
	}
	stale_check(core);
	if (vec_push(&core->power, &rec))
		return -ENOMEM;
	return 0;
}
