/* SPDX-License-Identifier: MIT */
/* The gpuiso command as a user runs it: exit codes, --help, errors that say where. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/common/jsonq.h"

struct run {
	int status;
	char out[65536];
	char err[65536];
};

static void slurp(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n = f ? fread(buf, 1, len - 1, f) : 0;

	buf[n] = '\0';
	if (f)
		fclose(f);
}

/* Run build/gpuiso with @args (NULL-terminated) from the source root. */
static void gpuiso(struct run *r, const char *const *args)
{
	const char *bin = getenv("GPUISO_BIN"), *root = getenv("GPUISO_SOURCE_ROOT");
	char out[] = "/tmp/gpuiso-cli-outXXXXXX", err[] = "/tmp/gpuiso-cli-errXXXXXX";
	char *argv[32] = { (char *)"gpuiso" };
	posix_spawn_file_actions_t fa;
	int fo = mkstemp(out), fe = mkstemp(err), status;
	pid_t pid;
	size_t i;

	cr_assert(bin && root, "GPUISO_BIN and GPUISO_SOURCE_ROOT must be set");
	cr_assert(fo >= 0 && fe >= 0);
	for (i = 0; args[i]; i++)
		argv[i + 1] = (char *)args[i];
	argv[i + 1] = NULL;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fo, 1);
	posix_spawn_file_actions_adddup2(&fa, fe, 2);
	cr_assert_eq(chdir(root), 0);
	cr_assert_eq(posix_spawn(&pid, bin, &fa, NULL, argv, NULL), 0);
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	posix_spawn_file_actions_destroy(&fa);
	close(fo);
	close(fe);
	cr_assert(WIFEXITED(status), "gpuiso died");
	r->status = WEXITSTATUS(status);
	slurp(out, r->out, sizeof(r->out));
	slurp(err, r->err, sizeof(r->err));
	unlink(out);
	unlink(err);
}

#define RUN(r, ...) gpuiso(r, (const char *const[]){ __VA_ARGS__, NULL })

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
	static const char *const cmds[][3] = {
		{ "version", "--help" }, { "scenario", "explain", "--help" }, { "bench", "--help" },
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
}

Test(cli, unknown_command_and_option_are_bad_input)
{
	struct run r;

	RUN(&r, "frobnicate");
	cr_assert_eq(r.status, 2);
	cr_assert(strstr(r.err, "unknown command 'frobnicate'"), "%s", r.err);
	RUN(&r, "scenario", "explain", "--bogus", "traces/scenarios/default.yaml");
	cr_assert_eq(r.status, 2);
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

Test(cli, missing_file_is_bad_input)
{
	struct run r;

	RUN(&r, "scenario", "explain", "no/such/file.yaml");
	cr_assert_eq(r.status, 2);
	cr_assert(strstr(r.err, "no/such/file.yaml"), "%s", r.err);
	RUN(&r, "scenario", "explain");
	cr_assert_eq(r.status, 2);
}
