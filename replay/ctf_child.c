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
 * The child writes what it decodes down a pipe, as messages
 * (ctf_child_pipe.c). Babeltrace2's own words on the way down (assertions, preconditions) come
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

#include "common/child.h"
#include "common/clock.h"
#include "common/types.h"
#include "common/units.h"
#include "replay/ctf_child_internal.h"
#include "replay/etl.h"
#include "replay/ftrace.h"

#define CHILD_PIPE_BYTES (1024 * 1024)  /* asked of the pipe: fewer wake-ups */
#define CHILD_POLL_MS 250
#define CHILD_END_MS 5000               /* for a child that is done to be gone */

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

void ctf_child_err(struct decoder *d, const char *fmt, ...)
{
	va_list ap;

	if (!d->err || !d->errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(d->err, d->errlen, fmt, ap);
	va_end(ap);
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
				 units_format_size(d->lim.anon_bytes, size, sizeof(size)));
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
		ctf_child_err(d, "%s: the %s decoder %s after event %" PRIu64 ": not the trace's doing",
			d->path, d->dec->name, d->killed, d->st->events ? d->st->events - 1 : 0);
		return -ECHILD;
	}
	if (!d->killed[0] && WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) {
		/* not sent by this process: the OOM killer, or someone's kill -9 */
		ctf_child_err(d, "%s: the %s decoder was killed from outside (SIGKILL: out of memory?)"
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
		ctf_child_err(d, "%s: the %s decoder %s before it opened the trace%s%s", d->path,
			d->dec->name, how, words[0] ? ": " : "", words);
		return -ECHILD;
	}
	if (!d->stream[0] && !d->st->events) {
		/* src.ctf.fs reads the metadata and indexes every stream file when opened */
		ctf_child_err(d, "%s: cannot open %s: %s %s on it%s%s",
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
	ctf_child_err(d, "%s: corrupt trace %s: %s %s%s%s", d->folder[0] ? d->folder : d->path,
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
		ctf_child_err(d, "%s: out of memory at event %" PRIu64, d->path, d->st->events);
	else if (d->err && d->errlen && !d->err[0])
		ctf_child_err(d, "%s: stopped at event %" PRIu64 " at %" PRIu64 " ns: %s", d->path,
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
		ctf_child_feed(d->dec, d->path, data[1], ask[1]);
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
	ctf_child_err(d, "%s: cannot start the %s decoder: %s", d->path, d->dec->name, strerror(-rc));
	return -ECHILD;
}

int ctf_read(const char *path, ctf_bind_fn bind, ctf_event_fn on_event, void *ctx,
	     const struct ctf_limits *lim, struct ctf_stats *st, char *err, size_t errlen)
{
	struct ctf_stats own = { 0 };
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
		ctf_child_err(&d, "%s: out of memory", path);
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
			ctf_child_err(&d, "%s: a process forked while the trace was decoded cannot "
				"read it on", path);
			rc = -ECHILD;
			goto free_buf;
		}
		rc = ctf_child_take(&d);
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
