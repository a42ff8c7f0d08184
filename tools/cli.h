/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_TOOLS_CLI_H
#define GPUISO_TOOLS_CLI_H

#include <stdbool.h>
#include <stdio.h>

/* What every command of the CLI shares: exit codes and option handling. */

enum exit_code {
	EXIT_OK = 0,
	EXIT_FINDINGS = 1, /* violations, invariant failures, regressions */
	EXIT_INPUT = 2,    /* bad input */
	EXIT_ENV = 3,      /* environment problem */
	EXIT_INCOMPLETE = 4, /* merge: runs are missing, nothing was merged */
	EXIT_INTERNAL = 5, /* a bug of gpuiso: an impossible state stopped the work */
};

struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *usage;
	const char *summary;
};

struct scenario;

/**
 * usage_error() - say what is wrong with the command line, then the usage.
 * @usage: the command's usage line.
 * @fmt: printf format of what is wrong.
 * @...: its arguments.
 *
 * Return: EXIT_INPUT.
 */
int usage_error(const char *usage, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/**
 * common_opt() - handle -h/--help, -v (more output), -q (no progress
 * reports: progress_out()) and unknown options.
 * @opt: getopt's return.
 * @usage: the command's usage line.
 * @rc: out: the exit code when it returns true.
 *
 * Return: true when the command should return *@rc now.
 */
bool common_opt(int opt, const char *usage, int *rc);

/**
 * cli_json_only() - parse the command line of a command whose only option
 * of its own is --json, and which takes no argument.
 * @argc: the command's argument count.
 * @argv: its arguments.
 * @usage: its usage line.
 * @json: out: whether --json was given.
 *
 * Return: -1 to go on, else the exit code to return now (help, or a bad
 * command line, said).
 */
int cli_json_only(int argc, char **argv, const char *usage, bool *json);

/**
 * cli_program() - this gpuiso, as an absolute path: what the reproduce
 * commands it prints name, so that they run the binary that found them,
 * on PATH or not.
 *
 * Return: the path, or NULL where /proc/self/exe cannot be read.
 */
const char *cli_program(void);

/* cli_data()'s buffers: more than a command's --map (8) and scenario options */
#define CLI_DATA_PATHS 16

/**
 * cli_data() - a file gpuiso ships, by name: @arg itself when it is a
 * path (it has a '/') or names a file here; else NAME or NAME.yaml in the
 * installed share/gpuiso/@kind beside the binary, else in the source tree's
 * traces/@kind (a build tree): --scenario lda-chain, --map windows-dxgkrnl.
 * @kind: "scenarios" or "maps".
 * @arg: what the user gave, or NULL.
 *
 * Return: the path to use (@arg when nothing else is found; otherwise a
 * buffer of its own until CLI_DATA_PATHS more calls: one command's maps
 * and scenarios all keep theirs).
 */
const char *cli_data(const char *kind, const char *arg);

/**
 * progress_out() - where long work reports its progress: stderr (a bar on
 * a terminal, periodic lines elsewhere), or NULL after -q.
 *
 * Return: stderr or NULL.
 */
FILE *progress_out(void);

/**
 * text_out() - where a command's text goes: stdout, unless its JSON does.
 * @json: the --json argument, or NULL; "-" writes the JSON to stdout.
 *
 * Return: stdout, or stderr when @json is "-" (so stdout is JSON alone).
 */
FILE *text_out(const char *json);

/**
 * cli_report_error() - say @err, a library's message, on lines of its own.
 * @err: the message ("" says an empty line).
 * @code: what to return.
 *
 * Return: @code.
 */
int cli_report_error(const char *err, int code);

/**
 * cli_exit() - the exit code of a library function's failure, by whose fault
 * it is (failure_of()): the one place the CLI turns an errno into an exit code.
 * @rc: a negative errno of gpuiso's library.
 *
 * Return: EXIT_INPUT, EXIT_ENV or EXIT_INTERNAL.
 */
int cli_exit(int rc);

/**
 * cli_failed() - say that command @cmd failed, "gpuiso: CMD: WHY", WHY being
 * the library's message or, where it wrote none, @rc's words.
 * @cmd: the command, as its usage names it ("trace info").
 * @err: the library's message, or "".
 * @rc: the library's negative errno.
 *
 * Return: cli_exit(@rc).
 */
int cli_failed(const char *cmd, const char *err, int rc);

/**
 * cli_load_scenario() - load a scenario and check it on a backend; what is
 * wrong is said on stderr, with file:line:col (cli_report_error()).
 * @path: the scenario file, or NULL for the built-in default.
 * @backend: the backend it is to run on, or NULL for the one it names.
 * @scn: out: the scenario (scenario_free() it).
 *
 * Return: 0, or the exit code of machine_load()'s failure (cli_exit()).
 */
int cli_load_scenario(const char *path, const char *backend, struct scenario *scn);

/*
 * The commands, one group a file; tools/gpuiso.c's table names them all.
 * Each takes the words after the command's name (argv[0] reads "gpuiso NAME",
 * for getopt's messages) and returns an enum exit_code. Their usage texts
 * are what --help prints.
 */

/* The build (tools/version.c). */

/**
 * cmd_version() - gpuiso version: version and what was compiled in.
 * @argc, @argv: the command line.
 *
 * Return: an enum exit_code.
 */
int cmd_version(int argc, char **argv);
extern const char version_usage[];

/* A scenario's machine at work (tools/model.c). */

/**
 * cmd_scenario_explain() - gpuiso scenario explain: validate a scenario and
 * print what the model decides per adapter.
 * @argc, @argv: the command line.
 *
 * Return: an enum exit_code.
 */
int cmd_scenario_explain(int argc, char **argv);

/**
 * cmd_scenario_from_trace() - gpuiso scenario from-trace: the machine a
 * trace ran on (its DxgKrnl adapter events), as a scenario.
 * @argc, @argv: the command line.
 *
 * Return: an enum exit_code.
 */
int cmd_scenario_from_trace(int argc, char **argv);

/**
 * cmd_replay() - gpuiso replay: replay a trace through the model; summary
 * and results JSON.
 * @argc, @argv: the command line.
 *
 * Return: an enum exit_code.
 */
int cmd_replay(int argc, char **argv);
extern const char scenario_explain_usage[], scenario_from_trace_usage[], replay_usage[];

/* Traces (tools/trace.c). */

/**
 * cmd_trace_gen() - gpuiso trace gen: write a synthetic CTF trace.
 * @argc, @argv: the command line.
 *
 * Return: an enum exit_code.
 */
int cmd_trace_gen(int argc, char **argv);

/**
 * cmd_trace_info() - gpuiso trace info: event counts, time span, discarded events.
 * @argc, @argv: the command line.
 *
 * Return: an enum exit_code.
 */
int cmd_trace_info(int argc, char **argv);

/**
 * cmd_trace_dump() - gpuiso trace dump: a trace's workload events as text,
 * one line each.
 * @argc, @argv: the command line.
 *
 * Return: an enum exit_code.
 */
int cmd_trace_dump(int argc, char **argv);

/**
 * cmd_trace_make() - gpuiso trace make: a CTF trace from that text.
 * @argc, @argv: the command line.
 *
 * Return: an enum exit_code.
 */
int cmd_trace_make(int argc, char **argv);

/**
 * cmd_trace_trim() - gpuiso trace trim: the smallest part of a trace that
 * still breaks the same way.
 * @argc, @argv: the command line.
 *
 * Return: an enum exit_code.
 */
int cmd_trace_trim(int argc, char **argv);
extern const char trace_gen_usage[], trace_info_usage[], trace_dump_usage[], trace_make_usage[],
	trace_trim_usage[];

/* Fault injection (tools/faults.c). */

/**
 * cmd_faults_list() - gpuiso faults list: the injection points and what a
 * failure at each means.
 * @argc, @argv: the command line.
 *
 * Return: an enum exit_code.
 */
int cmd_faults_list(int argc, char **argv);

/**
 * cmd_campaign_run() - gpuiso campaign run: run (or resume) a
 * fault-injection campaign.
 * @argc, @argv: the command line.
 *
 * Return: an enum exit_code.
 */
int cmd_campaign_run(int argc, char **argv);

/**
 * cmd_sweep() - gpuiso sweep: fail every injection-point hit of a trace,
 * one at a time.
 * @argc, @argv: the command line.
 *
 * Return: an enum exit_code.
 */
int cmd_sweep(int argc, char **argv);

/**
 * cmd_merge() - gpuiso merge: the summary of a sweep or campaign run in shards.
 * @argc, @argv: the command line.
 *
 * Return: an enum exit_code.
 */
int cmd_merge(int argc, char **argv);
extern const char faults_list_usage[], campaign_run_usage[], sweep_usage[], merge_usage[];

/* Benchmarks (tools/bench.c). */

/**
 * cmd_bench() - gpuiso bench: the micro, replay and floor suites, or
 * figures measured elsewhere, as bench JSON.
 * @argc, @argv: the command line.
 *
 * Return: an enum exit_code.
 */
int cmd_bench(int argc, char **argv);
extern const char bench_usage[];

/* Driver images (tools/lint_driver.c). */

/**
 * cmd_lint_driver() - gpuiso lint-driver: the HLK import scan of a driver
 * image (.sys).
 * @argc, @argv: the command line.
 *
 * Return: an enum exit_code.
 */
int cmd_lint_driver(int argc, char **argv);
extern const char lint_driver_usage[];

/* The measurement commands (tools/measure.c). */

/**
 * cmd_store_add() - gpuiso store add: keep run files in a results store.
 * @argc, @argv: the command line.
 *
 * Return: an enum exit_code.
 */
int cmd_store_add(int argc, char **argv);

/**
 * cmd_store_list() - gpuiso store list: the runs a store holds.
 * @argc, @argv: the command line.
 *
 * Return: an enum exit_code.
 */
int cmd_store_list(int argc, char **argv);

/**
 * cmd_store_findings() - gpuiso store findings: the findings of stored
 * campaigns and sweeps, new, known or gone.
 * @argc, @argv: the command line.
 *
 * Return: an enum exit_code.
 */
int cmd_store_findings(int argc, char **argv);

/**
 * cmd_compare() - gpuiso compare: two sets of runs, metric by metric, with a verdict.
 * @argc, @argv: the command line.
 *
 * Return: an enum exit_code.
 */
int cmd_compare(int argc, char **argv);

/**
 * cmd_changes() - gpuiso changes: where each stored series changed level.
 * @argc, @argv: the command line.
 *
 * Return: an enum exit_code.
 */
int cmd_changes(int argc, char **argv);

/**
 * cmd_dash() - gpuiso dash: a static HTML dashboard of a store.
 * @argc, @argv: the command line.
 *
 * Return: an enum exit_code.
 */
int cmd_dash(int argc, char **argv);

/**
 * cmd_ack() - gpuiso ack: acknowledge the changes of a revision as expected.
 * @argc, @argv: the command line.
 *
 * Return: an enum exit_code.
 */
int cmd_ack(int argc, char **argv);
extern const char store_add_usage[], store_list_usage[], store_findings_usage[], compare_usage[],
	changes_usage[], dash_usage[], ack_usage[];

#endif
