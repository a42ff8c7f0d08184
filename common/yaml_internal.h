/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_COMMON_YAML_INTERNAL_H
#define GPUISO_COMMON_YAML_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "yaml.h"

/*
 * What the files that read YAML share (yaml.c the documents, yaml_error.c
 * their errors, yaml_trial.c hostile input and the trial parse,
 * yaml_field.c the walk of fields): the document, and the errors it keeps.
 */

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

/* --- errors (yaml_error.c) --- */

/**
 * yaml_err_add() - keep one error, a whole line, until the document is closed.
 * @d: the document.
 * @line: where, for the sort (1-based; 0 for the file itself).
 * @col: where on the line.
 * @text: the line, with its newline.
 */
void yaml_err_add(struct yaml_doc *d, int line, int col, const char *text);

/**
 * yaml_err_pos() - keep an error at @line and @col, "FILE:LINE:COL: error: MESSAGE".
 * @d: the document.
 * @line: its line (1-based).
 * @col: its column (1-based).
 * @fmt: the message, printf()-style.
 */
void yaml_err_pos(struct yaml_doc *d, int line, int col, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/**
 * yaml_err_flush() - write the errors, in file order, as whole lines into
 * @buf, and forget them; a line that does not fit ends the report (cut
 * short only if it is the first).
 * @d: the document.
 * @buf: out: the report, or NULL.
 * @len: size of @buf.
 */
void yaml_err_flush(struct yaml_doc *d, char *buf, size_t len);

/**
 * yaml_diag_collecting() - a libfyaml diagnostic object that collects
 * instead of printing.
 *
 * Return: the object (fy_diag_destroy() it), or NULL when out of memory.
 */
struct fy_diag *yaml_diag_collecting(void);

/* --- hostile input (yaml_trial.c) --- */

/**
 * yaml_check_text() - refuse what libfyaml cannot be given: a NUL byte, or
 * bytes that are not UTF-8; the first is reported where it is.
 * @d: the document.
 * @text: the text.
 * @len: its bytes.
 *
 * Return: 0, or -EINVAL (reported).
 */
int yaml_check_text(struct yaml_doc *d, const char *text, size_t len);

/**
 * yaml_trial_parse() - parse @text once in a child process first, exactly
 * as this process will, watched by its pace: libfyaml crashes on some
 * inputs and loops for ever on others.
 * @d: the document.
 * @text: the text.
 * @len: its bytes.
 * @flags: the parse's libfyaml flags (JSON or not).
 *
 * Return: 0 when the child finished (this process then parses it), -EINVAL
 * when it died or looped on the file, -ECHILD when it was stuck or killed
 * by someone else (not the file's doing); reported either way.
 */
int yaml_trial_parse(struct yaml_doc *d, const char *text, size_t len, unsigned int flags);

#endif
