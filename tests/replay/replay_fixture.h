/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_TESTS_REPLAY_REPLAY_FIXTURE_H
#define GPUISO_TESTS_REPLAY_REPLAY_FIXTURE_H

/*
 * Shared by the suites of whole replays (test_replay.c, test_replay_cache.c,
 * test_replay_live.c): a scratch folder for each test, which is also the
 * replays' cache folder, generated traces, and replays of them.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "replay/replay.h"

/* The scratch folder, made by setup() and removed by teardown(). */
extern char tmp[];
/* Each suite's: TestSuite(replay, .init = setup, .fini = teardown). */
void setup(void);
void teardown(void);
/* @rel, a path in the source tree (in a buffer the next call reuses). */
const char *src(const char *rel);
/* A trace of @events events of @profile, seed 7, written into @dir. */
void generate(const char *profile, uint64_t events, const char *dir);
/* Replay @trace on the scenario file @scn_rel (NULL: defaults); returns replay_run()'s result. */
int replay(const char *trace, const char *scn_rel, bool cache, struct results *res,
	   struct replay_report *rep, const char *const *maps, size_t nmaps);
/* Nothing refused, no violation, every invariant holds: no findings. */
void expect_clean(const struct results *res, const struct replay_report *rep);
/* Replay @trace on the defaults through the cache, the results dropped: replay_run()'s result. */
int replay_error(const char *trace, bool strict, struct replay_report *rep);
/* Whether the invariant @name holds in @res (there must be one). */
bool invariant(const struct results *res, const char *name);

#endif
