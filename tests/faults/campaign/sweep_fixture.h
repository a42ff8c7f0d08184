/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_TESTS_FAULTS_CAMPAIGN_SWEEP_FIXTURE_H
#define GPUISO_TESTS_FAULTS_CAMPAIGN_SWEEP_FIXTURE_H

#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "faults/campaign/sweep.h"

/*
 * Shared by the sweep suites (test_sweep.c, test_sweep_findings.c,
 * test_sweep_shard.c): a folder of its own under /tmp for each test, traces
 * and scenarios written there, sweeps through the library and through
 * gpuiso, and what their summaries say.
 */

/* The test's folder, made by setup() (mkdtemp) and removed by teardown(). */
extern char tmp[];

/* The suites' .init and .fini. */
void setup(void);
void teardown(void);

/* tmp/@name (free() it). */
char *path_in_tmp(const char *name);

/* A power-cycle trace of @events events into tmp/@name (what `trace gen` writes). */
char *trace_gen(const char *name, uint64_t events, uint64_t seed);

/*
 * The scenario file tmp/@name: lda-chain.yaml with save areas of @save
 * (e.g. "1MiB"), so that transitions cost microseconds.
 */
char *scenario_write(const char *name, const char *save);

/* @doc with every mention of the output folder @out as "OUT": sweeps into two folders compare. */
char *without_out(const char *doc, const char *out);

/* The whole file (free() it); it must be there. */
char *slurp(const char *path);

/* How a sweep's runs are done: the default (persistent workers where they can be had), ... */
enum mode { PERSIST, FORK, SCRATCH };

/*
 * A sweep of @points of @trace on @scn (NULL: the defaults) into @out, two
 * jobs, run as @m, its progress lines into @progress; asserts it succeeds.
 * Return: the path of its summary.json (free() it).
 */
char *sweep_with_progress(const char *trace, const char *scn, const char *points, enum mode m,
			  const char *out, struct sweep_totals *t, FILE *progress);

/* sweep_with_progress() without progress lines. */
char *sweep(const char *trace, const char *scn, const char *points, enum mode m,
	    const char *out, struct sweep_totals *t);

/* The number at the path @fmt (with @a for its %s) of the JSON @doc, which must be there. */
uint64_t get_u64(const char *doc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* jsonq_get() gives a string's JSON text: undo its escapes in place. */
void text_unescape(char *s);

/* Start `gpuiso ARGS` (NULL-terminated) with its output into tmp/cli.out. */
pid_t gpuiso_spawn(const char *const *args);

/* Wait for what gpuiso_spawn() started: its exit status, its output in *@output (free() it). */
int gpuiso_wait(pid_t pid, char **output);

#define GPUISO(out, ...) gpuiso_wait(gpuiso_spawn((const char *const[]){ __VA_ARGS__, NULL }), out)

#endif
