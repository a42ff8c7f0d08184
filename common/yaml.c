/* SPDX-License-Identifier: MIT */
/*
 * Reading YAML input files with errors that say where (common/yaml.h).
 *
 * The file is built into a libfyaml document, then walked by hand by the
 * caller: every mapping is checked against the keys it may hold, every
 * scalar is parsed with the strict parsers of common/units.h. Errors do not
 * stop the walk, so one run reports as many problems as it can; they are
 * kept until yaml_close() so the report can be sorted by position.
 */
#include "yaml.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "array.h"
#include "child.h"
#include "clock.h"
#include "json.h"
#include "types.h"
#include "units.h"

/* One error, kept until the end so the report can be sorted by position. */
struct yaml_err {
	int line;
	int col;
	unsigned int seq; /* report order, to keep the sort stable */
	char *text;       /* the whole line, with its newline */
};

struct yaml_doc {
	char *path;
	char *text;               /* the file's bytes, which the document points into; or NULL */
	struct fy_diag *diag;     /* the parser's: outlives the document built with it */
	struct fy_document *fyd;  /* NULL when the file could not be read or parsed */
	struct fy_node *root;     /* NULL for an empty file */
	/*
	 * JSON with bytes escaped as not UTF-8 (json.h): libfyaml parses
	 * @masked, a copy of the text with those escapes masked, and
	 * yaml_text() decodes strings again from @source, the text as it is.
	 */
	char *masked;
	const char *source;       /* NULL when nothing was masked */
	char **texts;             /* what yaml_text() gave back */
	size_t ntexts, textcap;
	struct yaml_err *errs;
	size_t nerr;
	size_t cap;
	bool oom;
	int env_err;              /* a failure not the file's (-ECHILD), or 0 */
};

/* ---- errors ------------------------------------------------------------ */

static void err_add(struct yaml_doc *d, int line, int col, const char *text)
{
	struct yaml_err *e;

	if (array_reserve(&d->errs, &d->cap, d->nerr, sizeof(*d->errs))) {
		d->oom = true;
		return;
	}
	e = &d->errs[d->nerr];
	e->text = strdup(text);
	if (!e->text) {
		d->oom = true;
		return;
	}
	e->line = line;
	e->col = col;
	e->seq = (unsigned int)d->nerr;
	d->nerr++;
}

static int err_cmp(const void *a, const void *b)
{
	const struct yaml_err *x = a, *y = b;

	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	if (x->col != y->col)
		return x->col < y->col ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/*
 * Write the errors, in file order, as whole lines into @buf; a line that
 * does not fit ends the report (cut short only if it is the first).
 */
static void err_flush(struct yaml_doc *d, char *buf, size_t len)
{
	size_t i, used = 0;

	if (d->nerr > 1)
		qsort(d->errs, d->nerr, sizeof(*d->errs), err_cmp);
	for (i = 0; buf && len && i < d->nerr; i++) {
		size_t n = strlen(d->errs[i].text);

		if (used + n + 1 > len) {
			if (used == 0) {
				memcpy(buf, d->errs[i].text, len - 1);
				buf[len - 1] = '\0';
			}
			break;
		}
		memcpy(buf + used, d->errs[i].text, n + 1);
		used += n;
	}
	for (i = 0; i < d->nerr; i++)
		free(d->errs[i].text);
	free(d->errs);
	d->errs = NULL;
	d->nerr = d->cap = 0;
}

static void verr_pos(struct yaml_doc *d, int line, int col, const char *fmt, va_list ap)
{
	char msg[512], out[1024];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (snprintf(out, sizeof(out), "%s:%d:%d: error: %s\n", d->path, line, col, msg) >=
	    (int)sizeof(out))
		out[sizeof(out) - 2] = '\n'; /* cut short, but still one line */
	err_add(d, line, col, out);
}

static void err_pos(struct yaml_doc *d, int line, int col, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void err_pos(struct yaml_doc *d, int line, int col, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	verr_pos(d, line, col, fmt, ap);
	va_end(ap);
}

static void discard_output(struct fy_diag *diag, void *user, const char *buf, size_t len)
{
	(void)diag;
	(void)user;
	(void)buf;
	(void)len;
}

/* A diagnostic object that collects instead of printing. */
static struct fy_diag *diag_collecting(void)
{
	struct fy_diag_cfg cfg;
	struct fy_diag *diag;

	fy_diag_cfg_default(&cfg);
	cfg.fp = NULL;
	cfg.output_fn = discard_output;
	cfg.colorize = false;
	cfg.level = FYET_ERROR;
	diag = fy_diag_create(&cfg);
	if (diag)
		fy_diag_set_collect_errors(diag, true);
	return diag;
}

/*
 * Scalars carry a token with a start mark. libfyaml 0.7.12 has no public
 * start mark for collections, but its node reports compute one: report into
 * a private collecting diag and read the position back. That fails for a
 * block collection whose last value is empty, so fall back to the first
 * child.
 */
bool yaml_pos(struct fy_node *n, int *line, int *col)
{
	struct fy_diag_error *e;
	struct fy_diag *diag;
	void *it = NULL;
	bool ok = false;

	if (!n)
		return false;
	if (fy_node_is_scalar(n)) {
		struct fy_token *t = fy_node_get_scalar_token(n);
		const struct fy_mark *m = t ? fy_token_start_mark(t) : NULL;

		if (!m)
			return false;
		*line = m->line + 1;
		*col = m->column + 1;
		return true;
	}
	diag = diag_collecting();
	if (diag) {
		fy_diag_node_report(diag, n, FYET_ERROR, "here");
		e = fy_diag_errors_iterate(diag, &it);
		if (e && e->line > 0 && e->column > 0) {
			*line = e->line;
			*col = e->column;
			ok = true;
		}
		fy_diag_destroy(diag);
	}
	if (ok)
		return true;
	it = NULL;
	if (fy_node_is_mapping(n)) {
		struct fy_node_pair *pair = fy_node_mapping_iterate(n, &it);

		return pair && yaml_pos(fy_node_pair_key(pair), line, col);
	}
	return yaml_pos(fy_node_sequence_iterate(n, &it), line, col);
}

static void verr_at(struct yaml_doc *d, struct fy_node *at, struct fy_node *fallback,
		    const char *fmt, va_list ap)
{
	int line = 1, col = 1;

	if (!yaml_pos(at, &line, &col))
		yaml_pos(fallback, &line, &col);
	verr_pos(d, line, col, fmt, ap);
}

void yaml_error(struct yaml_doc *d, struct fy_node *at, struct fy_node *fallback,
		const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	verr_at(d, at, fallback, fmt, ap);
	va_end(ap);
}

void yaml_field_error(struct yaml_doc *d, const struct yaml_field *f, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	yaml_error(d, f->val, f->key, "%s: %s", f->name, msg);
}

void yaml_nomem(struct yaml_doc *d)
{
	d->oom = true;
}

bool yaml_failed(const struct yaml_doc *d)
{
	return d->nerr > 0;
}

/* ---- documents --------------------------------------------------------- */

/* Copy the parser's collected diagnostics into the error list. */
static void take_parse_errors(struct yaml_doc *d)
{
	struct fy_diag_error *e;
	void *it = NULL;

	while ((e = fy_diag_errors_iterate(d->diag, &it))) {
		if (e->type < FYET_ERROR)
			continue;
		err_pos(d, e->line > 0 ? e->line : 1, e->column > 0 ? e->column : 1, "%s",
			e->msg ? e->msg : "YAML syntax error");
	}
}

/* The most a file gpuiso parses may hold: scenarios, plans, maps and run files are far smaller. */
#define YAML_MAX_BYTES (256u << 20)
/*
 * The trial parse's pace (trial_parse()): the CPU time it may use, 10 s and
 * 1 s more for every 128 KiB (libfyaml parses 5 MiB or more in a second of
 * CPU time here: a 50 MB file takes about 10 s of the 400 s it may; but a
 * mapping's keys cost it time that grows with the square of their count,
 * and 50,000 keys in one mapping take it many minutes), and the seconds it
 * may neither run nor move on.
 */
#define YAML_CPU_S 10
#define YAML_CPU_BYTES_PER_S (128u << 10)
#define YAML_STUCK_S 30
#define YAML_POLL_MS 250

/* The whole file, NUL-terminated, in *@text; 0, or -ENOENT / -EINVAL / -ENOMEM (reported). */
static int read_file(struct yaml_doc *d, char **text, size_t *len)
{
	char line[1024];
	struct stat st;
	size_t cap = 0;
	ssize_t n;
	int fd = open(d->path, O_RDONLY | O_CLOEXEC);

	*text = NULL;
	*len = 0;
	/* open() opens a folder for reading; the parser then fails obscurely */
	if (fd >= 0 && !fstat(fd, &st) && S_ISDIR(st.st_mode)) {
		close(fd);
		fd = -1;
		errno = EISDIR;
	}
	if (fd < 0) {
		snprintf(line, sizeof(line), "%s: error: cannot open: %s\n", d->path, strerror(errno));
		err_add(d, 0, 0, line);
		return -ENOENT;
	}
	do {
		if (*len + 1 >= cap) {
			char *more = cap >= YAML_MAX_BYTES ? NULL : realloc(*text, cap = cap ? 2 * cap : 65536);

			if (!more) {
				free(*text);
				*text = NULL;
				close(fd);
				if (cap < YAML_MAX_BYTES)
					return -ENOMEM;
				snprintf(line, sizeof(line), "%s: error: larger than %u MiB\n", d->path,
					 YAML_MAX_BYTES >> 20);
				err_add(d, 0, 0, line);
				return -EINVAL;
			}
			*text = more;
		}
		n = read(fd, *text + *len, cap - *len - 1);
		if (n > 0)
			*len += (size_t)n;
	} while (n > 0 || (n < 0 && errno == EINTR));
	close(fd);
	if (n < 0) {
		snprintf(line, sizeof(line), "%s: error: cannot read: %s\n", d->path, strerror(errno));
		err_add(d, 0, 0, line);
		free(*text);
		*text = NULL;
		return -ENOENT;
	}
	(*text)[*len] = '\0';
	return 0;
}

/* ---- hostile input ----------------------------------------------------- */

/*
 * What libfyaml cannot be given: a NUL byte, or bytes that are not UTF-8
 * (YAML and JSON are text in UTF-8; libfyaml 0.7.12 loops for ever on a
 * directive line with an invalid sequence). The first is reported where it is.
 */
static int check_text(struct yaml_doc *d, const char *text, size_t len)
{
	const unsigned char *p = (const unsigned char *)text;
	int line = 1, col = 1;

	for (size_t i = 0, n; i < len; i += n, col++) {
		n = p[i] ? json_utf8_len(p + i, len - i) : 0;
		if (!n && p[i]) {
			err_pos(d, line, col, "not UTF-8 text (byte 0x%02x, offset %zu)", p[i], i);
			return -EINVAL;
		}
		if (!n) {
			err_pos(d, line, col, "a NUL byte (offset %zu)", i);
			return -EINVAL;
		}
		if (p[i] == '\n') {
			line++;
			col = 0;
		}
	}
	return 0;
}

/* In the trial child: each diagnostic of the parser, as it comes, to the parent. */
static void send_output(struct fy_diag *diag, void *user, const char *buf, size_t len)
{
	(void)diag;
	if (write(*(int *)user, buf, len) < 0)
		_exit(0); /* the parent has gone: nothing to tell */
}

/* The child's side of trial_parse(): parse as this process will, saying every error on @fd. */
static void __attribute__((noreturn)) trial_child(int fd, const char *text, size_t len,
						  unsigned int flags)
{
	struct fy_diag_cfg dcfg;
	struct fy_parse_cfg cfg = { .flags = FYPCF_QUIET | FYPCF_COLLECT_DIAG | flags };

	fy_diag_cfg_default(&dcfg);
	dcfg.fp = NULL;
	dcfg.output_fn = send_output;
	dcfg.user = &fd;
	dcfg.colorize = false;
	dcfg.show_source = false;
	dcfg.level = FYET_ERROR;
	cfg.diag = fy_diag_create(&dcfg);
	if (cfg.diag)
		fy_document_build_from_string(&cfg, text, len);
	_exit(0); /* the write end closes: the parent's wait ends */
}

/* Where the trial child's last error said it was, in @said; false when it said none. */
static bool trial_last_error(char *said, int *line, int *col, const char **msg, int *msglen)
{
	const char *pos = NULL;
	int at = 0;

	/* its last error, "<memory-…>:LINE:COL: error: MESSAGE", says where it was */
	for (const char *l = said; *l; l += strcspn(l, "\n") + (l[strcspn(l, "\n")] == '\n'))
		if (!strncmp(l, "<memory", 7) && strstr(l, ">:"))
			pos = strstr(l, ">:"); /* the last error's own line: its name ends at its first ">:" */
	if (!pos || sscanf(pos, ">:%d:%d: error: %n", line, col, &at) != 2 || !at)
		return false;
	*msg = pos + at;
	*msglen = (int)strcspn(pos + at, "\n");
	return true;
}

/*
 * Parse @text once in a child process first: libfyaml 0.7.12 crashes on
 * some few bytes of valid UTF-8 ("? a:\t?") and loops for ever on others,
 * and a parse must not take gpuiso with it. The child parses exactly as
 * this process will (the same call on the same bytes: libfyaml's crashes
 * depend on how it is handed the text). It is watched by its pace
 * (child.h), never by the clock: one that has used more CPU time than any
 * parse of a file that size takes loops on the file, however busy the
 * machine; one that neither runs nor moves on for YAML_STUCK_S is blocked
 * on something that is not the file.
 *
 * Return: 0 when the child finished (this process then parses it and hears
 * its errors, if any), -EINVAL when it died or looped on the file (reported
 * where its last error said, when it said one), -ECHILD when it was stuck
 * or killed by someone else (reported: not the file's doing).
 */
static int trial_parse(struct yaml_doc *d, const char *text, size_t len, unsigned int flags)
{
	struct pollfd pfd = { .events = POLLIN };
	unsigned int cpu_s = YAML_CPU_S + (unsigned int)(len / YAML_CPU_BYTES_PER_S);
	enum child_pace_verdict v = CHILD_MOVING;
	struct child_pace pace;
	char said[4096], why[160];
	size_t nsaid = 0;
	int fds[2], status, line = 0, col = 0, msglen = 0;
	const char *msg;
	pid_t pid;

	if (pipe2(fds, O_CLOEXEC))
		return 0; /* no child to be had: the parse is this process's, as before */
	pid = child_fork("yaml-trial");
	if (pid == 0) {
		close(fds[0]);
		trial_child(fds[1], text, len, flags);
	}
	close(fds[1]);
	if (pid < 0) {
		close(fds[0]);
		return 0;
	}
	/* what it says, until it ends (the pipe's end), or its pace says it will not */
	pfd.fd = fds[0];
	child_pace_start(&pace, pid);
	for (;;) {
		uint64_t before = clock_mono_ns();
		int ready = poll(&pfd, 1, YAML_POLL_MS);
		ssize_t n;

		if (ready < 0 && errno != EINTR) {
			/* cannot wait for it: the parse is this process's, as without a child */
			kill(pid, SIGKILL);
			close(fds[0]);
			child_reap(pid, NULL);
			return 0;
		}
		if (ready > 0) {
			n = read(fds[0], said + nsaid, sizeof(said) - 1 - nsaid);
			if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN))
				break; /* the end: the child is done */
			if (n > 0)
				nsaid += (size_t)n;
			if (nsaid == sizeof(said) - 1)
				nsaid = 0; /* only the last errors matter */
		}
		/*
		 * Its progress cannot be seen from here: it is judged by its CPU
		 * time alone. At most two polls' worth of waiting count at a
		 * time: a whole process stopped (^Z) is not a stuck child.
		 */
		v = child_pace_check(&pace, 0,
				     GPUISO_MIN(clock_mono_ns() - before, 2 * YAML_POLL_MS * 1000000ull),
				     cpu_s, YAML_STUCK_S);
		if (v != CHILD_MOVING) {
			kill(pid, SIGKILL);
			break;
		}
	}
	close(fds[0]);
	status = child_reap(pid, NULL);
	said[nsaid] = '\0';
	if (v == CHILD_MOVING && WIFEXITED(status) && !WEXITSTATUS(status))
		return 0;
	if (v == CHILD_STUCK || (v == CHILD_MOVING && WIFSIGNALED(status) &&
				 WTERMSIG(status) == SIGKILL)) {
		char line_text[512];

		/* not the file's doing: a process blocked (stopped, deadlocked), or killed from outside */
		if (v == CHILD_STUCK)
			child_pace_say(&pace, v, why, sizeof(why));
		else
			snprintf(why, sizeof(why), "was killed from outside (SIGKILL: out of memory?)");
		snprintf(line_text, sizeof(line_text),
			 "%s: error: the process that parses it first (yaml-trial, pid %d) %s: not the file's doing\n",
			 d->path, (int)pid, why);
		err_add(d, 0, 0, line_text);
		d->env_err = -ECHILD;
		return -ECHILD;
	}
	if (v == CHILD_SPINNING)
		snprintf(why, sizeof(why),
			 "did not finish in %u s of CPU time, the most a file of %zu bytes is given",
			 cpu_s, len);
	else
		child_died_of(status, why, sizeof(why));
	if (trial_last_error(said, &line, &col, &msg, &msglen))
		err_pos(d, line, col, "%.*s; then the YAML parser (libfyaml) %s: not YAML it can read",
			msglen, msg, why);
	else
		err_pos(d, 1, 1, "the YAML parser (libfyaml) %s on this file: not YAML it can read",
			why);
	return -EINVAL;
}

/*
 * JSON whose strings hold bytes escaped as not UTF-8 (json.h), which
 * libfyaml refuses (lone surrogates): @d->masked is @text with those escapes
 * masked, of the same length (positions in messages stay right), and
 * @d->source the text as it is. Return: 0 or -ENOMEM.
 */
static int mask_byte_escapes(struct yaml_doc *d, const char *text, size_t len)
{
	if (!strstr(text, "\\ud") && !strstr(text, "\\uD"))
		return 0;
	d->masked = malloc(len + 1);
	if (!d->masked)
		return -ENOMEM;
	memcpy(d->masked, text, len + 1);
	if (!json_mask_byte_escapes(d->masked)) {
		free(d->masked);
		d->masked = NULL;
		return 0;
	}
	d->source = text;
	return 0;
}

/* Parse @path, or @text (named @path in messages; it must outlive the document) when given. */
static int doc_open(const char *path, const char *text, unsigned int json_mode,
		    struct yaml_doc **out)
{
	struct fy_parse_cfg cfg = { 0 };
	struct yaml_doc *d;
	size_t len = text ? strlen(text) : 0, plen = strlen(path);
	int ret;

	*out = NULL;
	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	d->path = strdup(path);
	if (!d->path) {
		ret = -ENOMEM;
		goto free_doc;
	}
	if (!text) {
		ret = read_file(d, &d->text, &len);
		text = d->text;
		/* libfyaml tells JSON from YAML by the file's name, which a text has not */
		if (json_mode == FYPCF_JSON_AUTO && plen > 5 && !strcmp(path + plen - 5, ".json"))
			json_mode = FYPCF_JSON_FORCE;
		if (ret == -ENOMEM)
			goto free_path;
		if (ret)
			goto publish;
	}
	ret = check_text(d, text, len);
	if (ret)
		goto publish;
	if (json_mode == FYPCF_JSON_FORCE) {
		ret = mask_byte_escapes(d, text, len);
		if (ret)
			goto free_path;
		text = d->masked ? d->masked : text;
	}
	ret = trial_parse(d, text, len, json_mode);
	if (ret)
		goto publish;
	d->diag = diag_collecting();
	if (!d->diag) {
		ret = -ENOMEM;
		goto free_path;
	}
	/* Aliases are resolved so that "*name" reads like the anchored node. */
	cfg.flags = FYPCF_QUIET | FYPCF_COLLECT_DIAG | FYPCF_RESOLVE_DOCUMENT | json_mode;
	cfg.diag = d->diag;
	d->fyd = fy_document_build_from_string(&cfg, text, len);
	if (!d->fyd || fy_diag_got_error(d->diag)) {
		take_parse_errors(d);
		/*
		 * libfyaml builds no document, silently, from an empty file:
		 * without errors this is one, and the caller says what it expected.
		 */
		ret = d->nerr || d->oom ? -EINVAL : 0;
	} else {
		d->root = fy_document_root(d->fyd);
	}
publish:
	*out = d;
	return ret;
free_path:
	free(d->masked);
	free(d->text);
	free(d->path);
free_doc:
	free(d);
	return ret;
}

int yaml_open(const char *path, struct yaml_doc **out)
{
	return doc_open(path, NULL, FYPCF_JSON_AUTO, out);
}

int yaml_open_json(const char *path, struct yaml_doc **out)
{
	return doc_open(path, NULL, FYPCF_JSON_FORCE, out);
}

int yaml_open_json_text(const char *name, const char *text, struct yaml_doc **out)
{
	return doc_open(name, text, FYPCF_JSON_FORCE, out);
}

struct fy_node *yaml_root(struct yaml_doc *d)
{
	return d->root;
}

const char *yaml_text(struct yaml_doc *d, struct fy_node *n)
{
	const struct fy_mark *start, *end;
	struct fy_token *t;
	const char *s;
	char *bytes;

	if (!n || !fy_node_is_scalar(n))
		return NULL;
	s = fy_node_get_scalar0(n);
	/* a masked escape reads as U+FFFD: only such strings are decoded again */
	if (!s || !d->source || fy_node_get_style(n) != FYNS_DOUBLE_QUOTED ||
	    !strstr(s, "\xef\xbf\xbd"))
		return s;
	t = fy_node_get_scalar_token(n);
	start = t ? fy_token_start_mark(t) : NULL;
	end = t ? fy_token_end_mark(t) : NULL;
	if (!start || !end || end->input_pos < start->input_pos)
		return s;
	if (array_reserve(&d->texts, &d->textcap, d->ntexts, sizeof(*d->texts))) {
		d->oom = true;
		return NULL;
	}
	switch (json_unescape(d->source + start->input_pos, end->input_pos - start->input_pos,
			      &bytes)) {
	case 0:
		d->texts[d->ntexts++] = bytes;
		return bytes;
	case -ENOMEM:
		d->oom = true;
		return NULL;
	default:
		return s; /* not as JSON writes it: as libfyaml read it */
	}
}

const char *yaml_path(const struct yaml_doc *d)
{
	return d->path;
}

int yaml_close(struct yaml_doc *d, char *err, size_t errlen)
{
	int ret;

	if (err && errlen)
		err[0] = '\0';
	if (!d)
		return 0;
	ret = d->oom ? -ENOMEM : d->env_err ? d->env_err : d->nerr ? -EINVAL : 0;
	err_flush(d, err, errlen);
	/* The document holds a reference to the diag it was built with: it goes first. */
	if (d->fyd)
		fy_document_destroy(d->fyd);
	if (d->diag)
		fy_diag_destroy(d->diag);
	for (size_t i = 0; i < d->ntexts; i++)
		free(d->texts[i]);
	free(d->texts);
	free(d->masked);
	free(d->text);
	free(d->path);
	free(d);
	return ret;
}

/* ---- scalars ----------------------------------------------------------- */

static bool node_is_null(struct fy_node *n)
{
	const char *s;

	if (!n)
		return true;
	if (!fy_node_is_scalar(n))
		return false;
	if (!fy_node_get_scalar_token(n))
		return true;
	if (fy_node_get_style(n) != FYNS_PLAIN)
		return false;
	s = fy_node_get_scalar0(n);
	return !s || !*s || !strcmp(s, "~") || !strcmp(s, "null") || !strcmp(s, "Null") ||
	       !strcmp(s, "NULL");
}

static const char *node_kind(struct fy_node *n)
{
	if (node_is_null(n))
		return "null";
	if (fy_node_is_mapping(n))
		return "a mapping";
	if (fy_node_is_sequence(n))
		return "a sequence";
	return "a scalar";
}

const char *yaml_str(struct yaml_doc *d, const struct yaml_field *f, const char *what)
{
	const char *s;

	if (!fy_node_is_scalar(f->val) || node_is_null(f->val)) {
		yaml_field_error(d, f, "expected %s, got %s", what ? what : "a string",
				 node_kind(f->val));
		return NULL;
	}
	s = yaml_text(d, f->val);
	if (!s) {
		d->oom = true;
		return NULL;
	}
	return s;
}

bool yaml_u64(struct yaml_doc *d, const struct yaml_field *f, uint64_t *out)
{
	const char *s = yaml_str(d, f, "an integer");
	int ret;

	if (!s)
		return false;
	ret = parse_u64(s, out);
	if (ret == -ERANGE)
		yaml_field_error(d, f, "integer '%s' does not fit in 64 bits", s);
	else if (ret)
		yaml_field_error(d, f, "invalid integer '%s' (expected decimal or 0x hex)", s);
	return ret == 0;
}

bool yaml_u32(struct yaml_doc *d, const struct yaml_field *f, uint32_t *out)
{
	uint64_t v;

	if (!yaml_u64(d, f, &v))
		return false;
	if (v > UINT32_MAX) {
		yaml_field_error(d, f, "%s is larger than %u", fy_node_get_scalar0(f->val),
				 UINT32_MAX);
		return false;
	}
	*out = (uint32_t)v;
	return true;
}

bool yaml_size(struct yaml_doc *d, const struct yaml_field *f, uint64_t *out)
{
	const char *s = yaml_str(d, f, "a size");
	int ret;

	if (!s)
		return false;
	ret = parse_size(s, out);
	if (ret == -ERANGE)
		yaml_field_error(d, f, "size '%s' does not fit in 64 bits", s);
	else if (ret)
		yaml_field_error(d, f,
				 "invalid size '%s' (expected an integer, 0x hex, or an integer with B, KiB, MiB, GiB or TiB)",
				 s);
	return ret == 0;
}

bool yaml_bool(struct yaml_doc *d, const struct yaml_field *f, bool *out)
{
	const char *s = yaml_str(d, f, "true or false");

	if (!s)
		return false;
	if (!strcmp(s, "true")) {
		*out = true;
	} else if (!strcmp(s, "false")) {
		*out = false;
	} else {
		yaml_field_error(d, f, "expected true or false, got '%s'", s);
		return false;
	}
	return true;
}

/* ---- mappings and sequences -------------------------------------------- */

/*
 * Names for messages. They are bounded (YAML_NAME_LEN); a name cut short
 * still points the reader at the right place, so truncation is accepted.
 */
static void join_name(char *dst, const char *ctx, const char *key)
{
	int n;

	if (ctx && *ctx)
		n = snprintf(dst, YAML_NAME_LEN, "%s.%s", ctx, key);
	else
		n = snprintf(dst, YAML_NAME_LEN, "%s", key);
	if (n < 0)
		dst[0] = '\0';
}

static void index_name(char *dst, const char *base, size_t index)
{
	if (snprintf(dst, YAML_NAME_LEN, "%s[%zu]", base, index) < 0)
		dst[0] = '\0';
}

bool yaml_fields(struct yaml_doc *d, struct fy_node *map, struct fy_node *owner, const char *ctx,
		 const char *const *names, size_t n, struct yaml_field *fields)
{
	struct fy_node_pair *pair;
	void *it = NULL;
	size_t i;

	for (i = 0; i < n; i++) {
		fields[i].key = NULL;
		fields[i].val = NULL;
		join_name(fields[i].name, ctx, names[i]);
	}
	if (!fy_node_is_mapping(map) || node_is_null(map)) {
		yaml_error(d, map, owner, "%s: expected a mapping, got %s",
			   *ctx ? ctx : "top level", node_kind(map));
		return false;
	}
	while ((pair = fy_node_mapping_iterate(map, &it))) {
		struct fy_node *k = fy_node_pair_key(pair);
		const char *ks = NULL;

		if (k && fy_node_is_scalar(k) && !node_is_null(k))
			ks = fy_node_get_scalar0(k);
		if (!ks) {
			yaml_error(d, k, map, "%s: keys must be plain strings, got %s",
				   *ctx ? ctx : "top level", node_kind(k));
			continue;
		}
		for (i = 0; i < n; i++)
			if (!strcmp(ks, names[i]))
				break;
		if (i == n) {
			char list[512];
			size_t j, off = 0;

			list[0] = '\0';
			for (j = 0; j < n && off < sizeof(list); j++)
				off += (size_t)snprintf(list + off, sizeof(list) - off, "%s%s",
							j ? ", " : "", names[j]);
			yaml_error(d, k, map, "%s: unknown key '%s' (expected one of: %s)",
				   *ctx ? ctx : "top level", ks, list);
			continue;
		}
		fields[i].key = k;
		fields[i].val = fy_node_pair_value(pair);
	}
	return true;
}

int yaml_count(struct yaml_doc *d, const struct yaml_field *f)
{
	int n;

	if (!fy_node_is_sequence(f->val)) {
		yaml_field_error(d, f, "expected a sequence, got %s", node_kind(f->val));
		return -1;
	}
	n = fy_node_sequence_item_count(f->val);
	return n < 0 ? -1 : n;
}

struct fy_node *yaml_items(struct yaml_doc *d, const struct yaml_field *f, void **it,
			   size_t *index, char *name)
{
	bool first = !*it;
	struct fy_node *item;

	if (first && !fy_node_is_sequence(f->val)) {
		yaml_field_error(d, f, "expected a sequence, got %s", node_kind(f->val));
		return NULL;
	}
	item = fy_node_sequence_iterate(f->val, it);
	if (!item)
		return NULL;
	if (!first)
		(*index)++;
	index_name(name, f->name, *index);
	return item;
}
