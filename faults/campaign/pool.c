/* SPDX-License-Identifier: MIT */
/*
 * A pool of watched child processes (pool.h). Each child holds the write
 * end of a pipe, where it may write one message (pool_send()): the read
 * end reaching EOF is how the parent, in poll(), learns that it ended,
 * while poll()'s timeout is when the watch (watch.h) must look at the
 * beats again.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/child.h"
#include "faults/campaign/pool.h"

int pool_init(struct pool *p, size_t n, unsigned int stall_s, unsigned int limit_s)
{
	int rc = watch_init(&p->watch, n, stall_s, limit_s);

	if (rc)
		return rc;
	p->n = n;
	p->slots = calloc(n, sizeof(*p->slots));
	p->pfd = calloc(n, sizeof(*p->pfd));
	if (!p->slots || !p->pfd) {
		pool_fini(p);
		return -ENOMEM;
	}
	return 0;
}

void pool_fini(struct pool *p)
{
	free(p->pfd);
	free(p->slots);
	watch_fini(&p->watch);
	*p = (struct pool){ 0 };
}

/* Kill the children that stopped moving or ran out of time; how long before looking again. */
static int pool_kill_hung(struct pool *p)
{
	int wait_ms = -1;

	for (size_t i = 0; i < p->n; i++) {
		enum watch_verdict v;

		if (!p->slots[i].pid || p->slots[i].killed)
			continue;
		v = watch_check(&p->watch, i, &wait_ms);
		if (v == WATCH_MOVING)
			continue;
		/* SIGKILL: a deadlocked or stopped child handles nothing; it is reaped as it ends */
		kill(p->slots[i].pid, SIGKILL);
		p->slots[i].killed = v;
	}
	return wait_ms;
}

pid_t pool_fork(struct pool *p, size_t i, size_t job, const char *name, int tie_exit)
{
	pid_t pid, self = getpid();
	int fds[2];

	pool_kill_hung(p);
	if (pipe2(fds, O_CLOEXEC))
		return -errno;
	/* a child would write out what the parent has buffered once more */
	fflush(NULL);
	watch_start(&p->watch, i);
	pid = child_fork_plain();
	if (pid < 0) {
		int rc = -errno;

		watch_stop(&p->watch, i);
		close(fds[0]);
		close(fds[1]);
		return rc;
	}
	if (!pid) {
		/* nothing goes on without the parent that waits for it */
		if (child_tie(self, name))
			_exit(tie_exit);
		close(fds[0]);
		for (size_t k = 0; k < p->n; k++)
			if (p->slots[k].pid)
				close(p->slots[k].fd);
		/* its write end (pool_send()); nothing more is written here: a copy is a page */
		p->slots[i].fd = fds[1];
		return 0;
	}
	close(fds[1]);
	p->slots[i].pid = pid;
	p->slots[i].fd = fds[0];
	p->slots[i].job = job;
	p->slots[i].killed = WATCH_MOVING;
	p->slots[i].msglen = 0;
	p->slots[i].msg_overflow = false;
	p->running++;
	return pid;
}

int pool_send(struct pool *p, size_t i, const void *msg, size_t len)
{
	ssize_t n;

	if (len > POOL_MSG_MAX)
		return -EMSGSIZE;
	do
		n = write(p->slots[i].fd, msg, len);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	return (size_t)n == len ? 0 : -EIO;
}

struct watch_beat *pool_beat(struct pool *p, size_t i)
{
	return &p->watch.beat[i];
}

/* The child of slot @i ended with @status: hand it over (if @ended), free the slot. */
static void pool_reap(struct pool *p, size_t i, int status, pool_ended_fn *ended, void *arg)
{
	close(p->slots[i].fd);
	watch_stop(&p->watch, i);
	if (ended)
		ended(arg, p, i, status);
	p->slots[i].pid = 0;
	p->slots[i].fd = -1;
	p->slots[i].msglen = 0;
	p->slots[i].msg_overflow = false;
	p->slots[i].killed = WATCH_MOVING;
	p->running--;
}

int pool_wait(struct pool *p, pool_ended_fn *ended, void *arg)
{
	int wait_ms = pool_kill_hung(p), status;
	size_t reaped = 0;
	pid_t pid;

	for (size_t i = 0; i < p->n; i++)
		p->pfd[i] = (struct pollfd){ .fd = p->slots[i].pid ? p->slots[i].fd : -1,
					     .events = POLLIN };
	if (poll(p->pfd, p->n, wait_ms) < 0) {
		if (errno == EINTR)
			return 0;
		/* no way to tell which ends first: look at each, then again a little later */
		for (size_t i = 0; i < p->n; i++) {
			if (!p->slots[i].pid)
				continue;
			pid = waitpid(p->slots[i].pid, &status, WNOHANG);
			if (pid < 0 && errno != EINTR)
				return -errno;
			if (pid > 0) {
				pool_reap(p, i, status, ended, arg);
				reaped++;
			}
		}
		if (!reaped)
			poll(NULL, 0, 100);
		return 0;
	}
	for (size_t i = 0; i < p->n; i++) {
		struct pool_slot *s = &p->slots[i];
		unsigned char spill[256];
		ssize_t n;

		if (!s->pid || !p->pfd[i].revents)
			continue;
		/* its message, then EOF: it ended */
		if (s->msglen < POOL_MSG_MAX)
			n = read(s->fd, s->msg + s->msglen, POOL_MSG_MAX - s->msglen);
		else
			n = read(s->fd, spill, sizeof(spill));
		if (n > 0) {
			s->msg_overflow |= s->msglen == POOL_MSG_MAX;
			s->msglen += s->msglen < POOL_MSG_MAX ? (size_t)n : 0;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		while (waitpid(p->slots[i].pid, &status, 0) < 0)
			if (errno != EINTR)
				return -errno;
		pool_reap(p, i, status, ended, arg);
	}
	return 0;
}

void pool_kill_all(struct pool *p)
{
	for (size_t i = 0; i < p->n; i++) {
		if (!p->slots[i].pid)
			continue;
		kill(p->slots[i].pid, SIGKILL);
		pool_reap(p, i, child_reap(p->slots[i].pid, NULL), NULL, NULL);
	}
}
