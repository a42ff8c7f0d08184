/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_COMMON_JSON_H
#define GPUISO_COMMON_JSON_H

#include <stdio.h>

#include "types.h"

/*
 * A small streaming JSON writer: it tracks commas and nesting, escapes
 * strings, and prints two-space indentation. Members take a key inside
 * objects and NULL inside arrays.
 */

#define JSON_MAX_DEPTH 32

struct json {
	FILE *f;
	int depth;
	bool first[JSON_MAX_DEPTH]; /* nothing written yet at this level */
};

/** json_init() - start a document on @f. @j: the writer. @f: destination. */
void json_init(struct json *j, FILE *f);
/** json_obj_begin() - open an object. @j; @key: member name or NULL. */
void json_obj_begin(struct json *j, const char *key);
/** json_obj_end() - close the innermost object. @j. */
void json_obj_end(struct json *j);
/** json_arr_begin() - open an array. @j; @key: member name or NULL. */
void json_arr_begin(struct json *j, const char *key);
/** json_arr_end() - close the innermost array. @j. */
void json_arr_end(struct json *j);
/** json_str() - a string, or null when @val is NULL. @j; @key; @val. */
void json_str(struct json *j, const char *key, const char *val);
/** json_u64() - an unsigned integer. @j; @key; @val. */
void json_u64(struct json *j, const char *key, uint64_t val);
/** json_double() - a number (non-finite values become null). @j; @key; @val. */
void json_double(struct json *j, const char *key, double val);
/** json_bool() - true or false. @j; @key; @val. */
void json_bool(struct json *j, const char *key, bool val);
/** json_null() - null. @j; @key. */
void json_null(struct json *j, const char *key);

/**
 * json_input() - the member "@path": the digest of its content
 * (digest_path_hex()); nothing when it cannot be read.
 * @j: the writer, in an object.
 * @path: a file or folder the run read.
 */
void json_input(struct json *j, const char *path);
/**
 * json_end() - finish the document with a newline, and flush it.
 * @j: the writer.
 *
 * Return: 0, or the negative errno of a write error (-EIO when unknown).
 */
int json_end(struct json *j);

/**
 * json_write_file() - write a whole document to @path atomically (to
 * @path.PID.tmp, then renamed: a reader never sees half a file), or to stdout
 * for "-". Where @path is not a regular file (a device, a FIFO, a symbolic
 * link), the document is written through it instead: it is never replaced.
 * @path: the file.
 * @fill: writes the document's one top-level value.
 * @ctx: passed to @fill.
 *
 * Return: 0 or a negative errno (nothing is left behind then).
 */
int json_write_file(const char *path, void (*fill)(struct json *j, const void *ctx),
		    const void *ctx);

#endif
