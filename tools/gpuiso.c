/* SPDX-License-Identifier: MIT */
/*
 * gpuiso: the command line. main() only parses and dispatches; what each
 * command does lives in the libraries, where tests reach it directly.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "common/log.h"
#include "config.h"
#include "version.h"
#include "core/core.h"
#include "core/scenario.h"

enum exit_code {
	EXIT_OK = 0,
	EXIT_FINDINGS = 1, /* the run found violations or invariant failures */
	EXIT_INPUT = 2,    /* bad input */
	EXIT_ENV = 3,      /* environment problem */
};

struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *usage;
	const char *summary;
};

static int usage_error(const char *usage, const char *fmt, const char *arg)
{
	fprintf(stderr, "gpuiso: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nusage: %s\n", usage);
	return EXIT_INPUT;
}

/* Options every command shares: -h/--help and -v (more output). */
static bool common_opt(int opt, const char *usage, int *rc)
{
	switch (opt) {
	case 'h':
		printf("usage: %s\n", usage);
		*rc = EXIT_OK;
		return true;
	case 'v':
		log_set_level(log_enabled(LOG_INFO) ? LOG_DEBUG : LOG_INFO);
		return false;
	default:
		*rc = EXIT_INPUT;
		fprintf(stderr, "usage: %s\n", usage);
		return true;
	}
}

static const char version_usage[] = "gpuiso version";

static int cmd_version(int argc, char **argv)
{
	static const struct option opts[] = { { "help", no_argument, NULL, 'h' }, { 0 } };
	int opt, rc;

	while ((opt = getopt_long(argc, argv, "hv", opts, NULL)) != -1)
		if (common_opt(opt, version_usage, &rc))
			return rc;
	if (optind < argc)
		return usage_error(version_usage, "unexpected argument '%s'", argv[optind]);
	printf("gpuiso %s (%s)\n", GPUISO_VERSION, GPUISO_GIT_REV);
	printf("backends: sim\n");
	printf("features: scenario-yaml fault-points\n");
	return EXIT_OK;
}

static const char explain_usage[] = "gpuiso scenario explain FILE.yaml [--json] [-v]";

static int cmd_scenario_explain(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' }, { "help", no_argument, NULL, 'h' }, { 0 },
	};
	struct scenario scn = { 0 };
	struct core *core = NULL;
	char err[4096] = "";
	bool json = false;
	int opt, rc;

	while ((opt = getopt_long(argc, argv, "hv", opts, NULL)) != -1) {
		if (opt == 'j')
			json = true;
		else if (common_opt(opt, explain_usage, &rc))
			return rc;
	}
	if (optind + 1 != argc)
		return usage_error(explain_usage, "%s", optind < argc ? "one scenario file, please" :
				   "missing the scenario file");
	rc = scenario_load(argv[optind], &scn, err, sizeof(err));
	if (rc) {
		fputs(err, stderr);
		if (!*err || err[strlen(err) - 1] != '\n')
			fputc('\n', stderr);
		scenario_free(&scn);
		return EXIT_INPUT;
	}
	rc = core_create(&scn, NULL, NULL, &core);
	if (!rc)
		rc = core_start(core);
	if (!rc)
		rc = core_explain(core, stdout, json);
	core_destroy(core);
	scenario_free(&scn);
	if (rc) {
		fprintf(stderr, "gpuiso: scenario explain: %s\n", strerror(-rc));
		return EXIT_ENV;
	}
	return EXIT_OK;
}

static const char bench_usage[] = "gpuiso bench [--suite micro] [--json OUT] [-v]";

static int cmd_bench(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "suite", required_argument, NULL, 's' }, { "json", required_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' }, { 0 },
	};
	const char *suite = "micro", *json = NULL;
	int opt, rc;

	while ((opt = getopt_long(argc, argv, "hv", opts, NULL)) != -1) {
		if (opt == 's')
			suite = optarg;
		else if (opt == 'j')
			json = optarg;
		else if (common_opt(opt, bench_usage, &rc))
			return rc;
	}
	if (optind < argc)
		return usage_error(bench_usage, "unexpected argument '%s'", argv[optind]);
	rc = bench_main(suite, json, stdout);
	if (rc == -ENOENT)
		return usage_error(bench_usage, "unknown suite '%s'", suite);
	if (rc) {
		fprintf(stderr, "gpuiso: bench: %s\n", strerror(-rc));
		return EXIT_ENV;
	}
	return EXIT_OK;
}

static const struct command commands[] = {
	{ "version", cmd_version, version_usage, "version and what was compiled in" },
	{ "scenario explain", cmd_scenario_explain, explain_usage,
	  "validate a scenario and print what the model decides per adapter" },
	{ "bench", cmd_bench, bench_usage, "micro benchmarks (bench JSON with --json)" },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: gpuiso COMMAND [OPTIONS]   (gpuiso COMMAND --help for more)\n\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-18s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "\nexit codes: 0 ok, 1 violations found, 2 bad input, 3 environment problem\n");
}

int main(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? EXIT_INPUT : EXIT_OK;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		const struct command *cmd = &commands[i];
		size_t words = strchr(cmd->name, ' ') ? 2 : 1;
		char name[64];

		if ((size_t)argc <= words)
			continue;
		snprintf(name, sizeof(name), words == 2 ? "%s %s" : "%s", argv[1], argv[2]);
		if (strcmp(name, cmd->name))
			continue;
		/* getopt sees "gpuiso scenario explain" as argv[0] */
		return cmd->run(argc - (int)words, argv + words);
	}
	if (argc >= 2 && !strcmp(argv[1], "scenario")) {
		fprintf(stderr, "usage: %s\n", explain_usage);
		return EXIT_INPUT;
	}
	fprintf(stderr, "gpuiso: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return EXIT_INPUT;
}
