/* SPDX-License-Identifier: MIT */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/findings.h"

static char dir[64], db[128];
static struct store *s;

static void setup(void)
{
	char err[256];

	strcpy(dir, "/tmp/gpuiso-findings-XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
	snprintf(db, sizeof(db), "%s/runs.sqlite", dir);
	cr_assert_eq(store_open(db, true, &s, err, sizeof(err)), 0, "%s", err);
}

static void teardown(void)
{
	char cmd[128];

	store_close(s);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	cr_assert_eq(system(cmd), 0);
}

TestSuite(findings, .init = setup, .fini = teardown);

/*
 * Store a summary of @kind (campaign @name, or a sweep of trace @name) at
 * @date listing the findings of @sigs (space-separated 16-digit
 * signatures; NULL: a summary from before findings), each met in one
 * operation named by the day ("day01").
 */
static void night(const char *kind, const char *name, const char *date, const char *sigs)
{
	bool sweep = !strcmp(kind, "sweep");
	char json[8192], key[128], err[512];
	struct run_record r;
	size_t len, added;

	len = (size_t)snprintf(json, sizeof(json),
			       sweep ? "{\"schema\":\"gpuiso-sweep/1\",\"trace\":\"%s\",\"scenario\":\"/s.yaml\","
				       "\"host\":\"h\",\"points\":{},\"failures\":[]"
				     : "{\"schema\":\"gpuiso-campaign/1\",\"name\":\"%s\",\"host\":\"h\","
				       "\"runs\":9,\"passed\":1,\"failed\":8,\"failures\":[]",
			       name);
	if (sigs) {
		len += (size_t)snprintf(json + len, sizeof(json) - len, ",\"findings\":[");
		for (const char *at = sigs; *at; at += at[16] ? 17 : 16) {
			len += (size_t)snprintf(json + len, sizeof(json) - len,
						"%s{\"signature\":\"%.16s\",\"key\":\"k\",\"title\":\"finding %.16s\","
						"\"blame\":\"fault\",\"outcome\":\"%s\",\"code\":null,"
						"\"invariants\":[],\"point\":null,\"operation\":null,\"runs\":1,%s"
						"\"contexts\":[{\"operation\":\"day%.2s\",\"runs\":1%s}],"
						"\"reproduce\":\"r\",\"trimmed\":null}",
						at == sigs ? "" : ",", at, at, sweep ? "crash" : "failed",
						sweep ? "\"nth\":{\"min\":1,\"max\":1}," : "", date + 8,
						sweep ? ",\"nth\":{\"min\":1,\"max\":1}" : "");
		}
		len += (size_t)snprintf(json + len, sizeof(json) - len, "]");
	}
	snprintf(json + len, sizeof(json) - len, "}");
	cr_assert_eq(runfile_parse("night", json, &r, err, sizeof(err)), 0, "%s: %s", err, json);
	snprintf(key, sizeof(key), "%s/%s/%s", kind, name, date);
	r.key = strdup(key);
	r.date = strdup(date);
	r.git_rev = strdup(date + 8); /* a revision a night: the day */
	cr_assert_eq(store_add(s, &r, 1, &added, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(added, 1);
	runfile_free(&r);
}

#define A "aaaaaaaaaaaaaaaa"
#define B "bbbbbbbbbbbbbbbb"
#define C "cccccccccccccccc"
#define D "dddddddddddddddd"

/* A run's findings as "STATE:SIG[@SINCE_REV]" words, in order. */
static char *states(const struct findings_run *run)
{
	static char out[1024];
	size_t len = 0;

	out[0] = '\0';
	for (size_t i = 0; i < run->n; i++) {
		const struct judged_finding *f = &run->f[i];

		len += (size_t)snprintf(out + len, sizeof(out) - len, "%s%s:%.4s", i ? " " : "",
					finding_state_name(f->state), f->f.signature);
		if (f->since_rev)
			len += (size_t)snprintf(out + len, sizeof(out) - len, "@%.2s", f->since_rev);
	}
	return out;
}

static struct findings load(const char *glob)
{
	struct findings fs;

	cr_assert_eq(findings_load(s, glob, &fs), 0, "%s", store_error(s));
	return fs;
}

Test(findings, the_same_summary_two_nights_is_all_known_the_second)
{
	struct findings fs;

	night("campaign", "nightly", "2026-11-01T02:00:00Z", A " " B " " C);
	night("campaign", "nightly", "2026-11-02T02:00:00Z", A " " B " " C);
	fs = load(NULL);
	cr_assert_eq(fs.n, 2);
	cr_assert(fs.runs[0].recorded && fs.runs[1].recorded);
	cr_assert_str_eq(fs.runs[0].series, "campaign name=nightly host=h");
	cr_assert_str_eq(states(&fs.runs[0]), "new:aaaa new:bbbb new:cccc", "the first night: all new");
	cr_assert_eq(fs.runs[1].nnew, 0, "%s", states(&fs.runs[1]));
	cr_assert_eq(fs.runs[1].ngone, 0);
	cr_assert_eq(fs.runs[1].nknown, 3);
	cr_assert_str_eq(states(&fs.runs[1]), "known:aaaa@01 known:bbbb@01 known:cccc@01");
	findings_free(&fs);
}

Test(findings, one_more_is_new_one_less_is_gone)
{
	struct findings fs;
	const struct findings_run *third;

	night("campaign", "nightly", "2026-11-01T02:00:00Z", A " " B " " C);
	night("campaign", "nightly", "2026-11-02T02:00:00Z", A " " B " " C);
	night("campaign", "nightly", "2026-11-03T02:00:00Z", A " " D " " C);
	fs = load(NULL);
	cr_assert_eq(fs.n, 3);
	third = &fs.runs[2];
	cr_assert_str_eq(states(third), "new:dddd known:aaaa@01 known:cccc@01 gone:bbbb@02",
			 "new first, then known, then gone (last seen the night before)");
	cr_assert_eq(third->nnew, 1);
	cr_assert_eq(third->nknown, 2);
	cr_assert_eq(third->ngone, 1);
	cr_assert_str_eq(third->f[3].f.title, "finding " B, "a gone finding is described as it was");
	cr_assert_eq(findings_run_of(&fs, third->id), third);
	cr_assert_null(findings_run_of(&fs, 999));
	findings_free(&fs);
	/* back again after a night away: known (since its first night), not new */
	night("campaign", "nightly", "2026-11-04T02:00:00Z", A " " B);
	fs = load(NULL);
	cr_assert_str_eq(states(&fs.runs[3]), "known:aaaa@01 known:bbbb@01 gone:dddd@03 gone:cccc@03");
	findings_free(&fs);
}

/* A run's findings' contexts as "SIG:OPERATION" words, in order ("SIG:-" for none). */
static char *contexts(const struct findings_run *run)
{
	static char out[1024];
	size_t len = 0;

	out[0] = '\0';
	for (size_t i = 0; i < run->n; i++) {
		const struct run_finding *f = &run->f[i].f;

		len += (size_t)snprintf(out + len, sizeof(out) - len, "%s%.4s:%s", i ? " " : "",
					f->signature, f->ncontexts ? f->contexts[0].operation : "-");
	}
	return out;
}

Test(findings, contexts_are_read_from_the_stored_summaries_on_demand)
{
	struct findings fs;

	night("sweep", "/traces/desktop", "2026-11-01T02:00:00Z", A " " B);
	night("sweep", "/traces/desktop", "2026-11-02T02:00:00Z", A);
	fs = load(NULL);
	cr_assert_str_eq(contexts(&fs.runs[1]), "aaaa:- bbbb:-", "none until asked for");
	cr_assert_eq(findings_contexts(s, &fs, &fs.runs[1]), 0, "%s", store_error(s));
	cr_assert_str_eq(contexts(&fs.runs[1]), "aaaa:day02 bbbb:day01",
			 "a known finding's are its run's; a gone one's the run before's");
	cr_assert_eq(fs.runs[1].f[0].f.contexts[0].nth_max, 1, "a sweep's hits");
	cr_assert_str_eq(contexts(&fs.runs[0]), "aaaa:- bbbb:-", "only the run asked for");
	cr_assert_eq(findings_contexts(s, &fs, &fs.runs[1]), 0, "read once, asked twice");
	cr_assert_str_eq(contexts(&fs.runs[1]), "aaaa:day02 bbbb:day01");
	findings_free(&fs);
}

Test(findings, earlier_is_by_date_not_by_when_stored)
{
	struct findings fs;

	night("campaign", "nightly", "2026-11-02T02:00:00Z", A " " B);
	night("campaign", "nightly", "2026-11-01T02:00:00Z", A);
	fs = load(NULL);
	cr_assert_str_eq(fs.runs[0].date, "2026-11-01T02:00:00Z");
	cr_assert_str_eq(states(&fs.runs[0]), "new:aaaa");
	cr_assert_str_eq(states(&fs.runs[1]), "new:bbbb known:aaaa@01");
	findings_free(&fs);
}

Test(findings, series_are_apart_campaign_by_name_sweep_by_trace_and_scenario)
{
	struct findings fs;

	night("campaign", "nightly", "2026-11-01T02:00:00Z", A);
	night("campaign", "weekly", "2026-11-02T02:00:00Z", A);
	night("sweep", "/traces/desktop", "2026-11-03T02:00:00Z", A);
	night("sweep", "/traces/game", "2026-11-04T02:00:00Z", A);
	night("sweep", "/traces/desktop", "2026-11-05T02:00:00Z", A " " B);
	fs = load(NULL);
	cr_assert_eq(fs.n, 5);
	for (size_t i = 0; i < fs.n; i++) {
		const struct findings_run *r = &fs.runs[i];

		if (!strcmp(r->date, "2026-11-05T02:00:00Z")) {
			cr_assert_eq(r->kind, RUN_SWEEP);
			cr_assert_str_eq(r->series, "sweep trace=/traces/desktop scenario=/s.yaml host=h");
			cr_assert_str_eq(states(r), "new:bbbb known:aaaa@03");
		} else {
			cr_assert_str_eq(states(r), "new:aaaa", "%s: another series", r->series);
		}
	}
	findings_free(&fs);
	fs = load("sweep trace=/traces/game *");
	cr_assert_eq(fs.n, 1, "one series asked for");
	cr_assert_str_eq(fs.runs[0].series, "sweep trace=/traces/game scenario=/s.yaml host=h");
	findings_free(&fs);
}

Test(findings, a_summary_without_findings_says_nothing)
{
	struct findings fs;

	night("campaign", "nightly", "2026-11-01T02:00:00Z", A " " B);
	night("campaign", "nightly", "2026-11-02T02:00:00Z", NULL);
	night("campaign", "nightly", "2026-11-03T02:00:00Z", A);
	night("campaign", "nightly", "2026-11-04T02:00:00Z", "");
	fs = load(NULL);
	cr_assert_eq(fs.n, 4);
	cr_assert_not(fs.runs[1].recorded, "an old summary: nothing known");
	cr_assert_eq(fs.runs[1].n, 0);
	cr_assert_str_eq(states(&fs.runs[2]), "known:aaaa@01",
			 "nothing is gone after a night that said nothing");
	cr_assert(fs.runs[3].recorded, "an empty list: none found");
	cr_assert_str_eq(states(&fs.runs[3]), "gone:aaaa@03");
	findings_free(&fs);
}
