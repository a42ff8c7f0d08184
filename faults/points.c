/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fnmatch.h>
#include <string.h>

#include "faults.h"

static const struct {
	const char *name;
	const char *what;
} fp_points[FP_NPOINTS] = {
	[FP_FBSAVE_PIN] = { "fbsave/pin", "pinning the whole frame-buffer save area fails: save/restore falls back to chunks" },
	[FP_FBSAVE_MAP_CHUNK] = { "fbsave/map_chunk", "mapping one chunk of the save area fails: the transition is cancelled and the adapter reset" },
	[FP_MEM_ALLOC_CONTIGUOUS] = { "mem/alloc_contiguous", "DxgkCbAllocateContiguousMemory finds no contiguous run" },
	[FP_MEM_ALLOC_MDL] = { "mem/alloc_mdl", "DxgkCbAllocatePagesForMdl finds no pages" },
	[FP_MEM_COMMIT] = { "mem/commit", "taking commit charge fails (commit limit reached)" },
	[FP_MEM_LOCK] = { "mem/lock", "locking pages fails (lockable limit reached)" },
	[FP_MEM_PMO_CREATE] = { "mem/pmo_create", "creating a physical memory object fails" },
	[FP_MEM_ADL_ALLOC] = { "mem/adl_alloc", "building an address descriptor list fails" },
	[FP_IOMMU_MAP] = { "iommu/map", "an IOMMU map call (one physically contiguous stretch) fails" },
	[FP_IOMMU_UNMAP] = { "iommu/unmap", "clearing IOMMU page-table entries fails" },
	[FP_IOMMU_IOVA_ALLOC] = { "iommu/iova_alloc", "no logical address range is free below the device's limit" },
	[FP_DOMAIN_ATTACH] = { "domain/attach", "attaching the domain to a device fails" },
	[FP_ADAPTER_ENABLE] = { "adapter/enable", "IOMMU enablement of an adapter fails" },
	[FP_GPU_COPY] = { "gpu/copy", "a copy-engine job fails" },
};

const char *fp_point_name(enum fp_point p)
{
	return (unsigned int)p < FP_NPOINTS ? fp_points[p].name : NULL;
}

const char *fp_point_describe(enum fp_point p)
{
	return (unsigned int)p < FP_NPOINTS ? fp_points[p].what : NULL;
}

int fp_point_lookup(const char *name)
{
	for (int p = 0; p < FP_NPOINTS; p++)
		if (!strcmp(fp_points[p].name, name))
			return p;
	return -ENOENT;
}

bool fp_point_match(const char *pattern, enum fp_point p)
{
	const char *name = fp_point_name(p);

	return name && !fnmatch(pattern, name, 0);
}

void fp_arm(struct fp_ctx *ctx, enum fp_point p, const struct fp_rule *rule)
{
	ctx->rule[p] = *rule;
	ctx->armed[p] = rule->nth || rule->every || rule->probability_ppm || rule->observe;
	ctx->hits[p] = 0;
	ctx->injected[p] = 0;
	ctx->space_used[p] = 0;
	/* each point draws from its own stream: one point's hits do not shift another's */
	ctx->rng[p] = rule->seed ^ (0x9e3779b97f4a7c15ull * ((uint64_t)p + 1));
}

/* Hit @n of @p fails: count it, and remember where the first failure was. */
static bool inject(struct fp_ctx *ctx, enum fp_point p, uint64_t n)
{
	ctx->injected[p]++;
	if (!ctx->ninjections++)
		ctx->first = (struct fp_injection){ .point = p, .nth = n, .event = ctx->event,
						    .ts = ctx->ts, .op = ctx->op, .site = ctx->site };
	return true;
}

static uint64_t splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

bool fp_hit(struct fp_ctx *ctx, enum fp_point p, uint64_t bytes)
{
	const struct fp_rule *r = &ctx->rule[p];
	uint64_t n = ctx->hits[p], where;

	if (r->observe) {
		if (!ctx->observe || !ctx->observe(ctx->observe_arg, p, n))
			return false;
		return inject(ctx, p, n);
	}

	if (r->window != FP_WINDOW_ALL) {
		where = r->window == FP_WINDOW_EVENTS ? ctx->event : ctx->ts;
		if (where < r->from || where > r->to)
			return false;
	}
	if (r->space) {
		ctx->space_used[p] += bytes;
		if (ctx->space_used[p] <= r->space)
			return false;
	}
	if (r->times && ctx->injected[p] >= r->times)
		return false;
	if (r->probability_ppm) {
		if (splitmix64(&ctx->rng[p]) % 1000000 >= r->probability_ppm)
			return false;
	} else if (n < r->nth || (n != r->nth && (!r->every || (n - r->nth) % r->every))) {
		return false;
	}
	return inject(ctx, p, n);
}
