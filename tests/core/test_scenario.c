/* SPDX-License-Identifier: MIT */
/*
 * Scenario loading (core/scenario.h, docs/scenario-format.md): the checked-in
 * scenarios load, default.yaml equals scenario_defaults(), defaults fill in,
 * values the model judges load as given, and every kind of bad input is an
 * error at the right file:line:col. Fixtures: tests/data/scenarios/.
 */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "core/scenario.h"
#include "hw/sim/sim.h"

#define GiB (1ull << 30)
#define MiB (1ull << 20)
#define KiB (1ull << 10)

static char errbuf[8192];

/* A file under the source root (GPUISO_SOURCE_ROOT, set by meson's test env). */
static const char *src_path(const char *rel)
{
	static char buf[4][4096];
	static unsigned int turn;
	const char *root = getenv("GPUISO_SOURCE_ROOT");
	char *b = buf[turn++ % 4];

	snprintf(b, sizeof(buf[0]), "%s/%s", root && *root ? root : ".", rel);
	return b;
}

static const char *fixture(const char *name)
{
	char rel[256];

	snprintf(rel, sizeof(rel), "tests/data/scenarios/%s", name);
	return src_path(rel);
}

static int count_lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* Load @s, which must load cleanly. */
static void load_ok(const char *path, struct scenario *scn)
{
	int ret = scenario_load(path, scn, errbuf, sizeof(errbuf));

	cr_assert(eq(int, ret, 0), "%s: %d\n%s", path, ret, errbuf);
	cr_assert(eq(str, errbuf, ""));
	cr_assert(eq(str, scn->path, (char *)path));
}

/*
 * Load fixture @name, which must fail with -EINVAL and report, among its
 * lines, one that starts "PATH:LINE:COL: error: " and contains @msg.
 * Return: the number of error lines.
 */
static const struct hw_backend_name sim_name = { .kind = HW_BACKEND_SIM };

/* The simulator's model and costs as the scenario @s sets them. */
static struct sim_config sim_settings(const struct scenario *s)
{
	struct sim_config cfg = { 0 };
	char err[1024] = "";

	cr_assert(eq(int, sim_settings_read(&s->settings, &cfg, err, sizeof(err)), 0), "%s", err);
	return cfg;
}

static int expect_error(const char *name, int line, int col, const char *msg)
{
	const char *path = fixture(name);
	struct scenario scn;
	char want[4200];
	const char *p;
	bool found = false;
	int ret, n;

	ret = scenario_load(path, &scn, errbuf, sizeof(errbuf));
	if (!ret) /* then what the simulator refuses of its settings, as the command line asks */
		ret = hw_backend_check(&sim_name, &scn.settings, errbuf, sizeof(errbuf));
	cr_assert(eq(int, ret, -EINVAL), "%s: loaded (%d)\n%s", name, ret, errbuf);
	snprintf(want, sizeof(want), "%s:%d:%d: error: ", path, line, col);
	for (p = errbuf; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		const char *eol = strchr(p, '\n');
		const char *hit;

		if (strncmp(p, want, strlen(want)))
			continue;
		hit = strstr(p, msg);
		if (hit && (!eol || hit < eol)) {
			found = true;
			break;
		}
	}
	cr_assert(found, "%s: no line \"%s...%s\" in:\n%s", name, want, msg, errbuf);
	n = count_lines(errbuf);
	scenario_free(&scn); /* also fine after an error */
	return n;
}

/* ---- field-by-field equality ------------------------------------------- */

static void expect_ranges_eq(const struct range_extent *a, size_t na, const struct range_extent *b,
			     size_t nb, const char *what)
{
	size_t i;

	cr_assert(eq(sz, na, nb), "%s: count", what);
	for (i = 0; i < na; i++) {
		cr_expect(eq(u64, a[i].base, b[i].base), "%s[%zu].base", what, i);
		cr_expect(eq(u64, a[i].size, b[i].size), "%s[%zu].size", what, i);
	}
}

static void expect_scenarios_eq(const struct scenario *a, const struct scenario *b)
{
	struct sim_config sa, sb;
	size_t i, j;

	cr_expect(eq(u64, a->system.memory, b->system.memory));
	cr_expect(eq(u64, a->system.highest_physical_address, b->system.highest_physical_address));
	expect_ranges_eq(a->system.os_memory_map, a->system.nmap, b->system.os_memory_map,
			 b->system.nmap, "os_memory_map");
	cr_expect(eq(u64, a->system.commit_limit, b->system.commit_limit));
	cr_expect(eq(u64, a->system.lockable_limit, b->system.lockable_limit));
	cr_expect(eq(u32, a->registry.iommu_flags, b->registry.iommu_flags));
	cr_expect(eq(int, a->registry.secure_vm_staging, b->registry.secure_vm_staging));
	sa = sim_settings(a);
	sb = sim_settings(b);
	cr_expect(eq(int, sa.model, sb.model));
	cr_expect(eq(int, memcmp(&sa.cost, &sb.cost, sizeof(sa.cost)), 0), "the simulator's costs");
	cr_assert(eq(sz, a->nadapters, b->nadapters));
	for (i = 0; i < a->nadapters; i++) {
		const struct scn_adapter *x = &a->adapters[i], *y = &b->adapters[i];

		cr_expect(eq(str, x->name, y->name));
		cr_expect(eq(u32, x->wddm, y->wddm));
		cr_expect(eq(int, x->integrated, y->integrated));
		cr_expect(eq(int, x->caps.iommu_secure_mode, y->caps.iommu_secure_mode));
		cr_expect(eq(int, x->caps.map_aperture2, y->caps.map_aperture2));
		cr_expect(eq(int, x->caps.iommu_linear_remap, y->caps.iommu_linear_remap));
		cr_expect(eq(int, x->caps.has_physical_caps, y->caps.has_physical_caps));
		cr_expect(eq(u64, x->caps.highest_visible_address, y->caps.highest_visible_address));
		cr_expect(eq(u32, x->caps.dma_remapping_compatible, y->caps.dma_remapping_compatible));
		cr_expect(eq(int, x->fb_save_mode, y->fb_save_mode));
		cr_expect(eq(u64, x->small_buffer, y->small_buffer));
		cr_assert(eq(sz, x->nphys, y->nphys));
		for (j = 0; j < x->nphys; j++) {
			cr_expect(eq(u64, x->phys[j].vram, y->phys[j].vram));
			cr_expect(eq(u64, x->phys[j].fb_save_size, y->phys[j].fb_save_size));
			cr_expect(eq(u64, x->phys[j].populated_from_system,
				     y->phys[j].populated_from_system));
			expect_ranges_eq(x->phys[j].reserved, x->phys[j].nreserved, y->phys[j].reserved,
					 y->phys[j].nreserved, "reserved");
		}
	}
}

/* ---- the checked-in scenarios ------------------------------------------ */

Test(scenario, every_checked_in_scenario_loads)
{
	const char *dir = src_path("traces/scenarios");
	static const char *const expected[] = {
		"default.yaml", "lda-chain.yaml", "logical-remap.yaml", "shared-save-area.yaml",
	};
	bool seen[4] = { false };
	struct dirent *de;
	int loaded = 0;
	size_t i;
	DIR *d;

	d = opendir(dir);
	cr_assert(not(eq(ptr, d, NULL)), "%s: %s", dir, strerror(errno));
	while ((de = readdir(d))) {
		char path[4400];
		struct scenario scn;
		size_t len = strlen(de->d_name);

		if (len < 5 || strcmp(de->d_name + len - 5, ".yaml"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		load_ok(path, &scn);
		cr_expect(gt(sz, scn.nadapters, 0));
		scenario_free(&scn);
		for (i = 0; i < 4; i++)
			if (!strcmp(de->d_name, expected[i]))
				seen[i] = true;
		loaded++;
	}
	closedir(d);
	for (i = 0; i < 4; i++)
		cr_expect(seen[i], "traces/scenarios/%s missing", expected[i]);
	cr_expect(ge(int, loaded, 4));
}

Test(scenario, default_yaml_equals_scenario_defaults)
{
	struct scenario file, code;

	load_ok(src_path("traces/scenarios/default.yaml"), &file);
	cr_assert(eq(int, scenario_defaults(&code), 0));
	cr_expect(eq(ptr, code.path, NULL));
	expect_scenarios_eq(&file, &code);
	scenario_free(&file);
	scenario_free(&code);
}

Test(scenario, defaults_values)
{
	struct scenario s;

	cr_assert(eq(int, scenario_defaults(&s), 0));
	cr_expect(eq(u64, s.system.memory, 64 * GiB));
	cr_expect(eq(u64, s.system.highest_physical_address, 0x107FFFFFFFull));
	cr_expect(eq(u32, s.registry.iommu_flags, 0x07));
	cr_assert(eq(sz, s.nadapters, 1));
	cr_expect(eq(str, s.adapters[0].name, "gpu0"));
	cr_assert(eq(sz, s.adapters[0].nphys, 1));
	cr_assert(eq(sz, s.adapters[0].phys[0].nreserved, 1));
	cr_expect(eq(u64, s.adapters[0].phys[0].reserved[0].base, 0xC0000000ull));
	scenario_free(&s);
}

Test(scenario, lda_chain)
{
	struct scenario s;
	size_t i;

	load_ok(src_path("traces/scenarios/lda-chain.yaml"), &s);
	cr_assert(eq(sz, s.nadapters, 1));
	cr_assert(eq(sz, s.adapters[0].nphys, 3));
	cr_expect(eq(int, s.adapters[0].fb_save_mode, FB_SAVE_PER_ADAPTER));
	for (i = 0; i < 3; i++) {
		cr_expect(gt(u64, s.adapters[0].phys[i].vram, 0));
		cr_expect(gt(u64, s.adapters[0].phys[i].fb_save_size, 0));
		cr_expect(eq(sz, s.adapters[0].phys[i].nreserved, 1));
	}
	scenario_free(&s);
}

Test(scenario, logical_remap)
{
	struct scenario s;

	load_ok(src_path("traces/scenarios/logical-remap.yaml"), &s);
	cr_expect(eq(u64, s.system.memory, 2048 * GiB));
	cr_expect(eq(u64, s.system.highest_physical_address, 0x2007FFFFFFFull));
	cr_assert(eq(sz, s.nadapters, 2));
	cr_expect(lt(u64, s.adapters[0].caps.highest_visible_address,
		     s.system.highest_physical_address));
	cr_expect(s.adapters[0].caps.has_physical_caps);
	cr_expect(s.adapters[0].caps.iommu_linear_remap);
	cr_expect(s.adapters[0].caps.map_aperture2);
	cr_expect(eq(u32, s.adapters[0].caps.dma_remapping_compatible, 3));
	cr_expect(eq(str, s.adapters[1].name, "gpu1-legacy"));
	cr_expect(not(s.adapters[1].caps.iommu_linear_remap));
	scenario_free(&s);
}

Test(scenario, shared_save_area)
{
	struct scenario s;

	load_ok(src_path("traces/scenarios/shared-save-area.yaml"), &s);
	cr_assert(eq(sz, s.nadapters, 1));
	cr_expect(eq(int, s.adapters[0].fb_save_mode, FB_SAVE_SHARED));
	cr_assert(eq(sz, s.adapters[0].nphys, 2));
	cr_expect(gt(u64, s.adapters[0].phys[0].fb_save_size, 0));
	cr_expect(eq(u64, s.adapters[0].phys[1].fb_save_size, 0));
	scenario_free(&s);
}

/* ---- defaults and values loaded as given ------------------------------- */

Test(scenario, minimal_file_gets_defaults)
{
	struct sim_cost_model cost;
	struct sim_config cfg;
	struct scenario s;
	const struct scn_adapter *a;

	load_ok(fixture("good-minimal.yaml"), &s);
	sim_cost_default(HW_MODEL_VTD, &cost);
	cr_expect(eq(u64, s.system.memory, 16 * GiB));
	cr_assert(eq(sz, s.system.nmap, 1));
	cr_expect(eq(u64, s.system.os_memory_map[0].base, 0));
	cr_expect(eq(u64, s.system.os_memory_map[0].size, 16 * GiB));
	cr_expect(eq(u64, s.system.highest_physical_address, 16 * GiB - 1));
	cr_expect(eq(u64, s.system.commit_limit, 16 * GiB));
	cr_expect(eq(u64, s.system.lockable_limit, 16 * GiB));
	cr_expect(eq(u32, s.registry.iommu_flags, 0));
	cr_expect(not(s.registry.secure_vm_staging));
	cr_assert(eq(sz, s.nadapters, 1));
	a = &s.adapters[0];
	cr_expect(eq(str, a->name, "igpu"));
	cr_expect(not(a->integrated));
	cr_expect(not(a->caps.iommu_secure_mode));
	cr_expect(not(a->caps.map_aperture2));
	cr_expect(not(a->caps.iommu_linear_remap));
	cr_expect(not(a->caps.has_physical_caps));
	cr_expect(eq(u64, a->caps.highest_visible_address, 0));
	cr_expect(eq(u32, a->caps.dma_remapping_compatible, 0));
	cr_expect(eq(int, a->fb_save_mode, FB_SAVE_PER_ADAPTER));
	cr_expect(eq(u64, a->small_buffer, 4 * KiB));
	cr_assert(eq(sz, a->nphys, 1));
	cr_expect(eq(u64, a->phys[0].vram, 0));
	cr_expect(eq(u64, a->phys[0].fb_save_size, 0));
	cr_expect(eq(sz, a->phys[0].nreserved, 0));
	cr_expect(eq(ptr, a->phys[0].reserved, NULL));
	cr_expect(eq(u64, a->phys[0].populated_from_system, 0));
	cfg = sim_settings(&s);
	cr_expect(eq(int, memcmp(&cfg.cost, &cost, sizeof(cost)), 0));
	scenario_free(&s);
}

Test(scenario, model_judged_values_load_as_given)
{
	struct sim_cost_model cost;
	struct scenario s;
	const struct scn_adapter *a, *b;
	const struct scn_phys *p;

	load_ok(fixture("good-model-judged.yaml"), &s);
	/* The memory map comes back sorted by base. */
	cr_assert(eq(sz, s.system.nmap, 2));
	cr_expect(eq(u64, s.system.os_memory_map[0].base, 0));
	cr_expect(eq(u64, s.system.os_memory_map[0].size, 2 * GiB));
	cr_expect(eq(u64, s.system.os_memory_map[1].base, 0x100000000ull));
	cr_expect(eq(u64, s.system.highest_physical_address, 0x27FFFFFFFull));
	cr_expect(eq(u32, s.registry.iommu_flags, 0x1F));
	cr_expect(s.registry.secure_vm_staging);
	cr_assert(eq(sz, s.nadapters, 2));
	a = &s.adapters[0];
	cr_expect(eq(str, a->name, "gpu0"));
	cr_expect(a->integrated);
	cr_expect(not(a->caps.has_physical_caps));
	cr_expect(eq(int, a->fb_save_mode, FB_SAVE_SHARED));
	cr_expect(eq(u64, a->small_buffer, 0x10000));
	cr_assert(eq(sz, a->nphys, 2));
	p = &a->phys[0];
	cr_expect(eq(u64, p->fb_save_size, 12345));
	cr_assert(eq(sz, p->nreserved, 3));
	cr_expect(eq(u64, p->reserved[0].base, 0x1000));
	cr_expect(eq(u64, p->reserved[0].size, MiB));
	cr_expect(eq(u64, p->reserved[1].base, 0xC0000001ull));
	cr_expect(eq(u64, p->reserved[1].size, 100));
	cr_expect(eq(u64, p->reserved[2].size, 0));
	cr_expect(eq(u64, p->populated_from_system, 256 * MiB));
	cr_expect(eq(u64, a->phys[1].fb_save_size, 64 * MiB));
	b = &s.adapters[1];
	cr_expect(b->caps.has_physical_caps);
	cr_expect(eq(u64, b->caps.highest_visible_address, 0xFFFFFFFFull));
	cr_expect(eq(u32, b->caps.dma_remapping_compatible, 0xFFFFFFFFu));
	cost = sim_settings(&s).cost;
	cr_expect(eq(u32, cost.clock_mhz, 2000));
	cr_expect(eq(u32, cost.pte_write, 0));
	cr_expect(eq(u32, cost.pt_walk_level, 7));
	cr_expect(eq(u32, cost.iotlb_hit, 2));
	cr_expect(eq(u32, cost.iotlb_miss, 9));
	cr_expect(eq(u32, cost.iotlb_invalidate, 50));
	cr_expect(eq(u32, cost.dma_setup, 0x100));
	cr_expect(eq(u32, cost.bytes_per_cycle, 64));
	scenario_free(&s);
}

Test(scenario, anchors_and_aliases)
{
	struct scenario s;

	load_ok(fixture("good-anchors.yaml"), &s);
	cr_assert(eq(sz, s.nadapters, 2));
	cr_expect(s.adapters[1].caps.iommu_secure_mode);
	cr_expect(s.adapters[1].caps.map_aperture2);
	cr_assert(eq(sz, s.adapters[1].nphys, 2));
	cr_expect(eq(u64, s.adapters[1].phys[1].vram, 2 * GiB));
	cr_expect(eq(u64, s.adapters[1].phys[1].fb_save_size, 4 * MiB));
	scenario_free(&s);
}

/* ---- errors ------------------------------------------------------------ */

Test(scenario, backend_key)
{
	struct scenario s;

	load_ok(fixture("good-minimal.yaml"), &s);
	cr_expect(eq(ptr, s.backend, NULL), "the simulator unless said");
	scenario_free(&s);
	load_ok(src_path("traces/scenarios/vfio-edu.yaml"), &s);
	cr_expect(eq(ptr, s.backend, NULL));
	scenario_free(&s);
}

Test(scenario_errors, unknown_backend)
{
	expect_error("bad-backend.yaml", 4, 10, "unknown backend 'vfio'");
}

Test(scenario_errors, yaml_syntax)
{
	expect_error("bad-syntax.yaml", 4, 1, "flow sequence");
}

Test(scenario_errors, duplicate_key)
{
	expect_error("bad-duplicate-key.yaml", 5, 5, "duplicate key");
}

Test(scenario_errors, empty_file)
{
	expect_error("bad-empty.yaml", 1, 1, "empty document");
}

Test(scenario_errors, root_not_a_mapping)
{
	expect_error("bad-root-sequence.yaml", 1, 1, "top level: expected a mapping, got a sequence");
}

Test(scenario_errors, unknown_key)
{
	cr_expect(eq(int, expect_error("bad-unknown-key.yaml", 3, 3,
				       "system: unknown key 'memroy' (expected one of: memory,"),
		     1));
}

Test(scenario_errors, mapping_where_scalar_expected)
{
	expect_error("bad-type-mapping.yaml", 2, 11, "system.memory: expected a size, got a mapping");
}

Test(scenario_errors, sequence_and_mapping_types)
{
	expect_error("bad-caps-type.yaml", 5, 11, "adapters[0].caps: expected a mapping, got a sequence");
	expect_error("bad-caps-type.yaml", 7, 7,
		     "adapters[0].physical: expected a sequence, got a mapping");
}

Test(scenario_errors, null_value_points_at_key)
{
	expect_error("bad-null-value.yaml", 2, 3, "system.memory: expected a size, got null");
}

Test(scenario_errors, non_boolean)
{
	expect_error("bad-bool.yaml", 5, 17, "adapters[0].integrated: expected true or false, got 'yes'");
}

Test(scenario_errors, malformed_size)
{
	expect_error("bad-size.yaml", 7, 15, "adapters[0].physical[1].vram: invalid size '8GB'");
}

Test(scenario_errors, size_overflow)
{
	expect_error("bad-size-overflow.yaml", 2, 11,
		     "system.memory: size '16777216TiB' does not fit in 64 bits");
}

Test(scenario_errors, malformed_integer)
{
	expect_error("bad-int.yaml", 6, 32,
		     "adapters[0].caps.highest_visible_address: invalid integer '-1'");
}

Test(scenario_errors, missing_memory)
{
	expect_error("bad-missing-memory.yaml", 1, 1, "system: missing required key 'memory'");
}

Test(scenario_errors, missing_adapters)
{
	expect_error("bad-missing-adapters.yaml", 1, 1, "top level: missing required key 'adapters'");
}

Test(scenario_errors, empty_adapters)
{
	expect_error("bad-no-adapters.yaml", 3, 11, "adapters: must list at least one adapter");
}

Test(scenario_errors, adapter_without_name)
{
	expect_error("bad-adapter-no-name.yaml", 6, 5, "adapters[1]: missing required key 'name'");
}

Test(scenario_errors, adapter_without_physical)
{
	cr_expect(eq(int, expect_error("bad-no-physical.yaml", 5, 15,
				       "adapters[0].physical: must list at least one physical adapter"),
		     2));
	expect_error("bad-no-physical.yaml", 6, 5, "adapters[1]: missing required key 'physical'");
}

Test(scenario_errors, physical_without_vram)
{
	expect_error("bad-physical-no-vram.yaml", 6, 9,
		     "adapters[0].physical[0]: missing required key 'vram'");
}

Test(scenario_errors, duplicate_adapter_name)
{
	expect_error("bad-duplicate-name.yaml", 8, 11,
		     "adapters[2].name: duplicate adapter name 'gpu0' (first used at 4:11)");
}

Test(scenario_errors, iommu_flags_unknown_bits)
{
	expect_error("bad-iommu-flags.yaml", 4, 16, "registry.iommu_flags: 0x27 sets unknown bits");
}

Test(scenario_errors, bad_fb_save_mode)
{
	expect_error("bad-fb-save-mode.yaml", 5, 19,
		     "adapters[0].fb_save_mode: expected per-adapter or shared, got 'per_adapter'");
}

Test(scenario_errors, memory_map_overlap)
{
	expect_error("bad-map-overlap.yaml", 6, 7,
		     "system.os_memory_map[2]: range [0x140000000, 0x140001000) overlaps "
		     "system.os_memory_map[0]");
}

Test(scenario_errors, memory_map_unaligned)
{
	cr_expect(eq(int, expect_error("bad-map-unaligned.yaml", 4, 14,
				       "system.os_memory_map[0].base: base 0x800 is not 4KiB aligned"),
		     2));
	expect_error("bad-map-unaligned.yaml", 5, 33,
		     "system.os_memory_map[1].size: size 0x1800 is not a multiple of 4KiB");
}

Test(scenario_errors, memory_map_sum)
{
	expect_error("bad-map-sum.yaml", 2, 11,
		     "system.memory: 64GiB does not match the sum of os_memory_map sizes (62GiB)");
}

Test(scenario_errors, highest_physical_address_below_map)
{
	expect_error("bad-hpa-below.yaml", 3, 29,
		     "system.highest_physical_address: 0xffffffff is below the top of os_memory_map "
		     "(0x107fffffff)");
}

Test(scenario_errors, highest_physical_address_above_map)
{
	expect_error("bad-hpa-above.yaml", 3, 29,
		     "system.highest_physical_address: 0xffffffffff is above the top of os_memory_map "
		     "(0x107fffffff), where installed memory ends");
}

Test(scenario_errors, wddm_versions_and_caps_they_cannot_report)
{
	cr_assert(eq(int, expect_error("bad-wddm.yaml", 6, 12,
				       "adapters[0].wddm: expected a WDDM version from 2.4 to 2.9 or 3.0 to 3.2, got '2.3'"),
		     5), "%s", errbuf);
	expect_error("bad-wddm.yaml", 11, 22,
		     "MapAperture2Supported (DXGK_OPERATION_MAP_APERTURE_SEGMENT2) is WDDM 2.9; this driver is WDDM 2.4");
	expect_error("bad-wddm.yaml", 12, 27, "DXGK_IOMMU_CAPS (IOMMU linear remapping) is WDDM 3.0");
	expect_error("bad-wddm.yaml", 13, 32, "DXGK_PHYSICAL_MEMORY_CAPS (highest visible address) is WDDM 3.0");
	expect_error("bad-wddm.yaml", 16, 11, "got '3'");
}

Test(scenario_errors, reserved_range_wraps)
{
	expect_error("bad-range-wrap.yaml", 7, 20, "wraps past the end of the address space");
}

/* ---- values the model cannot hold (core_create() would refuse them) -- */

Test(scenario_errors, memory_beyond_the_address_space)
{
	expect_error("bad-memory-beyond.yaml", 3, 11,
		     "system.memory: 0xFFFFFFFFFFFFF000 is more than the model's physical address space holds");
}

Test(scenario_errors, memory_map_beyond_the_address_space)
{
	cr_expect(eq(int, expect_error("bad-map-beyond.yaml", 6, 37,
				       "system.os_memory_map[1].size: range [0xfffff00000000, 0x10000100000000) ends beyond"),
		     2));
	expect_error("bad-map-beyond.yaml", 7, 14,
		     "system.os_memory_map[2].base: base 0x20000000000000 is beyond");
}

Test(scenario_errors, vram_the_simulator_cannot_have)
{
	cr_expect(eq(int, expect_error("bad-vram.yaml", 6, 16,
				       "adapters[0].physical[0].vram: 0xFFFFFFFFFFFFFFFF is more than a simulated GPU can have"),
		     3));
	expect_error("bad-vram.yaml", 7, 16, "physical[1].vram: 0x10000000001000 is more than");
	expect_error("bad-vram.yaml", 8, 16,
		     "physical[2].vram: must be a multiple of 4KiB (0 for none), got 100");
}

Test(scenario_errors, sizes_that_overflow_when_rounded_to_pages)
{
	cr_expect(eq(int, expect_error("bad-page-round.yaml", 5, 19,
				       "adapters[0].small_buffer: 0xFFFFFFFFFFFFF001 does not fit in 64 bits"),
		     2));
	expect_error("bad-page-round.yaml", 7, 45,
		     "physical[0].populated_from_system: 0xFFFFFFFFFFFFFFFF does not fit in 64 bits");
}

Test(scenario_errors, more_physical_adapters_than_the_simulator_models)
{
	cr_expect(eq(int, expect_error("bad-too-many-physical.yaml", 72, 9,
				       "adapters[1].physical[24]: physical adapter 65 of the file: the simulator models at most 64"),
		     1));
}

Test(scenario, sizes_at_their_bounds_load)
{
	struct scenario s;

	load_ok(fixture("good-bounds.yaml"), &s);
	cr_expect(eq(u64, s.system.memory, 1ull << 52));
	cr_expect(eq(u64, s.system.commit_limit, UINT64_MAX));
	cr_expect(eq(u64, s.system.lockable_limit, 0));
	cr_expect(eq(u64, s.adapters[0].small_buffer, 0xFFFFFFFFFFFFF000ull));
	cr_expect(eq(u64, s.adapters[0].phys[0].vram, 1ull << 52));
	cr_expect(eq(u64, s.adapters[0].phys[0].fb_save_size, UINT64_MAX));
	cr_expect(eq(u64, s.adapters[0].phys[0].populated_from_system, 0xFFFFFFFFFFFFF000ull));
	scenario_free(&s);
}

/* Load @path and build the model on the simulator from it: both must succeed. */
static void expect_creatable(const char *path)
{
	struct hw_machine m;
	uint64_t *vram = NULL;
	struct hw_backend be;
	struct core *core = NULL;
	struct scenario s;
	char err[256] = "";
	int rc;

	load_ok(path, &s);
	rc = scenario_machine(&s, &m, &vram);
	if (!rc)
		rc = hw_backend_open(&sim_name, &m, &s.settings, &be, err, sizeof(err));
	free(vram);
	cr_expect(eq(int, rc, 0), "%s loads, yet its simulator cannot be made: %s", path, err);
	if (!rc)
		rc = core_create(&s, &be, &core);
	cr_expect(eq(int, rc, 0), "%s loads, yet core_create() says %s", path, strerror(-rc));
	if (!rc)
		cr_expect(eq(int, core_start(core), 0), "%s", path);
	core_destroy(core);
	hw_backend_close(&be);
	scenario_free(&s);
}

/* What loads can be built: the loader refuses what the model cannot hold. */
Test(scenario, every_scenario_that_loads_can_be_created)
{
	static const char *const dirs[] = { "traces/scenarios", "tests/data/scenarios" };
	int n = 0;

	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++) {
		const char *dir = src_path(dirs[i]);
		struct dirent *de;
		DIR *d = opendir(dir);

		cr_assert(not(eq(ptr, d, NULL)), "%s: %s", dir, strerror(errno));
		while ((de = readdir(d))) {
			size_t len = strlen(de->d_name);
			char path[4400];

			if (len < 5 || strcmp(de->d_name + len - 5, ".yaml") ||
			    !strncmp(de->d_name, "bad-", 4))
				continue;
			snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
			expect_creatable(path);
			n++;
		}
		closedir(d);
	}
	cr_expect(ge(int, n, 9), "only %d scenarios found", n);
}

Test(scenario_errors, cost_model)
{
	cr_expect(eq(int, expect_error("bad-cost.yaml", 7, 14, "cost_model.clock_mhz: must not be zero"),
		     3));
	expect_error("bad-cost.yaml", 8, 14, "cost_model.pte_write: 4294967296 is larger than 4294967295");
	expect_error("bad-cost.yaml", 9, 3, "cost_model: unknown key 'tlb_hit'");
}

Test(scenario_errors, several_errors_in_file_order)
{
	static const char *const want[] = {
		":4:19: error: system.lockable_limit: invalid size 'lots'",
		":6:16: error: registry.iommu_flags: 0x40 sets unknown bits",
		":7:22: error: registry.secure_vm_staging: expected true or false, got '1'",
		":11:23: error: adapters[0].caps.map_aperture2: expected true or false, got 'maybe'",
		":13:22: error: adapters[0].physical[0]: unknown key 'color'",
	};
	const char *p;
	size_t i;

	cr_assert(eq(int, expect_error("bad-multi.yaml", 4, 19, "lots"), 5));
	for (i = 0, p = errbuf; i < 5; i++) {
		const char *hit = strstr(p, want[i]);

		cr_assert(not(eq(ptr, (void *)hit, NULL)), "missing or out of order: %s\n%s", want[i],
			  errbuf);
		p = hit + 1;
	}
}

Test(scenario_errors, missing_file)
{
	const char *path = fixture("does-not-exist.yaml");
	struct scenario s;
	char want[4200];

	cr_expect(eq(int, scenario_load(path, &s, errbuf, sizeof(errbuf)), -ENOENT));
	snprintf(want, sizeof(want), "%s: error: cannot open: ", path);
	cr_expect(eq(int, strncmp(errbuf, want, strlen(want)), 0), "%s", errbuf);
	scenario_free(&s);
}

Test(scenario_errors, directory)
{
	struct scenario s;

	cr_expect(eq(int, scenario_load(src_path("traces/scenarios"), &s, errbuf, sizeof(errbuf)),
		     -ENOENT));
	cr_expect(not(eq(ptr, strstr(errbuf, "cannot open"), NULL)), "%s", errbuf);
	scenario_free(&s);
}

Test(scenario_errors, small_and_missing_errbuf)
{
	const char *path = fixture("bad-multi.yaml");
	struct scenario s;
	char small[16];
	char one_line[4200];
	size_t first;

	memset(small, 'x', sizeof(small));
	cr_expect(eq(int, scenario_load(path, &s, small, sizeof(small)), -EINVAL));
	cr_expect(eq(sz, strlen(small), sizeof(small) - 1));
	scenario_free(&s);

	/* Only whole lines once the first fits: room for one and a half gives one. */
	cr_assert(eq(int, scenario_load(path, &s, errbuf, sizeof(errbuf)), -EINVAL));
	scenario_free(&s);
	first = (size_t)(strchr(errbuf, '\n') - errbuf) + 1;
	cr_assert(lt(sz, first + 40, sizeof(one_line)));
	cr_expect(eq(int, scenario_load(path, &s, one_line, first + 40), -EINVAL));
	cr_expect(eq(sz, strlen(one_line), first));
	cr_expect(eq(int, count_lines(one_line), 1), "%s", one_line);
	cr_expect(eq(int, strncmp(one_line, errbuf, first), 0));
	scenario_free(&s);

	cr_expect(eq(int, scenario_load(path, &s, NULL, 0), -EINVAL));
	scenario_free(&s);
}

/* ---- lifetime ---------------------------------------------------------- */

Test(scenario, free_is_idempotent)
{
	struct scenario s;

	memset(&s, 0, sizeof(s));
	scenario_free(&s);
	scenario_free(NULL);
	cr_assert(eq(int, scenario_defaults(&s), 0));
	scenario_free(&s);
	cr_expect(eq(ptr, s.adapters, NULL));
	cr_expect(eq(sz, s.nadapters, 0));
	scenario_free(&s);

	/* a failed load leaves nothing to free (docs/architecture.md); freeing is still harmless */
	cr_assert(eq(int, scenario_load(fixture("bad-multi.yaml"), &s, errbuf, sizeof(errbuf)),
		     -EINVAL));
	cr_expect(eq(ptr, s.path, NULL));
	cr_expect(eq(ptr, s.adapters, NULL));
	cr_expect(eq(ptr, s.settings.file, NULL));
	scenario_free(&s);
	cr_expect(eq(ptr, s.path, NULL));
}

/* iommu: model: picks the model and its default costs; cost_model: still overrides them. */
Test(scenario, the_iommu_model_and_its_costs)
{
	struct sim_cost_model cost;
	struct sim_config cfg;
	struct scenario s;

	load_ok(fixture("good-iommu-model.yaml"), &s);
	sim_cost_default(HW_MODEL_VIRTIO, &cost);
	cfg = sim_settings(&s);
	cr_expect(eq(int, cfg.model, HW_MODEL_VIRTIO));
	cr_expect(eq(u32, cfg.cost.pte_write, 0), "virtio's default");
	cr_expect(eq(u32, cfg.cost.request, 777), "cost_model: wins, wherever it is in the file");
	cr_expect(eq(u32, cfg.cost.dma_setup, cost.dma_setup));
	scenario_free(&s);
	load_ok(fixture("good-minimal.yaml"), &s);
	cfg = sim_settings(&s);
	cr_expect(eq(int, cfg.model, HW_MODEL_VTD), "VT-d by default");
	cr_expect(eq(u32, cfg.cost.request, 0));
	scenario_free(&s);
	expect_error("bad-iommu-model.yaml", 8, 16, "'arm-smmu' is no IOMMU model");
}
