/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_FAULTS_POOL_H
#define GPUISO_FAULTS_POOL_H

#include <poll.h>
#include <stddef.h>
#include <sys/types.h>

#include "faults/campaign/watch.h"

/*
 * A pool of child processes: at most n at once, one per slot, each with a
 * beat in memory shared with the parent (watch.h). The parent waits for
 * them to end, kills (SIGKILL) one found stalled or overtime while it
 * waits, and hands each that ended, with its wait status, to its caller.
 * A child is tied to the parent (child_tie()): none outlives it.
 */

/* The most a child can hand its parent (pool_send()): one atomic pipe write. */
#define POOL_MSG_MAX 4096

/*
 * One slot: the read end of a pipe only its child writes to, so EOF means
 * it ended (in the child: the write end).
 */
struct pool_slot {
	pid_t pid;                 /* 0: free */
	int fd;
	size_t job;                /* the caller's: what the child does */
	enum watch_verdict killed; /* why the parent killed it, or WATCH_MOVING */
	size_t msglen;             /* bytes of msg the child sent (pool_send()) */
	bool msg_overflow;         /* it sent more than msg holds: msg is not its message */
	unsigned char msg[POOL_MSG_MAX];
};

struct pool {
	struct pool_slot *slots;   /* n */
	struct pollfd *pfd;        /* n */
	size_t n;
	size_t running;            /* slots taken */
	struct watch watch;        /* slot i's child beats watch.beat[i] */
};

/**
 * pool_ended_fn - called as the child of a slot has ended, before the slot is freed.
 * @arg: the caller's.
 * @p: the pool.
 * @i: the slot (its job and why it was killed, if it was).
 * @status: the child's wait status.
 */
typedef void pool_ended_fn(void *arg, const struct pool *p, size_t i, int status);

/**
 * pool_init() - a pool of @n slots, shared with the children forked from now on.
 * @p: the pool.
 * @n: slots (>= 1).
 * @stall_s: kill a child with no beat for this long, in seconds (0: WATCH_STALL_S).
 * @limit_s: kill a child still going after this long, in seconds (0: never).
 *
 * Return: 0 or -ENOMEM.
 */
int pool_init(struct pool *p, size_t n, unsigned int stall_s, unsigned int limit_s);

/**
 * pool_fini() - free the pool; its slots must all be free.
 * @p: the pool (may be all zero).
 */
void pool_fini(struct pool *p);

/**
 * pool_fork() - fork the child of free slot @i, as fork() does.
 * @p: the pool.
 * @i: the slot.
 * @job: what the child does, for the caller (pool_slot.job).
 * @name: the child's name in ps (at most 15 characters).
 * @tie_exit: the child's exit status when it cannot be tied to the parent.
 *
 * The children found hung are killed first (their slots free sooner). In
 * the child the pool's pipes are closed, and a child whose parent has gone
 * already exits (status @tie_exit). It should _exit() when done: the
 * parent's buffers (all flushed before the fork) and atexit handlers are
 * not its own.
 *
 * Return: in the parent the child's pid, or a negative errno (the slot
 * stays free); 0 in the child.
 */
pid_t pool_fork(struct pool *p, size_t i, size_t job, const char *name, int tie_exit);

/**
 * pool_beat() - where the child of slot @i beats (watch_beat(), watch_event()).
 * @p: the pool.
 * @i: the slot.
 *
 * Return: its beat, in memory shared with the parent.
 */
struct watch_beat *pool_beat(struct pool *p, size_t i);

/**
 * pool_send() - in the child of slot @i: hand the parent a message, which
 * it finds in the slot's msg when the child has ended.
 * @p: the pool.
 * @i: the slot.
 * @msg: the message.
 * @len: its size, at most POOL_MSG_MAX (one write: whole or not at all).
 *
 * Return: 0, -EMSGSIZE, or the negative errno of the write.
 */
int pool_send(struct pool *p, size_t i, const void *msg, size_t len);

/**
 * pool_wait() - wait until a child ends or one is found hung; kill the hung
 * ones, and hand each that ended to @ended and free its slot.
 * @p: the pool.
 * @ended: called for each child that ended.
 * @arg: for @ended.
 *
 * When poll() fails, each child is looked at without blocking instead.
 *
 * Return: 0 (also when interrupted, or when a child was only killed), or
 * the negative errno of waitpid() for a child that cannot be waited for
 * (its slot stays taken: pool_kill_all()).
 */
int pool_wait(struct pool *p, pool_ended_fn *ended, void *arg);

/**
 * pool_kill_all() - kill (SIGKILL) every child and reap it, without handing
 * it over; free every slot.
 * @p: the pool.
 */
void pool_kill_all(struct pool *p);

#endif
