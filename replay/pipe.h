/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_REPLAY_PIPE_H
#define GPUISO_REPLAY_PIPE_H

#include "replay/event.h"

/*
 * Decoding and executing on two threads. The thread that decodes a trace
 * pushes workload events in order; a second thread takes them a batch at a
 * time and executes them, in the same order, with the function given at
 * start. A few batches are in flight at most, so memory stays bounded, and
 * the decoder waits when the executor falls behind (a paced replay).
 */

struct pipe;

/* Executes one event; a negative errno stops the pipe (later events are not executed). */
typedef int (*pipe_exec_fn)(void *ctx, uint64_t index, const struct wl_event *e);

/**
 * pipe_start() - start the executing thread.
 * @exec: what each event is given to, on that thread.
 * @ctx: its first argument.
 * @out: the pipe.
 *
 * Return: 0, -ENOMEM, or what pthread_create() returned (negated).
 */
int pipe_start(pipe_exec_fn exec, void *ctx, struct pipe **out);

/**
 * pipe_push() - queue one event (copied).
 * @p: the pipe.
 * @index: the event's index in the trace.
 * @e: the event (its kind below WL_NKINDS).
 *
 * Return: 0, or the executor's error once it has stopped on one (seen a
 * batch later at most): the decoder should stop too.
 */
int pipe_push(struct pipe *p, uint64_t index, const struct wl_event *e);

/**
 * pipe_finish() - execute what is queued, stop the thread and free the pipe.
 * @p: the pipe (NULL: nothing).
 *
 * Return: 0, or the first error the executor returned.
 */
int pipe_finish(struct pipe *p);

#endif
