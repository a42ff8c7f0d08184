/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_FAULTS_PLAN_H
#define GPUISO_FAULTS_PLAN_H

#include <stdio.h>

#include "common/yaml.h"
#include "faults/faults.h"

/*
 * A fault plan: the rules of a faults file (`gpuiso replay --faults F`) and
 * its memory-pressure schedule; campaign runs use the same keys
 * (docs/campaign-format.md).
 */

/* A pressure value: a size, or a percent of the scenario's limit. */
struct pressure_value {
	bool set;
	bool percent;
	uint64_t v; /* bytes, or percent (0..100) */
};

/* From event @at (or time @at ns) on, this is what is available. */
struct pressure_step {
	bool by_time;
	uint64_t at;
	struct pressure_value commit, lockable;
	bool contiguous_set;
	uint64_t max_contiguous;
};

struct fault_plan {
	bool armed[FP_NPOINTS];
	struct fp_rule rule[FP_NPOINTS];
	struct pressure_step *steps; /* in the order given; applied in that order */
	size_t nsteps;
};

/**
 * fault_plan_load() - read a faults file.
 * @path: the file.
 * @plan: out: the plan; fault_plan_free() it. After an error, empty.
 * @err: out: errors as "FILE:LINE:COL: error: ..." lines.
 * @errlen: size of @err.
 *
 * Return: 0, -ENOENT, -EINVAL (malformed), -ENOMEM.
 */
int fault_plan_load(const char *path, struct fault_plan *plan, char *err, size_t errlen);

/**
 * fault_plan_parse() - read the faults: and pressure: keys of a mapping
 * (a faults file's top level, or one run of a campaign).
 * @d: the document.
 * @faults: the faults: sequence field (its val may be NULL).
 * @pressure: the pressure: sequence field (its val may be NULL).
 * @plan: out: the plan (zeroed first).
 *
 * Errors are reported into @d.
 */
void fault_plan_parse(struct yaml_doc *d, const struct yaml_field *faults,
		      const struct yaml_field *pressure, struct fault_plan *plan);

/**
 * fault_plan_arm() - arm @ctx with the plan's rules (other points disarmed).
 * @plan: the plan.
 * @ctx: the injection context (zeroed first).
 */
void fault_plan_arm(const struct fault_plan *plan, struct fp_ctx *ctx);

/**
 * fault_plan_fail_nth() - arm one point to fail its Nth hit, as a sweep's
 * reproducer says it (`gpuiso replay --fail-nth POINT:N`); the point's rule
 * is replaced.
 * @plan: the plan (a loaded one, or zeroed).
 * @spec: "POINT:N", N >= 1, POINT a name of `gpuiso faults list`.
 *
 * Return: 0, or -EINVAL when @spec is not that (nothing is changed).
 */
int fault_plan_fail_nth(struct fault_plan *plan, const char *spec);

/**
 * fault_plan_seed() - give every rule of the plan one seed: what
 * `gpuiso replay --seed` and a campaign's seeds do.
 * @plan: the plan.
 * @seed: the seed.
 */
void fault_plan_seed(struct fault_plan *plan, uint64_t seed);

/**
 * fault_plan_equal() - whether two plans arm the same points with the same
 * rules and schedule the same pressure (a plan written to a file and read
 * back must be the plan that was written).
 * @a: a plan.
 * @b: another.
 *
 * Return: true or false.
 */
bool fault_plan_equal(const struct fault_plan *a, const struct fault_plan *b);

/**
 * fault_plan_write() - write a plan as a faults file that fault_plan_load()
 * reads back as fault_plan_equal() to it (a trimmed run's plan).
 * @f: where.
 * @plan: the plan; observed points (fp_rule.observe) have no written form.
 *
 * Return: 0, -EINVAL (an observed point), or -EIO when @f reports a write error.
 */
int fault_plan_write(FILE *f, const struct fault_plan *plan);

/** fault_plan_free() - free the schedule. @plan: the plan. */
void fault_plan_free(struct fault_plan *plan);

#endif
