/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_TESTS_TOOLS_RUN_GPUISO_H
#define GPUISO_TESTS_TOOLS_RUN_GPUISO_H

/* Running build/gpuiso as a user would, from the source root, for CLI tests. */

struct run {
	int status;
	char out[65536];
	char err[65536];
};

/**
 * gpuiso() - run $GPUISO_BIN with @args (NULL-terminated) from
 * $GPUISO_SOURCE_ROOT; asserts that it exited (did not die by a signal).
 * @r: out: exit status, stdout and stderr.
 * @args: the arguments after "gpuiso".
 */
void gpuiso(struct run *r, const char *const *args);

/**
 * gpuiso_stdin() - gpuiso(), its standard input read from the file @in.
 * @r: out: as gpuiso().
 * @in: the file (relative to $GPUISO_SOURCE_ROOT), or NULL to inherit the caller's.
 * @args: the arguments after "gpuiso".
 */
void gpuiso_stdin(struct run *r, const char *in, const char *const *args);

/**
 * run_script() - run a script of the tree (@path, relative to
 * $GPUISO_SOURCE_ROOT) from there, with @args (NULL-terminated) and this
 * process's environment; asserts that it exited.
 * @r: out: as gpuiso().
 * @path: e.g. "bench/kernel-cost".
 * @args: its arguments.
 */
void run_script(struct run *r, const char *path, const char *const *args);

#define RUN(r, ...) gpuiso(r, (const char *const[]){ __VA_ARGS__, NULL })

#endif
