/* SPDX-License-Identifier: MIT */
/* The whole replays' suites' fixture (replay_fixture.h). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/scenario.h"
#include "replay/ctf.h"
#include "replay/gen.h"
#include "tests/replay/replay_fixture.h"

char tmp[] = "/tmp/gpuiso-replay-XXXXXX";

void setup(void)
{
	cr_assert_not_null(mkdtemp(tmp));
}

void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmp);
	cr_assert_eq(system(cmd), 0);
}

const char *src(const char *rel)
{
	static char path[1024];
	const char *root = getenv("GPUISO_SOURCE_ROOT");

	snprintf(path, sizeof(path), "%s/%s", root ? root : ".", rel);
	return path;
}

void generate(const char *profile, uint64_t events, const char *dir)
{
	char err[256] = "";
	struct gen *g;

	cr_assert_eq(gen_create(profile, events, 7, &g), 0);
	cr_assert_eq(ctf_write(dir, gen_next, g, err, sizeof(err)), 0, "%s", err);
	gen_destroy(g);
}

int replay(const char *trace, const char *scn_rel, bool cache, struct results *res,
	   struct replay_report *rep, const char *const *maps, size_t nmaps)
{
	struct replay_opts o = { .trace = trace, .cache = cache, .cache_dir = tmp,
				 .maps = maps, .nmaps = nmaps };
	struct scenario scn;
	char err[1024] = "";
	int rc;

	if (scn_rel)
		cr_assert_eq(scenario_load(src(scn_rel), &scn, err, sizeof(err)), 0, "%s", err);
	else
		cr_assert_eq(scenario_defaults(&scn), 0);
	o.scn = &scn;
	rc = replay_run(&o, res, rep);
	scenario_free(&scn);
	return rc;
}

void expect_clean(const struct results *res, const struct replay_report *rep)
{
	cr_assert_eq(rep->refused, 0, "refused: %s at %llu", rep->nrefusals ? rep->refusals[0].why : "",
		     rep->nrefusals ? (unsigned long long)rep->refusals[0].index : 0ull);
	cr_assert_eq(res->nviolations, 0, "%s", res->nviolations ? res->violations[0].detail : "");
	for (size_t i = 0; i < res->ninvariants; i++)
		cr_assert(res->invariants[i].holds, "%s", res->invariants[i].name);
	cr_assert_not(replay_findings(res));
}

int replay_error(const char *trace, bool strict, struct replay_report *rep)
{
	struct replay_opts o = { .trace = trace, .strict = strict, .cache = true, .cache_dir = tmp };
	struct scenario scn;
	struct results res;
	int rc;

	cr_assert_eq(scenario_defaults(&scn), 0);
	o.scn = &scn;
	rc = replay_run(&o, &res, rep);
	results_fini(&res);
	scenario_free(&scn);
	return rc;
}

bool invariant(const struct results *res, const char *name)
{
	for (size_t i = 0; i < res->ninvariants; i++)
		if (!strcmp(res->invariants[i].name, name))
			return res->invariants[i].holds;
	cr_assert_fail("no invariant %s", name);
	return false;
}
