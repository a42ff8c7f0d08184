/* SPDX-License-Identifier: MIT */
/*
 * The VFIO backend against the real Linux VFIO stack. Runs inside the QEMU
 * guest of scripts/vm-test (VT-d emulated by QEMU, the edu device bound to
 * vfio-pci, its address in $GPUISO_VFIO_BDF; the kernel interface in
 * $GPUISO_VFIO_IOMMU, tests/hw/vfio_env.h); not on the host.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <linux/capability.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hw/vfio/edu.h"
#include "hw/vfio/vfio.h"
#include "vfio_env.h"

#define MiB ((uint64_t)1 << 20)
#define IOVA ((iova_t)0x100000) /* 1 MiB: inside edu's 28-bit DMA mask */

static const struct range_extent ram[] = { { 0x0, 64 * MiB } };
static struct physmem pm;
static struct hw *hw;
static const struct hw_ops *ops;
static uint32_t dom;

/* The backend on the edu device, a domain attached to it. */
static void open_backend(void)
{
	struct vfio_config cfg = { .pm = &pm, .bdf = getenv("GPUISO_VFIO_BDF"), .vram_bytes = 16 * MiB,
				   .iommu = vfio_env_iommu() };
	char err[512] = "";

	cr_assert_not_null(cfg.bdf, "GPUISO_VFIO_BDF: run by scripts/vm-test in the guest");
	cr_assert_eq(vfio_create(&cfg, &hw, err, sizeof(err)), 0, "%s", err);
	ops = hw->ops;
	cr_assert_eq(ops->domain_alloc(hw, &dom), 0);
	cr_assert_eq(ops->attach(hw, 0, dom), 0);
}

static void setup(void)
{
	struct physmem_config pcfg = { .ram = ram, .nram = 1, .commit_limit = 64 * MiB,
				       .lockable_limit = 64 * MiB };

	cr_assert_eq(physmem_init(&pm, &pcfg), 0);
	open_backend();
}

static void teardown(void)
{
	ops->destroy(hw);
	physmem_fini(&pm);
}

TestSuite(vfio, .init = setup, .fini = teardown, .timeout = 120);

static pa_t pages(uint64_t n)
{
	pa_t *p = calloc(n, sizeof(*p)), first;

	cr_assert_eq(physmem_alloc(&pm, n, true, p), 0);
	first = p[0];
	free(p);
	return first;
}

/* The name says which interface holds the mappings: the one asked for, else iommufd where there is one. */
static const char *expected_name(void)
{
	switch (vfio_env_iommu()) {
	case HW_IOMMU_TYPE1:
		return "vfio/type1";
	case HW_IOMMU_IOMMUFD:
		return "vfio/iommufd";
	default:
		return access("/dev/iommu", F_OK) ? "vfio/type1" : "vfio/iommufd";
	}
}

Test(vfio, caps_and_limits_come_from_the_kernel)
{
	struct hw_caps caps;

	ops->query_caps(hw, &caps);
	cr_assert_str_eq(caps.name, expected_name());
	cr_assert_eq(caps.iova_bits, EDU_DMA_BITS);
	cr_assert(caps.pgsize_bitmap & GPUISO_PAGE_SIZE, "pgsizes %#llx", (unsigned long long)caps.pgsize_bitmap);
	cr_assert_eq(ops->map(hw, dom, (iova_t)1 << EDU_DMA_BITS, pages(1), GPUISO_PAGE_SIZE,
			      HW_PERM_RW),
		     -ERANGE, "beyond the device's DMA mask");
}

Test(vfio, map_unmap_rules)
{
	pa_t pa = pages(4);

	cr_assert_eq(ops->map(hw, dom, IOVA, pa, 2 * GPUISO_PAGE_SIZE, HW_PERM_RW), 0);
	cr_assert_eq(ops->map(hw, dom, IOVA + GPUISO_PAGE_SIZE, pa + 2 * GPUISO_PAGE_SIZE,
			      GPUISO_PAGE_SIZE, HW_PERM_RW),
		     -EEXIST);
	cr_assert_eq(ops->unmap(hw, dom, IOVA, GPUISO_PAGE_SIZE), -EINVAL, "one mapping is not cut");
	cr_assert_eq(ops->unmap(hw, dom, IOVA + 8 * GPUISO_PAGE_SIZE, GPUISO_PAGE_SIZE), -ENOENT);
	cr_assert_eq(ops->unmap(hw, dom, IOVA, 2 * GPUISO_PAGE_SIZE), 0);
	cr_assert_eq(ops->map(hw, dom, IOVA, pa, 4 * GPUISO_PAGE_SIZE, HW_PERM_RW | HW_MAP_4K), 0);
	cr_assert_eq(ops->unmap(hw, dom, IOVA + GPUISO_PAGE_SIZE, GPUISO_PAGE_SIZE), 0, "4 KiB pages go one by one");
	cr_assert_eq(ops->unmap(hw, dom, IOVA, GPUISO_PAGE_SIZE), 0);
}

Test(vfio, dma_round_trip_through_mapped_iovas)
{
	pa_t pa = pages(2);
	uint8_t out[3000], in[3000], back[3000];

	for (size_t i = 0; i < sizeof(out); i++)
		out[i] = (uint8_t)(i * 13 + 5);
	cr_assert_eq(ops->map(hw, dom, IOVA, pa, 2 * GPUISO_PAGE_SIZE, HW_PERM_RW), 0);
	/* the device writes memory: it lands in the harness's pages at pa */
	cr_assert_eq(ops->dma(hw, 0, IOVA + 1000, out, sizeof(out), true), 0);
	cr_assert_eq(sparse_read(&pm.bytes, pa + 1000, back, sizeof(back)), 0);
	cr_assert_arr_eq(back, out, sizeof(out));
	/* the CPU writes, the device reads */
	for (size_t i = 0; i < sizeof(out); i++)
		out[i] = (uint8_t)(i * 7 + 1);
	cr_assert_eq(sparse_write(&pm.bytes, pa + 500, out, sizeof(out)), 0);
	cr_assert_eq(ops->dma(hw, 0, IOVA + 500, in, sizeof(in), false), 0);
	cr_assert_arr_eq(in, out, sizeof(out));
}

/*
 * Before another blocked DMA: behind virtio-iommu the kernel's report of
 * one (each of its accesses, QEMU 7.2) spends the whole ratelimit window
 * (10 lines in 5 s), so the next needs a window of its own.
 */
static void report_window(void)
{
	struct hw_caps caps;

	ops->query_caps(hw, &caps);
	if (caps.model == HW_MODEL_VIRTIO)
		sleep(6);
}

Test(vfio, dma_to_an_unmapped_iova_is_blocked_and_reported_by_the_kernel)
{
	pa_t pa = pages(1), hole_pa = pages(1);
	uint8_t v = 0x5a, b = 0;
	struct hw_stats st;
	struct hw_fault f;

	/* the kernel ratelimits its DMAR reports (10 lines in 5 s): a window of our own */
	sleep(6);
	cr_assert_eq(ops->map(hw, dom, IOVA, pa, GPUISO_PAGE_SIZE, HW_PERM_RW), 0);
	cr_assert_eq(sparse_write(&pm.bytes, hole_pa, &b, 1), 0);
	cr_assert_eq(ops->dma(hw, 0, IOVA + 16 * GPUISO_PAGE_SIZE + 8, &v, 1, true), -EFAULT);
	cr_assert_eq(ops->fault_pop(hw, &f), 0, "the kernel's DMAR report was read back");
	cr_assert_eq(f.iova, IOVA + 16 * GPUISO_PAGE_SIZE);
	cr_assert(f.write);
	cr_assert_eq(f.reason, HW_FAULT_NO_WRITE, "reason %#x", f.reason);
	cr_assert_eq(sparse_read(&pm.bytes, hole_pa, &b, 1), 0);
	cr_assert_eq(b, 0, "memory untouched");
	report_window();
	cr_assert_eq(ops->dma(hw, 0, IOVA + 32 * GPUISO_PAGE_SIZE, &v, 1, false), -EFAULT);
	cr_assert_eq(ops->fault_pop(hw, &f), 0);
	cr_assert(!f.write);
	cr_assert_eq(f.reason, HW_FAULT_NO_READ);
	/* unmapped again, the page that worked is blocked too */
	cr_assert_eq(ops->unmap(hw, dom, IOVA, GPUISO_PAGE_SIZE), 0);
	report_window();
	cr_assert_eq(ops->dma(hw, 0, IOVA, &v, 1, true), -EFAULT);
	cr_assert_eq(ops->fault_pop(hw, &f), 0);
	ops->stats(hw, &st);
	cr_assert_eq(st.faults, 3);
	/* behind an IOMMU whose blocked DMA the kernel does not report (vm-test probes it) */
	if (getenv("GPUISO_VFIO_NO_FAULT_REPORTS"))
		cr_assert_eq(st.faults_unreported, 3, "each recorded from the mappings");
	else
		cr_assert_eq(st.faults_unreported, 0, "every fault here is the kernel's report, matched");
}

Test(vfio, a_copy_job_through_the_engine)
{
	struct hw_job save = { HW_COPY_TO_SYSTEM, 4096, IOVA, 2 * GPUISO_PAGE_SIZE };
	struct hw_job restore = { HW_COPY_FROM_SYSTEM, 8 * GPUISO_PAGE_SIZE, IOVA, 2 * GPUISO_PAGE_SIZE };
	uint8_t pattern[2 * 4096], back[2 * 4096];
	pa_t pa = pages(2);

	for (size_t i = 0; i < sizeof(pattern); i++)
		pattern[i] = (uint8_t)(i ^ 0xa5);
	cr_assert_eq(ops->map(hw, dom, IOVA, pa, 2 * GPUISO_PAGE_SIZE, HW_PERM_RW), 0);
	cr_assert_eq(ops->vram_rw(hw, 0, 4096, pattern, sizeof(pattern), true), 0);
	cr_assert_eq(ops->gpu_submit(hw, 0, &save), 0);
	cr_assert_eq(ops->gpu_wait(hw, 0), 0);
	cr_assert_eq(sparse_read(&pm.bytes, pa, back, sizeof(back)), 0);
	cr_assert_arr_eq(back, pattern, sizeof(back));
	cr_assert_eq(ops->gpu_submit(hw, 0, &restore), 0);
	cr_assert_eq(ops->gpu_wait(hw, 0), 0);
	cr_assert_eq(ops->vram_rw(hw, 0, 8 * GPUISO_PAGE_SIZE, back, sizeof(back), false), 0);
	cr_assert_arr_eq(back, pattern, sizeof(back));
}

/*
 * The container's mapping limit (vfio_iommu_type1's dma_entry_limit; the
 * guest boots with a small one) is a map failure, not a crash. iommufd has
 * no such limit: there, as many mappings all succeed.
 */
Test(vfio, the_kernels_mapping_limit_is_a_map_failure)
{
	struct hw_caps caps;

	FILE *f = fopen("/sys/module/vfio_iommu_type1/parameters/dma_entry_limit", "r");
	unsigned int limit = 0, mapped = 0;
	pa_t pa = pages(1);
	int rc = 0;

	cr_assert_not_null(f);
	cr_assert_eq(fscanf(f, "%u", &limit), 1);
	fclose(f);
	cr_assert_lt(limit, 10000, "the guest sets a small limit (%u)", limit);
	/* the same page at consecutive IOVAs, each its own entry */
	while (mapped <= limit) {
		rc = ops->map(hw, dom, IOVA + (iova_t)mapped * GPUISO_PAGE_SIZE, pa,
			      GPUISO_PAGE_SIZE, HW_PERM_RW);
		if (rc)
			break;
		mapped++;
	}
	ops->query_caps(hw, &caps);
	if (!strcmp(caps.name, "vfio/iommufd")) {
		cr_assert_eq(rc, 0, "iommufd: no entry limit, yet mapping %u failed: %d", mapped, rc);
		cr_assert_eq(mapped, limit + 1);
	} else {
		cr_assert_eq(rc, -ENOSPC, "after %u mappings: %d", mapped, rc);
		cr_assert_eq(mapped, limit - 1, "the driver's bounce page holds one entry");
	}
	for (unsigned int i = 0; i < mapped; i++)
		cr_assert_eq(ops->unmap(hw, dom, IOVA + (iova_t)i * GPUISO_PAGE_SIZE, GPUISO_PAGE_SIZE), 0);
	cr_assert_eq(ops->map(hw, dom, IOVA, pa, GPUISO_PAGE_SIZE, HW_PERM_RW), 0, "room again");
}

/*
 * The locked-memory limit: without CAP_IPC_LOCK, pages pinned for DMA count
 * against RLIMIT_MEMLOCK, and going over it is a map failure (-ENOMEM).
 * iommufd decides whether to count when /dev/iommu is opened: the backend is
 * opened again once the capability is gone.
 */
Test(vfio, the_locked_memory_limit_is_a_map_failure)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct caps[2];
	struct rlimit lim = { 16 * GPUISO_PAGE_SIZE, 16 * GPUISO_PAGE_SIZE };
	pa_t pa = pages(32);
	unsigned int mapped = 0;
	uint8_t b = 0x31;
	int rc = 0;

	cr_assert_eq(syscall(SYS_capget, &hdr, caps), 0);
	caps[CAP_IPC_LOCK / 32].effective &= ~(1u << (CAP_IPC_LOCK % 32));
	cr_assert_eq(syscall(SYS_capset, &hdr, caps), 0);
	cr_assert_eq(setrlimit(RLIMIT_MEMLOCK, &lim), 0);
	ops->destroy(hw);
	open_backend();
	while (mapped < 32) {
		rc = ops->map(hw, dom, IOVA + (iova_t)mapped * GPUISO_PAGE_SIZE,
			      pa + (pa_t)mapped * GPUISO_PAGE_SIZE, GPUISO_PAGE_SIZE, HW_PERM_RW);
		if (rc)
			break;
		mapped++;
	}
	cr_assert_eq(rc, -ENOMEM, "after %u pages: %d", mapped, rc);
	cr_assert_lt(mapped, 16, "the bounce page is pinned too");
	cr_assert_eq(ops->dma(hw, 0, IOVA, &b, 1, true), 0, "what was mapped still works");
	for (unsigned int i = 0; i < mapped; i++)
		cr_assert_eq(ops->unmap(hw, dom, IOVA + (iova_t)i * GPUISO_PAGE_SIZE, GPUISO_PAGE_SIZE), 0);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/*
 * Map+unmap latency of one 4 KiB page through VFIO, for the bench JSON
 * (emulated): /tmp/vfio-bench-API.json, its metrics named vfio.API.*.
 */
Test(vfio, map_unmap_latency)
{
	enum { N = 200 };
	uint64_t t[N];
	pa_t pa = pages(1);
	struct hw_caps caps;
	const char *api;
	char path[64];
	FILE *f;

	for (int i = 0; i < N; i++) {
		uint64_t t0 = now_ns();

		cr_assert_eq(ops->map(hw, dom, IOVA, pa, GPUISO_PAGE_SIZE, HW_PERM_RW), 0);
		cr_assert_eq(ops->unmap(hw, dom, IOVA, GPUISO_PAGE_SIZE), 0);
		t[i] = now_ns() - t0;
	}
	qsort(t, N, sizeof(t[0]), cmp_u64);
	ops->query_caps(hw, &caps);
	api = caps.name + strlen("vfio/");
	snprintf(path, sizeof(path), "/tmp/vfio-bench-%s.json", api);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	fprintf(f, "{\"schema\":\"gpuiso-bench/1\",\"host\":\"qemu-tcg-guest\",\"git_rev\":null,"
		   "\"notes\":\"emulated: QEMU TCG with the %s IOMMU model and edu; not a hardware "
		   "figure\",\"metrics\":{\"vfio.%s.map_unmap_4k_p50_ns\":{\"value\":%llu,\"unit\":\"ns\"},"
		   "\"vfio.%s.map_unmap_4k_p99_ns\":{\"value\":%llu,\"unit\":\"ns\"}}}\n",
		hw_iommu_model_name(caps.model), api, (unsigned long long)t[N / 2], api,
		(unsigned long long)t[N * 99 / 100]);
	fclose(f);
	printf("vfio map+unmap of 4 KiB through %s (emulated): p50 %llu ns, p99 %llu ns\n", api,
	       (unsigned long long)t[N / 2], (unsigned long long)t[N * 99 / 100]);
}

/* A device whose DMA engine gpuiso does not drive (QEMU's pci-testdev): mappings only. */
Test(vfio_no_engine, maps_and_unmaps_but_does_no_dma)
{
	const struct range_extent r[] = { { 0x0, 64 * MiB } };
	struct physmem_config pcfg = { .ram = r, .nram = 1, .commit_limit = 64 * MiB,
				       .lockable_limit = 64 * MiB };
	struct vfio_config cfg = { .pm = &pm, .bdf = getenv("GPUISO_VFIO_NODMA_BDF"),
				   .vram_bytes = MiB, .iommu = vfio_env_iommu() };
	struct hw_job job = { HW_COPY_TO_SYSTEM, 0, IOVA, 64 };
	struct hw_caps caps;
	char err[512] = "";
	uint8_t b = 0;
	uint32_t d;
	pa_t pa;

	cr_assert_not_null(cfg.bdf, "GPUISO_VFIO_NODMA_BDF: run by scripts/vm-test in the guest");
	cr_assert_eq(physmem_init(&pm, &pcfg), 0);
	cr_assert_eq(vfio_create(&cfg, &hw, err, sizeof(err)), 0, "%s", err);
	ops = hw->ops;
	ops->query_caps(hw, &caps);
	cr_assert_eq(caps.dma_bits, 0, "no DMA engine");
	cr_assert_gt(caps.iova_bits, EDU_DMA_BITS, "the IOMMU's width, not a device's DMA mask");
	cr_assert_eq(ops->domain_alloc(hw, &d), 0);
	cr_assert_eq(ops->attach(hw, 0, d), 0);
	cr_assert_eq(physmem_alloc(&pm, 1, true, &pa), 0);
	cr_assert_eq(ops->map(hw, d, (iova_t)1 << 32, pa, GPUISO_PAGE_SIZE, HW_PERM_RW), 0,
		     "above 4 GiB: no DMA mask to keep below");
	cr_assert_eq(ops->map(hw, d, (iova_t)1 << 32, pa, GPUISO_PAGE_SIZE, HW_PERM_RW), -EEXIST);
	cr_assert_eq(ops->unmap(hw, d, (iova_t)1 << 32, GPUISO_PAGE_SIZE), 0);
	cr_assert_eq(ops->dma(hw, 0, IOVA, &b, 1, true), -EOPNOTSUPP);
	cr_assert_eq(ops->gpu_submit(hw, 0, &job), -EOPNOTSUPP);
	ops->destroy(hw);
	physmem_fini(&pm);
}
