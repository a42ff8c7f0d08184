/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_BENCH_DASH_H
#define GPUISO_BENCH_DASH_H

#include <stddef.h>

#include "history.h"
#include "store.h"

/*
 * The dashboard: a static HTML site built from a results store, readable
 * from disk with no server. Charts are inline SVG; where JavaScript runs,
 * live plots (uPlot, dash_plot.js) replace those of the series, latency
 * and progress pages, and a few lines record, for tests, how many charts
 * were drawn. Every figure is a series' per-revision value (history.h);
 * nothing compares one benchmark with another.
 *
 *   index.html        the alarms by cause (first bad revision, the change,
 *                     the findings new at that revision), the acknowledged changes,
 *                     then the main series of every benchmark, grouped by
 *                     benchmark, each row naming it; its head carries
 *                     <meta name="gpuiso-regressions" content="N">, N the
 *                     alarms shown
 *   bench-ID.html     one benchmark: every series, its changes
 *   series-ID-METRIC.html  one series' history, its changes marked
 *   latency.html      per replay benchmark, latency percentiles of the
 *                     latest revision against the one before
 *   progress.html     per replay benchmark, how power transitions ended
 *   campaigns.html    the latest campaigns and sweeps: their findings, each
 *                     new, known or gone (findings.h) with its reproducer,
 *                     then their failing runs on demand
 *   finding-SIG.html  one finding: where it was seen, the alarms where it
 *                     appeared, the operations it was met in, its
 *                     reproducer and trimmed trace
 */

struct dash_opts {
	struct history_opts history; /* what counts as a change (HISTORY_OPTS_DEFAULT) */
	const char *rev_url;         /* a URL with one %s for the revision, or NULL */
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
