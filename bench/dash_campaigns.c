/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/array.h"
#include "dash_internal.h"

/*
 * The dashboard's page of campaigns and sweeps, campaigns.html: the latest
 * of them, most recent first, each with its findings (new, known or gone
 * since the run before, findings.h) and then, on demand, its failing runs;
 * read from the JSON the store keeps of each run.
 */

int dash_list_run(const struct store_run *run, void *ctx)
{
	struct dash_run_list *l = ctx;
	struct dash_run_ref *r;

	if (array_reserve(&l->r, &l->cap, l->n, sizeof(*l->r)))
		return -ENOMEM;
	r = &l->r[l->n++];
	r->id = run->id;
	snprintf(r->kind, sizeof(r->kind), "%s", run->kind);
	snprintf(r->rev, sizeof(r->rev), "%s", run->git_rev ? run->git_rev : "?");
	snprintf(r->date, sizeof(r->date), "%s", run->date ? run->date : "");
	return 0;
}

static void failures_table(FILE *f, const struct run_record *rec, bool sweep)
{
	if (!rec->nfailures) {
		fprintf(f, "<p class=\"good\">No failing run.</p>\n");
		return;
	}
	fprintf(f, "<table><tr><th>%s</th><th>%s</th><th>reproduce</th></tr>\n", sweep ? "point, hit" : "run",
		sweep ? "outcome" : "reason");
	for (size_t i = 0; i < rec->nfailures; i++) {
		const struct run_failure *fl = &rec->failures[i];

		fprintf(f, "<tr class=\"bad\"><td>");
		dash_esc(f, fl->what);
		fprintf(f, "</td><td>");
		dash_esc(f, fl->why);
		fprintf(f, "</td><td style=\"text-align:left\"><code>");
		dash_esc(f, fl->reproduce);
		fprintf(f, "</code></td></tr>\n");
	}
	fprintf(f, "</table>\n");
}

/*
 * For tests in a real browser: how many findings' state badges there are,
 * and how many have a non-empty box (are shown) once laid out.
 */
static const char badges_script[] =
	"<script>(function(){var b=document.querySelectorAll('tr.finding .badge'),s=0;"
	"b.forEach(function(e){var r=e.getBoundingClientRect();if(r.width>0&&r.height>0)s++;});"
	"document.body.setAttribute('data-badges',b.length);"
	"document.body.setAttribute('data-badges-shown',s);})();</script>";

static void badge(FILE *f, enum finding_state state)
{
	fprintf(f, "<span class=\"badge %s\">%s</span>", finding_state_name(state),
		finding_state_name(state));
}

/* One finding: its state, what it is, who is to blame, how many runs, how to reproduce it. */
static void finding_row(const struct site *st, FILE *f, const struct judged_finding *fd, bool sweep)
{
	const struct run_finding *r = &fd->f;

	fprintf(f, "<tr class=\"finding %s\" data-signature=\"", finding_state_name(fd->state));
	dash_esc(f, r->signature);
	fprintf(f, "\" data-state=\"%s\"><td class=\"l\">", finding_state_name(fd->state));
	badge(f, fd->state);
	if (fd->state != FINDING_NEW) {
		fprintf(f, "<br><small>%s ", fd->state == FINDING_KNOWN ? "since" : "last in");
		if (fd->since_rev)
			dash_rev_cell(st, f, fd->since_rev);
		else
			dash_esc(f, fd->since_date);
		fprintf(f, "</small>");
	}
	fprintf(f, "</td><td class=\"l\"><a href=\"finding-");
	dash_esc(f, r->signature);
	fprintf(f, ".html\">");
	dash_esc(f, r->title);
	fprintf(f, "</a><br><small><code>");
	dash_esc(f, r->signature);
	fprintf(f, "</code> ");
	dash_esc(f, r->outcome);
	if (r->invariants && *r->invariants) {
		fprintf(f, "; broke ");
		dash_esc(f, r->invariants);
	}
	fprintf(f, "</small></td><td class=\"l\">");
	dash_esc(f, r->blame);
	fprintf(f, "</td><td>%lld</td>", r->runs);
	if (sweep)
		fprintf(f, "<td>%lld&ndash;%lld</td>", r->nth_min, r->nth_max);
	fprintf(f, "<td class=\"l\"><code>");
	dash_esc(f, r->reproduce);
	fprintf(f, "</code></td><td class=\"l\">");
	if (r->trimmed) {
		fprintf(f, "<code>");
		dash_esc(f, r->trimmed);
		fprintf(f, "</code><br><small>%lld of %lld events</small>", r->trimmed_events,
			r->trimmed_of);
	} else {
		fprintf(f, "&ndash;");
	}
	fprintf(f, "</td></tr>\n");
}

/* The findings of a campaign or sweep run (new, known, then gone), or why there are none. */
static void findings_table(const struct site *st, FILE *f, const struct findings_run *run,
			   bool sweep)
{
	if (!run || !run->recorded) {
		fprintf(f, "<p class=\"nofindings\">No findings recorded: this summary was written "
			   "before campaigns and sweeps grouped their failing runs into findings, so "
			   "nothing is known of them (not that there are none). Its failing runs are "
			   "below.</p>\n");
		return;
	}
	if (!run->nnew && !run->nknown)
		fprintf(f, "<p class=\"good\">No findings.</p>\n");
	else
		fprintf(f, "<p>%zu finding%s: <span class=\"%s\">%zu new</span>, %zu known.",
			run->nnew + run->nknown, run->nnew + run->nknown == 1 ? "" : "s",
			run->nnew ? "bad" : "", run->nnew, run->nknown);
	if (run->ngone)
		fprintf(f, "%s<span class=\"good\">%zu gone</span> since the run before.",
			run->nnew || run->nknown ? " " : "<p>", run->ngone);
	if (run->nnew || run->nknown || run->ngone)
		fprintf(f, "</p>\n");
	if (!run->n)
		return;
	fprintf(f, "<table class=\"findings\"><tr><th class=\"l\">state</th><th class=\"l\">finding</th>"
		   "<th class=\"l\">blame</th><th>runs</th>%s<th class=\"l\">reproduce</th>"
		   "<th class=\"l\">trimmed trace</th></tr>\n",
		sweep ? "<th>hits failed</th>" : "");
	for (size_t i = 0; i < run->n; i++)
		finding_row(st, f, &run->f[i], sweep);
	fprintf(f, "</table>\n");
}

int dash_campaigns_page(struct site *st, const struct dash_run_list *l)
{
	struct page p;
	size_t shown = 0;
	int rc = dash_page_open(&p, st->dir, "campaigns.html", "campaigns and sweeps", "");

	if (rc)
		return rc;
	fprintf(p.file.f, "<p>The latest campaigns and sweeps, most recent first. Each lists its "
		     "findings first (its failing runs grouped by what broke, one signature each): ");
	badge(p.file.f, FINDING_NEW);
	fprintf(p.file.f, " when no earlier run of its series (a campaign by name, a sweep by trace "
		     "and scenario, on one host) had it, ");
	badge(p.file.f, FINDING_KNOWN);
	fprintf(p.file.f, " when one did, ");
	badge(p.file.f, FINDING_GONE);
	fprintf(p.file.f, " when the run before had it and this one does not. Its failing runs "
		     "follow, on demand.</p>\n");
	for (size_t i = l->n; i-- > 0 && shown < DASH_RUNS_LISTED;) {
		const struct dash_run_ref *r = &l->r[i];
		bool sweep = !strcmp(r->kind, "sweep");
		const struct findings_run *run;
		struct run_record rec;
		char *json = NULL, why[256];

		if (!sweep && strcmp(r->kind, "campaign"))
			continue;
		shown++;
		/* a store edited by hand may hold what does not read */
		if (store_run_json(st->s, r->id, &json) ||
		    runfile_parse("stored run", json, &rec, why, sizeof(why))) {
			fprintf(p.file.f, "<h2>%s</h2>\n<p class=\"bad\">%s, revision <code>", r->kind, r->date);
			dash_esc(p.file.f, r->rev);
			fprintf(p.file.f, "</code>: its stored JSON does not read (the store was edited?)</p>\n");
			free(json);
			continue;
		}
		free(json);
		fprintf(p.file.f, "<h2>%s ", sweep ? "sweep" : "campaign");
		dash_esc(p.file.f, sweep ? rec.trace : rec.campaign);
		fprintf(p.file.f, "</h2>\n<p>%s, revision <code>", r->date);
		dash_esc(p.file.f, r->rev);
		if (sweep)
			fprintf(p.file.f, "</code>, baseline %s</p>\n", rec.baseline ? rec.baseline : "?");
		else
			fprintf(p.file.f, "</code>: %.0f runs, <span class=\"good\">%.0f passed</span>, "
				     "<span class=\"%s\">%.0f failed</span></p>\n",
				runfile_value(&rec, "campaign.runs"), runfile_value(&rec, "campaign.passed"),
				runfile_value(&rec, "campaign.failed") > 0 ? "bad" : "good",
				runfile_value(&rec, "campaign.failed"));
		run = findings_run_of(&st->findings, r->id);
		findings_table(st, p.file.f, run, sweep);
		fprintf(p.file.f, "<details%s><summary>%zu failing %s%s</summary>\n",
			run && run->recorded ? "" : " open", rec.nfailures, sweep ? "hit" : "run",
			rec.nfailures == 1 ? "" : "s");
		failures_table(p.file.f, &rec, sweep);
		fprintf(p.file.f, "</details>\n");
		runfile_free(&rec);
	}
	if (!shown)
		fprintf(p.file.f, "<p>No campaign or sweep stored yet.</p>\n");
	fprintf(p.file.f, "%s\n", badges_script);
	rc = dash_page_close(&p);
	st->pages += !rc;
	return rc;
}
