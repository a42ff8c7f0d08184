/* SPDX-License-Identifier: MIT */
/*
 * Backend conformance: what every backend behind hw/iommu.h must do, written
 * only against hw/iommu.h and hw/physmem.h. The backend comes from
 * conf_backend_open() (conformance.h).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "conformance.h"

#define MiB ((uint64_t)1 << 20)
#define IOVA_BASE ((iova_t)0x01000000) /* below any DMA mask worth testing (edu's: 28 bits) */

static const struct range_extent ram[] = {
	{ 0x0, 256 * MiB },
	{ 0x100000000, 256 * MiB },
};

static struct physmem pm;
static struct hw *hw;
static const struct hw_ops *ops;
static struct hw_caps caps;
static const uint32_t dev = 0;

static void setup(void)
{
	struct physmem_config cfg = {
		.ram = ram, .nram = ARRAY_SIZE(ram),
		.commit_limit = 512 * MiB, .lockable_limit = 512 * MiB,
	};

	cr_assert_eq(physmem_init(&pm, &cfg), 0);
	cr_assert_eq(conf_backend_open(&pm, &hw), 0);
	ops = hw->ops;
	ops->query_caps(hw, &caps);
	cr_assert_geq(caps.ndevs, 1);
	cr_assert_geq(ops->vram_size(hw, dev), 16 * MiB);
	cr_assert(caps.pgsize_bitmap & GPUISO_PAGE_SIZE);
}

static void teardown(void)
{
	ops->destroy(hw);
	physmem_fini(&pm);
}

TestSuite(conformance, .init = setup, .fini = teardown);

static pa_t page_alloc(void)
{
	pa_t pa;

	cr_assert_eq(physmem_alloc(&pm, 1, false, &pa), 0);
	return pa;
}

static void sys_fill(pa_t pa, uint8_t v, uint64_t len)
{
	uint8_t buf[4096];

	cr_assert_leq(len, sizeof(buf));
	memset(buf, v, len);
	cr_assert_eq(sparse_write(&pm.bytes, pa, buf, len), 0);
}

/* Whether all @len bytes of system memory at @pa equal @v. */
static bool sys_all(pa_t pa, uint8_t v, uint64_t len)
{
	uint8_t buf[4096];

	cr_assert_leq(len, sizeof(buf));
	cr_assert_eq(sparse_read(&pm.bytes, pa, buf, len), 0);
	for (uint64_t i = 0; i < len; i++)
		if (buf[i] != v)
			return false;
	return true;
}

static uint32_t domain_attached(void)
{
	uint32_t d;

	cr_assert_eq(ops->domain_alloc(hw, &d), 0);
	cr_assert_eq(ops->attach(hw, dev, d), 0);
	return d;
}

static uint8_t dma_read_byte(iova_t iova, int *err)
{
	uint8_t b = 0xee;

	*err = ops->dma(hw, dev, iova, &b, 1, false);
	return b;
}

static void expect_fault(iova_t iova, bool write, uint8_t reason)
{
	struct hw_fault f;

	cr_assert_eq(ops->fault_pop(hw, &f), 0, "a blocked access queues a fault");
	cr_assert_eq(f.dev, dev);
	cr_assert_eq(f.iova, iova, "fault at %#llx, expected %#llx", (unsigned long long)f.iova,
		     (unsigned long long)iova);
	cr_assert_eq(f.write, write);
	cr_assert_eq(f.reason, reason, "reason %#x, expected %#x", f.reason, reason);
	cr_assert_eq(ops->fault_pop(hw, &f), -ENOENT, "exactly one fault per blocked transfer");
}

Test(conformance, map_unmap_basics)
{
	uint32_t d = domain_attached();
	pa_t pa = page_alloc();
	int err;

	sys_fill(pa, 0x11, 16);
	cr_assert_eq(ops->map(hw, d, IOVA_BASE, pa, GPUISO_PAGE_SIZE, HW_PERM_RW), 0);
	cr_assert_eq(dma_read_byte(IOVA_BASE + 5, &err), 0x11);
	cr_assert_eq(err, 0);
	cr_assert_eq(ops->unmap(hw, d, IOVA_BASE, GPUISO_PAGE_SIZE), 0);
	ops->flush(hw, d, IOVA_BASE, GPUISO_PAGE_SIZE);
	cr_assert_eq(ops->unmap(hw, d, IOVA_BASE, GPUISO_PAGE_SIZE), -ENOENT, "already unmapped");
	/* The same IOVA maps again after unmap. */
	cr_assert_eq(ops->map(hw, d, IOVA_BASE, pa, GPUISO_PAGE_SIZE, HW_PERM_READ), 0);
	cr_assert_eq(dma_read_byte(IOVA_BASE, &err), 0x11);
	cr_assert_eq(err, 0);
}

Test(conformance, overlapping_map_is_eexist_and_changes_nothing)
{
	uint32_t d = domain_attached();
	pa_t a = page_alloc(), b = page_alloc(), c = page_alloc();
	int err;

	sys_fill(a, 0xa0, 1);
	sys_fill(b, 0xb0, 1);
	cr_assert_eq(ops->map(hw, d, IOVA_BASE, a, GPUISO_PAGE_SIZE, HW_PERM_RW), 0);
	/* Second page new, first overlaps: refused as a whole. */
	cr_assert_eq(
		ops->map(hw, d, IOVA_BASE - GPUISO_PAGE_SIZE, b, 2 * GPUISO_PAGE_SIZE, HW_PERM_RW),
		-EEXIST);
	cr_assert_eq(ops->map(hw, d, IOVA_BASE, c, GPUISO_PAGE_SIZE, HW_PERM_RW), -EEXIST);
	cr_assert_eq(dma_read_byte(IOVA_BASE, &err), 0xa0, "the old translation stands");
	cr_assert_eq(err, 0);
	dma_read_byte(IOVA_BASE - GPUISO_PAGE_SIZE, &err);
	cr_assert_eq(err, -EFAULT, "the refused map left its free page unmapped");
	expect_fault(IOVA_BASE - GPUISO_PAGE_SIZE, false, HW_FAULT_NO_READ);
	cr_assert_eq(ops->map(hw, d, IOVA_BASE - GPUISO_PAGE_SIZE, b, GPUISO_PAGE_SIZE, HW_PERM_RW), 0);
}

Test(conformance, unmap_of_a_hole_is_enoent_and_changes_nothing)
{
	uint32_t d = domain_attached();
	pa_t a = page_alloc(), b = page_alloc();
	int err;

	sys_fill(a, 0x5a, 1);
	cr_assert_eq(ops->map(hw, d, IOVA_BASE, a, GPUISO_PAGE_SIZE, HW_PERM_RW), 0);
	cr_assert_eq(
		ops->map(hw, d, IOVA_BASE + 2 * GPUISO_PAGE_SIZE, b, GPUISO_PAGE_SIZE, HW_PERM_RW),
		0);
	cr_assert_eq(ops->unmap(hw, d, IOVA_BASE, 3 * GPUISO_PAGE_SIZE), -ENOENT);
	cr_assert_eq(dma_read_byte(IOVA_BASE, &err), 0x5a, "still mapped");
	cr_assert_eq(err, 0);
	cr_assert_eq(ops->unmap(hw, d, IOVA_BASE + GPUISO_PAGE_SIZE, GPUISO_PAGE_SIZE), -ENOENT);
	cr_assert_eq(ops->unmap(hw, d, IOVA_BASE, GPUISO_PAGE_SIZE), 0);
	cr_assert_eq(ops->unmap(hw, d, IOVA_BASE + 2 * GPUISO_PAGE_SIZE, GPUISO_PAGE_SIZE), 0);
}

Test(conformance, bad_arguments)
{
	uint32_t d = domain_attached();
	pa_t pa = page_alloc();
	iova_t top = (iova_t)1 << caps.iova_bits;

	cr_assert_eq(ops->map(hw, d, IOVA_BASE + 1, pa, GPUISO_PAGE_SIZE, HW_PERM_RW), -EINVAL);
	cr_assert_eq(ops->map(hw, d, IOVA_BASE, pa + 1, GPUISO_PAGE_SIZE, HW_PERM_RW), -EINVAL);
	cr_assert_eq(ops->map(hw, d, IOVA_BASE, pa, 100, HW_PERM_RW), -EINVAL);
	cr_assert_eq(ops->map(hw, d, IOVA_BASE, pa, 0, HW_PERM_RW), -EINVAL);
	cr_assert_eq(ops->map(hw, d, IOVA_BASE, pa, GPUISO_PAGE_SIZE, 0), -EINVAL, "no permission");
	cr_assert_eq(ops->map(hw, d, top, pa, GPUISO_PAGE_SIZE, HW_PERM_RW), -ERANGE);
	cr_assert_eq(ops->map(hw, d, top - GPUISO_PAGE_SIZE, pa, 2 * GPUISO_PAGE_SIZE, HW_PERM_RW),
		     -ERANGE);
	cr_assert_eq(ops->unmap(hw, d, IOVA_BASE + 1, GPUISO_PAGE_SIZE), -EINVAL);
	cr_assert_eq(ops->unmap(hw, d, top, GPUISO_PAGE_SIZE), -ERANGE);
	cr_assert_eq(ops->map(hw, d + 1000, IOVA_BASE, pa, GPUISO_PAGE_SIZE, HW_PERM_RW), -ENOENT);
	cr_assert_eq(ops->attach(hw, caps.ndevs, d), -ENOENT, "no such device");
	cr_assert_eq(ops->attach(hw, dev, d + 1000), -ENOENT, "no such domain");
	/* None of that mapped anything. */
	cr_assert_eq(ops->map(hw, d, IOVA_BASE, pa, GPUISO_PAGE_SIZE, HW_PERM_RW), 0);
}

Test(conformance, dma_round_trip_through_scattered_pages)
{
	uint32_t d = domain_attached();
	enum { N = 8 };
	pa_t pa[N];
	uint8_t out[N * 4096], in[N * 4096];

	/* Pages in reverse order, so IOVA order is not physical order. */
	for (int i = N - 1; i >= 0; i--)
		pa[i] = page_alloc();
	for (int i = 0; i < N; i++)
		cr_assert_eq(ops->map(hw, d, IOVA_BASE + i * GPUISO_PAGE_SIZE, pa[i], GPUISO_PAGE_SIZE,
				      HW_PERM_RW), 0);
	for (size_t i = 0; i < sizeof(out); i++)
		out[i] = (uint8_t)(i * 13 + i / 4096);
	/* Unaligned start and length cross every page boundary. */
	cr_assert_eq(ops->dma(hw, dev, IOVA_BASE + 100, out, sizeof(out) - 200, true), 0);
	for (int i = 0; i < N; i++) {
		uint8_t b;

		cr_assert_eq(sparse_read(&pm.bytes, pa[i] + 200, &b, 1), 0);
		cr_assert_eq(b, out[i * 4096 + 100], "page %d landed at its own pa", i);
	}
	memset(in, 0, sizeof(in));
	cr_assert_eq(ops->dma(hw, dev, IOVA_BASE + 100, in, sizeof(in) - 200, false), 0);
	cr_assert_arr_eq(in, out, sizeof(in) - 200);
}

Test(conformance, one_map_of_consecutive_pages_gives_each_page_its_own_frame)
{
	uint32_t d = domain_attached();
	enum { N = 24 };
	pa_t pa[N];
	uint8_t out[N];

	cr_assert_eq(physmem_alloc(&pm, N, true, pa), 0);
	/* one call, not 2 MiB aligned: a run of 4 KiB pages */
	cr_assert_eq(ops->map(hw, d, IOVA_BASE + GPUISO_PAGE_SIZE, pa[0], N * GPUISO_PAGE_SIZE,
			      HW_PERM_RW),
		     0);
	for (int i = 0; i < N; i++) {
		out[i] = (uint8_t)(0xa0 + i);
		cr_assert_eq(ops->dma(hw, dev, IOVA_BASE + (i + 1) * GPUISO_PAGE_SIZE + 7, &out[i], 1, true),
			     0);
	}
	for (int i = 0; i < N; i++) {
		uint8_t b;

		cr_assert_eq(sparse_read(&pm.bytes, pa[0] + i * GPUISO_PAGE_SIZE + 7, &b, 1), 0);
		cr_assert_eq(b, out[i], "page %d landed in its own frame", i);
	}
}

Test(conformance, dma_to_unmapped_iova_is_blocked_and_moves_nothing)
{
	uint32_t d = domain_attached();
	pa_t a = page_alloc();
	uint8_t buf[2 * 4096];
	int err;

	sys_fill(a, 0x77, 4096);
	cr_assert_eq(ops->map(hw, d, IOVA_BASE, a, GPUISO_PAGE_SIZE, HW_PERM_RW), 0);
	memset(buf, 0xcc, sizeof(buf));
	/* The first page is mapped, the second is not: nothing may land in the first. */
	cr_assert_eq(ops->dma(hw, dev, IOVA_BASE + 8, buf, sizeof(buf), true), -EFAULT);
	expect_fault(IOVA_BASE + GPUISO_PAGE_SIZE, true, HW_FAULT_NO_WRITE);
	cr_assert(sys_all(a, 0x77, 4096), "destination memory untouched");

	memset(buf, 0xcc, sizeof(buf));
	cr_assert_eq(ops->dma(hw, dev, IOVA_BASE + 3 * GPUISO_PAGE_SIZE + 5, buf, 1, false), -EFAULT);
	expect_fault(IOVA_BASE + 3 * GPUISO_PAGE_SIZE, false, HW_FAULT_NO_READ);
	cr_assert_eq(buf[0], 0xcc, "a blocked read delivers nothing");

	dma_read_byte((iova_t)1 << caps.iova_bits, &err);
	if (caps.dma_bits > caps.iova_bits) {
		cr_assert_eq(err, -EFAULT);
		/* only VT-d has a reason for it (hw/iommu.h) */
		expect_fault((iova_t)1 << caps.iova_bits, false,
			     caps.model == HW_MODEL_VTD ? HW_FAULT_BEYOND_AW : HW_FAULT_NO_READ);
	} else {
		/* the device cannot even issue that address (its DMA mask) */
		cr_assert_eq(err, -ERANGE);
		cr_assert_eq(ops->fault_pop(hw, &(struct hw_fault){ 0 }), -ENOENT);
	}
}

Test(conformance, read_only_mapping_blocks_writes)
{
	uint32_t d = domain_attached();
	pa_t a = page_alloc();
	uint8_t b = 0x99;
	int err;

	sys_fill(a, 0x42, 4096);
	cr_assert_eq(ops->map(hw, d, IOVA_BASE, a, GPUISO_PAGE_SIZE, HW_PERM_READ), 0);
	cr_assert_eq(ops->dma(hw, dev, IOVA_BASE + 64, &b, 1, true), -EFAULT);
	expect_fault(IOVA_BASE, true, HW_FAULT_NO_WRITE);
	cr_assert(sys_all(a, 0x42, 4096));
	cr_assert_eq(dma_read_byte(IOVA_BASE + 64, &err), 0x42);
	cr_assert_eq(err, 0);

	/* And write-only blocks reads. */
	cr_assert_eq(ops->map(hw, d, IOVA_BASE + GPUISO_PAGE_SIZE, a, GPUISO_PAGE_SIZE, HW_PERM_WRITE), 0);
	cr_assert_eq(ops->dma(hw, dev, IOVA_BASE + GPUISO_PAGE_SIZE, &b, 1, true), 0);
	dma_read_byte(IOVA_BASE + GPUISO_PAGE_SIZE, &err);
	cr_assert_eq(err, -EFAULT);
	expect_fault(IOVA_BASE + GPUISO_PAGE_SIZE, false, HW_FAULT_NO_READ);
}

/* Before any attach: passthrough where the backend has it, else nothing is reachable. */
static void expect_unattached_dma(pa_t a)
{
	uint8_t b = 0x3c;
	int err;

	sys_fill(a, 0, 64);
	if (!caps.passthrough) {
		cr_assert_eq(ops->dma(hw, dev, a + 10, &b, 1, true), -EFAULT);
		expect_fault(a, true, HW_FAULT_NO_WRITE);
		cr_assert(sys_all(a, 0, 64), "blocked: memory untouched");
		return;
	}
	cr_assert_eq(ops->dma(hw, dev, a + 10, &b, 1, true), 0);
	cr_assert(sys_all(a + 10, 0x3c, 1), "iova == pa without a domain");
	cr_assert_eq(dma_read_byte(a + 10, &err), 0x3c);
	cr_assert_eq(err, 0);
}

Test(conformance, passthrough_before_attach)
{
	expect_unattached_dma(page_alloc());
	cr_assert_eq(ops->detach(hw, dev), -ENOENT, "not attached");
}

Test(conformance, domain_switch_changes_translation)
{
	uint32_t d1, d2;
	pa_t a = page_alloc(), b = page_alloc();
	int err;

	sys_fill(a, 0xaa, 1);
	sys_fill(b, 0xbb, 1);
	cr_assert_eq(ops->domain_alloc(hw, &d1), 0);
	cr_assert_eq(ops->domain_alloc(hw, &d2), 0);
	cr_assert_neq(d1, d2);
	cr_assert_eq(ops->map(hw, d1, IOVA_BASE, a, GPUISO_PAGE_SIZE, HW_PERM_RW), 0);
	cr_assert_eq(ops->map(hw, d2, IOVA_BASE, b, GPUISO_PAGE_SIZE, HW_PERM_RW), 0);
	cr_assert_eq(ops->attach(hw, dev, d1), 0);
	cr_assert_eq(dma_read_byte(IOVA_BASE, &err), 0xaa);
	cr_assert_eq(ops->attach(hw, dev, d2), 0, "attach switches");
	cr_assert_eq(dma_read_byte(IOVA_BASE, &err), 0xbb, "the old domain's translation is gone");
	cr_assert_eq(err, 0);
	cr_assert_eq(ops->domain_free(hw, d1), 0, "d1 has no device any more");
	cr_assert_eq(ops->detach(hw, dev), 0);
	expect_unattached_dma(b); /* passthrough (or nothing) again */
}

Test(conformance, domain_free_while_attached_is_ebusy)
{
	uint32_t d = domain_attached();
	pa_t a = page_alloc();

	cr_assert_eq(ops->map(hw, d, IOVA_BASE, a, GPUISO_PAGE_SIZE, HW_PERM_RW), 0);
	cr_assert_eq(ops->domain_free(hw, d), -EBUSY);
	cr_assert_eq(ops->detach(hw, dev), 0);
	cr_assert_eq(ops->domain_free(hw, d), 0, "a non-empty domain can be freed");
	cr_assert_eq(ops->domain_free(hw, d), -ENOENT);
	cr_assert_eq(ops->attach(hw, dev, d), -ENOENT);
}

Test(conformance, unmap_then_flush_blocks_dma)
{
	uint32_t d = domain_attached();
	pa_t a = page_alloc();
	int err;

	sys_fill(a, 0x12, 1);
	cr_assert_eq(ops->map(hw, d, IOVA_BASE, a, GPUISO_PAGE_SIZE, HW_PERM_RW), 0);
	cr_assert_eq(dma_read_byte(IOVA_BASE, &err), 0x12);
	cr_assert_eq(err, 0);
	cr_assert_eq(ops->unmap(hw, d, IOVA_BASE, GPUISO_PAGE_SIZE), 0);
	ops->flush(hw, d, IOVA_BASE, GPUISO_PAGE_SIZE);
	dma_read_byte(IOVA_BASE, &err);
	cr_assert_eq(err, -EFAULT);
	expect_fault(IOVA_BASE, false, HW_FAULT_NO_READ);
}

Test(conformance, copy_jobs_both_directions)
{
	uint32_t d = domain_attached();
	enum { N = 4 };
	pa_t pa[N];
	uint8_t pattern[N * 4096], back[N * 4096];
	struct hw_job to_sys = { HW_COPY_TO_SYSTEM, 4096, IOVA_BASE, sizeof(pattern) };
	struct hw_job from_sys = { HW_COPY_FROM_SYSTEM, 8 * MiB, IOVA_BASE, sizeof(pattern) };

	cr_assert_eq(physmem_alloc(&pm, N, false, pa), 0);
	for (int i = 0; i < N; i++)
		cr_assert_eq(ops->map(hw, d, IOVA_BASE + i * GPUISO_PAGE_SIZE, pa[i], GPUISO_PAGE_SIZE,
				      HW_PERM_RW), 0);
	for (size_t i = 0; i < sizeof(pattern); i++)
		pattern[i] = (uint8_t)(i ^ (i >> 8));
	cr_assert_eq(ops->vram_rw(hw, dev, 4096, pattern, sizeof(pattern), true), 0);

	cr_assert_eq(ops->gpu_submit(hw, dev, &to_sys), 0);
	cr_assert_eq(ops->gpu_submit(hw, dev, &from_sys), 0);
	cr_assert_eq(ops->gpu_pending(hw, dev), 2);
	cr_assert_eq(ops->gpu_wait(hw, dev), 0);
	cr_assert_eq(ops->gpu_pending(hw, dev), 0);

	for (int i = 0; i < N; i++) {
		uint8_t b;

		cr_assert_eq(sparse_read(&pm.bytes, pa[i] + 77, &b, 1), 0);
		cr_assert_eq(b, pattern[i * 4096 + 77]);
	}
	cr_assert_eq(ops->vram_rw(hw, dev, 8 * MiB, back, sizeof(back), false), 0);
	cr_assert_arr_eq(back, pattern, sizeof(back), "VRAM -> system -> VRAM");
	cr_assert_eq(ops->vram_rw(hw, dev, ops->vram_size(hw, dev) - 1, back, 2, false), -ERANGE);
	to_sys.vram_off = ops->vram_size(hw, dev);
	cr_assert_eq(ops->gpu_submit(hw, dev, &to_sys), -ERANGE);
}

Test(conformance, vram_fill_repeats_a_pattern)
{
	static uint8_t pattern[2 * MiB];
	const uint64_t off = 2 * MiB, len = 6 * MiB + 100;
	const uint64_t probes[] = { off, off + 2 * MiB - 8, off + 5 * MiB + 3, off + len - 16 };
	uint8_t back[16], b = 0;

	for (size_t i = 0; i < sizeof(pattern); i++)
		pattern[i] = (uint8_t)(i * 5 + i / 4096);
	cr_assert_eq(ops->vram_fill(hw, dev, off, len, pattern, sizeof(pattern)), 0);
	for (size_t i = 0; i < ARRAY_SIZE(probes); i++) {
		cr_assert_eq(ops->vram_rw(hw, dev, probes[i], back, sizeof(back), false), 0);
		for (size_t j = 0; j < sizeof(back); j++)
			cr_assert_eq(back[j], pattern[(probes[i] + j - off) % sizeof(pattern)]);
	}
	cr_assert_eq(ops->vram_rw(hw, dev, off + len, &b, 1, false), 0);
	cr_assert_eq(b, 0, "nothing past the end");
	cr_assert_eq(ops->vram_fill(hw, dev, 0, 1, pattern, 0), -EINVAL);
	cr_assert_eq(ops->vram_fill(hw, dev, ops->vram_size(hw, dev) - 1, 2, pattern, 1), -ERANGE);
	cr_assert_eq(ops->power(hw, dev, false), 0);
	cr_assert_eq(ops->vram_fill(hw, dev, 0, 1, pattern, 1), -EIO);
	cr_assert_eq(ops->power(hw, dev, true), 0);
}

Test(conformance, power_off_loses_vram_and_refuses_jobs)
{
	uint8_t b = 0x66, pending_buf = 0;
	struct hw_job job = {HW_COPY_TO_SYSTEM, 0, IOVA_BASE, 1};

	cr_assert_eq(ops->map(hw, domain_attached(), IOVA_BASE, page_alloc(), GPUISO_PAGE_SIZE,
			      HW_PERM_RW),
		     0);
	cr_assert_eq(ops->vram_rw(hw, dev, 12345, &b, 1, true), 0);
	cr_assert_eq(ops->gpu_submit(hw, dev, &job), 0);
	cr_assert_eq(ops->power(hw, dev, false), -EBUSY, "jobs are still queued");
	cr_assert_eq(ops->gpu_wait(hw, dev), 0);
	cr_assert_eq(ops->power(hw, dev, false), 0);
	cr_assert_eq(ops->gpu_submit(hw, dev, &job), -EIO);
	cr_assert_eq(ops->power(hw, dev, true), 0);
	cr_assert_eq(ops->vram_rw(hw, dev, 12345, &pending_buf, 1, false), 0);
	cr_assert_eq(pending_buf, 0, "VRAM content was lost");
	cr_assert_eq(ops->gpu_submit(hw, dev, &job), 0);
	cr_assert_eq(ops->gpu_wait(hw, dev), 0);
}

Test(conformance, gpu_wait_reports_a_blocked_job)
{
	uint32_t d = domain_attached();
	pa_t a = page_alloc();
	struct hw_job ok = { HW_COPY_TO_SYSTEM, 0, IOVA_BASE, GPUISO_PAGE_SIZE };
	struct hw_job bad = { HW_COPY_TO_SYSTEM, 0, IOVA_BASE + GPUISO_PAGE_SIZE, GPUISO_PAGE_SIZE };
	uint8_t v = 0x31;

	sys_fill(a, 0x00, 4096);
	cr_assert_eq(ops->map(hw, d, IOVA_BASE, a, GPUISO_PAGE_SIZE, HW_PERM_RW), 0);
	cr_assert_eq(ops->vram_rw(hw, dev, 0, &v, 1, true), 0);
	cr_assert_eq(ops->gpu_submit(hw, dev, &bad), 0, "submission does not translate");
	cr_assert_eq(ops->gpu_submit(hw, dev, &ok), 0);
	cr_assert_eq(ops->gpu_wait(hw, dev), -EFAULT);
	expect_fault(IOVA_BASE + GPUISO_PAGE_SIZE, true, HW_FAULT_NO_WRITE);
	cr_assert(sys_all(a, 0x31, 1), "the good job still ran");
	cr_assert_eq(ops->gpu_wait(hw, dev), 0, "the error was reported once");

	bad.dir = HW_COPY_FROM_SYSTEM;
	cr_assert_eq(ops->gpu_submit(hw, dev, &bad), 0);
	cr_assert_eq(ops->gpu_wait(hw, dev), -EFAULT);
	expect_fault(IOVA_BASE + GPUISO_PAGE_SIZE, false, HW_FAULT_NO_READ);
}
