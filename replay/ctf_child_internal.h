/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_REPLAY_CTF_CHILD_INTERNAL_H
#define GPUISO_REPLAY_CTF_CHILD_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/child.h"
#include "replay/ctf_decode.h"

/*
 * What the two files of the decoder child share: ctf_child.c starts the
 * child, watches it and says how it died (ctf_read()); ctf_child_pipe.c
 * holds both ends of the messages it sends down its pipe.
 */

#define CHILD_MSG_MAX (16u << 20)       /* a longer message is a broken child */
#define CHILD_SAID_MAX 2048             /* babeltrace2's last words kept */

/* The decoders, by the trace's format; what this process says of them. */
struct trace_decoder {
	int (*decode)(const char *path, ctf_bind_fn bind, ctf_event_fn on_event, ctf_mark_fn mark,
		      void *ctx, struct ctf_stats *st, char *err, size_t errlen);
	const char *name;     /* "the NAME decoder" */
	const char *library;  /* what decodes */
	const char *trace;    /* "cannot open TRACE" */
	const char *packet;   /* "in or after PACKET K of STREAM" */
	const char *child;    /* the child process's name */
};

/* This process's side of one read. */
struct decoder {
	const struct trace_decoder *dec;
	const char *path;
	ctf_bind_fn bind;
	ctf_event_fn on_event;
	void *ctx;
	struct ctf_stats *st;
	struct ctf_limits lim;
	char *err;
	size_t errlen;

	pid_t pid, owner;
	int in, ask, said;        /* from the child; to it; its stderr (-1 once closed) */
	uint8_t *buf;
	size_t cap, head, tail;   /* unread bytes: buf[head..tail) */
	uint64_t received;        /* bytes read from it in all */
	uint64_t index, ts;       /* the last event received */
	struct child_pace pace;   /* its CPU time and progress (what it sent) */
	uint64_t checked_ns;      /* when its memory was last looked at */
	uint64_t anon_base;       /* this process's anonymous memory when it forked the child */
	char killed[192];         /* why this process killed it, if it did */
	bool stuck;               /* killed for neither running nor moving on: not the trace's doing */

	bool ended;               /* its 'X' came */
	int rc;                   /* what it or a callback ended the read with */
	char folder[512];         /* the trace folder being opened, or read */
	char **folders;           /* every one opened (trace folders are opened first) */
	size_t nfolders, folders_cap;
	char stream[512];         /* the stream of the last packet begun ("": none yet) */
	uint64_t packet;
	char said_text[CHILD_SAID_MAX];
	size_t nsaid;
};

/**
 * ctf_child_err() - say why the read ended.
 * @d: the read; its err, replaced (nothing when it has none).
 * @fmt: printf() format of the message, and its arguments.
 */
void ctf_child_err(struct decoder *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/**
 * ctf_child_feed() - the child: decode the trace, each event, binding and
 * mark down the pipe, then say how it ended. Never returns.
 * @dec: the decoder of the trace's format.
 * @path: the trace.
 * @out: the pipe's write end.
 * @ask: the socket bindings are asked on.
 */
void __attribute__((noreturn)) ctf_child_feed(const struct trace_decoder *dec, const char *path,
					      int out, int ask);

/**
 * ctf_child_take() - take every whole message received from the child
 * (@d's buffer, from its head), each event to the caller's callback.
 * @d: the read.
 *
 * Return: 0, -EPROTO (what the child sent is not a message: d->killed
 * says where), or a callback's stop.
 */
int ctf_child_take(struct decoder *d);

#endif
