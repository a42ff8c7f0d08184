/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_COMMON_CHILD_H
#define GPUISO_COMMON_CHILD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * Child processes that do not outlive their parent. A run forked by a
 * campaign or a sweep, a trial parse or a decoder is of no use once the
 * process that waits for it has gone, and one stuck for ever (a deadlock
 * inherited at fork()) would stay behind for ever: the kernel kills it
 * instead.
 *
 * A child that does one risky job for its parent (parse or decode what a
 * third-party library may crash or hang on) is also forked with
 * child_fork(): it writes no core file and dies of its own fatal signals
 * rather than a sanitizer's report of them, as how it ended is the answer
 * its parent reads.
 */

/**
 * child_tie() - in a child just forked: die (SIGKILL) with the parent.
 * @parent: the parent's pid, from getpid() before fork().
 * @name: the child's name in ps and /proc/PID/comm (at most 15 characters), or NULL.
 *
 * The kernel sends the signal when the thread that called fork() ends (or
 * the whole process): fork from a thread that lives as long as the child
 * must. A parent that died before the signal was asked for is seen in
 * getppid() no longer being @parent. The setting survives execve().
 *
 * Return: 0, or -ESRCH when the parent has gone already (the child should
 * _exit() at once), or the negative errno of prctl().
 */
int child_tie(pid_t parent, const char *name);

/**
 * child_fork() - fork a child for one risky job: tied (child_tie()), no
 * core file, the fatal signals' default actions.
 * @name: its name, at most 15 bytes are kept.
 *
 * Return: in the parent, the child's pid or -1 (errno set); in the child, 0.
 */
pid_t child_fork(const char *name);

/**
 * child_reap() - wait for @pid to end, through signals.
 * @pid: a child of this process.
 * @peak_rss: out: the child's peak resident set in bytes (may be NULL).
 *
 * Return: its wait status, or -1 if it cannot be waited for.
 */
int child_reap(pid_t pid, uint64_t *peak_rss);

/**
 * child_ends_within() - wait up to @ms for @pid to end, without reaping it.
 * @pid: a child of this process.
 * @ms: how long.
 *
 * For a child that has finished its job (or closed its pipe) and should be
 * gone: one that is not by then is stuck, and its parent kills it rather
 * than wait for ever in child_reap().
 *
 * Return: false if it still runs after @ms; true if it ended, or if that
 * cannot be known (then child_reap() waits as it would have).
 */
bool child_ends_within(pid_t pid, unsigned int ms);

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
