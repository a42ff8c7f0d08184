/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_COMMON_CHILD_H
#define GPUISO_COMMON_CHILD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

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
 * child_fork_plain() - fork(), with the process's other threads kept from
 * holding a lock the child would inherit.
 *
 * A child of a process with other threads inherits, held for ever, every
 * lock one of them held at fork(). gpuiso's only other threads are
 * LTTng-UST's listener threads, which take the dynamic loader's lock for
 * their state dumps (glibc resets some of the loader's locks in a child,
 * not that one): a child that then loads a library (babeltrace2's plugins)
 * blocked for ever. When LTTng-UST is in the process, its fork hooks hold
 * those threads off around the fork(), as its own fork wrapper does; the
 * child is made a tracing process of its own only when a gpuiso
 * tracepoint is being recorded (otherwise none can fire in it: its copy of
 * their state never changes), which saves every child of a sweep a
 * registration with the session daemon (it tripled a sweep's time).
 *
 * Every fork() of gpuiso goes through here; child_fork() adds what a child
 * for one risky job needs.
 *
 * Return: as fork().
 */
pid_t child_fork_plain(void);

/**
 * child_fork_set_traced() - say how child_fork_plain() learns whether this
 * process's tracepoints are being recorded now.
 * @traced: returns true when any of them is enabled; NULL: never.
 *
 * Called once, by whoever defines the tracepoints (replay/trace.c).
 */
void child_fork_set_traced(bool (*traced)(void));

/**
 * child_fork_traced() - whether a child forked now would be a traced
 * process of its own, with LTTng-UST's threads started again in it.
 *
 * Return: true when this process's tracepoints are being recorded.
 */
bool child_fork_traced(void);

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

/*
 * Watching a child that does one risky job (a parse, a decode) for its
 * parent, by the child's own CPU time rather than the clock on the wall:
 * on a loaded machine a child may wait long for a core, and a large input
 * takes long, and neither is the input's fault. A child that burns CPU time
 * without moving on through its input loops on it (the library's answer to
 * that input: bad input); one that neither moves nor runs is blocked on
 * something that is not its input (an environment problem).
 */

/* What a watched child is doing (child_pace_check()). */
enum child_pace_verdict {
	CHILD_MOVING,    /* making progress, or running towards it */
	CHILD_SPINNING,  /* used its CPU limit since it last moved on */
	CHILD_STUCK,     /* not running, and not moving, for its wait limit */
};

struct child_pace {
	pid_t pid;
	clockid_t cpu;            /* the child's CPU-time clock */
	bool cpu_known;           /* false: its CPU time cannot be read; spin is not judged */
	uint64_t mark;            /* its progress, as last seen */
	uint64_t cpu_at_mark_ns;  /* its CPU time then */
	uint64_t waited_ns;       /* wall time waited for it since, as the caller counted */
	uint64_t cpu_ns;          /* its CPU time when last looked at */
	char state;               /* its scheduler state when last looked at ('R', 'S', 'D', 'T', ...) */
};

/**
 * child_pace_start() - start watching @pid.
 * @p: out: the watch.
 * @pid: a child of this process.
 */
void child_pace_start(struct child_pace *p, pid_t pid);

/**
 * child_pace_check() - how the child is doing.
 * @p: the watch.
 * @mark: its progress now (bytes read, events decoded): any change is progress.
 * @waited_ns: wall time the caller waited for it since the last check.
 * @spin_s: CPU seconds it may use without progress before it is spinning.
 * @stuck_s: seconds waited for it, without progress and without it running,
 *           before it is stuck.
 *
 * Only time the caller spent waiting counts towards @stuck_s, so a child
 * blocked because its parent was busy elsewhere is not stuck.
 *
 * Return: the verdict.
 */
enum child_pace_verdict child_pace_check(struct child_pace *p, uint64_t mark, uint64_t waited_ns,
					 unsigned int spin_s, unsigned int stuck_s);

/**
 * child_pace_say() - what a spinning or stuck child was doing, in words.
 * @p: the watch, after a check that said so.
 * @v: that verdict.
 * @buf: out: "used 10 s of CPU time without moving on", "neither ran nor
 *       moved on for 30 s (state S, waiting in futex_do_wait)".
 * @len: size of @buf.
 *
 * Return: @buf.
 */
const char *child_pace_say(const struct child_pace *p, enum child_pace_verdict v, char *buf,
			   size_t len);

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
