/* SPDX-License-Identifier: MIT */
/*
 * The gpuiso command as a user runs it: exit codes, --help, errors that say
 * where, outputs that cannot be written, progress. Replays and traces:
 * test_cli_replay.c.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/common/jsonq.h"
#include "run_gpuiso.h"
#include "scratch.h"

Test(cli, no_arguments_is_bad_input)
{
	struct run r;

	RUN(&r, NULL);
	cr_assert_eq(r.status, 2);
	cr_assert(strstr(r.err, "usage: gpuiso"), "%s", r.err);
}

Test(cli, help_lists_the_commands)
{
	struct run r;

	RUN(&r, "--help");
	cr_assert_eq(r.status, 0);
	cr_assert(strstr(r.out, "scenario explain"), "%s", r.out);
	cr_assert(strstr(r.out, "bench"), "%s", r.out);
}

Test(cli, every_command_has_help)
{
	/* every command, and every group of commands (its usage lines) */
	static const char *const cmds[][4] = {
		{ "version", "--help" }, { "scenario", "explain", "--help" }, { "bench", "--help" },
		{ "trace", "gen", "--help" }, { "trace", "info", "--help" }, { "trace", "dump", "--help" },
		{ "trace", "make", "--help" }, { "trace", "trim", "--help" }, { "replay", "--help" },
		{ "faults", "list", "--help" }, { "campaign", "run", "--help" }, { "sweep", "--help" },
		{ "store", "add", "--help" }, { "store", "list", "--help" },
		{ "store", "findings", "--help" }, { "compare", "--help" },
		{ "changes", "--help" }, { "dash", "--help" }, { "scenario", "--help" },
		{ "trace", "--help" }, { "faults", "-h" }, { "campaign", "--help" }, { "store", "--help" },
		{ "lint-driver", "--help" },
	};
	struct run r;

	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		gpuiso(&r, cmds[i]);
		cr_assert_eq(r.status, 0, "%s", cmds[i][0]);
		cr_assert(strstr(r.out, "usage: gpuiso"), "%s: %s", cmds[i][0], r.out);
	}
}

Test(cli, version_names_backends)
{
	struct run r;

	RUN(&r, "version");
	cr_assert_eq(r.status, 0);
	cr_assert(strstr(r.out, "gpuiso 0."), "%s", r.out);
	cr_assert(strstr(r.out, "backends: sim"), "%s", r.out);
	cr_assert(strstr(r.out, "build: "), "%s", r.out);
}

Test(cli, version_as_an_option_and_as_json)
{
	char value[128], first[256];
	struct run r;

	RUN(&r, "version");
	cr_assert_eq(r.status, 0);
	snprintf(first, sizeof(first), "%.*s", (int)strcspn(r.out, "\n"), r.out);
	RUN(&r, "--version");
	cr_assert_eq(r.status, 0);
	cr_assert_eq(strncmp(r.out, first, strlen(first)), 0, "%s against %s", r.out, first);
	RUN(&r, "-V");
	cr_assert_eq(r.status, 0);
	cr_assert_eq(strncmp(r.out, first, strlen(first)), 0, "%s against %s", r.out, first);

	RUN(&r, "--version", "--json");
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_assert(jsonq_valid(r.out), "%s", r.out);
	cr_assert(jsonq_get(r.out, "schema", value, sizeof(value)));
	cr_assert_str_eq(value, "gpuiso-version/1");
	cr_assert(jsonq_get(r.out, "version", value, sizeof(value)));
	cr_assert(strstr(first, value), "%s in %s", value, first);
	cr_assert(jsonq_get(r.out, "backends.0", value, sizeof(value)));
	cr_assert_str_eq(value, "sim");
	cr_assert(jsonq_get(r.out, "features.2", value, sizeof(value)));
	cr_assert_str_eq(value, "ctf-replay");
	RUN(&r, "version", "--json", "extra");
	cr_assert_eq(r.status, 2, "%s", r.out);
}

Test(cli, unknown_command_and_option_are_bad_input)
{
	struct run r;

	RUN(&r, "frobnicate");
	cr_assert_eq(r.status, 2);
	cr_assert(strstr(r.err, "unknown command 'frobnicate'"), "%s", r.err);
	RUN(&r, "scenario", "explain", "--bogus", "traces/scenarios/default.yaml");
	cr_assert_eq(r.status, 2);
	cr_assert(strstr(r.err, "gpuiso scenario explain: unrecognized option '--bogus'"), "%s", r.err);
	RUN(&r, "bench", "--suite", "nope");
	cr_assert_eq(r.status, 2);
	cr_assert(strstr(r.err, "unknown suite 'nope'"), "%s", r.err);
}

Test(cli, explain_default_as_json)
{
	struct run r;
	char mode[32];

	RUN(&r, "scenario", "explain", "traces/scenarios/default.yaml", "--json");
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_assert(jsonq_valid(r.out), "%s", r.out);
	cr_assert(jsonq_get(r.out, "adapters.0.mode", mode, sizeof(mode)));
	cr_assert_str_eq(mode, "physical");
}

Test(cli, explain_of_a_failing_adapter_still_exits_0)
{
	struct run r;

	RUN(&r, "scenario", "explain", "traces/scenarios/logical-remap.yaml");
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_assert(strstr(r.out, "did not start"), "%s", r.out);
}

Test(cli, malformed_scenario_says_file_line_col_and_exits_2)
{
	struct run r;

	RUN(&r, "scenario", "explain", "tests/data/scenarios/bad-unknown-key.yaml");
	cr_assert_eq(r.status, 2);
	cr_assert(strstr(r.err, "tests/data/scenarios/bad-unknown-key.yaml:3:3: error:"), "%s", r.err);
	cr_assert_eq(r.out[0], '\0', "nothing on stdout for bad input");
	RUN(&r, "scenario", "explain", "tests/data/scenarios/bad-syntax.yaml");
	cr_assert_eq(r.status, 2);
	cr_assert(strstr(r.err, "bad-syntax.yaml:"), "%s", r.err);
}

/*
 * A scenario the model cannot hold is bad input too, said where: explain
 * and replay refuse it as they load it, not when the model is built.
 */
Test(cli, impossible_scenario_values_say_file_line_col_and_exit_2)
{
	static const char *const cases[][2] = {
		{ "tests/data/scenarios/bad-vram.yaml", "bad-vram.yaml:6:16: error: adapters[0].physical[0].vram: 0xFFFFFFFFFFFFFFFF" },
		{ "tests/data/scenarios/bad-memory-beyond.yaml", "bad-memory-beyond.yaml:3:11: error: system.memory: 0xFFFFFFFFFFFFF000" },
	};
	struct run r;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		RUN(&r, "scenario", "explain", cases[i][0]);
		cr_expect_eq(r.status, 2, "explain %s: %s", cases[i][0], r.err);
		cr_expect(strstr(r.err, cases[i][1]), "explain: %s", r.err);
		cr_expect_eq(r.out[0], '\0', "nothing on stdout for bad input");
		RUN(&r, "replay", "traces/desktop", "--scenario", cases[i][0]);
		cr_expect_eq(r.status, 2, "replay %s: %s", cases[i][0], r.err);
		cr_expect(strstr(r.err, cases[i][1]), "replay: %s", r.err);
	}
}

Test(cli, missing_file_is_bad_input)
{
	struct run r;

	RUN(&r, "scenario", "explain", "no/such/file.yaml");
	cr_assert_eq(r.status, 2);
	cr_assert(strstr(r.err, "no/such/file.yaml"), "%s", r.err);
	RUN(&r, "scenario", "explain");
	cr_assert_eq(r.status, 2);
}

/* Every command reads a missing input the same way (common/failure.h, one table). */
Test(cli, a_missing_input_is_bad_input_in_every_command)
{
	static const char *const cmds[][8] = {
		{ "replay", "no/such/trace", NULL },
		{ "trace", "info", "no/such/trace", NULL },
		{ "trace", "dump", "no/such/trace", NULL },
		{ "trace", "make", "no/such/file.txt", "-o", "no/such/out", NULL },
		{ "sweep", "no/such/trace", "-o", "no/such/out", NULL },
		{ "campaign", "run", "no/such/campaign.yaml", "-o", "no/such/out", NULL },
		{ "lint-driver", "no/such/driver.sys", NULL },
		{ "store", "list", "no/such/store.db", NULL },
	};
	struct run r;

	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		gpuiso(&r, cmds[i]);
		cr_assert_eq(r.status, 2, "%s %s: %s", cmds[i][0], cmds[i][1], r.err);
		cr_assert(strstr(r.err, "no/such/"), "%s %s: %s", cmds[i][0], cmds[i][1], r.err);
	}
}

TestSuite(cli, .fini = scratch_cleanup);

/*
 * A path no output can take, even as root: @name under a regular file
 * (outputs make the folders they lack, so a missing folder no longer is one).
 */
static const char *unwritable(const char *name)
{
	static char p[320];
	const char *file = tpath("plain-file");
	FILE *f = fopen(file, "a");

	cr_assert_not_null(f);
	fclose(f);
	snprintf(p, sizeof(p), "%s/%s", file, name);
	return p;
}

/* sweep loads its scenario as explain does: a value the model cannot hold says where. */
Test(cli, sweep_of_an_impossible_scenario_says_where)
{
	struct run r;

	RUN(&r, "sweep", "traces/desktop", "--scenario", "tests/data/scenarios/bad-vram.yaml", "-o",
	    tpath("sweep"));
	cr_assert_eq(r.status, 2, "%s", r.err);
	cr_assert(strstr(r.err, "bad-vram.yaml:6:16: error:"), "%s", r.err);
}

/* explain builds the model on the backend the scenario names, or says why it cannot. */
Test(cli, explain_on_the_backend_the_scenario_names_or_why_not)
{
	const char *one = tpath("vfio-one.yaml"), *three = tpath("vfio-three.yaml");
	char cmd[2048];
	struct run r;
	const char *root = getenv("GPUISO_SOURCE_ROOT");

	snprintf(cmd, sizeof(cmd), "{ echo 'backend: vfio:0000:00:1f.7'; cat %s/traces/scenarios/vfio-edu.yaml; } > %s"
		 " && { echo 'backend: vfio:0000:00:1f.7'; cat %s/traces/scenarios/lda-chain.yaml; } > %s",
		 root, one, root, three);
	cr_assert_eq(system(cmd), 0);
	RUN(&r, "scenario", "explain", three);
	cr_assert_eq(r.status, 2, "%s%s", r.out, r.err);
	cr_assert(strstr(r.err, "backend vfio:0000:00:1f.7: the vfio backend drives one device; "
				"the machine has 3 GPUs"), "%s", r.err);
	RUN(&r, "scenario", "explain", one);
	cr_assert_eq(r.status, 3, "%s%s", r.out, r.err);
	cr_assert(strstr(r.err, "backend vfio:0000:00:1f.7: 0000:00:1f.7:"), "%s", r.err);
	cr_assert_eq(r.out[0], '\0', "nothing explained on a backend that is not there: %s", r.out);
}

/* Where output cannot go is said before the work, not after it. */
Test(cli, an_output_that_cannot_be_written_is_said_first)
{
	struct run r;

	RUN(&r, "sweep", "traces/power-cycle", "--scenario", "traces/scenarios/lda-chain.yaml",
	    "-o", "/nonexistent/gpuiso-out");
	cr_assert_eq(r.status, 3, "%s", r.err);
	cr_assert(strstr(r.err, "/nonexistent/gpuiso-out: No such file"), "%s", r.err);
	RUN(&r, "bench", "--json", unwritable("gpuiso-bench.json"));
	cr_assert_eq(r.status, 3, "%s", r.err);
	cr_assert(strstr(r.err, "cannot write ") &&
		  strstr(r.err, "plain-file/gpuiso-bench.json: Not a directory"), "%s", r.err);
	cr_assert_eq(r.out[0], '\0', "no suite ran: %s", r.out);
	RUN(&r, "replay", "traces/desktop", "--cache-dir", "");
	cr_assert_eq(r.status, 2, "%s", r.err);
}

/*
 * Figures measured outside gpuiso (bench/sweep.sh, bench/shards.sh) become
 * bench JSON by gpuiso's own writer: notes holding a path that is not UTF-8
 * or a quote are JSON still; a figure it cannot take is bad input.
 */
Test(cli, bench_records_figures_measured_outside_as_bench_json)
{
	static const char *const bad[] = { "a=1", "=1:s", "a=:s", "a=1x:s", "a=inf:s", "a=1:" };
	char value[128];
	struct run r;

	RUN(&r, "bench", "--suite", "sweep", "--notes", "on /t/\xff\"q\"", "--metric",
	    "sweep.fork_s=1.5:s", "--metric", "sweep.runs_per_s=2e3:ops/s", "--json", "-");
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_assert(jsonq_valid(r.out), "%s", r.out);
	cr_assert(jsonq_get(r.out, "notes", value, sizeof(value)));
	cr_assert_str_eq(value, "on /t/\\udcff\\\"q\\\"");
	cr_assert(jsonq_get(r.out, "suite", value, sizeof(value)));
	cr_assert_str_eq(value, "sweep");
	cr_assert(strstr(r.out, "\"sweep.fork_s\": {\n      \"value\": 1.5,\n      \"unit\": \"s\""),
		  "%s", r.out);
	cr_assert(strstr(r.out, "\"sweep.runs_per_s\": {\n      \"value\": 2000,\n"
				"      \"unit\": \"ops/s\""), "%s", r.out);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		RUN(&r, "bench", "--suite", "sweep", "--metric", bad[i], "--json", "-");
		cr_assert_eq(r.status, 2, "%s: %s", bad[i], r.err);
		cr_assert(strstr(r.err, bad[i]), "%s: %s", bad[i], r.err);
	}
	RUN(&r, "bench", "--suite", "a b", "--metric", "a=1:s", "--json", "-");
	cr_assert_eq(r.status, 2, "%s", r.err);
	RUN(&r, "bench", "--suite", "sweep", "--metric", "a=1:s");
	cr_assert_eq(r.status, 2, "no --json: %s", r.err);
	RUN(&r, "bench", "--metric", "a=1:s", "--json", "-");
	cr_assert_eq(r.status, 2, "no --suite: %s", r.err);
	RUN(&r, "bench", "--suite", "sweep", "--metric", "a=1:s", "--json", unwritable("b.json"));
	cr_assert_eq(r.status, 3, "%s", r.err);
}

Test(cli, output_that_cannot_be_written_is_an_environment_error)
{
	char cmd[4096];
	int status;

	snprintf(cmd, sizeof(cmd), "cd '%s' && '%s' trace info traces/desktop > /dev/full 2>/dev/null",
		 getenv("GPUISO_SOURCE_ROOT"), getenv("GPUISO_BIN"));
	status = system(cmd);
	cr_assert(WIFEXITED(status));
	cr_assert_eq(WEXITSTATUS(status), 3);
}

Test(cli, faults_list_and_a_faults_file)
{
	const char *bad = tpath("bad-faults.yaml"), *good = tpath("faults.yaml");
	char value[256], path[64], first[64];
	size_t n = 0;
	struct run r;
	FILE *f;

	RUN(&r, "faults", "list");
	cr_assert_eq(r.status, 0);
	cr_assert(strstr(r.out, "fbsave/map_chunk"), "%s", r.out);
	cr_assert(strstr(r.out, "iommu/iova_alloc"), "%s", r.out);
	snprintf(first, sizeof(first), "%.*s", (int)strcspn(r.out, " "), r.out);
	for (const char *l = r.out; *l; l = strchr(l, '\n') + 1)
		n++;

	/* the same points in the same order, as JSON */
	RUN(&r, "faults", "list", "--json");
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_assert(jsonq_valid(r.out), "%s", r.out);
	cr_assert(jsonq_get(r.out, "schema", value, sizeof(value)));
	cr_assert_str_eq(value, "gpuiso-faults/1");
	cr_assert(jsonq_get(r.out, "points.0.name", value, sizeof(value)));
	cr_assert_str_eq(value, first);
	snprintf(path, sizeof(path), "points.%zu.means", n - 1);
	cr_assert(jsonq_get(r.out, path, value, sizeof(value)) && value[0], "%s", r.out);
	snprintf(path, sizeof(path), "points.%zu.name", n);
	cr_assert_not(jsonq_get(r.out, path, value, sizeof(value)), "%zu points: %s", n, r.out);

	f = fopen(bad, "w");
	fputs("faults:\n  - point: fbsave/pin\n    nth: lots\n", f);
	fclose(f);
	RUN(&r, "replay", "traces/power-cycle", "--faults", bad);
	cr_assert_eq(r.status, 2);
	cr_assert(strstr(r.err, "bad-faults.yaml:3:10: error:"), "%s", r.err);

	f = fopen(good, "w");
	fputs("faults:\n  - point: fbsave/pin\n    probability: 1\n", f);
	fclose(f);
	RUN(&r, "replay", "traces/power-cycle", "--scenario", "traces/scenarios/lda-chain.yaml",
	    "--faults", good);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_assert(strstr(r.out, "(0 pinned,"), "%s", r.out);
}

/* --json OUT makes the folders above OUT (the README's runs/desktop), or says which output failed. */
Test(cli, json_outputs_make_their_folders)
{
	char one[256], many[256], file[256], blocked[300];
	struct stat st;
	struct run r;
	FILE *f;

	snprintf(one, sizeof(one), "%s", tpath("runs/2026-11-28/desktop.json"));
	snprintf(many, sizeof(many), "%s", tpath("runs/desktop"));
	RUN(&r, "replay", "traces/desktop", "--json", one);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_assert_eq(stat(one, &st), 0, "%s", one);
	RUN(&r, "replay", "traces/desktop", "--repeat", "2", "--json", many);
	cr_assert_eq(r.status, 0, "%s", r.err);
	snprintf(blocked, sizeof(blocked), "%s/repeat-2.json", many);
	cr_assert_eq(stat(blocked, &st), 0, "%s", blocked);

	snprintf(file, sizeof(file), "%s", tpath("a-file"));
	f = fopen(file, "w");
	cr_assert_not_null(f);
	fclose(f);
	snprintf(blocked, sizeof(blocked), "%s/out.json", file);
	RUN(&r, "replay", "traces/desktop", "--json", blocked);
	cr_assert_eq(r.status, 3, "%s", r.err);
	cr_assert(strstr(r.err, "writing ") && strstr(r.err, "a-file/out.json: Not a directory"),
		  "%s", r.err);
	RUN(&r, "replay", "traces/desktop", "--repeat", "2", "--json", blocked);
	cr_assert_eq(r.status, 3, "%s", r.err);
	cr_assert(strstr(r.err, "making the --json folder ") && strstr(r.err, "Not a directory"),
		  "%s", r.err);
}

/* Progress goes to stderr whether or not it is a terminal (logs show it); -q silences it. */
Test(cli, long_work_reports_progress_on_stderr_unless_quiet)
{
	struct run r;

	RUN(&r, "sweep", "traces/desktop", "--points", "fbsave/*", "-o", tpath("loud"));
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_assert(strstr(r.err, "sweep: 0 runs to do"), "not a terminal, and still said: %s", r.err);
	RUN(&r, "sweep", "traces/desktop", "--points", "fbsave/*", "-o", tpath("quiet"), "-q");
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_assert_null(strstr(r.err, "runs to do"), "%s", r.err);
	RUN(&r, "trace", "gen", "--profile", "desktop", "--events", "100", "-o", tpath("q"), "-q");
	cr_assert_eq(r.status, 0, "%s", r.err);
	RUN(&r, "replay", tpath("q"), "--quiet", "--no-cache");
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_assert_str_empty(r.err);
	RUN(&r, "--help");
	cr_assert(strstr(r.out, "a bar on a terminal, a line every 10 s elsewhere; -q: none"), "%s",
		  r.out);
}
