/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <sys/stat.h>

#include "common/atomic_file.h"
#include "dash_internal.h"

/*
 * The live plots of the dashboard: every page's plots are built by one
 * script, dash_plot.js, from data each plot carries in an attribute. uPlot
 * and that script are compiled in (bench/vendor/uplot, scripts/embed) and
 * written into the site's assets.
 */

extern const unsigned char dash_uplot_js[], dash_uplot_css[], dash_uplot_license[], dash_plot_js[];
extern const size_t dash_uplot_js_len, dash_uplot_css_len, dash_uplot_license_len, dash_plot_js_len;

const char dash_plot_head[] =
	"<link rel=\"stylesheet\" href=\"assets/uPlot.min.css\">"
	"<script src=\"assets/uPlot.iife.min.js\"></script>"
	"<script src=\"assets/gpuiso-plot.js\"></script>";

/*
 * JSON text of @s inside a single-quoted attribute: quotes and backslashes
 * escaped for JSON, the attribute's quote and markup as \u escapes, control
 * bytes dropped.
 */
static void json_attr(FILE *f, const char *s)
{
	for (; *s; s++) {
		if ((unsigned char)*s < 0x20)
			continue;
		if (*s == '\'' || *s == '&' || *s == '<' || *s == '>') {
			fprintf(f, "\\u%04x", (unsigned char)*s);
			continue;
		}
		if (*s == '"' || *s == '\\')
			fputc('\\', f);
		fputc(*s, f);
	}
}

/* "KEY":"TEXT" in a plot's data; null for NULL. */
static void json_str_attr(FILE *f, const char *key, const char *s)
{
	fprintf(f, "\"%s\":", key);
	if (!s) {
		fputs("null", f);
		return;
	}
	fputc('"', f);
	json_attr(f, s);
	fputc('"', f);
}

/* A number as JSON: null when it is not one. */
static void json_num(FILE *f, double v)
{
	if (isfinite(v))
		fprintf(f, "%.17g", v);
	else
		fputs("null", f);
}

/* "KEY":[...] of @n numbers. */
static void json_nums(FILE *f, const char *key, const double *v, size_t n)
{
	fprintf(f, "\"%s\":[", key);
	for (size_t i = 0; i < n; i++) {
		fputs(i ? "," : "", f);
		json_num(f, v[i]);
	}
	fputc(']', f);
}

/* "KEY":[...] of @n texts, or null when @v is NULL. */
static void json_strs(FILE *f, const char *key, const char *const *v, size_t n)
{
	fprintf(f, "\"%s\":", key);
	if (!v) {
		fputs("null", f);
		return;
	}
	fputc('[', f);
	for (size_t i = 0; i < n; i++) {
		fprintf(f, "%s\"", i ? "," : "");
		json_attr(f, v[i] ? v[i] : "");
		fputc('"', f);
	}
	fputc(']', f);
}

void dash_plot(FILE *f, const struct dash_plot *p)
{
	fprintf(f, "<div class=\"plot\" data-plot='{");
	json_str_attr(f, "unit", p->unit);
	fputc(',', f);
	json_str_attr(f, "xname", p->xname);
	fprintf(f, ",\"log\":%s,\"stacked\":%s,\"width\":%d,\"height\":%d,", p->log_y ? "true" : "false",
		p->stacked ? "true" : "false", p->w, p->h);
	if (p->x)
		json_nums(f, "x", p->x, p->n);
	else
		fputs("\"x\":null", f);
	fputc(',', f);
	json_strs(f, "xlabels", p->xlabels, p->n);
	fputc(',', f);
	json_strs(f, "xinfo", p->xinfo, p->n);
	fputs(",\"lines\":[", f);
	for (size_t i = 0; i < p->nlines; i++) {
		const struct dash_plot_line *l = &p->lines[i];

		fputs(i ? ",{" : "{", f);
		json_str_attr(f, "label", l->label);
		fputc(',', f);
		json_str_attr(f, "color", l->color);
		fputc(',', f);
		json_nums(f, "y", l->y, p->n);
		fprintf(f, ",\"dashed\":%s,\"points\":%s}", l->dashed ? "true" : "false",
			l->points ? "true" : "false");
	}
	fputs("],\"marks\":[", f);
	for (size_t i = 0; i < p->nmarks; i++) {
		fprintf(f, "%s{\"at\":%zu,", i ? "," : "", p->marks[i].at);
		json_str_attr(f, "color", p->marks[i].color);
		fputc('}', f);
	}
	fputs("]}'></div><script>gpuisoPlot(document.currentScript.previousElementSibling);</script>\n", f);
}

int dash_plot_assets(const char *dir)
{
	static const struct {
		const char *name;
		const unsigned char *bytes;
		const size_t *len;
	} files[] = {
		{ "uPlot.iife.min.js", dash_uplot_js, &dash_uplot_js_len },
		{ "uPlot.min.css", dash_uplot_css, &dash_uplot_css_len },
		{ "uPlot-LICENSE", dash_uplot_license, &dash_uplot_license_len },
		{ "gpuiso-plot.js", dash_plot_js, &dash_plot_js_len },
	};
	char path[PATH_MAX];
	int rc = 0;

	if (snprintf(path, sizeof(path), "%s/assets", dir) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	if (mkdir(path, 0777) && errno != EEXIST)
		return -errno;
	for (size_t i = 0; !rc && i < sizeof(files) / sizeof(files[0]); i++) {
		if (snprintf(path, sizeof(path), "%s/assets/%s", dir, files[i].name) >= (int)sizeof(path))
			return -ENAMETOOLONG;
		rc = atomic_file_write(path, files[i].bytes, *files[i].len);
	}
	return rc;
}
