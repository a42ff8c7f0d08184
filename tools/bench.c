/* SPDX-License-Identifier: MIT */
/* gpuiso bench: the benchmark suites, or figures measured elsewhere recorded as bench JSON. */
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench/bench.h"
#include "bench/runfile.h"
#include "bench/suites/suites.h"
#include "cli.h"
#include "common/path.h"

const char bench_usage[] =
	"gpuiso bench [--suite micro|replay|floor] [--json OUT] [-v]\n"
	"       gpuiso bench --suite NAME --metric NAME=VALUE:UNIT... [--notes TEXT] --json OUT\n"
	"  the second records figures measured outside gpuiso (bench/sweep.sh,\n"
	"  bench/shards.sh) as bench JSON: no suite runs";

static const struct bench_suite bench_suites[] = {
	{ "micro", bench_suite_micro },
	{ "replay", bench_suite_replay },
	{ "floor", bench_suite_floor },
};

/* --metric NAME=VALUE:UNIT into @r; 0, or the exit code after saying why not. */
static int bench_metric_arg(struct bench_report *r, char *arg)
{
	char *eq = strchr(arg, '='), *colon = strrchr(arg, ':'), *end;
	double v;

	/* the name as a report holds it, the unit as a run file's metric does */
	if (!eq || !colon || colon < eq || eq == arg || eq - arg >= (ptrdiff_t)sizeof(r->m[0].name) ||
	    !colon[1] || strlen(colon + 1) >= sizeof(((struct run_metric *)NULL)->unit))
		return usage_error(bench_usage, "--metric takes NAME=VALUE:UNIT, not '%s'", arg);
	if (r->n == BENCH_MAX_METRICS)
		return usage_error(bench_usage, "more --metric than a report holds, from '%s'", arg);
	*colon = '\0';
	v = strtod(eq + 1, &end);
	*colon = ':';
	if (end == eq + 1 || end != colon || !isfinite(v))
		return usage_error(bench_usage, "--metric takes a finite number as VALUE, not '%s'", arg);
	*eq = '\0';
	bench_add(r, arg, v, colon + 1, NULL);
	*eq = '=';
	return EXIT_OK;
}

/* bench --metric: the figures @r holds, as bench JSON at @json. */
static int bench_record(const struct bench_report *r, const char *json)
{
	int rc;

	if (!json)
		return usage_error(bench_usage, "%s", "--metric records into --json OUT");
	if (!r->suite)
		return usage_error(bench_usage, "%s", "--metric records the figures of a --suite NAME");
	if (!r->suite[0] || strpbrk(r->suite, " \t\n="))
		return usage_error(bench_usage, "--suite takes a name (no space, no '='), not '%s'",
				   r->suite);
	rc = bench_write_json(r, json);
	if (rc) {
		fprintf(stderr, "gpuiso: bench: writing %s: %s\n", json, strerror(-rc));
		return EXIT_ENV;
	}
	return EXIT_OK;
}

int cmd_bench(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "suite", required_argument, NULL, 's' }, { "json", required_argument, NULL, 'j' },
		{ "metric", required_argument, NULL, 'm' }, { "notes", required_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' }, { 0 },
	};
	const char *suite = NULL, *json = NULL;
	struct bench_report given = { 0 }; /* --metric's */
	int opt, rc;

	while ((opt = getopt_long(argc, argv, "hv", opts, NULL)) != -1) {
		if (opt == 's')
			suite = optarg;
		else if (opt == 'j')
			json = optarg;
		else if (opt == 'n')
			given.notes = optarg;
		else if (opt == 'm' && (rc = bench_metric_arg(&given, optarg)))
			return rc;
		else if (opt != 'm' && common_opt(opt, bench_usage, &rc))
			return rc;
	}
	if (optind < argc)
		return usage_error(bench_usage, "unexpected argument '%s'", argv[optind]);
	if (given.notes && !given.n)
		return usage_error(bench_usage, "%s", "--notes goes with --metric");
	if (given.n) {
		given.suite = suite;
		return bench_record(&given, json);
	}
	if (!suite)
		suite = "micro";
	/* a suite takes minutes: a JSON file that cannot be written is said first */
	if (json && strcmp(json, "-")) {
		char dir[4096];
		struct stat st;
		int err = 0;

		snprintf(dir, sizeof(dir), "%s", json);
		if (!stat(json, &st) && S_ISDIR(st.st_mode))
			err = EISDIR;
		else
			err = -path_mkdir_parent(json); /* as writing it will */
		if (!err && access(dirname(dir), W_OK))
			err = errno;
		if (err) {
			fprintf(stderr, "gpuiso: bench: cannot write %s: %s\n", json, strerror(err));
			return EXIT_ENV; /* where an output goes is the machine's (failure_output()) */
		}
	}
	rc = bench_main(bench_suites, sizeof(bench_suites) / sizeof(bench_suites[0]), suite, json,
			text_out(json));
	if (rc == -ENOENT)
		return usage_error(bench_usage, "unknown suite '%s'", suite);
	if (rc) {
		fprintf(stderr, "gpuiso: bench: %s\n", strerror(-rc));
		return cli_exit(rc);
	}
	return EXIT_OK;
}
