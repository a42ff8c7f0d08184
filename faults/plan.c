/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/units.h"
#include "plan.h"

/*
 * "0.25", "1", "1.0" or "25%" (decimals: units_parse_decimal()): a chance,
 * in millionths. Return: 0, -EINVAL, -ENOMEM.
 */
static int parse_probability(const char *s, uint32_t *ppm)
{
	size_t len = strlen(s);
	bool pct = len && s[len - 1] == '%';
	char *num = strndup(s, len - pct);
	double v;
	int rc = num ? units_parse_decimal(num, &v) : -ENOMEM;

	free(num);
	if (rc)
		return rc == -ENOMEM ? rc : -EINVAL;
	if (pct)
		v /= 100.0;
	if (v > 1.0)
		return -EINVAL;
	*ppm = (uint32_t)(v * 1e6 + 0.5);
	return 0;
}

/* [from, to] of a window: a sequence of two integers. */
static bool window_bounds(struct yaml_doc *d, const struct yaml_field *f, uint64_t *from,
			  uint64_t *to)
{
	char name[YAML_NAME_LEN];
	struct yaml_field item = *f;
	uint64_t v[2];
	size_t index = 0, n = 0;
	void *it = NULL;

	if (yaml_count(d, f) != 2) {
		yaml_field_error(d, f, "expected [first, last]");
		return false;
	}
	while ((item.val = yaml_items(d, f, &it, &index, name))) {
		snprintf(item.name, sizeof(item.name), "%s", name);
		if (!yaml_u64(d, &item, &v[n++]))
			return false;
	}
	if (v[0] > v[1]) {
		yaml_field_error(d, f, "the window ends before it starts");
		return false;
	}
	*from = v[0];
	*to = v[1];
	return true;
}

/* hits: [a, b, ...]: at most FP_RULE_HITS hits, from 1, ascending. */
static void rule_hits(struct yaml_doc *d, const struct yaml_field *f, struct fp_rule *rule)
{
	char name[YAML_NAME_LEN];
	struct yaml_field item = *f;
	size_t index = 0;
	void *it = NULL;
	uint64_t v;

	if (yaml_count(d, f) <= 0 || yaml_count(d, f) > FP_RULE_HITS) {
		yaml_field_error(d, f, "expected a list of 1 to %d hits", FP_RULE_HITS);
		return;
	}
	while ((item.val = yaml_items(d, f, &it, &index, name))) {
		snprintf(item.name, sizeof(item.name), "%s", name);
		if (!yaml_u64(d, &item, &v))
			return;
		if (!v || (rule->nhits && v <= rule->hits[rule->nhits - 1])) {
			yaml_field_error(d, &item, "hits count from 1 and ascend");
			return;
		}
		rule->hits[rule->nhits++] = v;
	}
}

static void parse_rule(struct yaml_doc *d, struct fy_node *node, const char *name,
		       struct fault_plan *plan)
{
	static const char *const keys[] = { "point", "probability", "nth", "every", "times",
					    "space", "seed", "window", "hits" };
	enum { POINT, PROB, NTH, EVERY, TIMES, SPACE, SEED, WINDOW, HITS, NKEYS };
	struct yaml_field f[NKEYS];
	struct fp_rule rule = { 0 };
	const char *pattern, *s;
	bool matched = false;

	if (!yaml_fields(d, node, NULL, name, keys, NKEYS, f))
		return;
	if (!f[POINT].val) {
		yaml_error(d, node, NULL, "%s: a rule needs 'point'", name);
		return;
	}
	pattern = yaml_str(d, &f[POINT], "a point name or glob");
	if (!!f[PROB].val + !!(f[NTH].val || f[EVERY].val) + !!f[HITS].val != 1) {
		yaml_error(d, node, NULL, "%s: give one of probability, nth and/or every, or hits",
			   name);
		return;
	}
	if (f[HITS].val)
		rule_hits(d, &f[HITS], &rule);
	if (f[PROB].val && (s = yaml_str(d, &f[PROB], "a probability"))) {
		int rc = parse_probability(s, &rule.probability_ppm);

		if (rc == -ENOMEM)
			yaml_nomem(d);
		else if (rc)
			yaml_field_error(d, &f[PROB], "'%s' is not a probability (0 to 1, or a percent)",
					 s);
	}
	if (f[NTH].val)
		yaml_u64(d, &f[NTH], &rule.nth);
	if (f[EVERY].val)
		yaml_u64(d, &f[EVERY], &rule.every);
	if (f[EVERY].val && !f[NTH].val)
		rule.nth = rule.every; /* every N: hits N, 2N, 3N... */
	if ((f[NTH].val && !rule.nth) || (f[EVERY].val && !rule.every))
		yaml_error(d, node, NULL, "%s: nth and every count from 1", name);
	if (f[TIMES].val)
		yaml_u64(d, &f[TIMES], &rule.times);
	if (f[SPACE].val)
		yaml_size(d, &f[SPACE], &rule.space);
	if (f[SEED].val)
		yaml_u64(d, &f[SEED], &rule.seed);
	if (f[WINDOW].val) {
		static const char *const wkeys[] = { "events", "time_ns" };
		struct yaml_field w[2];
		char wname[YAML_NAME_LEN];

		if (snprintf(wname, sizeof(wname), "%s.window", name) < 0)
			wname[0] = '\0';
		if (yaml_fields(d, f[WINDOW].val, f[WINDOW].key, wname, wkeys, 2, w)) {
			if (!!w[0].val + !!w[1].val != 1)
				yaml_field_error(d, &f[WINDOW], "give either events or time_ns");
			else if (window_bounds(d, w[0].val ? &w[0] : &w[1], &rule.from, &rule.to))
				rule.window = w[0].val ? FP_WINDOW_EVENTS : FP_WINDOW_TIME;
		}
	}
	if (!pattern)
		return;
	for (int p = 0; p < FP_NPOINTS; p++) {
		if (!fp_point_match(pattern, p))
			continue;
		plan->rule[p] = rule; /* a later rule on the same point wins */
		plan->armed[p] = true;
		matched = true;
	}
	if (!matched)
		yaml_field_error(d, &f[POINT], "'%s' names no injection point (gpuiso faults list)",
				 pattern);
}

static void pressure_value(struct yaml_doc *d, const struct yaml_field *f,
			   struct pressure_value *pv)
{
	const char *s = yaml_str(d, f, "a size or a percent");
	size_t n;

	if (!s)
		return;
	n = strlen(s);
	pv->set = true;
	if (n && s[n - 1] == '%') {
		char *num = strndup(s, n - 1);

		pv->percent = true;
		if (!num)
			yaml_nomem(d);
		else if (units_parse_u64(num, &pv->v) || pv->v > 100)
			yaml_field_error(d, f, "'%s' is not a percent from 0%% to 100%%", s);
		free(num);
	} else if (units_parse_size(s, &pv->v)) {
		yaml_field_error(d, f, "'%s' is not a size or a percent", s);
	}
}

static void parse_step(struct yaml_doc *d, struct fy_node *node, const char *name,
		       struct pressure_step *step)
{
	static const char *const keys[] = { "at", "commit_available", "lockable_available",
					    "max_contiguous" };
	static const char *const at_keys[] = { "event", "time_ns" };
	struct yaml_field f[4], at[2];
	char aname[YAML_NAME_LEN];

	if (!yaml_fields(d, node, NULL, name, keys, 4, f))
		return;
	if (!f[0].val) {
		yaml_error(d, node, NULL, "%s: a pressure step needs 'at'", name);
		return;
	}
	if (snprintf(aname, sizeof(aname), "%s.at", name) < 0)
		aname[0] = '\0';
	if (yaml_fields(d, f[0].val, f[0].key, aname, at_keys, 2, at)) {
		if (!!at[0].val + !!at[1].val != 1)
			yaml_field_error(d, &f[0], "give either event or time_ns");
		else
			yaml_u64(d, at[0].val ? &at[0] : &at[1], &step->at);
		step->by_time = at[1].val != NULL;
	}
	if (f[1].val)
		pressure_value(d, &f[1], &step->commit);
	if (f[2].val)
		pressure_value(d, &f[2], &step->lockable);
	if (f[3].val) {
		step->contiguous_set = true;
		yaml_size(d, &f[3], &step->max_contiguous);
	}
}

void fault_plan_parse(struct yaml_doc *d, const struct yaml_field *faults,
		      const struct yaml_field *pressure, struct fault_plan *plan)
{
	char name[YAML_NAME_LEN];
	struct fy_node *node;
	size_t index = 0;
	void *it = NULL;
	int n;

	memset(plan, 0, sizeof(*plan));
	if (faults->val)
		while ((node = yaml_items(d, faults, &it, &index, name)))
			parse_rule(d, node, name, plan);
	if (!pressure->val)
		return;
	n = yaml_count(d, pressure);
	if (n <= 0)
		return;
	plan->steps = calloc((size_t)n, sizeof(*plan->steps));
	if (!plan->steps) {
		yaml_nomem(d);
		return;
	}
	it = NULL;
	index = 0;
	while ((node = yaml_items(d, pressure, &it, &index, name)) && plan->nsteps < (size_t)n)
		parse_step(d, node, name, &plan->steps[plan->nsteps++]);
}

int fault_plan_load(const char *path, struct fault_plan *plan, char *err, size_t errlen)
{
	static const char *const keys[] = { "faults", "pressure" };
	struct yaml_field f[2];
	struct yaml_doc *d;
	int rc;

	memset(plan, 0, sizeof(*plan));
	rc = yaml_open(path, &d);
	if (rc == -ENOMEM)
		return rc;
	if (!rc && yaml_fields(d, yaml_root(d), NULL, "", keys, 2, f))
		fault_plan_parse(d, &f[0], &f[1], plan);
	if (yaml_close(d, err, errlen) && !rc)
		rc = -EINVAL;
	if (rc)
		fault_plan_free(plan); /* a failed constructor leaves nothing */
	return rc;
}

void fault_plan_arm(const struct fault_plan *plan, struct fp_ctx *ctx)
{
	memset(ctx, 0, sizeof(*ctx));
	for (int p = 0; p < FP_NPOINTS; p++)
		if (plan->armed[p])
			fp_arm(ctx, p, &plan->rule[p]);
}

static bool rule_equal(const struct fp_rule *a, const struct fp_rule *b)
{
	return a->nth == b->nth && a->every == b->every && a->times == b->times &&
	       a->probability_ppm == b->probability_ppm && a->seed == b->seed &&
	       a->space == b->space && a->window == b->window && a->from == b->from &&
	       a->to == b->to && a->observe == b->observe && a->nhits == b->nhits &&
	       !memcmp(a->hits, b->hits, a->nhits * sizeof(*a->hits));
}

static bool value_equal(const struct pressure_value *a, const struct pressure_value *b)
{
	return a->set == b->set && a->percent == b->percent && a->v == b->v;
}

static bool step_equal(const struct pressure_step *a, const struct pressure_step *b)
{
	return a->by_time == b->by_time && a->at == b->at && value_equal(&a->commit, &b->commit) &&
	       value_equal(&a->lockable, &b->lockable) && a->contiguous_set == b->contiguous_set &&
	       a->max_contiguous == b->max_contiguous;
}

bool fault_plan_equal(const struct fault_plan *a, const struct fault_plan *b)
{
	for (int p = 0; p < FP_NPOINTS; p++)
		if (a->armed[p] != b->armed[p] || (a->armed[p] && !rule_equal(&a->rule[p], &b->rule[p])))
			return false;
	if (a->nsteps != b->nsteps)
		return false;
	for (size_t i = 0; i < a->nsteps; i++)
		if (!step_equal(&a->steps[i], &b->steps[i]))
			return false;
	return true;
}

int fault_plan_fail_nth(struct fault_plan *plan, const char *spec)
{
	const char *colon = strrchr(spec, ':');
	char point[64];
	uint64_t nth;
	int p;

	if (!colon || (size_t)(colon - spec) >= sizeof(point))
		return -EINVAL;
	snprintf(point, sizeof(point), "%.*s", (int)(colon - spec), spec);
	p = fp_point_lookup(point);
	if (p < 0 || units_parse_u64(colon + 1, &nth) || !nth)
		return -EINVAL;
	plan->armed[p] = true;
	plan->rule[p] = (struct fp_rule){ .nth = nth };
	return 0;
}

void fault_plan_seed(struct fault_plan *plan, uint64_t seed)
{
	for (int p = 0; p < FP_NPOINTS; p++)
		plan->rule[p].seed = seed;
}

/* One rule of fault_plan_write(). */
static void rule_write(FILE *f, enum fp_point p, const struct fp_rule *r)
{
	fprintf(f, "  - point: %s\n", fp_point_name(p));
	if (r->nhits) {
		fputs("    hits: [", f);
		for (uint32_t i = 0; i < r->nhits; i++)
			fprintf(f, "%s%llu", i ? ", " : "", (unsigned long long)r->hits[i]);
		fputs("]\n", f);
	} else if (r->probability_ppm) {
		fprintf(f, "    probability: %u.%06u\n", r->probability_ppm / 1000000,
			r->probability_ppm % 1000000);
	} else {
		fprintf(f, "    nth: %llu\n", (unsigned long long)r->nth);
	}
	if (r->every)
		fprintf(f, "    every: %llu\n", (unsigned long long)r->every);
	if (r->times)
		fprintf(f, "    times: %llu\n", (unsigned long long)r->times);
	if (r->space)
		fprintf(f, "    space: %llu\n", (unsigned long long)r->space);
	if (r->seed)
		fprintf(f, "    seed: %llu\n", (unsigned long long)r->seed);
	if (r->window != FP_WINDOW_ALL)
		fprintf(f, "    window: {%s: [%llu, %llu]}\n",
			r->window == FP_WINDOW_EVENTS ? "events" : "time_ns",
			(unsigned long long)r->from, (unsigned long long)r->to);
}

/* One pressure value of fault_plan_write(), if set. */
static void value_write(FILE *f, const char *key, const struct pressure_value *v)
{
	if (v->set)
		fprintf(f, "    %s: %llu%s\n", key, (unsigned long long)v->v, v->percent ? "%" : "");
}

int fault_plan_write(FILE *f, const struct fault_plan *plan)
{
	bool any = false;

	for (int p = 0; p < FP_NPOINTS; p++)
		if (plan->armed[p] && plan->rule[p].observe)
			return -EINVAL;
	for (int p = 0; p < FP_NPOINTS; p++) {
		if (!plan->armed[p])
			continue;
		if (!any)
			fputs("faults:\n", f);
		any = true;
		rule_write(f, p, &plan->rule[p]);
	}
	if (plan->nsteps)
		fputs("pressure:\n", f);
	for (size_t i = 0; i < plan->nsteps; i++) {
		const struct pressure_step *s = &plan->steps[i];

		fprintf(f, "  - at: {%s: %llu}\n", s->by_time ? "time_ns" : "event",
			(unsigned long long)s->at);
		value_write(f, "commit_available", &s->commit);
		value_write(f, "lockable_available", &s->lockable);
		if (s->contiguous_set)
			fprintf(f, "    max_contiguous: %llu\n", (unsigned long long)s->max_contiguous);
	}
	if (!any && !plan->nsteps)
		fputs("faults: []\n", f);
	return ferror(f) ? -EIO : 0;
}

void fault_plan_free(struct fault_plan *plan)
{
	free(plan->steps);
	plan->steps = NULL;
	plan->nsteps = 0;
}
