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
	{ "*.count", NULL, METRIC_BETTER_NONE },
	{ "power.transitions", NULL, METRIC_BETTER_NONE },
	{ "power.pinned", NULL, METRIC_BETTER_NONE },
	{ "power.chunked", NULL, METRIC_BETTER_NONE },
	{ "power.chunks", NULL, METRIC_BETTER_NONE },
	{ "power.bytes", NULL, METRIC_BETTER_NONE },
	{ "faults.injected.*", NULL, METRIC_BETTER_NONE },
	{ "faults.dma.*", NULL, METRIC_BETTER_LOWER },
	{ "sweep.*.hits", NULL, METRIC_BETTER_NONE },
	{ "campaign.runs", NULL, METRIC_BETTER_NONE },
	{ "*.errors", NULL, METRIC_BETTER_LOWER },
	{ "*_ns.overflow", NULL, METRIC_BETTER_LOWER },
	{ "*reset", NULL, METRIC_BETTER_LOWER },
	{ "*violation*", NULL, METRIC_BETTER_LOWER },
	{ "*.crash", NULL, METRIC_BETTER_LOWER },
	{ "*.failed", NULL, METRIC_BETTER_LOWER },
	{ "*.failures", NULL, METRIC_BETTER_LOWER },
	{ "*overhead*", NULL, METRIC_BETTER_LOWER },
	{ "*_vs_*", NULL, METRIC_BETTER_LOWER },
	{ "*.passed", NULL, METRIC_BETTER_HIGHER },
	{ "*.recovered", NULL, METRIC_BETTER_HIGHER },
	{ "power.completed", NULL, METRIC_BETTER_HIGHER },
	{ "*speedup*", NULL, METRIC_BETTER_HIGHER },
	{ "*_ratio", "ratio", METRIC_BETTER_HIGHER },
	{ "*", "ns", METRIC_BETTER_LOWER },
	{ "*", "s", METRIC_BETTER_LOWER },
	{ "*", "MiB", METRIC_BETTER_LOWER },
	{ "*", "ops/s", METRIC_BETTER_HIGHER },
	{ "*", "GB/s", METRIC_BETTER_HIGHER },
	{ "*", "bool", METRIC_BETTER_HIGHER },
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
	return METRIC_BETTER_NONE;
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
