/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_TESTS_FAULTS_CAMPAIGN_CAMPAIGN_FIXTURE_H
#define GPUISO_TESTS_FAULTS_CAMPAIGN_CAMPAIGN_FIXTURE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include "faults/campaign/campaign.h"

/*
 * Shared by the campaign suites (test_campaign.c, test_campaign_file.c,
 * test_campaign_findings.c, test_campaign_shard.c): each test works in
 * /tmp/gpuiso-campaign-<pid> (work_dir()), from "/", runs gpuiso by its
 * real path or the library, and reads the summaries campaigns write.
 */

#define CMD_LEN (4 * PATH_MAX)

/* work_dir()/@rel, work_dir() being /tmp/gpuiso-campaign-<pid> */
void at(char *buf, size_t len, const char *rel);

/* gpuiso, by its real path: the one reproduce commands name */
const char *bin(void);

/*
 * The suites' .init: makes work_dir() (the replay cache goes there too)
 * and changes to "/"; .fini: removes work_dir().
 */
void setup(void);
void teardown(void);

/* Run a shell command; its exit status, and its stdout (and stderr) in @out. */
int sh(const char *cmd, char *out, size_t len);

/* A power-cycle trace of @events events in work_dir()/@name. */
void gen_trace(const char *name, unsigned int events);

/* @text into the file @path, which it makes or empties. */
void write_text(const char *path, const char *text);

/* The whole file (free() it), or NULL when it cannot be read. */
char *slurp(const char *path);

/* Whether @path is there. */
bool exists(const char *path);

/* A campaign file work_dir()/@name: the campaign: mapping's body is @body. */
void write_campaign(const char *name, const char *body);

/* The scenario every test campaign replays on (fast: one adapter). */
#define SCENARIO_FMT "%s/traces/scenarios/default.yaml"
#define SCENARIO_ARG getenv("GPUISO_SOURCE_ROOT")

/* Run campaign work_dir()/@file into work_dir()/@out through the library. */
int run_lib(const char *file, const char *out, unsigned int jobs, FILE *progress,
	    struct campaign_totals *t, char *err, size_t errlen);

/* A JSON value at @path in @doc, which must be there. */
void get(const char *doc, const char *path, char *out, size_t len);

/* work_dir()/@out/summary.json, which must be there and be JSON (free() it). */
char *summary_of(const char *out);

/* The summary @doc is a campaign's, with these totals (as JSON text). */
void expect_totals(const char *doc, const char *runs, const char *passed,
		   const char *failed);

/*
 * Two runs over one small trace: one passes (chunked path), one leaks
 * mappings; half the unmaps fail, so how many depends on the seed.
 */
void two_run_campaign(const char *name, const char *seeds);

#endif
