/* SPDX-License-Identifier: MIT */
/*
 * Reading YAML input files with errors that say where (common/yaml.h).
 *
 * The file is built into a libfyaml document here (what libfyaml cannot
 * take is refused first, and the rest parsed in a child process first:
 * yaml_trial.c), then walked by hand by the caller (yaml_field.c): every
 * mapping is checked against the keys it may hold, every scalar is parsed
 * with the strict parsers of common/units.h. Errors do not stop the walk,
 * so one run reports as many problems as it can; they are kept until
 * yaml_close() so the report can be sorted by position (yaml_error.c).
 */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "array.h"
#include "json.h"
#include "yaml_internal.h"

/* ---- documents --------------------------------------------------------- */

/* Copy the parser's collected diagnostics into the error list. */
static void take_parse_errors(struct yaml_doc *d)
{
	struct fy_diag_error *e;
	void *it = NULL;

	while ((e = fy_diag_errors_iterate(d->diag, &it))) {
		if (e->type < FYET_ERROR)
			continue;
		yaml_err_pos(d, e->line > 0 ? e->line : 1, e->column > 0 ? e->column : 1, "%s",
			     e->msg ? e->msg : "YAML syntax error");
	}
}

/* The most a file gpuiso parses may hold: scenarios, plans, maps and run files are far smaller. */
#define YAML_MAX_BYTES (256u << 20)

/* The whole file, NUL-terminated, in *@text; 0, or -ENOENT / -EINVAL / -ENOMEM (reported). */
static int read_file(struct yaml_doc *d, char **text, size_t *len)
{
	char line[1024];
	struct stat st;
	size_t cap = 0;
	ssize_t n;
	int fd = open(d->path, O_RDONLY | O_CLOEXEC);

	*text = NULL;
	*len = 0;
	/* open() opens a folder for reading; the parser then fails obscurely */
	if (fd >= 0 && !fstat(fd, &st) && S_ISDIR(st.st_mode)) {
		close(fd);
		fd = -1;
		errno = EISDIR;
	}
	if (fd < 0) {
		snprintf(line, sizeof(line), "%s: error: cannot open: %s\n", d->path, strerror(errno));
		yaml_err_add(d, 0, 0, line);
		return -ENOENT;
	}
	do {
		if (*len + 1 >= cap) {
			char *more = cap >= YAML_MAX_BYTES ? NULL : realloc(*text, cap = cap ? 2 * cap : 65536);

			if (!more) {
				free(*text);
				*text = NULL;
				close(fd);
				if (cap < YAML_MAX_BYTES)
					return -ENOMEM;
				snprintf(line, sizeof(line), "%s: error: larger than %u MiB\n", d->path,
					 YAML_MAX_BYTES >> 20);
				yaml_err_add(d, 0, 0, line);
				return -EINVAL;
			}
			*text = more;
		}
		n = read(fd, *text + *len, cap - *len - 1);
		if (n > 0)
			*len += (size_t)n;
	} while (n > 0 || (n < 0 && errno == EINTR));
	close(fd);
	if (n < 0) {
		snprintf(line, sizeof(line), "%s: error: cannot read: %s\n", d->path, strerror(errno));
		yaml_err_add(d, 0, 0, line);
		free(*text);
		*text = NULL;
		return -ENOENT;
	}
	(*text)[*len] = '\0';
	return 0;
}

/*
 * JSON whose strings hold bytes escaped as not UTF-8 (json.h), which
 * libfyaml refuses (lone surrogates): @d->masked is @text with those escapes
 * masked, of the same length (positions in messages stay right), and
 * @d->source the text as it is. Return: 0 or -ENOMEM.
 */
static int mask_byte_escapes(struct yaml_doc *d, const char *text, size_t len)
{
	if (!strstr(text, "\\ud") && !strstr(text, "\\uD"))
		return 0;
	d->masked = malloc(len + 1);
	if (!d->masked)
		return -ENOMEM;
	memcpy(d->masked, text, len + 1);
	if (!json_mask_byte_escapes(d->masked)) {
		free(d->masked);
		d->masked = NULL;
		return 0;
	}
	d->source = text;
	return 0;
}

/* Parse @path, or @text (named @path in messages; it must outlive the document) when given. */
static int doc_open(const char *path, const char *text, unsigned int json_mode,
		    struct yaml_doc **out)
{
	struct fy_parse_cfg cfg = { 0 };
	struct yaml_doc *d;
	size_t len = text ? strlen(text) : 0, plen = strlen(path);
	int ret;

	*out = NULL;
	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	d->path = strdup(path);
	if (!d->path) {
		ret = -ENOMEM;
		goto free_doc;
	}
	if (!text) {
		ret = read_file(d, &d->text, &len);
		text = d->text;
		/* libfyaml tells JSON from YAML by the file's name, which a text has not */
		if (json_mode == FYPCF_JSON_AUTO && plen > 5 && !strcmp(path + plen - 5, ".json"))
			json_mode = FYPCF_JSON_FORCE;
		if (ret == -ENOMEM)
			goto free_path;
		if (ret)
			goto publish;
	}
	ret = yaml_check_text(d, text, len);
	if (ret)
		goto publish;
	if (json_mode == FYPCF_JSON_FORCE) {
		ret = mask_byte_escapes(d, text, len);
		if (ret)
			goto free_path;
		text = d->masked ? d->masked : text;
	}
	ret = yaml_trial_parse(d, text, len, json_mode);
	if (ret)
		goto publish;
	d->diag = yaml_diag_collecting();
	if (!d->diag) {
		ret = -ENOMEM;
		goto free_path;
	}
	/* Aliases are resolved so that "*name" reads like the anchored node. */
	cfg.flags = FYPCF_QUIET | FYPCF_COLLECT_DIAG | FYPCF_RESOLVE_DOCUMENT | json_mode;
	cfg.diag = d->diag;
	d->fyd = fy_document_build_from_string(&cfg, text, len);
	if (!d->fyd || fy_diag_got_error(d->diag)) {
		take_parse_errors(d);
		/*
		 * libfyaml builds no document, silently, from an empty file:
		 * without errors this is one, and the caller says what it expected.
		 */
		ret = d->nerr || d->oom ? -EINVAL : 0;
	} else {
		d->root = fy_document_root(d->fyd);
	}
publish:
	*out = d;
	return ret;
free_path:
	free(d->masked);
	free(d->text);
	free(d->path);
free_doc:
	free(d);
	return ret;
}

int yaml_open(const char *path, struct yaml_doc **out)
{
	return doc_open(path, NULL, FYPCF_JSON_AUTO, out);
}

int yaml_open_json(const char *path, struct yaml_doc **out)
{
	return doc_open(path, NULL, FYPCF_JSON_FORCE, out);
}

int yaml_open_json_text(const char *name, const char *text, struct yaml_doc **out)
{
	return doc_open(name, text, FYPCF_JSON_FORCE, out);
}

struct fy_node *yaml_root(struct yaml_doc *d)
{
	return d->root;
}

const char *yaml_text(struct yaml_doc *d, struct fy_node *n)
{
	const struct fy_mark *start, *end;
	struct fy_token *t;
	const char *s;
	char *bytes;

	if (!n || !fy_node_is_scalar(n))
		return NULL;
	s = fy_node_get_scalar0(n);
	/* a masked escape reads as U+FFFD: only such strings are decoded again */
	if (!s || !d->source || fy_node_get_style(n) != FYNS_DOUBLE_QUOTED ||
	    !strstr(s, "\xef\xbf\xbd"))
		return s;
	t = fy_node_get_scalar_token(n);
	start = t ? fy_token_start_mark(t) : NULL;
	end = t ? fy_token_end_mark(t) : NULL;
	if (!start || !end || end->input_pos < start->input_pos)
		return s;
	if (array_reserve(&d->texts, &d->textcap, d->ntexts, sizeof(*d->texts))) {
		d->oom = true;
		return NULL;
	}
	switch (json_unescape(d->source + start->input_pos, end->input_pos - start->input_pos,
			      &bytes)) {
	case 0:
		d->texts[d->ntexts++] = bytes;
		return bytes;
	case -ENOMEM:
		d->oom = true;
		return NULL;
	default:
		return s; /* not as JSON writes it: as libfyaml read it */
	}
}

const char *yaml_path(const struct yaml_doc *d)
{
	return d->path;
}

int yaml_close(struct yaml_doc *d, char *err, size_t errlen)
{
	int ret;

	if (err && errlen)
		err[0] = '\0';
	if (!d)
		return 0;
	ret = d->oom ? -ENOMEM : d->env_err ? d->env_err : d->nerr ? -EINVAL : 0;
	yaml_err_flush(d, err, errlen);
	/* The document holds a reference to the diag it was built with: it goes first. */
	if (d->fyd)
		fy_document_destroy(d->fyd);
	if (d->diag)
		fy_diag_destroy(d->diag);
	for (size_t i = 0; i < d->ntexts; i++)
		free(d->texts[i]);
	free(d->texts);
	free(d->masked);
	free(d->text);
	free(d->path);
	free(d);
	return ret;
}
