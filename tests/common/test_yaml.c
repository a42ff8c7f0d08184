/* SPDX-License-Identifier: MIT */
/*
 * Reading YAML input files (common/yaml.h): documents opened and closed,
 * their errors coming out as "FILE:LINE:COL: error: ..." lines at the
 * right 1-based position, sorted by position. The fields of documents are
 * test_yaml_field.c's, hostile input test_yaml_trial.c's.
 */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "yaml_files.h"

TestSuite(yaml, .init = make_dir, .fini = remove_dir);

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

/* Text that is UTF-8 still parses as before, and a .json file as JSON. */
Test(yaml, utf8_text_and_json_files_parse)
{
	struct yaml_doc *d = open_text("u.yaml", "name: \"gr\xc3\xbc\xc3\x9f \xf0\x9f\x98\x80\"\n");

	close_expecting(d, NULL, 0);
	d = open_text("u.json", "{\"a\": [1, 2]}\n");
	cr_assert(fy_node_is_mapping(yaml_root(d)));
	close_expecting(d, NULL, 0);
}
