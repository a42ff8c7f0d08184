/* SPDX-License-Identifier: MIT */
/* Files replaced at once (common/atomic_file.h). */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/atomic_file.h"

static char tmp[] = "/tmp/gpuiso-atomic-XXXXXX";

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

TestSuite(atomic_file, .init = setup, .fini = teardown);

static void content_is(const char *path, const char *want)
{
	char buf[256] = "";
	FILE *f = fopen(path, "r");
	size_t n;

	cr_assert_not_null(f, "%s exists", path);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	cr_assert_str_eq(buf, want);
}

static void no_temporary(const char *path)
{
	char t[PATH_MAX + 24];

	snprintf(t, sizeof(t), "%s.%d.tmp", path, (int)getpid());
	cr_assert_neq(access(t, F_OK), 0, "%s is left behind", t);
}

Test(atomic_file, write_replaces_and_leaves_no_temporary)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/out", tmp);
	cr_assert_eq(atomic_file_write(path, "first", 5), 0);
	content_is(path, "first");
	cr_assert_eq(atomic_file_write(path, "2nd", 3), 0);
	content_is(path, "2nd");
	no_temporary(path);
}

Test(atomic_file, the_temporary_is_named_with_the_pid_until_commit)
{
	char path[256], want[300];
	struct atomic_file a;

	snprintf(path, sizeof(path), "%s/out", tmp);
	snprintf(want, sizeof(want), "%s.%d.tmp", path, (int)getpid());
	cr_assert_eq(atomic_file_write(path, "old", 3), 0);
	cr_assert_eq(atomic_file_open(&a, path), 0);
	cr_assert_str_eq(a.tmp, want);
	fputs("new", a.f);
	fflush(a.f);
	content_is(path, "old");
	content_is(want, "new");
	cr_assert_eq(atomic_file_commit(&a), 0);
	content_is(path, "new");
	no_temporary(path);
}

Test(atomic_file, abort_leaves_the_file_as_it_was)
{
	char path[256];
	struct atomic_file a;

	snprintf(path, sizeof(path), "%s/out", tmp);
	cr_assert_eq(atomic_file_write(path, "old", 3), 0);
	cr_assert_eq(atomic_file_open(&a, path), 0);
	fputs("new", a.f);
	atomic_file_abort(&a);
	cr_assert_null(a.f);
	atomic_file_abort(&a); /* twice is harmless */
	content_is(path, "old");
	no_temporary(path);
}

Test(atomic_file, a_failed_rename_says_why_and_cleans_up)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/dir", tmp);
	cr_assert_eq(mkdir(path, 0755), 0);
	cr_assert_eq(atomic_file_write(path, "x", 1), -EISDIR);
	no_temporary(path);
}

Test(atomic_file, a_missing_folder_or_a_long_name_is_an_error)
{
	static char path[PATH_MAX + 10];

	snprintf(path, sizeof(path), "%s/no/such/file", tmp);
	cr_assert_eq(atomic_file_write(path, "x", 1), -ENOENT);
	memset(path, 'a', sizeof(path) - 1);
	path[sizeof(path) - 1] = '\0';
	cr_assert_eq(atomic_file_write(path, "x", 1), -ENAMETOOLONG);
}
