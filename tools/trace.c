/* SPDX-License-Identifier: MIT */
/*
 * The trace commands: trace gen, info, dump, make and trim. Each parses its
 * options and calls replay/.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "common/progress.h"
#include "common/units.h"
#include "core/scenario.h"
#include "replay/ctf.h"
#include "replay/gen.h"
#include "replay/info.h"
#include "replay/replay.h"
#include "replay/text.h"
#include "replay/trim.h"

const char trace_gen_usage[] =
	"gpuiso trace gen --profile NAME [--events N] [--seed S] -o DIR [-q] [-v]\n"
	"profiles: desktop, game, power-cycle, remap, dpc, cpu (gpuiso trace gen --profile list);\n"
	"N from 1 to 1000000000 (10000 by default); a desktop trace takes about 46 bytes an event";

/* The generator, its events counted for a progress report. */
struct gen_feed {
	struct gen *g;
	struct progress progress;
	uint64_t done;
};

static int gen_next_shown(void *ctx, struct wl_event *e)
{
	struct gen_feed *feed = ctx;
	int rc = gen_next(feed->g, e);

	if (rc > 0)
		progress_tick(&feed->progress, ++feed->done);
	return rc;
}

int cmd_trace_gen(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "profile", required_argument, NULL, 'P' }, { "events", required_argument, NULL, 'n' },
		{ "seed", required_argument, NULL, 'S' }, { "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' }, { "quiet", no_argument, NULL, 'q' }, { 0 },
	};
	const char *profile = NULL, *dir = NULL;
	uint64_t events = 10000, seed = 1;
	struct gen_feed feed = { 0 };
	char err[512] = "";
	int opt, rc;

	while ((opt = getopt_long(argc, argv, "hvqo:", opts, NULL)) != -1) {
		switch (opt) {
		case 'P': profile = optarg; break;
		case 'o': dir = optarg; break;
		case 'n':
			if (units_parse_u64(optarg, &events) || !events || events > GEN_MAX_EVENTS)
				return usage_error(trace_gen_usage, "--events takes 1 to 1000000000, not '%s'",
						   optarg);
			break;
		case 'S':
			if (units_parse_u64(optarg, &seed))
				return usage_error(trace_gen_usage, "--seed takes a number, not '%s'", optarg);
			break;
		default:
			if (common_opt(opt, trace_gen_usage, &rc))
				return rc;
		}
	}
	if (profile && !strcmp(profile, "list")) {
		for (const char *const *p = gen_profiles(); *p; p++)
			printf("%-12s %s\n", *p, gen_describe(*p));
		return EXIT_OK;
	}
	if (!profile || !dir || optind < argc)
		return usage_error(trace_gen_usage, "%s", !profile ? "--profile is required" :
				   !dir ? "-o DIR is required" : "unexpected argument");
	rc = gen_create(profile, events, seed, &feed.g);
	if (rc == -ENOENT)
		return usage_error(trace_gen_usage, "unknown profile '%s'", profile);
	if (rc)
		return usage_error(trace_gen_usage, "cannot generate: %s", strerror(-rc));
	progress_begin(&feed.progress, progress_out(), "trace gen", "events", events);
	rc = ctf_write(dir, gen_next_shown, &feed, err, sizeof(err));
	progress_end(&feed.progress);
	gen_destroy(feed.g);
	if (rc) {
		/* (the writer's messages mostly begin with the folder already) */
		fprintf(stderr, "gpuiso: trace gen: %s%s%s\n", strncmp(err, dir, strlen(dir)) ? dir : "",
			strncmp(err, dir, strlen(dir)) ? ": " : "", err[0] ? err : strerror(-rc));
		return cli_exit(rc);
	}
	return EXIT_OK;
}

const char trace_info_usage[] =
	"gpuiso trace info TRACE [--json] [-v]\n"
	"  TRACE  a CTF folder (or a folder above several), an ftrace trace.dat or an .etl file";

int cmd_trace_info(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' }, { "help", no_argument, NULL, 'h' }, { 0 },
	};
	char err[512] = "";
	bool json = false;
	int opt, rc;

	while ((opt = getopt_long(argc, argv, "hv", opts, NULL)) != -1) {
		if (opt == 'j')
			json = true;
		else if (common_opt(opt, trace_info_usage, &rc))
			return rc;
	}
	if (optind + 1 != argc)
		return usage_error(trace_info_usage, "%s", "one trace, please");
	rc = trace_info(argv[optind], json, stdout, err, sizeof(err));
	if (rc)
		return cli_failed("trace info", err, rc);
	return EXIT_OK;
}

const char trace_dump_usage[] =
	"gpuiso trace dump TRACE [--map FILE.yaml]... [-o FILE] [-v]\n"
	"  the workload events of a trace as text, one line each, read as replay reads them\n"
	"  (through import maps for another tool's trace):\n"
	"    alloc_create ts=1000 adapter=0 id=7 bytes=65536 segment=system flags=0x1\n"
	"  the event, its timestamp (ns), then every field of the catalogue by name; \"lost events=N\"\n"
	"  where the tracer lost events; '#' comments (docs/trace-events.md, \"The text form\")\n"
	"  --map  an import map for a foreign trace, as for replay (up to 8)\n"
	"  -o     the text into FILE (replaced once the whole trace was read), not stdout\n"
	"  exit: 0 ok, 2 bad input (the trace or a map: says where), 3 environment";

int cmd_trace_dump(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "map", required_argument, NULL, 'M' }, { "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' }, { 0 },
	};
	const char *maps[8], *out = NULL;
	size_t nmaps = 0;
	char err[4096] = "";
	int opt, rc;

	while ((opt = getopt_long(argc, argv, "hvo:", opts, NULL)) != -1) {
		switch (opt) {
		case 'M':
			if (nmaps == sizeof(maps) / sizeof(maps[0]))
				return usage_error(trace_dump_usage, "%s", "at most 8 --map files");
			maps[nmaps++] = cli_data("maps", optarg);
			break;
		case 'o': out = optarg; break;
		default:
			if (common_opt(opt, trace_dump_usage, &rc))
				return rc;
		}
	}
	if (optind + 1 != argc)
		return usage_error(trace_dump_usage, "%s", optind < argc ? "one trace, please" :
				   "missing the trace (a CTF folder, a trace.dat or an .etl file)");
	rc = text_dump_file(argv[optind], maps, nmaps, out, err, sizeof(err));
	if (rc)
		return cli_failed("trace dump", err, rc);
	return EXIT_OK;
}

const char trace_make_usage[] =
	"gpuiso trace make FILE -o DIR [-v]\n"
	"  a CTF trace (babeltrace2 and gpuiso replay read it) from the text form of one, as\n"
	"  gpuiso trace dump writes it (docs/trace-events.md, \"The text form\"); FILE - reads stdin.\n"
	"  Every line is checked first: nothing is written unless all of it is good, and each\n"
	"  error says FILE:LINE:COL. Every field of an event is required, in any order.\n"
	"  -o     the trace folder to write (must not exist, or be empty)\n"
	"  exit: 0 ok, 2 bad input (the text, or DIR not empty), 3 environment";

int cmd_trace_make(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' }, { "help", no_argument, NULL, 'h' }, { 0 },
	};
	const char *dir = NULL;
	char err[8192] = "";
	int opt, rc;

	while ((opt = getopt_long(argc, argv, "hvo:", opts, NULL)) != -1) {
		if (opt == 'o')
			dir = optarg;
		else if (common_opt(opt, trace_make_usage, &rc))
			return rc;
	}
	if (!dir || optind + 1 != argc)
		return usage_error(trace_make_usage, "%s", !dir ? "-o DIR is required" :
				   optind < argc ? "one text file (or -), please" :
				   "missing the text file (or - for stdin)");
	rc = text_make(argv[optind], dir, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "%s%s\n", rc == -EINVAL && strstr(err, ": error: ") ? ""
			: "gpuiso: trace make: ", err[0] ? err : strerror(-rc));
		return cli_exit(rc);
	}
	return EXIT_OK;
}

const char trace_trim_usage[] =
	"gpuiso trace trim TRACE -o OUT [--scenario FILE] [--faults FILE] [--fail-nth POINT:N]\n"
	"                  [--trace-covers window|life]\n"
	"                  [--map FILE.yaml]... [--max-replays K] [--no-cache] [--cache-dir DIR] [-q] [-v]\n"
	"  the smallest part of TRACE whose replay breaks as TRACE's does (the same outcome,\n"
	"  first violation and broken invariants; with --fail-nth, the failure at the same hit of\n"
	"  the same event), written as a CTF trace to OUT and replayed from there before the\n"
	"  command that reproduces it is printed (docs/trace-events.md, \"Trimming a trace\")\n"
	"  --max-replays  at most K replays to trim (default 50000; two more replay what was\n"
	"                 kept: from memory, and from disk); then the smallest trace found so\n"
	"                 far is the one written\n"
	"  --faults, --map, --no-cache, --cache-dir, --trace-covers: as for replay";

int cmd_trace_trim(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' }, { "scenario", required_argument, NULL, 's' },
		{ "fail-nth", required_argument, NULL, 'F' }, { "faults", required_argument, NULL, 'f' },
		{ "trace-covers", required_argument, NULL, 'L' }, { "map", required_argument, NULL, 'm' },
		{ "max-replays", required_argument, NULL, 'R' }, { "no-cache", no_argument, NULL, 'N' },
		{ "cache-dir", required_argument, NULL, 'C' }, { "help", no_argument, NULL, 'h' },
		{ "quiet", no_argument, NULL, 'q' },
		{ 0 },
	};
	struct trim_opts o = { .cache = true };
	struct fault_plan plan = { 0 }, base = { 0 };
	struct scenario scn = { 0 };
	struct trim_result r;
	const char *maps[8];
	char err[4096] = "";
	int opt, rc;

	while ((opt = getopt_long(argc, argv, "hvqo:", opts, NULL)) != -1) {
		switch (opt) {
		case 'o': o.out = optarg; break;
		case 's': o.scenario_path = cli_data("scenarios", optarg); break;
		case 'N': o.cache = false; break;
		case 'f': o.base_path = optarg; break;
		case 'F':
			memset(&plan, 0, sizeof(plan));
			if (fault_plan_fail_nth(&plan, optarg))
				return usage_error(trace_trim_usage,
						   "--fail-nth takes POINT:N (gpuiso faults list), not '%s'",
						   optarg);
			for (int p = 0; p < FP_NPOINTS; p++) {
				if (plan.armed[p]) {
					o.fail = true;
					o.point = (enum fp_point)p;
					o.nth = plan.rule[p].nth;
				}
			}
			break;
		case 'L':
			if (trace_covers_parse(optarg, &o.covers))
				return usage_error(trace_trim_usage,
						   "--trace-covers takes window or life, not '%s'", optarg);
			break;
		case 'm':
			if (o.nmaps == sizeof(maps) / sizeof(maps[0]))
				return usage_error(trace_trim_usage, "%s", "at most 8 --map files");
			maps[o.nmaps++] = cli_data("maps", optarg);
			o.maps = maps;
			break;
		case 'R':
			if (units_parse_u64(optarg, &o.max_replays) || !o.max_replays)
				return usage_error(trace_trim_usage,
						   "--max-replays takes a number from 1, not '%s'", optarg);
			break;
		case 'C':
			if (!*optarg)
				return usage_error(trace_trim_usage, "--cache-dir takes a folder");
			o.cache_dir = optarg;
			break;
		default:
			if (common_opt(opt, trace_trim_usage, &rc))
				return rc;
		}
	}
	if (optind + 1 != argc || !o.out)
		return usage_error(trace_trim_usage, "%s", !o.out ? "-o OUT is required" :
				   optind < argc ? "one trace, please" :
				   "missing the trace (a CTF folder, a trace.dat or an .etl file)");
	o.trace = argv[optind];
	rc = cli_load_scenario(o.scenario_path, NULL, &scn);
	if (rc)
		return rc;
	o.scn = &scn;
	if (o.base_path) {
		rc = fault_plan_load(o.base_path, &base, err, sizeof(err));
		if (rc) {
			fputs(err, stderr);
			scenario_free(&scn);
			return cli_exit(rc);
		}
		o.base = &base;
	}
	o.progress = progress_out();
	o.program = cli_program();
	rc = trim_run(&o, &r, err, sizeof(err));
	fault_plan_free(&base);
	scenario_free(&scn);
	if (rc) {
		fprintf(stderr, "gpuiso: %s\n", err[0] ? err : strerror(-rc));
		return cli_exit(rc);
	}
	printf("trim: %llu -> %llu events in %llu replays (%.1f s)%s; reproduce: ",
	       (unsigned long long)r.events, (unsigned long long)r.kept,
	       (unsigned long long)r.replays, r.seconds,
	       r.budget_spent ? ", the replay budget spent" : "");
	trim_reproducer(&o, &r, stdout); /* a write error: output_checked() */
	printf("\n");
	return EXIT_OK;
}
