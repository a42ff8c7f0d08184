/* SPDX-License-Identifier: MIT */
/*
 * The fields of YAML documents (common/yaml_field.c): keys are matched
 * against the known ones; scalars are strict; sequences are walked with
 * "NAME[i]" names; each error at the right 1-based position.
 */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <errno.h>
#include <string.h>

#include "yaml_files.h"

TestSuite(yaml_field, .init = make_dir, .fini = remove_dir);

/* ---- keys -------------------------------------------------------------- */

Test(yaml_field, fields_found_and_named)
{
	static const char *const top[] = { "a", "outer", "absent" };
	static const char *const inner[] = { "x", "y" };
	struct yaml_doc *d = open_text("f.yaml", "a: 1\nouter:\n  y: 2\n");
	struct yaml_field f[3], g[2];
	uint64_t v = 0;

	top_fields(d, top, 3, f);
	cr_expect(not(eq(ptr, f[0].key, NULL)));
	cr_expect(eq(str, f[0].name, "a"));
	cr_expect(eq(str, f[1].name, "outer"));
	cr_expect(eq(ptr, f[2].key, NULL));
	cr_expect(eq(ptr, f[2].val, NULL));
	cr_assert(yaml_fields(d, f[1].val, f[1].key, f[1].name, inner, 2, g));
	cr_expect(eq(ptr, g[0].key, NULL));
	cr_expect(eq(str, g[0].name, "outer.x"));
	cr_expect(eq(str, g[1].name, "outer.y"));
	cr_expect(yaml_u64(d, &g[1], &v));
	cr_expect(eq(u64, v, 2));
	close_expecting(d, NULL, 0);
}

Test(yaml_field, unknown_key_lists_known_keys)
{
	static const char *const top[] = { "alpha", "outer" };
	static const char *const inner[] = { "x", "y", "z" };
	static const char *const want[] = {
		"3:1: error: top level: unknown key 'gamma' (expected one of: alpha, outer)",
		"5:3: error: outer: unknown key 'w' (expected one of: x, y, z)",
	};
	struct yaml_doc *d = open_text("unknown.yaml", "alpha: 1\nouter:\ngamma: 3\n");
	struct yaml_doc *e;
	struct yaml_field f[2], g[3];

	top_fields(d, top, 2, f);
	cr_expect(not(eq(ptr, f[0].key, NULL)), "known keys are still filled");
	close_expecting(d, want, 1);

	e = open_text("unknown2.yaml", "alpha: 1\nouter:\n  x: 1\n  y: 2\n  w: 3\n");
	top_fields(e, top, 2, f);
	cr_assert(yaml_fields(e, f[1].val, f[1].key, f[1].name, inner, 3, g));
	cr_expect(not(eq(ptr, g[1].key, NULL)));
	close_expecting(e, want + 1, 1);
}

Test(yaml_field, not_a_mapping)
{
	static const char *const names[] = { "a" };
	static const char *const want[] = {
		"1:1: error: top level: expected a mapping, got a sequence",
		"2:6: error: m: expected a mapping, got a scalar",
		"3:1: error: e: expected a mapping, got null",
	};
	static const char *const top[] = { "m", "e" };
	struct yaml_doc *d = open_text("seq.yaml", "- a\n- b\n");
	struct yaml_field f[2], g[1];

	cr_expect(not(yaml_fields(d, yaml_root(d), NULL, "", names, 1, g)));
	close_expecting(d, want, 1);

	/* An empty value has no position of its own: the error points at its key. */
	d = open_text("scalar.yaml", "# m is not a mapping\nm:   5\ne:\n");
	top_fields(d, top, 2, f);
	cr_expect(not(yaml_fields(d, f[0].val, f[0].key, f[0].name, names, 1, g)));
	cr_expect(not(yaml_fields(d, f[1].val, f[1].key, f[1].name, names, 1, g)));
	close_expecting(d, want + 1, 2);
}

/* ---- scalars ----------------------------------------------------------- */

Test(yaml_field, good_scalars)
{
	static const char *const names[] = { "i", "h", "u", "s", "t", "fa", "str", "q" };
	struct yaml_doc *d = open_text("good.yaml", "i: 42\nh: 0x10\nu: 4294967295\ns: 4KiB\n"
						    "t: true\nfa: false\nstr: hello\nq: \"\"\n");
	struct yaml_field f[8];
	uint64_t v = 0;
	uint32_t w = 0;
	bool b = false;

	top_fields(d, names, 8, f);
	cr_expect(yaml_u64(d, &f[0], &v));
	cr_expect(eq(u64, v, 42));
	cr_expect(yaml_u64(d, &f[1], &v));
	cr_expect(eq(u64, v, 16));
	cr_expect(yaml_u32(d, &f[2], &w));
	cr_expect(eq(u32, w, UINT32_MAX));
	cr_expect(yaml_size(d, &f[3], &v));
	cr_expect(eq(u64, v, 4096));
	cr_expect(yaml_bool(d, &f[4], &b));
	cr_expect(b);
	cr_expect(yaml_bool(d, &f[5], &b));
	cr_expect(not(b));
	cr_expect(eq(str, (char *)yaml_str(d, &f[6], NULL), "hello"));
	cr_expect(eq(str, (char *)yaml_str(d, &f[7], "a name"), ""),
		  "a quoted empty string is text");
	close_expecting(d, NULL, 0);
}

Test(yaml_field, wrong_types)
{
	static const char *const names[] = { "n", "s", "b", "z", "t", "mode" };
	static const char *const want[] = {
		"1:4: error: n: expected an integer, got a mapping",
		"2:4: error: s: expected a size, got a sequence",
		"3:1: error: b: expected true or false, got null",
		"4:4: error: z: expected a size, got null",
		/* A block sequence starts at its first "-", a block mapping at its first key. */
		"6:3: error: t: expected a string, got a sequence",
		"8:5: error: mode: expected fast or slow, got a mapping",
	};
	struct yaml_doc *d = open_text("types.yaml", "n: {a: 1}\ns: [1, 2]\nb:\nz: ~\nt:\n"
						     "  - x\nmode:\n    k: v\n");
	struct yaml_field f[6];
	uint64_t v = 7;
	bool b = true;

	top_fields(d, names, 6, f);
	cr_expect(not(yaml_u64(d, &f[0], &v)));
	cr_expect(not(yaml_size(d, &f[1], &v)));
	cr_expect(not(yaml_bool(d, &f[2], &b)));
	cr_expect(not(yaml_size(d, &f[3], &v)));
	cr_expect(eq(ptr, (void *)yaml_str(d, &f[4], NULL), NULL));
	cr_expect(eq(ptr, (void *)yaml_str(d, &f[5], "fast or slow"), NULL));
	cr_expect(eq(u64, v, 7), "untouched on failure");
	cr_expect(b, "untouched on failure");
	close_expecting(d, want, 6);
}

Test(yaml_field, bad_values)
{
	static const char *const names[] = { "i", "big", "u", "sz", "szbig", "flag", "neg" };
	static const char *const want[] = {
		"1:4: error: i: invalid integer '12x' (expected decimal or 0x hex)",
		"2:6: error: big: integer '18446744073709551616' does not fit in 64 bits",
		"3:5: error: u: 4294967296 is larger than 4294967295",
		"4:6: error: sz: invalid size '8GB' (expected an integer, 0x hex, or an integer with B, KiB, MiB, GiB or TiB)",
		"5:10: error: szbig: size '16777216TiB' does not fit in 64 bits",
		"6:9: error: flag: expected true or false, got 'yes'",
		"7:7: error: neg: invalid integer '-1' (expected decimal or 0x hex)",
	};
	struct yaml_doc *d = open_text("values.yaml",
				       "i: 12x\nbig: 18446744073709551616\nu:  4294967296\n"
				       "sz:  8GB\nszbig:   16777216TiB\nflag:   yes\nneg:  -1\n");
	struct yaml_field f[7];
	uint64_t v = 7;
	uint32_t w = 7;
	bool b = true;

	top_fields(d, names, 7, f);
	cr_expect(not(yaml_u64(d, &f[0], &v)));
	cr_expect(not(yaml_u64(d, &f[1], &v)));
	cr_expect(not(yaml_u32(d, &f[2], &w)));
	cr_expect(not(yaml_size(d, &f[3], &v)));
	cr_expect(not(yaml_size(d, &f[4], &v)));
	cr_expect(not(yaml_bool(d, &f[5], &b)));
	cr_expect(not(yaml_u64(d, &f[6], &v)));
	cr_expect(eq(u64, v, 7));
	cr_expect(eq(u32, w, 7));
	cr_expect(b);
	close_expecting(d, want, 7);
}

Test(yaml_field, field_error_and_error)
{
	static const char *const names[] = { "k", "e" };
	static const char *const want[] = {
		"1:1: error: somewhere: 7",
		"2:4: error: k: too small (3)",
		"3:1: error: e: must not be empty",
	};
	struct yaml_doc *d = open_text("msgs.yaml", "# comment\nk: 3\ne:\n");
	struct yaml_field f[2];

	top_fields(d, names, 2, f);
	yaml_field_error(d, &f[1], "must not be empty");
	yaml_field_error(d, &f[0], "too small (%d)", 3);
	/* No node and no fallback: the top of the file. */
	yaml_error(d, NULL, NULL, "somewhere: %d", 7);
	close_expecting(d, want, 3);
}

/* ---- sequences --------------------------------------------------------- */

Test(yaml_field, items_named_and_counted)
{
	static const char *const top[] = { "list", "outer" };
	static const char *const inner[] = { "block" };
	static const char *const want_names[] = { "outer.block[0]", "outer.block[1]" };
	static const char *const want_items[] = { "x", "y", "z" };
	struct yaml_doc *d = open_text("items.yaml", "list: [x, y, z]\nouter:\n  block:\n"
						     "    - 1\n    - 2\n");
	char name[YAML_NAME_LEN];
	struct yaml_field f[2], g[1];
	struct fy_node *item;
	void *it = NULL;
	size_t i = 0, seen = 0;

	top_fields(d, top, 2, f);
	cr_expect(eq(int, yaml_count(d, &f[0]), 3));
	while ((item = yaml_items(d, &f[0], &it, &i, name))) {
		char want[16];

		cr_assert(lt(sz, seen, 3));
		cr_expect(eq(sz, i, seen));
		snprintf(want, sizeof(want), "list[%zu]", seen);
		cr_expect(eq(str, name, want));
		cr_expect(eq(str, (char *)fy_node_get_scalar0(item), (char *)want_items[seen]));
		seen++;
	}
	cr_expect(eq(sz, seen, 3));

	cr_assert(yaml_fields(d, f[1].val, f[1].key, f[1].name, inner, 1, g));
	cr_expect(eq(int, yaml_count(d, &g[0]), 2));
	it = NULL;
	i = 0;
	seen = 0;
	while ((item = yaml_items(d, &g[0], &it, &i, name))) {
		cr_assert(lt(sz, seen, 2));
		cr_expect(eq(str, name, (char *)want_names[seen]));
		seen++;
	}
	cr_expect(eq(sz, seen, 2));
	close_expecting(d, NULL, 0);
}

Test(yaml_field, items_of_non_sequence)
{
	static const char *const names[] = { "s", "m", "e", "empty" };
	static const char *const want[] = {
		"1:4: error: s: expected a sequence, got a scalar",
		"2:4: error: m: expected a sequence, got a mapping",
		"3:1: error: e: expected a sequence, got null",
	};
	struct yaml_doc *d = open_text("nonseq.yaml", "s: 5\nm: {a: 1}\ne:\nempty: []\n");
	char name[YAML_NAME_LEN];
	struct yaml_field f[4];
	void *it = NULL;
	size_t i = 0;

	top_fields(d, names, 4, f);
	/* Reported once, by whichever is called. */
	cr_expect(eq(ptr, yaml_items(d, &f[0], &it, &i, name), NULL));
	cr_expect(eq(int, yaml_count(d, &f[1]), -1));
	it = NULL;
	cr_expect(eq(ptr, yaml_items(d, &f[2], &it, &i, name), NULL));
	cr_expect(eq(int, yaml_count(d, &f[3]), 0));
	it = NULL;
	cr_expect(eq(ptr, yaml_items(d, &f[3], &it, &i, name), NULL), "an empty sequence is fine");
	close_expecting(d, want, 3);
}
