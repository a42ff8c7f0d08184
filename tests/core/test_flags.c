/* SPDX-License-Identifier: MIT */
/* IOMMUFlags, the secure-VM staging key, AllowFailure, and domains per logical adapter. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdarg.h>
#include <string.h>

#include "fixture.h"

static struct core_adapter_info start_with_flags(struct fx *fx, uint32_t flags)
{
	fx_defaults(fx);
	fx->scn.registry.iommu_flags = flags;
	fx_start(fx);
	return fx_info(fx, 0);
}

static bool has_note(const struct core_adapter_info *info, const char *text)
{
	for (size_t i = 0; i < info->nerrors; i++)
		if (strstr(info->errors[i], text))
			return true;
	return false;
}

Test(flags, zero_leaves_iommu_disabled)
{
	struct fx fx;
	struct core_adapter_info info = start_with_flags(&fx, 0);

	cr_assert(info.started);
	cr_assert_not(info.iommu_enabled);
	cr_assert_not(info.mappings);
	cr_assert_not(info.attached);
	cr_assert_eq(info.domain, UINT32_MAX);
	cr_assert_eq(info.mode, MODE_NONE);
	cr_assert_eq(info.attach_on, ATTACH_NEVER);
	fx_fini(&fx);
}

Test(flags, enabled_alone_creates_the_domain_only)
{
	struct fx fx;
	struct core_adapter_info info = start_with_flags(&fx, IOMMU_FLAG_ENABLED);

	cr_assert(info.iommu_enabled);
	cr_assert_neq(info.domain, UINT32_MAX);
	cr_assert_not(info.mappings);
	cr_assert_not(info.attached);
	cr_assert_eq(info.mode, MODE_PHYSICAL);
	fx_fini(&fx);
}

Test(flags, mappings_without_enabled_do_nothing)
{
	struct fx fx;
	struct core_adapter_info info =
		start_with_flags(&fx, IOMMU_FLAG_ENABLE_MAPPINGS | IOMMU_FLAG_ENABLE_ATTACH);

	cr_assert_not(info.iommu_enabled);
	cr_assert_not(info.mappings);
	cr_assert_not(info.attached);
	fx_fini(&fx);
}

Test(flags, enabled_and_mappings_map_but_do_not_attach)
{
	struct fx fx;
	struct core_adapter_info info =
		start_with_flags(&fx, IOMMU_FLAG_ENABLED | IOMMU_FLAG_ENABLE_MAPPINGS);
	struct core_phys_info pi;
	struct hw_stats st;

	cr_assert(info.iommu_enabled);
	cr_assert(info.mappings);
	cr_assert_not(info.attached);
	cr_assert_eq(info.attach_on, ATTACH_NEVER);
	cr_assert_eq(core_phys_info(fx.core, 0, 0, &pi), 0);
	cr_assert_eq(pi.domain, UINT32_MAX);
	/* the small buffer and the reserved range were written into the page tables */
	core_hw(fx.core)->ops->stats(core_hw(fx.core), &st);
	cr_assert_gt(st.pte_writes, 0);
	fx_fini(&fx);
}

Test(flags, attach_without_mappings_is_ignored)
{
	struct fx fx;
	struct core_adapter_info info =
		start_with_flags(&fx, IOMMU_FLAG_ENABLED | IOMMU_FLAG_ENABLE_ATTACH);

	cr_assert(info.iommu_enabled);
	cr_assert_not(info.mappings);
	cr_assert_not(info.attached);
	fx_fini(&fx);
}

Test(flags, all_three_attach_at_start)
{
	struct fx fx;
	struct core_adapter_info info = start_with_flags(&fx, 0x07);
	struct core_phys_info pi;

	cr_assert(info.attached);
	cr_assert(info.mappings);
	cr_assert_eq(info.attach_on, ATTACH_AT_START);
	cr_assert_eq(info.mode, MODE_PHYSICAL);
	cr_assert_eq(core_phys_info(fx.core, 0, 0, &pi), 0);
	cr_assert_eq(pi.domain, info.domain);
	fx_fini(&fx);
}

Test(flags, missing_driver_cap_ignores_enabled_bits)
{
	struct fx fx;
	struct core_adapter_info info;

	fx_defaults(&fx);
	fx.scn.adapters[0].caps.iommu_secure_mode = false;
	fx_start(&fx);
	info = fx_info(&fx, 0);
	cr_assert(info.started);
	cr_assert_not(info.iommu_enabled);
	cr_assert_not(info.attached);
	cr_assert(has_note(&info, "IoMmuSecureModeSupported"), "no note about the ignored bits");
	fx_fini(&fx);
}

Test(flags, bypass_driver_cap_enables_anyway)
{
	struct fx fx;
	struct core_adapter_info info;

	fx_defaults(&fx);
	fx.scn.adapters[0].caps.iommu_secure_mode = false;
	fx.scn.registry.iommu_flags = 0x07 | IOMMU_FLAG_BYPASS_DRIVER_CAP;
	fx_start(&fx);
	info = fx_info(&fx, 0);
	cr_assert(info.iommu_enabled);
	cr_assert(info.attached);
	cr_assert_eq(info.nerrors, 0, "%s", info.errors[0]);
	fx_fini(&fx);
}

static struct core_adapter_info start_with_failure(struct fx *fx, uint32_t flags,
						   enum fp_point point, struct fp_ctx *fp)
{
	memset(fp, 0, sizeof(*fp));
	fp_arm(fp, point, &(struct fp_rule){ .nth = 1 });
	fx_defaults(fx);
	fx->scn.registry.iommu_flags = flags;
	fx_create(fx);
	core_set_faults(fx->core, fp);
	cr_assert_eq(core_start(fx->core), 0);
	return fx_info(fx, 0);
}

Test(flags, enablement_failure_stops_the_adapter)
{
	struct fp_ctx fp;
	struct fx fx;
	struct core_adapter_info info = start_with_failure(&fx, 0x07, FP_ADAPTER_ENABLE, &fp);

	cr_assert_not(info.started);
	cr_assert(strstr(info.start_error, "IOMMU enablement failed"), "%s", info.start_error);
	cr_assert_eq(fp.injected[FP_ADAPTER_ENABLE], 1);
	cr_assert_eq(core_live_handles(fx.core), 0, "the KMD's small buffer was not released");
	fx_fini(&fx);
}

Test(flags, allow_failure_lets_the_adapter_start_without_iommu)
{
	struct fp_ctx fp;
	struct fx fx;
	struct core_adapter_info info =
		start_with_failure(&fx, 0x07 | IOMMU_FLAG_ALLOW_FAILURE, FP_ADAPTER_ENABLE, &fp);
	core_handle_t mdl;

	cr_assert(info.started);
	cr_assert_not(info.iommu_enabled);
	cr_assert_not(info.attached);
	cr_assert(has_note(&info, "AllowFailure"));
	/* the adapter works (passthrough) */
	cr_assert_eq(core_alloc_mdl(fx.core, 0, 4096, &mdl), 0);
	cr_assert_eq(fx_dma_write(&fx, 0, 0, mdl, 0, 4096, 0x11), 0);
	cr_assert_eq(core_free_mdl(fx.core, 0, mdl), 0);
	fx_fini(&fx);
}

Test(flags, allow_failure_after_a_failed_attach_undoes_everything)
{
	struct fp_ctx fp;
	struct fx fx;
	struct core_adapter_info info =
		start_with_failure(&fx, 0x07 | IOMMU_FLAG_ALLOW_FAILURE, FP_DOMAIN_ATTACH, &fp);
	struct core_phys_info pi;

	cr_assert(info.started);
	cr_assert_not(info.iommu_enabled);
	cr_assert_not(info.mappings);
	cr_assert_eq(info.domain, UINT32_MAX);
	cr_assert_eq(core_phys_info(fx.core, 0, 0, &pi), 0);
	cr_assert_eq(pi.domain, UINT32_MAX);
	fx_fini(&fx);
}

/* AllowFailure covers the start only: with the staging key, a secure VM still attaches. */
Test(flags, allow_failure_at_start_still_attaches_at_a_secure_vm)
{
	struct fp_ctx fp;
	struct fx fx;
	struct core_adapter_info info;

	memset(&fp, 0, sizeof(fp));
	fp_arm(&fp, FP_ADAPTER_ENABLE, &(struct fp_rule){ .nth = 1 });
	fx_defaults(&fx);
	fx.scn.registry.iommu_flags = 0x07 | IOMMU_FLAG_ALLOW_FAILURE;
	fx.scn.registry.secure_vm_staging = true;
	fx_create(&fx);
	core_set_faults(fx.core, &fp);
	cr_assert_eq(core_start(fx.core), 0);
	info = fx_info(&fx, 0);
	cr_assert(info.started, "%s", info.start_error);
	cr_assert_not(info.attached);
	cr_assert_eq(info.attach_on, ATTACH_AT_SECURE_VM, "attach on %d", info.attach_on);
	cr_assert_eq(core_secure_vm_create(fx.core, 0), 0);
	cr_assert(fx_info(&fx, 0).attached);
	fx_fini(&fx);
}

Test(flags, staging_key_attaches_at_first_secure_vm)
{
	struct fx fx;
	struct core_adapter_info info;

	fx_defaults(&fx);
	fx.scn.registry.iommu_flags = 0;
	fx.scn.registry.secure_vm_staging = true;
	fx_start(&fx);
	info = fx_info(&fx, 0);
	cr_assert_eq(info.attach_on, ATTACH_AT_SECURE_VM);
	cr_assert_not(info.iommu_enabled);
	cr_assert_not(info.attached);

	cr_assert_eq(core_secure_vm_create(fx.core, 0), 0);
	info = fx_info(&fx, 0);
	cr_assert(info.iommu_enabled);
	cr_assert(info.mappings);
	cr_assert(info.attached);
	uint32_t domain = info.domain;

	cr_assert_eq(core_secure_vm_create(fx.core, 0), 0);
	cr_assert_eq(fx_info(&fx, 0).domain, domain, "a second secure VM must not switch domains");
	fx_fini(&fx);
}

Test(flags, secure_vm_fails_without_driver_support_even_with_allow_failure)
{
	struct fx fx;

	fx_defaults(&fx);
	fx.scn.registry.iommu_flags = IOMMU_FLAG_ALLOW_FAILURE;
	fx.scn.registry.secure_vm_staging = true;
	fx.scn.adapters[0].caps.iommu_secure_mode = false;
	fx_start(&fx);
	cr_assert_eq(fx_info(&fx, 0).attach_on, ATTACH_NEVER);
	cr_assert_eq(core_secure_vm_create(fx.core, 0), -ENOTSUP);
	cr_assert_not(fx_info(&fx, 0).attached);
	fx_fini(&fx);
}

Test(flags, allow_failure_does_not_cover_the_secure_vm_path)
{
	struct fp_ctx fp = { 0 };
	struct fx fx;

	fx_defaults(&fx);
	fx.scn.registry.iommu_flags = IOMMU_FLAG_ALLOW_FAILURE;
	fx.scn.registry.secure_vm_staging = true;
	fx_create(&fx);
	core_set_faults(fx.core, &fp);
	cr_assert_eq(core_start(fx.core), 0);
	fp_arm(&fp, FP_DOMAIN_ATTACH, &(struct fp_rule){ .nth = 1 });
	cr_assert_eq(core_secure_vm_create(fx.core, 0), -EIO);
	cr_assert_not(fx_info(&fx, 0).attached);
	cr_assert_not(fx_info(&fx, 0).iommu_enabled);
	/* the next secure VM tries again and succeeds */
	cr_assert_eq(core_secure_vm_create(fx.core, 0), 0);
	cr_assert(fx_info(&fx, 0).attached);
	fx_fini(&fx);
}

Test(flags, without_staging_a_secure_vm_leaves_the_iommu_alone)
{
	struct fx fx;

	fx_defaults(&fx);
	fx.scn.registry.iommu_flags = 0;
	fx_start(&fx);
	cr_assert_eq(core_secure_vm_create(fx.core, 0), 0);
	cr_assert_not(fx_info(&fx, 0).iommu_enabled);
	fx_fini(&fx);
}

Test(flags, iommu_cannot_be_disabled_once_enabled)
{
	struct fx fx;

	start_with_flags(&fx, 0x07);
	cr_assert_eq(core_iommu_disable(fx.core, 0), -EPERM);
	cr_assert(fx_info(&fx, 0).iommu_enabled);
	cr_assert(fx_info(&fx, 0).attached);
	fx_fini(&fx);

	start_with_flags(&fx, 0);
	cr_assert_eq(core_iommu_disable(fx.core, 0), -EINVAL);
	fx_fini(&fx);
}

/* --- the order of Dxgkrnl's calls into the KMD --- */

struct call_log {
	char calls[64][40];
	size_t n;
};

static void log_call(struct call_log *log, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void log_call(struct call_log *log, const char *fmt, ...)
{
	va_list ap;

	if (log->n >= 64)
		return;
	va_start(ap, fmt);
	vsnprintf(log->calls[log->n++], sizeof(log->calls[0]), fmt, ap);
	va_end(ap);
}

static int logging_qai(struct core *core, void *kmd, unsigned int adapter, enum qai_type type,
		       unsigned int phys, void *out)
{
	log_call(kmd, "qai %u", type);
	return core_kmd_reference()->query_adapter_info(core, kmd, adapter, type, phys, out);
}

static int logging_start(struct core *core, void *kmd, unsigned int adapter)
{
	log_call(kmd, "start %u", adapter);
	return core_kmd_reference()->start_device(core, kmd, adapter);
}

static size_t index_of(const struct call_log *log, const char *call)
{
	for (size_t i = 0; i < log->n; i++)
		if (!strcmp(log->calls[i], call))
			return i;
	return SIZE_MAX;
}

Test(flags, caps_are_queried_before_start_device)
{
	static const struct kmd_ops ops = { .query_adapter_info = logging_qai,
					    .start_device = logging_start };
	struct call_log log = { 0 };
	struct fx fx;
	char name[40];

	fx_defaults(&fx);
	fx_start_kmd(&fx, &ops, &log);
	size_t start = index_of(&log, "start 0");

	cr_assert_neq(start, SIZE_MAX);
	for (unsigned int t = QAI_DRIVERCAPS; t <= QAI_FRAMEBUFFERSAVESIZE; t++) {
		snprintf(name, sizeof(name), "qai %u", t);
		cr_assert_lt(index_of(&log, name), start, "%s not before START_DEVICE", name);
	}
	fx_fini(&fx);
}

/* --- one domain per logical adapter --- */

Test(domains, lda_chain_shares_one_domain)
{
	struct fx fx;
	struct core_adapter_info info;

	fx_defaults(&fx);
	fx_set_phys(&fx, 0, 3);
	fx_start(&fx);
	info = fx_info(&fx, 0);
	cr_assert(info.attached);
	for (unsigned int p = 0; p < 3; p++) {
		struct core_phys_info pi;

		cr_assert_eq(core_phys_info(fx.core, 0, p, &pi), 0);
		cr_assert_eq(pi.domain, info.domain, "physical adapter %u", p);
	}
	fx_fini(&fx);
}

Test(domains, logical_adapters_get_their_own_domains)
{
	struct fx fx;
	core_handle_t m0, m1;
	iova_t i0;

	fx_defaults(&fx);
	fx_add_adapter(&fx, "gpu1");
	fx_start(&fx);
	cr_assert_neq(fx_info(&fx, 0).domain, fx_info(&fx, 1).domain);
	/* memory given to adapter 0 is not reachable by adapter 1's device */
	cr_assert_eq(core_alloc_mdl(fx.core, 0, 4096, &m0), 0);
	cr_assert_eq(core_alloc_mdl(fx.core, 1, 4096, &m1), 0);
	cr_assert_eq(core_handle_iova(fx.core, m0, 0, &i0), 0);
	uint8_t buf[64] = { 0 };
	struct hw *hw = core_hw(fx.core);

	cr_assert_eq(hw->ops->dma(hw, 0, i0, buf, sizeof(buf), true), 0);
	cr_assert_eq(hw->ops->dma(hw, 1, i0, buf, sizeof(buf), true), -EFAULT);
	cr_assert_eq(core_free_mdl(fx.core, 0, m0), 0);
	cr_assert_eq(core_free_mdl(fx.core, 1, m1), 0);
	fx_fini(&fx);
}

/*
 * EnableMappings "Maps all physical memory to the domain" in the seed; the
 * model maps all memory the GPU is given (docs/model.md, "IOMMUFlags",
 * why). Attached, the device reaches what it was given and nothing else:
 * not RAM it was never given, not an MDL after its free.
 */
Test(flags, enable_mappings_maps_the_memory_given_not_all_ram)
{
	struct fx fx;
	struct core_adapter_info info = start_with_flags(&fx, 0x07);
	struct hw *hw = core_hw(fx.core);
	const pa_t never_given = 0x180000000ull; /* RAM of default.yaml's map, not the GPU's */
	struct hw_fault f;
	uint8_t buf[64] = { 0 };
	core_handle_t mdl;
	iova_t iova;

	cr_assert(info.mappings && info.attached);
	cr_assert_eq(core_alloc_mdl(fx.core, 0, 4096, &mdl), 0);
	iova = fx_iova_of(&fx, mdl, 0);
	cr_assert_eq(hw->ops->dma(hw, 0, iova, buf, sizeof(buf), true), 0, "given: reached");
	cr_assert_eq(hw->ops->dma(hw, 0, never_given, buf, sizeof(buf), true), -EFAULT,
		     "RAM never given to the GPU is not mapped");
	cr_assert_eq(core_free_mdl(fx.core, 0, mdl), 0);
	cr_assert_eq(hw->ops->dma(hw, 0, iova, buf, sizeof(buf), false), -EFAULT,
		     "freed: no longer mapped");
	while (!hw->ops->fault_pop(hw, &f))
		;
	fx_fini(&fx);
}
