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
};

struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *usage;
	const char *summary;
};

/**
 * usage_error() - say what is wrong with the command line, then the usage.
 * @usage: the command's usage line.
 * @fmt: printf format with one %s.
 * @arg: its argument.
 *
 * Return: EXIT_INPUT.
 */
int usage_error(const char *usage, const char *fmt, const char *arg);

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

/*
 * The measurement commands (tools/measure.c). Each takes the words after
 * the command's name (argv[0] reads "gpuiso NAME", for getopt's messages) and
 * returns an enum exit_code.
 */

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
