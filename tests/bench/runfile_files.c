/* SPDX-License-Identifier: MIT */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runfile_files.h"

static char dir[] = "/tmp/gpuiso-runfile-XXXXXX";

void setup(void)
{
	strcpy(dir, "/tmp/gpuiso-runfile-XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
}

void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	cr_assert_eq(system(cmd), 0);
}

const char *file_with(const char *name, const char *text)
{
	static char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs(text, f);
	fclose(f);
	return path;
}
