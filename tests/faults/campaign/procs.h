/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_TESTS_PROCS_H
#define GPUISO_TESTS_PROCS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/*
 * Test-only process handling, for the suites that watch a campaign's or a
 * sweep's runs from outside: start a shell command as a process of ours,
 * find its children by name (/proc), wait for a process with a deadline.
 */

/* Start `sh -c "exec @cmd"`: the pid is the command's own. */
pid_t procs_start(const char *cmd);

/* Up to @max children of @parent named @name (/proc/PID/comm) into @out; how many. */
size_t procs_children(pid_t parent, const char *name, pid_t *out, size_t max);

/*
 * Wait up to @ms for @pid (a child of ours) to end: true and its @status
 * when it did; false when it is still going (it is left as it is).
 */
bool procs_wait(pid_t pid, int ms, int *status);

/* Whether @pid still runs (exists and is not a zombie). */
bool procs_alive(pid_t pid);

#endif
