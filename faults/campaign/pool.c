/* SPDX-License-Identifier: MIT */
/*
 * A pool of watched child processes (pool.h). Each child holds the write
 * end of a pipe and writes nothing: the read end turning readable (EOF)
 * is how the parent, in poll(), learns that it ended, while poll()'s
 * timeout is when the watch (watch.h) must look at the beats again.
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
	pid = fork();
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
		return 0;
	}
	close(fds[1]);
	p->slots[i] = (struct pool_slot){ .pid = pid, .fd = fds[0], .job = job };
	p->running++;
	return pid;
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
	p->slots[i] = (struct pool_slot){ .pid = 0, .fd = -1 };
	p->running--;
}

int pool_wait(struct pool *p, pool_ended_fn *ended, void *arg)
{
	int wait_ms = pool_kill_hung(p), status;
	size_t reaped = 0;
	char buf[64];
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
		if (!p->slots[i].pid || !p->pfd[i].revents)
			continue;
		/* children write nothing: readable means ended */
		if (read(p->slots[i].fd, buf, sizeof(buf)) > 0)
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
