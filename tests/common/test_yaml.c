/* SPDX-License-Identifier: MIT */
/*
 * Reading YAML input files (common/yaml.h): errors come out as
 * "FILE:LINE:COL: error: ..." lines at the right 1-based position, sorted by
 * position; keys are matched against the known ones; scalars are strict;
 * sequences are walked with "NAME[i]" names. Each test writes its small
 * files into a fresh mkdtemp() directory.
 */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/yaml.h"

/* The test's directory and the files written into it, removed at the end. */
static char dir[64];
static char files[8][128];
static size_t nfiles;

static void make_dir(void)
{
	strcpy(dir, "/tmp/gpuiso-yaml-XXXXXX");
	cr_assert(not(eq(ptr, mkdtemp(dir), NULL)), "mkdtemp: %s", strerror(errno));
}

static void remove_dir(void)
{
	size_t i;

	for (i = 0; i < nfiles; i++)
		unlink(files[i]);
	rmdir(dir);
}

TestSuite(yaml, .init = make_dir, .fini = remove_dir);

/* Write @text to @name in the test's directory. Return: the file's path. */
static const char *write_file(const char *name, const char *text)
{
	char *path;
	FILE *f;

	cr_assert(lt(sz, nfiles, sizeof(files) / sizeof(files[0])));
	path = files[nfiles++];
	snprintf(path, sizeof(files[0]), "%s/%s", dir, name);
	f = fopen(path, "w");
	cr_assert(not(eq(ptr, f, NULL)), "%s: %s", path, strerror(errno));
	cr_assert(eq(int, fputs(text, f) < 0, 0));
	cr_assert(eq(int, fclose(f), 0));
	return path;
}

/* Open @text, written to @name, which must parse. */
static struct yaml_doc *open_text(const char *name, const char *text)
{
	struct yaml_doc *d = NULL;
	const char *path = write_file(name, text);

	cr_assert(eq(int, yaml_open(path, &d), 0), "%s", path);
	cr_assert(not(eq(ptr, d, NULL)));
	cr_assert(eq(str, (char *)yaml_path(d), (char *)path));
	return d;
}

/* Join "PATH:LINE:COL: error: MSG\n" lines of the doc's file, in order. */
static void want_lines(char *out, size_t len, const char *path, const char *const *lines,
		       size_t n)
{
	size_t i, used = 0;

	out[0] = '\0';
	for (i = 0; i < n; i++)
		used += (size_t)snprintf(out + used, len - used, "%s:%s\n", path, lines[i]);
	cr_assert(lt(sz, used, len));
}

/* Close @d, which must have reported exactly @lines ("LINE:COL: error: ..."). */
static void close_expecting(struct yaml_doc *d, const char *const *lines, size_t n)
{
	char path[256], want[4096], err[4096];

	snprintf(path, sizeof(path), "%s", yaml_path(d));
	want_lines(want, sizeof(want), path, lines, n);
	cr_expect(eq(int, yaml_failed(d), n > 0));
	cr_expect(eq(int, yaml_close(d, err, sizeof(err)), n ? -EINVAL : 0));
	cr_expect(eq(str, err, want));
}

/* Fields of the top-level mapping of @d, which must be one. */
static void top_fields(struct yaml_doc *d, const char *const *names, size_t n,
		       struct yaml_field *f)
{
	cr_assert(yaml_fields(d, yaml_root(d), NULL, "", names, n, f));
}

/* ---- keys -------------------------------------------------------------- */

Test(yaml, fields_found_and_named)
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

Test(yaml, unknown_key_lists_known_keys)
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

Test(yaml, not_a_mapping)
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

Test(yaml, good_scalars)
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

Test(yaml, wrong_types)
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

Test(yaml, bad_values)
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

Test(yaml, field_error_and_error)
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

Test(yaml, items_named_and_counted)
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

Test(yaml, items_of_non_sequence)
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

/* ---- documents and reports --------------------------------------------- */

Test(yaml, errors_sorted_by_position)
{
	static const char *const names[] = { "a", "b", "c" };
	static const char *const want[] = {
		"1:4: error: a: first at 1:4",
		"1:4: error: a: second at 1:4",
		"2:4: error: b: invalid integer 'y' (expected decimal or 0x hex)",
		"3:4: error: c: invalid integer 'z' (expected decimal or 0x hex)",
	};
	struct yaml_doc *d = open_text("order.yaml", "a: x\nb: y\nc: z\n");
	struct yaml_field f[3];
	uint64_t v;

	top_fields(d, names, 3, f);
	cr_expect(not(yaml_failed(d)));
	yaml_u64(d, &f[2], &v);
	cr_expect(yaml_failed(d));
	yaml_field_error(d, &f[0], "first at 1:4");
	yaml_u64(d, &f[1], &v);
	yaml_field_error(d, &f[0], "second at 1:4");
	close_expecting(d, want, 4);
}

/*
 * Open @text, which must not parse, and expect the report to be one line
 * at @line:@col that contains @msg (libfyaml's wording).
 */
static void expect_syntax_error(const char *name, const char *text, int line, int col,
				const char *msg)
{
	const char *path = write_file(name, text);
	struct yaml_doc *d = NULL;
	char want[512], err[4096];

	cr_assert(eq(int, yaml_open(path, &d), -EINVAL), "%s", name);
	cr_assert(not(eq(ptr, d, NULL)));
	cr_expect(yaml_failed(d));
	cr_expect(eq(ptr, yaml_root(d), NULL));
	cr_expect(eq(int, yaml_close(d, err, sizeof(err)), -EINVAL));
	snprintf(want, sizeof(want), "%s:%d:%d: error: ", path, line, col);
	cr_expect(eq(int, strncmp(err, want, strlen(want)), 0), "want %s...\n%s", want, err);
	cr_expect(not(eq(ptr, strstr(err, msg), NULL)), "want %s\n%s", msg, err);
	cr_expect(eq(sz, strlen(err), (size_t)(strchr(err, '\n') - err) + 1), "one line: %s", err);
}

Test(yaml, syntax_error_collected)
{
	expect_syntax_error("syntax.yaml", "a: 1\nb: x: y\nc: 3\n", 2, 5,
			    "invalid nested block mapping");
	/* Found where the file ends with the bracket still open. */
	expect_syntax_error("flow.yaml", "a: 1\nb: [1, 2\nc: 3\n", 4, 1,
			    "flow sequence without a closing bracket");
}

Test(yaml, duplicate_key_is_a_syntax_error)
{
	expect_syntax_error("dup.yaml", "a: 1\nm:\n  k: 1\n  k: 2\n", 4, 3, "duplicate key");
}

Test(yaml, empty_file)
{
	struct yaml_doc *d = open_text("empty.yaml", "");

	cr_expect(eq(ptr, yaml_root(d), NULL));
	close_expecting(d, NULL, 0);
	d = open_text("comments.yaml", "# nothing here\n");
	cr_expect(eq(ptr, yaml_root(d), NULL));
	close_expecting(d, NULL, 0);
}

Test(yaml, missing_file_and_directory)
{
	char path[256], want[512], err[1024];
	struct yaml_doc *d = NULL;

	snprintf(path, sizeof(path), "%s/does-not-exist.yaml", dir);
	cr_assert(eq(int, yaml_open(path, &d), -ENOENT));
	cr_assert(not(eq(ptr, d, NULL)), "the document holds the reason");
	cr_expect(eq(int, yaml_close(d, err, sizeof(err)), -EINVAL));
	snprintf(want, sizeof(want), "%s: error: cannot open: %s\n", path, strerror(ENOENT));
	cr_expect(eq(str, err, want));

	d = NULL;
	cr_assert(eq(int, yaml_open(dir, &d), -ENOENT));
	cr_expect(eq(int, yaml_close(d, err, sizeof(err)), -EINVAL));
	snprintf(want, sizeof(want), "%s: error: cannot open: %s\n", dir, strerror(EISDIR));
	cr_expect(eq(str, err, want));
}

Test(yaml, close_results)
{
	static const char *const names[] = { "a" };
	struct yaml_doc *d = open_text("close.yaml", "a: 1\n");
	struct yaml_field f[1];
	char err[8];

	memset(err, 'x', sizeof(err));
	cr_expect(eq(int, yaml_close(NULL, err, sizeof(err)), 0));
	cr_expect(eq(str, err, ""));
	cr_expect(eq(int, yaml_close(d, err, sizeof(err)), 0));

	/* A report that does not fit is cut short, NUL terminated. */
	d = open_text("close2.yaml", "a: x\n");
	top_fields(d, names, 1, f);
	yaml_field_error(d, &f[0], "bad");
	cr_expect(eq(int, yaml_close(d, err, sizeof(err)), -EINVAL));
	cr_expect(eq(sz, strlen(err), sizeof(err) - 1));

	d = open_text("close3.yaml", "a: x\n");
	top_fields(d, names, 1, f);
	yaml_field_error(d, &f[0], "bad");
	cr_expect(eq(int, yaml_close(d, NULL, 0), -EINVAL));

	/* Running out of memory outranks errors. */
	d = open_text("close4.yaml", "a: x\n");
	top_fields(d, names, 1, f);
	yaml_field_error(d, &f[0], "bad");
	yaml_nomem(d);
	cr_expect(eq(int, yaml_close(d, NULL, 0), -ENOMEM));
}

Test(yaml, positions)
{
	static const char *const names[] = { "blk", "seq", "e" };
	struct yaml_doc *d = open_text("pos.yaml", "# c\nblk:\n    k: 1\nseq:\n  - 1\ne:\n");
	struct yaml_field f[3];
	int line = 0, col = 0;

	top_fields(d, names, 3, f);
	cr_expect(yaml_pos(yaml_root(d), &line, &col));
	cr_expect(eq(int, line, 2));
	cr_expect(eq(int, col, 1));
	cr_expect(yaml_pos(f[0].val, &line, &col));
	cr_expect(eq(int, line, 3));
	cr_expect(eq(int, col, 5));
	cr_expect(yaml_pos(f[1].val, &line, &col));
	cr_expect(eq(int, line, 5));
	cr_expect(eq(int, col, 3));
	line = col = -1;
	cr_expect(not(yaml_pos(f[2].val, &line, &col)), "an empty value has no position");
	cr_expect(not(yaml_pos(NULL, &line, &col)));
	cr_expect(eq(int, line, -1));
	cr_expect(eq(int, col, -1));
	close_expecting(d, NULL, 0);
}

/* @bytes (@n of them) as a file: its open fails with -EINVAL and the one error says @want. */
static void refused_bytes(const char *name, const char *bytes, size_t n, const char *want)
{
	char path[192], err[1024];
	struct yaml_doc *d = NULL;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	cr_assert(not(eq(ptr, f, NULL)));
	cr_assert(eq(sz, fwrite(bytes, 1, n, f), n));
	cr_assert(eq(int, fclose(f), 0));
	cr_assert(eq(int, yaml_open(path, &d), -EINVAL), "%s", name);
	cr_assert(eq(int, yaml_close(d, err, sizeof(err)), -EINVAL));
	cr_assert(strstr(err, path) && strstr(err, want), "%s: %s", name, err);
	unlink(path);
}

/*
 * Bytes on which libfyaml 0.7.12 hangs ("%\xac") or crashes ("? s:\t\0",
 * "? a:\t?") are bad input, said with where, in bounded time, and this
 * process lives on.
 */
Test(yaml, hostile_bytes_are_refused_with_where)
{
	refused_bytes("hang.yaml", "%\xac", 2, ":1:2: error: not UTF-8 text (byte 0xac, offset 1)");
	refused_bytes("nul.yaml", "? s:\t\0", 6, ":1:6: error: a NUL byte (offset 5)");
	refused_bytes("crash.yaml", "? a:\t?", 6,
		      ":1:5: error: cannot use tab for indentation of block entry; then the YAML parser "
		      "(libfyaml) crashed");
	refused_bytes("overlong.yaml", "a: \xc0\xaf\n", 6, ":1:4: error: not UTF-8 text (byte 0xc0");
	refused_bytes("surrogate.yaml", "a: b\nc: \xed\xa0\x80\n", 11, ":2:4: error: not UTF-8");
}

/* Text that is UTF-8 still parses as before, and a .json file as JSON. */
Test(yaml, utf8_text_and_json_files_parse)
{
	struct yaml_doc *d = open_text("u.yaml", "name: \"gr\xc3\xbc\xc3\x9f \xf0\x9f\x98\x80\"\n");

	close_expecting(d, NULL, 0);
	d = open_text("u.json", "{\"a\": [1, 2]}\n");
	cr_assert(fy_node_is_mapping(yaml_root(d)));
	close_expecting(d, NULL, 0);
}

/*
 * The trial parse's child is watched by its pace, not the clock. Here it is
 * stopped as soon as it is seen (as a child waiting for a core, or blocked,
 * would be), by a thread of this process, for @stop_s seconds (0: for good).
 */
struct trial_stopper {
	pthread_t thread;
	unsigned int stop_s;
	pid_t stopped;
};

/* The pid of the child named yaml-trial of this process's main thread, or 0. */
static pid_t trial_child_pid(void)
{
	char path[128], comm[32] = "";
	pid_t pid = 0, found = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)getpid(), (int)getpid());
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (!found && fscanf(f, "%d", &pid) == 1) {
		FILE *c;

		snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
		c = fopen(path, "r");
		if (c && fgets(comm, sizeof(comm), c) && !strcmp(comm, "yaml-trial\n"))
			found = pid;
		if (c)
			fclose(c);
	}
	fclose(f);
	return found;
}

/* A valid file large enough (a few MB) that its parse lasts long enough to be caught. */
static const char *write_large_file(const char *name)
{
	static char text[4 << 20];
	size_t used = 0;

	for (unsigned int i = 0; used + 64 < sizeof(text); i++)
		used += (size_t)snprintf(text + used, sizeof(text) - used, "- {k: %u, v: %u}\n", i,
					 i + 1);
	return write_file(name, text);
}

static void *stop_trial(void *arg)
{
	struct trial_stopper *s = arg;
	pid_t pid = 0;

	for (int i = 0; i < 2000000 && !pid; i++)
		pid = trial_child_pid();
	if (!pid || kill(pid, SIGSTOP))
		return NULL;
	s->stopped = pid;
	if (s->stop_s) {
		sleep(s->stop_s);
		kill(pid, SIGCONT);
	}
	return NULL;
}

/*
 * A parse that cannot run for longer than any clock-based limit gpuiso had
 * (10 s) is not taken for a bad file: when it runs again, it finishes.
 */
Test(yaml, a_trial_parse_that_waits_long_is_not_blamed, .timeout = 60)
{
	const char *path = write_large_file("slow.yaml");
	struct trial_stopper s = { .stop_s = 12 };
	struct yaml_doc *d = NULL;
	char err[1024];
	time_t t0 = time(NULL);

	cr_assert_eq(pthread_create(&s.thread, NULL, stop_trial, &s), 0);
	cr_assert(eq(int, yaml_open(path, &d), 0));
	pthread_join(s.thread, NULL);
	cr_assert_gt(s.stopped, 0, "the trial child was never seen");
	cr_assert_geq(time(NULL) - t0, 12);
	cr_assert(eq(int, yaml_close(d, err, sizeof(err)), 0), "%s", err);
}

/*
 * One that neither runs nor reads on for 30 s (stopped for good here) is
 * stuck: that is said, and it is not the file's doing (-ECHILD, whatever
 * the reader of the file reports besides).
 */
Test(yaml, a_stuck_trial_parse_is_not_the_files_doing, .timeout = 90)
{
	const char *path = write_large_file("stuck.yaml");
	struct trial_stopper s = { .stop_s = 0 };
	struct yaml_doc *d = NULL;
	char err[1024];

	cr_assert_eq(pthread_create(&s.thread, NULL, stop_trial, &s), 0);
	cr_assert(eq(int, yaml_open(path, &d), -ECHILD));
	pthread_join(s.thread, NULL);
	cr_assert_gt(s.stopped, 0, "the trial child was never seen");
	cr_assert(yaml_failed(d));
	cr_assert(eq(int, yaml_close(d, err, sizeof(err)), -ECHILD));
	cr_assert(strstr(err, path) && strstr(err, "neither ran nor moved on for 30 s (state T") &&
		  strstr(err, "not the file's doing"), "%s", err);
	cr_assert(yaml_error_is_environment(-ECHILD));
	cr_assert_not(yaml_error_is_environment(-EINVAL));
}
