/* SPDX-License-Identifier: MIT */
#include <criterion/criterion.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "scratch.h"

static char tdir[] = "/tmp/gpuiso-cli-XXXXXX";
static bool tdir_made; /* (a made name may end in 'X' too) */

void scratch_cleanup(void)
{
	char cmd[128];

	if (tdir_made) {
		snprintf(cmd, sizeof(cmd), "rm -rf %s", tdir);
		cr_assert_eq(system(cmd), 0);
	}
}

const char *tpath(const char *name)
{
	static char p[8][256];
	static int i;

	if (!tdir_made) {
		cr_assert_not_null(mkdtemp(tdir));
		tdir_made = true;
	}
	i = (i + 1) % 8;
	snprintf(p[i], sizeof(p[i]), "%s/%s", tdir, name);
	return p[i];
}
