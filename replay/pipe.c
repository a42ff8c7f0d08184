/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

#include "replay/pipe.h"
#include "replay/record.h"

/*
 * A ring of batches between one producer and one consumer. The producer
 * fills the batch after the queued ones and queues it when full; the
 * consumer executes the oldest queued batch and only then gives its slot
 * back. The lock is taken once per batch on each side. Events travel as
 * records (replay/record.h), a tenth of their size as structs: every byte
 * of a batch moves from one core's cache to the other's, and back.
 */

#define PIPE_BATCH 16384   /* bytes of records per hand-over (about 1,800 events) */
#define PIPE_BATCHES 8     /* in flight at most */

struct pipe_batch {
	size_t used;
	uint8_t bytes[PIPE_BATCH + REC_READ];
};

struct pipe {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t changed;     /* a batch was queued or given back, or the end came */
	struct pipe_batch *ring;    /* PIPE_BATCHES */
	unsigned int head, queued;  /* queued batches: ring[head], ring[head + 1], ... */
	struct pipe_batch *filling; /* the producer's, not queued yet */
	struct rec_codec encoder;   /* the producer's */
	bool closing;               /* no batch will be queued any more */
	int rc;                     /* the executor's first error */
	int stopped;                /* the producer's copy of rc, read without the lock */
	pipe_exec_fn exec;
	void *ctx;
};

static void *pipe_consume(void *arg)
{
	struct pipe *p = arg;
	struct rec_codec decoder;
	int rc = 0;

	rec_codec_init(&decoder);
	pthread_mutex_lock(&p->lock);
	for (;;) {
		struct pipe_batch *b;

		while (!p->queued && !p->closing)
			pthread_cond_wait(&p->changed, &p->lock);
		if (!p->queued)
			break;
		b = &p->ring[p->head];
		pthread_mutex_unlock(&p->lock);
		for (size_t at = 0; at < b->used && !rc;) {
			struct wl_event e;
			uint64_t index;

			at += rec_decode(&decoder, b->bytes + at, &index, &e);
			rc = p->exec(p->ctx, index, &e);
		}
		pthread_mutex_lock(&p->lock);
		if (rc && !p->rc)
			p->rc = rc;
		p->head = (p->head + 1) % PIPE_BATCHES;
		p->queued--;
		pthread_cond_signal(&p->changed);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

int pipe_start(pipe_exec_fn exec, void *ctx, struct pipe **out)
{
	struct pipe *p = calloc(1, sizeof(*p));
	int rc;

	if (!p)
		return -ENOMEM;
	p->ring = calloc(PIPE_BATCHES, sizeof(*p->ring));
	if (!p->ring) {
		rc = -ENOMEM;
		goto free_pipe;
	}
	p->exec = exec;
	p->ctx = ctx;
	p->filling = &p->ring[0];
	rec_codec_init(&p->encoder);
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->changed, NULL);
	rc = -pthread_create(&p->thread, NULL, pipe_consume, p);
	if (rc)
		goto destroy_sync;
	*out = p;
	return 0;

destroy_sync:
	pthread_cond_destroy(&p->changed);
	pthread_mutex_destroy(&p->lock);
	free(p->ring);
free_pipe:
	free(p);
	return rc;
}

/*
 * Queue the batch being filled; with @more, wait for a free slot and fill
 * that next. Returns the executor's error: once there is one, nothing more
 * is filled.
 */
static int pipe_hand_over(struct pipe *p, bool more)
{
	pthread_mutex_lock(&p->lock);
	if (p->filling && p->filling->used) {
		p->queued++;
		pthread_cond_signal(&p->changed);
	}
	p->filling = NULL;
	while (more && p->queued == PIPE_BATCHES && !p->rc)
		pthread_cond_wait(&p->changed, &p->lock);
	if (more && !p->rc) {
		p->filling = &p->ring[(p->head + p->queued) % PIPE_BATCHES];
		p->filling->used = 0;
	}
	p->stopped = p->rc;
	pthread_mutex_unlock(&p->lock);
	return p->stopped;
}

int pipe_push(struct pipe *p, uint64_t index, const struct wl_event *e)
{
	struct pipe_batch *b = p->filling;

	if (p->stopped)
		return p->stopped;
	b->used += rec_encode(&p->encoder, b->bytes + b->used, index, e);
	return b->used > PIPE_BATCH - REC_MAX ? pipe_hand_over(p, true) : 0;
}

int pipe_finish(struct pipe *p)
{
	int rc;

	if (!p)
		return 0;
	pipe_hand_over(p, false);
	pthread_mutex_lock(&p->lock);
	p->closing = true;
	pthread_cond_signal(&p->changed);
	pthread_mutex_unlock(&p->lock);
	pthread_join(p->thread, NULL);
	rc = p->rc;
	pthread_cond_destroy(&p->changed);
	pthread_mutex_destroy(&p->lock);
	free(p->ring);
	free(p);
	return rc;
}
