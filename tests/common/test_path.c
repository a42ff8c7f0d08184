/* SPDX-License-Identifier: MIT */
/* Making folders (common/path.h). */
#include <criterion/criterion.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/path.h"

static char tmp[] = "/tmp/gpuiso-path-XXXXXX";

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

TestSuite(path, .init = setup, .fini = teardown);

static bool is_dir(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static bool is_dir(const char *fmt, ...)
{
	char p[512];
	struct stat st;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(p, sizeof(p), fmt, ap);
	va_end(ap);
	return !stat(p, &st) && S_ISDIR(st.st_mode);
}

Test(path, mkdir_p_makes_every_level_and_accepts_what_exists)
{
	char p[256];

	snprintf(p, sizeof(p), "%s/a/b/c", tmp);
	cr_assert_eq(path_mkdir_p(p), 0);
	cr_assert(is_dir("%s/a/b/c", tmp));
	cr_assert_eq(path_mkdir_p(p), 0, "again");
	snprintf(p, sizeof(p), "%s/a/b/d/", tmp);
	cr_assert_eq(path_mkdir_p(p), 0, "a trailing slash");
	cr_assert(is_dir("%s/a/b/d", tmp));
}

Test(path, mkdir_parent_makes_the_folders_above_a_file_only)
{
	char p[256];

	snprintf(p, sizeof(p), "%s/x/y/file", tmp);
	cr_assert_eq(path_mkdir_parent(p), 0);
	cr_assert(is_dir("%s/x/y", tmp));
	cr_assert_not(is_dir("%s/x/y/file", tmp));
	cr_assert_eq(path_mkdir_parent("file-here"), 0, "no folder named: nothing to do");
	cr_assert_eq(path_mkdir_parent("/file-at-root"), 0);
}

Test(path, errors_are_said)
{
	static char p[PATH_MAX + 10];
	FILE *f;

	cr_assert_eq(path_mkdir_p(""), -ENOENT);
	snprintf(p, sizeof(p), "%s/plain", tmp);
	f = fopen(p, "w");
	cr_assert_not_null(f);
	fclose(f);
	snprintf(p, sizeof(p), "%s/plain/below", tmp);
	cr_assert_eq(path_mkdir_p(p), -ENOTDIR, "a file in the way");
	snprintf(p, sizeof(p), "%s/plain", tmp);
	cr_assert_eq(path_mkdir_p(p), -ENOTDIR, "a file where the folder would be");
	snprintf(p, sizeof(p), "%s/plain/out.json", tmp);
	cr_assert_eq(path_mkdir_parent(p), -ENOTDIR, "a file where the folder would be");
	memset(p, 'a', sizeof(p) - 1);
	p[sizeof(p) - 1] = '\0';
	cr_assert_eq(path_mkdir_p(p), -ENAMETOOLONG);
}
