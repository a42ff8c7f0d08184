/* SPDX-License-Identifier: MIT */
/*
 * Campaign files (faults/campaign/campaign_file.c): bad ones are refused,
 * saying where, before anything runs, from the library and the command;
 * the sample campaign is valid, and many seeds read at the file's pace.
 * A folder per test as in test_campaign.c (campaign_fixture.h).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "faults/campaign/campaign.h"
#include "faults/campaign/shard.h"
#include "tests/faults/campaign/campaign_fixture.h"

TestSuite(campaign, .init = setup, .fini = teardown, .timeout = 120);

/* ---- bad campaign files ------------------------------------------------------ */

Test(campaign, malformed_files_say_where_and_run_nothing)
{
	static const struct {
		const char *body, *where;
	} cases[] = {
		{ "  bogus: 1\n  traces: [TRACE]\n  runs: [{name: a}]\n",
		  "bad.yaml:2:3: error: campaign: unknown key 'bogus'" },
		{ "  seeds: [1, x]\n  traces: [TRACE]\n  runs: [{name: a}]\n",
		  "bad.yaml:2:14: error: campaign.seeds[1]: invalid integer 'x'" },
		{ "  traces: TRACE\n  runs: [{name: a}]\n",
		  "bad.yaml:2:11: error: campaign.traces: expected a sequence" },
		{ "  repetitions: 0\n  traces: [TRACE]\n  runs: [{name: a}]\n",
		  "bad.yaml:2:16: error: campaign.repetitions: takes 1 to 1000" },
		{ "  runs:\n    - name: a\n      faults: [{point: nope, probability: 1}]\n  traces: [TRACE]\n",
		  "bad.yaml:4:24: error: campaign.runs[0].faults[0].point: 'nope' names no injection point" },
		{ "  runs:\n    - name: a\n      pressure: [{at: {event: 5}, commit_available: 120%}]\n  traces: [TRACE]\n",
		  "bad.yaml:4:53: error: campaign.runs[0].pressure[0].commit_available: '120%' is not a percent" },
		{ "  invariants: [no_leaks, nonsense]\n  traces: [TRACE]\n  runs: [{name: a}]\n",
		  "bad.yaml:2:26: error: campaign.invariants[1]: unknown invariant 'nonsense'" },
		{ "  traces: [no-such-trace]\n  runs: [{name: a}]\n",
		  "bad.yaml:2:12: error: campaign.traces[0]: 'no-such-trace' is not a trace folder" },
		{ "  runs: [{name: a}, {name: a}]\n  traces: [TRACE]\n",
		  "bad.yaml:2:28: error: campaign.runs[1].name: run 'a' is named twice" },
		{ "  runs: [{faults: []}]\n  traces: [TRACE]\n",
		  "bad.yaml:2:10: error: campaign.runs[0]: a run needs a 'name'" },
		{ "  runs: [{name: a b}]\n  traces: [TRACE]\n",
		  "bad.yaml:2:17: error: campaign.runs[0].name: 'a b' is not a run name" },
		{ "  traces: [TRACE]\n", "bad.yaml:2:3: error: campaign: needs 'runs'" },
		{ "  trace_covers: all\n  runs: [{name: a}]\n  traces: [TRACE]\n",
		  "bad.yaml:2:17: error: campaign.trace_covers: takes window or life, not 'all'" },
	};
	char trace[PATH_MAX], out[PATH_MAX], err[8192];
	struct campaign_totals t;

	gen_trace("power-cycle", 300);
	at(trace, sizeof(trace), "power-cycle");
	at(out, sizeof(out), "out");
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char body[2 * PATH_MAX], *p;

		/* the trace goes last in every case, so positions do not depend on its path */
		snprintf(body, sizeof(body), "%s", cases[i].body);
		p = strstr(body, "TRACE");
		if (p) {
			char rest[PATH_MAX];

			snprintf(rest, sizeof(rest), "%s", p + 5);
			snprintf(p, sizeof(body) - (size_t)(p - body), "%s%s", trace, rest);
		}
		write_campaign("bad.yaml", body);
		cr_assert_eq(run_lib("bad.yaml", "out", 1, NULL, &t, err, sizeof(err)), -EINVAL,
			     "case %zu: %s", i, err);
		cr_assert(strstr(err, cases[i].where), "case %zu: expected '%s' in:\n%s", i,
			  cases[i].where, err);
		cr_assert_not(exists(out), "case %zu: %s was created", i, out);
		cr_assert_eq(t.runs, 0);
	}
}

Test(campaign, bad_file_exits_2_from_the_command)
{
	char cmd[CMD_LEN], file[PATH_MAX], out[PATH_MAX], text[8192];

	write_campaign("bad.yaml", "  traces: [nope]\n  runs: [{name: a}]\n  extra: 1\n");
	at(file, sizeof(file), "bad.yaml");
	at(out, sizeof(out), "out");
	snprintf(cmd, sizeof(cmd), "%s campaign run %s -o %s 2>&1", bin(), file, out);
	cr_assert_eq(sh(cmd, text, sizeof(text)), 2, "%s", text);
	cr_assert(strstr(text, "bad.yaml:2:12: error: campaign.traces[0]"), "%s", text);
	cr_assert(strstr(text, "bad.yaml:4:3: error: campaign: unknown key 'extra'"), "%s", text);
	cr_assert_not(exists(out));
	/* a missing campaign file is bad input too */
	snprintf(cmd, sizeof(cmd), "%s campaign run %s.missing -o %s 2>&1", bin(), file, out);
	cr_assert_eq(sh(cmd, text, sizeof(text)), 2, "%s", text);
	cr_assert(strstr(text, "cannot open"), "%s", text);
}

Test(campaign, sample_campaign_is_valid)
{
	char file[PATH_MAX], err[8192];
	struct campaign_opts o = { .file = file, .out = "/dev/null/out", .jobs = 1 };
	struct campaign_totals t;

	/* an output folder that cannot be made: the file is read, checked, and nothing runs */
	snprintf(file, sizeof(file), "%s/traces/campaigns/nightly-pin.yaml",
		 getenv("GPUISO_SOURCE_ROOT"));
	/* the machine's (failure_output()), in the words of the errno it met */
	cr_assert_eq(campaign_run(&o, &t, err, sizeof(err)), -EIO, "%s", err);
	cr_assert(strstr(err, "cannot create the output folder: Not a directory"), "%s", err);
}

Test(campaign, check_reads_the_file_and_runs_nothing)
{
	char file[PATH_MAX], err[8192];

	snprintf(file, sizeof(file), "%s/traces/campaigns/nightly-pin.yaml",
		 getenv("GPUISO_SOURCE_ROOT"));
	cr_assert_eq(campaign_check(file, err, sizeof(err)), 0, "%s", err);
	cr_assert_str_eq(err, "");
	write_campaign("bad.yaml", "  traces: [nope]\n  runs: [{name: a}]\n");
	at(file, sizeof(file), "bad.yaml");
	cr_assert_eq(campaign_check(file, err, sizeof(err)), -EINVAL, "%s", err);
	cr_assert(strstr(err, "bad.yaml:2:12: error: campaign.traces[0]"), "%s", err);
}

/*
 * A seed listed twice is said at each repeat, the largest seed too; a
 * campaign of as many seeds as it may run reads at the pace of its file
 * (the check for repeats was quadratic: 6.5 million seeds, which are too
 * many runs, never got as far as being told so).
 */
Test(campaign, seeds_listed_twice_are_said_and_many_seeds_read, .timeout = 120)
{
	char file[PATH_MAX], err[8192], *body;
	FILE *m;
	size_t len;

	write_campaign("twice.yaml", "  traces: [../../traces/power-cycle]\n"
		       "  seeds: [1, 18446744073709551615, 2, 1, 18446744073709551615]\n"
		       "  runs: [{name: a}]\n");
	at(file, sizeof(file), "twice.yaml");
	cr_assert_eq(campaign_check(file, err, sizeof(err)), -EINVAL, "%s", err);
	cr_assert(strstr(err, "twice.yaml:3:39: error: campaign.seeds[3]: seed 1 is listed twice"),
		  "%s", err);
	cr_assert(strstr(err, "campaign.seeds[4]: seed 18446744073709551615 is listed twice"),
		  "%s", err);
	m = open_memstream(&body, &len);
	cr_assert_not_null(m);
	fprintf(m, "  traces: [%s/traces/power-cycle]\n  seeds: [", getenv("GPUISO_SOURCE_ROOT"));
	for (unsigned int i = 1; i <= 100000; i++)
		fprintf(m, "%s%u", i > 1 ? ", " : "", i);
	fprintf(m, "]\n  runs: [{name: a}]\n");
	cr_assert_eq(fclose(m), 0);
	write_campaign("many.yaml", body);
	free(body);
	at(file, sizeof(file), "many.yaml");
	cr_assert_eq(campaign_check(file, err, sizeof(err)), 0, "%s", err);
}
