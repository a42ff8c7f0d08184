/* SPDX-License-Identifier: MIT */
/* The text form of workload traces: an event as a line, and lines read back. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/array.h"
#include "common/units.h"
#include "replay/text.h"

/* The name of the line that says the tracer lost events. */
#define TEXT_LOST "lost"

/* Append to @buf at *@n; -ENOSPC when it does not fit. */
static int text_append(char *buf, size_t len, size_t *n, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int text_append(char *buf, size_t len, size_t *n, const char *fmt, ...)
{
	va_list ap;
	int w;

	if (*n >= len)
		return -ENOSPC;
	va_start(ap, fmt);
	w = vsnprintf(buf + *n, len - *n, fmt, ap);
	va_end(ap);
	if (w < 0 || (size_t)w >= len - *n)
		return -ENOSPC;
	*n += (size_t)w;
	return 0;
}

/* Enumerated values the text names (docs/trace-events.md, "Enumerations"). */
static const struct text_name {
	const char *field;
	uint64_t value;
	const char *name;
} text_names[] = {
	{ "cache", WL_CACHE_NONCACHED, "noncached" },
	{ "cache", WL_CACHE_CACHED, "cached" },
	{ "cache", WL_CACHE_WRITECOMBINED, "writecombined" },
	{ "segment", WL_SEG_VRAM, "vram" },
	{ "segment", WL_SEG_APERTURE, "aperture" },
	{ "segment", WL_SEG_SYSTEM, "system" },
	{ "dir", WL_DIR_TO_VRAM, "to_vram" },
	{ "dir", WL_DIR_FROM_VRAM, "from_vram" },
	{ "state", WL_POWER_D0, "D0" },
	{ "state", WL_POWER_D3, "D3" },
	{ "level", WL_IRQL_PASSIVE, "passive" },
	{ "level", WL_IRQL_APC, "apc" },
	{ "level", WL_IRQL_DISPATCH, "dispatch" },
	{ "level", WL_IRQL_HIGH, "high" },
	{ "mode", WL_ACCESS_KERNEL, "kernel" },
	{ "mode", WL_ACCESS_USER, "user" },
	{ "commit_available", UINT64_MAX, "unlimited" },
	{ "lockable_available", UINT64_MAX, "unlimited" },
};

static const char *text_value_name(const char *field, uint64_t v)
{
	for (size_t i = 0; i < sizeof(text_names) / sizeof(text_names[0]); i++)
		if (text_names[i].value == v && !strcmp(text_names[i].field, field))
			return text_names[i].name;
	return NULL;
}

/* ", or one of its names: a, b, c" for a field that has names, else "". */
static void text_names_of(const char *field, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < sizeof(text_names) / sizeof(text_names[0]); i++)
		if (!strcmp(text_names[i].field, field))
			text_append(buf, len, &n, "%s%s", n ? ", " : ", or one of its names: ",
				    text_names[i].name);
}

static bool text_name_value(const char *field, const char *name, uint64_t *v)
{
	for (size_t i = 0; i < sizeof(text_names) / sizeof(text_names[0]); i++)
		if (!strcmp(text_names[i].name, name) && !strcmp(text_names[i].field, field)) {
			*v = text_names[i].value;
			return true;
		}
	return false;
}

int text_format_event(const struct wl_event *e, char *buf, size_t len)
{
	const struct wl_desc *d;
	size_t n = 0;
	int rc;

	if (e->kind >= WL_NKINDS)
		return -EINVAL;
	d = &wl_catalogue[e->kind];
	rc = text_append(buf, len, &n, "%s ts=%llu", d->name, (unsigned long long)e->ts);
	for (unsigned int i = 0; i < d->nfields && !rc; i++) {
		uint64_t v = e->v[d->fields[i].slot];
		const char *name = text_value_name(d->fields[i].name, v);

		if (name)
			rc = text_append(buf, len, &n, " %s=%s", d->fields[i].name, name);
		else if (d->fields[i].slot == WL_FLAGS || !strcmp(d->fields[i].name, "base"))
			rc = text_append(buf, len, &n, " %s=0x%llx", d->fields[i].name,
					 (unsigned long long)v);
		else
			rc = text_append(buf, len, &n, " %s=%llu", d->fields[i].name,
					 (unsigned long long)v);
	}
	return rc ? rc : (int)n;
}

int text_format_loss(const struct ctf_loss *l, char *buf, size_t len)
{
	size_t n = 0;
	int rc = text_append(buf, len, &n, TEXT_LOST);

	if (!rc && l->events)
		rc = text_append(buf, len, &n, " events=%llu", (unsigned long long)l->events);
	if (!rc && l->packets)
		rc = text_append(buf, len, &n, " packets=%llu", (unsigned long long)l->packets);
	return rc ? rc : (int)n;
}

/* --- reading --- */

/* One parse: where it is, what it found so far. */
struct text_parser {
	const char *name;
	struct text_trace *t;
	char *err;
	size_t errlen, errused;
	unsigned int errors;
	uint64_t line;
	bool lost_before;        /* a loss line came before the next event */
	struct ctf_loss pending; /* its counts */
	struct ctf_loss lost;    /* every loss so far, added up (CTF_LOST_*_MAX at most) */
	uint64_t last_ts;        /* of the last event, and its line */
	uint64_t last_ts_line;
};

static void text_error(struct text_parser *p, size_t col, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* One error line, "NAME:LINE:COL: error: what" (@col from 1). */
static void text_error(struct text_parser *p, size_t col, const char *fmt, ...)
{
	va_list ap;
	int w;

	if (p->errors++ >= TEXT_MAX_ERRORS || p->errused + 1 >= p->errlen)
		return;
	w = snprintf(p->err + p->errused, p->errlen - p->errused, "%s%s:%llu:%zu: error: ",
		     p->errused ? "\n" : "", p->name, (unsigned long long)p->line, col);
	if (w > 0)
		p->errused += (size_t)w < p->errlen - p->errused ? (size_t)w
								 : p->errlen - p->errused - 1;
	va_start(ap, fmt);
	w = vsnprintf(p->err + p->errused, p->errlen - p->errused, fmt, ap);
	va_end(ap);
	if (w > 0)
		p->errused += (size_t)w < p->errlen - p->errused ? (size_t)w
								 : p->errlen - p->errused - 1;
}

/* NAME=VALUE tokens a line may have: room for every field, and for mistakes to be named */
#define TEXT_MAX_TOKENS 16

/* A NAME=VALUE token of a line: its text is NUL-terminated in the parser's copy. */
struct text_token {
	char *name, *value;
	size_t col, value_col;   /* from 1 */
};

static bool text_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/* A value: a name the text gives @field's values, or a number. 0, or an error said. */
static int text_value(struct text_parser *p, const char *field, const struct text_token *tk,
		      uint64_t *v)
{
	int rc;

	if (!tk->value[0]) {
		text_error(p, tk->value_col, "'%s' has no value", field);
		return -EINVAL;
	}
	if (text_name_value(field, tk->value, v))
		return 0;
	rc = units_parse_u64(tk->value, v);
	if (rc == -ERANGE)
		text_error(p, tk->value_col, "%s=%.40s: out of range (above 2^64 - 1)", field,
			   tk->value);
	else if (rc) {
		char names[128];

		text_names_of(field, names, sizeof(names));
		text_error(p, tk->value_col, "%s=%.40s: not a number (decimal, or hex from 0x)%s",
			   field, tk->value, names);
	}
	return rc;
}

/* The catalogue's fields of @d, as a list for a message. */
static void text_field_list(const struct wl_desc *d, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	text_append(buf, len, &n, "ts");
	for (unsigned int i = 0; i < d->nfields; i++)
		text_append(buf, len, &n, ", %s", d->fields[i].name);
}

static int text_add_event(struct text_parser *p, const struct wl_event *e)
{
	struct text_trace *t = p->t;

	if (array_reserve(&t->ev, &t->cap, t->n + 1, sizeof(*t->ev)))
		return -ENOMEM;
	t->ev[t->n++] = *e;
	return 0;
}

static int text_add_loss(struct text_parser *p)
{
	struct text_trace *t = p->t;

	if (array_reserve(&t->loss, &t->capl, t->nloss + 1, sizeof(*t->loss)))
		return -ENOMEM;
	t->loss[t->nloss++] = (struct text_loss){ .before = t->n, .loss = p->pending };
	p->pending = (struct ctf_loss){ 0 };
	p->lost_before = false;
	return 0;
}

/* The tokens after the first: NAME=VALUE each. Return: how many, or -EINVAL (said). */
static int text_tokens(struct text_parser *p, char *line, size_t at, struct text_token *tk,
		       size_t max)
{
	size_t n = 0;

	for (;;) {
		char *eq;
		size_t start;

		while (text_space(line[at]))
			at++;
		if (!line[at])
			return (int)n;
		start = at;
		while (line[at] && !text_space(line[at]))
			at++;
		if (line[at])
			line[at++] = '\0';
		if (n == max) {
			text_error(p, start + 1, "too many fields: '%.40s' and after", line + start);
			return -EINVAL;
		}
		eq = strchr(line + start, '=');
		if (!eq || eq == line + start) {
			text_error(p, start + 1, "'%.40s' is not NAME=VALUE", line + start);
			return -EINVAL;
		}
		*eq = '\0';
		tk[n++] = (struct text_token){ .name = line + start, .value = eq + 1, .col = start + 1,
					       .value_col = (size_t)(eq + 1 - line) + 1 };
	}
}

/* "lost events=N packets=M": added to what is lost before the next event. */
static int text_loss_line(struct text_parser *p, char *line, size_t at, size_t end_col)
{
	struct text_token tk[4];
	uint64_t v[2] = { 0 };
	size_t seen[2] = { 0 };
	int n = text_tokens(p, line, at, tk, 4);

	if (n < 0)
		return 0;
	for (int i = 0; i < n; i++) {
		int f = !strcmp(tk[i].name, "events") ? 0 : !strcmp(tk[i].name, "packets") ? 1 : -1;

		if (f < 0) {
			text_error(p, tk[i].col, "%s has no field '%.40s' (its fields: events, packets)",
				   TEXT_LOST, tk[i].name);
			return 0;
		}
		if (seen[f]) {
			text_error(p, tk[i].col, "'%s' given twice (first at column %zu)", tk[i].name,
				   seen[f]);
			return 0;
		}
		seen[f] = tk[i].col;
		if (text_value(p, tk[i].name, &tk[i], &v[f]))
			return 0;
	}
	if (!v[0] && !v[1]) {
		text_error(p, n ? tk[0].col : end_col,
			   "a loss of nothing: give events=N and/or packets=N, one of them above 0");
		return 0;
	}
	if (v[0] > CTF_LOST_EVENTS_MAX - p->lost.events) {
		text_error(p, seen[0], "the trace's losses add up to more than %llu events "
			   "(2^64 - 2), the most a CTF trace carries",
			   (unsigned long long)CTF_LOST_EVENTS_MAX);
		return 0;
	}
	if (v[1] > CTF_LOST_PACKETS_MAX - p->lost.packets) {
		text_error(p, seen[1], "the trace's losses add up to more than %llu packets "
			   "(2^63 - 1), the most a CTF trace carries",
			   (unsigned long long)CTF_LOST_PACKETS_MAX);
		return 0;
	}
	p->lost.events += v[0];
	p->lost.packets += v[1];
	p->pending.events += v[0];
	p->pending.packets += v[1];
	p->lost_before = true;
	return 0;
}

/* One event line: kind, then NAME=VALUE for ts and each catalogue field. */
static int text_event_line(struct text_parser *p, int kind, char *line, size_t at,
			   size_t end_col)
{
	const struct wl_desc *d = &wl_catalogue[kind];
	struct text_token tk[TEXT_MAX_TOKENS];
	size_t seen[WL_MAX_FIELDS + 1] = { 0 }, ts_col = 0; /* [0]: ts, [1 + i]: field i */
	struct wl_event e = { .kind = (uint32_t)kind };
	char list[160], missing[160];
	size_t nmissing = 0;
	int n = text_tokens(p, line, at, tk, TEXT_MAX_TOKENS);

	if (n < 0)
		return 0;
	for (int i = 0; i < n; i++) {
		int f = -1;
		uint64_t v;

		if (!strcmp(tk[i].name, "ts"))
			f = 0;
		for (unsigned int j = 0; f < 0 && j < d->nfields; j++)
			if (!strcmp(tk[i].name, d->fields[j].name))
				f = 1 + (int)j;
		if (f < 0) {
			text_field_list(d, list, sizeof(list));
			text_error(p, tk[i].col, "%s has no field '%.40s' (its fields: %s)", d->name,
				   tk[i].name, list);
			return 0;
		}
		if (seen[f]) {
			text_error(p, tk[i].col, "'%s' given twice (first at column %zu)", tk[i].name,
				   seen[f]);
			return 0;
		}
		seen[f] = tk[i].col;
		if (f == 0) {
			if (units_parse_u64(tk[i].value, &v)) {
				text_error(p, tk[i].value_col,
					   "ts=%.40s: not a timestamp (ns, decimal or 0x hex, below 2^64)",
					   tk[i].value);
				return 0;
			}
			if (v > CTF_TS_MAX) {
				text_error(p, tk[i].value_col, "ts=%.40s: past the largest timestamp "
					   "a CTF trace carries, %llu ns (2^63 - 2)", tk[i].value,
					   (unsigned long long)CTF_TS_MAX);
				return 0;
			}
			e.ts = v;
			ts_col = tk[i].value_col;
		} else {
			if (text_value(p, tk[i].name, &tk[i], &v))
				return 0;
			e.v[d->fields[f - 1].slot] = v;
		}
	}
	missing[0] = '\0';
	for (unsigned int f = 0; f <= d->nfields; f++)
		if (!seen[f])
			text_append(missing, sizeof(missing), &nmissing, "%s%s", nmissing ? ", " : "",
				    f ? d->fields[f - 1].name : "ts");
	if (nmissing) {
		text_field_list(d, list, sizeof(list));
		text_error(p, end_col, "%s without %s: every field is required (%s)", d->name,
			   missing, list);
		return 0;
	}
	if (p->t->n && e.ts < p->last_ts) {
		text_error(p, ts_col, "ts=%llu is before the previous event's %llu (line %llu): "
			   "events go in time order", (unsigned long long)e.ts,
			   (unsigned long long)p->last_ts, (unsigned long long)p->last_ts_line);
		return 0;
	}
	if (p->lost_before && text_add_loss(p))
		return -ENOMEM;
	if (p->t->nloss)
		e.flags |= WL_AFTER_LOSS;
	p->last_ts = e.ts;
	p->last_ts_line = p->line;
	return text_add_event(p, &e);
}

/* One line (NUL-terminated, @len bytes before the NUL). Return: 0, or -ENOMEM. */
static int text_line(struct text_parser *p, char *line, size_t len)
{
	size_t at = 0, start;
	int kind;
	char c;

	while (text_space(line[at]))
		at++;
	if (!line[at] || line[at] == '#')
		return 0;
	start = at;
	while (line[at] && !text_space(line[at]))
		at++;
	c = line[at];
	line[at] = '\0';
	if (!strcmp(line + start, TEXT_LOST)) {
		if (c)
			at++;
		return text_loss_line(p, line, at, len + 1);
	}
	kind = wl_kind_lookup(line + start);
	if (kind < 0) {
		text_error(p, start + 1, strchr(line + start, '=')
			   ? "a line begins with the event's name, not '%.40s'"
			   : "unknown event '%.40s' (the workload events: docs/trace-events.md)",
			   line + start);
		return 0;
	}
	if (c)
		at++;
	return text_event_line(p, kind, line, at, len + 1);
}

int text_parse(FILE *in, const char *name, struct text_trace *t, char *err, size_t errlen)
{
	struct text_parser p = { .name = name, .t = t, .err = err, .errlen = errlen };
	char *line = malloc(TEXT_LINE_MAX + 1);
	int rc = 0;

	memset(t, 0, sizeof(*t));
	if (errlen)
		err[0] = '\0';
	if (!line) {
		snprintf(err, errlen, "%s: out of memory", name);
		return -ENOMEM;
	}
	for (bool eof = false; !eof && !rc;) {
		size_t len = 0, nul = 0;
		bool long_line = false;
		int c;

		while ((c = getc(in)) != EOF && c != '\n') {
			if (len == TEXT_LINE_MAX) {
				long_line = true;
				continue;
			}
			if (!c && !nul)
				nul = len + 1;
			line[len++] = (char)c;
		}
		eof = c == EOF;
		if (eof && !len)
			break;
		line[len] = '\0';
		p.line++;
		if (long_line)
			text_error(&p, TEXT_LINE_MAX + 1, "line too long (more than %d bytes)",
				   TEXT_LINE_MAX);
		else if (nul)
			text_error(&p, nul, "a NUL byte: the text form is text");
		else
			rc = text_line(&p, line, len);
	}
	free(line);
	if (!rc && ferror(in)) {
		snprintf(err, errlen, "%s: cannot read: %s", name, strerror(errno));
		return -EIO;
	}
	if (rc) {
		snprintf(err, errlen, "%s: out of memory at line %llu", name,
			 (unsigned long long)p.line);
		return rc;
	}
	if (p.errors > TEXT_MAX_ERRORS)
		text_append(err, errlen, &p.errused, "\n%s: %u more errors not shown", name,
			    p.errors - TEXT_MAX_ERRORS);
	if (p.errors)
		return -EINVAL;
	/* a loss after the last event */
	if (p.lost_before && text_add_loss(&p)) {
		snprintf(err, errlen, "%s: out of memory", name);
		return -ENOMEM;
	}
	return 0;
}

int text_load(const char *path, struct text_trace *t, char *err, size_t errlen)
{
	bool is_stdin = !strcmp(path, "-");
	FILE *f = is_stdin ? stdin : fopen(path, "r");
	struct stat st;
	int rc;

	if (!f || (fstat(fileno(f), &st) ? (errno = EIO) : S_ISDIR(st.st_mode) ? (errno = EISDIR) : 0)) {
		rc = -errno;
		if (f && !is_stdin)
			fclose(f);
		memset(t, 0, sizeof(*t));
		snprintf(err, errlen, "%s: %s", path, strerror(-rc));
		return rc;
	}
	rc = text_parse(f, is_stdin ? "<stdin>" : path, t, err, errlen);
	if (!is_stdin)
		fclose(f);
	return rc;
}

void text_trace_free(struct text_trace *t)
{
	free(t->ev);
	free(t->loss);
	memset(t, 0, sizeof(*t));
}
