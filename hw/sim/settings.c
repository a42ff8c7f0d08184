/* SPDX-License-Identifier: MIT */
/*
 * The simulator's settings: its IOMMU model (iommu.model) and its cycle costs
 * (cost_model.*), read from what a scenario wrote (hw/backend.h). The model
 * gives the default costs, which cost_model: overrides wherever it is in the
 * file (docs/scenario-format.md, docs/cost-model.md).
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "common/units.h"
#include "hw/backend.h"
#include "sim.h"

_Static_assert(SIM_MAX_DEVS >= HW_MACHINE_MAX_GPUS && SIM_MAX_VRAM >= HW_MACHINE_MAX_VRAM,
	       "the simulator makes any machine");

static const struct {
	const char *key;
	size_t off;
	bool nonzero; /* a divisor */
} sim_cost_fields[] = {
	{ "clock_mhz", offsetof(struct sim_cost_model, clock_mhz), true },
	{ "pte_write", offsetof(struct sim_cost_model, pte_write), false },
	{ "pt_walk_level", offsetof(struct sim_cost_model, pt_walk_level), false },
	{ "iotlb_hit", offsetof(struct sim_cost_model, iotlb_hit), false },
	{ "iotlb_miss", offsetof(struct sim_cost_model, iotlb_miss), false },
	{ "iotlb_invalidate", offsetof(struct sim_cost_model, iotlb_invalidate), false },
	{ "dma_setup", offsetof(struct sim_cost_model, dma_setup), false },
	{ "bytes_per_cycle", offsetof(struct sim_cost_model, bytes_per_cycle), true },
	{ "request", offsetof(struct sim_cost_model, request), false },
};

#define SIM_NCOST ARRAY_SIZE(sim_cost_fields)

/* "cost_model: unknown key 'x' (expected one of: ...)", as for any section */
static int sim_unknown_key(const struct hw_settings *s, const struct hw_setting *st,
			   const char *section, const char *key, char *err, size_t errlen)
{
	char list[256] = "";
	size_t off = 0;

	if (!strcmp(section, "iommu"))
		snprintf(list, sizeof(list), "model");
	else
		for (size_t i = 0; i < SIM_NCOST && off < sizeof(list); i++)
			off += (size_t)snprintf(list + off, sizeof(list) - off, "%s%s",
						i ? ", " : "", sim_cost_fields[i].key);
	return hw_setting_error(s, st, true, err, errlen,
				"%s: unknown key '%s' (expected one of: %s)", section, key, list);
}

/* One cost: a whole number that fits 32 bits, not 0 where it divides. */
static int sim_cost_read(const struct hw_settings *s, const struct hw_setting *st, size_t field,
			 uint32_t *out, char *err, size_t errlen)
{
	char why[256];
	uint64_t v;

	if (units_parse_uint_said(st->value, UINT32_MAX, &v, why, sizeof(why)))
		return hw_setting_error(s, st, false, err, errlen, "%s: %s", st->key, why);
	if (sim_cost_fields[field].nonzero && !v)
		return hw_setting_error(s, st, false, err, errlen, "%s: must not be zero", st->key);
	*out = (uint32_t)v;
	return 0;
}

int sim_settings_read(const struct hw_settings *s, struct sim_config *cfg, char *err,
		      size_t errlen)
{
	uint32_t cost[SIM_NCOST];
	bool set[SIM_NCOST] = { false };
	enum hw_iommu_model model = HW_MODEL_VTD;
	int rc = 0;

	for (size_t i = 0; s && i < s->n; i++) {
		const struct hw_setting *st = &s->v[i];
		const char *dot = strchr(st->key, '.');
		size_t f;
		int m;

		if (dot && !strncmp(st->key, "iommu.", 6)) {
			if (strcmp(dot + 1, "model")) {
				rc = sim_unknown_key(s, st, "iommu", dot + 1, err, errlen);
				continue;
			}
			m = hw_iommu_model_parse(st->value);
			if (m < 0) {
				rc = hw_setting_error(s, st, false, err, errlen,
						      "%s: '%s' is no IOMMU model: vtd, amd-vi or virtio",
						      st->key, st->value);
				continue;
			}
			model = (enum hw_iommu_model)m;
			continue;
		}
		if (!dot || strncmp(st->key, "cost_model.", 11)) {
			rc = hw_setting_error(s, st, true, err, errlen,
					      "'%s' is no setting of the simulator", st->key);
			continue;
		}
		for (f = 0; f < SIM_NCOST; f++)
			if (!strcmp(dot + 1, sim_cost_fields[f].key))
				break;
		if (f == SIM_NCOST) {
			rc = sim_unknown_key(s, st, "cost_model", dot + 1, err, errlen);
			continue;
		}
		if (sim_cost_read(s, st, f, &cost[f], err, errlen))
			rc = -EINVAL;
		else
			set[f] = true;
	}
	if (rc)
		return rc;
	cfg->model = model;
	sim_cost_default(model, &cfg->cost);
	for (size_t f = 0; f < SIM_NCOST; f++)
		if (set[f])
			memcpy((char *)&cfg->cost + sim_cost_fields[f].off, &cost[f], sizeof(cost[f]));
	return 0;
}
