/* SPDX-License-Identifier: MIT */
#include <math.h>
#include <stdio.h>

#include "common/types.h"
#include "dash_internal.h"

/*
 * The dashboard's static charts: inline SVG, drawn whether JavaScript runs
 * or not (where it does, dash_plot.c's live plots replace some), and
 * numbers as they are written on charts and in tables.
 */

const char *const dash_colors[] = { "#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd",
				    "#8c564b", "#e377c2", "#17becf", "#7f7f7f" };

static int pad(const struct dash_chart *c, int full)
{
	return c->spark ? 3 : full;
}

static double ty(const struct dash_chart *c, double v, double lo, double hi)
{
	double f;

	if (c->log_y) {
		v = log10(GPUISO_MAX(v, 1e-12));
		lo = log10(GPUISO_MAX(lo, 1e-12));
		hi = log10(GPUISO_MAX(hi, 1e-12));
	}
	f = hi > lo ? (v - lo) / (hi - lo) : 0.5;
	return pad(c, DASH_PAD_T) + (1 - f) * (c->h - pad(c, DASH_PAD_T) - pad(c, DASH_PAD_B));
}

static double tx(const struct dash_chart *c, double x, double xmax)
{
	return pad(c, DASH_PAD_L) +
	       (xmax > 0 ? x / xmax : 0.5) * (c->w - pad(c, DASH_PAD_L) - pad(c, DASH_PAD_R));
}

static void fmt_num(char *buf, size_t len, double v)
{
	double a = fabs(v);

	if (a >= 1e9)
		snprintf(buf, len, "%.3gG", v / 1e9);
	else if (a >= 1e6)
		snprintf(buf, len, "%.3gM", v / 1e6);
	else if (a >= 1e4)
		snprintf(buf, len, "%.3gk", v / 1e3);
	else
		snprintf(buf, len, "%.4g", v);
}

/*
 * A value as people read it: whole numbers in full with thousands
 * separators (8,408,630, never 8.40863e+06), others to 4 significant digits.
 */
void dash_fmt_value(char *buf, size_t len, double v)
{
	char digits[64], *out = buf;
	size_t n, lead;

	if (!isfinite(v) || fabs(v) >= 1e18 || v != floor(v)) {
		snprintf(buf, len, "%.4g", v);
		return;
	}
	n = (size_t)snprintf(digits, sizeof(digits), "%.0f", fabs(v));
	if (len < n + n / 3 + 2) {
		snprintf(buf, len, "%.0f", v);
		return;
	}
	if (v < 0)
		*out++ = '-';
	lead = n % 3 ? n % 3 : 3;
	for (size_t i = 0; i < n; i++) {
		if (i >= lead && (i - lead) % 3 == 0)
			*out++ = ',';
		*out++ = digits[i];
	}
	*out = '\0';
}

void dash_chart(struct page *p, const struct dash_chart *c, const struct dash_chart_line *lines,
		size_t nlines)
{
	FILE *f = p->file.f;
	double lo = INFINITY, hi = -INFINITY, xmax = 0;
	char num[32];

	for (size_t i = 0; i < nlines; i++) {
		for (size_t k = 0; k < lines[i].n; k++) {
			double v = lines[i].y[k], x = lines[i].x ? lines[i].x[k] : (double)k;

			if (c->log_y && v <= 0)
				continue;
			lo = GPUISO_MIN(lo, v);
			hi = GPUISO_MAX(hi, v);
			xmax = GPUISO_MAX(xmax, x);
		}
	}
	if (lo > hi)
		lo = hi = 0;
	if (!c->log_y) {
		double span = hi - lo ? hi - lo : fabs(hi) ? fabs(hi) : 1;

		lo = lo >= 0 && lo - span * 0.1 < 0 ? 0 : lo - span * 0.1;
		hi += span * 0.1;
	}
	p->charts++;
	fprintf(f, "<svg data-chart width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\">\n",
		c->w, c->h, c->w, c->h);
	/* axes with three y ticks */
	fprintf(f, "<g stroke=\"#ccc\" font-size=\"11\" fill=\"#555\">\n");
	for (int t = 0; !c->spark && t <= 2; t++) {
		double v = c->log_y ? pow(10, log10(GPUISO_MAX(lo, 1e-12)) +
						       t * (log10(GPUISO_MAX(hi, 1e-12)) - log10(GPUISO_MAX(lo, 1e-12))) / 2)
				    : lo + t * (hi - lo) / 2;
		double y = ty(c, v, lo, hi);

		fmt_num(num, sizeof(num), v);
		fprintf(f, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\"/>"
			   "<text stroke=\"none\" x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s%s%s</text>\n",
			DASH_PAD_L, c->w - DASH_PAD_R, y, y, DASH_PAD_L - 6, y + 4, num, c->y_unit ? " " : "",
			c->y_unit ? c->y_unit : "");
	}
	if (c->x_labels && !c->spark && nlines) {
		size_t n = lines[0].n, step = n > 8 ? (n + 7) / 8 : 1;

		for (size_t k = 0; k < n; k += step) {
			fprintf(f, "<text stroke=\"none\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">",
				tx(c, lines[0].x ? lines[0].x[k] : (double)k, xmax), c->h - 10);
			dash_esc(f, c->x_labels[k]);
			fprintf(f, "</text>\n");
		}
	}
	fprintf(f, "</g>\n");
	for (size_t i = 0; i < c->nmarks; i++) {
		double x = tx(c, (double)c->marks[i].at - 0.5, xmax);

		fprintf(f, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\" stroke=\"%s\" stroke-width=\"2\""
			   " stroke-dasharray=\"4 3\"><title>", x, x, pad(c, DASH_PAD_T),
			c->h - pad(c, DASH_PAD_B), c->marks[i].color);
		dash_esc(f, c->marks[i].label);
		fprintf(f, "</title></line>\n");
	}
	fprintf(f, "<g class=\"data\" fill=\"none\" stroke-width=\"2\">\n");
	for (size_t i = 0; i < nlines; i++) {
		const struct dash_chart_line *l = &lines[i];

		fprintf(f, "<polyline stroke=\"%s\"%s points=\"", l->color,
			l->dashed ? " stroke-dasharray=\"6 4\"" : "");
		for (size_t k = 0; k < l->n; k++) {
			double x = l->x ? l->x[k] : (double)k;

			if (c->log_y && l->y[k] <= 0)
				continue;
			fprintf(f, "%.1f,%.1f ", tx(c, x, xmax), ty(c, l->y[k], lo, hi));
		}
		fprintf(f, "\"><title>");
		dash_esc(f, l->label);
		fprintf(f, "</title></polyline>\n");
		/* one value is a dot, or there would be nothing to see */
		for (size_t k = 0; (c->points || l->n == 1) && k < l->n; k++)
			fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" fill=\"%s\"/>\n",
				tx(c, l->x ? l->x[k] : (double)k, xmax), ty(c, l->y[k], lo, hi), l->color);
	}
	fprintf(f, "</g></svg>\n");
}
