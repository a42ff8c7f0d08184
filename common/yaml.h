/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_COMMON_YAML_H
#define GPUISO_COMMON_YAML_H

#include <errno.h>
#include <libfyaml.h>
#include <stdarg.h>

#include "types.h"

/*
 * Reading YAML input files (scenarios, import maps, campaigns) with errors
 * that say where: every problem is collected as a line
 * "FILE:LINE:COL: error: NAME: MESSAGE" (1-based), and reported together,
 * sorted by position, when the file is closed. Scalars are parsed strictly
 * (common/units.h); unknown keys are errors that list the known ones.
 */

#define YAML_NAME_LEN 160

struct yaml_doc;

/* One known key of a mapping: its key and value nodes (NULL when absent). */
struct yaml_field {
	struct fy_node *key;
	struct fy_node *val;
	char name[YAML_NAME_LEN]; /* dotted path for messages: "rules[2].fields.bytes" */
};

/**
 * yaml_open() - parse a file into a document (syntax errors are collected).
 * @path: the file.
 * @out: out: the document; yaml_close() it in every case but -ENOMEM.
 *
 * The file is parsed in a child process first (libfyaml crashes and loops
 * on some inputs), watched by its pace, not by the clock: a large file or a
 * busy machine is never taken for a bad file.
 *
 * Return: 0, -ENOENT (cannot open: the document holds "PATH: error: cannot
 * open: REASON", close it to get it), -EINVAL (syntax errors, duplicate keys
 * among them, or a file the parser crashes or loops on: the document holds
 * them, close it to get them), -ECHILD (the child that parses it first was
 * stuck or killed from outside: not the file's doing, an environment
 * problem; the document says so), -ENOMEM (*out is NULL).
 */
int yaml_open(const char *path, struct yaml_doc **out);

/**
 * yaml_open_json() - yaml_open() of a JSON file, parsed as JSON whatever its name.
 * @path: the file.
 * @out: out: the document, as for yaml_open().
 * Return: as yaml_open().
 */
int yaml_open_json(const char *path, struct yaml_doc **out);

/**
 * yaml_open_json_text() - yaml_open_json() of JSON text held in memory.
 * @name: what messages call it (they say NAME:LINE:COL).
 * @text: the text, NUL-terminated; it must outlive the document.
 * @out: out: the document, as for yaml_open().
 * Return: as yaml_open().
 */
int yaml_open_json_text(const char *name, const char *text, struct yaml_doc **out);

/** yaml_root() - the top node, or NULL for an empty file. @d: the document. */
struct fy_node *yaml_root(struct yaml_doc *d);

/**
 * yaml_text() - the text of a scalar: fy_node_get_scalar0(), but in a JSON
 * document, a string's bytes that its writer escaped as not UTF-8
 * (common/json.h) are those bytes again, as json_unescape() gives them.
 * @d: the document.
 * @n: the node, or NULL.
 *
 * Return: the text (valid while the document lives), or NULL when @n is not
 * a scalar, or when out of memory (yaml_close() says so).
 */
const char *yaml_text(struct yaml_doc *d, struct fy_node *n);

/** yaml_path() - the file's name as given. @d: the document. */
const char *yaml_path(const struct yaml_doc *d);

/**
 * yaml_close() - free the document, writing its collected errors.
 * @d: the document, or NULL.
 * @err: out: the error lines, sorted by position (NUL terminated; may be NULL).
 * @errlen: size of @err.
 *
 * Return: 0 when nothing was reported, -EINVAL when errors were, -ECHILD
 * when yaml_open() said so (whatever else was reported), -ENOMEM.
 */
int yaml_close(struct yaml_doc *d, char *err, size_t errlen);

/**
 * yaml_nomem() - record that the caller ran out of memory while reading.
 * @d: the document.
 *
 * yaml_close() then returns -ENOMEM, as it does when the document itself ran
 * out, so a reader has one way to end.
 */
void yaml_nomem(struct yaml_doc *d);

/**
 * yaml_failed() - whether any error was reported so far.
 * @d: the document.
 *
 * Return: true or false.
 */
bool yaml_failed(const struct yaml_doc *d);

/**
 * yaml_pos() - where a node starts, 1-based.
 * @n: the node, or NULL.
 * @line: out: its line.
 * @col: out: its column.
 *
 * Return: false (@line and @col untouched) when @n has no position: NULL or
 * an empty value.
 */
bool yaml_pos(struct fy_node *n, int *line, int *col);

/**
 * yaml_error() - report at @at, or at @fallback when @at has no position.
 * @d: the document.
 * @at: the node at fault.
 * @fallback: where to point when @at has no position (an empty value), or NULL.
 * @fmt: printf format of the message.
 */
void yaml_error(struct yaml_doc *d, struct fy_node *at, struct fy_node *fallback,
		const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/**
 * yaml_field_error() - report "NAME: MESSAGE" at a field's value (or its key).
 * @d: the document.
 * @f: the field.
 * @fmt: printf format of the message.
 */
void yaml_field_error(struct yaml_doc *d, const struct yaml_field *f, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/**
 * yaml_fields() - match the keys of mapping @map against @names.
 * @d: the document.
 * @map: the mapping.
 * @owner: the key node whose value @map is (positions errors about @map), or NULL.
 * @ctx: dotted name of @map for messages ("" for the top level).
 * @names: the known keys.
 * @n: how many.
 * @fields: out: @n fields, filled for the keys present.
 *
 * Return: false if @map is not a mapping (reported). Unknown keys are
 * reported but do not make it fail (duplicate keys are syntax errors, which
 * yaml_open() reports).
 */
bool yaml_fields(struct yaml_doc *d, struct fy_node *map, struct fy_node *owner, const char *ctx,
		 const char *const *names, size_t n, struct yaml_field *fields);

/**
 * yaml_count() - the number of items of a sequence field.
 * @d: the document.
 * @f: the field whose value must be a sequence.
 *
 * Return: the count, or -1 after reporting "NAME: expected a sequence, got
 * KIND" (do not iterate then: yaml_items() would report it again).
 */
int yaml_count(struct yaml_doc *d, const struct yaml_field *f);

/**
 * yaml_items() - the next item of a sequence field, with its name "NAME[i]".
 * @d: the document.
 * @f: the field whose value must be a sequence (reported otherwise, once).
 * @it: iterator state, NULL before the first call.
 * @index: in/out: 0 before the first call; the item's index after.
 * @name: out: the item's name (YAML_NAME_LEN bytes).
 *
 * Return: the item node, or NULL at the end (or when @f is not a sequence);
 * the iteration is over then.
 */
struct fy_node *yaml_items(struct yaml_doc *d, const struct yaml_field *f, void **it,
			   size_t *index, char *name);

/*
 * Scalars. Each returns false after reporting a wrong type ("NAME: expected
 * WHAT, got null", a mapping, a sequence) or a bad value, at the value, or at
 * the key when the value is empty.
 */

/**
 * yaml_u64() - an integer field: decimal or 0x hex (units_parse_u64()).
 * @d: the document.
 * @f: the field.
 * @out: out: the value (untouched on failure).
 *
 * Return: true, or false after reporting.
 */
bool yaml_u64(struct yaml_doc *d, const struct yaml_field *f, uint64_t *out);

/**
 * yaml_u32() - an integer field that must fit in 32 bits.
 * @d: the document.
 * @f: the field.
 * @out: out: the value (untouched on failure).
 *
 * Return: true, or false after reporting.
 */
bool yaml_u32(struct yaml_doc *d, const struct yaml_field *f, uint32_t *out);

/**
 * yaml_size() - a byte count field: an integer, 0x hex, or with a binary
 * unit (units_parse_size()).
 * @d: the document.
 * @f: the field.
 * @out: out: the value (untouched on failure).
 *
 * Return: true, or false after reporting.
 */
bool yaml_size(struct yaml_doc *d, const struct yaml_field *f, uint64_t *out);

/**
 * yaml_bool() - a field that is exactly true or false.
 * @d: the document.
 * @f: the field.
 * @out: out: the value (untouched on failure).
 *
 * Return: true, or false after reporting.
 */
bool yaml_bool(struct yaml_doc *d, const struct yaml_field *f, bool *out);

/**
 * yaml_str() - the text of a scalar field.
 * @d: the document.
 * @f: the field.
 * @what: what the field holds, for the wrong-type message ("per-adapter or
 *        shared"); NULL for "a string".
 *
 * Return: the text (valid while the document lives; may be ""), or NULL
 * after reporting (or running out of memory: yaml_close() says so).
 */
const char *yaml_str(struct yaml_doc *d, const struct yaml_field *f, const char *what);

#endif
