/* SPDX-License-Identifier: MIT */
/*
 * ctf_read(): the babeltrace2 decoder (ctf_decode()) in a child process.
 *
 * Babeltrace2 crashes (assertions, SIGFPE) and loops on some damaged traces,
 * and nothing gpuiso can check first catches them all. So the decoder runs
 * in a child, and this process only reads what it decodes: a death there is
 * an answer (exit 2 with the trace, the stream and the packet named), never
 * this process's end. The child is also the decoding stage of the replay: it
 * decodes ahead while this process runs the model.
 *
 * The child writes messages down a pipe, each a type byte then LEB128
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
 * Babeltrace2's own words on the way down (assertions, preconditions) come
 * through its stderr, a second pipe, of which the last lines are kept.
 *
 * While waiting for the child, this process watches it by its pace
 * (common/child.h), never by the clock: a child that uses its CPU limit
 * without saying anything (every 4096 events read it says where it is)
 * loops on the trace, and one whose anonymous memory grows past a limit
 * swells on it: it is killed, and that is the answer too (bad input). One
 * that neither runs nor says anything for as long is blocked on something
 * that is not the trace (a lock inherited at fork(), a stop): killed, and
 * said to be an environment problem. Only the time this process spends
 * waiting for it counts.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/array.h"
#include "common/child.h"
#include "common/clock.h"
#include "common/types.h"
#include "common/units.h"
#include "replay/ctf_decode.h"
#include "replay/etl.h"
#include "replay/ftrace.h"

#define CHILD_OUT_BUF (64 * 1024)       /* the child's writes */
#define CHILD_PIPE_BYTES (1024 * 1024)  /* asked of the pipe: fewer wake-ups */
#define CHILD_MSG_MAX (16u << 20)       /* a longer message is a broken child */
#define CHILD_STR_MAX (1u << 20)        /* a string field as long is refused */
#define CHILD_POLL_MS 250
#define CHILD_SAID_MAX 2048             /* babeltrace2's last words kept */
#define CHILD_END_MS 5000               /* for a child that is done to be gone */

enum flag { F_PRESENT = 1, F_STR = 2, F_NEGATIVE = 4 };

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

static const struct trace_decoder ctf_decoder = {
	.decode = ctf_decode, .name = "CTF", .library = "babeltrace2", .trace = "CTF trace",
	.packet = "packet", .child = "ctf-decode",
};

static const struct trace_decoder ftrace_decoder = {
	.decode = ftrace_decode, .name = "trace.dat", .library = "libtracecmd",
	.trace = "trace.dat", .packet = "page", .child = "ftrace-decode",
};

static const struct trace_decoder etl_decoder = {
	.decode = etl_decode, .name = ".etl", .library = "gpuiso's ETW reader",
	.trace = ".etl file", .packet = "buffer", .child = "etl-decode",
};

/* The decoder of the trace at @path, by what its first bytes are. */
static const struct trace_decoder *decoder_for(const char *path)
{
	if (ftrace_file_is(path))
		return &ftrace_decoder;
	if (etl_file_is(path))
		return &etl_decoder;
	return &ctf_decoder;
}

bool ctf_trace_file_is(const char *path)
{
	return decoder_for(path) != &ctf_decoder;
}

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
	put_u64(f, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
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

/* The child: decode, then say how it ended. Never returns. */
static void __attribute__((noreturn)) feed(const struct trace_decoder *dec, const char *path,
					   int out, int ask)
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

static void dec_err(struct decoder *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void dec_err(struct decoder *d, const char *fmt, ...)
{
	va_list ap;

	if (!d->err || !d->errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(d->err, d->errlen, fmt, ap);
	va_end(ap);
}

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
			dec_err(d, "%s", s);
		}
		break;
	default:
		c->bad = true;
		break;
	}
	return rc;
}

/* Take every whole message received. Return: 0, or a callback's stop. */
static int take_messages(struct decoder *d)
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

/* The child's anonymous memory (the heap: what a looping decoder grows), or 0 if unknown. */
static uint64_t anon_bytes(pid_t pid)
{
	char path[64], line[128];
	unsigned long long kib = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "RssAnon: %llu kB", &kib) == 1)
			break;
	fclose(f);
	return (uint64_t)kib * 1024;
}

/*
 * Kill a child that used its CPU time without decoding anything, that
 * neither ran nor decoded anything (child.h), or that grew too big, after
 * this process waited @waited_ns for it. Return: whether it was.
 */
static bool watch(struct decoder *d, uint64_t now, uint64_t waited_ns)
{
	enum child_pace_verdict v = child_pace_check(&d->pace, d->received, waited_ns,
						     d->lim.idle_s, d->lim.idle_s);
	char size[24], why[160];
	uint64_t anon;

	if (v == CHILD_SPINNING) {
		snprintf(d->killed, sizeof(d->killed),
			 "used %u s of CPU time without decoding anything (killed)", d->lim.idle_s);
	} else if (v == CHILD_STUCK) {
		d->stuck = true;
		snprintf(d->killed, sizeof(d->killed), "%s (killed)",
			 child_pace_say(&d->pace, v, why, sizeof(why)));
	} else if (now - d->checked_ns >= CHILD_POLL_MS * 1000000ull) {
		d->checked_ns = now;
		/* (what it shares with this process since the fork counts as its own) */
		anon = anon_bytes(d->pid);
		if (anon > d->anon_base && anon - d->anon_base > d->lim.anon_bytes)
			snprintf(d->killed, sizeof(d->killed), "grew by more than %s of memory (killed)",
				 format_size(d->lim.anon_bytes, size, sizeof(size)));
	}
	if (!d->killed[0])
		return false;
	kill(d->pid, SIGKILL);
	return true;
}

/* Keep the last bytes of what babeltrace2 wrote to its stderr. */
static void hear_said(struct decoder *d)
{
	ssize_t n;

	if (d->nsaid > sizeof(d->said_text) / 2) { /* keep the later half */
		size_t keep = sizeof(d->said_text) / 2;

		memmove(d->said_text, d->said_text + d->nsaid - keep, keep);
		d->nsaid = keep;
	}
	n = read(d->said, d->said_text + d->nsaid, sizeof(d->said_text) - 1 - d->nsaid);
	if (n > 0) {
		d->nsaid += (size_t)n;
	} else if (n == 0 || errno != EINTR) {
		close(d->said);
		d->said = -1;
	}
}

/* Room to read into: the unread bytes moved to the front, the buffer grown if full. */
static int make_room(struct decoder *d)
{
	uint8_t *more;

	if (d->head) {
		memmove(d->buf, d->buf + d->head, d->tail - d->head);
		d->tail -= d->head;
		d->head = 0;
	}
	if (d->tail < d->cap)
		return 0;
	if (d->cap >= CHILD_MSG_MAX) {
		snprintf(d->killed, sizeof(d->killed), "sent a message longer than %u MiB",
			 CHILD_MSG_MAX >> 20);
		return -EPROTO;
	}
	more = realloc(d->buf, d->cap * 2);
	if (!more)
		return -ENOMEM;
	d->buf = more;
	d->cap *= 2;
	return 0;
}

/*
 * Wait for the child to say something, and read it. Return: 1 when it has
 * closed its end (done, or dead), 0, or a negative errno (killed: the
 * reason is in d->killed).
 */
static int listen_to(struct decoder *d)
{
	struct pollfd pfd[2] = { { .fd = d->in, .events = POLLIN },
				 { .fd = d->said, .events = POLLIN } };
	uint64_t before = clock_mono_ns(), now, waited = 0;
	ssize_t n;
	int rc = make_room(d);

	if (rc)
		return rc;
	rc = poll(pfd, d->said >= 0 ? 2 : 1, CHILD_POLL_MS);
	if (rc < 0 && errno != EINTR)
		return -errno;
	if (rc > 0 && pfd[1].revents)
		hear_said(d);
	if (rc > 0 && pfd[0].revents) {
		n = read(d->in, d->buf + d->tail, d->cap - d->tail);
		if (n == 0)
			return 1;
		if (n > 0) {
			d->tail += (size_t)n;
			d->received += (uint64_t)n;
		}
	}
	/* only time spent waiting for it counts: not this process's own (a paced replay's) */
	now = clock_mono_ns();
	/* at most two polls' worth at a time: a whole process stopped (^Z) is no silence */
	if (!(rc > 0 && pfd[0].revents))
		waited = GPUISO_MIN(now - before, 2 * CHILD_POLL_MS * 1000000ull);
	return watch(d, now, waited) ? -ETIMEDOUT : 0;
}

/*
 * What babeltrace2 last said that says why: its last line but the
 * "Aborting..." kind, without its log header ("11-25 17:20:14.792 PID TID
 * F TAG func@file.c:996 ") or the ornaments before an assertion's file name.
 */
static void last_words(struct decoder *d, char *out, size_t len)
{
	const char *why = NULL;
	size_t whylen = 0;
	char line[CHILD_SAID_MAX];

	out[0] = '\0';
	d->said_text[d->nsaid] = '\0';
	for (const char *l = d->said_text; *l;) {
		size_t n = strcspn(l, "\n");

		if (n && !memmem(l, n, "Aborting", 8) && !memmem(l, n, "error is:", 9)) {
			why = l;
			whylen = n;
		}
		l += n + (l[n] == '\n');
	}
	if (!why)
		return;
	snprintf(line, sizeof(line), "%.*s", (int)whylen, why);
	why = line;
	if (strchr(why, '@')) { /* a log line: what follows "func@file:line " */
		const char *at = strchr(why, '@');

		why = at + strcspn(at, " ") + (at[strcspn(at, " ")] == ' ');
	}
	while (*why && !(*why >= 'A' && *why <= 'Z') && !(*why >= 'a' && *why <= 'z') &&
	       !(*why >= '0' && *why <= '9'))
		why++;
	ctf_clean_cause(why, out, len);
}

/* The child ended without its 'X': say how, and where it was. */
static int died(struct decoder *d, int status)
{
	char how[200], words[512], where[1200];
	const char *slash = strrchr(d->stream, '/');

	if (d->killed[0])
		snprintf(how, sizeof(how), "%s", d->killed);
	else
		child_died_of(status, how, sizeof(how));
	last_words(d, words, sizeof(words));
	if (d->stuck) {
		/* blocked on something that is not the trace (a lock, a stop), or given no time */
		dec_err(d, "%s: the %s decoder %s after event %" PRIu64 ": not the trace's doing",
			d->path, d->dec->name, d->killed, d->st->events ? d->st->events - 1 : 0);
		return -ECHILD;
	}
	if (!d->killed[0] && WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) {
		/* not sent by this process: the OOM killer, or someone's kill -9 */
		dec_err(d, "%s: the %s decoder was killed from outside (SIGKILL: out of memory?)"
			" after event %" PRIu64, d->path, d->dec->name,
			d->st->events ? d->st->events - 1 : 0);
		return -ECHILD;
	}
	/* every trace folder is opened before the first packet: the packet's stream says which */
	for (size_t i = 0; slash && i < d->nfolders; i++) {
		char *real = realpath(d->folders[i], NULL);

		if (real && strlen(real) == (size_t)(slash - d->stream) &&
		    !strncmp(real, d->stream, strlen(real)))
			snprintf(d->folder, sizeof(d->folder), "%s", d->folders[i]);
		free(real);
	}
	if (!d->folder[0]) {
		/* before it looked at the trace (loading babeltrace2's plugins): not the trace's doing */
		dec_err(d, "%s: the %s decoder %s before it opened the trace%s%s", d->path,
			d->dec->name, how, words[0] ? ": " : "", words);
		return -ECHILD;
	}
	if (!d->stream[0] && !d->st->events) {
		/* src.ctf.fs reads the metadata and indexes every stream file when opened */
		dec_err(d, "%s: cannot open %s: %s %s on it%s%s",
			d->folder[0] ? d->folder : d->path, d->dec->trace, d->dec->library, how,
			words[0] ? ": " : "", words);
		return -EINVAL;
	}
	if (d->st->events)
		snprintf(where, sizeof(where), "after event %" PRIu64 " at %" PRIu64 " ns",
			 d->st->events - 1, d->st->last_ts);
	else
		snprintf(where, sizeof(where), "before the first event");
	/* the decoder reads ahead of what it delivers: its death may come later */
	if (d->stream[0])
		snprintf(where + strlen(where), sizeof(where) - strlen(where),
			 ", in or after %s %" PRIu64 " of %s", d->dec->packet, d->packet, d->stream);
	dec_err(d, "%s: corrupt trace %s: %s %s%s%s", d->folder[0] ? d->folder : d->path,
		where, d->dec->library, how, words[0] ? ": " : "", words);
	return -EINVAL;
}

/* The child is gone or told to go: reap it, and close what this side held. */
static int end_child(struct decoder *d, int rc)
{
	int status;

	if (!d->ended && rc != 1)
		kill(d->pid, SIGKILL); /* a stop of ours, or it misbehaved */
	else if (!child_ends_within(d->pid, CHILD_END_MS)) {
		/* done, or closed its pipe, yet it lives on */
		if (!d->ended)
			snprintf(d->killed, sizeof(d->killed),
				 "closed its pipe but did not end (killed)");
		kill(d->pid, SIGKILL);
	}
	close(d->in);
	close(d->ask);
	status = child_reap(d->pid, &d->st->decoder_peak_rss);
	while (d->said >= 0) /* its last words, to the end (it is gone: no wait) */
		hear_said(d);
	if (d->ended)
		return d->rc;
	if (rc == 1 || d->killed[0])
		return died(d, status);
	if (rc == -ENOMEM)
		dec_err(d, "%s: out of memory at event %" PRIu64, d->path, d->st->events);
	else if (d->err && d->errlen && !d->err[0])
		dec_err(d, "%s: stopped at event %" PRIu64 " at %" PRIu64 " ns: %s", d->path,
			d->st->events ? d->st->events - 1 : 0, d->st->last_ts, strerror(-rc));
	return rc;
}

/* Start the child: pipes for what it says and writes to stderr, a socket for its questions. */
static int start_child(struct decoder *d)
{
	int data[2], said[2], ask[2];
	int rc = 0;

	if (pipe2(data, O_CLOEXEC))
		goto fail;
	if (pipe2(said, O_CLOEXEC))
		goto close_data;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ask))
		goto close_said;
	fcntl(data[1], F_SETPIPE_SZ, CHILD_PIPE_BYTES); /* (the default is fine too) */
	d->owner = getpid();
	d->anon_base = anon_bytes(d->owner);
	d->pid = child_fork(d->dec->child);
	if (d->pid == 0) {
		close(data[0]);
		close(said[0]);
		close(ask[0]);
		dup2(said[1], STDERR_FILENO);
		feed(d->dec, d->path, data[1], ask[1]);
	}
	rc = d->pid < 0 ? -errno : 0;
	close(data[1]);
	close(said[1]);
	close(ask[1]);
	d->in = data[0];
	d->said = said[0];
	d->ask = ask[0];
	if (!rc)
		return 0;
	close(ask[0]);
	data[1] = -1;
	said[1] = -1;
close_said:
	close(said[0]);
	if (said[1] >= 0)
		close(said[1]);
close_data:
	close(data[0]);
	if (data[1] >= 0)
		close(data[1]);
fail:
	if (!rc)
		rc = -errno;
	dec_err(d, "%s: cannot start the %s decoder: %s", d->path, d->dec->name, strerror(-rc));
	return -ECHILD;
}

int ctf_read(const char *path, ctf_bind_fn bind, ctf_event_fn on_event, void *ctx,
	     const struct ctf_limits *lim, struct ctf_stats *st, char *err, size_t errlen)
{
	struct ctf_stats own;
	struct decoder d = {
		.dec = decoder_for(path), .path = path, .bind = bind, .on_event = on_event, .ctx = ctx,
		.st = st ? st : &own, .err = err, .errlen = errlen, .cap = 256 * 1024,
		.lim = { .idle_s = lim && lim->idle_s ? lim->idle_s : CTF_IDLE_S,
			 .anon_bytes = lim && lim->anon_bytes ? lim->anon_bytes : CTF_ANON_BYTES },
	};
	int rc;

	*d.st = (struct ctf_stats){ 0 };
	if (err && errlen)
		err[0] = '\0';
	d.buf = malloc(d.cap);
	if (!d.buf) {
		dec_err(&d, "%s: out of memory", path);
		return -ENOMEM;
	}
	rc = start_child(&d);
	if (rc)
		goto free_buf;
	d.checked_ns = clock_mono_ns();
	child_pace_start(&d.pace, d.pid);
	do {
		if (getpid() != d.owner) {
			/* forked from the reader while it reads: the decoder is not this one's */
			close(d.in);
			close(d.ask);
			if (d.said >= 0)
				close(d.said);
			dec_err(&d, "%s: a process forked while the trace was decoded cannot "
				"read it on", path);
			rc = -ECHILD;
			goto free_buf;
		}
		rc = take_messages(&d);
		if (!rc && !d.ended)
			rc = listen_to(&d);
	} while (!rc && !d.ended);
	rc = end_child(&d, rc);
free_buf:
	for (size_t i = 0; i < d.nfolders; i++)
		free(d.folders[i]);
	free(d.folders);
	free(d.buf);
	return rc;
}
