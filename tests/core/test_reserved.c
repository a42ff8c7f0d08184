/* SPDX-License-Identifier: MIT */
/* Hardware-reserved ranges: the two-call query, validation, mapped before the attach. */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "fixture.h"

struct qlog {
	unsigned int count_calls, array_calls;
	size_t count_seen;
	unsigned int begins;
	unsigned int queries_before_begin;
	uint64_t pte_writes_at_begin;
};

static int q_qai(struct core *core, void *kmd, unsigned int adapter, enum qai_type type,
		 unsigned int phys, void *out)
{
	struct qlog *log = kmd;

	if (type == QAI_HARDWARERESERVEDRANGES) {
		struct qai_reserved *q = out;

		if (q->ranges) {
			log->array_calls++;
			log->count_seen = q->count;
		} else {
			log->count_calls++;
		}
		if (!log->begins)
			log->queries_before_begin++;
	}
	return core_kmd_reference()->query_adapter_info(core, kmd, adapter, type, phys, out);
}

static void q_begin(struct core *core, void *kmd, unsigned int adapter)
{
	struct qlog *log = kmd;
	struct hw_stats st;

	core_hw(core)->ops->stats(core_hw(core), &st);
	if (!log->begins++)
		log->pte_writes_at_begin = st.pte_writes;
}

static const struct kmd_ops q_ops = { .query_adapter_info = q_qai, .begin_exclusive_access = q_begin };

Test(reserved, queried_twice_count_then_array_before_the_attach)
{
	struct qlog log = { 0 };
	struct fx fx;

	fx_defaults(&fx);
	fx_start_kmd(&fx, &q_ops, &log);
	cr_assert_eq(log.count_calls, 1);
	cr_assert_eq(log.array_calls, 1);
	cr_assert_eq(log.count_seen, 1);
	cr_assert_eq(log.queries_before_begin, 2);
	/* 16 MiB at 0xC0000000 is eight 2 MiB pages, written before BeginExclusiveAccess */
	cr_assert_geq(log.pte_writes_at_begin, 8);
	fx_fini(&fx);
}

Test(reserved, no_ranges_means_one_query)
{
	struct qlog log = { 0 };
	struct fx fx;

	fx_defaults(&fx);
	fx.scn.adapters[0].phys[0].nreserved = 0;
	fx_start_kmd(&fx, &q_ops, &log);
	cr_assert_eq(log.count_calls, 1);
	cr_assert_eq(log.array_calls, 0);
	fx_fini(&fx);
}

Test(reserved, the_device_reaches_its_reserved_range_and_nothing_beside_it)
{
	struct hw *hw;
	uint8_t buf[64] = { 1 };
	struct fx fx;

	fx_defaults(&fx);
	fx_start(&fx);
	hw = core_hw(fx.core);
	cr_assert_eq(hw->ops->dma(hw, 0, 0xC0000000ull, buf, sizeof(buf), true), 0);
	cr_assert_eq(hw->ops->dma(hw, 0, 0xC0000000ull + (16 << 20) - 64, buf, sizeof(buf), false), 0);
	cr_assert_eq(hw->ops->dma(hw, 0, 0xC0000000ull + (16 << 20), buf, sizeof(buf), true), -EFAULT);
	cr_assert_eq(hw->ops->dma(hw, 0, 0xBFFFF000ull, buf, sizeof(buf), true), -EFAULT);
	fx_fini(&fx);
}

static struct core_adapter_info start_with_range(struct fx *fx, uint64_t base, uint64_t size,
						 uint32_t flags)
{
	fx_defaults(fx);
	fx->scn.registry.iommu_flags = flags;
	fx->scn.adapters[0].phys[0].reserved[0] = (struct range_extent){ base, size };
	fx_start(fx);
	return fx_info(fx, 0);
}

Test(reserved, a_range_over_os_memory_is_rejected)
{
	struct core_adapter_info info;
	struct fx fx;

	info = start_with_range(&fx, 0x100000, 0x10000, 0x07);
	cr_assert_not(info.started);
	cr_assert(strstr(info.start_error, "overlaps OS-managed memory"), "%s", info.start_error);
	cr_assert(strstr(info.start_error, "0x100000"), "the range is not named: %s", info.start_error);
	fx_fini(&fx);

	/* straddling the end of the low RAM range counts too */
	info = start_with_range(&fx, 0x7FFFF000, 0x2000, 0x07);
	cr_assert_not(info.started);
	fx_fini(&fx);
}

Test(reserved, allow_failure_starts_without_iommu_and_says_why)
{
	struct core_adapter_info info;
	struct fx fx;

	info = start_with_range(&fx, 0x100000, 0x10000, 0x07 | IOMMU_FLAG_ALLOW_FAILURE);
	cr_assert(info.started);
	cr_assert_not(info.iommu_enabled);
	bool said = false;

	for (size_t i = 0; i < info.nerrors; i++)
		said |= strstr(info.errors[i], "overlaps OS-managed memory") != NULL;
	cr_assert(said, "the reason is not reported");
	fx_fini(&fx);
}

Test(reserved, unaligned_ranges_are_rejected)
{
	struct core_adapter_info info;
	struct fx fx;

	info = start_with_range(&fx, 0xC0000800, 0x1000, 0x07);
	cr_assert_not(info.started);
	cr_assert(strstr(info.start_error, "page aligned"), "%s", info.start_error);
	fx_fini(&fx);
}

Test(reserved, mapped_when_the_secure_vm_attaches)
{
	struct qlog log = { 0 };
	struct hw *hw;
	uint8_t byte = 0;
	struct fx fx;

	fx_defaults(&fx);
	fx.scn.registry.iommu_flags = 0;
	fx.scn.registry.secure_vm_staging = true;
	fx_start_kmd(&fx, &q_ops, &log);
	cr_assert_eq(log.count_calls, 0, "queried before the IOMMU was enabled");
	cr_assert_eq(core_secure_vm_create(fx.core, 0), 0);
	cr_assert_eq(log.queries_before_begin, 2);
	hw = core_hw(fx.core);
	cr_assert_eq(hw->ops->dma(hw, 0, 0xC0000000ull, &byte, 1, true), 0);
	fx_fini(&fx);
}

/* Logical space is [0, 4 GiB); the range at 3 GiB splits it. Returns core_adl_alloc()'s result. */
static int adl_of_3gib_plus_4mib(bool reserved)
{
	uint64_t bytes = 0xC0400000ull;
	core_handle_t pmo, adl;
	struct fx fx;
	int rc;

	fx_defaults(&fx);
	fx_need_remap(&fx, 0);
	if (!reserved)
		fx.scn.adapters[0].phys[0].nreserved = 0;
	fx_start(&fx);
	cr_assert(fx_info(&fx, 0).started, "%s", fx_info(&fx, 0).start_error);
	cr_assert_eq(core_pmo_create(fx.core, 0, bytes, CACHE_CACHED, &pmo), 0);
	rc = core_adl_alloc(fx.core, 0, pmo, 0, bytes, &adl);
	if (!rc)
		cr_assert_eq(core_adl_free(fx.core, 0, adl), 0);
	cr_assert_eq(core_pmo_destroy(fx.core, 0, pmo), 0);
	fx_fini(&fx);
	return rc;
}

Test(reserved, logical_mode_keeps_them_out_of_the_logical_allocator)
{
	cr_assert_eq(adl_of_3gib_plus_4mib(false), 0);
	cr_assert_eq(adl_of_3gib_plus_4mib(true), -ENOSPC,
		     "a logical range was handed out over a reserved range");
}

Test(reserved, every_physical_adapter_is_asked)
{
	struct qlog log = { 0 };
	struct fx fx;

	fx_defaults(&fx);
	fx_set_phys(&fx, 0, 3);
	fx_start_kmd(&fx, &q_ops, &log);
	cr_assert(fx_info(&fx, 0).started, "%s", fx_info(&fx, 0).start_error);
	cr_assert_eq(log.count_calls, 3);
	cr_assert_eq(log.array_calls, 3);
	fx_fini(&fx);
}
