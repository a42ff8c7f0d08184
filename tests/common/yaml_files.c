/* SPDX-License-Identifier: MIT */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "yaml_files.h"

/* The test's directory and the files written into it, removed at the end. */
char dir[64];
static char files[8][128];
static size_t nfiles;

void make_dir(void)
{
	strcpy(dir, "/tmp/gpuiso-yaml-XXXXXX");
	cr_assert(not(eq(ptr, mkdtemp(dir), NULL)), "mkdtemp: %s", strerror(errno));
}

void remove_dir(void)
{
	size_t i;

	for (i = 0; i < nfiles; i++)
		unlink(files[i]);
	rmdir(dir);
}

/* Write @text to @name in the test's directory. Return: the file's path. */
const char *write_file(const char *name, const char *text)
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
struct yaml_doc *open_text(const char *name, const char *text)
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
void close_expecting(struct yaml_doc *d, const char *const *lines, size_t n)
{
	char path[256], want[4096], err[4096];

	snprintf(path, sizeof(path), "%s", yaml_path(d));
	want_lines(want, sizeof(want), path, lines, n);
	cr_expect(eq(int, yaml_failed(d), n > 0));
	cr_expect(eq(int, yaml_close(d, err, sizeof(err)), n ? -EINVAL : 0));
	cr_expect(eq(str, err, want));
}

/* Fields of the top-level mapping of @d, which must be one. */
void top_fields(struct yaml_doc *d, const char *const *names, size_t n,
		       struct yaml_field *f)
{
	cr_assert(yaml_fields(d, yaml_root(d), NULL, "", names, n, f));
}
