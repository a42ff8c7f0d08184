/* SPDX-License-Identifier: MIT */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "common/log.h"

/* -q: no progress reports (the command line's own state: one process, one command) */
static bool cli_quiet;

int usage_error(const char *usage, const char *fmt, const char *arg)
{
	fprintf(stderr, "gpuiso: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nusage: %s\n", usage);
	return EXIT_INPUT;
}

bool common_opt(int opt, const char *usage, int *rc)
{
	switch (opt) {
	case 'h':
		printf("usage: %s\n", usage);
		*rc = EXIT_OK;
		return true;
	case 'v':
		log_set_level(log_enabled(LOG_INFO) ? LOG_DEBUG : LOG_INFO);
		return false;
	case 'q':
		cli_quiet = true;
		return false;
	default:
		*rc = EXIT_INPUT;
		fprintf(stderr, "usage: %s\n", usage);
		return true;
	}
}

FILE *text_out(const char *json)
{
	return json && !strcmp(json, "-") ? stderr : stdout;
}

const char *cli_program(void)
{
	static char path[PATH_MAX];

	if (!path[0] && !realpath("/proc/self/exe", path))
		return NULL;
	return path;
}

FILE *progress_out(void)
{
	return cli_quiet ? NULL : stderr;
}
