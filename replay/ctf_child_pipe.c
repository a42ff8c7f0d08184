/* SPDX-License-Identifier: MIT */
/*
 * The messages between the decoder child (ctf_child.c) and this process,
 * both ends: the child writes them down a pipe, each a type byte then LEB128
 * numbers and strings (a length, then the bytes and their NUL):
 *   'B' name                   an event class is new: bind it (the child
 *                              waits for the answer on a socket: rc, tag,
 *                              field count, field names)
 *   'L' name                   the same, for a class the trace defines,
 *                              asked before any event (ctf_binding.listed)
 *   'E' tag n Δindex Δts value*n   a bound event; a value is a flags byte
 *                              (present, string, negative) then the
 *                              number or the string
 *   'S' events discarded lost first_ts last_ts traces   the statistics moved
 *   'F' folder                 a trace folder is being opened
 *   'P' stream packet          a packet of a stream begins
 *   'X' rc message             the end: ctf_decode()'s return and error
 *                              (after an 'S' with the final statistics)
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/array.h"
#include "replay/ctf_child_internal.h"

#define CHILD_OUT_BUF (64 * 1024)       /* the child's writes */
#define CHILD_STR_MAX (1u << 20)        /* a string field as long is refused */

enum flag { F_PRESENT = 1, F_STR = 2, F_NEGATIVE = 4 };

/* ---- the child's side ---- */

struct feeder {
	int out;                /* the pipe's write end */
	int ask;                /* the socket bindings are asked on */
	size_t used;
	uint64_t index, ts;     /* the last event sent, which the next is sent against */
	const struct ctf_stats *st;
	char *names;            /* the last binding's field names */
	char why[128];          /* why it stopped the read itself */
	uint8_t buf[CHILD_OUT_BUF];
};

static void __attribute__((noreturn)) feeder_gone(void)
{
	_exit(0); /* the parent stopped reading: it has what it wanted */
}

static void feeder_flush(struct feeder *f)
{
	for (size_t at = 0; at < f->used;) {
		ssize_t n = write(f->out, f->buf + at, f->used - at);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			feeder_gone();
		at += (size_t)n;
	}
	f->used = 0;
}

/* Room for @n more bytes. */
static void feeder_room(struct feeder *f, size_t n)
{
	if (f->used + n > sizeof(f->buf))
		feeder_flush(f);
}

static void put_u64(struct feeder *f, uint64_t v)
{
	feeder_room(f, 10);
	while (v >= 0x80) {
		f->buf[f->used++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	f->buf[f->used++] = (uint8_t)v;
}

/* Signed numbers (errnos, tags) in zig-zag form. */
static void put_i64(struct feeder *f, int64_t v)
{
	put_u64(f, ((uint64_t)v << 1) ^ (v < 0 ? UINT64_MAX : 0));
}

/* With its NUL, so that the reader can hand it on where it lies. */
static void put_str(struct feeder *f, const char *s)
{
	size_t n = strlen(s) + 1;

	put_u64(f, n);
	while (n) {
		size_t k;

		feeder_room(f, 1);
		k = sizeof(f->buf) - f->used < n ? sizeof(f->buf) - f->used : n;
		memcpy(f->buf + f->used, s, k);
		f->used += k;
		s += k;
		n -= k;
	}
}

static void put_type(struct feeder *f, char type)
{
	feeder_room(f, 1);
	f->buf[f->used++] = (uint8_t)type;
}

static void put_stats(struct feeder *f)
{
	put_type(f, 'S');
	put_u64(f, f->st->events);
	put_u64(f, f->st->discarded);
	put_u64(f, f->st->lost_packets);
	put_u64(f, f->st->first_ts);
	put_u64(f, f->st->last_ts);
	put_u64(f, f->st->traces);
}

/* Read exactly @n bytes of the answer, or leave. */
static void ask_read(struct feeder *f, void *p, size_t n)
{
	for (size_t at = 0; at < n;) {
		ssize_t k = read(f->ask, (char *)p + at, n - at);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			feeder_gone();
		at += (size_t)k;
	}
}

/* The answer: u32 length, then i32 rc, i32 tag, u32 n, then n NUL-terminated names. */
static int feeder_bind(void *ctx, const char *name, struct ctf_binding *b)
{
	struct feeder *f = ctx;
	int32_t head[3];
	uint32_t len;
	char *at;

	put_type(f, b->listed ? 'L' : 'B');
	put_str(f, name);
	feeder_flush(f);
	ask_read(f, &len, sizeof(len));
	if (len < sizeof(head) || len > CHILD_MSG_MAX)
		return -EPROTO;
	free(f->names);
	f->names = malloc(len - sizeof(head) + 1);
	if (!f->names)
		return -ENOMEM;
	ask_read(f, head, sizeof(head));
	ask_read(f, f->names, len - sizeof(head));
	f->names[len - sizeof(head)] = '\0';
	if (head[0] < 0)
		return head[0];
	b->tag = head[1];
	b->n = (unsigned int)head[2];
	at = f->names;
	for (unsigned int i = 0; i < b->n && i < CTF_MAX_FIELDS; i++) {
		bool left = at < f->names + (len - sizeof(head));

		b->names[i] = left ? at : "";
		at += left ? strlen(at) + 1 : 0;
	}
	return 0;
}

/* Strings the reader takes: longer ones stop the read (see CHILD_MSG_MAX). */
static int feeder_check(struct feeder *f, uint64_t index, uint64_t ts,
			const struct ctf_value *values)
{
	for (unsigned int i = 0; i < CTF_MAX_FIELDS; i++) {
		if (values[i].present && values[i].is_str && values[i].s &&
		    strlen(values[i].s) >= CHILD_STR_MAX) {
			snprintf(f->why, sizeof(f->why), "event %" PRIu64 " at %" PRIu64 " ns has a "
				 "string field of %zu bytes (at most %u are read)", index, ts,
				 strlen(values[i].s), CHILD_STR_MAX - 1);
			return -E2BIG;
		}
	}
	return 0;
}

static int feeder_event(void *ctx, int tag, uint64_t index, uint64_t ts,
			const struct ctf_value *values)
{
	struct feeder *f = ctx;
	unsigned int n = 0;
	int rc = feeder_check(f, index, ts, values);

	if (rc)
		return rc;
	/* trailing fields the event lacks are left out: the reader takes them as absent */
	for (unsigned int i = 0; i < CTF_MAX_FIELDS; i++)
		if (values[i].present)
			n = i + 1;
	put_type(f, 'E');
	put_u64(f, (uint64_t)tag);
	put_u64(f, n);
	put_u64(f, index - f->index);
	put_u64(f, ts - f->ts);
	f->index = index;
	f->ts = ts;
	for (unsigned int i = 0; i < n; i++) {
		const struct ctf_value *v = &values[i];

		feeder_room(f, 1);
		f->buf[f->used++] = (uint8_t)((v->present ? F_PRESENT : 0) | (v->is_str ? F_STR : 0) |
					      (v->negative ? F_NEGATIVE : 0));
		if (v->present && v->is_str)
			put_str(f, v->s ? v->s : "");
		else if (v->present)
			put_u64(f, v->u);
	}
	return 0;
}


static void feeder_mark(void *ctx, enum ctf_mark mark, const char *name, uint64_t n)
{
	struct feeder *f = ctx;

	switch (mark) {
	case CTF_MARK_FOLDER:
		put_type(f, 'F');
		put_str(f, name);
		feeder_flush(f); /* what it opens is what may kill it */
		break;
	case CTF_MARK_PACKET:
		put_type(f, 'P');
		put_str(f, name);
		put_u64(f, n);
		feeder_flush(f); /* (events since the last flush die with it; packets are few) */
		break;
	case CTF_MARK_STATS:
		put_stats(f);
		/* sent now: a trace whose events are all skipped sends nothing else */
		feeder_flush(f);
		break;
	}
}

void ctf_child_feed(const struct trace_decoder *dec, const char *path, int out, int ask)
{
	struct ctf_stats st = { 0 };
	struct feeder *f = calloc(1, sizeof(*f));
	char err[1024] = "";
	int rc;

	if (!f)
		_exit(1);
	*f = (struct feeder){ .out = out, .ask = ask, .st = &st };
	rc = dec->decode(path, feeder_bind, feeder_event, feeder_mark, f, &st, err, sizeof(err));
	if (f->why[0])
		snprintf(err, sizeof(err), "%s: %s", path, f->why);
	put_stats(f);
	put_type(f, 'X');
	put_i64(f, f->why[0] ? -EINVAL : rc);
	put_str(f, err);
	feeder_flush(f);
	_exit(0);
}

/* ---- this process's side ---- */

/* A message being taken apart; @short_: it is not all here yet; @bad: it is not one. */
struct cursor {
	const uint8_t *p, *end;
	bool short_, bad;
};

static uint64_t get_u64(struct cursor *c)
{
	uint64_t v = 0;

	for (unsigned int shift = 0;; shift += 7) {
		uint8_t b;

		if (c->p == c->end) {
			c->short_ = true;
			return 0;
		}
		b = *c->p++;
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return v;
		if (shift >= 63) {
			c->bad = true;
			return 0;
		}
	}
}

/* A string as the child put it, its NUL included: valid while the buffer is. */
static const char *get_str(struct cursor *c)
{
	uint64_t n = get_u64(c);
	const char *s = (const char *)c->p;

	if (c->short_ || c->bad)
		return "";
	if (n == 0 || n > CHILD_MSG_MAX) {
		c->bad = true;
		return "";
	}
	if ((uint64_t)(c->end - c->p) < n) {
		c->short_ = true;
		return "";
	}
	if (s[n - 1] != '\0' || memchr(s, '\0', n - 1)) {
		c->bad = true;
		return "";
	}
	c->p += n;
	return s;
}

/* The answer to 'B': see feeder_bind(). */
static int answer_bind(struct decoder *d, const char *name, bool listed)
{
	struct ctf_binding b = { .listed = listed, .tag = -1 };
	int rc = d->bind(d->ctx, name, &b);
	int32_t head[3] = { rc < 0 ? rc : 0, b.tag, (int32_t)b.n };
	size_t len = sizeof(head), at = 0;
	char *msg;

	for (unsigned int i = 0; rc >= 0 && i < b.n && i < CTF_MAX_FIELDS; i++)
		len += strlen(b.names[i] ? b.names[i] : "") + 1;
	msg = malloc(sizeof(uint32_t) + len);
	if (!msg)
		return -ENOMEM;
	memcpy(msg, &(uint32_t){ (uint32_t)len }, sizeof(uint32_t));
	memcpy(msg + sizeof(uint32_t), head, sizeof(head));
	at = sizeof(uint32_t) + sizeof(head);
	for (unsigned int i = 0; rc >= 0 && i < b.n && i < CTF_MAX_FIELDS; i++) {
		const char *s = b.names[i] ? b.names[i] : "";

		memcpy(msg + at, s, strlen(s) + 1);
		at += strlen(s) + 1;
	}
	/* a child already gone is seen on the pipe; no SIGPIPE for it here */
	for (size_t sent = 0; sent < at;) {
		ssize_t n = send(d->ask, msg + sent, at - sent, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		sent += (size_t)n;
	}
	free(msg);
	return 0; /* the child stops on a refusal itself, and says where */
}

static int take_event(struct decoder *d, struct cursor *c)
{
	struct ctf_value vals[CTF_MAX_FIELDS];
	uint64_t tag = get_u64(c), n = get_u64(c);
	uint64_t index = d->index + get_u64(c), ts = d->ts + get_u64(c);

	if (tag > INT32_MAX || n > CTF_MAX_FIELDS)
		c->bad = true;
	for (unsigned int i = 0; i < CTF_MAX_FIELDS; i++) {
		struct ctf_value *v = &vals[i];
		uint8_t flags = 0;

		*v = (struct ctf_value){ 0 };
		if (i >= n || c->short_ || c->bad)
			continue;
		if (c->p == c->end) {
			c->short_ = true;
			continue;
		}
		flags = *c->p++;
		v->present = flags & F_PRESENT;
		v->is_str = flags & F_STR;
		v->negative = flags & F_NEGATIVE;
		if (v->present && v->is_str)
			v->s = get_str(c);
		else if (v->present)
			v->u = get_u64(c);
	}
	if (c->short_ || c->bad)
		return 0;
	d->index = index;
	d->ts = ts;
	d->st->events = index + 1;
	d->st->last_ts = ts;
	return d->on_event(d->ctx, (int)tag, index, ts, vals);
}

/*
 * Act on the message at the cursor. Return: 0 (go on; also when it is not
 * all here yet, or not a message: the cursor says), or a callback's stop.
 */
static int take_message(struct decoder *d, struct cursor *c)
{
	char type = (char)*c->p++;
	const char *s;
	uint64_t v[6];
	int rc = 0;

	switch (type) {
	case 'E':
		rc = take_event(d, c);
		break;
	case 'B':
	case 'L':
		s = get_str(c);
		if (!c->short_ && !c->bad)
			rc = answer_bind(d, s, type == 'L');
		break;
	case 'S':
		for (int i = 0; i < 6; i++)
			v[i] = get_u64(c);
		if (!c->short_ && !c->bad)
			*d->st = (struct ctf_stats){ .events = v[0], .discarded = v[1],
						     .lost_packets = v[2], .first_ts = v[3],
						     .last_ts = v[4], .traces = (unsigned int)v[5] };
		break;
	case 'F':
		s = get_str(c);
		if (!c->short_ && !c->bad) {
			snprintf(d->folder, sizeof(d->folder), "%s", s);
			if (array_reserve(&d->folders, &d->folders_cap, d->nfolders,
					  sizeof(*d->folders)) ||
			    !(d->folders[d->nfolders] = strdup(s)))
				return -ENOMEM;
			d->nfolders++;
		}
		break;
	case 'P':
		s = get_str(c);
		v[0] = get_u64(c);
		if (!c->short_ && !c->bad) {
			snprintf(d->stream, sizeof(d->stream), "%s", s);
			d->packet = v[0];
		}
		break;
	case 'X':
		v[0] = get_u64(c);
		s = get_str(c);
		if (!c->short_ && !c->bad) {
			d->ended = true;
			d->rc = (int)(int64_t)((v[0] >> 1) ^ (~(v[0] & 1) + 1));
			ctf_child_err(d, "%s", s);
		}
		break;
	default:
		c->bad = true;
		break;
	}
	return rc;
}

int ctf_child_take(struct decoder *d)
{
	while (d->head < d->tail && !d->ended) {
		struct cursor c = { .p = d->buf + d->head, .end = d->buf + d->tail };
		int rc = take_message(d, &c);

		if (c.bad) {
			snprintf(d->killed, sizeof(d->killed), "sent what is not a message (byte %"
				 PRIu64 " of what it sent)", d->received - (d->tail - d->head));
			return -EPROTO;
		}
		if (c.short_)
			break;
		d->head = (size_t)(c.p - d->buf);
		if (rc < 0)
			return rc;
	}
	return 0;
}
