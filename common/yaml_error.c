/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "yaml_internal.h"

/*
 * The errors of a document: each kept with where it is (a node's line and
 * column), until yaml_close() writes them all, sorted by position.
 */

/* ---- errors ------------------------------------------------------------ */

void yaml_err_add(struct yaml_doc *d, int line, int col, const char *text)
{
	struct yaml_err *e;

	if (array_reserve(&d->errs, &d->cap, d->nerr, sizeof(*d->errs))) {
		d->oom = true;
		return;
	}
	e = &d->errs[d->nerr];
	e->text = strdup(text);
	if (!e->text) {
		d->oom = true;
		return;
	}
	e->line = line;
	e->col = col;
	e->seq = (unsigned int)d->nerr;
	d->nerr++;
}

static int err_cmp(const void *a, const void *b)
{
	const struct yaml_err *x = a, *y = b;

	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	if (x->col != y->col)
		return x->col < y->col ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/*
 * Write the errors, in file order, as whole lines into @buf; a line that
 * does not fit ends the report (cut short only if it is the first).
 */
void yaml_err_flush(struct yaml_doc *d, char *buf, size_t len)
{
	size_t i, used = 0;

	if (d->nerr > 1)
		qsort(d->errs, d->nerr, sizeof(*d->errs), err_cmp);
	for (i = 0; buf && len && i < d->nerr; i++) {
		size_t n = strlen(d->errs[i].text);

		if (used + n + 1 > len) {
			if (used == 0) {
				memcpy(buf, d->errs[i].text, len - 1);
				buf[len - 1] = '\0';
			}
			break;
		}
		memcpy(buf + used, d->errs[i].text, n + 1);
		used += n;
	}
	for (i = 0; i < d->nerr; i++)
		free(d->errs[i].text);
	free(d->errs);
	d->errs = NULL;
	d->nerr = d->cap = 0;
}

static void verr_pos(struct yaml_doc *d, int line, int col, const char *fmt, va_list ap)
	__attribute__((format(printf, 4, 0)));

static void verr_pos(struct yaml_doc *d, int line, int col, const char *fmt, va_list ap)
{
	char msg[512], out[1024];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (snprintf(out, sizeof(out), "%s:%d:%d: error: %s\n", d->path, line, col, msg) >=
	    (int)sizeof(out))
		out[sizeof(out) - 2] = '\n'; /* cut short, but still one line */
	yaml_err_add(d, line, col, out);
}

void yaml_err_pos(struct yaml_doc *d, int line, int col, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	verr_pos(d, line, col, fmt, ap);
	va_end(ap);
}

static void discard_output(struct fy_diag *diag, void *user, const char *buf, size_t len)
{
	(void)diag;
	(void)user;
	(void)buf;
	(void)len;
}

/* A diagnostic object that collects instead of printing. */
struct fy_diag *yaml_diag_collecting(void)
{
	struct fy_diag_cfg cfg;
	struct fy_diag *diag;

	fy_diag_cfg_default(&cfg);
	cfg.fp = NULL;
	cfg.output_fn = discard_output;
	cfg.colorize = false;
	cfg.level = FYET_ERROR;
	diag = fy_diag_create(&cfg);
	if (diag)
		fy_diag_set_collect_errors(diag, true);
	return diag;
}

/*
 * Scalars carry a token with a start mark. libfyaml 0.7.12 has no public
 * start mark for collections, but its node reports compute one: report into
 * a private collecting diag and read the position back. That fails for a
 * block collection whose last value is empty, so fall back to the first
 * child.
 */
bool yaml_pos(struct fy_node *n, int *line, int *col)
{
	struct fy_diag_error *e;
	struct fy_diag *diag;
	void *it = NULL;
	bool ok = false;

	if (!n)
		return false;
	if (fy_node_is_scalar(n)) {
		struct fy_token *t = fy_node_get_scalar_token(n);
		const struct fy_mark *m = t ? fy_token_start_mark(t) : NULL;

		if (!m)
			return false;
		*line = m->line + 1;
		*col = m->column + 1;
		return true;
	}
	diag = yaml_diag_collecting();
	if (diag) {
		fy_diag_node_report(diag, n, FYET_ERROR, "here");
		e = fy_diag_errors_iterate(diag, &it);
		if (e && e->line > 0 && e->column > 0) {
			*line = e->line;
			*col = e->column;
			ok = true;
		}
		fy_diag_destroy(diag);
	}
	if (ok)
		return true;
	it = NULL;
	if (fy_node_is_mapping(n)) {
		struct fy_node_pair *pair = fy_node_mapping_iterate(n, &it);

		return pair && yaml_pos(fy_node_pair_key(pair), line, col);
	}
	return yaml_pos(fy_node_sequence_iterate(n, &it), line, col);
}

static void verr_at(struct yaml_doc *d, struct fy_node *at, struct fy_node *fallback,
		    const char *fmt, va_list ap) __attribute__((format(printf, 4, 0)));

static void verr_at(struct yaml_doc *d, struct fy_node *at, struct fy_node *fallback,
		    const char *fmt, va_list ap)
{
	int line = 1, col = 1;

	if (!yaml_pos(at, &line, &col))
		yaml_pos(fallback, &line, &col);
	verr_pos(d, line, col, fmt, ap);
}

void yaml_error(struct yaml_doc *d, struct fy_node *at, struct fy_node *fallback,
		const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	verr_at(d, at, fallback, fmt, ap);
	va_end(ap);
}

void yaml_field_error(struct yaml_doc *d, const struct yaml_field *f, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	yaml_error(d, f->val, f->key, "%s: %s", f->name, msg);
}

void yaml_nomem(struct yaml_doc *d)
{
	d->oom = true;
}

bool yaml_failed(const struct yaml_doc *d)
{
	return d->nerr > 0;
}
