/* SPDX-License-Identifier: MIT */
/*
 * Scenario YAML reader (docs/scenario-format.md).
 *
 * The file is built into a libfyaml document, then walked by hand: every
 * mapping is checked against the keys it may hold, every scalar is parsed
 * with the strict parsers of common/units.h. Errors do not stop the walk, so
 * one run reports as many problems as it can, each as
 * "FILE:LINE:COL: error: MESSAGE" with a 1-based position, sorted by
 * position. The reading itself (positions, errors, strict scalars, known
 * keys) is common/yaml.h, shared with the other YAML inputs.
 *
 * Only what makes the file meaningless is an error here (wrong keys, types,
 * numbers, a memory map that contradicts itself), and what the model cannot
 * hold (memory or VRAM beyond the 52-bit address space, VRAM that is not
 * whole pages, sizes that overflow once rounded up to pages, more GPUs than
 * the simulator has): a scenario that loads can be built with core_create().
 * What a real driver or
 * machine could report and the model must judge (an unaligned save size,
 * reserved ranges over RAM, missing caps, ...) is loaded as given.
 */
#include "common/failure.h"
#include "scenario.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/units.h"
#include "common/yaml.h"
#include "hw/backend.h"
#include "hw/physmem.h"

/* How messages name the end of the physical address space the model simulates. */
#define ADDR_SPACE_END "0x10000000000000 (4096TiB)"
_Static_assert(PHYSMEM_MAX_ADDR == (uint64_t)1 << 52, "ADDR_SPACE_END names PHYSMEM_MAX_ADDR");
_Static_assert(HW_MACHINE_MAX_VRAM == PHYSMEM_MAX_ADDR, "one bound for RAM and VRAM in messages");

/* Report a missing required key of the mapping @map (value of @owner). */
static void err_missing(struct yaml_doc *d, struct fy_node *map, struct fy_node *owner,
			const char *ctx, const char *key)
{
	yaml_error(d, owner ? owner : map, map, "%s: missing required key '%s'",
		   *ctx ? ctx : "top level", key);
}

/* ---- ranges: {base, size} ---------------------------------------------- */

enum { RF_BASE, RF_SIZE, RF_N };
static const char *const range_keys[RF_N] = { "base", "size" };

/*
 * One {base, size} item. @strict adds the checks that apply to RAM ranges
 * (non-zero, 4 KiB aligned); hardware-reserved ranges are the model's to
 * judge. A range wrapping past 2^64 is meaningless either way.
 */
static bool parse_range(struct yaml_doc *d, struct fy_node *item, const char *ctx, bool strict,
			struct range_extent *out)
{
	struct yaml_field f[RF_N];
	bool ok = true;

	if (!yaml_fields(d, item, NULL, ctx, range_keys, RF_N, f))
		return false;
	if (!f[RF_BASE].key) {
		err_missing(d, item, NULL, ctx, "base");
		ok = false;
	} else if (!yaml_u64(d, &f[RF_BASE], &out->base)) {
		ok = false;
	}
	if (!f[RF_SIZE].key) {
		err_missing(d, item, NULL, ctx, "size");
		ok = false;
	} else if (!yaml_size(d, &f[RF_SIZE], &out->size)) {
		ok = false;
	}
	if (!ok)
		return false;
	if (out->size && out->base + (out->size - 1) < out->base) {
		yaml_error(d, item, NULL,
			   "%s: range base 0x%llx size 0x%llx wraps past the end of the address space",
			   ctx, (unsigned long long)out->base, (unsigned long long)out->size);
		return false;
	}
	if (!strict)
		return true;
	if (!out->size) {
		yaml_field_error(d, &f[RF_SIZE], "size must not be zero");
		ok = false;
	} else if (!ALIGNED(out->size, GPUISO_PAGE_SIZE)) {
		yaml_field_error(d, &f[RF_SIZE], "size 0x%llx is not a multiple of 4KiB",
				 (unsigned long long)out->size);
		ok = false;
	}
	if (!ALIGNED(out->base, GPUISO_PAGE_SIZE)) {
		yaml_field_error(d, &f[RF_BASE], "base 0x%llx is not 4KiB aligned",
				 (unsigned long long)out->base);
		ok = false;
	}
	/* RAM the model cannot hold: physmem_init() refuses it. */
	if (ok && out->base >= PHYSMEM_MAX_ADDR) {
		yaml_field_error(d, &f[RF_BASE],
				 "base 0x%llx is beyond the model's physical address space, which ends at "
				 ADDR_SPACE_END, (unsigned long long)out->base);
		ok = false;
	} else if (ok && out->size > PHYSMEM_MAX_ADDR - out->base) {
		yaml_field_error(d, &f[RF_SIZE],
				 "range [0x%llx, 0x%llx) ends beyond the model's physical address space, which ends at "
				 ADDR_SPACE_END, (unsigned long long)out->base,
				 (unsigned long long)(out->base + out->size));
		ok = false;
	}
	return ok;
}

/*
 * A size the model rounds up to whole pages (small_buffer,
 * populated_from_system) must still fit in 64 bits once rounded.
 */
static void check_page_round(struct yaml_doc *d, const struct yaml_field *f, uint64_t v)
{
	if (v > UINT64_MAX - (GPUISO_PAGE_SIZE - 1))
		yaml_field_error(d, f, "%s does not fit in 64 bits once rounded up to whole 4KiB pages",
				 fy_node_get_scalar0(f->val));
}

/* ---- system ------------------------------------------------------------ */

enum { SF_MEMORY, SF_HPA, SF_MAP, SF_COMMIT, SF_LOCKABLE, SF_N };
static const char *const system_keys[SF_N] = {
	"memory", "highest_physical_address", "os_memory_map", "commit_limit", "lockable_limit",
};

struct map_item {
	struct range_extent r;
	size_t index;          /* position in the file */
	struct fy_node *node;
};

static int map_item_cmp(const void *a, const void *b)
{
	const struct map_item *x = a, *y = b;

	if (x->r.base != y->r.base)
		return x->r.base < y->r.base ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

/*
 * os_memory_map: the ranges, sorted by base, disjoint. Return: true if
 * every range was valid (the caller may then check the sum).
 */
static bool parse_memory_map(struct yaml_doc *d, const struct yaml_field *f,
			     struct scn_system *sys)
{
	struct map_item *items;
	char ctx[YAML_NAME_LEN];
	int n = yaml_count(d, f);
	struct fy_node *item;
	void *it = NULL;
	size_t i, k = 0;
	bool ok = true;

	if (n < 0)
		return false;
	if (n == 0) {
		yaml_field_error(d, f, "must list at least one range");
		return false;
	}
	items = calloc((size_t)n, sizeof(*items));
	if (!items) {
		yaml_nomem(d);
		return false;
	}
	while ((item = yaml_items(d, f, &it, &k, ctx))) {
		if (parse_range(d, item, ctx, true, &items[k].r)) {
			items[k].index = k;
			items[k].node = item;
		} else {
			ok = false;
			items[k].node = NULL;
		}
	}
	if (!ok)
		goto out;
	k = (size_t)n;
	qsort(items, k, sizeof(*items), map_item_cmp);
	for (i = 1; i < k; i++) {
		struct map_item *a = &items[i - 1], *b = &items[i];
		struct map_item *later = a->index > b->index ? a : b;
		struct map_item *earlier = later == a ? b : a;

		if (a->r.base + a->r.size > b->r.base || (a->r.base + a->r.size == 0)) {
			yaml_error(d, later->node, f->key,
				   "%s[%zu]: range [0x%llx, 0x%llx) overlaps %s[%zu] [0x%llx, 0x%llx)",
				   f->name, later->index, (unsigned long long)later->r.base,
				   (unsigned long long)(later->r.base + later->r.size), f->name,
				   earlier->index, (unsigned long long)earlier->r.base,
				   (unsigned long long)(earlier->r.base + earlier->r.size));
			ok = false;
		}
	}
	if (!ok)
		goto out;
	sys->os_memory_map = calloc(k, sizeof(*sys->os_memory_map));
	if (!sys->os_memory_map) {
		yaml_nomem(d);
		ok = false;
		goto out;
	}
	for (i = 0; i < k; i++)
		sys->os_memory_map[i] = items[i].r;
	sys->nmap = k;
out:
	free(items);
	return ok;
}

static void parse_system(struct yaml_doc *d, struct fy_node *map, struct fy_node *owner,
			 struct scn_system *sys)
{
	struct yaml_field f[SF_N];
	bool mem_ok = false, map_ok = false, hpa_ok = false;
	uint64_t top = 0, sum = 0;
	char a[24], b[24];
	size_t i;

	if (!yaml_fields(d, map, owner, "system", system_keys, SF_N, f))
		return;
	if (!f[SF_MEMORY].key) {
		err_missing(d, map, owner, "system", "memory");
	} else if (yaml_size(d, &f[SF_MEMORY], &sys->memory)) {
		mem_ok = sys->memory && ALIGNED(sys->memory, GPUISO_PAGE_SIZE) &&
			 sys->memory <= PHYSMEM_MAX_ADDR;
		if (sys->memory > PHYSMEM_MAX_ADDR)
			yaml_field_error(d, &f[SF_MEMORY],
					 "%s is more than the model's physical address space holds: it ends at "
					 ADDR_SPACE_END, fy_node_get_scalar0(f[SF_MEMORY].val));
		else if (!mem_ok)
			yaml_field_error(d, &f[SF_MEMORY],
					 "must be a non-zero multiple of 4KiB, got %s",
					 fy_node_get_scalar0(f[SF_MEMORY].val));
	}
	if (f[SF_MAP].key) {
		map_ok = parse_memory_map(d, &f[SF_MAP], sys);
		for (i = 0; map_ok && i < sys->nmap; i++) {
			/* Disjoint ranges can still add up to exactly 2^64. */
			if (sum + sys->os_memory_map[i].size < sum)
				sum = UINT64_MAX;
			else
				sum += sys->os_memory_map[i].size;
		}
		if (map_ok && mem_ok && sum != sys->memory) {
			yaml_field_error(d, &f[SF_MEMORY],
					 "%s does not match the sum of os_memory_map sizes (%s)",
					 units_format_size(sys->memory, a, sizeof(a)),
					 units_format_size(sum, b, sizeof(b)));
		}
	} else if (mem_ok) {
		sys->os_memory_map = calloc(1, sizeof(*sys->os_memory_map));
		if (!sys->os_memory_map) {
			yaml_nomem(d);
		} else {
			sys->os_memory_map[0] = (struct range_extent){ 0, sys->memory };
			sys->nmap = 1;
			map_ok = true;
		}
	}
	if (map_ok)
		top = scenario_memory_top(sys);
	if (f[SF_HPA].key) {
		hpa_ok = yaml_u64(d, &f[SF_HPA], &sys->highest_physical_address);
		if (hpa_ok && map_ok && sys->highest_physical_address < top)
			yaml_field_error(d, &f[SF_HPA],
					 "0x%llx is below the top of os_memory_map (0x%llx)",
					 (unsigned long long)sys->highest_physical_address,
					 (unsigned long long)top);
		else if (hpa_ok && map_ok && sys->highest_physical_address > top)
			yaml_field_error(d, &f[SF_HPA],
					 "0x%llx is above the top of os_memory_map (0x%llx), where "
					 "installed memory ends: leave it out, or give that top",
					 (unsigned long long)sys->highest_physical_address,
					 (unsigned long long)top);
	} else {
		sys->highest_physical_address = top;
	}
	sys->commit_limit = sys->memory;
	sys->lockable_limit = sys->memory;
	if (f[SF_COMMIT].key)
		yaml_size(d, &f[SF_COMMIT], &sys->commit_limit);
	if (f[SF_LOCKABLE].key)
		yaml_size(d, &f[SF_LOCKABLE], &sys->lockable_limit);
}

/* ---- registry ---------------------------------------------------------- */

enum { GF_FLAGS, GF_STAGING, GF_N };
static const char *const registry_keys[GF_N] = { "iommu_flags", "secure_vm_staging" };

#define IOMMU_FLAGS_ALL 0x1Fu

static void parse_registry(struct yaml_doc *d, struct fy_node *map, struct fy_node *owner,
			   struct scn_registry *reg)
{
	struct yaml_field f[GF_N];
	uint64_t v;

	if (!yaml_fields(d, map, owner, "registry", registry_keys, GF_N, f))
		return;
	if (f[GF_FLAGS].key && yaml_u64(d, &f[GF_FLAGS], &v)) {
		if (v & ~(uint64_t)IOMMU_FLAGS_ALL)
			yaml_field_error(d, &f[GF_FLAGS],
					 "0x%llx sets unknown bits (valid bits: 0x%02X)",
					 (unsigned long long)v, IOMMU_FLAGS_ALL);
		else
			reg->iommu_flags = (uint32_t)v;
	}
	if (f[GF_STAGING].key)
		yaml_bool(d, &f[GF_STAGING], &reg->secure_vm_staging);
}

/* ---- adapters ---------------------------------------------------------- */

enum { CF_SECURE, CF_AP2, CF_LINEAR, CF_HVA, CF_DMAREMAP, CF_N };
static const char *const caps_keys[CF_N] = {
	"iommu_secure_mode", "map_aperture2", "iommu_linear_remap", "highest_visible_address",
	"dma_remapping_compatible",
};

/* A cap the driver's WDDM version cannot report is a contradiction in the file. */
static void check_cap_version(struct yaml_doc *d, const struct yaml_field *f, bool reported,
			      unsigned int wddm, unsigned int since, const char *what)
{
	if (reported && wddm < since)
		yaml_field_error(d, f, "%s is WDDM %u.%u; this driver is WDDM %u.%u (wddm)",
				 what, since / 10, since % 10, wddm / 10, wddm % 10);
}

static void parse_caps(struct yaml_doc *d, const struct yaml_field *owner, unsigned int wddm,
		       struct scn_caps *caps)
{
	struct yaml_field f[CF_N];

	if (!yaml_fields(d, owner->val, owner->key, owner->name, caps_keys, CF_N, f))
		return;
	if (f[CF_SECURE].key)
		yaml_bool(d, &f[CF_SECURE], &caps->iommu_secure_mode);
	if (f[CF_AP2].key && yaml_bool(d, &f[CF_AP2], &caps->map_aperture2))
		check_cap_version(d, &f[CF_AP2], caps->map_aperture2, wddm, SCN_WDDM(2, 9),
				  "MapAperture2Supported (DXGK_OPERATION_MAP_APERTURE_SEGMENT2)");
	if (f[CF_LINEAR].key && yaml_bool(d, &f[CF_LINEAR], &caps->iommu_linear_remap))
		check_cap_version(d, &f[CF_LINEAR], caps->iommu_linear_remap, wddm, SCN_WDDM(3, 0),
				  "DXGK_IOMMU_CAPS (IOMMU linear remapping)");
	if (f[CF_HVA].key) {
		caps->has_physical_caps = yaml_u64(d, &f[CF_HVA], &caps->highest_visible_address);
		check_cap_version(d, &f[CF_HVA], caps->has_physical_caps, wddm, SCN_WDDM(3, 0),
				  "DXGK_PHYSICAL_MEMORY_CAPS (highest visible address)");
	}
	if (f[CF_DMAREMAP].key)
		yaml_u32(d, &f[CF_DMAREMAP], &caps->dma_remapping_compatible);
}

/* "2.4" ... "3.2": the WDDM versions the model knows. */
static void parse_wddm(struct yaml_doc *d, const struct yaml_field *f, unsigned int *wddm)
{
	const char *s = yaml_str(d, f, "a WDDM version such as 3.0");
	unsigned int major, minor;
	char end;

	if (!s)
		return;
	if (sscanf(s, "%1u.%1u%c", &major, &minor, &end) != 2 || strlen(s) != 3 ||
	    SCN_WDDM(major, minor) < SCN_WDDM_MIN || SCN_WDDM(major, minor) > SCN_WDDM_MAX) {
		yaml_field_error(d, f, "expected a WDDM version from 2.4 to 2.9 or 3.0 to 3.2, got '%s'",
				 s);
		return;
	}
	*wddm = SCN_WDDM(major, minor);
}

enum { PF_VRAM, PF_SAVE, PF_RESERVED, PF_POPULATED, PF_N };
static const char *const phys_keys[PF_N] = {
	"vram", "fb_save_size", "reserved", "populated_from_system",
};

/* VRAM a machine's GPU may have (hw/backend.h): whole pages, at most HW_MACHINE_MAX_VRAM; 0 is none. */
static void check_vram(struct yaml_doc *d, const struct yaml_field *f, uint64_t v)
{
	if (v > HW_MACHINE_MAX_VRAM)
		yaml_field_error(d, f, "%s is more than a simulated GPU can have: at most "
				 ADDR_SPACE_END, fy_node_get_scalar0(f->val));
	else if (!ALIGNED(v, GPUISO_PAGE_SIZE))
		yaml_field_error(d, f, "must be a multiple of 4KiB (0 for none), got %s",
				 fy_node_get_scalar0(f->val));
}

static void parse_phys(struct yaml_doc *d, struct fy_node *item, const char *ctx,
		       struct scn_phys *ph)
{
	struct yaml_field f[PF_N];
	char rctx[YAML_NAME_LEN];
	struct fy_node *r;
	void *it = NULL;
	size_t k = 0;
	int n;

	if (!yaml_fields(d, item, NULL, ctx, phys_keys, PF_N, f))
		return;
	if (!f[PF_VRAM].key)
		err_missing(d, item, NULL, ctx, "vram");
	else if (yaml_size(d, &f[PF_VRAM], &ph->vram))
		check_vram(d, &f[PF_VRAM], ph->vram);
	if (f[PF_SAVE].key)
		yaml_size(d, &f[PF_SAVE], &ph->fb_save_size);
	if (f[PF_POPULATED].key && yaml_size(d, &f[PF_POPULATED], &ph->populated_from_system))
		check_page_round(d, &f[PF_POPULATED], ph->populated_from_system);
	if (!f[PF_RESERVED].key)
		return;
	n = yaml_count(d, &f[PF_RESERVED]);
	if (n <= 0)
		return;
	ph->reserved = calloc((size_t)n, sizeof(*ph->reserved));
	if (!ph->reserved) {
		yaml_nomem(d);
		return;
	}
	while ((r = yaml_items(d, &f[PF_RESERVED], &it, &k, rctx))) {
		/* Kept in file order, unaligned or over RAM if so written: the model judges. */
		if (parse_range(d, r, rctx, false, &ph->reserved[ph->nreserved]))
			ph->nreserved++;
	}
}

enum { AF_NAME, AF_WDDM, AF_INTEGRATED, AF_CAPS, AF_SAVEMODE, AF_SMALLBUF, AF_PHYS, AF_N };
static const char *const adapter_keys[AF_N] = {
	"name", "wddm", "integrated", "caps", "fb_save_mode", "small_buffer", "physical",
};

/*
 * Return: the adapter's name node if it has a usable name, else NULL.
 * @ndevs counts the physical adapters of the file so far (one simulated GPU each).
 */
static struct fy_node *parse_adapter(struct yaml_doc *d, struct fy_node *item, const char *ctx,
				     struct scn_adapter *ad, size_t *ndevs)
{
	struct fy_node *name_node = NULL;
	struct yaml_field f[AF_N];
	char pctx[YAML_NAME_LEN];
	struct fy_node *p;
	void *it = NULL;
	const char *s;
	size_t k = 0;
	int n;

	ad->wddm = SCN_WDDM(3, 0);
	ad->fb_save_mode = FB_SAVE_PER_ADAPTER;
	ad->small_buffer = GPUISO_PAGE_SIZE;
	if (!yaml_fields(d, item, NULL, ctx, adapter_keys, AF_N, f))
		return NULL;
	if (!f[AF_NAME].key) {
		err_missing(d, item, NULL, ctx, "name");
	} else if ((s = yaml_str(d, &f[AF_NAME], "a string"))) {
		if (!*s) {
			yaml_field_error(d, &f[AF_NAME], "must not be empty");
		} else {
			ad->name = strdup(s);
			if (!ad->name)
				yaml_nomem(d);
			else
				name_node = f[AF_NAME].val;
		}
	}
	if (f[AF_WDDM].key)
		parse_wddm(d, &f[AF_WDDM], &ad->wddm);
	if (f[AF_INTEGRATED].key)
		yaml_bool(d, &f[AF_INTEGRATED], &ad->integrated);
	if (f[AF_CAPS].key)
		parse_caps(d, &f[AF_CAPS], ad->wddm, &ad->caps);
	if (f[AF_SAVEMODE].key &&
	    (s = yaml_str(d, &f[AF_SAVEMODE], "per-adapter or shared"))) {
		if (!strcmp(s, "per-adapter"))
			ad->fb_save_mode = FB_SAVE_PER_ADAPTER;
		else if (!strcmp(s, "shared"))
			ad->fb_save_mode = FB_SAVE_SHARED;
		else
			yaml_field_error(d, &f[AF_SAVEMODE],
					 "expected per-adapter or shared, got '%s'", s);
	}
	if (f[AF_SMALLBUF].key && yaml_size(d, &f[AF_SMALLBUF], &ad->small_buffer))
		check_page_round(d, &f[AF_SMALLBUF], ad->small_buffer);
	if (!f[AF_PHYS].key) {
		err_missing(d, item, NULL, ctx, "physical");
		return name_node;
	}
	n = yaml_count(d, &f[AF_PHYS]);
	if (n < 0)
		return name_node;
	if (n == 0) {
		yaml_field_error(d, &f[AF_PHYS], "must list at least one physical adapter");
		return name_node;
	}
	ad->phys = calloc((size_t)n, sizeof(*ad->phys));
	if (!ad->phys) {
		yaml_nomem(d);
		return name_node;
	}
	ad->nphys = (size_t)n;
	while ((p = yaml_items(d, &f[AF_PHYS], &it, &k, pctx))) {
		parse_phys(d, p, pctx, &ad->phys[k]);
		if (++*ndevs == HW_MACHINE_MAX_GPUS + 1)
			yaml_error(d, p, NULL,
				   "%s: physical adapter %zu of the file: the simulator models at most %u",
				   pctx, *ndevs, HW_MACHINE_MAX_GPUS);
	}
	return name_node;
}

static void parse_adapters(struct yaml_doc *d, const struct yaml_field *f,
			   struct scenario *scn)
{
	struct fy_node **names;
	char ctx[YAML_NAME_LEN];
	struct fy_node *item;
	void *it = NULL;
	size_t k = 0, j, ndevs = 0;
	int n = yaml_count(d, f);

	if (n < 0)
		return;
	if (n == 0) {
		yaml_field_error(d, f, "must list at least one adapter");
		return;
	}
	scn->adapters = calloc((size_t)n, sizeof(*scn->adapters));
	names = calloc((size_t)n, sizeof(*names));
	if (!scn->adapters || !names) {
		yaml_nomem(d);
		free(names);
		return;
	}
	scn->nadapters = (size_t)n;
	while ((item = yaml_items(d, f, &it, &k, ctx))) {
		names[k] = parse_adapter(d, item, ctx, &scn->adapters[k], &ndevs);
		for (j = 0; names[k] && j < k; j++) {
			int line = 0, col = 0;

			if (!names[j] || strcmp(scn->adapters[j].name, scn->adapters[k].name))
				continue;
			yaml_pos(names[j], &line, &col);
			yaml_error(d, names[k], item,
				   "%s.name: duplicate adapter name '%s' (first used at %d:%d)",
				   ctx, scn->adapters[k].name, line, col);
			break;
		}
	}
	free(names);
}

/* ---- the backend's own settings ---------------------------------------- */

/*
 * iommu: and cost_model: are the backend's (hw/backend.h): kept as written,
 * with where each is, for the backend to read; here only their shape (a
 * mapping of scalars) is checked.
 */
static void parse_settings(struct yaml_doc *d, struct fy_node *map, struct fy_node *owner,
			   const char *section, struct scenario *scn)
{
	struct fy_node_pair *pair;
	void *it = NULL;

	if (!map || !fy_node_is_mapping(map)) {
		yaml_error(d, map, owner, "%s: expected a mapping", section);
		return;
	}
	while ((pair = fy_node_mapping_iterate(map, &it))) {
		struct yaml_field f = { .key = fy_node_pair_key(pair), .val = fy_node_pair_value(pair) };
		const char *key = f.key && fy_node_is_scalar(f.key) ? fy_node_get_scalar0(f.key) : NULL;
		const char *value;
		int kl, kc, vl, vc;

		if (!key) {
			yaml_error(d, f.key, map, "%s: keys must be plain strings", section);
			continue;
		}
		snprintf(f.name, sizeof(f.name), "%s.%s", section, key);
		value = yaml_str(d, &f, "a scalar");
		if (!value)
			continue;
		if (!yaml_pos(f.key, &kl, &kc) || !yaml_pos(f.val, &vl, &vc))
			kl = kc = vl = vc = 0;
		if (hw_settings_add(&scn->settings, f.name, value, kl, kc, vl, vc))
			yaml_nomem(d);
	}
}

/* ---- top level --------------------------------------------------------- */

enum { TF_SYSTEM, TF_REGISTRY, TF_ADAPTERS, TF_COST, TF_BACKEND, TF_IOMMU, TF_N };
static const char *const top_keys[TF_N] = { "system", "registry", "adapters", "cost_model",
					    "backend", "iommu" };

/* A backend name (hw/backend.h, docs/backends.md); the command line's --backend wins. */
static void parse_backend(struct yaml_doc *d, const struct yaml_field *f, struct scenario *scn)
{
	const char *s = yaml_str(d, f, "sim or vfio:BDF");
	struct hw_backend_name b;
	char why[256];

	if (!s)
		return;
	if (hw_backend_parse(s, &b, why, sizeof(why))) {
		yaml_field_error(d, f, "%s", why);
		return;
	}
	scn->backend = strdup(s);
	if (!scn->backend)
		yaml_nomem(d);
}

static void parse_root(struct yaml_doc *d, struct fy_node *root, struct scenario *scn)
{
	struct yaml_field f[TF_N];

	if (!root) {
		/* libfyaml builds no document, silently, from an empty file. */
		yaml_error(d, NULL, NULL,
			   "empty document: expected a mapping with 'system' and 'adapters'");
		return;
	}
	if (!yaml_fields(d, root, NULL, "", top_keys, TF_N, f))
		return;
	if (!f[TF_SYSTEM].key)
		err_missing(d, root, NULL, "", "system");
	else
		parse_system(d, f[TF_SYSTEM].val, f[TF_SYSTEM].key, &scn->system);
	if (f[TF_REGISTRY].key)
		parse_registry(d, f[TF_REGISTRY].val, f[TF_REGISTRY].key, &scn->registry);
	if (!f[TF_ADAPTERS].key)
		err_missing(d, root, NULL, "", "adapters");
	else
		parse_adapters(d, &f[TF_ADAPTERS], scn);
	if (f[TF_IOMMU].key)
		parse_settings(d, f[TF_IOMMU].val, f[TF_IOMMU].key, "iommu", scn);
	if (f[TF_COST].key)
		parse_settings(d, f[TF_COST].val, f[TF_COST].key, "cost_model", scn);
	if (f[TF_BACKEND].key)
		parse_backend(d, &f[TF_BACKEND], scn);
}

int scenario_load(const char *path, struct scenario *scn, char *errbuf, size_t errlen)
{
	struct yaml_doc *d;
	int ret, report;

	if (errbuf && errlen)
		errbuf[0] = '\0';
	memset(scn, 0, sizeof(*scn));
	if (!path)
		return -EINVAL;
	ret = -ENOMEM;
	scn->path = strdup(path);
	scn->settings.file = strdup(path);
	if (!scn->path || !scn->settings.file)
		goto free_scenario;
	ret = yaml_open(path, &d);
	if (ret == -ENOMEM)
		goto free_scenario;
	/* After syntax errors there is no document to walk, only errors to report. */
	if (!ret)
		parse_root(d, yaml_root(d), scn);
	report = yaml_close(d, errbuf, errlen);
	/* A file that cannot be opened is -ENOENT, whatever else its report says. */
	ret = ret == -ENOENT || failure_of(ret) == FAILURE_ENVIRONMENT ? ret : report;
	if (!ret)
		return 0;
free_scenario:
	scenario_free(scn); /* a failed constructor leaves nothing (docs/architecture.md) */
	return ret;
}

int scenario_defaults(struct scenario *scn)
{
	struct scn_adapter *ad;

	memset(scn, 0, sizeof(*scn));

	/* 64 GiB: 2 GiB below the 32-bit MMIO hole, the rest above 4 GiB. */
	scn->system.os_memory_map = calloc(2, sizeof(*scn->system.os_memory_map));
	scn->adapters = calloc(1, sizeof(*scn->adapters));
	if (!scn->system.os_memory_map || !scn->adapters)
		goto nomem;
	scn->system.memory = 64 * SZ_1G;
	scn->system.os_memory_map[0] = (struct range_extent){ 0, 2 * SZ_1G };
	scn->system.os_memory_map[1] = (struct range_extent){ 0x100000000ull, 62 * SZ_1G };
	scn->system.nmap = 2;
	scn->system.highest_physical_address = 0x100000000ull + 62 * SZ_1G - 1;
	scn->system.commit_limit = 48 * SZ_1G;
	scn->system.lockable_limit = 16 * SZ_1G;

	scn->registry.iommu_flags =
		IOMMU_FLAG_ENABLED | IOMMU_FLAG_ENABLE_MAPPINGS | IOMMU_FLAG_ENABLE_ATTACH;
	scn->registry.secure_vm_staging = false;

	scn->nadapters = 1;
	ad = &scn->adapters[0];
	ad->name = strdup("gpu0");
	ad->phys = calloc(1, sizeof(*ad->phys));
	if (!ad->name || !ad->phys)
		goto nomem;
	ad->wddm = SCN_WDDM(2, 9);
	ad->integrated = false;
	ad->caps = (struct scn_caps){
		.iommu_secure_mode = true,
		.map_aperture2 = true,
		.dma_remapping_compatible = 3,
	};
	ad->fb_save_mode = FB_SAVE_PER_ADAPTER;
	ad->small_buffer = 4096;
	ad->nphys = 1;
	ad->phys[0].vram = 8 * SZ_1G;
	ad->phys[0].fb_save_size = 64ull << 20;
	ad->phys[0].reserved = calloc(1, sizeof(*ad->phys[0].reserved));
	if (!ad->phys[0].reserved)
		goto nomem;
	ad->phys[0].reserved[0] = (struct range_extent){ 0xC0000000ull, 16ull << 20 };
	ad->phys[0].nreserved = 1;
	ad->phys[0].populated_from_system = 0;
	return 0;
nomem:
	scenario_free(scn);
	return -ENOMEM;
}

void scenario_free(struct scenario *scn)
{
	size_t i, j;

	if (!scn)
		return;
	free(scn->path);
	free(scn->backend);
	free(scn->system.os_memory_map);
	for (i = 0; scn->adapters && i < scn->nadapters; i++) {
		struct scn_adapter *ad = &scn->adapters[i];

		free(ad->name);
		for (j = 0; ad->phys && j < ad->nphys; j++)
			free(ad->phys[j].reserved);
		free(ad->phys);
	}
	free(scn->adapters);
	hw_settings_free(&scn->settings);
	memset(scn, 0, sizeof(*scn));
}

uint64_t scenario_memory_top(const struct scn_system *sys)
{
	uint64_t top = 0;

	for (size_t i = 0; i < sys->nmap; i++)
		if (sys->os_memory_map[i].size)
			top = GPUISO_MAX(top, sys->os_memory_map[i].base + sys->os_memory_map[i].size - 1);
	return top;
}

int scenario_machine(const struct scenario *scn, struct hw_machine *m, uint64_t **vram)
{
	unsigned int ngpus = 0;

	for (size_t i = 0; i < scn->nadapters; i++)
		ngpus += (unsigned int)scn->adapters[i].nphys;
	*vram = calloc(ngpus ? ngpus : 1, sizeof(**vram));
	if (!*vram)
		return -ENOMEM;
	for (size_t i = 0, g = 0; i < scn->nadapters; i++)
		for (size_t j = 0; j < scn->adapters[i].nphys; j++)
			(*vram)[g++] = scn->adapters[i].phys[j].vram;
	*m = (struct hw_machine){
		.memory = { .ram = scn->system.os_memory_map, .nram = scn->system.nmap,
			    .commit_limit = scn->system.commit_limit,
			    .lockable_limit = scn->system.lockable_limit },
		.ngpus = ngpus,
		.vram = *vram,
	};
	return 0;
}
