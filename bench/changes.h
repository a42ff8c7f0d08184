/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_BENCH_CHANGES_H
#define GPUISO_BENCH_CHANGES_H

#include <stdio.h>

#include "history.h"

/*
 * The changes of a history (history.h) as people and scripts read them:
 * a table per benchmark, and gpuiso-changes/1 JSON with one object per
 * change (benchmark, metric, last good and first bad revision, before,
 * after, change, its interval, p or "exact", verdict, acknowledged, input
 * changed, same code and inputs, alarm).
 */

/**
 * changes_print() - the table, benchmark by benchmark, and a closing line
 * with the number of alarms.
 * @h: the history.
 * @f: where.
 */
void changes_print(const struct history *h, FILE *f);

/**
 * changes_write_json() - gpuiso-changes/1 to @path (- for stdout), as
 * json_write_file() writes.
 * @h: the history.
 * @path: the file.
 *
 * Return: 0 or a negative errno.
 */
int changes_write_json(const struct history *h, const char *path);

/**
 * changes_at() - the changes at revision @rev, one line each (benchmark,
 * metric, change).
 * @h: the history.
 * @rev: the revision as stored.
 * @f: where.
 *
 * Return: how many.
 */
size_t changes_at(const struct history *h, const char *rev, FILE *f);

/**
 * change_cause() - what a change of the same code on the same inputs means:
 * a measured one is the machine's, an exact one a failure of determinism.
 * @sr: the series.
 * @c: its change.
 *
 * Return: the words, or NULL when the code or the inputs changed (or are
 * unknown).
 */
const char *change_cause(const struct series *sr, const struct history_change *c);

/**
 * change_label() - how a change was judged, in words: "exact", or the
 * test's p and the interval of a measured change.
 * @sr: the series.
 * @c: its change.
 * @buf: where.
 * @len: its size.
 *
 * Return: @buf.
 */
char *change_label(const struct series *sr, const struct history_change *c, char *buf, size_t len);

#endif
