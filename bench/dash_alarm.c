/* SPDX-License-Identifier: MIT */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/digest.h"
#include "changes.h"
#include "dash_internal.h"

/*
 * Changes on the dashboard: a change as a table cell (how much, which way;
 * red or green where it is claimed), tables of changes (a series' own, the
 * overview's acknowledged ones and those of one alarm's cause), and the
 * alarms grouped by cause, each row with an id other pages link.
 */

/* A relative change, with an arrow; red or green only where it is a claimed change of @sr. */
void dash_change_cell(FILE *f, const struct series *sr, double from, double to,
		      const struct history_change *c)
{
	const char *cls = !c || !history_change_claims(sr, c) ? ""
			  : c->verdict == COMPARE_REGRESSED		  ? "bad"
			  : c->verdict == COMPARE_IMPROVED		  ? "good" : "";
	const char *arrow = to > from ? "&#9650; " : to < from ? "&#9660; " : "";

	char delta[64];

	fprintf(f, "<td class=\"%s\">%s", cls, arrow);
	dash_fmt_value(delta, sizeof(delta), fabs(to - from));
	if (to == from)
		fprintf(f, "unchanged</td>");
	else if (from && fabs(100 * (to - from) / from) >= 0.05)
		fprintf(f, "%+.1f%%</td>", 100 * (to - from) / fabs(from));
	else if (from)
		/* a relative change that rounds to zero says nothing: the absolute one, and its unit */
		fprintf(f, "%s%s %s (%+.2g%%)</td>", to < from ? "-" : "+", delta, sr->unit,
			100 * (to - from) / fabs(from));
	else
		fprintf(f, "%s</td>", to ? "from 0" : "+0.0%");
}

/* Why a change happened, as far as known: inputs changed, the machine, an acknowledgement. */
static void why_cell(FILE *f, const struct series *sr, const struct history_change *c)
{
	const char *sep = "";

	fprintf(f, "<td class=\"l\">");
	if (sr->revs[c->at].changed) {
		fprintf(f, "input changed: ");
		dash_esc(f, sr->revs[c->at].changed);
		sep = "; ";
	}
	if (c->machine) {
		fputs(sep, f);
		dash_esc(f, change_cause(sr, c));
		sep = "; ";
	}
	if (c->ack_note) {
		fprintf(f, "%sacknowledged: ", sep);
		dash_esc(f, c->ack_note);
	}
	fprintf(f, "</td>");
}

/*
 * A table of changes: each with the series' benchmark and metric, or of
 * one series. The overview's: the alarms of one cause (@cause, a series of
 * it), or the acknowledged changes (@acked).
 */
void dash_changes_table(const struct site *st, FILE *f, const struct series *only, bool acked,
			const struct series *cause)
{
	fprintf(f, "<table><tr>%s<th>last good</th><th>first bad</th><th>before</th><th>after</th>"
		   "<th>change</th><th>test</th><th class=\"l\">why</th></tr>\n",
		only ? "" : "<th class=\"l\">benchmark</th><th class=\"l\">metric</th>");
	for (size_t i = 0; i < st->h.n; i++) {
		const struct series *sr = &st->h.s[i];

		if (only && sr != only)
			continue;
		for (size_t k = 0; k < sr->nchanges; k++) {
			const struct history_change *c = &sr->changes[k];
			bool alarm = sr->alarm && k + 1 == sr->nchanges;
			char test[96], before[64], after[64];

			/* the overview: alarms of a cause, or acknowledged changes; a series page: all */
			if (!only && (acked ? !c->ack_note : !alarm || !dash_same_cause(sr, cause)))
				continue;
			fprintf(f, "<tr class=\"%s\">", alarm ? "bad" : "");
			if (!only) {
				dash_benchmark_cell(f, sr->benchmark);
				dash_series_cell(f, sr);
			}
			fprintf(f, "<td>");
			dash_rev_cell(st, f, sr->revs[c->at - 1].rev);
			fprintf(f, "</td><td>");
			dash_rev_cell(st, f, sr->revs[c->at].rev);
			dash_fmt_value(before, sizeof(before), c->before);
			dash_fmt_value(after, sizeof(after), c->after);
			fprintf(f, "</td><td>%s</td><td>%s</td>", before, after);
			dash_change_cell(f, sr, c->before, c->after, c);
			fprintf(f, "<td>");
			dash_esc(f, change_label(sr, c, test, sizeof(test)));
			fprintf(f, "</td>");
			why_cell(f, sr, c);
			fprintf(f, "</tr>\n");
		}
	}
	fprintf(f, "</table>\n");
}

const struct history_change *dash_alarm_of(const struct series *sr)
{
	return sr->alarm ? &sr->changes[sr->nchanges - 1] : NULL;
}

/* Alarms of one cause at one revision are one row of the overview. */
void dash_cause_of(const struct series *sr, char *buf, size_t len)
{
	const struct history_change *c = dash_alarm_of(sr);

	if (sr->revs[c->at].changed)
		snprintf(buf, len, "input changed: %s", sr->revs[c->at].changed);
	else if (c->machine)
		snprintf(buf, len, "%s", change_cause(sr, c));
	else
		snprintf(buf, len, "%s", sr->exact ? "the code changed" : "measured changes of level");
}

bool dash_same_cause(const struct series *a, const struct series *b)
{
	const struct history_change *ca = dash_alarm_of(a), *cb = dash_alarm_of(b);
	char x[512], y[512];

	if (!ca || !cb || strcmp(a->revs[ca->at].rev, b->revs[cb->at].rev))
		return false;
	dash_cause_of(a, x, sizeof(x));
	dash_cause_of(b, y, sizeof(y));
	return !strcmp(x, y);
}

bool dash_alarm_head(const struct site *st, size_t i)
{
	const struct series *sr = &st->h.s[i];
	size_t k;

	for (k = 0; dash_alarm_of(sr) && k < i && !dash_same_cause(&st->h.s[k], sr); k++)
		;
	return dash_alarm_of(sr) && k == i;
}

void dash_alarm_id(const struct series *sr, char *buf, size_t len)
{
	char cause[512], rev[64];

	dash_cause_of(sr, cause, sizeof(cause));
	dash_slug(rev, sizeof(rev), sr->revs[dash_alarm_of(sr)->at].rev);
	snprintf(buf, len, "alarm-%s-%08llx", rev,
		 (unsigned long long)(digest_bytes(cause, strlen(cause)) & 0xffffffffu));
}

/*
 * The alarms, one row per cause (an input changed, the code, measured
 * changes, each at a revision; its id from dash_alarm_id()): how many
 * series moved and the worst change, the findings new at its revision,
 * the series themselves behind it (<details>).
 */
void dash_alarm_causes(const struct site *st, FILE *f)
{
	fprintf(f, "<table><tr><th class=\"l\">cause</th><th>first bad</th><th>series</th>"
		   "<th>worst</th><th class=\"l\">benchmarks</th></tr>\n");
	for (size_t i = 0; i < st->h.n; i++) {
		const struct series *sr = &st->h.s[i], *worst = sr;
		const char *bench = NULL;
		char cause[512], label[160], id[96];
		size_t n = 0, nbench = 0;

		if (!dash_alarm_head(st, i))
			continue; /* no alarm, or its cause was said at its first series */
		for (size_t k = i; k < st->h.n; k++) {
			const struct series *o = &st->h.s[k];

			if (!dash_same_cause(o, sr))
				continue;
			n++;
			/* series come benchmark by benchmark */
			nbench += !bench || strcmp(bench, o->benchmark);
			bench = o->benchmark;
			if (fabs(dash_alarm_of(o)->change) > fabs(dash_alarm_of(worst)->change))
				worst = o;
		}
		dash_cause_of(sr, cause, sizeof(cause));
		dash_alarm_id(sr, id, sizeof(id));
		fprintf(f, "<tr class=\"bad\" id=\"%s\"><td class=\"l\">", id);
		dash_esc(f, cause);
		fprintf(f, "</td><td>");
		dash_rev_cell(st, f, sr->revs[dash_alarm_of(sr)->at].rev);
		fprintf(f, "</td><td>%zu</td>", n);
		dash_change_cell(f, worst, dash_alarm_of(worst)->before, dash_alarm_of(worst)->after,
				 dash_alarm_of(worst));
		dash_bench_label(label, sizeof(label), worst->benchmark);
		fprintf(f, "<td class=\"l\">%zu benchmark%s; the worst: <span title=\"", nbench,
			nbench == 1 ? "" : "s");
		dash_esc(f, worst->benchmark);
		fprintf(f, "\">");
		dash_esc(f, label);
		fprintf(f, "</span> ");
		dash_esc(f, worst->metric);
		fprintf(f, "</td></tr>\n<tr><td colspan=\"5\" class=\"l\">");
		dash_alarm_findings(st, f, i);
		fprintf(f, "<details><summary>the %zu series</summary>\n", n);
		dash_changes_table(st, f, NULL, false, sr);
		fprintf(f, "</details></td></tr>\n");
	}
	fprintf(f, "</table>\n");
}
