/* SPDX-License-Identifier: MIT */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/runfile.h"
#include "runfile_files.h"

/* The findings of campaign and sweep summaries (bench/runfile_finding.c). */

TestSuite(runfile_finding, .init = setup, .fini = teardown);

/* A campaign summary with findings, one a line from line 3 (for FILE:LINE:COL). */
static const char campaign_findings[] =
	"{\"schema\": \"gpuiso-campaign/1\", \"name\": \"nightly\", \"runs\": 3, \"passed\": 1,\n"
	" \"failed\": 2, \"failures\": [], \"findings\": [\n"
	"  {\"signature\": \"3f9a0c1d22e4b870\", \"key\": \"iommu/unmap|free_mdl|violation|MAPPING_LEAK\", \"title\": \"iommu/unmap during free_mdl \\u2192 MAPPING_LEAK\", \"blame\": \"fault\", \"outcome\": \"failed\", \"code\": \"MAPPING_LEAK\", \"invariants\": [\"no_stale_mappings\", \"no_leaks\"], \"point\": \"iommu/unmap\", \"operation\": \"free_mdl\", \"runs\": 2, \"reproduce\": \"gpuiso replay /t --faults /f.yaml --seed 1\", \"trimmed\": null, \"later\": {\"any\": [1]}},\n"
	"  {\"signature\": \"00000000000000ff\", \"key\": \"k\", \"title\": \"hung\", \"blame\": \"none\", \"outcome\": \"hung\", \"code\": null, \"invariants\": [], \"point\": null, \"operation\": null, \"runs\": 1, \"reproduce\": \"r\", \"trimmed\": {\"trace\": \"/o/findings/00000000000000ff/trace\", \"events\": 41, \"of\": 10000}}\n"
	" ]}\n";

Test(runfile_finding, findings_of_a_campaign_are_read_and_kept)
{
	struct run_record r;
	char err[512];

	cr_assert_eq(runfile_read(file_with("c.json", campaign_findings), &r, err, sizeof(err)), 0,
		     "%s", err);
	cr_assert(r.findings_recorded);
	cr_assert_eq(r.nfindings, 2);
	cr_assert_str_eq(r.findings[0].signature, "3f9a0c1d22e4b870");
	cr_assert_str_eq(r.findings[0].key, "iommu/unmap|free_mdl|violation|MAPPING_LEAK");
	cr_assert_str_eq(r.findings[0].title, "iommu/unmap during free_mdl \xe2\x86\x92 MAPPING_LEAK",
			 "the arrow is UTF-8");
	cr_assert_str_eq(r.findings[0].blame, "fault");
	cr_assert_str_eq(r.findings[0].outcome, "failed");
	cr_assert_str_eq(r.findings[0].code, "MAPPING_LEAK");
	cr_assert_str_eq(r.findings[0].invariants, "no_stale_mappings,no_leaks");
	cr_assert_str_eq(r.findings[0].point, "iommu/unmap");
	cr_assert_str_eq(r.findings[0].operation, "free_mdl");
	cr_assert_eq(r.findings[0].runs, 2);
	cr_assert_eq(r.findings[0].nth_min, 0, "no hits in a campaign");
	cr_assert_str_eq(r.findings[0].reproduce, "gpuiso replay /t --faults /f.yaml --seed 1");
	cr_assert_null(r.findings[0].trimmed);
	cr_assert_null(r.findings[1].code);
	cr_assert_null(r.findings[1].point);
	cr_assert_str_eq(r.findings[1].invariants, "");
	cr_assert_str_eq(r.findings[1].trimmed, "/o/findings/00000000000000ff/trace");
	cr_assert_eq(r.findings[1].trimmed_events, 41);
	cr_assert_eq(r.findings[1].trimmed_of, 10000);
	runfile_free(&r);
	/* a summary from before findings records none: that is not "none found" */
	cr_assert_eq(runfile_read(file_with("old.json", "{\"schema\":\"gpuiso-campaign/1\",\"name\":\"n\","
							"\"runs\":1,\"passed\":1,\"failed\":0,\"failures\":[]}"),
				  &r, err, sizeof(err)), 0, "%s", err);
	cr_assert_not(r.findings_recorded);
	cr_assert_eq(r.nfindings, 0);
	runfile_free(&r);
	cr_assert_eq(runfile_read(file_with("none.json", "{\"schema\":\"gpuiso-campaign/1\",\"name\":\"n\","
							 "\"runs\":1,\"passed\":1,\"failed\":0,\"failures\":[],"
							 "\"findings\":[]}"),
				  &r, err, sizeof(err)), 0, "%s", err);
	cr_assert(r.findings_recorded, "an empty list: none found");
	runfile_free(&r);
}

Test(runfile_finding, findings_of_a_sweep_have_their_hits)
{
	struct run_record r;
	char err[512];

	cr_assert_eq(runfile_read(file_with("s.json",
					    "{\"schema\":\"gpuiso-sweep/1\",\"trace\":\"/t\",\"points\":{},"
					    "\"failures\":[],\"findings\":[{\"signature\":\"0123456789abcdef\","
					    "\"key\":\"k\",\"title\":\"t\",\"blame\":\"driver\",\"outcome\":"
					    "\"violation\",\"code\":\"X\",\"invariants\":[],\"point\":\"iommu/map\","
					    "\"operation\":null,\"runs\":2788,\"nth\":{\"min\":1,\"max\":2788},"
					    "\"reproduce\":\"gpuiso replay /t --fail-nth iommu/map:1\","
					    "\"trimmed\":null}]}"),
				  &r, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(r.nfindings, 1);
	cr_assert_eq(r.findings[0].nth_min, 1);
	cr_assert_eq(r.findings[0].nth_max, 2788);
	cr_assert_eq(r.findings[0].runs, 2788);
	cr_assert_null(r.findings[0].operation);
	cr_assert_eq(r.findings[0].ncontexts, 0, "a summary from before contexts has none");
	runfile_free(&r);
}

/* A sweep's finding met in two operations, one a line from line 3 (for FILE:LINE:COL). */
static const char sweep_contexts[] =
	"{\"schema\": \"gpuiso-sweep/1\", \"trace\": \"/t\", \"points\": {}, \"failures\": [],\n"
	" \"findings\": [{\"signature\": \"0123456789abcdef\", \"key\": \"k\", \"title\": \"t\", \"blame\": \"fault\", \"outcome\": \"violation\", \"code\": \"MAPPING_LEAK\", \"invariants\": [], \"point\": \"iommu/unmap\", \"operation\": \"power\", \"runs\": 5, \"nth\": {\"min\": 1, \"max\": 38},\n"
	"  \"contexts\": [{\"operation\": \"free_mdl\", \"runs\": 3, \"nth\": {\"min\": 2, \"max\": 30}},\n"
	"   {\"operation\": \"power\", \"runs\": 2, \"nth\": {\"min\": 1, \"max\": 28}}],\n"
	"  \"reproduce\": \"r\", \"trimmed\": null}]}\n";

Test(runfile_finding, contexts_of_a_finding_are_read_and_copied)
{
	struct run_finding copy;
	struct run_record r;
	char err[512];

	cr_assert_eq(runfile_read(file_with("s.json", sweep_contexts), &r, err, sizeof(err)), 0, "%s",
		     err);
	cr_assert_eq(r.nfindings, 1);
	cr_assert_eq(r.findings[0].ncontexts, 2);
	cr_assert_str_eq(r.findings[0].contexts[0].operation, "free_mdl");
	cr_assert_eq(r.findings[0].contexts[0].runs, 3);
	cr_assert_eq(r.findings[0].contexts[0].nth_min, 2);
	cr_assert_eq(r.findings[0].contexts[0].nth_max, 30);
	cr_assert_str_eq(r.findings[0].contexts[1].operation, "power");
	cr_assert_eq(r.findings[0].contexts[1].nth_max, 28);
	cr_assert_eq(run_finding_copy(&copy, &r.findings[0]), 0);
	runfile_free(&r);
	/* the copy is its own: the record it came from is gone */
	cr_assert_eq(copy.ncontexts, 2);
	cr_assert_str_eq(copy.contexts[1].operation, "power");
	cr_assert_str_eq(copy.signature, "0123456789abcdef");
	cr_assert_str_eq(copy.code, "MAPPING_LEAK");
	run_finding_free(&copy);
	cr_assert_null(copy.contexts, "freed and zeroed");
	/* a campaign's contexts have no hits */
	char text[4096];
	const char *at = strstr(campaign_findings, "\"reproduce\": \"gpuiso replay /t");

	snprintf(text, sizeof(text), "%.*s\"contexts\": [{\"operation\": \"start\", \"runs\": 2}], %s",
		 (int)(at - campaign_findings), campaign_findings, at);
	cr_assert_eq(runfile_read(file_with("c.json", text), &r, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(r.findings[0].ncontexts, 1);
	cr_assert_str_eq(r.findings[0].contexts[0].operation, "start");
	cr_assert_eq(r.findings[0].contexts[0].nth_max, 0);
	runfile_free(&r);
}

/*
 * @base with the first @from from its "findings" on replaced by @to, read:
 * refused with an error at c.json:@line: (then the column) saying @what.
 */
static void refused(const char *base, const char *from, const char *to, int line, const char *what)
{
	char text[4096], err[1024], where[32];
	const char *at = strstr(strstr(base, "\"findings\""), from);
	struct run_record r;

	cr_assert_not_null(at, "%s", from);
	snprintf(text, sizeof(text), "%.*s%s%s", (int)(at - base), base, to, at + strlen(from));
	cr_assert_eq(runfile_read(file_with("c.json", text), &r, err, sizeof(err)), -EINVAL,
		     "%s -> %s was taken", from, to);
	snprintf(where, sizeof(where), "c.json:%d:", line);
	cr_assert(strstr(err, where), "%s -> %s: expected %s in: %s", from, to, where, err);
	cr_assert(strstr(err, what), "%s -> %s: expected '%s' in: %s", from, to, what, err);
}

Test(runfile_finding, bad_findings_are_refused_with_where)
{
	const char *c = campaign_findings;
	static const char sweep[] =
		"{\"schema\": \"gpuiso-sweep/1\", \"trace\": \"/t\", \"points\": {}, \"failures\": [],\n"
		" \"findings\": [{\"signature\": \"0123456789abcdef\", \"key\": \"k\", \"title\": \"t\",\n"
		"  \"blame\": \"model\", \"outcome\": \"crash\", \"code\": null, \"invariants\": [],\n"
		"  \"point\": \"p\", \"operation\": null, \"runs\": 3,\n"
		"  \"nth\": {\"min\": 2, \"max\": 4},\n"
		"  \"reproduce\": \"r\", \"trimmed\": null}]}\n";
	char err[512];
	struct run_record r;

	cr_assert_eq(runfile_read(file_with("s.json", sweep), &r, err, sizeof(err)), 0, "%s", err);
	runfile_free(&r);
	refused(c, "\"findings\": [", "\"findings\": 5, \"x\": [", 2, "findings: expected a list");
	refused(c, "\"3f9a0c1d22e4b870\"", "\"3F9A0C1D22E4B870\"", 3, "findings[0].signature: expected 16 lowercase hex digits");
	refused(c, "\"3f9a0c1d22e4b870\"", "\"3f9a0c1d\"", 3, "findings[0].signature");
	refused(c, "\"3f9a0c1d22e4b870\"", "12", 3, "findings[0].signature: wrong type");
	refused(c, "\"00000000000000ff\"", "\"3f9a0c1d22e4b870\"", 4, "findings[1].signature: 3f9a0c1d22e4b870 is findings[0]'s too");
	refused(c, "\"blame\": \"fault\"", "\"blame\": \"cosmic rays\"", 3, "findings[0].blame: expected one of fault, driver, model, none");
	refused(c, "\"outcome\": \"hung\"", "\"outcome\": \"crash\"", 4, "findings[1].outcome: expected one of reset, violation, failed, hung");
	refused(c, "\"title\": \"hung\", ", "", 4, "findings[1].title: missing");
	refused(c, "\"code\": null", "\"code\": 7", 4, "findings[1].code: wrong type, expected a string or null");
	refused(c, "\"runs\": 2", "\"runs\": \"two\"", 3, "findings[0].runs");
	refused(c, "\"runs\": 1", "\"runs\": 0", 4, "findings[1].runs: wrong value, expected an integer of at least 1");
	refused(c, "[\"no_stale_mappings\", ", "[3, ", 3, "findings[0].invariants[0]: expected an invariant's name");
	refused(c, "\"invariants\": []", "\"invariants\": \"none\"", 4, "findings[1].invariants: wrong type");
	refused(c, "\"events\": 41", "\"events\": -1", 4, "findings[1].trimmed.events");
	refused(c, "\"of\": 10000", "\"of\": 40", 4, "findings[1].trimmed.of: 40 is below events (41)");
	refused(c, "\"trimmed\": null", "\"trimmed\": \"/x\"", 3, "findings[0].trimmed: expected null or");
	refused(c, "{\"signature\": \"00", "7, {\"signature\": \"00", 4, "findings[1]: expected an object");
	refused(sweep, "\"nth\": {\"min\": 2, \"max\": 4},", "", 2, "findings[0].nth: missing");
	/* a finding listed twice is named by its place in the file, refused ones before it counted */
	char twice[4096];
	const char *second = strstr(c, "\n  {\"signature\": \"00");

	snprintf(twice, sizeof(twice), "%.*s\n  7,%.*s,%s", (int)(second - c), c,
		 (int)(strstr(second, "\n ]") - second), second, second);
	cr_assert_eq(runfile_read(file_with("c.json", twice), &r, err, sizeof(err)), -EINVAL);
	cr_assert(strstr(err, "c.json:4:") && strstr(err, "c.json:6:") &&
		  strstr(err, "findings[3].signature: 00000000000000ff is findings[2]'s too"), "%s", err);
	refused(sweep, "\"max\": 4", "\"max\": 1", 5, "findings[0].nth.max: 1 is below min (2)");
	refused(sweep, "\"min\": 2", "\"min\": 0", 5, "findings[0].nth.min");
	refused(sweep, "\"outcome\": \"crash\"", "\"outcome\": \"failed\"", 3, "findings[0].outcome: expected one of reset, violation, crash, hung");
	refused(sweep_contexts, "\"contexts\": [", "\"contexts\": 3, \"x\": [", 3, "findings[0].contexts: expected a list");
	refused(sweep_contexts, "\"contexts\": [", "\"contexts\": [], \"x\": [", 3, "findings[0].contexts: expected a list");
	refused(sweep_contexts, "{\"operation\": \"free_mdl\"", "{\"operation\": null", 3, "findings[0].contexts[0]: expected {\"operation\"");
	refused(sweep_contexts, "\"runs\": 2, \"nth\"", "\"runs\": 0, \"nth\"", 4, "findings[0].contexts[1].runs: wrong value");
	refused(sweep_contexts, ", \"nth\": {\"min\": 1, \"max\": 28}", "", 4, "findings[0].contexts[1].nth: missing");
	refused(sweep_contexts, "\"max\": 30", "\"max\": 1", 3, "findings[0].contexts[0].nth.max: 1 is below min (2)");
}
