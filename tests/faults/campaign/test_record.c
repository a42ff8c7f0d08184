/* SPDX-License-Identifier: MIT */
/*
 * faults/campaign/record.c: an outcome record reads back as it was written,
 * verdict and first injection included, whatever a detail holds; a record
 * of the previous version (five lines) still reads, with neither recorded.
 *
 * Each test works in /tmp/gpuiso-record-<pid> (Criterion runs each test in
 * a process of its own).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "faults/campaign/campaign_internal.h"

static struct campaign *camp;
static const struct camp_job job = { .id = "run-trace-s1", .key = 0x1234abcdULL };

static void setup(void)
{
	char runs[PATH_MAX + 8];

	camp = calloc(1, sizeof(*camp));
	cr_assert_not_null(camp);
	snprintf(camp->out, sizeof(camp->out), "/tmp/gpuiso-record-%d", (int)getpid());
	snprintf(runs, sizeof(runs), "%s/runs", camp->out);
	cr_assert_eq(mkdir(camp->out, 0755), 0, "%s: %s", camp->out, strerror(errno));
	cr_assert_eq(mkdir(runs, 0755), 0, "%s: %s", runs, strerror(errno));
}

static void teardown(void)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", camp->out);
	if (system(cmd))
		fprintf(stderr, "could not remove %s\n", camp->out);
	free(camp);
}

TestSuite(record, .init = setup, .fini = teardown);

/* Write @text as the job's outcome record. */
static void write_record(const char *text)
{
	char path[CAMPAIGN_RUN_PATH_LEN];
	FILE *f;

	cr_assert_eq(campaign_job_path(camp, &job, ".outcome", path, sizeof(path)), 0);
	f = fopen(path, "w");
	cr_assert_not_null(f, "%s: %s", path, strerror(errno));
	fputs(text, f);
	cr_assert_eq(fclose(f), 0);
}

#define OLD_RECORD "gpuiso-campaign-run/1\nkey 000000001234abcd\nresults 00000000000000ff\n" \
		   "outcome failed\nreason invariant no_leaks broken\n"

Test(record, verdict_and_injection_read_back_as_written)
{
	struct camp_outcome oc = { .key = job.key, .has_results = true, .results = 0xff,
				   .failed = true, .has_verdict = CAMP_KNOWN };
	struct camp_outcome back;
	struct violation_result *f = oc.verdict.findings;

	snprintf(oc.reason, sizeof(oc.reason), "invariant no_leaks broken");
	oc.verdict = (struct verdict){ .outcome = VERDICT_VIOLATION, .nfindings = 7, .kept = 2 };
	oc.verdict.broken = 1u << 0 | 1u << 5; /* no_leaks, forward_progress */
	f[0] = (struct violation_result){ .code = "HANDLE_LEAK", .event = 12, .ts_ns = 34567,
					  .at_teardown = true, .by_os = true };
	/* a line break, spaces, a percent sign and a keyword of the record, at either end */
	snprintf(f[0].detail, sizeof(f[0].detail), " two  spaces %%s\nfinding x\r\ninjected none ");
	f[1] = (struct violation_result){ .code = "PIN_RULE", .event = 13, .ts_ns = 40000 };
	oc.injected = (struct camp_injection){ .known = CAMP_KNOWN, .any = true,
					       .point = FP_IOMMU_UNMAP, .nth = 3, .event = 5,
					       .ts = 1005390772, .op = "free_mdl", .site = "dom_unmap" };
	cr_assert_eq(campaign_outcome_write(camp, &job, &oc), 0);
	cr_assert(campaign_outcome_read(camp, &job, &back));
	cr_assert_eq(back.key, job.key);
	cr_assert(back.failed && !back.hung && back.has_results && back.results == 0xff);
	cr_assert_str_eq(back.reason, oc.reason);
	cr_assert_eq(back.has_verdict, CAMP_KNOWN);
	cr_assert_eq(back.verdict.outcome, VERDICT_VIOLATION);
	cr_assert_eq(back.verdict.broken, oc.verdict.broken);
	cr_assert_eq(back.verdict.nfindings, 7);
	cr_assert_eq(back.verdict.kept, 2);
	cr_assert_str_eq(back.verdict.findings[0].code, "HANDLE_LEAK");
	cr_assert_eq(back.verdict.findings[0].event, 12);
	cr_assert_eq(back.verdict.findings[0].ts_ns, 34567);
	cr_assert(back.verdict.findings[0].at_teardown && back.verdict.findings[0].by_os);
	/* line breaks become spaces (campaign_one_line()); the rest is kept as it was */
	cr_assert_str_eq(back.verdict.findings[0].detail,
			 " two  spaces %s finding x  injected none ");
	cr_assert_str_eq(back.verdict.findings[1].code, "PIN_RULE");
	cr_assert_str_eq(back.verdict.findings[1].detail, "");
	cr_assert(!back.verdict.findings[1].at_teardown && !back.verdict.findings[1].by_os);
	cr_assert_eq(back.injected.known, CAMP_KNOWN);
	cr_assert(back.injected.any);
	cr_assert_eq(back.injected.point, FP_IOMMU_UNMAP);
	cr_assert_eq(back.injected.nth, 3);
	cr_assert_eq(back.injected.event, 5);
	cr_assert_eq(back.injected.ts, 1005390772);
	cr_assert_str_eq(back.injected.op, "free_mdl");
	cr_assert_str_eq(back.injected.site, "dom_unmap");
	cr_assert(verdict_same(&back.verdict, &oc.verdict));
}

Test(record, none_and_unknown_are_told_apart_from_not_recorded)
{
	struct camp_outcome oc = { .key = job.key, .failed = true, .has_verdict = CAMP_UNKNOWN,
				   .injected = { .known = CAMP_UNKNOWN } };
	struct camp_outcome back;

	snprintf(oc.reason, sizeof(oc.reason), "crashed: signal 11");
	cr_assert_eq(campaign_outcome_write(camp, &job, &oc), 0);
	cr_assert(campaign_outcome_read(camp, &job, &back));
	cr_assert_eq(back.has_verdict, CAMP_UNKNOWN);
	cr_assert_eq(back.injected.known, CAMP_UNKNOWN);

	oc.failed = false;
	oc.has_verdict = CAMP_KNOWN;
	oc.verdict = (struct verdict){ .outcome = VERDICT_RESET };
	oc.injected = (struct camp_injection){ .known = CAMP_KNOWN };
	oc.reason[0] = '\0';
	cr_assert_eq(campaign_outcome_write(camp, &job, &oc), 0);
	cr_assert(campaign_outcome_read(camp, &job, &back));
	cr_assert_not(back.failed);
	cr_assert_eq(back.has_verdict, CAMP_KNOWN);
	cr_assert_eq(back.verdict.outcome, VERDICT_RESET);
	cr_assert_eq(back.verdict.broken, 0);
	cr_assert_eq(back.verdict.kept, 0);
	cr_assert_eq(back.injected.known, CAMP_KNOWN);
	cr_assert_not(back.injected.any);
}

Test(record, a_record_of_the_previous_version_still_reads)
{
	struct camp_outcome back;

	write_record(OLD_RECORD);
	cr_assert(campaign_outcome_read(camp, &job, &back));
	cr_assert_eq(back.key, job.key);
	cr_assert(back.failed && back.has_results && back.results == 0xff);
	cr_assert_str_eq(back.reason, "invariant no_leaks broken");
	cr_assert_eq(back.has_verdict, CAMP_NOT_RECORDED);
	cr_assert_eq(back.injected.known, CAMP_NOT_RECORDED);
	/* a line a later version may add is left alone */
	write_record(OLD_RECORD "weather sunny\ninjected none\n");
	cr_assert(campaign_outcome_read(camp, &job, &back));
	cr_assert_eq(back.has_verdict, CAMP_NOT_RECORDED);
	cr_assert_eq(back.injected.known, CAMP_KNOWN);
}

Test(record, a_malformed_or_cut_line_is_no_record)
{
	static const char *const bad[] = {
		"verdict violation 1\n",                         /* no invariants */
		"verdict shaky 1 -\n",                           /* no such outcome */
		"verdict violation 1 no_leaks,nonsense\n",       /* no such invariant */
		"finding X 1 2 during os detail\n",              /* before its verdict */
		"verdict violation 1 -\nfinding X 1 2 sometime os d\n",
		("verdict violation 1 -\nfinding X 1 2 during os d\nfinding X 1 2 during os d\n"
		 "finding X 1 2 during os d\nfinding X 1 2 during os d\nfinding X 1 2 during os d\n"),
		"injected nowhere/at-all 1 2 3 - -\n",           /* no such point */
		"injected iommu/map 1 2 3 op\n",                 /* no site */
		"injected iommu/map 1 2 3 op site extra\n",
		"injected none",                                 /* cut short */
	};
	struct camp_outcome back;
	char text[1024];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(text, sizeof(text), OLD_RECORD "%s", bad[i]);
		write_record(text);
		cr_assert_not(campaign_outcome_read(camp, &job, &back), "case %zu read:\n%s", i, text);
	}
	write_record(OLD_RECORD "verdict violation 1 -\nfinding X 1 2 during os d\n"
		     "injected iommu/map 1 2 3 - -\n");
	cr_assert(campaign_outcome_read(camp, &job, &back), "the good one does not read");
	cr_assert_str_eq(back.injected.op, "");
	cr_assert_str_eq(back.injected.site, "");
}
