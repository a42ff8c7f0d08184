/* SPDX-License-Identifier: MIT */
/*
 * gpuiso trace trim, end to end: a generated trace trimmed to a reproducer
 * whose printed command breaks as the whole trace's does, with no object
 * named before it is created; what is refused, and how it exits.
 */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run_gpuiso.h"

static char tdir[64];

static void setup(void)
{
	strcpy(tdir, "/tmp/gpuiso-trim-cli-XXXXXX");
	cr_assert_not_null(mkdtemp(tdir));
}

static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", tdir);
	cr_assert_eq(system(cmd), 0);
}

TestSuite(trim_cli, .init = setup, .fini = teardown, .timeout = 300);

static const char *tpath(const char *name)
{
	static char path[4][256];
	static int next;

	next = (next + 1) % 4;
	snprintf(path[next], sizeof(path[next]), "%s/%s", tdir, name);
	return path[next];
}

static void gen2000(void)
{
	struct run r;

	RUN(&r, "trace", "gen", "--profile", "power-cycle", "--events", "2000", "--seed", "1", "-o",
	    tpath("pc"));
	cr_assert_eq(r.status, 0, "%s", r.err);
}

/*
 * Run the reproduce command trim printed in @out (its words have no quotes
 * here: the test's paths need none), with --cache-dir; the replay in @r.
 */
static void reproduce(const char *out, struct run *r)
{
	const char *cmd = strstr(out, "reproduce: ");
	char words[1024], program[PATH_MAX], bin[PATH_MAX], *save = NULL;
	const char *argv[24];
	size_t n = 0;

	cr_assert_not_null(cmd, "%s", out);
	/* it names the binary that printed it, whether or not one is on PATH */
	cmd += strlen("reproduce: ");
	snprintf(program, sizeof(program), "%.*s", (int)strcspn(cmd, " "), cmd);
	cr_assert_not_null(realpath(getenv("GPUISO_BIN"), bin));
	cr_assert_str_eq(program, bin);
	cmd += strlen(program) + 1;
	cr_assert_eq(strncmp(cmd, "replay ", 7), 0, "%s", out);
	snprintf(words, sizeof(words), "%s", cmd);
	words[strcspn(words, "\n")] = '\0';
	cr_assert_null(strchr(words, '\''), "%s", words);
	for (char *w = strtok_r(words, " ", &save); w && n < 20; w = strtok_r(NULL, " ", &save))
		argv[n++] = w;
	argv[n++] = "--cache-dir";
	argv[n++] = tpath("cache");
	argv[n] = NULL;
	gpuiso(r, argv);
}

/* The whole trace replayed with @fail_nth: its summary in @r. */
static void replay_whole(const char *fail_nth, struct run *r)
{
	RUN(r, "replay", tpath("pc"), "--scenario", "traces/scenarios/lda-chain.yaml", "--fail-nth",
	    fail_nth, "--cache-dir", tpath("cache"));
}

/*
 * Trim @fail_nth; the printed reproducer exits with @status as the whole
 * trace does, and both summaries hold each of @same (NULL-terminated): the
 * first finding, the broken invariant, how the power transitions ended.
 */
static void expect_reproducer(const char *fail_nth, int status, const char *const *same)
{
	unsigned long long before, after;
	struct run r, whole, part;

	gen2000();
	RUN(&r, "trace", "trim", tpath("pc"), "-o", tpath("out"), "--scenario",
	    "traces/scenarios/lda-chain.yaml", "--fail-nth", fail_nth, "--cache-dir", tpath("cache"),
	    "-q");
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_assert_eq(sscanf(r.out, "trim: %llu -> %llu events", &before, &after), 2, "%s", r.out);
	cr_assert_eq(before, 2000);
	cr_assert_leq(after, 20, "at most 1%%: %s", r.out);
	cr_assert_eq(r.err[0], '\0', "no progress lines after -q: %s", r.err);

	replay_whole(fail_nth, &whole);
	cr_assert_eq(whole.status, status, "%s", whole.err);
	reproduce(r.out, &part);
	cr_assert_eq(part.status, status, "%s%s", part.out, part.err);
	/* no event names an object the trimmed trace does not create */
	cr_assert(strstr(part.out, "0 ignored, 0 unmatched"), "%s", part.out);
	cr_assert_null(strstr(part.out, "refused:"), "%s", part.out);
	for (size_t i = 0; same[i]; i++) {
		cr_assert(strstr(whole.out, same[i]), "whole: no '%s' in\n%s", same[i], whole.out);
		cr_assert(strstr(part.out, same[i]), "trimmed: no '%s' in\n%s", same[i], part.out);
	}
}

Test(trim_cli, an_unmap_failure_gives_a_mapping_leak_in_a_few_events)
{
	expect_reproducer("iommu/unmap:2", 1,
			  (const char *const[]){ "violations: 1\n  MAPPING_LEAK at event ",
						 "invariant broken: no_stale_mappings\n",
						 "faults injected: iommu/unmap 1\n", NULL });
}

Test(trim_cli, a_copy_failure_gives_an_adapter_reset_in_a_few_events)
{
	expect_reproducer("gpu/copy:1", 0,
			  (const char *const[]){ " 1 reset\n", "violations: 0\n",
						 "faults injected: gpu/copy 1\n", NULL });
}

Test(trim_cli, a_run_that_recovers_is_refused)
{
	struct run r;

	gen2000();
	RUN(&r, "trace", "trim", tpath("pc"), "-o", tpath("out"), "--scenario",
	    "traces/scenarios/lda-chain.yaml", "--cache-dir", tpath("cache"));
	cr_assert_eq(r.status, 2, "%s", r.err);
	cr_assert(strstr(r.err, "nothing to trim: the run recovers"), "%s", r.err);
	cr_assert_eq(r.out[0], '\0', "%s", r.out);
}

Test(trim_cli, bad_input_exits_2)
{
	struct run r;

	RUN(&r, "trace", "trim", "--help");
	cr_assert_eq(r.status, 0);
	cr_assert(strstr(r.out, "usage: gpuiso trace trim TRACE -o OUT"), "%s", r.out);
	RUN(&r, "trace", "trim", "traces/power-cycle");
	cr_assert_eq(r.status, 2);
	cr_assert(strstr(r.err, "-o OUT is required"), "%s", r.err);
	RUN(&r, "trace", "trim", "traces/power-cycle", "-o", tpath("o"), "--fail-nth", "iommu/nope:1");
	cr_assert_eq(r.status, 2);
	cr_assert(strstr(r.err, "--fail-nth takes POINT:N"), "%s", r.err);
	RUN(&r, "trace", "trim", "traces/power-cycle", "-o", tpath("o"), "--max-replays", "0");
	cr_assert_eq(r.status, 2);
	RUN(&r, "trace", "trim", "no/such/trace", "-o", tpath("o"), "--fail-nth", "gpu/copy:1");
	cr_assert_eq(r.status, 2, "%s", r.err);
	cr_assert(strstr(r.err, "no/such/trace"), "%s", r.err);
	/* an output that is not empty: said before any work */
	RUN(&r, "trace", "trim", "traces/power-cycle", "-o", "traces", "--fail-nth", "gpu/copy:1");
	cr_assert_eq(r.status, 2, "%s", r.err);
	cr_assert(strstr(r.err, "traces exists and is not empty"), "%s", r.err);
}
