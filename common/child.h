/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_COMMON_CHILD_H
#define GPUISO_COMMON_CHILD_H

#include <stddef.h>
#include <sys/types.h>

/*
 * Child processes that do one risky job for this one: parse or decode what a
 * third-party library may crash or hang on. Such a child is named (in ps and
 * /proc/PID/comm), dies with its parent, writes no core file, and dies of its
 * own fatal signals rather than a sanitizer's report of them: how it ended is
 * the answer its parent reads.
 */

/**
 * child_fork() - fork a child for one job.
 * @name: its name, at most 15 bytes are kept.
 *
 * Return: in the parent, the child's pid or -1 (errno set); in the child, 0.
 */
pid_t child_fork(const char *name);

/**
 * child_reap() - wait for @pid to end, through signals.
 * @pid: a child of this process.
 *
 * Return: its wait status, or -1 if it cannot be waited for.
 */
int child_reap(pid_t pid);

/**
 * child_died_of() - how a child that did not finish its job ended, in words.
 * @status: its wait status.
 * @buf: out: "crashed (Aborted)", "exited with status 3", ...
 * @len: size of @buf.
 *
 * Return: @buf.
 */
const char *child_died_of(int status, char *buf, size_t len);

#endif
