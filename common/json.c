/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "atomic_file.h"
#include "digest_path.h"
#include "json.h"

void json_init(struct json *j, FILE *f)
{
	j->f = f;
	j->depth = 0;
	j->first[0] = true;
}

static void string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '"' || ch == '\\')
			fprintf(f, "\\%c", ch);
		else if (ch == '\n')
			fputs("\\n", f);
		else if (ch == '\t')
			fputs("\\t", f);
		else if (ch < 0x20)
			fprintf(f, "\\u%04x", ch);
		else
			fputc(ch, f);
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
