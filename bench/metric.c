/* SPDX-License-Identifier: MIT */
#include <fnmatch.h>
#include <stdio.h>
#include <string.h>

#include "common/types.h"
#include "metric.h"

struct better_rule {
	const char *glob; /* on the name */
	const char *unit; /* or NULL: any */
	enum metric_better better;
};

/* First match wins. */
static const struct better_rule better_rules[] = {
	{ "*.count", NULL, BETTER_NONE },
	{ "power.transitions", NULL, BETTER_NONE },
	{ "power.pinned", NULL, BETTER_NONE },
	{ "power.chunked", NULL, BETTER_NONE },
	{ "power.chunks", NULL, BETTER_NONE },
	{ "power.bytes", NULL, BETTER_NONE },
	{ "faults.injected.*", NULL, BETTER_NONE },
	{ "faults.dma.*", NULL, BETTER_LOWER },
	{ "sweep.*.hits", NULL, BETTER_NONE },
	{ "campaign.runs", NULL, BETTER_NONE },
	{ "*.errors", NULL, BETTER_LOWER },
	{ "*_ns.overflow", NULL, BETTER_LOWER },
	{ "*reset", NULL, BETTER_LOWER },
	{ "*violation*", NULL, BETTER_LOWER },
	{ "*.crash", NULL, BETTER_LOWER },
	{ "*.failed", NULL, BETTER_LOWER },
	{ "*.failures", NULL, BETTER_LOWER },
	{ "*overhead*", NULL, BETTER_LOWER },
	{ "*_vs_*", NULL, BETTER_LOWER },
	{ "*.passed", NULL, BETTER_HIGHER },
	{ "*.recovered", NULL, BETTER_HIGHER },
	{ "power.completed", NULL, BETTER_HIGHER },
	{ "*speedup*", NULL, BETTER_HIGHER },
	{ "*_ratio", "ratio", BETTER_HIGHER },
	{ "*", "ns", BETTER_LOWER },
	{ "*", "s", BETTER_LOWER },
	{ "*", "MiB", BETTER_LOWER },
	{ "*", "ops/s", BETTER_HIGHER },
	{ "*", "GB/s", BETTER_HIGHER },
	{ "*", "bool", BETTER_HIGHER },
};

enum metric_better metric_better(const char *name, const char *unit)
{
	for (size_t i = 0; i < ARRAY_SIZE(better_rules); i++) {
		const struct better_rule *r = &better_rules[i];

		if (r->unit && strcmp(r->unit, unit))
			continue;
		if (!fnmatch(r->glob, name, 0))
			return r->better;
	}
	return BETTER_NONE;
}

/* The wall-clock figures of a replay; everything else it reports is exact. */
static const char *const replay_measured[] = {
	"ops.*.latency_ns.*",
	"power.longest_stall_ns",
	"power.time_to_complete_ns.*",
};

enum metric_class metric_class(enum run_kind kind, const char *name)
{
	switch (kind) {
	case RUN_BENCH:
		return METRIC_MEASURED;
	case RUN_CAMPAIGN:
	case RUN_SWEEP:
		return METRIC_EXACT;
	case RUN_RESULTS:
		break;
	}
	for (size_t i = 0; i < ARRAY_SIZE(replay_measured); i++)
		if (!fnmatch(replay_measured[i], name, 0))
			return METRIC_MEASURED;
	return METRIC_EXACT;
}

/* A statistic, and the operations a sample needs for it: 1 / (1 - q) for the q-quantile. */
static const struct {
	const char *suffix;
	uint64_t needed;
} statistics[] = {
	{ ".mean", 1 }, { ".p50", 2 }, { ".p90", 10 }, { ".p99", 100 }, { ".p999", 1000 },
	{ ".max", METRIC_NEVER_JUDGED },
};

uint64_t metric_support(const char *name, char *count, size_t len)
{
	const char *stat = strrchr(name, '.');
	const char *dist;
	uint64_t needed = 0;

	count[0] = '\0';
	if (!strcmp(name, "power.longest_stall_ns"))
		return METRIC_NEVER_JUDGED; /* the longest of every wait: a maximum */
	for (size_t i = 0; stat && i < ARRAY_SIZE(statistics); i++)
		if (!strcmp(stat, statistics[i].suffix))
			needed = statistics[i].needed;
	if (!needed)
		return 0;
	/* ops.OP.latency_ns.STAT: OP's count; power.time_to_complete_ns.STAT: the transitions */
	if (!fnmatch("ops.*.*_ns.*", name, 0)) {
		dist = strchr(name + 4, '.');
		snprintf(count, len, "%.*s.count", (int)(dist - name), name);
	} else if (!fnmatch("power.time_to_complete_ns.*", name, 0)) {
		snprintf(count, len, "power.transitions");
	} else {
		return 0;
	}
	return needed;
}
