/* SPDX-License-Identifier: MIT */
/* Frame-buffer save areas and power transitions with forward progress. */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "fixture.h"

#define SAVE (1ull << 20) /* small save areas keep the tests quick */

static void defaults_small(struct fx *fx)
{
	fx_defaults(fx);
	fx->scn.adapters[0].phys[0].fb_save_size = SAVE;
}

static const struct core_power_record *last_record(struct fx *fx)
{
	const struct core_power_record *r;
	size_t n;

	r = core_power_records(fx->core, &n);
	cr_assert_gt(n, 0);
	return &r[n - 1];
}

static void cycle(struct fx *fx, unsigned int phys, enum power_path down, enum power_path up)
{
	cr_assert_eq(core_power(fx->core, 0, phys, POWER_D3), 0);
	cr_assert_eq(last_record(fx)->path, down, "power down took path %d",
		     last_record(fx)->path);
	cr_assert_eq(core_power(fx->core, 0, phys, POWER_D0), 0);
	cr_assert_eq(last_record(fx)->path, up, "power up took path %d", last_record(fx)->path);
}

Test(fbsave, commit_charge_is_taken_at_init_and_returned)
{
	struct fx fx;
	uint64_t committed;

	fx_defaults(&fx);
	fx_set_phys(&fx, 0, 2);
	fx_start(&fx);
	committed = core_physmem(fx.core)->usage.committed;
	/* two 64 MiB sections plus two one-page small buffers */
	cr_assert_eq(committed, 2 * (64ull << 20) + 2 * 4096);
	core_stop(fx.core);
	cr_assert_eq(core_physmem(fx.core)->usage.committed, 0);
	fx_fini(&fx);
}

Test(fbsave, commit_failure_stops_the_adapter)
{
	struct fx fx;

	fx_defaults(&fx);
	fx.scn.system.commit_limit = 32ull << 20; /* less than the 64 MiB save area */
	fx_start(&fx);
	cr_assert_not(fx_info(&fx, 0).started);
	cr_assert(strstr(fx_info(&fx, 0).start_error, "commit charge"), "%s",
		  fx_info(&fx, 0).start_error);
	fx_fini(&fx);
}

Test(fbsave, save_size_must_be_a_page_multiple)
{
	struct fx fx;

	fx_defaults(&fx);
	fx.scn.adapters[0].phys[0].fb_save_size = SAVE + 512;
	fx_start(&fx);
	cr_assert_not(fx_info(&fx, 0).started);
	cr_assert(strstr(fx_info(&fx, 0).start_error, "GPUISO_PAGE_SIZE"), "%s",
		  fx_info(&fx, 0).start_error);
	fx_fini(&fx);
}

Test(fbsave, no_save_area_without_iommu_support)
{
	struct core_phys_info pi;
	struct fx fx;

	fx_defaults(&fx);
	fx.scn.adapters[0].caps.iommu_secure_mode = false;
	fx_start(&fx);
	cr_assert_eq(core_phys_info(fx.core, 0, 0, &pi), 0);
	cr_assert_eq(pi.save_area, 0);
	cr_assert_eq(core_power(fx.core, 0, 0, POWER_D3), 0);
	cr_assert_eq(last_record(&fx)->path, PATH_NONE);
	fx_fini(&fx);
}

Test(fbsave, pinned_path_restores_what_was_saved)
{
	const struct core_power_record *r;
	struct fx fx;

	defaults_small(&fx);
	fx_start(&fx);
	cycle(&fx, 0, PATH_PINNED, PATH_PINNED);
	r = last_record(&fx);
	cr_assert(r->completed);
	cr_assert(r->verified);
	cr_assert_eq(r->bytes, SAVE);
	cr_assert_eq(r->chunks, 0);
	cr_assert_gt(r->modeled_ns, 0);
	cr_assert_eq(fx_violations(&fx, CORE_V_FB_RESTORE_MISMATCH), 0, "%s", fx_violation_text(&fx));
	fx_fini(&fx);
}

Test(fbsave, pin_failure_makes_progress_in_chunks)
{
	const struct core_power_record *r;
	struct physmem_pressure p = { UINT64_MAX, 64 << 10, UINT64_MAX };
	struct fx fx;

	defaults_small(&fx);
	fx_start(&fx);
	core_memory(fx.core, &p); /* 64 KiB lockable: no pin, but chunks fit */
	cycle(&fx, 0, PATH_CHUNKED, PATH_CHUNKED);
	r = last_record(&fx);
	cr_assert(r->completed);
	cr_assert(r->verified);
	cr_assert_eq(r->chunks, SAVE / 4096);
	cr_assert_eq(r->bytes, SAVE);
	fx_fini(&fx);
}

Test(fbsave, bigger_small_buffer_means_fewer_chunks)
{
	struct physmem_pressure p = { UINT64_MAX, 256 << 10, UINT64_MAX };
	struct fx fx;

	defaults_small(&fx);
	fx.scn.adapters[0].small_buffer = 64 << 10;
	fx_start(&fx);
	core_memory(fx.core, &p);
	cycle(&fx, 0, PATH_CHUNKED, PATH_CHUNKED);
	cr_assert_eq(last_record(&fx)->chunks, SAVE / (64 << 10));
	cr_assert(last_record(&fx)->verified);
	fx_fini(&fx);
}

static void arm(struct fp_ctx *fp, enum fp_point p)
{
	fp_arm(fp, p, &(struct fp_rule){ .nth = 1, .every = 1 });
}

Test(fbsave, chunk_failure_cancels_and_resets)
{
	struct fp_ctx fp = { 0 };
	struct core_phys_info pi;
	core_handle_t mdl;
	struct fx fx;

	defaults_small(&fx);
	fx_start(&fx);
	core_set_faults(fx.core, &fp);
	arm(&fp, FP_FBSAVE_PIN);
	arm(&fp, FP_FBSAVE_MAP_CHUNK);
	cr_assert_eq(core_power(fx.core, 0, 0, POWER_D3), 0);
	cr_assert_eq(last_record(&fx)->path, PATH_RESET);
	cr_assert_not(last_record(&fx)->completed);
	cr_assert_eq(core_phys_info(fx.core, 0, 0, &pi), 0);
	cr_assert(pi.reset);
	cr_assert_not(pi.powered);
	/* power up after a reset owes no restore, and is no violation */
	core_set_faults(fx.core, NULL);
	cr_assert_eq(core_power(fx.core, 0, 0, POWER_D0), 0);
	cr_assert(last_record(&fx)->completed);
	cr_assert_not(last_record(&fx)->verified);
	cr_assert_eq(fx_violations(&fx, CORE_V_FB_RESTORE_MISMATCH), 0);
	/* the adapter keeps working */
	cr_assert_eq(core_alloc_mdl(fx.core, 0, 4096, &mdl), 0);
	cr_assert_eq(fx_dma_write(&fx, 0, 0, mdl, 0, 4096, 3), 0);
	cr_assert_eq(core_free_mdl(fx.core, 0, mdl), 0);
	/* and the next cycle saves and restores again */
	cycle(&fx, 0, PATH_PINNED, PATH_PINNED);
	cr_assert(last_record(&fx)->verified);
	fx_fini(&fx);
}

Test(fbsave, restore_failure_resets)
{
	struct fp_ctx fp = { 0 };
	struct fx fx;

	defaults_small(&fx);
	fx_start(&fx);
	cr_assert_eq(core_power(fx.core, 0, 0, POWER_D3), 0);
	core_set_faults(fx.core, &fp);
	arm(&fp, FP_FBSAVE_PIN);
	fp_arm(&fp, FP_FBSAVE_MAP_CHUNK, &(struct fp_rule){ .nth = 10 });
	cr_assert_eq(core_power(fx.core, 0, 0, POWER_D0), 0);
	cr_assert_eq(last_record(&fx)->path, PATH_RESET);
	cr_assert_eq(last_record(&fx)->chunks, 9, "chunks before the failure");
	cr_assert_not(last_record(&fx)->verified);
	fx_fini(&fx);
}

Test(fbsave, gpu_copy_failure_resets)
{
	struct fp_ctx fp = { 0 };
	struct fx fx;

	defaults_small(&fx);
	fx_start(&fx);
	core_set_faults(fx.core, &fp);
	arm(&fp, FP_GPU_COPY);
	cr_assert_eq(core_power(fx.core, 0, 0, POWER_D3), 0);
	cr_assert_eq(last_record(&fx)->path, PATH_RESET);
	fx_fini(&fx);
}

static int lazy_set_power(struct core *core, void *kmd, unsigned int adapter, unsigned int phys,
			  enum power_state state)
{
	/* saves properly, but "restores" nothing */
	if (state == POWER_D0)
		return 0;
	return core_kmd_reference()->set_power_state(core, kmd, adapter, phys, state);
}

Test(fbsave, a_restore_that_does_nothing_is_caught)
{
	static const struct kmd_ops lazy = { .set_power_state = lazy_set_power };
	struct fx fx;

	defaults_small(&fx);
	fx_start_kmd(&fx, &lazy, NULL);
	cr_assert_eq(core_power(fx.core, 0, 0, POWER_D3), 0);
	cr_assert_eq(core_power(fx.core, 0, 0, POWER_D0), 0);
	cr_assert_not(last_record(&fx)->verified);
	cr_assert_eq(fx_violations(&fx, CORE_V_FB_RESTORE_MISMATCH), 1, "%s", fx_violation_text(&fx));
	fx_fini(&fx);
}

/* restores properly, then loses 64 KiB of the second 2 MiB of the reserve */
static int leaky_set_power(struct core *core, void *kmd, unsigned int adapter, unsigned int phys,
			   enum power_state state)
{
	static uint8_t zeros[64 << 10];
	struct hw *hw = core_hw(core);
	uint64_t vram_off, bytes, section_off;
	int rc;

	rc = core_kmd_reference()->set_power_state(core, kmd, adapter, phys, state);
	if (rc || state != POWER_D0)
		return rc;
	cr_assert_eq(core_fb_region(core, adapter, phys, &vram_off, &bytes, &section_off), 0);
	cr_assert_gt(bytes, (3ull << 20) + sizeof(zeros));
	return hw->ops->vram_rw(hw, 0, vram_off + (3ull << 20), zeros, sizeof(zeros), true);
}

static void leaky_cycle(enum power_path path)
{
	static const struct kmd_ops leaky = { .set_power_state = leaky_set_power };
	struct fx fx;

	fx_defaults(&fx);
	fx.scn.adapters[0].phys[0].fb_save_size = 4ull << 20; /* the seed's 2 MiB period, twice */
	fx_start_kmd(&fx, &leaky, NULL);
	if (path == PATH_CHUNKED)
		fx_pressure(&fx, UINT64_MAX, 1 << 20, UINT64_MAX); /* too little to pin it all */
	cycle(&fx, 0, path, path);
	cr_assert_not(last_record(&fx)->verified);
	cr_assert_eq(fx_violations(&fx, CORE_V_FB_RESTORE_MISMATCH), 1, "%s", fx_violation_text(&fx));
	fx_fini(&fx);
}

Test(fbsave, a_restore_that_leaves_a_piece_out_is_caught)
{
	leaky_cycle(PATH_PINNED);
	leaky_cycle(PATH_CHUNKED);
}

Test(fbsave, callbacks_need_the_lead_adapter)
{
	core_handle_t h;
	struct fx fx;

	defaults_small(&fx);
	fx_set_phys(&fx, 0, 2);
	fx_start(&fx);
	cr_assert_eq(core_fb_pin(fx.core, 0, 1, 1, &h), -EINVAL);
	cr_assert_eq(core_fb_map_chunk(fx.core, 0, 1, 0, 0, 4096, &h), -EINVAL);
	cr_assert_eq(fx_violations(&fx, CORE_V_FB_NOT_LEAD), 2, "%s", fx_violation_text(&fx));
	cr_assert_eq(core_fb_pin(fx.core, 0, 0, 1, &h), 0, "the lead may pin adapter 1's area");
	cr_assert_eq(core_fb_unpin(fx.core, 0, 0, h), 0);
	fx_fini(&fx);
}

Test(fbsave, pinning_twice_is_a_sequence_error)
{
	core_handle_t a, b;
	struct fx fx;

	defaults_small(&fx);
	fx_start(&fx);
	cr_assert_eq(core_fb_pin(fx.core, 0, 0, 0, &a), 0);
	cr_assert_eq(core_fb_pin(fx.core, 0, 0, 0, &b), -EBUSY);
	cr_assert_eq(fx_violations(&fx, CORE_V_FB_SEQUENCE), 1);
	cr_assert_eq(core_fb_unpin(fx.core, 0, 0, a), 0);
	cr_assert_eq(core_fb_unpin(fx.core, 0, 0, a), -EINVAL, "unpin of a stale handle");
	cr_assert_eq(fx_violations(&fx, CORE_V_BAD_HANDLE), 1);
	fx_fini(&fx);
}

Test(fbsave, a_transition_to_the_current_state_is_refused)
{
	struct fx fx;

	defaults_small(&fx);
	fx_start(&fx);
	cr_assert_eq(core_power(fx.core, 0, 0, POWER_D0), -EINVAL);
	cr_assert_eq(core_power(fx.core, 0, 0, POWER_D3), 0);
	cr_assert_eq(core_power(fx.core, 0, 0, POWER_D3), -EINVAL);
	fx_fini(&fx);
}

Test(fbsave, lda_chain_saves_one_adapter_at_a_time)
{
	struct fx fx;

	defaults_small(&fx);
	fx_set_phys(&fx, 0, 3);
	fx_start(&fx);
	for (unsigned int p = 0; p < 3; p++)
		cr_assert_eq(core_power(fx.core, 0, p, POWER_D3), 0);
	for (unsigned int p = 0; p < 3; p++) {
		cr_assert_eq(core_power(fx.core, 0, p, POWER_D0), 0);
		cr_assert(last_record(&fx)->verified, "physical adapter %u", p);
	}
	cr_assert_eq(fx_violations(&fx, CORE_V_FB_RESTORE_MISMATCH), 0, "%s", fx_violation_text(&fx));
	fx_fini(&fx);
}

Test(fbsave, shared_section_is_reported_by_adapter_0_only)
{
	struct core_phys_info p0, p1;
	uint64_t vram, bytes, off0, off1;
	struct fx fx;

	fx_defaults(&fx);
	fx_set_phys(&fx, 0, 2);
	fx.scn.adapters[0].fb_save_mode = FB_SAVE_SHARED;
	fx.scn.adapters[0].phys[0].fb_save_size = 2 * SAVE;
	fx.scn.adapters[0].phys[1].fb_save_size = 0;
	fx_start(&fx);
	cr_assert(fx_info(&fx, 0).started, "%s", fx_info(&fx, 0).start_error);
	core_phys_info(fx.core, 0, 0, &p0);
	core_phys_info(fx.core, 0, 1, &p1);
	cr_assert_eq(p0.save_area, 2 * SAVE);
	cr_assert_eq(p1.save_area, 0);
	cr_assert_eq(core_fb_region(fx.core, 0, 0, &vram, &bytes, &off0), 0);
	cr_assert_eq(bytes, SAVE);
	cr_assert_eq(core_fb_region(fx.core, 0, 1, &vram, &bytes, &off1), 0);
	cr_assert_eq(off1, off0 + SAVE, "slices overlap");
	cycle(&fx, 0, PATH_PINNED, PATH_PINNED);
	cycle(&fx, 1, PATH_PINNED, PATH_PINNED);
	cr_assert(last_record(&fx)->verified);
	fx_fini(&fx);
}

/* Whether adapter 0's notes hold @text. */
static bool noted(struct fx *fx, const char *text)
{
	struct core_adapter_info info = fx_info(fx, 0);

	for (size_t i = 0; i < info.nerrors; i++)
		if (strstr(info.errors[i], text))
			return true;
	return false;
}

/*
 * "The maximum size reported by the driver must be a multiple of
 * PAGE_SIZE" is Dxgkrnl's only condition: a second size in shared mode is
 * a second section (one "for each physical adapter that specifies a
 * nonzero value"), which the reference KMD leaves unused. The adapter
 * starts, charged for both, and the note says so.
 */
Test(fbsave, shared_section_with_a_second_size_starts_and_is_noted)
{
	struct core_phys_info p1;
	struct fx fx;

	fx_defaults(&fx);
	fx_set_phys(&fx, 0, 2);
	fx.scn.adapters[0].fb_save_mode = FB_SAVE_SHARED;
	fx.scn.adapters[0].phys[0].fb_save_size = 2 * SAVE;
	fx.scn.adapters[0].phys[1].fb_save_size = SAVE;
	fx_start(&fx);
	cr_assert(fx_info(&fx, 0).started, "%s", fx_info(&fx, 0).start_error);
	core_phys_info(fx.core, 0, 1, &p1);
	cr_assert_eq(p1.save_area, SAVE);
	cr_assert_eq(p1.saves, SAVE, "its part of the shared section");
	cr_assert(noted(&fx, "physical adapter 1's section of 0x100000 bytes is charged but never used"));
	cycle(&fx, 0, PATH_PINNED, PATH_PINNED);
	cycle(&fx, 1, PATH_PINNED, PATH_PINNED);
	cr_assert(last_record(&fx)->verified);
	fx_fini(&fx);
}

Test(fbsave, shared_section_pins_all_of_it_so_pressure_hits_it_first)
{
	/* Enough lockable memory for one adapter's slice, not for the whole section. */
	struct physmem_pressure p = { UINT64_MAX, SAVE + SAVE / 2, UINT64_MAX };
	struct fx shared, per;

	fx_defaults(&shared);
	fx_set_phys(&shared, 0, 2);
	shared.scn.adapters[0].fb_save_mode = FB_SAVE_SHARED;
	shared.scn.adapters[0].phys[0].fb_save_size = 2 * SAVE;
	shared.scn.adapters[0].phys[1].fb_save_size = 0;
	fx_start(&shared);
	core_memory(shared.core, &p);
	cr_assert_eq(core_power(shared.core, 0, 0, POWER_D3), 0);
	cr_assert_eq(last_record(&shared)->path, PATH_CHUNKED);
	fx_fini(&shared);

	defaults_small(&per);
	fx_set_phys(&per, 0, 2);
	fx_start(&per);
	core_memory(per.core, &p);
	cr_assert_eq(core_power(per.core, 0, 0, POWER_D3), 0);
	cr_assert_eq(last_record(&per)->path, PATH_PINNED);
	fx_fini(&per);
}

Test(fbsave, logical_mode_saves_through_logical_addresses)
{
	struct fx fx;

	defaults_small(&fx);
	fx_need_remap(&fx, 0);
	fx_start(&fx);
	cycle(&fx, 0, PATH_PINNED, PATH_PINNED);
	cr_assert(last_record(&fx)->verified);
	struct physmem_pressure p = { UINT64_MAX, 64 << 10, UINT64_MAX };

	core_memory(fx.core, &p);
	cycle(&fx, 0, PATH_CHUNKED, PATH_CHUNKED);
	cr_assert(last_record(&fx)->verified);
	cr_assert_eq(fx_violations(&fx, CORE_V_DEPRECATED_CB), 0, "%s", fx_violation_text(&fx));
	/* the chunk copies go through a CPU view of the small buffer's PMO, not its ADL */
	cr_assert_eq(fx_violations(&fx, CORE_V_CPU_ACCESS), 0, "%s", fx_violation_text(&fx));
	fx_fini(&fx);
}

Test(fbsave, modeled_time_is_deterministic)
{
	uint64_t modeled[2];

	for (int i = 0; i < 2; i++) {
		struct fx fx;

		defaults_small(&fx);
		fx_start(&fx);
		cycle(&fx, 0, PATH_PINNED, PATH_PINNED);
		modeled[i] = last_record(&fx)->modeled_ns;
		fx_fini(&fx);
	}
	cr_assert_gt(modeled[0], 0);
	cr_assert_eq(modeled[0], modeled[1]);
}

/* The reference KMD deals a shared section out by pages: every byte is someone's. */
Test(fbsave, shared_section_is_dealt_out_whole)
{
	uint64_t vram, bytes[3], off[3];
	struct fx fx;

	fx_defaults(&fx);
	fx_set_phys(&fx, 0, 3);
	fx.scn.adapters[0].fb_save_mode = FB_SAVE_SHARED;
	fx.scn.adapters[0].phys[0].fb_save_size = 5 * 4096; /* 5 pages for 3: 2, 2 and 1 */
	fx.scn.adapters[0].phys[1].fb_save_size = 0;
	fx.scn.adapters[0].phys[2].fb_save_size = 0;
	fx_start(&fx);
	cr_assert(fx_info(&fx, 0).started, "%s", fx_info(&fx, 0).start_error);
	for (unsigned int p = 0; p < 3; p++)
		cr_assert_eq(core_fb_region(fx.core, 0, p, &vram, &bytes[p], &off[p]), 0);
	cr_assert_eq(bytes[0], 2 * 4096);
	cr_assert_eq(bytes[1], 2 * 4096);
	cr_assert_eq(bytes[2], 4096);
	cr_assert_eq(off[1], off[0] + bytes[0], "slices overlap or leave a gap");
	cr_assert_eq(off[2], off[1] + bytes[1], "slices overlap or leave a gap");
	for (unsigned int p = 0; p < 3; p++) {
		cycle(&fx, p, PATH_PINNED, PATH_PINNED);
		cr_assert(last_record(&fx)->verified, "physical adapter %u", p);
		cr_assert_eq(last_record(&fx)->bytes, bytes[p], "physical adapter %u", p);
	}
	fx_fini(&fx);
}

/*
 * A shared section smaller than a page for each: the reference KMD's layout
 * leaves the last adapters nothing to save, which Dxgkrnl has no rule
 * against. The adapter starts; the note says it.
 */
Test(fbsave, shared_section_too_small_to_deal_out_starts_and_is_noted)
{
	uint64_t vram, bytes, off;
	struct fx fx;

	fx_defaults(&fx);
	fx_set_phys(&fx, 0, 3);
	fx.scn.adapters[0].fb_save_mode = FB_SAVE_SHARED;
	fx.scn.adapters[0].phys[0].fb_save_size = 8192;
	fx.scn.adapters[0].phys[1].fb_save_size = 0;
	fx.scn.adapters[0].phys[2].fb_save_size = 0;
	fx_start(&fx);
	cr_assert(fx_info(&fx, 0).started, "%s", fx_info(&fx, 0).start_error);
	cr_assert(noted(&fx, "the others save nothing"));
	cr_assert_eq(core_fb_region(fx.core, 0, 2, &vram, &bytes, &off), 0);
	cr_assert_eq(bytes, 0);
	for (unsigned int p = 0; p < 2; p++) {
		cycle(&fx, p, PATH_PINNED, PATH_PINNED);
		cr_assert(last_record(&fx)->verified, "physical adapter %u", p);
	}
	cycle(&fx, 2, PATH_NONE, PATH_NONE);
	cr_assert_eq(fx_violations(&fx, CORE_V_FB_RESTORE_MISMATCH), 0, "%s", fx_violation_text(&fx));
	fx_fini(&fx);
}

/*
 * A driver without IoMmuSecureModeSupported is not asked its save size, so
 * it has no save area; a size it would report that is not a page multiple
 * is its error all the same: a note, not a silent "save area 0B".
 */
Test(fbsave, a_save_size_not_asked_is_still_checked)
{
	struct fx fx;

	fx_defaults(&fx);
	fx.scn.adapters[0].caps.iommu_secure_mode = false;
	fx.scn.adapters[0].phys[0].fb_save_size = 1;
	fx_start(&fx);
	cr_assert(fx_info(&fx, 0).started, "%s", fx_info(&fx, 0).start_error);
	cr_assert(noted(&fx, "save size 0x1 of physical adapter 0 is not a multiple of GPUISO_PAGE_SIZE"));
	fx_fini(&fx);
}

/* A KMD whose save size changes at each power-down: @sizes in turn, counting the asks. */
struct changing_kmd {
	const uint64_t *sizes;
	size_t asked;
};

static int changing_qai(struct core *core, void *kmd, unsigned int adapter, enum qai_type type,
			unsigned int phys, void *out)
{
	struct changing_kmd *k = kmd;

	if (type != QAI_FRAMEBUFFERSAVESIZE_NOW)
		return core_kmd_reference()->query_adapter_info(core, kmd, adapter, type, phys, out);
	*(uint64_t *)out = k->sizes[k->asked++];
	return 0;
}

/*
 * "The exact amount of memory required by the driver can change
 * dynamically, but Dxgkrnl takes a commit charge on the upper bound at the
 * time when the adapter is initialized": the size is asked at each
 * power-down (not at the power-up, which restores what was saved), each
 * save covers what the driver said, and a size above the charge or not of
 * whole pages is FB_SAVE_SIZE (all of it saved then). Every restore is
 * checked over what was saved.
 */
Test(fbsave, the_save_size_is_asked_at_each_power_down)
{
	static const uint64_t sizes[] = { SAVE / 4, SAVE, 2 * SAVE, SAVE / 2 + 1, 0 };
	static const uint64_t saved[] = { SAVE / 4, SAVE, SAVE, SAVE, 0 };
	static const struct kmd_ops ops = { .query_adapter_info = changing_qai };
	struct changing_kmd k = { .sizes = sizes };
	struct fx fx;

	defaults_small(&fx);
	fx_start_kmd(&fx, &ops, &k);
	cr_assert_eq(core_physmem(fx.core)->usage.committed, SAVE + 4096, "the maximum, at start");
	for (size_t i = 0; i < ARRAY_SIZE(sizes); i++) {
		enum power_path path = saved[i] ? PATH_PINNED : PATH_NONE;

		cycle(&fx, 0, path, path);
		cr_assert_eq(k.asked, i + 1, "asked at each power-down, once");
		cr_assert_eq(last_record(&fx)->bytes, saved[i], "cycle %zu", i);
		cr_assert(!saved[i] || last_record(&fx)->verified, "cycle %zu", i);
	}
	cr_assert_eq(fx_violations(&fx, CORE_V_FB_SAVE_SIZE), 2, "%s", fx_violation_text(&fx));
	cr_assert_eq(fx_violations(&fx, CORE_V_FB_RESTORE_MISMATCH), 0, "%s", fx_violation_text(&fx));
	fx_fini(&fx);
}

/* A trace's fb_save_size is what the reference KMD answers at the next power-downs. */
Test(fbsave, the_reference_kmd_answers_the_size_the_trace_gave)
{
	struct physmem_pressure p = { UINT64_MAX, SAVE / 2, UINT64_MAX };
	struct fx fx;

	defaults_small(&fx);
	fx_start(&fx);
	cr_assert_eq(core_fb_save_size(fx.core, 0, 1, SAVE), -ENOENT);
	cr_assert_eq(core_fb_save_size(fx.core, 1, 0, SAVE), -ENOENT);
	cr_assert_eq(core_fb_save_size(fx.core, 0, 0, SAVE / 4), 0);
	cycle(&fx, 0, PATH_PINNED, PATH_PINNED);
	cr_assert_eq(last_record(&fx)->bytes, SAVE / 4);
	cr_assert(last_record(&fx)->verified);
	/* a pin locks the whole section whatever is saved; chunks copy only what is */
	core_memory(fx.core, &p);
	cycle(&fx, 0, PATH_CHUNKED, PATH_CHUNKED);
	cr_assert_eq(last_record(&fx)->bytes, SAVE / 4);
	cr_assert(last_record(&fx)->verified);
	fx_assert_no_violations(&fx);
	fx_fini(&fx);
}
