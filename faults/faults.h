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

/* Where in a run a rule applies. */
enum fp_window {
	FP_WINDOW_ALL = 0,
	FP_WINDOW_EVENTS = 1, /* event index in [from, to] */
	FP_WINDOW_TIME = 2,   /* event timestamp (ns) in [from, to] */
};

/* The most hits a rule lists (fp_rule.hits: a trimmed run's failures at one point). */
#define FP_RULE_HITS 16

/*
 * A rule on one point, as in Linux's fault_attr: a hit fails when it is in
 * the window, the byte budget @space has been used up, fewer than @times
 * failures happened, and either the probability draw says so, or it is hit
 * number @nth, @nth + @every, ..., or it is one of the hits listed (hits
 * count from the start of the run).
 */
struct fp_rule {
	uint64_t nth;            /* first hit that fails (1-based) */
	uint64_t every;          /* then every this many hits (0: only once) */
	uint64_t times;          /* at most this many failures (0: no bound) */
	uint32_t probability_ppm; /* chance per hit in millionths (instead of nth/every) */
	uint64_t seed;           /* of the probability draws */
	uint64_t hits[FP_RULE_HITS]; /* (instead of the above) these hits fail, ascending */
	uint32_t nhits;
	uint64_t space;          /* bytes that must pass before failures start */
	enum fp_window window;
	uint64_t from, to;       /* window bounds, inclusive */
	bool observe;            /* ask fp_ctx.observe instead (sweeps) */
};

/* Where a failure was injected: the hit, the event and the model's call site. */
struct fp_injection {
	enum fp_point point;
	uint64_t nth;        /* the point's hit number (1-based) */
	uint64_t event, ts;  /* the event being executed (fp_ctx.event, .ts) */
	const char *op;      /* its operation (fp_ctx.op), or NULL */
	const char *site;    /* the function of the model that asked (fp_should_fail()) */
};

struct fp_ctx {
	bool armed[FP_NPOINTS];
	struct fp_rule rule[FP_NPOINTS];
	uint64_t hits[FP_NPOINTS];     /* every call, armed or not, counts */
	uint64_t injected[FP_NPOINTS]; /* failures returned */
	uint64_t rng[FP_NPOINTS];      /* probability draws, per point */
	uint64_t space_used[FP_NPOINTS];
	uint64_t event, ts;            /* where the run is (for windows) */
	const char *op;                /* the operation being executed (a static name), or NULL */
	const char *site;              /* the caller of the last hit of an armed point */
	uint64_t ninjections;          /* failures injected at every point */
	struct fp_injection first;     /* the first of them, when there was one */
	struct fp_injection first_at[FP_NPOINTS]; /* the first at each point (injected[p] > 0) */
	/*
	 * Observed points (rule.observe) ask this at every hit, with the hit's
	 * number (1-based); true makes the hit fail. A sweep counts hits with
	 * it, and forks at the one it fails.
	 */
	bool (*observe)(void *arg, enum fp_point p, uint64_t hit);
	void *observe_arg;
	/* Told of every failure injected, or NULL (a trim notes where a plan's fell). */
	void (*injected_hook)(void *arg, const struct fp_injection *at);
	void *injected_arg;
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
 * fp_point_reach() - what a run needs to reach @p: a scenario, a trace, a base plan.
 * @p: the point.
 *
 * Return: the text, or NULL for an unknown point.
 */
const char *fp_point_reach(enum fp_point p);

/**
 * fp_point_lookup() - the point with this name.
 * @name: e.g. "iommu/map".
 *
 * Return: the point, or -ENOENT.
 */
int fp_point_lookup(const char *name);

/**
 * fp_point_match() - whether a point's name matches a glob (fnmatch: a star matches any run).
 * @pattern: the glob (fnmatch syntax).
 * @p: the point.
 *
 * Return: true or false.
 */
bool fp_point_match(const char *pattern, enum fp_point p);

/**
 * fp_arm() - set the rule of one point (replacing any) and reset its counters.
 * @ctx: the context.
 * @p: the point.
 * @rule: the rule; one with neither nth, every, a probability, hits nor observe disarms the point.
 */
void fp_arm(struct fp_ctx *ctx, enum fp_point p, const struct fp_rule *rule);

/**
 * fp_hit() - count a hit and decide by the rule; use fp_should_fail().
 * @ctx: the context.
 * @p: the point.
 * @bytes: the size the operation concerns (for the space budget), or 0.
 *
 * Return: true when this hit must fail.
 */
bool fp_hit(struct fp_ctx *ctx, enum fp_point p, uint64_t bytes);

/**
 * fp_should_fail_at() - whether the operation at @p on @bytes must fail now;
 * use fp_should_fail() or fp_should_fail_bytes(), which name the caller.
 * @ctx: the context, or NULL for no injection.
 * @p: the point.
 * @bytes: the size concerned (counts against the rule's space budget).
 * @site: the function asking (a static string): where an injection is reported.
 *
 * Return: true when the caller must behave as if the operation failed.
 */
static inline bool fp_should_fail_at(struct fp_ctx *ctx, enum fp_point p, uint64_t bytes,
				     const char *site)
{
	if (!ctx)
		return false;
	ctx->hits[p]++;
	if (__builtin_expect(!ctx->armed[p], 1))
		return false;
	ctx->site = site;
	return fp_hit(ctx, p, bytes);
}

/*
 * fp_should_fail_bytes(ctx, p, bytes): fp_should_fail_at() from the calling
 * function: whether the operation at @p on @bytes must fail now.
 */
#define fp_should_fail_bytes(ctx, p, bytes) fp_should_fail_at((ctx), (p), (bytes), __func__)

/* fp_should_fail(ctx, p): fp_should_fail_bytes() of an operation with no size. */
#define fp_should_fail(ctx, p) fp_should_fail_at((ctx), (p), 0, __func__)

#endif
