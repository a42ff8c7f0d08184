/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_TESTS_YAML_FILES_H
#define GPUISO_TESTS_YAML_FILES_H

#include <stddef.h>

#include "common/yaml.h"

/*
 * The files of the YAML tests (test_yaml*.c): each test writes its small
 * files into a fresh mkdtemp() directory, made and removed by its suite
 * (TestSuite(NAME, .init = make_dir, .fini = remove_dir)), and opens and
 * closes them expecting what they report.
 */

/* The test's directory. */
extern char dir[64];

/** make_dir() - make the test's directory. */
void make_dir(void);

/** remove_dir() - remove the test's directory and the files written into it. */
void remove_dir(void);

/**
 * write_file() - write @text to @name in the test's directory.
 * @name: the file's name.
 * @text: its content.
 *
 * Return: the file's path.
 */
const char *write_file(const char *name, const char *text);

/**
 * open_text() - open @text, written to @name, which must parse.
 * @name: the file's name.
 * @text: its content.
 *
 * Return: the document.
 */
struct yaml_doc *open_text(const char *name, const char *text);

/**
 * close_expecting() - close @d, which must have reported exactly @lines.
 * @d: the document.
 * @lines: "LINE:COL: error: ..." each.
 * @n: how many.
 */
void close_expecting(struct yaml_doc *d, const char *const *lines, size_t n);

/**
 * top_fields() - the fields of the top-level mapping of @d, which must be one.
 * @d: the document.
 * @names: the known keys.
 * @n: how many.
 * @f: out: a field per key.
 */
void top_fields(struct yaml_doc *d, const char *const *names, size_t n, struct yaml_field *f);

#endif
