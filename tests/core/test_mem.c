/* SPDX-License-Identifier: MIT */
/*
 * The WDDM 2.4 memory callbacks (core/mem.c, docs/model.md "Memory
 * callbacks"): contiguous memory, pages for an MDL, MapMdlToIoMmu; the
 * handle checks (double free, unknown, wrong kind, other adapter), leaks at
 * teardown, isolation (what the IOMMU lets a device reach before and after
 * a free, before and after enablement), commit/lock accounting, memory
 * pressure and fault injection. What the gate lets through: test_mem_gate.c.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"

#define PG GPUISO_PAGE_SIZE
/* Inside RAM ([4 GiB, 66 GiB)), far above anything the tests allocate. */
#define NEVER_ALLOCATED_PA 0x200000000ull

static const struct physmem_pressure no_pressure = { UINT64_MAX, UINT64_MAX, UINT64_MAX };

/* Device writes a pattern through handle @h, reads it back, and the CPU sees it too. */
static void assert_round_trip(struct fx *fx, unsigned int adapter, core_handle_t h, uint64_t len,
			      uint8_t byte)
{
	uint8_t *back = malloc(len), *cpu = malloc(len);

	cr_assert(back && cpu);
	cr_assert_eq(fx_dma_write(fx, adapter, 0, h, 0, len, byte), 0,
		     "DMA write to 0x%x failed\n%s", h, fx_violation_text(fx));
	memset(back, 0, len);
	cr_assert_eq(fx_dma_read(fx, adapter, 0, h, 0, len, back), 0, "DMA read of 0x%x failed", h);
	cr_assert_eq(core_view_rw(fx->core, h, 0, cpu, len, false), 0);
	for (uint64_t i = 0; i < len; i++) {
		cr_assert_eq(back[i], byte, "GPU read back byte %llu = %#x", (unsigned long long)i,
			     back[i]);
		cr_assert_eq(cpu[i], byte, "CPU sees byte %llu = %#x", (unsigned long long)i, cpu[i]);
	}
	free(back);
	free(cpu);
}

/* --- contiguous memory --- */

Test(mem, contiguous_pages_are_physically_consecutive)
{
	struct fx fx;
	core_handle_t h = 0;
	iova_t logical = 0, base;
	struct physmem_usage before;

	fx_defaults(&fx);
	fx_start(&fx);
	cr_assert_eq(fx_info(&fx, 0).mode, MODE_PHYSICAL);
	before = fx_usage(&fx);
	/* rounded up to 16 pages */
	cr_assert_eq(core_alloc_contiguous(fx.core, 0, 16 * PG - 100, CACHE_CACHED, &h, &logical), 0);
	cr_assert_neq(h, 0);
	base = fx_iova_of(&fx, h, 0);
	cr_assert_eq(logical, base, "logical out %#llx vs handle iova %#llx",
		     (unsigned long long)logical, (unsigned long long)base);
	cr_assert(ALIGNED(base, PG));
	for (uint64_t i = 1; i < 16; i++)
		cr_assert_eq(fx_iova_of(&fx, h, i * PG), base + i * PG, "page %llu is not next to page %llu",
			     (unsigned long long)i, (unsigned long long)i - 1);
	cr_assert_eq(core_handle_iova(fx.core, h, 16 * PG, &logical), -ERANGE, "beyond the end");
	cr_assert_eq(fx_usage(&fx).committed, before.committed + 16 * PG);
	cr_assert_eq(fx_usage(&fx).locked, before.locked + 16 * PG);
	assert_round_trip(&fx, 0, h, 16 * PG, 0xC3);
	cr_assert_eq(core_free_contiguous(fx.core, 0, h), 0);
	fx_assert_usage_eq(fx_usage(&fx), before, "after free");
	fx_assert_no_violations(&fx);
	fx_fini(&fx);
}

Test(mem, contiguous_refused_when_no_run_is_long_enough)
{
	struct fx fx;
	core_handle_t h = 0, m = 0, ok = 0;
	struct physmem_usage before;
	size_t live;
	bool adjacent = true;

	fx_defaults(&fx);
	fx_start(&fx);
	fx_pressure(&fx, UINT64_MAX, UINT64_MAX, 4 * PG);
	before = fx_usage(&fx);
	live = core_live_handles(fx.core);
	cr_assert_eq(core_alloc_contiguous(fx.core, 0, 8 * PG, CACHE_NONCACHED, &h, NULL), -ENOMEM);
	cr_assert_eq(h, 0, "no handle on failure");
	cr_assert_eq(core_live_handles(fx.core), live);
	fx_assert_usage_eq(fx_usage(&fx), before, "after the refused allocation");
	/* a run of the allowed length is fine */
	cr_assert_eq(core_alloc_contiguous(fx.core, 0, 4 * PG, CACHE_NONCACHED, &ok, NULL), 0);
	for (uint64_t i = 1; i < 4; i++)
		cr_assert_eq(fx_iova_of(&fx, ok, i * PG), fx_iova_of(&fx, ok, 0) + i * PG);
	/* the same size as pages for an MDL succeeds, scattered */
	cr_assert_eq(core_alloc_mdl(fx.core, 0, 8 * PG, &m), 0);
	for (uint64_t i = 1; i < 8; i++)
		adjacent &= fx_iova_of(&fx, m, i * PG) == fx_iova_of(&fx, m, (i - 1) * PG) + PG;
	cr_assert(!adjacent, "under max_contiguous = 4 pages an 8-page MDL cannot be one run");
	assert_round_trip(&fx, 0, m, 8 * PG, 0x11);
	core_memory(fx.core, &no_pressure);
	cr_assert_eq(core_free_mdl(fx.core, 0, m), 0);
	cr_assert_eq(core_free_contiguous(fx.core, 0, ok), 0);
	fx_assert_no_violations(&fx);
	fx_fini(&fx);
}

/* --- pages for an MDL --- */

Test(mem, mdl_is_mapped_and_data_round_trips)
{
	struct fx fx;
	core_handle_t h = 0;
	uint8_t pattern[3 * 4096], back[3 * 4096];

	fx_defaults(&fx);
	fx_start(&fx);
	cr_assert_eq(core_alloc_mdl(fx.core, 0, 3 * PG, &h), 0);
	assert_round_trip(&fx, 0, h, 3 * PG, 0x5A);
	/* CPU writes, the GPU reads the same bytes at the same offsets */
	for (size_t i = 0; i < sizeof(pattern); i++)
		pattern[i] = (uint8_t)(i * 7 + 3);
	cr_assert_eq(core_view_rw(fx.core, h, 0, pattern, sizeof(pattern), true), 0);
	cr_assert_eq(fx_dma_read(&fx, 0, 0, h, 0, sizeof(back), back), 0);
	cr_assert_eq(memcmp(back, pattern, sizeof(back)), 0, "GPU reads what the CPU wrote");
	/* a DMA past the end is refused before reaching the device */
	cr_assert_eq(core_dma(fx.core, 0, 0, h, 2 * PG, 2 * PG, true), -ERANGE);
	cr_assert_eq(core_free_mdl(fx.core, 0, h), 0);
	fx_assert_no_violations(&fx);
	fx_fini(&fx);
}

Test(mem, freed_mdl_is_blocked_for_dma)
{
	struct fx fx;
	core_handle_t h = 0;
	iova_t first, last;
	uint8_t reason;
	size_t faults;

	fx_defaults(&fx);
	fx_start(&fx);
	cr_assert_eq(core_alloc_mdl(fx.core, 0, 2 * PG, &h), 0);
	first = fx_iova_of(&fx, h, 0);
	last = fx_iova_of(&fx, h, PG);
	fx_assert_reachable(&fx, 0, first, "live MDL");
	fx_assert_reachable(&fx, 0, last, "live MDL, 2nd page");
	cr_assert_eq(core_free_mdl(fx.core, 0, h), 0);
	fx_assert_blocked(&fx, 0, first, "freed MDL");
	fx_assert_blocked(&fx, 0, last, "freed MDL, 2nd page");
	cr_assert_eq(fx_probe_read(&fx, 0, first, &reason), -EFAULT, "a read is blocked too");
	cr_assert_eq(reason, HW_FAULT_NO_READ, "read fault reason %#x", reason);
	/* through the stale handle: refused by the model, recorded as a bad handle */
	faults = fx_faults(&fx);
	cr_assert_eq(core_dma(fx.core, 0, 0, h, 0, 64, true), -EINVAL);
	cr_assert_eq(fx_violations(&fx, CORE_V_BAD_HANDLE), 1, "%s", fx_violation_text(&fx));
	cr_assert_eq(fx_faults(&fx), faults);
	fx_fini(&fx);
}

Test(mem, freed_contiguous_is_blocked_for_dma)
{
	struct fx fx;
	core_handle_t h = 0;
	iova_t logical = 0;

	fx_defaults(&fx);
	fx_start(&fx);
	cr_assert_eq(core_alloc_contiguous(fx.core, 0, 4 * PG, CACHE_WRITECOMBINED, &h, &logical), 0);
	for (uint64_t i = 0; i < 4; i++)
		fx_assert_reachable(&fx, 0, logical + i * PG, "live contiguous memory");
	cr_assert_eq(core_free_contiguous(fx.core, 0, h), 0);
	for (uint64_t i = 0; i < 4; i++)
		fx_assert_blocked(&fx, 0, logical + i * PG, "freed contiguous memory");
	fx_assert_no_violations(&fx);
	fx_fini(&fx);
}

Test(mem, allocations_charge_commit_and_lock_until_freed)
{
	struct fx fx;
	core_handle_t mdl = 0, contig = 0, map = 0;
	struct physmem_usage base, now;

	fx_defaults(&fx);
	fx_start(&fx);
	base = fx_usage(&fx);
	cr_assert_eq(core_alloc_mdl(fx.core, 0, 5 * PG, &mdl), 0);
	now = fx_usage(&fx);
	cr_assert_eq(now.committed, base.committed + 5 * PG);
	cr_assert_eq(now.locked, base.locked + 5 * PG);
	cr_assert_eq(now.allocated, base.allocated + 5 * PG);
	cr_assert_eq(core_alloc_contiguous(fx.core, 0, 1, CACHE_CACHED, &contig, NULL), 0);
	now = fx_usage(&fx);
	cr_assert_eq(now.committed, base.committed + 6 * PG, "1 byte is one page");
	cr_assert_eq(now.locked, base.locked + 6 * PG);
	/* mapping an MDL the driver already holds takes no new memory */
	cr_assert_eq(core_map_mdl(fx.core, 0, mdl, &map, NULL), 0);
	fx_assert_usage_eq(fx_usage(&fx), now, "after MapMdlToIoMmu");
	cr_assert_eq(core_unmap_mdl(fx.core, 0, map), 0);
	fx_assert_usage_eq(fx_usage(&fx), now, "after UnmapMdlFromIoMmu");
	cr_assert_eq(core_free_mdl(fx.core, 0, mdl), 0);
	now = fx_usage(&fx);
	cr_assert_eq(now.committed, base.committed + PG);
	cr_assert_eq(now.locked, base.locked + PG);
	cr_assert_eq(core_free_contiguous(fx.core, 0, contig), 0);
	fx_assert_usage_eq(fx_usage(&fx), base, "after every free");
	fx_assert_no_violations(&fx);
	fx_fini(&fx);
}

Test(mem, zero_bytes_and_unknown_adapter_are_refused)
{
	struct fx fx;
	core_handle_t h = 0;
	size_t live;

	fx_defaults(&fx);
	fx_start(&fx);
	live = core_live_handles(fx.core);
	cr_assert_eq(core_alloc_mdl(fx.core, 0, 0, &h), -EINVAL);
	cr_assert_eq(core_alloc_contiguous(fx.core, 0, 0, CACHE_CACHED, &h, NULL), -EINVAL);
	cr_assert_eq(core_alloc_mdl(fx.core, 7, PG, &h), -ENODEV);
	cr_assert_eq(core_alloc_contiguous(fx.core, 7, PG, CACHE_CACHED, &h, NULL), -ENODEV);
	cr_assert_eq(core_live_handles(fx.core), live);
	fx_fini(&fx);
}

/* --- MapMdlToIoMmu --- */

Test(mem, map_mdl_shares_pages_with_the_mdl)
{
	struct fx fx;
	core_handle_t mdl = 0, map = 0;
	iova_t logical = 0, pa;

	fx_defaults(&fx);
	fx_start(&fx);
	cr_assert_eq(core_alloc_mdl(fx.core, 0, 2 * PG, &mdl), 0);
	pa = fx_iova_of(&fx, mdl, 0);
	cr_assert_eq(core_map_mdl(fx.core, 0, mdl, &map, &logical), 0);
	cr_assert_neq(map, 0);
	cr_assert_neq(map, mdl);
	cr_assert_eq(logical, pa, "1:1 mode: the mapping's address is the page's physical address");
	cr_assert_eq(fx_iova_of(&fx, map, PG), fx_iova_of(&fx, mdl, PG));
	/* bytes written through the mapping are the MDL's bytes */
	cr_assert_eq(fx_dma_write(&fx, 0, 0, map, 0, 2 * PG, 0x77), 0);
	assert_round_trip(&fx, 0, mdl, 2 * PG, 0x77);
	/* unmapping while the MDL lives keeps the MDL's own (reference-counted) mapping */
	cr_assert_eq(core_unmap_mdl(fx.core, 0, map), 0);
	fx_assert_reachable(&fx, 0, pa, "MDL after its extra mapping was removed");
	assert_round_trip(&fx, 0, mdl, 2 * PG, 0x78);
	cr_assert_eq(core_free_mdl(fx.core, 0, mdl), 0);
	fx_assert_blocked(&fx, 0, pa, "MDL freed after its mapping");
	fx_assert_blocked(&fx, 0, pa + PG, "MDL freed after its mapping, 2nd page");
	fx_assert_no_violations(&fx);
	fx_fini(&fx);
}

Test(mem, unmap_after_mdl_freed_is_a_violation)
{
	struct fx fx;
	core_handle_t mdl = 0, map = 0;
	iova_t pa;
	size_t live;

	fx_defaults(&fx);
	fx_start(&fx);
	live = core_live_handles(fx.core);
	cr_assert_eq(core_alloc_mdl(fx.core, 0, PG, &mdl), 0);
	pa = fx_iova_of(&fx, mdl, 0);
	cr_assert_eq(core_map_mdl(fx.core, 0, mdl, &map, NULL), 0);
	cr_assert_eq(core_free_mdl(fx.core, 0, mdl), 0);
	cr_assert_eq(fx_violations(&fx, CORE_V_UNMAP_AFTER_FREE), 0, "freeing is not the violation");
	core_unmap_mdl(fx.core, 0, map);
	cr_assert_eq(fx_violations(&fx, CORE_V_UNMAP_AFTER_FREE), 1, "%s", fx_violation_text(&fx));
	cr_assert_eq(fx_violations(&fx, CORE_V_BAD_HANDLE), 0, "%s", fx_violation_text(&fx));
	/* the mapping is gone all the same */
	cr_assert_eq(core_live_handles(fx.core), live);
	fx_assert_blocked(&fx, 0, pa, "after the late unmap");
	cr_assert_eq(core_unmap_mdl(fx.core, 0, map), -EINVAL, "unmapping twice");
	cr_assert_eq(fx_violations(&fx, CORE_V_BAD_HANDLE), 1, "%s", fx_violation_text(&fx));
	cr_assert_eq(fx_violations(&fx, CORE_V_UNMAP_AFTER_FREE), 1);
	fx_fini(&fx);
}

/* The late unmap must not take away pages a new allocation got meanwhile. */
Test(mem, late_unmap_keeps_reused_pages_mapped_for_their_new_owner)
{
	struct fx fx;
	core_handle_t mdl = 0, map = 0, again = 0;
	iova_t pa;

	fx_defaults(&fx);
	fx_start(&fx);
	cr_assert_eq(core_alloc_mdl(fx.core, 0, PG, &mdl), 0);
	pa = fx_iova_of(&fx, mdl, 0);
	cr_assert_eq(core_map_mdl(fx.core, 0, mdl, &map, NULL), 0);
	cr_assert_eq(core_free_mdl(fx.core, 0, mdl), 0);
	cr_assert_eq(core_alloc_mdl(fx.core, 0, PG, &again), 0);
	cr_assert_eq(fx_iova_of(&fx, again, 0), pa, "the freed frame is handed out again");
	core_unmap_mdl(fx.core, 0, map);
	cr_assert_eq(fx_violations(&fx, CORE_V_UNMAP_AFTER_FREE), 1, "%s", fx_violation_text(&fx));
	fx_assert_reachable(&fx, 0, pa, "the page's new owner");
	assert_round_trip(&fx, 0, again, PG, 0x3F);
	cr_assert_eq(core_free_mdl(fx.core, 0, again), 0);
	fx_assert_blocked(&fx, 0, pa, "after the new owner freed it");
	core_stop(fx.core);
	cr_assert_eq(fx_violations(&fx, CORE_V_MAPPING_LEAK), 0, "%s", fx_violation_text(&fx));
	fx_fini(&fx);
}

Test(mem, unmap_then_free_is_clean)
{
	struct fx fx;
	core_handle_t mdl = 0, map = 0;

	fx_defaults(&fx);
	fx_start(&fx);
	cr_assert_eq(core_alloc_mdl(fx.core, 0, PG, &mdl), 0);
	cr_assert_eq(core_map_mdl(fx.core, 0, mdl, &map, NULL), 0);
	cr_assert_eq(core_unmap_mdl(fx.core, 0, map), 0);
	cr_assert_eq(core_free_mdl(fx.core, 0, mdl), 0);
	core_stop(fx.core);
	fx_assert_no_violations(&fx);
	fx_fini(&fx);
}

/* --- bad handles --- */

Test(mem, double_free_is_a_bad_handle)
{
	struct fx fx;
	core_handle_t mdl = 0, contig = 0, map = 0, other = 0;

	fx_defaults(&fx);
	fx_start(&fx);
	cr_assert_eq(core_alloc_mdl(fx.core, 0, PG, &mdl), 0);
	cr_assert_eq(core_alloc_mdl(fx.core, 0, PG, &other), 0);
	cr_assert_eq(core_alloc_contiguous(fx.core, 0, PG, CACHE_CACHED, &contig, NULL), 0);
	cr_assert_eq(core_map_mdl(fx.core, 0, other, &map, NULL), 0);
	cr_assert_eq(core_free_mdl(fx.core, 0, mdl), 0);
	cr_assert_eq(core_free_mdl(fx.core, 0, mdl), -EINVAL);
	cr_assert_eq(fx_violations(&fx, CORE_V_BAD_HANDLE), 1, "%s", fx_violation_text(&fx));
	cr_assert_eq(core_free_contiguous(fx.core, 0, contig), 0);
	cr_assert_eq(core_free_contiguous(fx.core, 0, contig), -EINVAL);
	cr_assert_eq(fx_violations(&fx, CORE_V_BAD_HANDLE), 2, "%s", fx_violation_text(&fx));
	cr_assert_eq(core_unmap_mdl(fx.core, 0, map), 0);
	cr_assert_eq(core_unmap_mdl(fx.core, 0, map), -EINVAL);
	cr_assert_eq(fx_violations(&fx, CORE_V_BAD_HANDLE), 3, "%s", fx_violation_text(&fx));
	/* mapping a freed MDL */
	cr_assert_eq(core_map_mdl(fx.core, 0, mdl, &map, NULL), -EINVAL);
	cr_assert_eq(fx_violations(&fx, CORE_V_BAD_HANDLE), 4, "%s", fx_violation_text(&fx));
	/* the other MDL is unharmed */
	assert_round_trip(&fx, 0, other, PG, 0x42);
	cr_assert_eq(core_free_mdl(fx.core, 0, other), 0);
	cr_assert_eq(fx_violations(&fx, CORE_V_BAD_HANDLE), 4);
	cr_assert_eq(fx_violations(&fx, CORE_V_UNMAP_AFTER_FREE), 0);
	fx_fini(&fx);
}

Test(mem, unknown_handles_are_bad)
{
	struct fx fx;
	core_handle_t map = 0;
	size_t live;

	fx_defaults(&fx);
	fx_start(&fx);
	live = core_live_handles(fx.core);
	cr_assert_eq(core_free_mdl(fx.core, 0, 0), -EINVAL);
	cr_assert_eq(core_free_mdl(fx.core, 0, 0xFFFFF), -EINVAL);
	cr_assert_eq(core_free_contiguous(fx.core, 0, 0x12345678), -EINVAL);
	cr_assert_eq(core_unmap_mdl(fx.core, 0, 0), -EINVAL);
	cr_assert_eq(core_map_mdl(fx.core, 0, 0xABCDE, &map, NULL), -EINVAL);
	cr_assert_eq(fx_violations(&fx, CORE_V_BAD_HANDLE), 5, "%s", fx_violation_text(&fx));
	cr_assert_eq(core_live_handles(fx.core), live, "a failed map creates no handle");
	fx_fini(&fx);
}

Test(mem, wrong_kind_handles_are_bad)
{
	struct fx fx;
	core_handle_t mdl = 0, contig = 0, map = 0, map2 = 0;

	fx_defaults(&fx);
	fx_start(&fx);
	cr_assert_eq(core_alloc_mdl(fx.core, 0, PG, &mdl), 0);
	cr_assert_eq(core_alloc_contiguous(fx.core, 0, PG, CACHE_CACHED, &contig, NULL), 0);
	cr_assert_eq(core_map_mdl(fx.core, 0, mdl, &map, NULL), 0);
	cr_assert_eq(core_free_contiguous(fx.core, 0, mdl), -EINVAL, "an MDL is not contiguous memory");
	cr_assert_eq(core_free_mdl(fx.core, 0, contig), -EINVAL, "contiguous memory is not an MDL");
	cr_assert_eq(core_free_mdl(fx.core, 0, map), -EINVAL, "a mapping is not an MDL");
	cr_assert_eq(core_unmap_mdl(fx.core, 0, mdl), -EINVAL, "an MDL is not a mapping");
	cr_assert_eq(core_map_mdl(fx.core, 0, contig, &map2, NULL), -EINVAL,
		     "contiguous memory is not an MDL");
	cr_assert_eq(core_map_mdl(fx.core, 0, map, &map2, NULL), -EINVAL, "a mapping is not an MDL");
	cr_assert_eq(fx_violations(&fx, CORE_V_BAD_HANDLE), 6, "%s", fx_violation_text(&fx));
	/* nothing was freed by the refused calls */
	assert_round_trip(&fx, 0, mdl, PG, 0x10);
	assert_round_trip(&fx, 0, contig, PG, 0x20);
	cr_assert_eq(core_unmap_mdl(fx.core, 0, map), 0);
	cr_assert_eq(core_free_mdl(fx.core, 0, mdl), 0);
	cr_assert_eq(core_free_contiguous(fx.core, 0, contig), 0);
	cr_assert_eq(fx_violations(&fx, CORE_V_BAD_HANDLE), 6);
	cr_assert_eq(fx_violations(&fx, CORE_V_UNMAP_AFTER_FREE), 0);
	fx_fini(&fx);
}

Test(mem, stale_handle_does_not_reach_a_reused_slot)
{
	struct fx fx;
	core_handle_t a = 0, b = 0;

	fx_defaults(&fx);
	fx_start(&fx);
	cr_assert_eq(core_alloc_mdl(fx.core, 0, PG, &a), 0);
	cr_assert_eq(core_free_mdl(fx.core, 0, a), 0);
	cr_assert_eq(core_alloc_mdl(fx.core, 0, PG, &b), 0);
	cr_assert_neq(a, b, "a new handle never equals a freed one");
	cr_assert_eq(core_free_mdl(fx.core, 0, a), -EINVAL);
	cr_assert_eq(fx_violations(&fx, CORE_V_BAD_HANDLE), 1);
	assert_round_trip(&fx, 0, b, PG, 0x99);
	cr_assert_eq(core_free_mdl(fx.core, 0, b), 0);
	cr_assert_eq(fx_violations(&fx, CORE_V_BAD_HANDLE), 1, "%s", fx_violation_text(&fx));
	fx_fini(&fx);
}

Test(mem, other_adapters_handles_are_bad_and_isolated)
{
	struct fx fx;
	core_handle_t mine = 0, theirs = 0, map = 0;
	iova_t pa1, pa0;

	fx_defaults(&fx);
	cr_assert_eq(fx_add_adapter(&fx, "gpu1"), 1);
	fx_start(&fx);
	cr_assert(fx_info(&fx, 1).started, "%s", fx_info(&fx, 1).start_error);
	cr_assert_neq(fx_info(&fx, 0).domain, fx_info(&fx, 1).domain, "one domain per adapter");
	cr_assert_eq(core_alloc_mdl(fx.core, 1, PG, &theirs), 0);
	cr_assert_eq(core_alloc_mdl(fx.core, 0, PG, &mine), 0);
	cr_assert_eq(core_free_mdl(fx.core, 0, theirs), -EINVAL);
	cr_assert_eq(core_map_mdl(fx.core, 0, theirs, &map, NULL), -EINVAL);
	cr_assert_eq(core_free_mdl(fx.core, 1, mine), -EINVAL);
	cr_assert_eq(fx_violations(&fx, CORE_V_BAD_HANDLE), 3, "%s", fx_violation_text(&fx));
	/* each adapter's device reaches its own memory only (device 1 is gpu1's) */
	pa1 = fx_iova_of(&fx, theirs, 0);
	pa0 = fx_iova_of(&fx, mine, 0);
	fx_assert_reachable(&fx, 1, pa1, "gpu1's MDL from gpu1");
	fx_assert_blocked(&fx, 0, pa1, "gpu1's MDL from gpu0");
	fx_assert_reachable(&fx, 0, pa0, "gpu0's MDL from gpu0");
	fx_assert_blocked(&fx, 1, pa0, "gpu0's MDL from gpu1");
	cr_assert_eq(core_free_mdl(fx.core, 1, theirs), 0);
	cr_assert_eq(core_free_mdl(fx.core, 0, mine), 0);
	cr_assert_eq(fx_violations(&fx, CORE_V_BAD_HANDLE), 3);
	fx_fini(&fx);
}

/* Every physical adapter of an LDA chain shares the one domain. */
Test(mem, lda_chain_devices_share_the_mappings)
{
	struct fx fx;
	core_handle_t mdl = 0;
	iova_t pa;

	fx_defaults(&fx);
	fx_set_phys(&fx, 0, 2);
	fx_start(&fx);
	cr_assert(fx_info(&fx, 0).started, "%s", fx_info(&fx, 0).start_error);
	cr_assert_eq(core_alloc_mdl(fx.core, 0, 2 * PG, &mdl), 0);
	pa = fx_iova_of(&fx, mdl, PG);
	fx_assert_reachable(&fx, 0, pa, "lead device");
	fx_assert_reachable(&fx, 1, pa, "second device of the chain");
	cr_assert_eq(fx_dma_write(&fx, 0, 1, mdl, 0, 2 * PG, 0x2C), 0, "%s", fx_violation_text(&fx));
	cr_assert_eq(core_free_mdl(fx.core, 0, mdl), 0);
	fx_assert_blocked(&fx, 0, pa, "lead device, freed");
	fx_assert_blocked(&fx, 1, pa, "second device, freed");
	fx_assert_no_violations(&fx);
	fx_fini(&fx);
}

/* --- teardown --- */

Test(mem, leaks_are_reported_at_teardown)
{
	struct fx fx;
	core_handle_t mdl = 0, contig = 0, map = 0, freed = 0;
	const struct core_violation *v;
	unsigned int named = 0;
	size_t n;

	fx_defaults(&fx);
	fx_start(&fx);
	cr_assert_eq(core_alloc_mdl(fx.core, 0, 3 * PG, &mdl), 0);
	cr_assert_eq(core_alloc_contiguous(fx.core, 0, 2 * PG, CACHE_CACHED, &contig, NULL), 0);
	cr_assert_eq(core_map_mdl(fx.core, 0, mdl, &map, NULL), 0);
	cr_assert_eq(core_alloc_mdl(fx.core, 0, PG, &freed), 0);
	cr_assert_eq(core_free_mdl(fx.core, 0, freed), 0);
	core_stop(fx.core);
	cr_assert_eq(fx_violations(&fx, CORE_V_HANDLE_LEAK), 3, "MDL, contiguous memory and mapping:\n%s",
		     fx_violation_text(&fx));
	cr_assert_eq(fx_violations(&fx, CORE_V_MAPPING_LEAK), 0, "%s", fx_violation_text(&fx));
	cr_assert_eq(fx_violations(&fx, CORE_V_UNMAP_AFTER_FREE), 0, "%s", fx_violation_text(&fx));
	/* each leak names its handle: a replay maps it back to the trace's id */
	v = core_violations(fx.core, &n);
	for (size_t i = 0; i < n; i++)
		named |= (v[i].handle == mdl) << 0 | (v[i].handle == contig) << 1 |
			 (v[i].handle == map) << 2;
	cr_assert_eq(named, 7, "%s", fx_violation_text(&fx));
	cr_assert_eq(core_live_handles(fx.core), 0, "leaks are freed at teardown");
	cr_assert_eq(fx_usage(&fx).locked, 0);
	cr_assert_eq(fx_usage(&fx).committed, 0);
	cr_assert_eq(fx_usage(&fx).allocated, 0);
	fx_fini(&fx);
}

Test(mem, no_leak_no_report)
{
	struct fx fx;
	core_handle_t mdl = 0, contig = 0;

	fx_defaults(&fx);
	fx_start(&fx);
	cr_assert_eq(core_alloc_mdl(fx.core, 0, 3 * PG, &mdl), 0);
	cr_assert_eq(core_alloc_contiguous(fx.core, 0, 2 * PG, CACHE_CACHED, &contig, NULL), 0);
	cr_assert_eq(core_free_contiguous(fx.core, 0, contig), 0);
	cr_assert_eq(core_free_mdl(fx.core, 0, mdl), 0);
	core_stop(fx.core);
	cr_assert_eq(fx_violations(&fx, CORE_V_HANDLE_LEAK), 0, "%s", fx_violation_text(&fx));
	cr_assert_eq(core_live_handles(fx.core), 0);
	cr_assert_eq(fx_usage(&fx).locked, 0);
	fx_fini(&fx);
}

/* --- memory pressure --- */

Test(mem, lock_pressure_fails_allocation_and_leaves_nothing)
{
	struct fx fx;
	core_handle_t h = 0, ok = 0;
	struct physmem_usage before;
	struct hw_stats st0, st1;
	struct hw *hw;
	size_t live;

	fx_defaults(&fx);
	fx_start(&fx);
	hw = core_hw(fx.core);
	fx_pressure(&fx, UINT64_MAX, 2 * PG, UINT64_MAX);
	before = fx_usage(&fx);
	live = core_live_handles(fx.core);
	hw->ops->stats(hw, &st0);
	cr_assert_eq(core_alloc_mdl(fx.core, 0, 4 * PG, &h), -ENOMEM);
	cr_assert_eq(h, 0);
	cr_assert_eq(core_alloc_contiguous(fx.core, 0, 3 * PG, CACHE_CACHED, &h, NULL), -ENOMEM);
	cr_assert_eq(h, 0);
	hw->ops->stats(hw, &st1);
	cr_assert_eq(st1.pte_writes, st0.pte_writes, "nothing was mapped");
	cr_assert_eq(core_live_handles(fx.core), live);
	fx_assert_usage_eq(fx_usage(&fx), before, "after refused allocations");
	/* what fits, fits; then the budget is gone until it is returned */
	cr_assert_eq(core_alloc_mdl(fx.core, 0, 2 * PG, &ok), 0);
	cr_assert_eq(core_alloc_mdl(fx.core, 0, PG, &h), -ENOMEM);
	cr_assert_eq(core_free_mdl(fx.core, 0, ok), 0);
	cr_assert_eq(core_alloc_mdl(fx.core, 0, PG, &h), 0);
	cr_assert_eq(core_free_mdl(fx.core, 0, h), 0);
	core_memory(fx.core, &no_pressure);
	fx_assert_no_violations(&fx);
	fx_fini(&fx);
}

Test(mem, commit_pressure_fails_allocation_and_leaves_nothing)
{
	struct fx fx;
	core_handle_t h = 0;
	struct physmem_usage before;
	size_t live;

	fx_defaults(&fx);
	fx_start(&fx);
	fx_pressure(&fx, PG, UINT64_MAX, UINT64_MAX);
	before = fx_usage(&fx);
	live = core_live_handles(fx.core);
	cr_assert_eq(core_alloc_mdl(fx.core, 0, 2 * PG, &h), -ENOMEM);
	cr_assert_eq(core_alloc_contiguous(fx.core, 0, 2 * PG, CACHE_CACHED, &h, NULL), -ENOMEM);
	cr_assert_eq(core_live_handles(fx.core), live);
	fx_assert_usage_eq(fx_usage(&fx), before, "after refused allocations");
	core_memory(fx.core, &no_pressure);
	cr_assert_eq(core_alloc_mdl(fx.core, 0, 2 * PG, &h), 0, "fine once the pressure is gone");
	cr_assert_eq(core_free_mdl(fx.core, 0, h), 0);
	fx_fini(&fx);
}

/* --- fault injection --- */

Test(mem, injected_mdl_failure_hits_only_the_nth_call)
{
	struct fx fx;
	struct fp_ctx fp;
	core_handle_t h1 = 0, h2 = 0;
	struct physmem_usage before;
	size_t live;

	memset(&fp, 0, sizeof(fp));
	fx_defaults(&fx);
	fx_start(&fx);
	fp_arm(&fp, FP_MEM_ALLOC_MDL, &(struct fp_rule){ .nth = 1 });
	core_set_faults(fx.core, &fp);
	before = fx_usage(&fx);
	live = core_live_handles(fx.core);
	cr_assert_eq(core_alloc_mdl(fx.core, 0, PG, &h1), -ENOMEM);
	cr_assert_eq(core_live_handles(fx.core), live);
	fx_assert_usage_eq(fx_usage(&fx), before, "after the injected failure");
	cr_assert_eq(core_alloc_mdl(fx.core, 0, PG, &h2), 0);
	cr_assert_eq(fp.injected[FP_MEM_ALLOC_MDL], 1);
	cr_assert_eq(fp.hits[FP_MEM_ALLOC_MDL], 2);
	/* the point is the MDL callback's own: contiguous memory is not affected */
	cr_assert_eq(core_alloc_contiguous(fx.core, 0, PG, CACHE_CACHED, &h1, NULL), 0);
	assert_round_trip(&fx, 0, h2, PG, 0x66);
	cr_assert_eq(core_free_mdl(fx.core, 0, h2), 0);
	cr_assert_eq(core_free_contiguous(fx.core, 0, h1), 0);
	core_set_faults(fx.core, NULL);
	fx_assert_no_violations(&fx);
	fx_fini(&fx);
}

Test(mem, injected_contiguous_failure_hits_only_the_nth_call)
{
	struct fx fx;
	struct fp_ctx fp;
	core_handle_t a = 0, b = 0, c = 0;

	memset(&fp, 0, sizeof(fp));
	fx_defaults(&fx);
	fx_start(&fx);
	fp_arm(&fp, FP_MEM_ALLOC_CONTIGUOUS, &(struct fp_rule){ .nth = 2 });
	core_set_faults(fx.core, &fp);
	cr_assert_eq(core_alloc_contiguous(fx.core, 0, PG, CACHE_CACHED, &a, NULL), 0);
	cr_assert_eq(core_alloc_contiguous(fx.core, 0, PG, CACHE_CACHED, &b, NULL), -ENOMEM);
	cr_assert_eq(core_alloc_contiguous(fx.core, 0, PG, CACHE_CACHED, &c, NULL), 0);
	cr_assert_eq(fp.injected[FP_MEM_ALLOC_CONTIGUOUS], 1);
	cr_assert_eq(core_free_contiguous(fx.core, 0, a), 0);
	cr_assert_eq(core_free_contiguous(fx.core, 0, c), 0);
	core_set_faults(fx.core, NULL);
	fx_fini(&fx);
}

/* A failure deep inside (commit, lock, IOMMU map) is rolled back completely. */
static void injected_inner_failure(enum fp_point point, uint64_t nth)
{
	struct fx fx;
	struct fp_ctx fp;
	core_handle_t probe = 0, h = 0;
	struct physmem_usage before;
	iova_t where[4];
	size_t live;

	memset(&fp, 0, sizeof(fp));
	fx_defaults(&fx);
	fx_start(&fx);
	/* runs of one page: each is mapped by an IOMMU map call of its own */
	fx_pressure(&fx, UINT64_MAX, UINT64_MAX, PG);
	/* where the next 4 pages will come from */
	cr_assert_eq(core_alloc_mdl(fx.core, 0, 4 * PG, &probe), 0);
	for (uint64_t i = 0; i < 4; i++)
		where[i] = fx_iova_of(&fx, probe, i * PG);
	cr_assert_eq(core_free_mdl(fx.core, 0, probe), 0);

	fp_arm(&fp, point, &(struct fp_rule){ .nth = nth });
	core_set_faults(fx.core, &fp);
	before = fx_usage(&fx);
	live = core_live_handles(fx.core);
	cr_assert_neq(core_alloc_mdl(fx.core, 0, 4 * PG, &h), 0, "%s must fail",
		      fp_point_name(point));
	cr_assert_eq(fp.injected[point], 1, "%s was reached", fp_point_name(point));
	cr_assert_eq(h, 0);
	cr_assert_eq(core_live_handles(fx.core), live);
	fx_assert_usage_eq(fx_usage(&fx), before, fp_point_name(point));
	for (int i = 0; i < 4; i++)
		fx_assert_blocked(&fx, 0, where[i], "pages of the failed allocation");
	/* and the same pages can be allocated and mapped again */
	cr_assert_eq(core_alloc_mdl(fx.core, 0, 4 * PG, &h), 0, "%s: retry", fp_point_name(point));
	assert_round_trip(&fx, 0, h, 4 * PG, 0x4D);
	cr_assert_eq(core_free_mdl(fx.core, 0, h), 0);
	core_set_faults(fx.core, NULL);
	core_stop(fx.core);
	cr_assert_eq(fx_violations(&fx, CORE_V_MAPPING_LEAK), 0, "%s", fx_violation_text(&fx));
	fx_fini(&fx);
}

Test(mem, injected_commit_failure_is_rolled_back)
{
	injected_inner_failure(FP_MEM_COMMIT, 1);
}

Test(mem, injected_lock_failure_is_rolled_back)
{
	injected_inner_failure(FP_MEM_LOCK, 1);
}

Test(mem, injected_iommu_map_failure_midway_is_rolled_back)
{
	/* the 2nd run's mapping fails: the 1st must be unmapped again */
	injected_inner_failure(FP_IOMMU_MAP, 2);
}

/* --- before IOMMU enablement --- */

Test(mem, without_iommu_dma_is_passthrough)
{
	struct fx fx;
	struct hw *hw;
	struct hw_stats st;
	core_handle_t mdl = 0, contig = 0;
	iova_t logical = 0, pa;
	uint8_t buf[64], back[64], reason;

	fx_defaults(&fx);
	fx.scn.registry.iommu_flags = 0;
	fx_start(&fx);
	hw = core_hw(fx.core);
	cr_assert(!fx_info(&fx, 0).iommu_enabled);
	cr_assert_eq(fx_info(&fx, 0).mode, MODE_NONE);
	cr_assert_eq(fx_info(&fx, 0).domain, UINT32_MAX);
	cr_assert_eq(core_alloc_mdl(fx.core, 0, 2 * PG, &mdl), 0);
	cr_assert_eq(core_alloc_contiguous(fx.core, 0, 2 * PG, CACHE_CACHED, &contig, &logical), 0);
	cr_assert_eq(logical, fx_iova_of(&fx, contig, 0), "the device address is the physical one");
	hw->ops->stats(hw, &st);
	cr_assert_eq(st.pte_writes, 0, "nothing is mapped without an IOMMU domain");
	assert_round_trip(&fx, 0, mdl, 2 * PG, 0x3C);
	assert_round_trip(&fx, 0, contig, 2 * PG, 0x3D);
	/* any RAM is reachable, untranslated */
	memset(buf, 0xA5, sizeof(buf));
	cr_assert_eq(fx_raw_dma(&fx, 0, NEVER_ALLOCATED_PA, buf, sizeof(buf), true, &reason), 0);
	memset(back, 0, sizeof(back));
	cr_assert_eq(fx_raw_dma(&fx, 0, NEVER_ALLOCATED_PA, back, sizeof(back), false, &reason), 0);
	cr_assert_eq(memcmp(buf, back, sizeof(buf)), 0);
	/* a device write at the MDL's physical address lands in the MDL */
	pa = fx_iova_of(&fx, mdl, PG);
	memset(buf, 0x5C, sizeof(buf));
	cr_assert_eq(fx_raw_dma(&fx, 0, pa + 16, buf, sizeof(buf), true, &reason), 0);
	cr_assert_eq(core_view_rw(fx.core, mdl, PG + 16, back, sizeof(back), false), 0);
	cr_assert_eq(memcmp(buf, back, sizeof(buf)), 0);
	cr_assert_eq(core_free_mdl(fx.core, 0, mdl), 0);
	cr_assert_eq(core_free_contiguous(fx.core, 0, contig), 0);
	hw->ops->stats(hw, &st);
	cr_assert_eq(st.pte_writes, 0);
	cr_assert_eq(st.faults, 0);
	fx_assert_no_violations(&fx);
	fx_fini(&fx);
}

Test(mem, allocations_before_enablement_are_mapped_when_enabled)
{
	struct fx fx;
	core_handle_t early = 0, contig = 0, late = 0;
	iova_t early_pa, contig_pa;
	uint8_t buf[64], reason;
	struct core_adapter_info info;

	fx_defaults(&fx);
	fx.scn.registry.iommu_flags = 0;
	fx.scn.registry.secure_vm_staging = true;
	fx_start(&fx);
	info = fx_info(&fx, 0);
	cr_assert(!info.iommu_enabled);
	cr_assert_eq(info.attach_on, ATTACH_AT_SECURE_VM);
	cr_assert_eq(core_alloc_mdl(fx.core, 0, 2 * PG, &early), 0);
	cr_assert_eq(core_alloc_contiguous(fx.core, 0, 2 * PG, CACHE_CACHED, &contig, NULL), 0);
	early_pa = fx_iova_of(&fx, early, 0);
	contig_pa = fx_iova_of(&fx, contig, 0);
	assert_round_trip(&fx, 0, early, 2 * PG, 0x61);
	memset(buf, 0x17, sizeof(buf));
	cr_assert_eq(fx_raw_dma(&fx, 0, NEVER_ALLOCATED_PA, buf, sizeof(buf), true, &reason), 0,
		     "passthrough before enablement");

	cr_assert_eq(core_secure_vm_create(fx.core, 0), 0);
	info = fx_info(&fx, 0);
	cr_assert(info.iommu_enabled && info.mappings && info.attached);
	cr_assert_eq(info.mode, MODE_PHYSICAL);
	fx_assert_blocked(&fx, 0, NEVER_ALLOCATED_PA, "never-allocated RAM after enablement");
	/* what was allocated before is mapped, with its content */
	cr_assert_eq(fx_iova_of(&fx, early, 0), early_pa);
	fx_assert_reachable(&fx, 0, early_pa + PG, "early MDL after enablement");
	fx_assert_reachable(&fx, 0, contig_pa, "early contiguous memory after enablement");
	assert_round_trip(&fx, 0, early, 2 * PG, 0x62);
	assert_round_trip(&fx, 0, contig, 2 * PG, 0x63);
	cr_assert_eq(core_alloc_mdl(fx.core, 0, PG, &late), 0);
	assert_round_trip(&fx, 0, late, PG, 0x64);
	/* freeing an early allocation unmaps it like any other */
	cr_assert_eq(core_free_mdl(fx.core, 0, early), 0);
	fx_assert_blocked(&fx, 0, early_pa, "early MDL freed after enablement");
	fx_assert_blocked(&fx, 0, early_pa + PG, "early MDL freed after enablement, 2nd page");
	cr_assert_eq(core_free_contiguous(fx.core, 0, contig), 0);
	fx_assert_blocked(&fx, 0, contig_pa, "early contiguous memory freed after enablement");
	cr_assert_eq(core_free_mdl(fx.core, 0, late), 0);
	core_stop(fx.core);
	cr_assert_eq(fx_violations(&fx, CORE_V_MAPPING_LEAK), 0, "%s", fx_violation_text(&fx));
	fx_assert_no_violations(&fx);
	fx_fini(&fx);
}
