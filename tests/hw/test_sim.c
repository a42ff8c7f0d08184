/* SPDX-License-Identifier: MIT */
/*
 * Simulator-specific behaviour: caps, the cost model, queues, sparse
 * memory, power, configurations, digests and the IOMMU models. Page tables:
 * test_sim_pt.c; the IOTLB: test_sim_iotlb.c.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "sim_fixture.h"

TestSuite(sim, .init = setup, .fini = teardown);

Test(sim, caps)
{
	struct hw_caps c;

	ops->query_caps(hw, &c);
	cr_assert_str_eq(c.name, "sim");
	cr_assert_eq(c.pgsize_bitmap, GPUISO_PAGE_SIZE | SZ_2M | SZ_1G);
	cr_assert_eq(c.iova_bits, 48);
	cr_assert_eq(c.ndevs, 2);
	cr_assert_eq(ops->vram_size(hw, 1), 64 * MiB);
	cr_assert_eq(ops->vram_size(hw, 2), 0);
}

Test(sim, freed_domain_leaves_no_translation)
{
	uint32_t d1, d2;
	uint8_t b;
	struct hw_fault f;

	d1 = attached_domain();
	cr_assert_eq(ops->map(hw, d1, 0x100000, 0x300000, GPUISO_PAGE_SIZE, HW_PERM_RW), 0);
	cr_assert_eq(read_byte(0x100000, &b), 0);
	cr_assert_eq(ops->detach(hw, 0), 0);
	cr_assert_eq(ops->domain_free(hw, d1), 0);
	/* A new domain may get the same id; it must not inherit the IOTLB entry. */
	d2 = attached_domain();
	cr_assert_eq(read_byte(0x100000, &b), -EFAULT);
	cr_assert_eq(ops->fault_pop(hw, &f), 0);
	cr_assert_eq(f.reason, HW_FAULT_NO_READ);
	cr_assert_eq(stats().stale_hits, 0);
	(void)d2;
}

Test(sim, devices_in_other_domains_are_isolated)
{
	uint32_t d0 = attached_domain(), d1;
	uint8_t b;

	cr_assert_eq(ops->domain_alloc(hw, &d1), 0);
	cr_assert_eq(ops->attach(hw, 1, d1), 0);
	cr_assert_eq(ops->map(hw, d0, 0x100000, 0x300000, GPUISO_PAGE_SIZE, HW_PERM_RW), 0);
	cr_assert_eq(read_byte(0x100000, &b), 0);
	cr_assert_eq(ops->dma(hw, 1, 0x100000, &b, 1, false), -EFAULT, "dev 1 is in d1");
}

/* A fixed sequence of operations touching every counter. */
static struct hw_stats run_sequence(void)
{
	uint32_t d = attached_domain();
	uint8_t buf[3 * 4096] = { 1, 2, 3 };
	struct hw_job job = { HW_COPY_TO_SYSTEM, 0, 0x300000, 2 * GPUISO_PAGE_SIZE };
	struct hw_stats st;

	cr_assert_eq(ops->map(hw, d, 0x200000, 0x600000, SZ_2M + 3 * GPUISO_PAGE_SIZE, HW_PERM_RW), 0);
	cr_assert_eq(ops->dma(hw, 0, 0x3ffff0, buf, sizeof(buf), true), 0);
	cr_assert_eq(ops->dma(hw, 0, 0x280010, buf, sizeof(buf), false), 0);
	cr_assert_eq(ops->gpu_submit(hw, 0, &job), 0);
	cr_assert_eq(ops->gpu_wait(hw, 0), 0);
	cr_assert_eq(ops->unmap(hw, d, 0x400000, 3 * GPUISO_PAGE_SIZE), 0);
	cr_assert_eq(ops->dma(hw, 0, 0x400000, buf, 1, false), 0); /* stale */
	ops->flush(hw, d, 0x400000, 3 * GPUISO_PAGE_SIZE);
	cr_assert_eq(ops->dma(hw, 0, 0x400000, buf, 1, false), -EFAULT);
	ops->stats(hw, &st);
	return st;
}

Test(sim, cost_model_is_deterministic)
{
	struct sim_cost_model cost;
	struct hw_stats a, b;

	a = run_sequence();
	ops->destroy(hw);
	hw = sim_open(0);
	ops = hw->ops;
	b = run_sequence();
	cr_assert_arr_eq(&a, &b, sizeof(a), "same operations, same counters and modeled time");
	cr_assert_gt(a.modeled_ns, 0);
	cr_assert_gt(a.pte_writes, 0);
	cr_assert_gt(a.iotlb_hits, 0);
	cr_assert_gt(a.iotlb_invalidations, 0);
	cr_assert_eq(a.stale_hits, 1);
	cr_assert_eq(a.faults, 1);
	cr_assert_eq(a.dma_transfers, 5);
	cr_assert_eq(a.dma_bytes, 2 * 3 * 4096 + 2 * GPUISO_PAGE_SIZE + 1);
	sim_cost_default(HW_MODEL_VTD, &cost);
	cr_assert_eq(a.modeled_ns, sim_cost_ns(&cost, &a));
}

/*
 * The modeled time read without the counters (the modeled_ns op, a replay's
 * per-event read) is stats()' own, whether the cost model's two divisions
 * are exact as multiplications and shifts (the defaults: 1000 MHz, 16 bytes
 * a cycle) or not (a clock that does not divide 1 GHz, a bandwidth that is
 * not a power of two, a clock of 0, no bandwidth).
 */
Test(sim, modeled_ns_op_is_stats_modeled_ns)
{
	static const uint32_t clocks[] = { 1000, 500, 333, 1500, 0, 1 };
	static const uint32_t widths[] = { 16, 1, 10, 0, 64, 3 };

	for (size_t i = 0; i < ARRAY_SIZE(clocks); i++) {
		struct sim_config cfg = { .pm = &pm, .ndevs = 2, .vram_bytes = vram };
		struct hw_stats st;

		ops->destroy(hw);
		sim_cost_default(HW_MODEL_VTD, &cfg.cost);
		cfg.cost.clock_mhz = clocks[i];
		cfg.cost.bytes_per_cycle = widths[i];
		cr_assert_eq(sim_create(&cfg, &hw), 0);
		ops = hw->ops;
		cr_assert_not_null(ops->modeled_ns);
		cr_assert_eq(ops->modeled_ns(hw), 0);
		st = run_sequence();
		cr_assert_eq(ops->modeled_ns(hw), st.modeled_ns, "clock %u MHz, %u bytes a cycle: %llu, not %llu",
			     clocks[i], widths[i], (unsigned long long)ops->modeled_ns(hw),
			     (unsigned long long)st.modeled_ns);
		cr_assert_eq(st.modeled_ns, sim_cost_ns(&cfg.cost, &st));
		cr_assert_gt(st.modeled_ns, 0);
	}
}

Test(sim, fault_queue_overflows_but_counts)
{
	uint8_t b;
	struct hw_fault f;
	int popped = 0;

	attached_domain();
	for (int i = 0; i < 300; i++)
		cr_assert_eq(read_byte((iova_t)i * GPUISO_PAGE_SIZE, &b), -EFAULT);
	cr_assert_eq(stats().faults, 300);
	while (ops->fault_pop(hw, &f) == 0) {
		cr_assert_eq(f.iova, (iova_t)popped * GPUISO_PAGE_SIZE, "oldest first");
		popped++;
	}
	cr_assert_eq(popped, 256);
}

Test(sim, full_job_queue_runs_the_oldest)
{
	uint32_t d = attached_domain();
	struct hw_job bad = { HW_COPY_TO_SYSTEM, 0, 0x100000, 1 };
	struct hw_job ok = { HW_COPY_TO_SYSTEM, 0, 0x200000, 1 };

	cr_assert_eq(ops->map(hw, d, 0x200000, 0x200000, GPUISO_PAGE_SIZE, HW_PERM_RW), 0);
	cr_assert_eq(ops->gpu_submit(hw, 0, &bad), 0);
	for (int i = 0; i < 64; i++)
		cr_assert_eq(ops->gpu_submit(hw, 0, &ok), 0);
	cr_assert_eq(ops->gpu_pending(hw, 0), 64);
	cr_assert_eq(stats().dma_transfers, 1, "the oldest ran to make room");
	cr_assert_eq(ops->gpu_wait(hw, 0), -EFAULT, "its error is reported by the wait");
	cr_assert_eq(stats().dma_transfers, 65);
}

Test(sim, copy_of_unwritten_memory_stays_sparse)
{
	struct hw_job job = { HW_COPY_FROM_SYSTEM, 0, SZ_1G, 32 * MiB };
	uint8_t b = 0x11;

	/* Passthrough; system memory at 1 GiB was never written. */
	cr_assert_eq(ops->vram_rw(hw, 0, 5 * MiB, &b, 1, true), 0);
	cr_assert_eq(ops->gpu_submit(hw, 0, &job), 0);
	cr_assert_eq(ops->gpu_wait(hw, 0), 0);
	cr_assert_eq(ops->vram_rw(hw, 0, 5 * MiB, &b, 1, false), 0);
	cr_assert_eq(b, 0, "zeros were copied");
	cr_assert_eq(pm.bytes.resident, 0);
	cr_assert_eq(stats().dma_bytes, 32 * MiB);
}

Test(sim, powered_off_device)
{
	uint8_t b = 0;

	cr_assert_eq(ops->power(hw, 0, false), 0);
	cr_assert_eq(ops->power(hw, 0, false), 0, "already off");
	cr_assert_eq(ops->dma(hw, 0, 0, &b, 1, false), -EIO);
	cr_assert_eq(ops->vram_rw(hw, 0, 0, &b, 1, false), -EIO);
	cr_assert_eq(ops->power(hw, 5, true), -ENOENT);
	cr_assert_eq(ops->power(hw, 0, true), 0);
	cr_assert_eq(ops->dma(hw, 0, 0, &b, 1, false), 0);
}

Test(sim, passthrough_beyond_physical_space_faults)
{
	uint8_t b;
	struct hw_fault f;

	cr_assert_eq(read_byte(pm.bytes.size, &b), -EFAULT);
	cr_assert_eq(ops->fault_pop(hw, &f), 0);
	cr_assert_eq(f.reason, HW_FAULT_BEYOND_AW);
	cr_assert_eq(ops->map(hw, attached_domain(), 0, pm.bytes.size, GPUISO_PAGE_SIZE, HW_PERM_RW),
		     -ERANGE, "pa beyond physical space");
}

Test(sim_config, invalid_configs, .init = pm_setup)
{
	uint64_t bad_vram[] = { 64 * MiB, 100 };
	uint64_t huge_vram[] = { SIM_MAX_VRAM + GPUISO_PAGE_SIZE };
	struct sim_config cfg = { .pm = &pm, .ndevs = 1, .vram_bytes = vram };
	struct hw *h = NULL;

	cr_assert_eq(sim_create(NULL, &h), -EINVAL);
	cfg.pm = NULL;
	cr_assert_eq(sim_create(&cfg, &h), -EINVAL);
	cfg.pm = &pm;
	cfg.vram_bytes = NULL;
	cr_assert_eq(sim_create(&cfg, &h), -EINVAL);
	cfg.vram_bytes = huge_vram;
	cr_assert_eq(sim_create(&cfg, &h), -EINVAL, "VRAM above SIM_MAX_VRAM");
	cfg.ndevs = 2;
	cfg.vram_bytes = bad_vram;
	cr_assert_eq(sim_create(&cfg, &h), -EINVAL, "VRAM not a page multiple");
	cfg.vram_bytes = vram;
	cfg.ndevs = 1000;
	cr_assert_eq(sim_create(&cfg, &h), -EINVAL);
	cfg.ndevs = 1;
	cfg.iotlb_entries = 1u << 30;
	cr_assert_eq(sim_create(&cfg, &h), -EINVAL);
	cr_assert_null(h);
	cfg.iotlb_entries = 0;
	cfg.model = HW_MODEL_N;
	cr_assert_eq(sim_create(&cfg, &h), -EINVAL, "no such IOMMU model");
	cfg.model = HW_MODEL_VIRTIO;
	cfg.iotlb_entries = 3;
	cr_assert_eq(sim_create(&cfg, &h), 0, "any IOTLB size up to the bound");
	h->ops->destroy(h);
	physmem_fini(&pm);
}

/* An integrated GPU without VRAM: it exists, and only empty VRAM ranges fit in it. */
Test(sim_config, a_gpu_without_vram, .init = pm_setup)
{
	uint64_t none[] = { 0, 64 * MiB };
	struct sim_config cfg = { .pm = &pm, .ndevs = 2, .vram_bytes = none };
	uint64_t digest;
	struct hw *h = NULL;
	uint8_t b = 0;

	cr_assert_eq(sim_create(&cfg, &h), 0);
	cr_expect_eq(h->ops->vram_size(h, 0), 0);
	cr_expect_eq(h->ops->vram_size(h, 1), 64 * MiB);
	cr_expect_eq(h->ops->vram_rw(h, 0, 0, &b, 1, false), -ERANGE);
	cr_expect_eq(h->ops->vram_rw(h, 0, 0, &b, 1, true), -ERANGE);
	cr_expect_eq(h->ops->vram_rw(h, 0, 0, &b, 0, true), 0);
	cr_expect_eq(h->ops->vram_digest(h, 0, 0, 0, &digest), 0);
	cr_expect_eq(h->ops->power(h, 0, false), 0);
	cr_expect_eq(h->ops->power(h, 0, true), 0);
	h->ops->destroy(h);
	physmem_fini(&pm);
}

Test(sim, vram_digest_follows_content)
{
	uint64_t d1, d2, d3;
	uint8_t b = 0x5a, zero = 0;

	cr_assert_eq(ops->vram_digest(hw, 0, 3 * MiB, 5 * MiB, &d1), 0);
	cr_assert_eq(ops->vram_rw(hw, 0, 4 * MiB + 9, &b, 1, true), 0);
	cr_assert_eq(ops->vram_digest(hw, 0, 3 * MiB, 5 * MiB, &d2), 0);
	cr_assert_neq(d1, d2);
	cr_assert_eq(ops->vram_rw(hw, 0, 4 * MiB + 9, &zero, 1, true), 0);
	cr_assert_eq(ops->vram_digest(hw, 0, 3 * MiB, 5 * MiB, &d3), 0);
	cr_assert_eq(d3, d1, "the same content, the same digest");
	cr_assert_eq(ops->vram_digest(hw, 0, 60 * MiB, 5 * MiB, &d3), -ERANGE);
	cr_assert_eq(ops->power(hw, 0, false), 0);
	cr_assert_eq(ops->vram_digest(hw, 0, 0, MiB, &d3), -EIO);
}

Test(sim, save_and_restore_copies_share_whole_chunks)
{
	struct hw_job save = { HW_COPY_TO_SYSTEM, 8 * MiB, SZ_1G, 8 * MiB };
	struct hw_job restore = { HW_COPY_FROM_SYSTEM, 8 * MiB, SZ_1G, 8 * MiB };
	static uint8_t pattern[8 * MiB], back[8 * MiB];
	uint64_t before, after;

	for (size_t i = 0; i < sizeof(pattern); i++)
		pattern[i] = (uint8_t)(i * 29 + 1);
	cr_assert_eq(ops->vram_rw(hw, 0, 8 * MiB, pattern, sizeof(pattern), true), 0);
	cr_assert_eq(ops->vram_digest(hw, 0, 8 * MiB, 8 * MiB, &before), 0);
	cr_assert_eq(ops->gpu_submit(hw, 0, &save), 0);
	cr_assert_eq(ops->gpu_wait(hw, 0), 0);
	cr_assert_eq(pm.bytes.resident, 8 * MiB);
	cr_assert_eq(ops->power(hw, 0, false), 0);
	cr_assert_eq(ops->power(hw, 0, true), 0);
	cr_assert_eq(ops->vram_rw(hw, 0, 8 * MiB, back, 4, false), 0);
	cr_assert_eq(back[0] | back[1] | back[2] | back[3], 0, "powering off lost VRAM");
	cr_assert_eq(ops->gpu_submit(hw, 0, &restore), 0);
	cr_assert_eq(ops->gpu_wait(hw, 0), 0);
	cr_assert_eq(ops->vram_rw(hw, 0, 8 * MiB, back, sizeof(back), false), 0);
	cr_assert_arr_eq(back, pattern, sizeof(back));
	cr_assert_eq(ops->vram_digest(hw, 0, 8 * MiB, 8 * MiB, &after), 0);
	cr_assert_eq(after, before);
	cr_assert_eq(stats().dma_bytes, 16 * MiB, "the modeled device still moved every byte");
}

/* The state digest reads page tables by their leaves: emptied tables left linked are no state. */
Test(sim, state_digest_follows_the_leaves)
{
	uint32_t d = attached_domain();
	uint64_t fresh = ops->state_digest(hw), one, other;

	cr_assert_eq(ops->map(hw, d, 0x100000, 0x300000, GPUISO_PAGE_SIZE, HW_PERM_RW | HW_MAP_4K), 0);
	one = ops->state_digest(hw);
	cr_assert_neq(one, fresh);
	/* a second page in the same table, then gone again */
	cr_assert_eq(ops->map(hw, d, 0x1ff000, 0x5ff000, GPUISO_PAGE_SIZE, HW_PERM_RW | HW_MAP_4K), 0);
	other = ops->state_digest(hw);
	cr_assert_neq(other, one);
	cr_assert_eq(ops->unmap(hw, d, 0x1ff000, GPUISO_PAGE_SIZE), 0);
	cr_assert_eq(ops->state_digest(hw), one);
	/* the same page read-only, or to another frame, is another state */
	cr_assert_eq(ops->unmap(hw, d, 0x100000, GPUISO_PAGE_SIZE), 0);
	cr_assert_eq(ops->state_digest(hw), fresh, "an emptied table is no state");
	cr_assert_eq(ops->map(hw, d, 0x100000, 0x300000, GPUISO_PAGE_SIZE, HW_PERM_READ | HW_MAP_4K), 0);
	cr_assert_neq(ops->state_digest(hw), one);
	cr_assert_eq(ops->unmap(hw, d, 0x100000, GPUISO_PAGE_SIZE), 0);
	cr_assert_eq(ops->map(hw, d, 0x100000, 0x301000, GPUISO_PAGE_SIZE, HW_PERM_RW | HW_MAP_4K), 0);
	cr_assert_neq(ops->state_digest(hw), one);
	cr_assert_eq(ops->state_digest(hw), ops->state_digest_full(hw));
}

/*
 * The digest's terms are kept as the state changes: leaves mapped, split
 * and cleared, IOTLB entries filled, made unchecked by an unmap, checked
 * again, flushed; a domain freed with its tables.
 */
Test(sim, the_kept_state_digest_is_the_computed_one)
{
	uint32_t d = attached_domain(), d2;
	uint64_t valid, unchecked;
	uint8_t b;

	(void)ops->state_digest(hw); /* kept from here on */
	/* 2 MiB and 4 KiB leaves, splittable */
	cr_assert_eq(ops->map(hw, d, 2 * SZ_1G, 2 * SZ_1G, 4 * MiB + 8 * GPUISO_PAGE_SIZE,
			      HW_PERM_RW | HW_MAP_4K), 0);
	cr_assert_eq(ops->state_digest(hw), ops->state_digest_full(hw), "mapped");
	cr_assert_eq(read_byte(2 * SZ_1G + 8192, &b), 0);
	cr_assert_eq(read_byte(2 * SZ_1G + 4 * MiB, &b), 0);
	valid = ops->state_digest(hw);
	cr_assert_eq(valid, ops->state_digest_full(hw), "IOTLB filled");
	/* an unmap elsewhere leaves the entries unchecked: another state */
	cr_assert_eq(ops->unmap(hw, d, 2 * SZ_1G + 4 * MiB + 4096, GPUISO_PAGE_SIZE), 0);
	unchecked = ops->state_digest(hw);
	cr_assert_eq(unchecked, ops->state_digest_full(hw), "unchecked");
	cr_assert_eq(read_byte(2 * SZ_1G + 8192, &b), 0, "checked again");
	cr_assert_eq(ops->state_digest(hw), ops->state_digest_full(hw));
	/* a split of a 2 MiB leaf, then a flush */
	cr_assert_eq(ops->unmap(hw, d, 2 * SZ_1G + 2 * MiB + 12288, GPUISO_PAGE_SIZE), 0);
	cr_assert_eq(ops->state_digest(hw), ops->state_digest_full(hw), "split");
	ops->flush(hw, d, 0, UINT64_MAX);
	cr_assert_eq(ops->state_digest(hw), ops->state_digest_full(hw), "flushed");
	/* a second domain, filled and freed */
	cr_assert_eq(ops->domain_alloc(hw, &d2), 0);
	cr_assert_eq(ops->map(hw, d2, 0x200000, 0x400000, 2 * MiB, HW_PERM_RW), 0);
	cr_assert_eq(ops->state_digest(hw), ops->state_digest_full(hw), "second domain");
	cr_assert_eq(ops->unmap(hw, d2, 0x200000, 2 * MiB), 0);
	cr_assert_eq(ops->domain_free(hw, d2), 0);
	cr_assert_eq(ops->state_digest(hw), ops->state_digest_full(hw), "freed");
}

/* A simulator of IOMMU model @model over pm, in place of the suite's. */
static void reopen_as(enum hw_iommu_model model)
{
	struct sim_config cfg = { .pm = &pm, .ndevs = 2, .vram_bytes = vram, .model = model };
	struct hw_caps c;

	ops->destroy(hw);
	sim_cost_default(model, &cfg.cost);
	cr_assert_eq(sim_create(&cfg, &hw), 0);
	ops = hw->ops;
	ops->query_caps(hw, &c);
	cr_assert_eq(c.model, model);
}

/*
 * The IOTLB entries a flush of two pages across a 64 KiB boundary drops,
 * with 16 pages of the block cached: VT-d the two; AMD-Vi the naturally
 * aligned 64 KiB block that covers them (Linux's build_inv_address()), so
 * the other pages miss afterwards; virtio-iommu none (its unmap
 * invalidated).
 */
static uint64_t flushed_of_sixteen(enum hw_iommu_model model, uint64_t *misses_after)
{
	uint32_t d;
	uint8_t b;
	struct hw_stats st;

	reopen_as(model);
	d = attached_domain();
	cr_assert_eq(ops->map(hw, d, 0x100000, 0x300000, 16 * GPUISO_PAGE_SIZE, HW_PERM_RW), 0);
	for (int i = 0; i < 16; i++)
		cr_assert_eq(read_byte(0x100000 + (uint64_t)i * GPUISO_PAGE_SIZE, &b), 0);
	st = stats();
	ops->flush(hw, d, 0x107000, 2 * GPUISO_PAGE_SIZE);
	*misses_after = stats().iotlb_misses;
	cr_assert_eq(read_byte(0x100000, &b), 0);
	*misses_after = stats().iotlb_misses - *misses_after;
	return stats().iotlb_invalidations - st.iotlb_invalidations;
}

Test(sim_model, amd_vi_flushes_the_aligned_block_that_covers_the_range, .init = setup,
     .fini = teardown)
{
	uint64_t misses;

	cr_assert_eq(flushed_of_sixteen(HW_MODEL_VTD, &misses), 2);
	cr_assert_eq(misses, 0, "VT-d: page 0 still cached");
	cr_assert_eq(flushed_of_sixteen(HW_MODEL_AMD_VI, &misses), 16);
	cr_assert_eq(misses, 1, "AMD-Vi: the block's page 0 went too");
	cr_assert_eq(flushed_of_sixteen(HW_MODEL_VIRTIO, &misses), 0);
	cr_assert_eq(misses, 0);
}

/* Unmapped and not flushed: VT-d and AMD-Vi still translate the old page; virtio-iommu does not. */
Test(sim_model, a_virtio_unmap_leaves_no_stale_entry, .init = setup, .fini = teardown)
{
	static const enum hw_iommu_model models[] = { HW_MODEL_VTD, HW_MODEL_AMD_VI, HW_MODEL_VIRTIO };

	for (size_t i = 0; i < ARRAY_SIZE(models); i++) {
		uint8_t b = 0, v = 0x5a;
		uint32_t d;
		int rc;

		reopen_as(models[i]);
		d = attached_domain();
		cr_assert_eq(sparse_write(&pm.bytes, 0x300000, &v, 1), 0);
		cr_assert_eq(ops->map(hw, d, 0x100000, 0x300000, GPUISO_PAGE_SIZE, HW_PERM_RW), 0);
		cr_assert_eq(read_byte(0x100000, &b), 0);
		cr_assert_eq(ops->unmap(hw, d, 0x100000, GPUISO_PAGE_SIZE), 0);
		rc = read_byte(0x100000, &b);
		if (models[i] == HW_MODEL_VIRTIO) {
			cr_assert_eq(rc, -EFAULT, "no stale window");
			cr_assert_eq(stats().stale_hits, 0);
		} else {
			cr_assert_eq(rc, 0, "%s: the stale entry", hw_iommu_model_name(models[i]));
			cr_assert_eq(stats().stale_hits, 1);
		}
	}
}

/* An access past the width: a reason of its own on VT-d only. */
Test(sim_model, only_vtd_reports_an_access_past_the_width, .init = setup, .fini = teardown)
{
	static const enum hw_iommu_model models[] = { HW_MODEL_VTD, HW_MODEL_AMD_VI, HW_MODEL_VIRTIO };

	for (size_t i = 0; i < ARRAY_SIZE(models); i++) {
		struct hw_fault f;
		uint8_t b;

		reopen_as(models[i]);
		attached_domain();
		cr_assert_eq(ops->dma(hw, 0, (iova_t)1 << 48, &b, 1, true), -EFAULT);
		cr_assert_eq(ops->fault_pop(hw, &f), 0);
		cr_assert_eq(f.reason, models[i] == HW_MODEL_VTD ? HW_FAULT_BEYOND_AW : HW_FAULT_NO_WRITE,
			     "%s: reason %#x", hw_iommu_model_name(models[i]), f.reason);
	}
}

/* Behind virtio-iommu a map and an unmap are a request each, and the guest writes no PTE. */
Test(sim_model, virtio_charges_requests_not_page_table_writes, .init = setup, .fini = teardown)
{
	struct sim_cost_model cost;
	struct hw_stats st;
	uint32_t d;

	reopen_as(HW_MODEL_VIRTIO);
	d = attached_domain();
	cr_assert_eq(ops->map(hw, d, 0x100000, 0x300000, 4 * GPUISO_PAGE_SIZE, HW_PERM_RW), 0);
	cr_assert_eq(ops->unmap(hw, d, 0x100000, 4 * GPUISO_PAGE_SIZE), 0);
	st = stats();
	cr_assert_eq(st.requests, 2);
	sim_cost_default(HW_MODEL_VIRTIO, &cost);
	cr_assert_eq(cost.pte_write, 0);
	cr_assert_eq(st.modeled_ns, sim_cost_ns(&cost, &st));
	cr_assert_geq(st.modeled_ns, 2 * cost.request * 1000 / cost.clock_mhz);
	reopen_as(HW_MODEL_VTD);
	d = attached_domain();
	cr_assert_eq(ops->map(hw, d, 0x100000, 0x300000, 4 * GPUISO_PAGE_SIZE, HW_PERM_RW), 0);
	cr_assert_eq(ops->unmap(hw, d, 0x100000, 4 * GPUISO_PAGE_SIZE), 0);
	cr_assert_eq(stats().requests, 0);
	cr_assert_lt(stats().modeled_ns, st.modeled_ns / 10);
}
