/* SPDX-License-Identifier: MIT */
/*
 * Sweeps in shards (faults/campaign/sweep_shard.c): the merge gives the
 * summary of one sweep, a missing shard is listed and a resumed one
 * completes it, foreign journals and changed inputs are refused, a shard
 * runs in one process at a time, and the command line does the same.
 */
#include <criterion/criterion.h>
#include <limits.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/json.h"
#include "core/scenario.h"
#include "faults/campaign/shard.h"
#include "faults/campaign/sweep.h"
#include "replay/replay.h"
#include "tests/faults/campaign/sweep_fixture.h"

TestSuite(sweep, .init = setup, .fini = teardown, .timeout = 240);

/* ---- shards and their merge ------------------------------------------------ */

/* Shard @i of @n of a sweep into @out; its totals. */
static struct sweep_totals sweep_shard(const char *trace, const char *scn, const char *points,
				       bool scratch, const char *out, uint32_t i, uint32_t n)
{
	struct sweep_opts o = { .trace = trace, .scenario = scn, .points = points, .out = out,
				.jobs = 2, .from_scratch = scratch, .shard = { i, n } };
	struct sweep_totals t;
	char err[1024] = "", *summary = NULL;
	struct stat st;

	cr_assert_eq(sweep_run(&o, &t, err, sizeof(err)), 0, "shard %u/%u: %s", i, n, err);
	cr_assert_eq(t.runs + t.resumed, t.shard_runs);
	/* a shard writes no summary (and leaves none of before): the merge writes it */
	cr_assert(asprintf(&summary, "%s/summary.json", out) > 0);
	cr_assert_neq(stat(summary, &st), 0, "shard %u/%u left %s", i, n, summary);
	free(summary);
	return t;
}

/* gpuiso merge OUT: its return, and its message in @err. */
static int merge(const char *out, struct sweep_totals *t, char *err, size_t errlen)
{
	struct shard_header h;
	int rc;

	*err = '\0';
	rc = shard_find(out, &h, err, errlen);
	if (rc)
		return rc;
	rc = sweep_merge(out, &h, 2, NULL, NULL, NULL, t, err, errlen);
	shard_header_free(&h);
	return rc;
}

/* @out's summaries equal @ref's, once each folder's path is OUT. */
static void same_summaries(const char *out, const char *ref)
{
	static const char *const names[] = { "summary.json", "summary.txt" };

	for (size_t i = 0; i < 2; i++) {
		char *a = NULL, *b = NULL, *x, *y;

		cr_assert(asprintf(&a, "%s/%s", out, names[i]) > 0 && asprintf(&b, "%s/%s", ref, names[i]) > 0);
		x = slurp(a);
		y = slurp(b);
		free(a);
		free(b);
		a = without_out(x, out);
		b = without_out(y, ref);
		cr_assert_str_eq(a, b, "%s of %s and of %s differ", names[i], out, ref);
		free(a);
		free(b);
		free(x);
		free(y);
	}
}

Test(sweep, shards_merge_into_the_summary_of_one_sweep)
{
	char *trace = trace_gen("pc300", 300, 3), *scn = scenario_write("small.yaml", "1MiB");
	char *ref = path_in_tmp("one"), *out, err[4096];
	struct sweep_totals one, t;
	const uint32_t splits[] = { 1, 3, 7 };

	free(sweep(trace, scn, NULL, PERSIST, ref, &one));
	cr_assert_gt(one.findings, 0, "nothing to merge but recovered runs");
	for (size_t k = 0; k < sizeof(splits) / sizeof(splits[0]); k++) {
		uint64_t runs = 0;

		cr_assert(asprintf(&out, "%s/split%u", tmp, splits[k]) > 0);
		for (uint32_t i = 0; i < splits[k]; i++)
			runs += sweep_shard(trace, scn, NULL, false, out, i, splits[k]).shard_runs;
		cr_assert_eq(runs, one.runs, "the shards of %u ran %llu runs, not %llu", splits[k],
			     (unsigned long long)runs, (unsigned long long)one.runs);
		cr_assert_eq(merge(out, &t, err, sizeof(err)), 0, "%s", err);
		cr_assert_eq(t.runs, one.runs);
		cr_assert_eq(t.findings, one.findings);
		same_summaries(out, ref);
		free(out);
	}
	/* from scratch, over some points: the same as forking over them */
	out = path_in_tmp("scratch-ref");
	free(sweep(trace, scn, "fbsave/*", PERSIST, out, &one));
	free(ref);
	ref = out;
	out = path_in_tmp("scratch");
	for (uint32_t i = 0; i < 2; i++)
		sweep_shard(trace, scn, "fbsave/*", true, out, i, 2);
	cr_assert_eq(merge(out, &t, err, sizeof(err)), 0, "%s", err);
	same_summaries(out, ref);
	free(out);
	free(ref);
	free(scn);
	free(trace);
}

/* Cut @path at about @frac of its length (a shard killed while writing). */
static void cut_file(const char *path, double frac)
{
	struct stat st;

	cr_assert_eq(stat(path, &st), 0, "%s", path);
	cr_assert_eq(truncate(path, (off_t)((double)st.st_size * frac)), 0);
}

Test(sweep, a_missing_shard_is_listed_and_a_resumed_one_completes_the_merge)
{
	char *trace = trace_gen("pc300", 300, 3), *scn = scenario_write("small.yaml", "1MiB");
	char *ref = path_in_tmp("one"), *out = path_in_tmp("shards"), *journal, *summary, err[4096];
	struct sweep_totals one, t, again, first;
	struct stat st;

	free(sweep(trace, scn, NULL, PERSIST, ref, &one));
	sweep_shard(trace, scn, NULL, false, out, 0, 3);
	sweep_shard(trace, scn, NULL, false, out, 2, 3);
	cr_assert_eq(merge(out, &t, err, sizeof(err)), -ENODATA, "merged: %s", err);
	cr_assert_not_null(strstr(err, "merge: shard 1/3: "), "%s", err);
	cr_assert_not_null(strstr(err, "(no journal of this work)"), "%s", err);
	cr_assert_null(strstr(err, "shard 0/3"), "%s", err);
	cr_assert_null(strstr(err, "shard 2/3"), "%s", err);
	cr_assert(asprintf(&summary, "%s/summary.json", out) > 0);
	cr_assert_neq(stat(summary, &st), 0, "an incomplete merge wrote a summary");
	cr_assert(asprintf(&journal, "%s/shards/missing", out) > 0);
	cr_assert_eq(stat(journal, &st), 0, "no list of the missing runs");
	free(journal);

	/* shard 1 killed while writing its journal: what it booked whole is kept */
	first = sweep_shard(trace, scn, NULL, false, out, 1, 3);
	cr_assert(asprintf(&journal, "%s/shards/1-of-3", out) > 0);
	cut_file(journal, 0.6);
	cr_assert_eq(merge(out, &t, err, sizeof(err)), -ENODATA, "merged: %s", err);
	cr_assert_not_null(strstr(err, "merge: shard 1/3: "), "%s", err);
	cr_assert_null(strstr(err, "no journal"), "%s", err);
	again = sweep_shard(trace, scn, NULL, false, out, 1, 3);
	cr_assert_eq(again.shard_runs, first.shard_runs);
	cr_assert(again.resumed > 0 && again.runs > 0, "resumed %llu, ran %llu",
		  (unsigned long long)again.resumed, (unsigned long long)again.runs);
	/* once more: nothing left to run */
	t = sweep_shard(trace, scn, NULL, false, out, 1, 3);
	cr_assert_eq(t.runs, 0);
	cr_assert_eq(t.resumed, t.shard_runs);
	cr_assert_eq(merge(out, &t, err, sizeof(err)), 0, "%s", err);
	same_summaries(out, ref);

	/* a journal of other work (a shard run with other points) is named, not merged */
	sweep_shard(trace, scn, "fbsave/*", false, out, 1, 3);
	cr_assert_eq(merge(out, &t, err, sizeof(err)), -EINVAL, "merged: %s", err);
	cr_assert_not_null(strstr(err, "/shards/1-of-3 (other work): sweep work "), "%s", err);
	cr_assert_not_null(strstr(err, "points fbsave/*"), "%s", err);
	cr_assert_not_null(strstr(err, "/shards/2-of-3 (most of them): sweep work "), "%s", err);
	cr_assert_neq(stat(summary, &st), 0, "the summary of other work was left");
	/* ... and is made anew, whole, when the shard of this work runs again */
	t = sweep_shard(trace, scn, NULL, false, out, 1, 3);
	cr_assert_eq(t.resumed, 0);
	cr_assert_eq(merge(out, &t, err, sizeof(err)), 0, "%s", err);
	same_summaries(out, ref);
	free(summary);
	free(journal);
	free(out);
	free(ref);
	free(scn);
	free(trace);
}

/*
 * Shard 0's journal is another sweep's (of other points, into another
 * folder, copied in): the merge names it and the work it is of, and
 * refuses, rather than merge that sweep and call this one's shard 1
 * missing; the shard run again as it should be completes the merge.
 */
Test(sweep, a_foreign_journal_is_named_and_not_taken_on)
{
	char *trace = trace_gen("pc100", 100, 3), *scn = scenario_write("tiny.yaml", "64KiB");
	char *ref = path_in_tmp("one"), *out = path_in_tmp("shards"), *other = path_in_tmp("other");
	char *from = NULL, *to = NULL, *summary = NULL, *log, err[4096];
	struct sweep_totals one, t;
	struct stat st;
	int status;

	free(sweep(trace, scn, "iommu/*", PERSIST, ref, &one));
	sweep_shard(trace, scn, "iommu/*", false, out, 0, 2);
	sweep_shard(trace, scn, "iommu/*", false, out, 1, 2);
	sweep_shard(trace, scn, "fbsave/*", false, other, 0, 2);
	cr_assert(asprintf(&from, "%s/shards/0-of-2", other) > 0);
	cr_assert(asprintf(&to, "%s/shards/0-of-2", out) > 0);
	cr_assert_eq(rename(from, to), 0);

	cr_assert_eq(merge(out, &t, err, sizeof(err)), -EINVAL, "merged: %s", err);
	cr_assert_null(strstr(err, "missing"), "%s", err);
	cr_assert(strstr(err, "/shards/0-of-2: sweep work ") && strstr(err, "points fbsave/*"), "%s",
		  err);
	cr_assert(strstr(err, "/shards/1-of-2: sweep work ") && strstr(err, "points iommu/*"), "%s",
		  err);
	cr_assert(strstr(err, trace), "the trace is not named: %s", err);
	cr_assert(asprintf(&summary, "%s/summary.json", out) > 0);
	cr_assert_neq(stat(summary, &st), 0, "a summary of either work was written");
	/* the command: bad input, said */
	status = GPUISO(&log, "merge", out);
	cr_assert_eq(status, 2, "exit %d: %s", status, log);
	cr_assert(strstr(log, "0-of-2: sweep work ") && strstr(log, "points fbsave/*"), "%s", log);
	free(log);

	/* shard 0 of this sweep run again: its journal is made anew, and the merge is whole */
	t = sweep_shard(trace, scn, "iommu/*", false, out, 0, 2);
	cr_assert_eq(t.resumed, 0);
	cr_assert_eq(merge(out, &t, err, sizeof(err)), 0, "%s", err);
	same_summaries(out, ref);
	free(summary);
	free(to);
	free(from);
	free(other);
	free(out);
	free(ref);
	free(scn);
	free(trace);
}

Test(sweep, a_merge_refuses_shards_of_inputs_that_changed)
{
	char *trace = trace_gen("pc100", 100, 3), *scn = scenario_write("tiny.yaml", "64KiB");
	char *out = path_in_tmp("shards"), err[4096];
	struct sweep_totals t;

	sweep_shard(trace, scn, NULL, false, out, 0, 2);
	sweep_shard(trace, scn, NULL, false, out, 1, 2);
	free(scenario_write("tiny.yaml", "128KiB"));
	cr_assert_eq(merge(out, &t, err, sizeof(err)), -EINVAL, "merged: %s", err);
	cr_assert_not_null(strstr(err, "an input changed"), "%s", err);
	free(out);
	free(scn);
	free(trace);
}

Test(sweep, a_shard_runs_in_one_process_at_a_time)
{
	char *trace = trace_gen("pc100", 100, 3), *scn = scenario_write("tiny.yaml", "64KiB");
	char *out = path_in_tmp("shards"), *journal, err[1024] = "";
	struct sweep_opts o = { .trace = trace, .scenario = scn, .out = out, .jobs = 1,
				.shard = { 0, 2 } };
	struct sweep_totals t;
	int fd;

	sweep_shard(trace, scn, NULL, false, out, 0, 2);
	cr_assert(asprintf(&journal, "%s/shards/0-of-2", out) > 0);
	fd = open(journal, O_RDONLY);
	cr_assert_geq(fd, 0);
	cr_assert_eq(flock(fd, LOCK_EX), 0);
	cr_assert_eq(sweep_run(&o, &t, err, sizeof(err)), -EBUSY, "%s", err);
	cr_assert_not_null(strstr(err, "another process"), "%s", err);
	close(fd);
	free(journal);
	free(out);
	free(scn);
	free(trace);
}

Test(sweep, cli_shards_and_merge)
{
	char *trace = trace_gen("pc100", 100, 3), *scn = scenario_write("tiny.yaml", "64KiB");
	char *out = path_in_tmp("cli"), *log;
	int status;

	status = GPUISO(&log, "sweep", trace, "--scenario", scn, "-o", out, "--shard", "2/2");
	cr_assert_eq(status, 2, "exit %d: %s", status, log);
	cr_assert(strstr(log, "--shard takes I/N"), "%s", log);
	free(log);
	status = GPUISO(&log, "merge", out);
	cr_assert_eq(status, 2, "exit %d: %s", status, log);
	cr_assert(strstr(log, "no shards"), "%s", log);
	free(log);
	/* iommu/unmap failures break invariants: exit 1 for the merge, 0 for a shard */
	status = GPUISO(&log, "sweep", trace, "--scenario", scn, "--points", "iommu/unmap", "-o", out,
			"--shard", "0/2");
	cr_assert_eq(status, 0, "exit %d: %s", status, log);
	cr_assert(strstr(log, "sweep: shard 0/2: "), "%s", log);
	free(log);
	status = GPUISO(&log, "merge", out);
	cr_assert_eq(status, 4, "incomplete, not findings: exit %d: %s", status, log);
	cr_assert(strstr(log, "merge: shard 1/2: ") && strstr(log, " missing"), "%s", log);
	free(log);
	status = GPUISO(&log, "sweep", trace, "--scenario", scn, "--points", "iommu/unmap", "-o", out,
			"--shard", "1/2");
	cr_assert_eq(status, 0, "exit %d: %s", status, log);
	free(log);
	status = GPUISO(&log, "merge", out, "--jobs", "2");
	cr_assert_eq(status, 1, "exit %d: %s", status, log);
	cr_assert(strstr(log, " violation") && strstr(log, "summary.txt"), "%s", log);
	free(log);
	free(out);
	free(scn);
	free(trace);
}
