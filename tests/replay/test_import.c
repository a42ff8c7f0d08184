/* SPDX-License-Identifier: MIT */
/*
 * Import maps: what a map may say, where a wrong one is wrong, events that
 * lack a field, and what the shipped maps make of the kernel's events.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "replay/import.h"

static char tmp[] = "/tmp/gpuiso-import-XXXXXX";

static void setup(void)
{
	cr_assert_not_null(mkdtemp(tmp));
}

static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmp);
	cr_assert_eq(system(cmd), 0);
}

TestSuite(import, .init = setup, .fini = teardown);

/* Load @yaml as a map file; its errors in @err. */
static int load(const char *yaml, struct import_map **m, char *err, size_t len)
{
	char path[256];
	const char *paths[] = { path };
	FILE *f;

	snprintf(path, sizeof(path), "%s/map.yaml", tmp);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs(yaml, f);
	fclose(f);
	err[0] = '\0';
	return import_map_load(paths, 1, m, err, len);
}

Test(import, a_rule_says_only_what_its_operation_takes)
{
	static const struct {
		const char *yaml, *where, *what;
	} bad[] = {
		{ "rules:\n  - event: a\n    op: alloc_mdl\n    key: p\n    add: 5\n    fields: {bytes: 1}\n",
		  "map.yaml:5:10:", "'add' is for pressure rules" },
		{ "rules:\n  - event: a\n    op: power\n    key: p\n    fields: {state: 3}\n",
		  "map.yaml:4:10:", "'power' acts on no object" },
		{ "rules:\n  - event: a\n    op: alloc_mdl\n    key: p\n    ref: q\n    fields: {bytes: 1}\n",
		  "map.yaml:5:10:", "'alloc_mdl' refers to no other object" },
		{ "rules:\n  - event: a\n    op: pressure\n    key: p\n    add: 4096\n",
		  "map.yaml:4:10:", "a pressure rule takes 'add' or 'sub', not 'key'" },
		{ "rules:\n  - event: a\n    op: alloc_mdl\n    key: p\n",
		  "map.yaml:3:9:", "'alloc_mdl' needs its size" },
		{ "rules:\n  - event: a\n    op: map_aperture\n    key: p\n",
		  "map.yaml:3:9:", "fields: {pages: ...}" },
		{ "rules:\n  - event: a\n    op: alloc_mdl\n    key: p\n    fields: {bytes: 1, adapter: 3}\n",
		  "map.yaml:5:33:", "the adapter is the map's" },
		{ "rules:\n  - event: []\n    op: free_mdl\n    key: p\n",
		  "map.yaml:2:12:", "at least one event name" },
		{ "rules:\n  - event: \"\"\n    op: free_mdl\n    key: p\n",
		  "map.yaml:2:13:", "cannot be empty" },
		{ "rules:\n  - event: a\n    op: free_mdl\n    key: 5\n",
		  "map.yaml:4:10:", "'5' is not a payload field name" },
		{ "rules:\n  - event: a\n    op: free_mdl\n    key: p\n    where: {\"x y\": 1}\n",
		  "map.yaml:5:20:", "'x y' is not a payload field name" },
		{ "rules:\n  - event: a\n    op: irql\n    key: p\n    fields: {level: 2}\n",
		  "map.yaml:4:10:", "'irql' acts on no object" },
		{ "rules:\n  - event: a\n    op: driver_mdl_create\n    fields: {bytes: size}\n",
		  "map.yaml:3:9:", "'driver_mdl_create' acts on an object: the rule needs 'key'" },
		{ "rules:\n  - event: a\n    op: pmo_map_cpu\n    key: v\n    fields: {bytes: 1}\n",
		  "map.yaml:3:9:", "'pmo_map_cpu' refers to another object: the rule needs 'ref'" },
		{ "rules:\n  - event: a\n    op: cpu_access\n    fields: {bytes: 1}\n",
		  "map.yaml:3:9:", "'cpu_access' acts on an object: the rule needs 'key'" },
		{ "rules:\n  - event: a\n    op: iommu_disable\n    key: p\n",
		  "map.yaml:4:10:", "'iommu_disable' acts on no object" },
		{ "rules:\n  - event: a\n    op: pmo_create_io\n    key: p\n    fields: {base: b}\n",
		  "map.yaml:3:9:", "'pmo_create_io' needs its size" },
	};
	struct import_map *m;
	char err[2048];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cr_assert_eq(load(bad[i].yaml, &m, err, sizeof(err)), -EINVAL, "%zu: %s", i, bad[i].yaml);
		cr_assert(strstr(err, bad[i].where) && strstr(err, bad[i].what), "%zu: %s", i, err);
	}
	/* what the shipped maps say still loads */
	cr_assert_eq(load("import: {adapter: 0}\nrules:\n"
			  "  - {event: [m, n], op: alloc_mdl, key: ptr, fields: {bytes: \"a * b\"}}\n"
			  "  - {event: f, op: free_mdl, key: ptr}\n"
			  "  - {event: s, op: power, where: {name: x}, fields: {phys: 0, state: 3}}\n"
			  "  - {event: p, op: pressure, where: {zone: 1}, add: \"4096 << order\"}\n"
			  "  - {event: dpc_entry, op: irql, fields: {level: 2}}\n"
			  "  - {event: dpc_exit, op: irql, fields: {level: 0}}\n"
			  "  - {event: lock, op: driver_mdl_create, key: va, fields: {bytes: len}}\n"
			  "  - {event: map, op: map_mdl, key: iova, ref: va}\n"
			  "  - {event: unlock, op: driver_mdl_free, key: va}\n"
			  "  - {event: bar, op: pmo_create_io, key: h, fields: {base: pa, bytes: len}}\n"
			  "  - {event: vmap, op: pmo_map_cpu, key: va, ref: h, fields: {bytes: len}}\n"
			  "  - {event: vunmap, op: pmo_unmap_cpu, key: va}\n"
			  "  - {event: memcpy, op: cpu_access, key: va, fields: {bytes: len, write: 1}}\n"
			  "  - {event: save, op: fb_pin, key: mdl, fields: {hadapter: 0}}\n"
			  "  - {event: saved, op: fb_unpin, key: mdl}\n"
			  "  - {event: off, op: iommu_disable}\n"
			  "  - {event: fbsz, op: fb_save_size, fields: {phys: gpu, bytes: size}}\n",
			  &m, err, sizeof(err)), 0, "%s", err);
	import_map_free(m);
}

/* A bound event of rule 0 whose first bound field is @first and second @second. */
static enum import_outcome translate(struct import_map *m, const char *event,
				     struct ctf_value first, struct ctf_value second, size_t *n)
{
	struct ctf_binding b;
	struct ctf_value vals[CTF_MAX_FIELDS] = { first, second };
	struct wl_event out[2];

	cr_assert_eq(import_bind(m, event, &b), 0);
	cr_assert_eq(b.tag, 0);
	return import_event(m, b.tag, 1000, vals, out, n);
}

Test(import, an_event_without_a_field_the_rule_reads_is_not_used)
{
	const struct ctf_value none = { .present = false }, one = { .present = true, .u = 1 };
	struct import_map *m;
	char err[1024];
	size_t n;

	/* pressure: the size's field missing is unmatched, not zero bytes used */
	cr_assert_eq(load("rules:\n  - {event: a, op: pressure, add: \"4096 << ordr\"}\n", &m, err,
			  sizeof(err)), 0, "%s", err);
	cr_assert_eq(translate(m, "a", none, none, &n), IMPORT_UNMATCHED);
	cr_assert_eq(n, 0);
	cr_assert_eq(translate(m, "a", one, none, &n), IMPORT_USED);
	cr_assert_eq(n, 1);
	import_map_free(m);

	/* an allocation: key missing, or size missing */
	cr_assert_eq(load("rules:\n  - {event: a, op: alloc_mdl, key: ptr, fields: {bytes: size}}\n",
			  &m, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(translate(m, "a", none, one, &n), IMPORT_UNMATCHED);
	cr_assert_eq(translate(m, "a", one, none, &n), IMPORT_UNMATCHED);
	cr_assert_eq(translate(m, "a", one, one, &n), IMPORT_USED);
	cr_assert_eq(n, 1);
	import_map_free(m);

	/* a filter on a field the event lacks: ignored */
	cr_assert_eq(load("rules:\n  - {event: a, op: power, where: {nmae: x}, fields: {state: 3}}\n",
			  &m, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(translate(m, "a", none, none, &n), IMPORT_IGNORED);
	import_map_free(m);
}

/* A payload field's value for feed(): an integer, or a string when @s is set. */
struct fv {
	const char *name;
	uint64_t u;
	const char *s;
};

/*
 * Bind @event and translate one event of it whose fields have the values
 * @fv names (a field @fv lacks is absent), at @ts.
 */
static enum import_outcome feed_at(struct import_map *m, const char *event, uint64_t ts,
				   const struct fv *fv, size_t nfv, struct wl_event *out, size_t *n)
{
	struct ctf_value vals[CTF_MAX_FIELDS] = { { 0 } };
	struct ctf_binding b;

	cr_assert_eq(import_bind(m, event, &b), 0);
	cr_assert_geq(b.tag, 0, "no rule takes %s", event);
	for (unsigned int i = 0; i < b.n; i++)
		for (size_t j = 0; j < nfv; j++)
			if (!strcmp(b.names[i], fv[j].name))
				vals[i] = (struct ctf_value){ .present = true, .is_str = fv[j].s != NULL,
							      .u = fv[j].u, .s = fv[j].s };
	return import_event(m, b.tag, ts, vals, out, n);
}

#define IV(field, value) { .name = (field), .u = (value) }
#define SV(field, text) { .name = (field), .s = (text) }

#define FEED(m, event, out, n, ...)                                                        \
	feed_at(m, event, 1000, (const struct fv[]){ __VA_ARGS__ },                        \
		sizeof((const struct fv[]){ __VA_ARGS__ }) / sizeof(struct fv), out, n)

Test(import, an_array_element_and_its_count_and_sum_are_field_names)
{
	static const char *const bad[] = { "a[", "a[]", "a[01]", "[0]", "a[0]b", "a[x]", "a[-1]",
					   "a[0][1]", "a[1234567890]", "0a" };
	struct import_map *m;
	struct wl_event out[2];
	char err[1024], yaml[256];
	size_t n;

	cr_assert_eq(load("rules:\n"
			  "  - event: sg\n"
			  "    op: alloc_mdl\n"
			  "    key: dma_addrs[0]\n"
			  "    where: {phys_addrs.count: 2}\n"
			  "    fields: {bytes: lengths.sum}\n"
			  "  - event: sg1\n"
			  "    op: alloc_mdl\n"
			  "    key: addrs[10]\n"
			  "    fields: {bytes: \"lengths[1] * 4096\"}\n"
			  "  - {event: unmap, op: free_mdl, key: \"dma_addrs[0]\"}\n",
			  &m, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(FEED(m, "sg", out, &n, IV("dma_addrs[0]", 0xf000), IV("phys_addrs.count", 2),
			  IV("lengths.sum", 12288)), IMPORT_USED);
	cr_assert_eq(n, 1);
	cr_assert_eq(out[0].kind, WL_ALLOC_MDL);
	cr_assert_eq(out[0].v[WL_BYTES], 12288);
	/* a filter on the count: another count is not this rule's */
	cr_assert_eq(FEED(m, "sg", out, &n, IV("dma_addrs[0]", 0xe000), IV("phys_addrs.count", 3),
			  IV("lengths.sum", 4096)), IMPORT_IGNORED);
	/* an element past the end is absent: the key is missing */
	cr_assert_eq(FEED(m, "sg1", out, &n, IV("lengths[1]", 2)), IMPORT_UNMATCHED);
	cr_assert_eq(FEED(m, "sg1", out, &n, IV("addrs[10]", 7), IV("lengths[1]", 2)), IMPORT_USED);
	cr_assert_eq(out[0].v[WL_BYTES], 8192);
	cr_assert_eq(FEED(m, "unmap", out, &n, IV("dma_addrs[0]", 0xf000)), IMPORT_USED);
	cr_assert_eq(out[0].kind, WL_FREE_MDL);
	import_map_free(m);

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(yaml, sizeof(yaml), "rules:\n  - {event: a, op: free_mdl, key: \"%s\"}\n", bad[i]);
		cr_assert_eq(load(yaml, &m, err, sizeof(err)), -EINVAL, "%s", bad[i]);
		cr_assert(strstr(err, "is not a payload field name"), "%s: %s", bad[i], err);
		snprintf(yaml, sizeof(yaml),
			 "rules:\n  - {event: a, op: alloc_mdl, key: p, fields: {bytes: \"%s * 2\"}}\n", bad[i]);
		cr_assert_eq(load(yaml, &m, err, sizeof(err)), -EINVAL, "%s", bad[i]);
		cr_assert(strstr(err, "is not a value"), "%s: %s", bad[i], err);
	}
}

/* Load the map files @yaml[0..n) (named map0.yaml, map1.yaml, ...) as one map. */
static int load_files(const char *const *yaml, size_t n, struct import_map **m, char *err,
		      size_t len)
{
	char path[4][256];
	const char *paths[4];

	cr_assert_leq(n, 4);
	for (size_t i = 0; i < n; i++) {
		FILE *f;

		snprintf(path[i], sizeof(path[i]), "%s/map%zu.yaml", tmp, i);
		f = fopen(path[i], "w");
		cr_assert_not_null(f);
		fputs(yaml[i], f);
		fclose(f);
		paths[i] = path[i];
	}
	err[0] = '\0';
	return import_map_load(paths, n, m, err, len);
}

Test(import, the_rules_of_one_map_for_a_class_are_tried_in_order)
{
	static const char *const yaml[] = {
		"rules:\n"
		"  - {event: cmd, op: alloc_mdl, key: seqno, where: {type: 0x101}, fields: {bytes: 4096}}\n"
		"  - {event: cmd, op: free_mdl, key: seqno, where: {type: 0x102}}\n"
		"  - {event: [dev, cmd], op: power, where: {name: gpu}, fields: {phys: 0, state: 3}}\n",
		/* a later map never takes a class the first one names, matched or not */
		"rules:\n"
		"  - {event: cmd, op: power, fields: {phys: 0, state: 0}}\n"
		"  - {event: other, op: power, fields: {phys: 0, state: 0}}\n",
	};
	struct import_map *m;
	struct wl_event out[2];
	char err[1024];
	size_t n;

	cr_assert_eq(load_files(yaml, 2, &m, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(FEED(m, "cmd", out, &n, IV("type", 0x101), IV("seqno", 7)), IMPORT_USED);
	cr_assert_eq(out[0].kind, WL_ALLOC_MDL);
	uint64_t id = out[0].v[WL_ID];
	/* the second rule's type: the free pairs with the allocation */
	cr_assert_eq(FEED(m, "cmd", out, &n, IV("type", 0x102), IV("seqno", 7)), IMPORT_USED);
	cr_assert_eq(out[0].kind, WL_FREE_MDL);
	cr_assert_eq(out[0].v[WL_ID], id);
	/* the third rule, which reads a string the others do not */
	cr_assert_eq(FEED(m, "cmd", out, &n, IV("type", 0x103), SV("name", "gpu")), IMPORT_USED);
	cr_assert_eq(out[0].kind, WL_POWER);
	cr_assert_eq(out[0].v[WL_ARG], 3);
	/* no rule of the first map matches: ignored, not the second map's */
	cr_assert_eq(FEED(m, "cmd", out, &n, IV("type", 0x103), SV("name", "nic")), IMPORT_IGNORED);
	cr_assert_eq(n, 0);
	cr_assert_eq(FEED(m, "other", out, &n), IMPORT_USED);
	cr_assert_eq(out[0].v[WL_ARG], 0);
	import_map_free(m);

	/* what one class's rules read together must fit a binding */
	cr_assert_eq(load("rules:\n"
			  "  - {event: c, op: free_mdl, key: a, where: {b: 1, c: 2, d: 3, e: 4}}\n"
			  "  - {event: c, op: free_mdl, key: f, where: {g: 1, h: 2, i: 3, j: 4}}\n",
			  &m, err, sizeof(err)), -EINVAL);
	cr_assert(strstr(err, "map.yaml:3:5:") &&
		  strstr(err, "naming 'c' read more than 8 payload fields together"), "%s", err);
}

Test(import, a_key_of_several_fields_and_a_condition_that_excludes)
{
	static const struct {
		const char *yaml, *where, *what;
	} bad[] = {
		{ "rules:\n  - {event: a, op: free_mdl, key: []}\n", "map.yaml:2:35:",
		  "a key needs at least one field" },
		{ "rules:\n  - {event: a, op: free_mdl, key: p, where: {x: {}}}\n", "map.yaml:2:49:",
		  "rules[0].where.x: expected a value or {not: VALUE}" },
		{ "rules:\n  - {event: a, op: free_mdl, key: [a, b, c, d, e]}\n", "map.yaml:2:48:",
		  "a key is at most 4 fields" },
		{ "rules:\n  - {event: a, op: free_mdl, key: [a, {b: 1}]}\n", "map.yaml:2:39:",
		  "rules[0].key[1]: expected a field name" },
		{ "rules:\n  - {event: a, op: free_mdl, key: p, where: {x: {nt: 1}}}\n", "map.yaml:2:50:",
		  "unknown key 'nt'" },
		{ "rules:\n  - {event: a, op: free_mdl, key: p, where: {x: {not: [1]}}}\n", "map.yaml:2:55:",
		  "rules[0].where.x.not: expected a value or {not: VALUE}" },
	};
	struct import_map *m;
	struct wl_event out[2];
	char err[1024];
	uint64_t id_a, id_b;
	size_t n;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cr_assert_eq(load(bad[i].yaml, &m, err, sizeof(err)), -EINVAL, "%zu: %s", i, bad[i].yaml);
		cr_assert(strstr(err, bad[i].where) && strstr(err, bad[i].what), "%zu: %s", i, err);
	}
	cr_assert_eq(load("rules:\n"
			  "  - event: map\n"
			  "    op: alloc_contiguous\n"
			  "    key: [device, dma_addr]\n"
			  "    where: {dma_addr: {not: 0xffffffffffffffff}, driver: {not: nic}}\n"
			  "    fields: {bytes: size}\n"
			  "  - {event: unmap, op: free_contiguous, key: [device, addr]}\n",
			  &m, err, sizeof(err)), 0, "%s", err);
	/* one address in two devices' address spaces: two objects */
	cr_assert_eq(FEED(m, "map", out, &n, SV("device", "0000:00:02.0"), IV("dma_addr", 0xfffff000),
			  IV("size", 4096), SV("driver", "gpu")), IMPORT_USED);
	cr_assert_eq(n, 1);
	id_a = out[0].v[WL_ID];
	cr_assert_eq(FEED(m, "map", out, &n, SV("device", "0000:00:03.0"), IV("dma_addr", 0xfffff000),
			  IV("size", 8192), SV("driver", "gpu")), IMPORT_USED);
	cr_assert_eq(n, 1, "the second device's mapping ended the first's");
	id_b = out[0].v[WL_ID];
	cr_assert_neq(id_a, id_b);
	cr_assert_eq(FEED(m, "unmap", out, &n, SV("device", "0000:00:03.0"), IV("addr", 0xfffff000)),
		     IMPORT_USED);
	cr_assert_eq(out[0].kind, WL_FREE_CONTIGUOUS);
	cr_assert_eq(out[0].v[WL_ID], id_b);
	cr_assert_eq(FEED(m, "unmap", out, &n, SV("device", "0000:00:03.0"), IV("addr", 0xfffff000)),
		     IMPORT_UNMATCHED);
	cr_assert_eq(FEED(m, "unmap", out, &n, SV("device", "0000:00:02.0"), IV("addr", 0xfffff000)),
		     IMPORT_USED);
	cr_assert_eq(out[0].v[WL_ID], id_a);
	/* excluded by value: a failed mapping's address, another driver */
	cr_assert_eq(FEED(m, "map", out, &n, SV("device", "0000:00:02.0"), IV("dma_addr", UINT64_MAX),
			  IV("size", 4096), SV("driver", "gpu")), IMPORT_IGNORED);
	cr_assert_eq(FEED(m, "map", out, &n, SV("device", "0000:00:02.0"), IV("dma_addr", 0x1000),
			  IV("size", 4096), SV("driver", "nic")), IMPORT_IGNORED);
	/* a condition on a field the event lacks does not pass, negated or not */
	cr_assert_eq(FEED(m, "map", out, &n, SV("device", "0000:00:02.0"), IV("dma_addr", 0x1000),
			  IV("size", 4096)), IMPORT_IGNORED);
	import_map_free(m);
}

/* ---- the shipped maps (traces/maps/) ----------------------------------- */

static const char *source_root(void)
{
	const char *root = getenv("GPUISO_SOURCE_ROOT");

	return root ? root : ".";
}

/* Load the shipped maps @names (file names in traces/maps/), in that order. */
static void load_shipped(const char *const *names, size_t n, struct import_map **m)
{
	char path[8][1024], err[2048] = "";
	const char *paths[8];

	cr_assert_leq(n, 8);
	for (size_t i = 0; i < n; i++) {
		snprintf(path[i], sizeof(path[i]), "%s/traces/maps/%s", source_root(), names[i]);
		paths[i] = path[i];
	}
	cr_assert_eq(import_map_load(paths, n, m, err, sizeof(err)), 0, "%s", err);
}

#define LOAD_SHIPPED(m, ...)                                                               \
	load_shipped((const char *const[]){ __VA_ARGS__ },                                 \
		     sizeof((const char *const[]){ __VA_ARGS__ }) / sizeof(const char *), m)

Test(import, every_shipped_map_loads)
{
	static const char *const expected[] = {
		"amdgpu.yaml",    "dma-fence.yaml",        "i915.yaml",
		"linux-dma.yaml", "linux-iommu.yaml",      "linux-page-alloc.yaml",
		"linux-rpm.yaml", "lttng-ust-libc.yaml",   "virtio-gpu.yaml",
	};
	enum { NEXPECTED = sizeof(expected) / sizeof(expected[0]) };
	char dir[1024], path[64][1100], err[4096] = "";
	const char *paths[64];
	bool seen[NEXPECTED] = { false };
	struct import_map *m;
	struct dirent *de;
	size_t n = 0;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s/traces/maps", source_root());
	d = opendir(dir);
	cr_assert_not_null(d, "%s: %s", dir, strerror(errno));
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);

		if (len < 5 || strcmp(de->d_name + len - 5, ".yaml"))
			continue;
		cr_assert_lt(n, 64);
		snprintf(path[n], sizeof(path[n]), "%s/%s", dir, de->d_name);
		paths[n] = path[n];
		cr_assert_eq(import_map_load(&paths[n], 1, &m, err, sizeof(err)), 0, "%s", err);
		import_map_free(m);
		for (size_t i = 0; i < NEXPECTED; i++)
			seen[i] |= !strcmp(de->d_name, expected[i]);
		n++;
	}
	closedir(d);
	for (size_t i = 0; i < NEXPECTED; i++)
		cr_expect(seen[i], "traces/maps/%s missing", expected[i]);
	/* and all of them at once, as several --map options give them */
	cr_assert_eq(import_map_load(paths, n, &m, err, sizeof(err)), 0, "%s", err);
	import_map_free(m);
}

/* The id of a created object, checking the event's kind and size. */
static uint64_t created(const struct wl_event *e, size_t n, enum wl_kind kind, uint64_t bytes)
{
	cr_assert_eq(n, 1);
	cr_assert_eq(e->kind, kind, "kind %u, not %u", e->kind, kind);
	cr_assert_eq(e->v[WL_BYTES], bytes);
	cr_assert_neq(e->v[WL_ID], 0);
	return e->v[WL_ID];
}

/* That @e ends (or uses) object @id with an event of @kind. */
static void ended(const struct wl_event *e, size_t n, enum wl_kind kind, uint64_t id)
{
	cr_assert_eq(n, 1);
	cr_assert_eq(e->kind, kind, "kind %u, not %u", e->kind, kind);
	cr_assert_eq(e->v[WL_ID], id);
}

Test(import, linux_dma_pairs_each_mapping_with_its_unmapping_per_device)
{
	struct import_map *m;
	struct wl_event out[2];
	uint64_t page, other, sg, coherent, pages, sgt;
	size_t n;

	LOAD_SHIPPED(&m, "linux-dma.yaml");
	/* dma_map_page ... dma_unmap_page, on the DMA address */
	cr_assert_eq(FEED(m, "dma:dma_map_page", out, &n, SV("device", "0000:00:02.0"),
			  IV("phys_addr", 0x12345000), IV("dma_addr", 0xfffff000), IV("size", 6000),
			  IV("dir", 1), IV("attrs", 0)), IMPORT_USED);
	page = created(out, n, WL_ALLOC_CONTIGUOUS, 6000);
	cr_assert_eq(out[0].v[WL_ARG], WL_CACHE_CACHED);
	/* another device's domain hands out the same address */
	cr_assert_eq(FEED(m, "dma:dma_map_page", out, &n, SV("device", "0000:00:03.0"),
			  IV("dma_addr", 0xfffff000), IV("size", 4096)), IMPORT_USED);
	other = created(out, n, WL_ALLOC_CONTIGUOUS, 4096);
	/* a failed mapping returns DMA_MAPPING_ERROR: not an object */
	cr_assert_eq(FEED(m, "dma:dma_map_page", out, &n, SV("device", "0000:00:02.0"),
			  IV("dma_addr", UINT64_MAX), IV("size", 4096)), IMPORT_IGNORED);
	cr_assert_eq(FEED(m, "dma:dma_unmap_page", out, &n, SV("device", "0000:00:02.0"),
			  IV("addr", 0xfffff000), IV("size", 6000)), IMPORT_USED);
	ended(out, n, WL_FREE_CONTIGUOUS, page);
	cr_assert_eq(FEED(m, "dma:dma_unmap_page", out, &n, SV("device", "0000:00:03.0"),
			  IV("addr", 0xfffff000), IV("size", 4096)), IMPORT_USED);
	ended(out, n, WL_FREE_CONTIGUOUS, other);

	/* dma_map_sg: the sum of its segments; dma_unmap_sg traces the physical addresses */
	cr_assert_eq(FEED(m, "dma:dma_map_sg", out, &n, SV("device", "0000:00:02.0"),
			  IV("phys_addrs[0]", 0x40000000), IV("dma_addrs[0]", 0xffff0000),
			  IV("lengths.sum", 65536)), IMPORT_USED);
	sg = created(out, n, WL_ALLOC_MDL, 65536);
	cr_assert_eq(FEED(m, "dma:dma_unmap_sg", out, &n, SV("device", "0000:00:02.0"),
			  IV("addrs[0]", 0xffff0000)), IMPORT_UNMATCHED);
	cr_assert_eq(FEED(m, "dma:dma_unmap_sg", out, &n, SV("device", "0000:00:02.0"),
			  IV("addrs[0]", 0x40000000)), IMPORT_USED);
	ended(out, n, WL_FREE_MDL, sg);

	/* coherent memory; a failed allocation has no CPU address */
	cr_assert_eq(FEED(m, "dma:dma_alloc", out, &n, SV("device", "0000:00:02.0"),
			  IV("virt_addr", 0), IV("dma_addr", 0), IV("size", 8192)), IMPORT_IGNORED);
	cr_assert_eq(FEED(m, "dma:dma_alloc", out, &n, SV("device", "0000:00:02.0"),
			  IV("virt_addr", 0xffff888001000000), IV("dma_addr", 0xffffe000),
			  IV("size", 8192)), IMPORT_USED);
	coherent = created(out, n, WL_ALLOC_CONTIGUOUS, 8192);
	cr_assert_eq(FEED(m, "dma:dma_alloc_pages", out, &n, SV("device", "0000:00:02.0"),
			  IV("virt_addr", 0xffff888002000000), IV("dma_addr", 0xffffc000),
			  IV("size", 16384)), IMPORT_USED);
	pages = created(out, n, WL_ALLOC_CONTIGUOUS, 16384);
	cr_assert_eq(FEED(m, "dma:dma_alloc_sgt", out, &n, SV("device", "0000:00:02.0"),
			  IV("phys_addrs[0]", 0x50000000), IV("dma_addr", 0xfff00000),
			  IV("size", 1 << 20)), IMPORT_USED);
	sgt = created(out, n, WL_ALLOC_MDL, 1 << 20);
	cr_assert_eq(FEED(m, "dma:dma_free", out, &n, SV("device", "0000:00:02.0"),
			  IV("virt_addr", 0xffff888001000000), IV("dma_addr", 0xffffe000),
			  IV("size", 8192)), IMPORT_USED);
	ended(out, n, WL_FREE_CONTIGUOUS, coherent);
	cr_assert_eq(FEED(m, "dma:dma_free_pages", out, &n, SV("device", "0000:00:02.0"),
			  IV("dma_addr", 0xffffc000), IV("size", 16384)), IMPORT_USED);
	ended(out, n, WL_FREE_CONTIGUOUS, pages);
	cr_assert_eq(FEED(m, "dma:dma_free_sgt", out, &n, SV("device", "0000:00:02.0"),
			  IV("dma_addr", 0xfff00000), IV("size", 1 << 20)), IMPORT_USED);
	ended(out, n, WL_FREE_MDL, sgt);
	import_map_free(m);
}

Test(import, linux_iommu_pairs_on_the_iova_and_faults_say_read_or_write)
{
	struct import_map *m;
	struct wl_event out[2];
	uint64_t id;
	size_t n;

	LOAD_SHIPPED(&m, "linux-iommu.yaml");
	cr_assert_eq(FEED(m, "iommu:map", out, &n, IV("iova", 0xfffe0000), IV("paddr", 0x1000000),
			  IV("size", 131072)), IMPORT_USED);
	id = created(out, n, WL_ALLOC_CONTIGUOUS, 131072);
	cr_assert_eq(FEED(m, "iommu:io_page_fault", out, &n, SV("device", "0000:00:02.0"),
			  SV("driver", "amdgpu"), IV("iova", 0xfffe0000), IV("flags", 0)), IMPORT_USED);
	ended(out, n, WL_DMA, id);
	cr_assert_eq(out[0].v[WL_ARG], 0, "IOMMU_FAULT_READ is a read");
	cr_assert_eq(FEED(m, "iommu:io_page_fault", out, &n, IV("iova", 0xfffe0000), IV("flags", 1)),
		     IMPORT_USED);
	cr_assert_eq(out[0].v[WL_ARG], 1, "IOMMU_FAULT_WRITE is a write");
	cr_assert_eq(FEED(m, "iommu:unmap", out, &n, IV("iova", 0xfffe0000), IV("size", 131072),
			  IV("unmapped_size", 131072)), IMPORT_USED);
	ended(out, n, WL_FREE_CONTIGUOUS, id);
	cr_assert_eq(FEED(m, "iommu:unmap", out, &n, IV("iova", 0xfffe0000), IV("size", 4096),
			  IV("unmapped_size", 0)), IMPORT_UNMATCHED);
	import_map_free(m);
}

Test(import, amdgpu_bos_live_in_their_placement_until_ttm_frees_them)
{
	struct import_map *m;
	struct wl_event out[2];
	uint64_t vram, gtt;
	size_t n;

	LOAD_SHIPPED(&m, "amdgpu.yaml");
	cr_assert_eq(FEED(m, "amdgpu:amdgpu_bo_create", out, &n, IV("bo", 0xffff888100000000),
			  IV("pages", 256), IV("type", 2), IV("prefer", 4), IV("allow", 6)), IMPORT_USED);
	vram = created(out, n, WL_ALLOC_CREATE, 1 << 20);
	cr_assert_eq(out[0].v[WL_ARG], WL_SEG_VRAM);
	cr_assert_eq(FEED(m, "amdgpu:amdgpu_bo_create", out, &n, IV("bo", 0xffff888100001000),
			  IV("pages", 1), IV("type", 1)), IMPORT_USED);
	gtt = created(out, n, WL_ALLOC_CREATE, 4096);
	cr_assert_eq(out[0].v[WL_ARG], WL_SEG_APERTURE);
	cr_assert_eq(out[0].v[WL_FLAGS], WL_ALLOC_ACCESSED_PHYSICALLY);
	cr_assert_eq(FEED(m, "amdgpu:amdgpu_bo_create", out, &n, IV("bo", 0xffff888100002000),
			  IV("pages", 2), IV("type", 0)), IMPORT_USED);
	created(out, n, WL_ALLOC_CREATE, 8192);
	cr_assert_eq(out[0].v[WL_ARG], WL_SEG_SYSTEM);
	/* on-chip GDS is no memory */
	cr_assert_eq(FEED(m, "amdgpu:amdgpu_bo_create", out, &n, IV("bo", 0xffff888100003000),
			  IV("pages", 1), IV("type", 3)), IMPORT_IGNORED);
	/* an eviction is not a release */
	cr_assert_eq(FEED(m, "amdgpu:amdgpu_bo_move", out, &n, IV("bo", 0xffff888100000000),
			  IV("bo_size", 1 << 20), IV("new_placement", 1), IV("old_placement", 2)),
		     IMPORT_IGNORED);
	cr_assert_eq(FEED(m, "amdgpu:amdgpu_bo_move", out, &n, IV("bo", 0xffff888100000000),
			  IV("bo_size", 1 << 20), IV("new_placement", 0xffffffff),
			  IV("old_placement", 2)), IMPORT_USED);
	ended(out, n, WL_ALLOC_DESTROY, vram);
	cr_assert_eq(FEED(m, "amdgpu:amdgpu_bo_move", out, &n, IV("bo", 0xffff888100001000),
			  IV("new_placement", 0xffffffff), IV("old_placement", 1)), IMPORT_USED);
	ended(out, n, WL_ALLOC_DESTROY, gtt);
	/* a second release of the same BO (its memory already gone) */
	cr_assert_eq(FEED(m, "amdgpu:amdgpu_bo_move", out, &n, IV("bo", 0xffff888100001000),
			  IV("new_placement", 0xffffffff), IV("old_placement", 0xffffffff)),
		     IMPORT_UNMATCHED);
	import_map_free(m);
}

Test(import, i915_objects_are_driver_mdls_mapped_per_bound_vma)
{
	struct import_map *m;
	struct wl_event out[2];
	uint64_t obj, ggtt, ppgtt;
	size_t n;

	LOAD_SHIPPED(&m, "i915.yaml");
	cr_assert_eq(FEED(m, "i915:i915_gem_object_create", out, &n, IV("obj", 0xffff888200000000),
			  IV("size", 65536)), IMPORT_USED);
	obj = created(out, n, WL_DRIVER_MDL_CREATE, 65536);
	cr_assert_eq(FEED(m, "i915:i915_vma_bind", out, &n, IV("obj", 0xffff888200000000),
			  IV("vm", 0xffff888300000000), IV("offset", 0x100000), IV("size", 65536),
			  IV("flags", 0x400)), IMPORT_USED);
	cr_assert_eq(n, 1);
	cr_assert_eq(out[0].kind, WL_MAP_MDL);
	cr_assert_eq(out[0].v[WL_REF], obj);
	ggtt = out[0].v[WL_ID];
	cr_assert_eq(FEED(m, "i915:i915_vma_bind", out, &n, IV("obj", 0xffff888200000000),
			  IV("vm", 0xffff888400000000), IV("offset", 0x100000), IV("size", 65536),
			  IV("flags", 0x800)), IMPORT_USED);
	cr_assert_eq(n, 1, "a bind in another address space ended the first");
	ppgtt = out[0].v[WL_ID];
	cr_assert_neq(ppgtt, ggtt);
	cr_assert_eq(FEED(m, "i915:i915_vma_unbind", out, &n, IV("obj", 0xffff888200000000),
			  IV("vm", 0xffff888300000000), IV("offset", 0x100000), IV("size", 65536)),
		     IMPORT_USED);
	ended(out, n, WL_UNMAP_MDL, ggtt);
	cr_assert_eq(FEED(m, "i915:i915_vma_unbind", out, &n, IV("obj", 0xffff888200000000),
			  IV("vm", 0xffff888400000000), IV("offset", 0x100000)), IMPORT_USED);
	ended(out, n, WL_UNMAP_MDL, ppgtt);
	cr_assert_eq(FEED(m, "i915:i915_gem_object_destroy", out, &n, IV("obj", 0xffff888200000000)),
		     IMPORT_USED);
	ended(out, n, WL_DRIVER_MDL_FREE, obj);
	/* an object created before the trace began */
	cr_assert_eq(FEED(m, "i915:i915_vma_bind", out, &n, IV("obj", 0xffff888200010000),
			  IV("vm", 0xffff888300000000), IV("offset", 0x200000)), IMPORT_UNMATCHED);
	import_map_free(m);
}

Test(import, dma_fences_live_from_their_numbering_to_their_release)
{
	struct import_map *m;
	struct wl_event out[2];
	uint64_t hw, other, virtio;
	size_t n;

	LOAD_SHIPPED(&m, "dma-fence.yaml");
	cr_assert_eq(FEED(m, "dma_fence:dma_fence_init", out, &n, SV("driver", "amdgpu"),
			  SV("timeline", "gfx_0.0.0"), IV("context", 5), IV("seqno", 9)), IMPORT_USED);
	cr_assert_eq(n, 1);
	cr_assert_eq(out[0].kind, WL_FENCE_CREATE);
	hw = out[0].v[WL_ID];
	/* another timeline's fence of the same number */
	cr_assert_eq(FEED(m, "dma_fence:dma_fence_init", out, &n, SV("driver", "drm_sched"),
			  IV("context", 6), IV("seqno", 9)), IMPORT_USED);
	cr_assert_eq(n, 1);
	other = out[0].v[WL_ID];
	cr_assert_neq(other, hw);
	/* virtio-gpu numbers its fences when it emits them */
	cr_assert_eq(FEED(m, "dma_fence:dma_fence_init", out, &n, SV("driver", "virtio_gpu"),
			  IV("context", 7), IV("seqno", 0)), IMPORT_IGNORED);
	cr_assert_eq(FEED(m, "dma_fence:dma_fence_emit", out, &n, SV("driver", "virtio_gpu"),
			  IV("context", 7), IV("seqno", 3)), IMPORT_USED);
	cr_assert_eq(n, 1);
	cr_assert_eq(out[0].kind, WL_FENCE_CREATE);
	virtio = out[0].v[WL_ID];
	cr_assert_eq(FEED(m, "dma_fence:dma_fence_emit", out, &n, SV("driver", "qxl"),
			  IV("context", 8), IV("seqno", 3)), IMPORT_IGNORED);
	cr_assert_eq(FEED(m, "dma_fence:dma_fence_destroy", out, &n, SV("driver", "amdgpu"),
			  IV("context", 5), IV("seqno", 9)), IMPORT_USED);
	ended(out, n, WL_FENCE_DESTROY, hw);
	cr_assert_eq(FEED(m, "dma_fence:dma_fence_destroy", out, &n, SV("driver", "virtio_gpu"),
			  IV("context", 7), IV("seqno", 3)), IMPORT_USED);
	ended(out, n, WL_FENCE_DESTROY, virtio);
	cr_assert_eq(FEED(m, "dma_fence:dma_fence_destroy", out, &n, IV("context", 6),
			  IV("seqno", 9)), IMPORT_USED);
	ended(out, n, WL_FENCE_DESTROY, other);
	import_map_free(m);
}

Test(import, virtio_gpu_control_commands_live_until_their_response)
{
	struct import_map *m;
	struct wl_event out[2];
	uint64_t create, flush;
	size_t n;

	LOAD_SHIPPED(&m, "virtio-gpu.yaml");
	cr_assert_eq(FEED(m, "virtio_gpu:virtio_gpu_cmd_queue", out, &n, IV("dev", 0), IV("vq", 0),
			  SV("name", "control"), IV("type", 0x101), IV("seqno", 1)), IMPORT_USED);
	cr_assert_eq(n, 1);
	cr_assert_eq(out[0].kind, WL_FENCE_CREATE);
	create = out[0].v[WL_ID];
	cr_assert_eq(FEED(m, "virtio_gpu:virtio_gpu_cmd_queue", out, &n, IV("dev", 0), IV("vq", 0),
			  SV("name", "control"), IV("type", 0x104), IV("seqno", 2)), IMPORT_USED);
	flush = out[0].v[WL_ID];
	/* the cursor queue numbers its own commands, which have no response buffer */
	cr_assert_eq(FEED(m, "virtio_gpu:virtio_gpu_cmd_queue", out, &n, IV("dev", 0), IV("vq", 1),
			  SV("name", "cursor"), IV("type", 0x300), IV("seqno", 1)), IMPORT_IGNORED);
	cr_assert_eq(FEED(m, "virtio_gpu:virtio_gpu_cmd_response", out, &n, IV("dev", 0), IV("vq", 1),
			  SV("name", "cursor"), IV("type", 0x1100), IV("seqno", 1)), IMPORT_IGNORED);
	/* responses come back in any order */
	cr_assert_eq(FEED(m, "virtio_gpu:virtio_gpu_cmd_response", out, &n, IV("dev", 0), IV("vq", 0),
			  SV("name", "control"), IV("type", 0x1100), IV("seqno", 2)), IMPORT_USED);
	ended(out, n, WL_FENCE_DESTROY, flush);
	cr_assert_eq(FEED(m, "virtio_gpu:virtio_gpu_cmd_response", out, &n, IV("dev", 0), IV("vq", 0),
			  SV("name", "control"), IV("type", 0x1100), IV("seqno", 1)), IMPORT_USED);
	ended(out, n, WL_FENCE_DESTROY, create);
	import_map_free(m);
}

Test(import, the_kernel_maps_combine_on_one_trace)
{
	struct import_map *m;
	struct wl_event out[2];
	uint64_t sg;
	size_t n;

	/* each takes its own classes; a later map never takes an earlier one's */
	LOAD_SHIPPED(&m, "linux-dma.yaml", "virtio-gpu.yaml", "dma-fence.yaml", "linux-iommu.yaml");
	cr_assert_eq(FEED(m, "dma:dma_map_sg", out, &n, SV("device", "virtio0"),
			  IV("phys_addrs[0]", 0x40000000), IV("lengths.sum", 8192)), IMPORT_USED);
	sg = created(out, n, WL_ALLOC_MDL, 8192);
	cr_assert_eq(FEED(m, "virtio_gpu:virtio_gpu_cmd_queue", out, &n, IV("dev", 0),
			  SV("name", "control"), IV("seqno", 1)), IMPORT_USED);
	cr_assert_eq(out[0].kind, WL_FENCE_CREATE);
	cr_assert_eq(FEED(m, "dma_fence:dma_fence_emit", out, &n, SV("driver", "virtio_gpu"),
			  IV("context", 7), IV("seqno", 1)), IMPORT_USED);
	cr_assert_eq(out[0].kind, WL_FENCE_CREATE);
	cr_assert_eq(FEED(m, "iommu:map", out, &n, IV("iova", 0xfffff000), IV("size", 4096)),
		     IMPORT_USED);
	created(out, n, WL_ALLOC_CONTIGUOUS, 4096);
	cr_assert_eq(FEED(m, "dma:dma_unmap_sg", out, &n, SV("device", "virtio0"),
			  IV("addrs[0]", 0x40000000)), IMPORT_USED);
	ended(out, n, WL_FREE_MDL, sg);
	import_map_free(m);
}

/*
 * `span`: an unmap ends every object it finishes, several at once (more
 * than import_event() returns: import_next() has the rest), and one it
 * covers in part only once the rest is unmapped too.
 */
Test(import, a_span_ends_what_it_finishes_and_waits_for_the_rest)
{
	struct import_map *m;
	struct wl_event out[2], e;
	uint64_t ids[3], big;
	size_t n;

	LOAD_SHIPPED(&m, "linux-iommu.yaml");
	/* three runs of one scatter list, unmapped in one call */
	for (int i = 0; i < 3; i++) {
		cr_assert_eq(FEED(m, "iommu:map", out, &n, IV("iova", 0x100000 + 0x1000 * i),
				  IV("paddr", 0x8000000 + 0x10000 * i), IV("size", 4096)), IMPORT_USED);
		ids[i] = created(out, n, WL_ALLOC_CONTIGUOUS, 4096);
	}
	cr_assert_eq(FEED(m, "iommu:unmap", out, &n, IV("iova", 0x100000), IV("size", 0x3000),
			  IV("unmapped_size", 0x3000)), IMPORT_USED);
	cr_assert_eq(n, 2);
	ended(out, 1, WL_FREE_CONTIGUOUS, ids[0]);
	ended(out + 1, 1, WL_FREE_CONTIGUOUS, ids[1]);
	cr_assert(import_next(m, &e));
	ended(&e, 1, WL_FREE_CONTIGUOUS, ids[2]);
	cr_assert(!import_next(m, &e));
	/* one map unmapped page by page: it ends with its last page */
	cr_assert_eq(FEED(m, "iommu:map", out, &n, IV("iova", 0), IV("paddr", 0x5ea000),
			  IV("size", 8192)), IMPORT_USED);
	big = created(out, n, WL_ALLOC_CONTIGUOUS, 8192);
	cr_assert_eq(FEED(m, "iommu:unmap", out, &n, IV("iova", 0), IV("size", 4096),
			  IV("unmapped_size", 4096)), IMPORT_USED);
	cr_assert_eq(n, 0, "half of it is still mapped");
	cr_assert_eq(FEED(m, "iommu:unmap", out, &n, IV("iova", 0x1000), IV("size", 4096),
			  IV("unmapped_size", 4096)), IMPORT_USED);
	ended(out, n, WL_FREE_CONTIGUOUS, big);
	/* an unmap of nothing mapped, and of nothing at all */
	cr_assert_eq(FEED(m, "iommu:unmap", out, &n, IV("iova", 0x1000), IV("size", 4096),
			  IV("unmapped_size", 4096)), IMPORT_UNMATCHED);
	cr_assert_eq(FEED(m, "iommu:map", out, &n, IV("iova", 0x200000), IV("paddr", 0),
			  IV("size", 4096)), IMPORT_USED);
	cr_assert_eq(FEED(m, "iommu:unmap", out, &n, IV("iova", 0x200000), IV("size", 4096),
			  IV("unmapped_size", 0)), IMPORT_UNMATCHED);
	import_map_free(m);
}

Test(import, a_span_is_for_an_end_keyed_on_an_address)
{
	static const struct { const char *yaml, *want; } bad[] = {
		{ "rules:\n  - event: a\n    op: alloc_contiguous\n    key: k\n    span: n\n"
		  "    fields: {bytes: n}\n", "'span' is for a free or an unmap" },
		{ "rules:\n  - event: a\n    op: free_contiguous\n    key: [k, d]\n    span: n\n",
		  "the key is one field, an address" },
		{ "rules:\n  - event: a\n    op: pressure\n    add: n\n    span: n\n",
		  "a pressure rule takes 'add' or 'sub', not 'span'" },
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct import_map *m = NULL;
		char err[1024];

		cr_assert_eq(load(bad[i].yaml, &m, err, sizeof(err)), -EINVAL, "%s", bad[i].yaml);
		cr_assert(strstr(err, bad[i].want) && strstr(err, "map.yaml:"), "%s", err);
	}
}
