/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_BENCH_DASH_H
#define GPUISO_BENCH_DASH_H

#include <stddef.h>

#include "store.h"

/*
 * The dashboard: a static HTML site built from a results store, readable
 * from disk with no server. Charts are inline SVG; a few lines of plain
 * JavaScript only record, for tests, how many charts were drawn.
 *
 *   index.html      latest run against the previous and the best, per
 *                   metric, with a sparkline; regressions first, in red
 *   metric-*.html   one metric's history, detected change points marked
 *   latency.html    latency percentile curves per operation, latest run
 *                   against the one before it
 *   progress.html   forward progress of power transitions per direction
 *   campaigns.html  failing campaign and sweep runs with their reproducers
 */

struct dash_opts {
	double alpha; /* significance of change points (0.01) */
};

/**
 * dash_write() - write the site.
 * @s: the store.
 * @dir: the site's folder (created if missing; its parent must exist).
 * @o: options.
 * @pages: out: how many pages were written.
 * @err: out: why not.
 * @errlen: size of @err.
 *
 * Return: 0 or a negative errno.
 */
int dash_write(struct store *s, const char *dir, const struct dash_opts *o, size_t *pages, char *err,
	       size_t errlen);

#endif
