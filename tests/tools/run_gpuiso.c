/* SPDX-License-Identifier: MIT */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "run_gpuiso.h"

static void slurp(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n = f ? fread(buf, 1, len - 1, f) : 0;

	buf[n] = '\0';
	if (f)
		fclose(f);
}

/* Run build/gpuiso with @args (NULL-terminated) from the source root. */
void gpuiso(struct run *r, const char *const *args)
{
	gpuiso_stdin(r, NULL, args);
}

extern char **environ;

/* @path (from the source root) as @argv0 with @args, stdin from @in, in @envp. */
static void run_spawn(struct run *r, const char *path, const char *argv0, const char *in,
		      char *const *envp, const char *const *args)
{
	const char *root = getenv("GPUISO_SOURCE_ROOT");
	char out[] = "/tmp/gpuiso-cli-outXXXXXX", err[] = "/tmp/gpuiso-cli-errXXXXXX";
	char *argv[32] = { (char *)argv0 };
	posix_spawn_file_actions_t fa;
	int fo = mkstemp(out), fe = mkstemp(err), status;
	pid_t pid;
	size_t i;

	cr_assert(path && root, "GPUISO_BIN and GPUISO_SOURCE_ROOT must be set");
	cr_assert(fo >= 0 && fe >= 0);
	for (i = 0; args[i]; i++)
		argv[i + 1] = (char *)args[i];
	argv[i + 1] = NULL;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fo, 1);
	posix_spawn_file_actions_adddup2(&fa, fe, 2);
	if (in)
		posix_spawn_file_actions_addopen(&fa, 0, in, O_RDONLY, 0);
	cr_assert_eq(chdir(root), 0);
	cr_assert_eq(posix_spawn(&pid, path, &fa, NULL, argv, envp), 0);
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	posix_spawn_file_actions_destroy(&fa);
	close(fo);
	close(fe);
	cr_assert(WIFEXITED(status), "%s died", argv0);
	r->status = WEXITSTATUS(status);
	slurp(out, r->out, sizeof(r->out));
	slurp(err, r->err, sizeof(r->err));
	unlink(out);
	unlink(err);
}

/* The same, its standard input read from @in (NULL: inherited). */
void gpuiso_stdin(struct run *r, const char *in, const char *const *args)
{
	run_spawn(r, getenv("GPUISO_BIN"), "gpuiso", in, NULL, args);
}

/* A script of the tree, with this process's environment. */
void run_script(struct run *r, const char *path, const char *const *args)
{
	run_spawn(r, path, path, NULL, environ, args);
}
