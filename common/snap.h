/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_COMMON_SNAP_H
#define GPUISO_COMMON_SNAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * In-process snapshots of a single-threaded process: its private writable
 * memory and the place of one function that runs on a stack of its own.
 *
 * snap_open() takes every private writable mapping of the process (the
 * heap, each object's data and bss, anonymous mappings, the function's
 * stack; not the main stack, not shared mappings) under userfaultfd's
 * asynchronous write-protect, and copies what is in them to a shadow.
 * From then on the kernel notes each page written, and PAGEMAP_SCAN hands
 * over the pages written since it was last asked, protecting them again as
 * it does: snap_take() copies those pages to the shadow, snap_restore()
 * copies them back from it. A branch that writes 40 pages costs 40 page
 * copies both ways, whatever the size of the process, where fork() costs
 * in the process's size.
 *
 * The function (snap_start()) yields to its caller with snap_yield(); its
 * caller takes a snapshot, resumes it, and when it yields again restores
 * the snapshot and resumes it from the snapshot's place.
 *
 * Files are part of the snapshot too: each descriptor open at the snapshot
 * is kept by a copy (numbered from 1000 up), so that one a branch closed is
 * open again after the restore, and one a branch opened is closed.
 *
 * What the process may do while snapshots are taken, for a restore to be
 * whole: run one thread; map and unmap no memory (only the heap may grow,
 * through brk; never shrink it: mallopt() M_MMAP_MAX 0 and M_TRIM_THRESHOLD
 * as in faults/campaign/sweep_persist.c); read files with pread() rather
 * than by their offsets (an offset is the kernel's, shared with the copy).
 * The caller's own bookkeeping goes in memory snap_open() left alone: the
 * main stack or a shared mapping.
 *
 * Needs Linux 6.7 (UFFD_FEATURE_WP_ASYNC, PAGEMAP_SCAN); not available in
 * sanitizer builds, whose allocators map memory of their own.
 */

struct snap;

/* What the snapshots have cost so far. */
struct snap_stats {
	uint64_t takes, restores;
	uint64_t pages_taken, pages_restored; /* pages copied to the shadow, and back */
	uint64_t bytes;                       /* the memory under watch */
	unsigned int ranges;                  /* ... in this many mappings */
};

/**
 * snap_probe() - whether snapshots can be had in this process.
 * @why: where the reason goes when they cannot.
 * @whylen: size of @why.
 *
 * Return: 0 when they can; -EOPNOTSUPP (@why says why) or -ENOMEM.
 */
int snap_probe(char *why, size_t whylen);

/**
 * snap_open() - watch this process's private writable memory.
 * @out: out: the snapshots' state (in memory of their own, outside what is watched).
 * @stack_bytes: the size of the stack snap_start() runs its function on.
 * @why: where the reason goes when snapshots cannot be had here.
 * @whylen: size of @why.
 *
 * Call it with one thread, before snap_start().
 *
 * Return: 0; -EOPNOTSUPP when this kernel or build cannot (@why says why);
 * -EINVAL when the process has more than one thread; -ENOMEM; other
 * negative errno (@why says what failed).
 */
int snap_open(struct snap **out, size_t stack_bytes, char *why, size_t whylen);

/**
 * snap_close() - stop watching; free the shadow and the stack.
 * @sn: the snapshots, or NULL. The function must not be running.
 */
void snap_close(struct snap *sn);

/**
 * snap_start() - run @fn(@arg) on the snapshots' stack until it yields or returns.
 * @sn: the snapshots.
 * @fn: the function.
 * @arg: its argument.
 *
 * Return: 0 when it yielded (snap_yield()), 1 when it returned.
 */
int snap_start(struct snap *sn, void (*fn)(void *), void *arg);

/**
 * snap_yield() - in the function: back to whoever started or resumed it.
 * @sn: the snapshots.
 *
 * It returns when the function is resumed, from this place or from the
 * place of the snapshot restored.
 */
void snap_yield(struct snap *sn);

/**
 * snap_resume() - run the function on from where it yielded (or from the
 * snapshot's place, after snap_restore()).
 * @sn: the snapshots.
 *
 * Return: 0 when it yielded again, 1 when it returned.
 */
int snap_resume(struct snap *sn);

/**
 * snap_take() - the memory as it is, and the function's place (it has
 * yielded), become the snapshot.
 * @sn: the snapshots.
 *
 * Return: 0, or a negative errno (the snapshot is then not whole: stop).
 */
int snap_take(struct snap *sn);

/**
 * snap_restore() - the memory back to the snapshot, and the function back
 * to the place it yielded from when it was taken.
 * @sn: the snapshots, with one taken.
 *
 * Return: 0, or a negative errno (the memory is then not whole: stop).
 */
int snap_restore(struct snap *sn);

/**
 * snap_stats() - what the snapshots have cost so far.
 * @sn: the snapshots.
 * @st: out: the figures.
 */
void snap_stats(const struct snap *sn, struct snap_stats *st);

#endif
