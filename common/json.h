/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_COMMON_JSON_H
#define GPUISO_COMMON_JSON_H

#include <stdio.h>

#include "types.h"

/*
 * A small streaming JSON writer: it tracks commas and nesting, escapes
 * strings, and prints two-space indentation. Members take a key inside
 * objects and NULL inside arrays. Every JSON document gpuiso writes is
 * written by it.
 *
 * JSON is text in UTF-8, and a path is bytes: a string's bytes that are not
 * part of a valid UTF-8 sequence are each written as the escape of the lone
 * surrogate U+DC00 + the byte ("\udcff" for the byte 0xff), as Python's
 * "surrogateescape" does. Valid UTF-8 never encodes a surrogate, so the
 * escape stands for that byte alone, and json_unescape() gives the bytes
 * back: a path written so is the same path when read back.
 */

/* The escape of a byte that is not UTF-8 is the code point JSON_BYTE_ESCAPE + the byte. */
#define JSON_BYTE_ESCAPE 0xdc00

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
 * The folders above @path that are missing are made first (path_mkdir_parent()).
 * @path: the file.
 * @fill: writes the document's one top-level value.
 * @ctx: passed to @fill.
 *
 * Return: 0 or a negative errno (nothing is left behind then).
 */
int json_write_file(const char *path, void (*fill)(struct json *j, const void *ctx),
		    const void *ctx);

/**
 * json_utf8_len() - the length of the UTF-8 sequence at @p: 1 to 4, or 0
 * where none starts (a byte that is not UTF-8, a sequence cut short, an
 * overlong form, a surrogate, a code point past U+10FFFF).
 * @p: the bytes.
 * @n: how many there are from @p (at least 1).
 *
 * Return: the length, or 0.
 */
size_t json_utf8_len(const unsigned char *p, size_t n);

/**
 * json_mask_byte_escapes() - hide the escapes of bytes that are not UTF-8
 * from a parser that refuses lone surrogates (libfyaml): in @text, every
 * "\udc80" to "\udcff" escape that is not the second half of a surrogate
 * pair becomes "\ufffd", of the same length, so positions in the text
 * stay as they were.
 * @text: JSON text, changed in place.
 *
 * Return: how many escapes were masked.
 */
size_t json_mask_byte_escapes(char *text);

/**
 * json_unescape() - the bytes of a JSON string: its escapes decoded, and
 * the bytes json_str() escaped as not UTF-8 given back.
 * @s: the string's text between its quotes, as in the file.
 * @len: its length.
 * @out: out: the bytes, NUL-terminated (free() them).
 *
 * Return: 0, -EINVAL when @s is not the text of a JSON string (an unknown
 * escape, a lone surrogate other than a byte's, a quote or a control
 * character unescaped), -ENOMEM.
 */
int json_unescape(const char *s, size_t len, char **out);

#endif
