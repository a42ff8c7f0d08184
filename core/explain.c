/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>

#include "common/json.h"
#include "common/units.h"
#include "internal.h"

/* What the model decided per adapter, as text or as gpuiso-explain/1 JSON. */

static const char *mode_name(enum map_mode m)
{
	return m == MODE_PHYSICAL ? "physical" : m == MODE_LOGICAL ? "logical" : NULL;
}

static const char *attach_on_name(enum attach_on on)
{
	return on == ATTACH_AT_START ? "start" : on == ATTACH_AT_SECURE_VM ? "secure_vm" : NULL;
}

/*
 * Which memory callbacks the driver may call: the WDDM 3.0 services alone
 * (linear remapping deprecates the others), the WDDM 2.4 callbacks alone
 * (a driver before WDDM 3.0 has no others), or both.
 */
static const char *memory_services(const struct core_adapter_info *info)
{
	return info->wddm30_memory ? "wddm3.0" : info->wddm >= SCN_WDDM(3, 0) ? "wddm2.4+3.0" :
										 "wddm2.4";
}

static void explain_json(struct core *c, struct json *j)
{
	json_obj_begin(j, NULL);
	json_str(j, "schema", "gpuiso-explain/1");
	json_arr_begin(j, "adapters");
	for (unsigned int i = 0; i < c->nadapters; i++) {
		struct core_adapter_info info;

		core_adapter_info(c, i, &info);
		char wddm[24];

		snprintf(wddm, sizeof(wddm), "%u.%u", info.wddm / 10, info.wddm % 10);
		json_obj_begin(j, NULL);
		json_str(j, "name", info.name);
		json_str(j, "wddm", wddm);
		json_bool(j, "integrated", info.integrated);
		json_bool(j, "started", info.started);
		json_str(j, "start_error", info.started ? NULL : info.start_error);
		json_str(j, "certification", info.certification[0] ? info.certification : NULL);
		/* one that did not start has none of what follows: null, not what it would have had */
		json_str(j, "iommu", !info.started ? NULL : info.iommu_enabled ? "enabled" : "disabled");
		json_bool(j, "mappings", info.started && info.mappings);
		json_bool(j, "attached", info.started && info.attached);
		json_str(j, "attach_on", info.started ? attach_on_name(info.attach_on) : NULL);
		if (!info.started || info.domain == CORE_NO_DOMAIN)
			json_null(j, "domain");
		else
			json_u64(j, "domain", info.domain);
		json_str(j, "mode", info.started ? mode_name(info.mode) : NULL);
		json_str(j, "memory_services", !info.started ? NULL : memory_services(&info));
		if (info.started && info.mode == MODE_LOGICAL)
			json_u64(j, "logical_limit", info.logical_limit);
		else
			json_null(j, "logical_limit");
		json_arr_begin(j, "physical");
		for (unsigned int p = 0; p < info.nphys; p++) {
			struct core_phys_info pi;

			core_phys_info(c, i, p, &pi);
			json_obj_begin(j, NULL);
			json_u64(j, "index", p);
			if (!info.started || pi.domain == CORE_NO_DOMAIN)
				json_null(j, "domain");
			else
				json_u64(j, "domain", pi.domain);
			if (info.started) {
				json_u64(j, "save_area", pi.save_area);
				json_u64(j, "saves", pi.saves);
				json_u64(j, "save_offset", pi.save_off);
			} else {
				json_null(j, "save_area");
				json_null(j, "saves");
				json_null(j, "save_offset");
			}
			json_obj_end(j);
		}
		json_arr_end(j);
		json_arr_begin(j, "errors");
		for (size_t e = 0; e < info.nerrors; e++)
			json_str(j, NULL, info.errors[e]);
		json_arr_end(j);
		json_obj_end(j);
	}
	json_arr_end(j);
	json_obj_end(j);
}

static void explain_text(struct core *c, FILE *out)
{
	for (unsigned int i = 0; i < c->nadapters; i++) {
		struct core_adapter_info info;
		char buf[32], buf2[32];

		core_adapter_info(c, i, &info);
		fprintf(out, "adapter %s: %s\n", info.name,
			info.started ? "started" : "did not start");
		if (!info.started)
			fprintf(out, "  why:       %s\n", info.start_error);
		fprintf(out, "  driver:    WDDM %u.%u, %s\n", info.wddm / 10, info.wddm % 10,
			info.integrated ? "integrated" : "discrete");
		if (info.certification[0])
			fprintf(out, "  certification: %s\n", info.certification);
		if (!info.started) {
			/* nothing it would have had: no IOMMU state, mode or save area */
			for (size_t e = 0; e < info.nerrors; e++)
				fprintf(out, "  note:      %s\n", info.errors[e]);
			continue;
		}
		fprintf(out, "  iommu:     %s%s%s\n", info.iommu_enabled ? "enabled" : "disabled",
			info.mappings ? ", mappings" : "", info.attached ? ", attached" : "");
		fprintf(out, "  attach on: %s\n",
			attach_on_name(info.attach_on) ? attach_on_name(info.attach_on) : "never");
		if (info.domain != CORE_NO_DOMAIN)
			fprintf(out, "  domain:    %u\n", info.domain);
		if (info.mode)
			fprintf(out, "  mode:      %s%s%s\n", mode_name(info.mode),
				info.mode == MODE_LOGICAL ? ", logical addresses below " : "",
				info.mode == MODE_LOGICAL ?
					units_format_size(info.logical_limit, buf, sizeof(buf)) :
					"");
		fprintf(out, "  memory:    %s\n", info.wddm30_memory ?
			"WDDM 3.0 services (physical memory objects, ADLs); the WDDM 2.4 callbacks are deprecated: the driver reports linear remapping" :
			info.wddm >= SCN_WDDM(3, 0) ?
			"WDDM 2.4 callbacks (AllocatePagesForMdl, AllocateContiguousMemory, MapMdlToIoMmu) and WDDM 3.0 services (physical memory objects, ADLs)" :
			"WDDM 2.4 callbacks (AllocatePagesForMdl, AllocateContiguousMemory, MapMdlToIoMmu); the WDDM 3.0 services are not the driver's version's");
		for (unsigned int p = 0; p < info.nphys; p++) {
			struct core_phys_info pi;

			core_phys_info(c, i, p, &pi);
			fprintf(out, "  physical %u: save area %s", p,
				units_format_size(pi.save_area, buf, sizeof(buf)));
			if (pi.saves != pi.save_area || pi.save_off) /* its part of a shared one */
				fprintf(out, " (saves %s at offset %s of the shared section)",
					units_format_size(pi.saves, buf, sizeof(buf)),
					units_format_size(pi.save_off, buf2, sizeof(buf2)));
			if (pi.domain != CORE_NO_DOMAIN)
				fprintf(out, ", domain %u", pi.domain);
			fputc('\n', out);
		}
		for (size_t e = 0; e < info.nerrors; e++)
			fprintf(out, "  note:      %s\n", info.errors[e]);
	}
}

int core_explain(struct core *core, FILE *out, bool json)
{
	struct json j;

	if (!json) {
		explain_text(core, out);
		return ferror(out) ? -EIO : 0;
	}
	json_init(&j, out);
	explain_json(core, &j);
	return json_end(&j);
}
