/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "suites.h"
#include "bench/stats.h"
#include "common/clock.h"
#include "core/core.h"
#include "core/scenario.h"
#include "hw/backend.h"
#include "replay/machine.h"
#include "replay/trace.h"

/*
 * The micro suite. Each figure is the median of several batches; each batch
 * is long enough that the clock's cost vanishes. The frame-buffer paths are
 * compared with memcpy of the same bytes measured in the same run.
 */

#define BATCHES 15

struct sim_rig {
	struct hw_backend be;
	struct hw *hw;
	uint32_t domain;
};

/* A simulator of one GPU with @ram of memory, made by the factory, and one domain. */
static int rig_open(struct sim_rig *rig, uint64_t ram)
{
	static const struct hw_backend_name sim = { .kind = HW_BACKEND_SIM };
	struct range_extent map = { .base = 0, .size = ram };
	uint64_t vram = 64ull << 20;
	struct hw_machine m = {
		.memory = { .ram = &map, .nram = 1, .commit_limit = ram, .lockable_limit = ram },
		.ngpus = 1, .vram = &vram,
	};
	char err[256];
	int rc;

	rc = hw_backend_open(&sim, &m, NULL, &rig->be, err, sizeof(err));
	if (rc)
		return rc;
	rig->hw = rig->be.hw;
	return rig->hw->ops->domain_alloc(rig->hw, &rig->domain);
}

static void rig_close(struct sim_rig *rig)
{
	hw_backend_close(&rig->be);
}

/* 4 KiB map + unmap through the ops table, over a window of 512 pages. */
static int bench_map_unmap_4k(struct bench_report *r, struct sim_rig *rig)
{
	const struct hw_ops *ops = rig->hw->ops;
	enum { PAIRS = 200000 };
	double ns[BATCHES];

	for (int b = 0; b < BATCHES; b++) {
		uint64_t t0 = clock_mono_ns();

		for (uint64_t i = 0; i < PAIRS; i++) {
			iova_t iova = 0x40000000 + (i % 512) * GPUISO_PAGE_SIZE;
			int rc = ops->map(rig->hw, rig->domain, iova, 0x100000 + (i % 512) * GPUISO_PAGE_SIZE,
					  GPUISO_PAGE_SIZE, HW_PERM_RW);

			if (!rc)
				rc = ops->unmap(rig->hw, rig->domain, iova, GPUISO_PAGE_SIZE);
			if (rc)
				return rc;
		}
		ns[b] = (double)(clock_mono_ns() - t0) / PAIRS;
	}
	bench_add(r, "sim.map_unmap_4k_ns", stats_median(ns, BATCHES), "ns",
		  "4 KiB map+unmap via hw_ops (target <= 20)");
	return 0;
}

/* One large-page map (unmapped again outside the timed part). */
static int bench_map_large(struct bench_report *r, struct sim_rig *rig, uint64_t size,
			   const char *name)
{
	const struct hw_ops *ops = rig->hw->ops;
	enum { MAPS = 64 };
	struct hw_stats before, after;
	double ns[BATCHES];
	char note[96];

	ops->stats(rig->hw, &before);
	for (int b = 0; b < BATCHES; b++) {
		uint64_t t0 = clock_mono_ns();

		for (uint64_t i = 0; i < MAPS; i++) {
			int rc = ops->map(rig->hw, rig->domain, (1ull << 40) + i * size, size, size,
					  HW_PERM_RW);

			if (rc)
				return rc;
		}
		ns[b] = (double)(clock_mono_ns() - t0) / MAPS;
		for (uint64_t i = 0; i < MAPS; i++)
			ops->unmap(rig->hw, rig->domain, (1ull << 40) + i * size, size);
	}
	ops->stats(rig->hw, &after);
	snprintf(note, sizeof(note), "%.1f PTE writes per map (%llu 4 KiB pages)",
		 (double)(after.pte_writes - before.pte_writes) / (2.0 * BATCHES * MAPS),
		 (unsigned long long)(size / GPUISO_PAGE_SIZE));
	bench_add(r, name, stats_median(ns, BATCHES), "ns", note);
	return 0;
}

/* One-page MDL: allocate, map, unmap, free, through the core with the verifier on. */
static int bench_mdl_cycle(struct bench_report *r)
{
	enum { CYCLES = 100000 };
	struct hw_backend be = { 0 };
	struct scenario scn;
	struct core *core = NULL;
	double ns[BATCHES];
	char err[256];
	size_t nviol;
	int rc;

	rc = scenario_defaults(&scn);
	if (rc)
		return rc;
	rc = machine_open(&scn, "sim", &be, err, sizeof(err));
	if (!rc)
		rc = core_create(&scn, &be, &core);
	if (!rc)
		rc = core_start(core);
	for (int b = 0; !rc && b < BATCHES; b++) {
		uint64_t t0 = clock_mono_ns();

		for (int i = 0; !rc && i < CYCLES; i++) {
			core_handle_t mdl, map;

			rc = core_alloc_mdl(core, 0, GPUISO_PAGE_SIZE, &mdl);
			if (rc)
				break;
			rc = core_map_mdl(core, 0, mdl, &map, NULL);
			if (!rc)
				rc = core_unmap_mdl(core, 0, map);
			if (!rc)
				rc = core_free_mdl(core, 0, mdl);
		}
		ns[b] = (double)(clock_mono_ns() - t0) / CYCLES;
	}
	if (!rc) {
		core_violations(core, &nviol);
		if (nviol)
			rc = -ENOTRECOVERABLE;
	}
	if (!rc)
		bench_add(r, "core.mdl_cycle_4k_ns", stats_median(ns, BATCHES), "ns",
			  "alloc+map+unmap+free of a 1-page MDL (target <= 100)");
	core_destroy(core);
	hw_backend_close(&be);
	scenario_free(&scn);
	return rc;
}

/*
 * A disabled injection point: fp_should_fail() on an unarmed point, against
 * the same loop without it, in the same run.
 */
static int bench_disabled_point(struct bench_report *r)
{
	enum { N = 50000000 };
	struct fp_ctx *ctx = calloc(1, sizeof(*ctx));
	double with[BATCHES], without[BATCHES];
	volatile uint64_t sink = 0;

	if (!ctx)
		return -ENOMEM;
	for (int b = 0; b < BATCHES; b++) {
		uint64_t t0 = clock_mono_ns(), acc = 0;

		for (uint64_t i = 0; i < N; i++) {
			acc += i ^ (uint64_t)fp_should_fail(ctx, (enum fp_point)(i & 7));
			__asm__ volatile("" : "+r"(acc)); /* the same loop as below: no vectorising */
		}
		with[b] = (double)(clock_mono_ns() - t0) / N;
		sink += acc;
		t0 = clock_mono_ns();
		acc = 0;
		for (uint64_t i = 0; i < N; i++) {
			acc += i ^ (i & 7);
			__asm__ volatile("" : "+r"(acc)); /* keep the loop a loop */
		}
		without[b] = (double)(clock_mono_ns() - t0) / N;
		sink += acc;
	}
	free(ctx);
	(void)sink;
	bench_add(r, "faults.disabled_point_ns",
		  stats_median(with, BATCHES) - stats_median(without, BATCHES), "ns",
		  "an unarmed injection point, over the same loop without it");
	return 0;
}

/*
 * Tracepoint calls whose events no session enables (replay/trace.h): the
 * same workload event over and over, every kind in turn, and an operation's
 * and a power transition's calls in pairs, each per call, loop included.
 * Compiled out (-Dtracing=disabled), they are no calls at all.
 */
static void bench_disabled_tracepoints(struct bench_report *r)
{
	enum { N = 2000000 };
	struct wl_event ev[WL_NKINDS];
	struct core_power_record rec = { 0 };
	double same[BATCHES], rotating[BATCHES], pair[BATCHES];
	const char *off = GPUISO_HAVE_TRACING ? "" : " (compiled out)";
	char note[128];

	for (unsigned int k = 0; k < WL_NKINDS; k++)
		ev[k] = (struct wl_event){ .kind = k, .v = { k, k + 1, k + 2 } };
	for (int b = 0; b < BATCHES; b++) {
		uint64_t t0 = clock_mono_ns(), t1, t2;

		for (unsigned int i = 0; i < N; i++)
			trace_wl(&ev[WL_ALLOC_MDL]);
		t1 = clock_mono_ns();
		for (unsigned int i = 0, k = 0; i < N; i++, k = k + 1 == WL_NKINDS ? 0 : k + 1)
			trace_wl(&ev[k]);
		t2 = clock_mono_ns();
		for (unsigned int i = 0; i < N; i++) {
			trace_op(WL_ALLOC_MDL, 0, i, 0, i, i, i);
			trace_power(&rec);
		}
		same[b] = (double)(t1 - t0) / N;
		rotating[b] = (double)(t2 - t1) / N;
		pair[b] = (double)(clock_mono_ns() - t2) / N;
	}
	snprintf(note, sizeof(note), "a disabled trace_wl() of one kind%s", off);
	bench_add(r, "trace.disabled_wl_ns", stats_median(same, BATCHES), "ns", note);
	snprintf(note, sizeof(note), "a disabled trace_wl(), every kind in turn%s", off);
	bench_add(r, "trace.disabled_wl_rotating_ns", stats_median(rotating, BATCHES), "ns", note);
	snprintf(note, sizeof(note), "a disabled trace_op() and trace_power(), the pair%s", off);
	bench_add(r, "trace.disabled_op_power_ns", stats_median(pair, BATCHES), "ns", note);
}

#define FB_BYTES (256ull << 20)
#define FB_ROUNDS 5

/*
 * A model with one 256 MiB frame-buffer reserve, warmed by one power cycle
 * (the section's pages and VRAM exist). The chunked path is forced the way
 * it happens in the field: too little lockable memory to pin the whole area.
 */
static int fb_rig(struct scenario *scn, struct hw_backend *be, struct core **core, bool chunked)
{
	char err[256];
	int rc;

	rc = scenario_defaults(scn);
	if (rc)
		return rc;
	scn->adapters[0].phys[0].vram = 2 * FB_BYTES;
	scn->adapters[0].phys[0].fb_save_size = FB_BYTES;
	rc = machine_open(scn, "sim", be, err, sizeof(err));
	if (!rc)
		rc = core_create(scn, be, core);
	if (!rc)
		rc = core_start(*core);
	if (!rc && chunked) {
		struct physmem_pressure p = { .commit_available = UINT64_MAX,
					      .lockable_available = 1 << 20,
					      .max_contiguous = UINT64_MAX };

		core_memory(*core, &p);
	}
	if (!rc)
		rc = core_power(*core, 0, 0, POWER_D3);
	if (!rc)
		rc = core_power(*core, 0, 0, POWER_D0);
	return rc;
}

/* One power-down save; its copy time, checked to have taken @path and to restore. */
static int fb_save_ns(struct core *core, enum power_path path, double *ns)
{
	const struct core_power_record *recs;
	size_t n;
	int rc;

	rc = core_power(core, 0, 0, POWER_D3);
	if (!rc)
		rc = core_power(core, 0, 0, POWER_D0);
	if (rc)
		return rc;
	recs = core_power_records(core, &n);
	if (recs[n - 2].path != path || !recs[n - 1].verified)
		return -ENOTRECOVERABLE;
	*ns = (double)recs[n - 2].copy_ns;
	return 0;
}

/*
 * Each round times a pinned save, a chunked save and a plain memcpy of the
 * same bytes back to back, so that a noisy neighbour hits all three alike;
 * ratios are taken per round, then the median.
 */
static int bench_fbsave(struct bench_report *r)
{
	double pin_ns[FB_ROUNDS], chunk_ns[FB_ROUNDS], copy_ns[FB_ROUNDS];
	double pin_ratio[FB_ROUNDS], chunk_ratio[FB_ROUNDS];
	struct scenario pin_scn = { 0 }, chunk_scn = { 0 };
	struct hw_backend pin_be = { 0 }, chunk_be = { 0 };
	struct core *pin = NULL, *chunk = NULL;
	char *src = malloc(FB_BYTES), *dst = malloc(FB_BYTES);
	int rc = -ENOMEM;

	if (!src || !dst)
		goto out;
	/* (not zero: malloc plus a zero memset may become calloc, leaving the pages untouched) */
	memset(src, 0x5a, FB_BYTES);
	memset(dst, 0xa5, FB_BYTES);
	rc = fb_rig(&pin_scn, &pin_be, &pin, false);
	if (!rc)
		rc = fb_rig(&chunk_scn, &chunk_be, &chunk, true);
	for (int i = 0; !rc && i < FB_ROUNDS; i++) {
		uint64_t t0;

		rc = fb_save_ns(pin, PATH_PINNED, &pin_ns[i]);
		if (!rc)
			rc = fb_save_ns(chunk, PATH_CHUNKED, &chunk_ns[i]);
		/*
		 * The reference is the fastest of a few copies: the saves' large
		 * allocations make the kernel move pages around (compaction), and
		 * the first copy after them can fault on every page (1.2 GB/s
		 * against 16 here). Noise only ever slows a copy down.
		 */
		copy_ns[i] = HUGE_VAL;
		for (int k = 0; k < 3; k++) {
			t0 = clock_mono_ns();
			memcpy(dst, src, FB_BYTES);
			copy_ns[i] = fmin(copy_ns[i], (double)(clock_mono_ns() - t0));
		}
		src[i] ^= dst[FB_BYTES - 1 - i]; /* keep the copies observable */
		pin_ratio[i] = copy_ns[i] / pin_ns[i];
		chunk_ratio[i] = copy_ns[i] / chunk_ns[i];
	}
	if (!rc) {
		bench_add(r, "fbsave.pinned_gbps", FB_BYTES / stats_median(pin_ns, FB_ROUNDS), "GB/s",
			  "power-down save of 256 MiB, whole area pinned");
		bench_add(r, "fbsave.chunked_gbps", FB_BYTES / stats_median(chunk_ns, FB_ROUNDS),
			  "GB/s", "power-down save of 256 MiB, 4 KiB chunks");
		bench_add(r, "fbsave.memcpy_gbps", FB_BYTES / stats_median(copy_ns, FB_ROUNDS), "GB/s",
			  "memcpy of the same 256 MiB");
		bench_add(r, "fbsave.pinned_ratio", stats_median(pin_ratio, FB_ROUNDS), "ratio",
			  "pinned over memcpy, per round (target >= 0.8)");
		bench_add(r, "fbsave.chunked_ratio", stats_median(chunk_ratio, FB_ROUNDS), "ratio",
			  "chunked over memcpy, per round (target >= 0.5)");
	}
out:
	core_destroy(pin);
	core_destroy(chunk);
	hw_backend_close(&pin_be);
	hw_backend_close(&chunk_be);
	scenario_free(&pin_scn);
	scenario_free(&chunk_scn);
	free(src);
	free(dst);
	return rc;
}

int bench_suite_micro(struct bench_report *r)
{
	struct sim_rig rig = { 0 };
	int rc;

	bench_progress(r, "micro: IOMMU map/unmap through the backend ops");
	rc = rig_open(&rig, 8ull << 30);
	if (!rc)
		rc = bench_map_unmap_4k(r, &rig);
	if (!rc)
		rc = bench_map_large(r, &rig, SZ_2M, "sim.map_2m_ns");
	if (!rc)
		rc = bench_map_large(r, &rig, SZ_1G, "sim.map_1g_ns");
	rig_close(&rig);
	bench_progress(r, "micro: MDL cycle through the core callbacks");
	if (!rc)
		rc = bench_mdl_cycle(r);
	bench_progress(r, "micro: disabled injection points and tracepoints");
	if (!rc)
		rc = bench_disabled_point(r);
	if (!rc)
		bench_disabled_tracepoints(r);
	bench_progress(r, "micro: 256 MiB frame-buffer saves against memcpy");
	if (!rc)
		rc = bench_fbsave(r);
	return rc;
}
