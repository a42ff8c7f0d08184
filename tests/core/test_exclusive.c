/* SPDX-License-Identifier: MIT */
/* Exclusive access around every domain attach and detach. */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "fixture.h"

enum misdeed { BEHAVE, CALLBACK_INSIDE, DMA_INSIDE, COPY_INSIDE, QUEUE_INSIDE };

struct spy {
	enum misdeed misdeed;
	unsigned int begins, ends;
	uint32_t domain_at_begin, domain_at_end;
	unsigned int pending_at_begin;
	int callback_rc;
	core_handle_t buffer; /* memory for the misbehaving DMA */
};

static void spy_begin(struct core *core, void *kmd, unsigned int adapter)
{
	struct spy *spy = kmd;
	struct core_phys_info pi;
	struct hw *hw = core_hw(core);
	core_handle_t h;
	iova_t iova;
	uint8_t byte = 0;

	spy->begins++;
	core_phys_info(core, adapter, 0, &pi);
	spy->domain_at_begin = pi.domain;
	spy->pending_at_begin = hw->ops->gpu_pending(hw, 0);
	switch (spy->misdeed) {
	case BEHAVE:
		break;
	case CALLBACK_INSIDE:
		spy->callback_rc = core_alloc_mdl(core, adapter, 4096, &h);
		break;
	case DMA_INSIDE:
		core_handle_iova(core, spy->buffer, 0, &iova);
		hw->ops->dma(hw, 0, iova, &byte, 1, true);
		break;
	case COPY_INSIDE:
		spy->callback_rc = core_gpu_copy(core, adapter, 0, HW_COPY_TO_SYSTEM, 0, spy->buffer,
						 0, 4096);
		break;
	case QUEUE_INSIDE:
		core_handle_iova(core, spy->buffer, 0, &iova);
		hw->ops->gpu_submit(hw, 0, &(struct hw_job){ .iova = iova, .len = 64 });
		break;
	}
}

static void spy_end(struct core *core, void *kmd, unsigned int adapter)
{
	struct spy *spy = kmd;
	struct core_phys_info pi;

	spy->ends++;
	core_phys_info(core, adapter, 0, &pi);
	spy->domain_at_end = pi.domain;
}

static const struct kmd_ops spy_ops = {
	.begin_exclusive_access = spy_begin,
	.end_exclusive_access = spy_end,
};

/* Staging key: the attach happens at core_secure_vm_create(), after the test set things up. */
static void start_staged(struct fx *fx, struct spy *spy)
{
	fx_defaults(fx);
	fx->scn.registry.iommu_flags = 0;
	fx->scn.registry.secure_vm_staging = true;
	fx_start_kmd(fx, &spy_ops, spy);
	cr_assert_eq(core_alloc_mdl(fx->core, 0, 4096, &spy->buffer), 0);
}

Test(exclusive, attach_happens_between_begin_and_end)
{
	struct spy spy = { 0 };
	struct fx fx;

	fx_defaults(&fx);
	fx_start_kmd(&fx, &spy_ops, &spy);
	cr_assert_eq(spy.begins, 1);
	cr_assert_eq(spy.ends, 1);
	cr_assert_eq(spy.domain_at_begin, UINT32_MAX, "attached before BeginExclusiveAccess");
	cr_assert_eq(spy.domain_at_end, fx_info(&fx, 0).domain);
	cr_assert_eq(fx_violations(&fx, CORE_V_CB_IN_EXCLUSIVE) +
			     fx_violations(&fx, CORE_V_DMA_IN_EXCLUSIVE),
		     0);
	core_stop(fx.core);
	cr_assert_eq(spy.begins, 2, "detach at teardown is not bracketed");
	cr_assert_eq(spy.ends, 2);
	cr_assert_eq(spy.domain_at_end, UINT32_MAX);
	fx_fini(&fx);
}

Test(exclusive, callback_inside_is_refused_and_reported)
{
	struct spy spy = { .misdeed = CALLBACK_INSIDE };
	struct fx fx;

	start_staged(&fx, &spy);
	cr_assert_eq(core_secure_vm_create(fx.core, 0), 0);
	cr_assert_eq(spy.callback_rc, -EPERM);
	cr_assert_eq(fx_violations(&fx, CORE_V_CB_IN_EXCLUSIVE), 1, "%s", fx_violation_text(&fx));
	cr_assert(fx_info(&fx, 0).attached, "the attach itself still completes");
	cr_assert_eq(core_free_mdl(fx.core, 0, spy.buffer), 0);
	fx_fini(&fx);
}

Test(exclusive, device_dma_inside_is_a_violation)
{
	struct spy spy = { .misdeed = DMA_INSIDE };
	struct fx fx;

	start_staged(&fx, &spy);
	cr_assert_eq(core_secure_vm_create(fx.core, 0), 0);
	cr_assert_eq(fx_violations(&fx, CORE_V_DMA_IN_EXCLUSIVE), 1, "%s", fx_violation_text(&fx));
	cr_assert_eq(core_free_mdl(fx.core, 0, spy.buffer), 0);
	fx_fini(&fx);
}

Test(exclusive, gpu_work_inside_is_refused)
{
	struct spy spy = { .misdeed = COPY_INSIDE };
	struct fx fx;

	start_staged(&fx, &spy);
	cr_assert_eq(core_secure_vm_create(fx.core, 0), 0);
	cr_assert_eq(spy.callback_rc, -EPERM);
	cr_assert_eq(fx_violations(&fx, CORE_V_WORK_IN_EXCLUSIVE), 1, "%s", fx_violation_text(&fx));
	cr_assert_eq(fx_violations(&fx, CORE_V_DMA_IN_EXCLUSIVE), 0, "refused work must not run");
	cr_assert_eq(core_free_mdl(fx.core, 0, spy.buffer), 0);
	fx_fini(&fx);
}

Test(exclusive, work_queued_inside_is_reported)
{
	struct spy spy = { .misdeed = QUEUE_INSIDE };
	struct fx fx;

	start_staged(&fx, &spy);
	cr_assert_eq(core_secure_vm_create(fx.core, 0), 0);
	cr_assert_eq(fx_violations(&fx, CORE_V_WORK_IN_EXCLUSIVE), 1, "%s", fx_violation_text(&fx));
	cr_assert_eq(core_free_mdl(fx.core, 0, spy.buffer), 0);
	fx_fini(&fx);
}

Test(exclusive, in_flight_work_is_flushed_before_begin)
{
	struct spy spy = { 0 };
	struct hw *hw;
	struct fx fx;
	iova_t iova;

	start_staged(&fx, &spy);
	hw = core_hw(fx.core);
	cr_assert_eq(core_handle_iova(fx.core, spy.buffer, 0, &iova), 0);
	cr_assert_eq(hw->ops->gpu_submit(hw, 0, &(struct hw_job){ .iova = iova, .len = 4096 }), 0);
	cr_assert_eq(hw->ops->gpu_pending(hw, 0), 1);
	cr_assert_eq(core_secure_vm_create(fx.core, 0), 0);
	cr_assert_eq(spy.pending_at_begin, 0, "work still queued at BeginExclusiveAccess");
	cr_assert_eq(fx_violations(&fx, CORE_V_WORK_IN_EXCLUSIVE), 0);
	cr_assert_eq(fx_violations(&fx, CORE_V_DMA_IN_EXCLUSIVE), 0, "%s", fx_violation_text(&fx));
	cr_assert_eq(core_free_mdl(fx.core, 0, spy.buffer), 0);
	fx_fini(&fx);
}

Test(exclusive, every_physical_adapter_switches_inside_one_bracket)
{
	struct spy spy = { 0 };
	struct fx fx;

	fx_defaults(&fx);
	fx_set_phys(&fx, 0, 3);
	fx_start_kmd(&fx, &spy_ops, &spy);
	cr_assert_eq(spy.begins, 1);
	for (unsigned int p = 0; p < 3; p++) {
		struct core_phys_info pi;

		core_phys_info(fx.core, 0, p, &pi);
		cr_assert_eq(pi.domain, fx_info(&fx, 0).domain);
	}
	fx_fini(&fx);
}

Test(exclusive, logical_mode_attaches_before_the_device_starts)
{
	struct spy spy = { 0 };
	struct fx fx;

	fx_defaults(&fx);
	fx_need_remap(&fx, 0);
	fx_start_kmd(&fx, &spy_ops, &spy);
	cr_assert(fx_info(&fx, 0).attached);
	cr_assert_eq(spy.begins, 0, "a device not yet started has no work to silence");
	core_stop(fx.core);
	cr_assert_eq(spy.begins, 1);
	cr_assert_eq(spy.ends, 1);
	fx_fini(&fx);
}
