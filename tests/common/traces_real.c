/* SPDX-License-Identifier: MIT */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "traces_real.h"

/* Skips the calling test, saying why on stderr too (Criterion prints skips only with --verbose). */
static _Noreturn void skip(const char *why)
{
	fprintf(stderr, "skipped: %s\n", why);
	cr_skip_test("%s", why);
}

const char *traces_real(const char *name)
{
	static char dir[PATH_MAX], path[PATH_MAX], why[PATH_MAX + 160];
	const char *env = getenv("GPUISO_TRACES_REAL");
	const char *root = getenv("GPUISO_SOURCE_ROOT");
	struct stat st;

	if (env && *env)
		cr_assert_lt((size_t)snprintf(dir, sizeof(dir), "%s", env), sizeof(dir));
	else
		cr_assert_lt((size_t)snprintf(dir, sizeof(dir), "%s/../shared/traces-real",
					      root ? root : "."), sizeof(dir));
	if (stat(dir, &st) || !S_ISDIR(st.st_mode)) {
		if (env && *env)
			snprintf(why, sizeof(why), "GPUISO_TRACES_REAL=%s is no folder: the real "
				 "traces (shared/traces-real) are missing", dir);
		else
			snprintf(why, sizeof(why), "no %s: the real traces (shared/traces-real) are "
				 "not beside this source tree; GPUISO_TRACES_REAL names their folder",
				 dir);
		skip(why);
	}
	if (!name)
		return dir;
	cr_assert_lt((size_t)snprintf(path, sizeof(path), "%s/%s", dir, name), sizeof(path));
	return path;
}
