/* SPDX-License-Identifier: MIT */
/*
 * Campaigns in shards (faults/campaign/campaign_shard.c): the merge gives
 * the summary of one run, a foreign shard file is named and not taken on,
 * and a shard exits 0 while the merge judges. A folder per test as in
 * test_campaign.c (campaign_fixture.h).
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

/* ---- shards and their merge ------------------------------------------------ */

/* Shard @i of @n of campaign work_dir()/@file into work_dir()/@out; its totals. */
static struct campaign_totals run_shard(const char *file, const char *out, uint32_t i, uint32_t n)
{
	char fpath[PATH_MAX], opath[PATH_MAX], err[4096] = "";
	struct campaign_opts o = { .file = fpath, .out = opath, .jobs = 2, .shard = { i, n } };
	struct campaign_totals t;

	at(fpath, sizeof(fpath), file);
	at(opath, sizeof(opath), out);
	cr_assert_eq(campaign_run(&o, &t, err, sizeof(err)), 0, "shard %u/%u: %s", i, n, err);
	return t;
}

/* gpuiso merge work_dir()/@out: its return, and its message in @err. */
static int merge_lib(const char *out, struct campaign_totals *t, char *err, size_t errlen)
{
	char opath[PATH_MAX];
	struct shard_header h;
	int rc;

	at(opath, sizeof(opath), out);
	*err = '\0';
	rc = shard_find(opath, &h, err, errlen);
	if (rc)
		return rc;
	cr_assert_str_eq(h.kind, "campaign");
	rc = campaign_merge(opath, &h, 1, NULL, NULL, t, err, errlen);
	shard_header_free(&h);
	return rc;
}

/* work_dir()/@out/@name and work_dir()/@ref/@name hold the same bytes. */
static void same_file(const char *out, const char *ref, const char *name)
{
	char a[PATH_MAX], b[PATH_MAX], rel[PATH_MAX];
	char *x, *y;

	snprintf(rel, sizeof(rel), "%s/%s", out, name);
	at(a, sizeof(a), rel);
	snprintf(rel, sizeof(rel), "%s/%s", ref, name);
	at(b, sizeof(b), rel);
	x = slurp(a);
	y = slurp(b);
	cr_assert(x && y, "%s or %s missing", a, b);
	cr_assert_str_eq(x, y, "%s and %s differ", a, b);
	free(x);
	free(y);
}

Test(campaign, shards_merge_into_the_summary_of_one_run)
{
	char err[4096], one[PATH_MAX], kept[PATH_MAX], outcome[PATH_MAX], summary[PATH_MAX];
	struct campaign_totals t, whole;
	unsigned int runs = 0;

	gen_trace("power-cycle", 300);
	two_run_campaign("shards.yaml", "[1, 2, 3]");
	/* the summary names its folder: one run into "out", kept aside, then the shards into "out" */
	cr_assert_eq(run_lib("shards.yaml", "out", 2, NULL, &whole, err, sizeof(err)), 0, "%s", err);
	at(one, sizeof(one), "out");
	at(kept, sizeof(kept), "one");
	cr_assert_eq(rename(one, kept), 0);
	for (uint32_t i = 0; i < 4; i++) {
		t = run_shard("shards.yaml", "out", i, 4);
		cr_assert_eq(t.resumed, 0);
		runs += t.shard_runs;
	}
	cr_assert_eq(runs, whole.runs, "the shards ran %u runs, not %u", runs, whole.runs);
	cr_assert_eq(merge_lib("out", &t, err, sizeof(err)), 0, "%s", err);
	cr_assert(t.runs == whole.runs && t.failed == whole.failed && t.findings == whole.findings);
	same_file("out", "one", "summary.json");
	same_file("out", "one", "summary.txt");

	/* a run's outcome lost: the merge names it and its shard, and writes no summary */
	at(outcome, sizeof(outcome), "out/runs/unmap-fails-power-cycle-s2.outcome");
	cr_assert_eq(unlink(outcome), 0);
	cr_assert_eq(merge_lib("out", &t, err, sizeof(err)), -ENODATA, "merged: %s", err);
	cr_assert(strstr(err, "merge: shard ") && strstr(err, "unmap-fails-power-cycle-s2"), "%s", err);
	cr_assert(strstr(err, "1 of its"), "%s", err);
	at(summary, sizeof(summary), "out/summary.json");
	cr_assert(!exists(summary), "an incomplete merge left a summary");
	/* its shard, started again, runs it alone */
	for (uint32_t i = 0, again = 0; i < 4; i++) {
		t = run_shard("shards.yaml", "out", i, 4);
		again += t.shard_runs - t.resumed;
		if (i == 3)
			cr_assert_eq(again, 1, "%u runs ran again", again);
	}
	cr_assert_eq(merge_lib("out", &t, err, sizeof(err)), 0, "%s", err);
	same_file("out", "one", "summary.json");
	same_file("out", "one", "summary.txt");

	/* the campaign changed since: its shards' runs are not its runs */
	two_run_campaign("shards.yaml", "[1, 2, 4]");
	cr_assert_eq(merge_lib("out", &t, err, sizeof(err)), -EINVAL, "merged: %s", err);
	cr_assert(strstr(err, "changed since its shards ran"), "%s", err);
}

/*
 * Shard 0's file is another campaign's (copied in): the merge names it and
 * the campaign it is of, and refuses, rather than take that campaign's
 * runs for this folder's and call them missing.
 */
Test(campaign, a_foreign_shard_file_is_named_and_not_taken_on)
{
	char err[4096], from[PATH_MAX], to[PATH_MAX], other[PATH_MAX], summary[PATH_MAX];
	struct campaign_totals t;

	gen_trace("power-cycle", 300);
	two_run_campaign("this.yaml", "[1]");
	two_run_campaign("that.yaml", "[7]");
	run_shard("this.yaml", "out", 0, 2);
	run_shard("this.yaml", "out", 1, 2);
	run_shard("that.yaml", "other", 0, 2);
	at(from, sizeof(from), "other/shards/0-of-2");
	at(to, sizeof(to), "out/shards/0-of-2");
	cr_assert_eq(rename(from, to), 0);
	at(other, sizeof(other), "that.yaml");

	cr_assert_eq(merge_lib("out", &t, err, sizeof(err)), -EINVAL, "merged: %s", err);
	cr_assert(strstr(err, "shard files of 2 different works"), "%s", err);
	cr_assert(strstr(err, "/shards/0-of-2: campaign work ") && strstr(err, other), "%s", err);
	cr_assert(strstr(err, "/shards/1-of-2: campaign work ") && strstr(err, "this.yaml"), "%s",
		  err);
	cr_assert_null(strstr(err, "missing"), "%s", err);
	at(summary, sizeof(summary), "out/summary.json");
	cr_assert(!exists(summary), "a summary of either campaign was written");
	/* the shard of this campaign run again rewrites its file: the merge is whole */
	run_shard("this.yaml", "out", 0, 2);
	cr_assert_eq(merge_lib("out", &t, err, sizeof(err)), 0, "%s", err);
	cr_assert(exists(summary));
}

Test(campaign, a_shard_exits_0_and_the_merge_judges)
{
	char file[PATH_MAX], out[PATH_MAX], cmd[CMD_LEN], log[8192];
	int status;

	gen_trace("power-cycle", 300);
	two_run_campaign("cli.yaml", "[1]");
	at(file, sizeof(file), "cli.yaml");
	at(out, sizeof(out), "cli");
	for (int i = 0; i < 2; i++) {
		snprintf(cmd, sizeof(cmd), "%s campaign run %s -o %s --shard %d/2 2>&1", bin(), file, out, i);
		status = sh(cmd, log, sizeof(log));
		cr_assert_eq(status, 0, "%s: exit %d: %s", cmd, status, log);
		cr_assert(strstr(log, "campaign: shard "), "%s", log);
	}
	snprintf(cmd, sizeof(cmd), "%s merge %s 2>&1", bin(), out);
	status = sh(cmd, log, sizeof(log));
	cr_assert_eq(status, 1, "exit %d: %s", status, log);
	cr_assert(strstr(log, "2 runs (0 resumed), 1 passed, 1 failed"), "%s", log);
	snprintf(cmd, sizeof(cmd), "%s campaign run %s -o %s --shard 1/0 2>&1", bin(), file, out);
	status = sh(cmd, log, sizeof(log));
	cr_assert_eq(status, 2, "exit %d: %s", status, log);
}
