/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "atomic_file.h"
#include "digest_path.h"
#include "json.h"
#include "path.h"

void json_init(struct json *j, FILE *f)
{
	j->f = f;
	j->depth = 0;
	j->first[0] = true;
}

size_t json_utf8_len(const unsigned char *p, size_t n)
{
	size_t len = p[0] < 0x80 ? 1 : p[0] >= 0xc2 && p[0] < 0xe0 ? 2 : p[0] >= 0xe0 && p[0] < 0xf0 ? 3
		   : p[0] >= 0xf0 && p[0] < 0xf5 ? 4 : 0;

	if (!len || len > n)
		return 0;
	for (size_t k = 1; k < len; k++)
		if ((p[k] & 0xc0) != 0x80)
			return 0;
	/* no overlong forms, surrogates or code points past U+10FFFF */
	if ((p[0] == 0xe0 && p[1] < 0xa0) || (p[0] == 0xed && p[1] >= 0xa0) ||
	    (p[0] == 0xf0 && p[1] < 0x90) || (p[0] == 0xf4 && p[1] >= 0x90))
		return 0;
	return len;
}

static void string(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t left = strlen(s), n;

	fputc('"', f);
	for (; left; p += n, left -= n) {
		n = json_utf8_len(p, left);
		if (!n) {
			/* not UTF-8: the byte alone, as surrogateescape writes it */
			fprintf(f, "\\u%04x", JSON_BYTE_ESCAPE + *p);
			n = 1;
		} else if (n > 1) {
			fwrite(p, 1, n, f);
		} else if (*p == '"' || *p == '\\') {
			fprintf(f, "\\%c", *p);
		} else if (*p == '\n') {
			fputs("\\n", f);
		} else if (*p == '\t') {
			fputs("\\t", f);
		} else if (*p < 0x20) {
			fprintf(f, "\\u%04x", *p);
		} else {
			fputc(*p, f);
		}
	}
	fputc('"', f);
}

/* Comma, newline, indentation and key of the next value. */
static void member(struct json *j, const char *key)
{
	if (j->depth > 0) {
		if (!j->first[j->depth])
			fputc(',', j->f);
		fputc('\n', j->f);
		for (int i = 0; i < j->depth; i++)
			fputs("  ", j->f);
	}
	j->first[j->depth] = false;
	if (key) {
		string(j->f, key);
		fputs(": ", j->f);
	}
}

static void open(struct json *j, const char *key, char ch)
{
	member(j, key);
	fputc(ch, j->f);
	if (j->depth + 1 < JSON_MAX_DEPTH)
		j->depth++;
	j->first[j->depth] = true;
}

static void close_(struct json *j, char ch)
{
	bool empty = j->first[j->depth];

	if (j->depth > 0)
		j->depth--;
	if (!empty) {
		fputc('\n', j->f);
		for (int i = 0; i < j->depth; i++)
			fputs("  ", j->f);
	}
	fputc(ch, j->f);
}

void json_obj_begin(struct json *j, const char *key) { open(j, key, '{'); }
void json_obj_end(struct json *j) { close_(j, '}'); }
void json_arr_begin(struct json *j, const char *key) { open(j, key, '['); }
void json_arr_end(struct json *j) { close_(j, ']'); }

void json_str(struct json *j, const char *key, const char *val)
{
	member(j, key);
	if (val)
		string(j->f, val);
	else
		fputs("null", j->f);
}

void json_u64(struct json *j, const char *key, uint64_t val)
{
	member(j, key);
	fprintf(j->f, "%llu", (unsigned long long)val);
}

void json_double(struct json *j, const char *key, double val)
{
	member(j, key);
	if (isfinite(val))
		fprintf(j->f, "%.6g", val);
	else
		fputs("null", j->f);
}

void json_bool(struct json *j, const char *key, bool val)
{
	member(j, key);
	fputs(val ? "true" : "false", j->f);
}

void json_null(struct json *j, const char *key)
{
	member(j, key);
	fputs("null", j->f);
}

int json_end(struct json *j)
{
	fputc('\n', j->f);
	if (fflush(j->f))
		return -errno; /* ENOSPC says more than EIO */
	return ferror(j->f) ? -EIO : 0;
}

/* Write the document into @path itself (no temporary file). */
static int write_into(const char *path, void (*fill)(struct json *j, const void *ctx),
		      const void *ctx)
{
	FILE *f = fopen(path, "w");
	struct json j;
	int rc;

	if (!f)
		return -errno;
	json_init(&j, f);
	fill(&j, ctx);
	rc = json_end(&j);
	if (fclose(f) && !rc)
		rc = -errno;
	return rc;
}

int json_write_file(const char *path, void (*fill)(struct json *j, const void *ctx),
		    const void *ctx)
{
	struct atomic_file af;
	struct stat st;
	struct json j;
	int rc;

	if (!strcmp(path, "-")) {
		json_init(&j, stdout);
		fill(&j, ctx);
		return json_end(&j);
	}
	/*
	 * A regular file is replaced at once (a reader never sees half of
	 * it); anything else there (a device, a FIFO, a symbolic link) is
	 * written through, as a shell's redirection would, never replaced.
	 */
	if (!lstat(path, &st) && !S_ISREG(st.st_mode))
		return write_into(path, fill, ctx);
	/* an output's folder is made, as "mkdir -p" would: runs/$(date +%F)/x.json */
	rc = path_mkdir_parent(path);
	if (!rc)
		rc = atomic_file_open(&af, path);
	if (rc)
		return rc;
	json_init(&j, af.f);
	fill(&j, ctx);
	rc = json_end(&j);
	if (rc) {
		atomic_file_abort(&af);
		return rc;
	}
	return atomic_file_commit(&af);
}

void json_input(struct json *j, const char *path)
{
	char hex[DIGEST_HEX_LEN];

	if (path && *path && !digest_path_hex(path, hex))
		json_str(j, path, hex);
}

/* The value of the 4 hex digits at @s, or -1. */
static long hex4(const char *s)
{
	long v = 0;

	for (int i = 0; i < 4; i++) {
		int c = (unsigned char)s[i];

		if (c >= '0' && c <= '9')
			v = v * 16 + c - '0';
		else if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
			v = v * 16 + (c | 0x20) - 'a' + 10;
		else
			return -1;
	}
	return v;
}

/* Whether @u is an escape json_str() writes for a byte that is not UTF-8. */
static bool byte_escape(long u)
{
	return u >= JSON_BYTE_ESCAPE + 0x80 && u <= JSON_BYTE_ESCAPE + 0xff;
}

size_t json_mask_byte_escapes(char *text)
{
	size_t n = 0;

	for (char *p = text; (p = strchr(p, '\\')) != NULL;) {
		long u = p[1] == 'u' ? hex4(p + 2) : -1;

		if (u >= 0xd800 && u < 0xdc00 && p[6] == '\\' && p[7] == 'u' && hex4(p + 8) >= 0xdc00 &&
		    hex4(p + 8) < 0xe000) {
			p += 12; /* a pair: one character */
		} else if (byte_escape(u)) {
			memcpy(p + 2, "fffd", 4);
			n++;
			p += 6;
		} else {
			p += p[1] ? 2 : 1;
		}
	}
	return n;
}

/* Append code point @u to @out as UTF-8. */
static char *put_utf8(char *out, unsigned long u)
{
	if (u < 0x80) {
		*out++ = (char)u;
	} else if (u < 0x800) {
		*out++ = (char)(0xc0 | u >> 6);
		*out++ = (char)(0x80 | (u & 0x3f));
	} else if (u < 0x10000) {
		*out++ = (char)(0xe0 | u >> 12);
		*out++ = (char)(0x80 | (u >> 6 & 0x3f));
		*out++ = (char)(0x80 | (u & 0x3f));
	} else {
		*out++ = (char)(0xf0 | u >> 18);
		*out++ = (char)(0x80 | (u >> 12 & 0x3f));
		*out++ = (char)(0x80 | (u >> 6 & 0x3f));
		*out++ = (char)(0x80 | (u & 0x3f));
	}
	return out;
}

int json_unescape(const char *s, size_t len, char **out)
{
	static const char simple[] = "\"\"\\\\//b\bf\fn\nr\rt\t";
	const char *end = s + len;
	/* an escape is never shorter than what it stands for */
	char *bytes = malloc(len + 1), *o = bytes;

	*out = NULL;
	if (!bytes)
		return -ENOMEM;
	while (s < end) {
		const char *e;
		long u, lo;

		if (*s != '\\') {
			if ((unsigned char)*s < 0x20 || *s == '"')
				goto bad;
			*o++ = *s++;
			continue;
		}
		if (end - s < 2)
			goto bad;
		if (s[1] != 'u') {
			for (e = simple; *e && *e != s[1]; e += 2)
				;
			if (!*e)
				goto bad;
			*o++ = e[1];
			s += 2;
			continue;
		}
		u = end - s >= 6 ? hex4(s + 2) : -1;
		if (u < 0)
			goto bad;
		s += 6;
		if (byte_escape(u)) {
			*o++ = (char)(u - JSON_BYTE_ESCAPE);
			continue;
		}
		if (u >= 0xd800 && u < 0xdc00) {
			lo = end - s >= 6 && s[0] == '\\' && s[1] == 'u' ? hex4(s + 2) : -1;
			if (lo < 0xdc00 || lo >= 0xe000)
				goto bad;
			u = 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00);
			s += 6;
		} else if (u >= 0xdc00 && u < 0xe000) {
			goto bad;
		}
		o = put_utf8(o, (unsigned long)u);
	}
	*o = '\0';
	*out = bytes;
	return 0;
bad:
	free(bytes);
	return -EINVAL;
}
