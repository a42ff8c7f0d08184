/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_FAULTS_FAULTS_H
#define GPUISO_FAULTS_FAULTS_H

#include <stdbool.h>
#include <stdint.h>

/*
 * Named injection points: every place where the real system can fail asks
 * fp_should_fail() first. With no rule armed on a point the check is one
 * load and one predictable branch. A leaf library: it depends on nothing.
 */

enum fp_point {
	FP_FBSAVE_PIN,       /* pin the whole frame-buffer save area */
	FP_FBSAVE_MAP_CHUNK, /* map one chunk of a save area */
	FP_MEM_ALLOC_CONTIGUOUS,
	FP_MEM_ALLOC_MDL,
	FP_MEM_COMMIT,
	FP_MEM_LOCK,
	FP_MEM_PMO_CREATE,
	FP_MEM_ADL_ALLOC,
	FP_IOMMU_MAP,
	FP_IOMMU_UNMAP,
	FP_IOMMU_IOVA_ALLOC,
	FP_DOMAIN_ATTACH,
	FP_ADAPTER_ENABLE,
	FP_GPU_COPY,
	FP_NPOINTS
};

/* A rule on one point: fail hits number nth, nth+every, ... at most times. */
struct fp_rule {
	uint64_t nth;   /* first hit that fails (1-based); 0 = never */
	uint64_t every; /* after the first failure, every this many hits (0 = only once) */
	uint64_t times; /* at most this many failures (0 = no bound) */
};

struct fp_ctx {
	bool armed[FP_NPOINTS];
	struct fp_rule rule[FP_NPOINTS];
	uint64_t hits[FP_NPOINTS];     /* every call, armed or not, counts */
	uint64_t injected[FP_NPOINTS]; /* failures returned */
};

/**
 * fp_point_name() - the stable name of a point, e.g. "fbsave/pin".
 * @p: the point.
 *
 * Return: the name, or NULL for an unknown point.
 */
const char *fp_point_name(enum fp_point p);

/**
 * fp_point_describe() - what a failure at @p means, one line.
 * @p: the point.
 *
 * Return: the text, or NULL for an unknown point.
 */
const char *fp_point_describe(enum fp_point p);

/**
 * fp_point_lookup() - the point with this name.
 * @name: e.g. "iommu/map".
 *
 * Return: the point, or -ENOENT.
 */
int fp_point_lookup(const char *name);

/**
 * fp_arm() - set the rule of one point (replacing any) and reset its counters.
 * @ctx: the context.
 * @p: the point.
 * @rule: the rule; nth 0 disarms the point.
 */
void fp_arm(struct fp_ctx *ctx, enum fp_point p, const struct fp_rule *rule);

/**
 * fp_hit() - count a hit and decide by the rule; use fp_should_fail().
 * @ctx: the context.
 * @p: the point.
 *
 * Return: true when this hit must fail.
 */
bool fp_hit(struct fp_ctx *ctx, enum fp_point p);

/**
 * fp_should_fail() - whether the operation at @p must fail now.
 * @ctx: the context, or NULL for no injection.
 * @p: the point.
 *
 * Return: true when the caller must behave as if the operation failed.
 */
static inline bool fp_should_fail(struct fp_ctx *ctx, enum fp_point p)
{
	if (!ctx)
		return false;
	ctx->hits[p]++;
	if (__builtin_expect(!ctx->armed[p], 1))
		return false;
	return fp_hit(ctx, p);
}

#endif
