/* SPDX-License-Identifier: MIT */
/*
 * gpuiso: the command line. main() only parses and dispatches: each
 * command's options are parsed in the file of its group (tools/cli.h), and
 * what it does lives in the libraries, where tests reach it directly.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const struct command commands[] = {
	{ "version", cmd_version, version_usage, "version and what was compiled in" },
	{ "scenario explain", cmd_scenario_explain, scenario_explain_usage,
	  "validate a scenario and print what the model decides per adapter" },
	{ "scenario from-trace", cmd_scenario_from_trace, scenario_from_trace_usage,
	  "the machine a trace ran on (its DxgKrnl adapter events), as a scenario" },
	{ "trace gen", cmd_trace_gen, trace_gen_usage, "write a synthetic CTF trace" },
	{ "trace info", cmd_trace_info, trace_info_usage, "event counts, time span, discarded events" },
	{ "trace dump", cmd_trace_dump, trace_dump_usage, "a trace's workload events as text, one line each" },
	{ "trace make", cmd_trace_make, trace_make_usage, "a CTF trace from that text" },
	{ "trace trim", cmd_trace_trim, trace_trim_usage,
	  "the smallest part of a trace that still breaks the same way" },
	{ "replay", cmd_replay, replay_usage, "replay a trace through the model; summary and results JSON" },
	{ "faults list", cmd_faults_list, faults_list_usage,
	  "the injection points and what a failure at each means" },
	{ "campaign run", cmd_campaign_run, campaign_run_usage,
	  "run (or resume) a fault-injection campaign" },
	{ "sweep", cmd_sweep, sweep_usage, "fail every injection-point hit of a trace, one at a time" },
	{ "merge", cmd_merge, merge_usage, "the summary of a sweep or campaign run in shards" },
	{ "bench", cmd_bench, bench_usage, "micro and replay benchmarks (bench JSON with --json)" },
	{ "store add", cmd_store_add, store_add_usage, "add run files to a results store (SQLite)" },
	{ "store list", cmd_store_list, store_list_usage, "the runs in a results store" },
	{ "store findings", cmd_store_findings, store_findings_usage,
	  "findings of stored campaigns and sweeps: new, known, gone" },
	{ "compare", cmd_compare, compare_usage, "series by series: before, after, change, verdict" },
	{ "changes", cmd_changes, changes_usage, "where each stored series changed level, and alarms" },
	{ "ack", cmd_ack, ack_usage, "acknowledge the changes of a revision as expected" },
	{ "dash", cmd_dash, dash_usage, "write the static HTML dashboard of a store" },
	{ "lint-driver", cmd_lint_driver, lint_driver_usage, "the HLK import scan of a driver image (.sys)" },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: gpuiso COMMAND [OPTIONS]   (gpuiso COMMAND --help for more)\n\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-19s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "\nlong work (replay, trace gen, trace trim, sweep, campaign run, merge) reports its\n"
		   "progress on stderr: a bar on a terminal, a line every 10 s elsewhere; -q: none\n");
	fprintf(f, "\nexit codes: 0 ok, 1 violations found, 2 bad input, 3 environment problem,\n"
		   "4 incomplete (merge: runs missing), 5 internal error (a bug of gpuiso)\n");
}

/* What a command printed must have reached stdout (a full disk, a closed pipe). */
static int output_checked(int rc)
{
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "gpuiso: writing standard output: %s\n",
			errno ? strerror(errno) : "write error");
		return rc == EXIT_OK || rc == EXIT_FINDINGS ? EXIT_ENV : rc;
	}
	return rc;
}

int main(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? EXIT_INPUT : EXIT_OK;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V"))
		argv[1] = "version"; /* the command, with whatever follows (--json) */
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		const struct command *cmd = &commands[i];
		size_t words = strchr(cmd->name, ' ') ? 2 : 1;
		char name[64];

		if ((size_t)argc <= words)
			continue;
		snprintf(name, sizeof(name), words == 2 ? "%s %s" : "%s", argv[1], argv[2]);
		if (strcmp(name, cmd->name))
			continue;
		/* getopt sees "gpuiso scenario explain" as argv[0], and says so in its messages */
		char prog[80];

		snprintf(prog, sizeof(prog), "gpuiso %s", cmd->name);
		argv[words] = prog;
		return output_checked(cmd->run(argc - (int)words, argv + words));
	}
	/*
	 * A known first word: its commands, on stdout when asked for with
	 * --help, else (a missing or wrong second word) as a usage error.
	 */
	bool known = false, help = argc > 2 && (!strcmp(argv[2], "--help") || !strcmp(argv[2], "-h"));

	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		size_t len = strcspn(commands[i].name, " ");

		if (commands[i].name[len] && !strncmp(argv[1], commands[i].name, len) &&
		    !argv[1][len]) {
			fprintf(help ? stdout : stderr, "usage: %s\n", commands[i].usage);
			known = true;
		}
	}
	if (known)
		return help ? EXIT_OK : EXIT_INPUT;
	fprintf(stderr, "gpuiso: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return EXIT_INPUT;
}
