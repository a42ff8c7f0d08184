/* SPDX-License-Identifier: MIT */
/*
 * The fault-injection commands: faults list, campaign run, sweep, and
 * merge (the summary of either run in shards). Each parses its options and
 * calls faults/campaign/.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "common/json.h"
#include "common/units.h"
#include "faults/campaign/campaign.h"
#include "faults/campaign/sweep.h"
#include "faults/faults.h"
#include "replay/replay.h"

const char campaign_run_usage[] =
	"gpuiso campaign run FILE.yaml -o DIR [--jobs N] [--run-timeout SECONDS]\n"
	"                    [--stall-timeout SECONDS] [--shard I/N] [-q] [-v]\n"
	"  a run still going after --run-timeout (default: no limit), or making no progress\n"
	"  for --stall-timeout (default: 60), is killed and fails as hung;\n"
	"  --shard  part I (from 0) of N of the runs, into DIR with the other parts; no\n"
	"           summary: gpuiso merge DIR writes it once every part is done (docs/slurm.md)";

/* --shard I/N. */
static int parse_shard(const char *arg, const char *usage, struct shard *sh)
{
	int rc = shard_parse(arg, sh);

	if (rc == -ENOMEM) {
		fprintf(stderr, "gpuiso: --shard: %s\n", strerror(-rc));
		return EXIT_ENV;
	}
	if (rc)
		return usage_error(usage, "--shard takes I/N, 0 <= I < N <= 100000, not '%s'", arg);
	return 0;
}

static void campaign_totals_print(const struct campaign_totals *t, const char *out)
{
	printf("campaign: %u runs (%u resumed), %u passed, %u failed", t->runs, t->resumed,
	       t->passed, t->failed);
	if (t->hung)
		printf(" (%u hung)", t->hung);
	printf(", %u finding%s; %s/summary.json\n", t->findings, t->findings == 1 ? "" : "s", out);
}

/* --run-timeout and --stall-timeout SECONDS: 1 s to a day. */
static int parse_timeout(const char *name, const char *arg, const char *usage, unsigned int *out)
{
	uint64_t s;

	if (units_parse_u64(arg, &s) || !s || s > 86400)
		return usage_error(usage, "--%s takes 1 to 86400 seconds, not '%s'", name, arg);
	*out = (unsigned int)s;
	return 0;
}

int cmd_campaign_run(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' }, { "jobs", required_argument, NULL, 'j' },
		{ "run-timeout", required_argument, NULL, 'T' },
		{ "stall-timeout", required_argument, NULL, 'S' }, { "shard", required_argument, NULL, 'I' },
		{ "help", no_argument, NULL, 'h' }, { "quiet", no_argument, NULL, 'q' }, { 0 },
	};
	struct campaign_opts o = { .jobs = 1 };
	struct campaign_totals t = { 0 };
	char err[8192] = "";
	uint64_t jobs;
	int opt, rc;

	while ((opt = getopt_long(argc, argv, "hvqo:j:", opts, NULL)) != -1) {
		if (opt == 'o') {
			o.out = optarg;
		} else if (opt == 'j') {
			if (units_parse_u64(optarg, &jobs) || !jobs || jobs > 256)
				return usage_error(campaign_run_usage, "--jobs takes 1 to 256, not '%s'",
						   optarg);
			o.jobs = (unsigned int)jobs;
		} else if (opt == 'T') {
			if ((rc = parse_timeout("run-timeout", optarg, campaign_run_usage, &o.run_timeout_s)))
				return rc;
		} else if (opt == 'S') {
			if ((rc = parse_timeout("stall-timeout", optarg, campaign_run_usage,
						&o.stall_timeout_s)))
				return rc;
		} else if (opt == 'I') {
			if ((rc = parse_shard(optarg, campaign_run_usage, &o.shard)))
				return rc;
		} else if (common_opt(opt, campaign_run_usage, &rc)) {
			return rc;
		}
	}
	if (optind + 1 != argc || !o.out)
		return usage_error(campaign_run_usage, "%s", !o.out ? "-o DIR is required" :
				   "one campaign file, please");
	o.file = argv[optind];
	o.progress = progress_out();
	o.program = cli_program();
	rc = campaign_run(&o, &t, err, sizeof(err));
	if (rc)
		return cli_report_error(err, cli_exit(rc));
	if (o.shard.count) {
		/* the findings are the merge's to judge */
		printf("campaign: shard %u/%u: %u runs (%u resumed); once every shard is done: "
		       "gpuiso merge %s\n", o.shard.index, o.shard.count, t.shard_runs, t.resumed, o.out);
		return EXIT_OK;
	}
	campaign_totals_print(&t, o.out);
	return t.failed ? EXIT_FINDINGS : EXIT_OK;
}

const char sweep_usage[] =
	"gpuiso sweep TRACE [--map FILE.yaml]... [--scenario FILE] [--faults BASE.yaml] [--points GLOB]\n"
	"                 -o OUT [--jobs N] [--fork | --from-scratch] [--run-timeout SECONDS]\n"
	"                 [--stall-timeout SECONDS] [--trace-covers window|life] [--shard I/N] [-q] [-v]\n"
	"  fails each hit of each point in turn, one run each, and groups the runs that do not\n"
	"  recover into findings (OUT/summary.txt, OUT/summary.json); each of --jobs workers\n"
	"  replays the trace once and branches at its hits, restoring a snapshot after each run;\n"
	"  --fork         fork a process at each hit instead (where snapshots are not available,\n"
	"                 the sweep says so and forks);\n"
	"  --from-scratch replay the whole trace for each run (the baseline);\n"
	"  TRACE          a CTF folder (or a folder above several), an ftrace trace.dat or an .etl\n"
	"  --map          an import map for a foreign trace, as for replay (up to 8): every run,\n"
	"                 trim and reproducer replays through them\n"
	"  --faults       a base plan every run replays under (e.g. every pin fails): the points\n"
	"                 it arms are not swept, the paths it opens are;\n"
	"  a run still going after --run-timeout (default: no limit), or making no progress\n"
	"  for --stall-timeout (default: 60), is killed and counts as hung;\n"
	"  --trace-covers as for replay: with life, what the trace leaves live is leaked;\n"
	"  --shard        part I (from 0) of N of the runs, into OUT with the other parts, and\n"
	"                 resumed when run again; no summary: gpuiso merge OUT writes it once\n"
	"                 every part is done (docs/slurm.md)";

/* The totals of a sweep; @ran: how long its runs took, and how many met others (a merge ran none). */
static void sweep_totals_print(const struct sweep_totals *t, const char *out, bool ran)
{
	printf("sweep: %llu hits, %llu runs: %llu recovered, %llu reset, %llu violation, %llu crash, "
	       "%llu hung", (unsigned long long)t->hits, (unsigned long long)t->runs,
	       (unsigned long long)t->recovered, (unsigned long long)t->reset,
	       (unsigned long long)t->violation, (unsigned long long)t->crash,
	       (unsigned long long)t->hung);
	if (ran)
		printf(" (%.2f s; %llu stopped where they met the unfailed run, %llu where they met "
		       "an earlier run)", t->seconds, (unsigned long long)t->met,
		       (unsigned long long)t->followed);
	printf("; %zu finding%s: %s/summary.txt\n", t->findings, t->findings == 1 ? "" : "s", out);
}

int cmd_sweep(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "scenario", required_argument, NULL, 's' }, { "points", required_argument, NULL, 'P' },
		{ "output", required_argument, NULL, 'o' }, { "jobs", required_argument, NULL, 'j' },
		{ "faults", required_argument, NULL, 'f' },
		{ "from-scratch", no_argument, NULL, 'F' }, { "run-timeout", required_argument, NULL, 'T' },
		{ "stall-timeout", required_argument, NULL, 'S' }, { "fork", no_argument, NULL, 'K' },
		{ "trace-covers", required_argument, NULL, 'L' }, { "shard", required_argument, NULL, 'I' },
		{ "map", required_argument, NULL, 'm' }, { "help", no_argument, NULL, 'h' },
		{ "quiet", no_argument, NULL, 'q' }, { 0 },
	};
	const char *maps[REPLAY_MAX_MAPS];
	enum trace_covers covers;
	struct sweep_opts o = { .jobs = 1 };
	struct sweep_totals t = { 0 };
	char err[4096] = "";
	uint64_t jobs;
	int opt, rc;

	while ((opt = getopt_long(argc, argv, "hvqo:j:", opts, NULL)) != -1) {
		switch (opt) {
		case 's': o.scenario = cli_data("scenarios", optarg); break;
		case 'P': o.points = optarg; break;
		case 'o': o.out = optarg; break;
		case 'f': o.faults = optarg; break;
		case 'F': o.from_scratch = true; break;
		case 'K': o.fork = true; break;
		case 'm':
			if (o.nmaps == sizeof(maps) / sizeof(maps[0]))
				return usage_error(sweep_usage, "%s", "at most 8 --map files");
			maps[o.nmaps++] = cli_data("maps", optarg);
			o.maps = maps;
			break;
		case 'L':
			if (trace_covers_parse(optarg, &covers))
				return usage_error(sweep_usage, "--trace-covers takes window or life, not '%s'",
						   optarg);
			o.covers = covers;
			break;
		case 'j':
			if (units_parse_u64(optarg, &jobs) || !jobs || jobs > 256)
				return usage_error(sweep_usage, "--jobs takes 1 to 256, not '%s'", optarg);
			o.jobs = (unsigned int)jobs;
			break;
		case 'T':
			if ((rc = parse_timeout("run-timeout", optarg, sweep_usage, &o.run_timeout_s)))
				return rc;
			break;
		case 'S':
			if ((rc = parse_timeout("stall-timeout", optarg, sweep_usage, &o.stall_timeout_s)))
				return rc;
			break;
		case 'I':
			if ((rc = parse_shard(optarg, sweep_usage, &o.shard)))
				return rc;
			break;
		default:
			if (common_opt(opt, sweep_usage, &rc))
				return rc;
		}
	}
	if (optind + 1 != argc || !o.out)
		return usage_error(sweep_usage, "%s", !o.out ? "-o OUT is required" :
				   "one trace, please");
	o.trace = argv[optind];
	o.progress = progress_out();
	o.program = cli_program();
	o.report = stdout;
	rc = sweep_run(&o, &t, err, sizeof(err));
	if (rc)
		return cli_report_error(err, cli_exit(rc));
	if (o.shard.count) {
		/* the findings are the merge's to judge */
		printf("sweep: shard %u/%u: %llu runs (%llu booked before; %llu run now in %.2f s, %llu "
		       "stopped where they met the unfailed run, %llu where they met an earlier run); "
		       "once every shard is done: gpuiso merge %s\n", o.shard.index, o.shard.count,
		       (unsigned long long)t.shard_runs, (unsigned long long)t.resumed,
		       (unsigned long long)t.runs, t.seconds, (unsigned long long)t.met,
		       (unsigned long long)t.followed, o.out);
		return EXIT_OK;
	}
	sweep_totals_print(&t, o.out, true);
	return t.violation || t.crash || t.hung ? EXIT_FINDINGS : EXIT_OK;
}

const char merge_usage[] =
	"gpuiso merge OUT [--jobs N] [-q] [-v]\n"
	"  the summary of a sweep or campaign run in shards (--shard I/N) into OUT, as one\n"
	"  run of all of it writes it: OUT/summary.json, OUT/summary.txt (and the findings'\n"
	"  trimmed reproducers, --jobs at a time). When a shard's runs are missing, it says\n"
	"  which (all of them in OUT/shards/missing) and writes no summary (docs/slurm.md).\n"
	"  Shard files of more than one work (other options or inputs, another sweep's or\n"
	"  campaign's) are refused: it names each work and its files, and merges nothing.\n"
	"  exit: 0 merged, 1 merged with findings, 2 bad input (shard files of other work\n"
	"  among them), 3 environment, 4 incomplete: runs missing, nothing merged";

int cmd_merge(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "jobs", required_argument, NULL, 'j' }, { "help", no_argument, NULL, 'h' },
		{ "quiet", no_argument, NULL, 'q' }, { 0 },
	};
	struct campaign_totals ct;
	struct sweep_totals st;
	struct shard_header h;
	char err[8192] = "";
	bool findings;
	FILE *progress;
	uint64_t jobs = 1;
	int opt, rc;

	while ((opt = getopt_long(argc, argv, "hvqj:", opts, NULL)) != -1) {
		if (opt == 'j') {
			if (units_parse_u64(optarg, &jobs) || !jobs || jobs > 256)
				return usage_error(merge_usage, "--jobs takes 1 to 256, not '%s'", optarg);
		} else if (common_opt(opt, merge_usage, &rc)) {
			return rc;
		}
	}
	if (optind + 1 != argc)
		return usage_error(merge_usage, "%s", "one output folder, please");
	rc = shard_find(argv[optind], &h, err, sizeof(err));
	if (rc)
		return cli_report_error(err, cli_exit(rc));
	progress = progress_out();
	if (!strcmp(h.kind, "sweep")) {
		rc = sweep_merge(argv[optind], &h, (unsigned int)jobs, progress, stdout, cli_program(),
				 &st, err, sizeof(err));
		if (!rc)
			sweep_totals_print(&st, argv[optind], false);
		findings = st.violation || st.crash || st.hung;
	} else {
		rc = campaign_merge(argv[optind], &h, (unsigned int)jobs, progress, cli_program(), &ct,
				    err, sizeof(err));
		if (!rc)
			campaign_totals_print(&ct, argv[optind]);
		findings = ct.failed;
	}
	shard_header_free(&h);
	/* runs missing: nothing merged, and the user is told which */
	if (rc)
		return cli_report_error(err, rc == -ENODATA ? EXIT_INCOMPLETE : cli_exit(rc));
	return findings ? EXIT_FINDINGS : EXIT_OK;
}

const char faults_list_usage[] =
	"gpuiso faults list [--json]\n"
	"  --json  as JSON (gpuiso-faults/1): each point's name and what a failure there means";

static void faults_json(FILE *f)
{
	struct json j;

	json_init(&j, f);
	json_obj_begin(&j, NULL);
	json_str(&j, "schema", "gpuiso-faults/1");
	json_arr_begin(&j, "points");
	for (int p = 0; p < FP_NPOINTS; p++) {
		json_obj_begin(&j, NULL);
		json_str(&j, "name", fp_point_name(p));
		json_str(&j, "means", fp_point_describe(p));
		json_obj_end(&j);
	}
	json_arr_end(&j);
	json_obj_end(&j);
	json_end(&j); /* a write error: output_checked() */
}

int cmd_faults_list(int argc, char **argv)
{
	bool json;
	int rc = cli_json_only(argc, argv, faults_list_usage, &json);

	if (rc >= 0)
		return rc;
	if (json) {
		faults_json(stdout);
		return EXIT_OK;
	}
	for (int p = 0; p < FP_NPOINTS; p++)
		printf("%-22s %s\n", fp_point_name(p), fp_point_describe(p));
	return EXIT_OK;
}
