/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fnmatch.h>
#include <string.h>

#include "faults.h"

static const struct {
	const char *name;
	const char *what;
	const char *reach; /* what a sweep needs to reach it */
} fp_points[FP_NPOINTS] = {
	[FP_FBSAVE_PIN] = { "fbsave/pin", "pinning the whole frame-buffer save area fails: save/restore falls back to chunks",
			    "power transitions: a trace with power events (trace gen --profile power-cycle)" },
	[FP_FBSAVE_MAP_CHUNK] = { "fbsave/map_chunk", "mapping one chunk of the save area fails: the transition is cancelled and the adapter reset",
				  "only the chunked save, after a failed pin: a base plan failing every pin (--faults with {point: fbsave/pin, probability: 1})" },
	[FP_MEM_ALLOC_CONTIGUOUS] = { "mem/alloc_contiguous", "DxgkCbAllocateContiguousMemory finds no contiguous run",
				      "a driver without DMA remapping (traces/scenarios/default.yaml) and a trace calling it (--profile desktop or power-cycle)" },
	[FP_MEM_ALLOC_MDL] = { "mem/alloc_mdl", "DxgkCbAllocatePagesForMdl finds no pages",
			       "a driver without DMA remapping (traces/scenarios/default.yaml) and a trace calling it (--profile desktop, game, remap or dpc)" },
	[FP_MEM_COMMIT] = { "mem/commit", "taking commit charge fails (commit limit reached)",
			    "any allocation" },
	[FP_MEM_LOCK] = { "mem/lock", "locking pages fails (lockable limit reached)",
			  "any allocation the device reaches" },
	[FP_MEM_PMO_CREATE] = { "mem/pmo_create", "creating a physical memory object fails",
				"the WDDM 3.0 memory services: a driver reporting DXGK_IOMMU_CAPS (traces/scenarios/logical-remap.yaml), or a trace creating PMOs (--profile remap)" },
	[FP_MEM_ADL_ALLOC] = { "mem/adl_alloc", "building an address descriptor list fails",
			       "the WDDM 3.0 memory services: a driver reporting DXGK_IOMMU_CAPS (traces/scenarios/logical-remap.yaml), or a trace building ADLs (--profile remap)" },
	[FP_IOMMU_MAP] = { "iommu/map", "an IOMMU map call (one physically contiguous stretch) fails",
			   "any mapping for the device" },
	[FP_IOMMU_UNMAP] = { "iommu/unmap", "clearing IOMMU page-table entries fails",
			     "any mapping for the device, once it ends" },
	[FP_IOMMU_IOVA_ALLOC] = { "iommu/iova_alloc", "no logical address range is free below the device's limit",
				  "logical remapping mode: traces/scenarios/logical-remap.yaml" },
	[FP_DOMAIN_ATTACH] = { "domain/attach", "attaching the domain to a device fails",
			       "an adapter whose IOMMU is enabled (every sample scenario)" },
	[FP_ADAPTER_ENABLE] = { "adapter/enable", "IOMMU enablement of an adapter fails",
				"an adapter whose IOMMU is enabled (every sample scenario)" },
	[FP_GPU_COPY] = { "gpu/copy", "a copy-engine job fails",
			  "copy-engine jobs: transfers and frame-buffer saves (--profile desktop or power-cycle)" },
};

const char *fp_point_name(enum fp_point p)
{
	return (unsigned int)p < FP_NPOINTS ? fp_points[p].name : NULL;
}

const char *fp_point_describe(enum fp_point p)
{
	return (unsigned int)p < FP_NPOINTS ? fp_points[p].what : NULL;
}

const char *fp_point_reach(enum fp_point p)
{
	return (unsigned int)p < FP_NPOINTS ? fp_points[p].reach : NULL;
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
	ctx->armed[p] = rule->nth || rule->every || rule->probability_ppm || rule->nhits ||
			rule->observe;
	ctx->hits[p] = 0;
	ctx->injected[p] = 0;
	ctx->space_used[p] = 0;
	/* each point draws from its own stream: one point's hits do not shift another's */
	ctx->rng[p] = rule->seed ^ (0x9e3779b97f4a7c15ull * ((uint64_t)p + 1));
}

/* Hit @n of @p fails: count it, and remember where the first failure was. */
static bool inject(struct fp_ctx *ctx, enum fp_point p, uint64_t n)
{
	const struct fp_injection here = { .point = p, .nth = n, .event = ctx->event, .ts = ctx->ts,
					   .op = ctx->op, .site = ctx->site };

	if (!ctx->injected[p]++)
		ctx->first_at[p] = here;
	if (!ctx->ninjections++)
		ctx->first = here;
	if (ctx->injected_hook)
		ctx->injected_hook(ctx->injected_arg, &here);
	return true;
}

/* Whether @r lists hit @n (its hits ascend). */
static bool rule_lists(const struct fp_rule *r, uint64_t n)
{
	for (uint32_t i = 0; i < r->nhits && r->hits[i] <= n; i++)
		if (r->hits[i] == n)
			return true;
	return false;
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
	} else if (r->nhits) {
		if (!rule_lists(r, n))
			return false;
	} else if (n < r->nth || (n != r->nth && (!r->every || (n - r->nth) % r->every))) {
		return false;
	}
	return inject(ctx, p, n);
}
