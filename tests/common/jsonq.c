/* SPDX-License-Identifier: MIT */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonq.h"

/* A recursive-descent reader; each function returns the position after what it read, or NULL. */

static const char *ws(const char *p)
{
	while (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')
		p++;
	return p;
}

static const char *value(const char *p);

/*
 * The end of the UTF-8 character at @p (a byte of 0x80 or more), or NULL:
 * JSON is UTF-8 (RFC 8259, 8.1), and a document with other bytes is none.
 */
static const char *utf8(const char *p)
{
	const unsigned char *u = (const unsigned char *)p;
	int len = u[0] >= 0xc2 && u[0] < 0xe0 ? 2 : u[0] >= 0xe0 && u[0] < 0xf0 ? 3
		: u[0] >= 0xf0 && u[0] < 0xf5 ? 4 : 0;

	if (!len)
		return NULL;
	for (int i = 1; i < len; i++)
		if ((u[i] & 0xc0) != 0x80)
			return NULL;
	if ((u[0] == 0xe0 && u[1] < 0xa0) || (u[0] == 0xed && u[1] >= 0xa0) ||
	    (u[0] == 0xf0 && u[1] < 0x90) || (u[0] == 0xf4 && u[1] >= 0x90))
		return NULL; /* overlong, a surrogate, past U+10FFFF */
	return p + len;
}

static const char *string(const char *p)
{
	if (*p++ != '"')
		return NULL;
	while (*p != '"') {
		if (!*p || (unsigned char)*p < 0x20)
			return NULL;
		if (*p == '\\') {
			p++;
			if (*p == 'u') {
				for (int i = 1; i <= 4; i++)
					if (!isxdigit((unsigned char)p[i]))
						return NULL;
				p += 4;
			} else if (!strchr("\"\\/bfnrt", *p)) {
				return NULL;
			}
		} else if ((unsigned char)*p >= 0x80) {
			p = utf8(p);
			if (!p)
				return NULL;
			continue;
		}
		p++;
	}
	return p + 1;
}

static const char *number(const char *p)
{
	if (*p == '-')
		p++;
	if (*p == '0')
		p++;
	else if (isdigit((unsigned char)*p))
		while (isdigit((unsigned char)*p))
			p++;
	else
		return NULL;
	if (*p == '.') {
		if (!isdigit((unsigned char)*++p))
			return NULL;
		while (isdigit((unsigned char)*p))
			p++;
	}
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p == '+' || *p == '-')
			p++;
		if (!isdigit((unsigned char)*p))
			return NULL;
		while (isdigit((unsigned char)*p))
			p++;
	}
	return p;
}

static const char *container(const char *p, char close, bool keys)
{
	p = ws(p + 1);
	if (*p == close)
		return p + 1;
	for (;;) {
		if (keys) {
			p = string(p);
			if (!p || *(p = ws(p)) != ':')
				return NULL;
			p = ws(p + 1);
		}
		p = value(p);
		if (!p)
			return NULL;
		p = ws(p);
		if (*p == close)
			return p + 1;
		if (*p != ',')
			return NULL;
		p = ws(p + 1);
	}
}

static const char *value(const char *p)
{
	p = ws(p);
	switch (*p) {
	case '{': return container(p, '}', true);
	case '[': return container(p, ']', false);
	case '"': return string(p);
	case 't': return strncmp(p, "true", 4) ? NULL : p + 4;
	case 'f': return strncmp(p, "false", 5) ? NULL : p + 5;
	case 'n': return strncmp(p, "null", 4) ? NULL : p + 4;
	default: return number(p);
	}
}

bool jsonq_valid(const char *doc)
{
	const char *end = value(doc);

	return end && !*ws(end);
}

/* Find member @key (or element number @key) of the container at @p. */
static const char *child(const char *p, const char *key, size_t keylen)
{
	bool obj = *p == '{';
	long index = obj ? -1 : strtol(key, NULL, 10);

	p = ws(p + 1);
	for (long i = 0; *p && *p != '}' && *p != ']'; i++) {
		bool match = !obj && i == index;

		if (obj) {
			const char *k = p + 1, *end = string(p);

			if (!end)
				return NULL;
			match = (size_t)(end - 1 - k) == keylen && !strncmp(k, key, keylen);
			p = ws(ws(end) + 1);
		}
		if (match)
			return p;
		p = value(p);
		if (!p)
			return NULL;
		p = ws(p);
		if (*p == ',')
			p = ws(p + 1);
	}
	return NULL;
}

bool jsonq_get(const char *doc, const char *path, char *out, size_t len)
{
	const char *p = ws(doc), *end;

	while (*path) {
		const char *dot = strchr(path, '.');
		size_t n = dot ? (size_t)(dot - path) : strlen(path);

		if (*p != '{' && *p != '[')
			return false;
		p = child(p, path, n);
		if (!p)
			return false;
		path += n + (dot ? 1 : 0);
	}
	end = value(p);
	if (!end)
		return false;
	if (*p == '"') {
		p++;
		end--;
	}
	snprintf(out, len, "%.*s", (int)(end - p), p);
	return true;
}
