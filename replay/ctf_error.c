/* SPDX-License-Identifier: MIT */
/*
 * Babeltrace2's errors in a user's words: its causes on one line without
 * the addresses that mean something in a debugger only, and what they name
 * (a source component, a stream file) for the reader to place them.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "replay/ctf_internal.h"

void ctf_err_set(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/* "comp-addr=0x55…": a field that only means something in a debugger. */
static bool is_addr_field(const char *s, size_t n)
{
	const char *eq = memchr(s, '=', n);
	size_t k;

	if (!eq)
		return false;
	k = (size_t)(eq - s);
	if (memchr(s, ' ', k))
		return false;
	return k >= 4 && memcmp(eq - 4, "addr", 4) == 0;
}

/* Length of the ", "-separated field at @s; quoted values may hold ", ". */
static size_t field_len(const char *s)
{
	bool quoted = false;
	size_t i;

	for (i = 0; s[i]; i++) {
		if (s[i] == '"')
			quoted = !quoted;
		else if (!quoted && s[i] == ',' && s[i + 1] == ' ')
			break;
	}
	return i;
}

static void put(char *out, size_t len, size_t *o, const char *s, size_t n)
{
	for (size_t i = 0; i < n && *o + 1 < len; i++)
		out[(*o)++] = (s[i] == '\n' || s[i] == '\t') ? ' ' : s[i];
	out[*o] = '\0';
}

/*
 * Babeltrace's cause messages read "what: key=value, key=value"; drop the
 * address fields ("msg-it-addr=0x…") and fold line breaks, so what is left
 * fits on one line and says something to a user.
 */
void ctf_err_first(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen || err[0])
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

void ctf_clean_cause(const char *in, char *out, size_t len)
{
	const char *sep = "";
	size_t o = 0;

	if (!len)
		return;
	out[0] = '\0';
	while (*in) {
		size_t n = field_len(in);
		const char *colon = NULL;

		for (size_t i = 0; i + 1 < n; i++)
			if (in[i] == ':' && in[i + 1] == ' ')
				colon = in + i;
		if (colon && is_addr_field(colon + 2, n - (size_t)(colon + 2 - in))) {
			/* "what: x-addr=0x…": keep "what", the next field follows its colon. */
			put(out, len, &o, sep, strlen(sep));
			put(out, len, &o, in, (size_t)(colon - in));
			sep = ": ";
		} else if (!is_addr_field(in, n)) {
			put(out, len, &o, sep, strlen(sep));
			put(out, len, &o, in, n);
			sep = ", ";
		}
		in += n;
		if (*in)
			in += 2;
	}
}

/*
 * src.ctf.fs names the file it failed on only in its causes' text: "Failed
 * to index CTF stream file '/path'", "Cannot add stream file `/path` to...".
 */
static void quoted_stream_file(const char *text, char *stream, size_t slen)
{
	const char *at = strstr(text, "stream file ");
	const char *end;

	if (!at || (at[12] != '\'' && at[12] != '`'))
		return;
	end = strchr(at + 13, at[12] == '`' ? '`' : '\'');
	if (end)
		snprintf(stream, slen, "%.*s", (int)(end - at - 13), at + 13);
}

bool ctf_take_error(char *msg, size_t len, int *src, char *stream, size_t slen)
{
	const bt_error *e = bt_current_thread_take_error();
	uint64_t count;
	bool have_msg = false;

	*src = -1;
	stream[0] = '\0';
	snprintf(msg, len, "babeltrace2 failed without saying why");
	if (!e)
		return false;
	count = bt_error_get_cause_count(e);
	/* Cause 0 is the first appended: the root; the later ones relay it upwards. */
	for (uint64_t i = 0; i < count; i++) {
		const bt_error_cause *c = bt_error_borrow_cause_by_index(e, i);
		const char *text = bt_error_cause_get_message(c);
		const char *comp = NULL, *port = NULL;
		unsigned int n;

		if (!have_msg && text && *text) {
			ctf_clean_cause(text, msg, len);
			have_msg = true;
		}
		switch (bt_error_cause_get_actor_type(c)) {
		case BT_ERROR_CAUSE_ACTOR_TYPE_COMPONENT:
			comp = bt_error_cause_component_actor_get_component_name(c);
			break;
		case BT_ERROR_CAUSE_ACTOR_TYPE_MESSAGE_ITERATOR:
			comp = bt_error_cause_message_iterator_actor_get_component_name(c);
			port = bt_error_cause_message_iterator_actor_get_component_output_port_name(c);
			break;
		default:
			break;
		}
		if (*src < 0 && comp && sscanf(comp, CTF_SRC_NAME_FMT, &n) == 1)
			*src = (int)n;
		if (!stream[0] && text)
			quoted_stream_file(text, stream, slen);
		/*
		 * src.ctf.fs names its ports "UUID-or-PATH | STREAM-CLASS-ID | X"
		 * where X is the stream file, or the stream's instance id when
		 * the trace gives one.
		 */
		if (!stream[0] && port && *src >= 0) {
			const char *bar = strrchr(port, '|');
			const char *x = bar ? bar + 1 + (bar[1] == ' ') : port;

			snprintf(stream, slen, "%s%s", strchr(x, '/') ? "" : "stream ", x);
		}
	}
	bt_error_release(e);
	return true;
}
