/* SPDX-License-Identifier: MIT */
/*
 * The nightly verdicts, end to end with real replays: nights of the same
 * binary raise no alarm; a scenario changed in place flags exactly its
 * benchmark's exact metrics, at its revision, explained; an acknowledgement
 * clears them; a real wall-clock slowdown is flagged on repeated samples
 * and only shown on one sample a side.
 */
#include <criterion/criterion.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tests/common/jsonq.h"
#include "run_gpuiso.h"

static char tdir[64];

static void setup(void)
{
	strcpy(tdir, "/tmp/gpuiso-verdicts-XXXXXX");
	cr_assert_not_null(mkdtemp(tdir));
}

static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", tdir);
	cr_assert_eq(system(cmd), 0);
}

TestSuite(verdicts, .init = setup, .fini = teardown, .timeout = 600);

static void sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void sh(const char *fmt, ...)
{
	char cmd[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
}

/*
 * The three benchmarks of a night, each trace on a scenario of its own; the
 * desktop trace is a copy in the test's folder ("%s": the folder), so that
 * it can be made heavier under its name.
 */
/* Each benchmark: its trace (in the test's folder, else in the source tree) and scenario. */
static const struct {
	bool in_tmp;
	const char *trace, *scenario;
} suite[] = {
	{ true, "desktop", "desktop.yaml" },
	{ false, "traces/game", "game.yaml" },
	{ false, "traces/power-cycle", "power-cycle.yaml" },
};

/* A night: every benchmark replayed five times, stored under revision @rev. */
static void night(const char *db, const char *rev, int day)
{
	char out[256], scn[256], date[32];
	struct run r;

	snprintf(out, sizeof(out), "%s/night-%s", tdir, rev);
	cr_assert_eq(mkdir(out, 0777), 0, "%s", out);
	for (size_t i = 0; i < sizeof(suite) / sizeof(suite[0]); i++) {
		char res[512], trace[256];

		if (suite[i].in_tmp)
			snprintf(trace, sizeof(trace), "%s/%s", tdir, suite[i].trace);
		else
			snprintf(trace, sizeof(trace), "%s", suite[i].trace);
		snprintf(scn, sizeof(scn), "%s/scn/%s", tdir, suite[i].scenario);
		snprintf(res, sizeof(res), "%s/%zu", out, i);
		RUN(&r, "replay", trace, "--scenario", scn, "--repeat", "5", "--json", res);
		cr_assert_lt(r.status, 2, "%s", r.err);
	}
	snprintf(date, sizeof(date), "2026-11-%02dT02:00:00Z", day);
	RUN(&r, "store", "add", db, out, "--rev", rev, "--date", date);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_assert(strstr(r.out, "15 runs added"), "%s", r.out);
}

/*
 * Night 11's changes (gpuiso-changes/1): every alarm, and every change of an
 * exact metric, is one of game's modeled metrics at night 11, explained by
 * its scenario; the number of alarms.
 */
static int check_night11(const char *json)
{
	char path[64], v[512], benchmark[512], cls[16];
	int alarms = 0;

	cr_assert(jsonq_valid(json), "%s", json);
	for (int i = 0; snprintf(path, sizeof(path), "changes.%d.metric", i),
		 jsonq_get(json, path, v, sizeof(v)); i++) {
		bool modeled = strstr(v, ".modeled_ns.") != NULL;

		snprintf(path, sizeof(path), "changes.%d.benchmark", i);
		cr_assert(jsonq_get(json, path, benchmark, sizeof(benchmark)));
		snprintf(path, sizeof(path), "changes.%d.alarm", i);
		cr_assert(jsonq_get(json, path, v, sizeof(v)));
		alarms += !strcmp(v, "true");
		snprintf(path, sizeof(path), "changes.%d.class", i);
		cr_assert(jsonq_get(json, path, cls, sizeof(cls)));
		if (strcmp(v, "true") && strcmp(cls, "exact"))
			continue; /* a measured change the machine made: listed, no alarm */
		cr_assert(modeled && strstr(benchmark, "trace=traces/game "),
			  "change %d is no modeled metric of game: %s", i, json);
		snprintf(path, sizeof(path), "changes.%d.revision", i);
		cr_assert(jsonq_get(json, path, v, sizeof(v)) && !strcmp(v, "night11"), "%s", v);
		snprintf(path, sizeof(path), "changes.%d.last_good", i);
		cr_assert(jsonq_get(json, path, v, sizeof(v)) && !strcmp(v, "night10"), "%s", v);
		snprintf(path, sizeof(path), "changes.%d.input_changed", i);
		cr_assert(jsonq_get(json, path, v, sizeof(v)) && strstr(v, "/scn/game.yaml"),
			  "the change is explained: %s", v);
	}
	return alarms;
}

static int regressions_shown(const char *db)
{
	char site[256], cmd[512];
	struct run r;
	FILE *f;
	int n = -1;

	snprintf(site, sizeof(site), "%s/site", tdir);
	RUN(&r, "dash", db, "-o", site);
	cr_assert_eq(r.status, 0, "%s", r.err);
	snprintf(cmd, sizeof(cmd), "grep -o 'gpuiso-regressions\" content=\"[0-9]*' %s/index.html", site);
	f = popen(cmd, "r");
	cr_assert_not_null(f);
	cr_assert_eq(fscanf(f, "gpuiso-regressions\" content=\"%d", &n), 1);
	pclose(f);
	return n;
}

Test(verdicts, nights_of_the_same_code_are_quiet_and_a_real_change_is_caught)
{
	const char *root = getenv("GPUISO_SOURCE_ROOT");
	char db[256], rev[16], scn[256], one[2][256];
	struct run r;
	int alarms;

	snprintf(db, sizeof(db), "%s/runs.sqlite", tdir);
	snprintf(scn, sizeof(scn), "%s/scn", tdir);
	mkdir(scn, 0777);
	sh("cp -r %s/traces/desktop %s/desktop", root, tdir);
	sh("cp %s/traces/scenarios/default.yaml %s/desktop.yaml", root, scn);
	sh("cp %s/traces/scenarios/default.yaml %s/game.yaml", root, scn);
	sh("cp %s/traces/scenarios/lda-chain.yaml %s/power-cycle.yaml", root, scn);

	/* ten nights of the same binary */
	for (int n = 1; n <= 10; n++) {
		snprintf(rev, sizeof(rev), "night%02d", n);
		night(db, rev, n);
	}
	RUN(&r, "changes", db);
	cr_assert_eq(regressions_shown(db), 0, "alarms on the same code: %s", r.out);
	RUN(&r, "changes", db, "--json", "-");
	cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
	cr_assert(strstr(r.out, "\"alarms\": 0"), "%s", r.out);
	/* the same code and inputs: no exact metric moves at all */
	cr_assert_null(strstr(r.out, "\"class\": \"exact\""), "%s", r.out);
	RUN(&r, "compare", "--db", db, "night01", "night10");
	cr_assert_eq(r.status, 0, "%s", r.out);
	cr_assert(strstr(r.out, "0 regressions"), "%s", r.out);

	/* night 11: game's scenario changes in place, its clock slowed */
	sh("sed -i 's/^cost_model: {}/cost_model: {clock_mhz: 333}/' %s/game.yaml%s", scn, "");
	night(db, "night11", 11);
	RUN(&r, "changes", db, "--json", "-");
	cr_assert_eq(r.status, 1, "%s", r.err);
	alarms = check_night11(r.out);
	cr_assert_gt(alarms, 0);
	cr_assert_eq(regressions_shown(db), alarms);
	RUN(&r, "ack", db, "--benchmark", "*game*", "--metric", "ops.*.modeled_ns.*", "--rev", "night11",
	    "--note", "game's scenario runs the device at 333 MHz");
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_assert_eq(regressions_shown(db), 0, "acknowledged: the overview is clean again");
	RUN(&r, "changes", db);
	cr_assert_eq(r.status, 0, "%s", r.out);

	/*
	 * Night 12: desktop's benchmark runs a heavier trace under its name
	 * (the game trace's MiB allocations and transfers): a real wall-clock
	 * slowdown, five samples a side, judged against ten nights of history.
	 */
	sh("rm -rf %s/desktop && mkdir %s/desktop", tdir, tdir);
	sh("cp -r %s/traces/game/. %s/desktop", root, tdir);
	night(db, "night12", 12);
	RUN(&r, "compare", "--db", db, "night11", "night12", "--metric", "ops.transfer.latency_ns.*");
	cr_assert_eq(r.status, 1, "%s%s", r.out, r.err);
	cr_assert(strstr(r.out, "ops.transfer.latency_ns.p50") && strstr(r.out, "U+history p=") &&
		  strstr(r.out, "REGRESSED"), "%s", r.out);
	cr_assert(strstr(r.out, "/desktop "), "desktop's series: %s", r.out);
	/* the same slowdown with one sample a side is reported, not gated */
	snprintf(one[0], sizeof(one[0]), "%s/night-night11/0/repeat-1.json", tdir);
	snprintf(one[1], sizeof(one[1]), "%s/night-night12/0/repeat-1.json", tdir);
	RUN(&r, "compare", one[0], one[1], "--metric", "ops.transfer.latency_ns.*");
	cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
	cr_assert(strstr(r.out, "ops.transfer.latency_ns.p50") &&
		  strstr(r.out, "too few samples to judge (1/1, 3 a side)"), "%s", r.out);
	/* and the history explains the exact changes of that night */
	RUN(&r, "changes", db, "--benchmark", "*/desktop *", "--metric", "ops.transfer.count");
	cr_assert(strstr(r.out, "night12") && strstr(r.out, "input changed: ") &&
		  strstr(r.out, "/desktop"), "%s", r.out);
}
