/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_BENCH_FINDINGS_H
#define GPUISO_BENCH_FINDINGS_H

#include <stdbool.h>
#include <stddef.h>

#include "runfile.h"
#include "store.h"

/*
 * The findings of stored campaigns and sweeps, night after night: whether
 * each is new, known or gone. A series is one benchmark of kind campaign
 * (a campaign by its name, on its host) or sweep (a trace and scenario, on
 * its host), its runs in the store's order (date, then when added), as
 * everywhere else (history.h). A finding of a run is:
 *
 *   new    when no earlier run of its series had its signature;
 *   known  when one did (the first such run is kept);
 *   gone   (listed with the run, though it is not the run's) when the run
 *          before it in its series had it and the run does not.
 *
 * A run whose summary lists no findings (written before summaries had them)
 * says nothing: nothing is gone at it, nor at the run after it, and its
 * failures count for no signature.
 */

enum finding_state { FINDING_NEW, FINDING_KNOWN, FINDING_GONE };

struct judged_finding {
	struct run_finding f;     /* its own copy */
	enum finding_state state;
	char *since_rev, *since_date; /* known: the series' first run that had it; gone: the
				       * run before, the last that had it; NULL when new */
};

struct findings_run {
	long long id;             /* the run in the store */
	enum run_kind kind;       /* RUN_CAMPAIGN or RUN_SWEEP */
	char *series;             /* its benchmark ("campaign name=nightly host=ci1") */
	char *rev, *date;         /* rev NULL when unknown */
	bool recorded;            /* its summary lists findings (else nothing is known) */
	struct judged_finding *f;        /* the new ones, the known ones, then the gone ones, each
				   * in the summary's order */
	size_t n, cap;
	size_t nnew, nknown, ngone;
	bool contexts_read;       /* findings_contexts() was called for it */
};

struct findings {
	struct findings_run *runs; /* by series, then in run order */
	size_t n, cap;
};

/**
 * findings_load() - every stored campaign and sweep run with its findings
 * and their states.
 * @s: the store.
 * @series: a glob of the series to keep (fnmatch), or NULL for all.
 * @out: out: the runs (findings_free() it, whatever the return).
 *
 * Return: 0, -ENOMEM, or an error of the store (store_error() says it).
 */
int findings_load(struct store *s, const char *series, struct findings *out);

/**
 * findings_contexts() - the contexts of @run's findings (the operations
 * each was met in), read from the stored JSON of the run (of the run
 * before it, for a gone finding): the store's findings table does not keep
 * them, so a store written before gpuiso read them needs no upgrade. Read
 * once; a finding whose summary lists none (written before contexts), or
 * whose stored JSON does not read (a store edited by hand), keeps none.
 * @s: the store @fs was loaded from.
 * @fs: the runs (findings_load()).
 * @run: one of them.
 *
 * Return: 0, -ENOMEM, or an error of the store (store_error() says it).
 */
int findings_contexts(struct store *s, struct findings *fs, struct findings_run *run);

/**
 * findings_run_of() - the run of @fs stored as @id.
 * @fs: the runs.
 * @id: the run's id in the store.
 *
 * Return: the run, or NULL when @fs has none of that id.
 */
const struct findings_run *findings_run_of(const struct findings *fs, long long id);

/**
 * finding_state_name() - "new", "known" or "gone".
 * @state: the state.
 *
 * Return: the name.
 */
const char *finding_state_name(enum finding_state state);

/** findings_free() - free what findings_load() made. @fs: the runs. */
void findings_free(struct findings *fs);

#endif
