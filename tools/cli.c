/* SPDX-License-Identifier: MIT */
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "common/failure.h"
#include "common/log.h"
#include "config.h"
#include "replay/machine.h"

/* -q: no progress reports (the command line's own state: one process, one command) */
static bool cli_quiet;

int usage_error(const char *usage, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "gpuiso: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
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

int cli_json_only(int argc, char **argv, const char *usage, bool *json)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' }, { "help", no_argument, NULL, 'h' }, { 0 },
	};
	int opt, rc;

	*json = false;
	while ((opt = getopt_long(argc, argv, "hv", opts, NULL)) != -1) {
		if (opt == 'j')
			*json = true;
		else if (common_opt(opt, usage, &rc))
			return rc;
	}
	if (optind < argc)
		return usage_error(usage, "unexpected argument '%s'", argv[optind]);
	return -1;
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

/* @dir/@name, then @dir/@name.yaml, into @out: whether one is a file. */
static bool data_file(const char *dir, const char *name, char *out, size_t len)
{
	struct stat st;

	for (int yaml = 0; yaml < 2; yaml++) {
		if (snprintf(out, len, "%s/%s%s", dir, name, yaml ? ".yaml" : "") >= (int)len)
			return false;
		if (!stat(out, &st) && S_ISREG(st.st_mode))
			return true;
	}
	return false;
}

const char *cli_data(const char *kind, const char *arg)
{
	/* a command takes up to 8 maps and a scenario or two: each call gets its own buffer */
	static char pool[CLI_DATA_PATHS][PATH_MAX];
	static unsigned int next;
	char *found = pool[next++ % CLI_DATA_PATHS], dir[PATH_MAX], *slash;
	const char *exe = cli_program();
	struct stat st;

	if (!arg || strchr(arg, '/') || !stat(arg, &st))
		return arg;
	/* installed: share/gpuiso/KIND beside the binary's folder */
	if (exe && snprintf(dir, sizeof(dir), "%s", exe) < (int)sizeof(dir) &&
	    (slash = strrchr(dir, '/'))) {
		*slash = '\0';
		if (GPUISO_DATA_FROM_BIN[0] == '/')
			snprintf(dir, sizeof(dir), "%s/%s", GPUISO_DATA_FROM_BIN, kind);
		else if (strlen(dir) + strlen(GPUISO_DATA_FROM_BIN) + strlen(kind) + 3 < sizeof(dir))
			sprintf(slash, "/%s/%s", GPUISO_DATA_FROM_BIN, kind);
		if (data_file(dir, arg, found, PATH_MAX))
			return found;
	}
	/* a build tree: the source tree's traces/KIND */
	snprintf(dir, sizeof(dir), "%s/%s", GPUISO_SOURCE_DATA, kind);
	return data_file(dir, arg, found, PATH_MAX) ? found : arg;
}

FILE *progress_out(void)
{
	return cli_quiet ? NULL : stderr;
}

int cli_report_error(const char *err, int code)
{
	fputs(err, stderr);
	if (!*err || err[strlen(err) - 1] != '\n')
		fputc('\n', stderr);
	return code;
}

int cli_exit(int rc)
{
	switch (failure_of(rc)) {
	case FAILURE_INPUT:
		return EXIT_INPUT;
	case FAILURE_ENVIRONMENT:
		return EXIT_ENV;
	case FAILURE_INTERNAL:
		return EXIT_INTERNAL;
	case FAILURE_NONE:
		break;
	}
	/* no failure to map: a caller's bug, reported as one */
	fprintf(stderr, "gpuiso: INTERNAL ERROR (a bug of gpuiso): an exit code asked for %d\n",
		rc);
	return EXIT_INTERNAL;
}

int cli_failed(const char *cmd, const char *err, int rc)
{
	fprintf(stderr, "gpuiso: %s: %s\n", cmd, err[0] ? err : strerror(-rc));
	return cli_exit(rc);
}

int cli_load_scenario(const char *path, const char *backend, struct scenario *scn)
{
	char err[4096] = "";
	int rc = machine_load(path, backend, scn, err, sizeof(err));

	return rc ? cli_report_error(err, cli_exit(rc)) : 0;
}
