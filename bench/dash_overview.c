/* SPDX-License-Identifier: MIT */
#include <fnmatch.h>
#include <stdio.h>
#include <string.h>

#include "dash_internal.h"

/*
 * The dashboard's overview, index.html: the alarms by cause, the
 * acknowledged changes, then the main series of every benchmark (the
 * headline metrics), with a box that filters them.
 */

/* The metrics the overview shows (every series keeps its page). */
static bool headline(const char *name)
{
	static const char *const globs[] = {
		"ops.*.latency_ns.p50", "ops.*.latency_ns.p99", "ops.*.modeled_ns.p99", "ops.*.errors",
		"power.*", "invariants.*", "faults.*", "campaign.*", "sweep.*",
	};

	if (strncmp(name, "ops.", 4) && strncmp(name, "power.", 6) && strncmp(name, "invariants.", 11) &&
	    strncmp(name, "faults.", 7))
		return true; /* benchmarks */
	for (size_t i = 0; i < sizeof(globs) / sizeof(globs[0]); i++)
		if (!fnmatch(globs[i], name, 0))
			return !strstr(name, "time_to_complete") || strstr(name, "p99");
	return false;
}

/*
 * Finding a series among many: words that must all be in its benchmark or
 * metric, and a metric family; "N of M series" says how many are shown.
 * index.html#filter=WORDS opens it filtered. Without JavaScript: nothing
 * is hidden.
 */
static const char filter_box[] =
	"<p class=\"filter\"><input id=\"filter\" type=\"search\" size=\"40\" "
	"placeholder=\"filter: words of a benchmark or metric (game p99)\"> <select id=\"family\">"
	"<option value=\"\">every metric</option><option value=\"ops.\">operations</option>"
	"<option value=\"power.\">power</option><option value=\"invariants.\">invariants</option>"
	"<option value=\"faults.\">faults</option><option value=\"campaign.\">campaigns</option>"
	"<option value=\"sweep.\">sweeps</option></select> <span id=\"shown\"></span></p>\n"
	"<script>window.addEventListener('DOMContentLoaded',function(){"
	"var f=document.getElementById('filter'),g=document.getElementById('family'),"
	"s=document.getElementById('shown'),rows=[].slice.call(document.querySelectorAll('tr[data-metric]'));"
	"function apply(){var w=f.value.toLowerCase().split(/\\s+/).filter(Boolean),m=g.value,n=0;"
	"rows.forEach(function(r){var t=(r.getAttribute('data-benchmark')+' '+r.getAttribute('data-metric')).toLowerCase(),"
	"ok=w.every(function(x){return t.indexOf(x)>=0;})&&r.getAttribute('data-metric').indexOf(m)==0;"
	"r.style.display=ok?'':'none';n+=ok?1:0;});s.textContent=n+' of '+rows.length+' series';"
	"document.body.setAttribute('data-shown',n);}"
	"var h=decodeURIComponent(location.hash.slice(1));if(h.indexOf('filter=')==0)f.value=h.slice(7);"
	"f.addEventListener('input',apply);g.addEventListener('change',apply);apply();});</script>\n";

int dash_overview_page(struct site *st)
{
	size_t alarms = history_alarms(&st->h), acked = 0;
	char head[96];
	struct page p;
	int rc;

	snprintf(head, sizeof(head), "<meta name=\"gpuiso-regressions\" content=\"%zu\">", alarms);
	rc = dash_page_open(&p, st->dir, "index.html", "performance overview", head);
	if (rc)
		return rc;
	for (size_t i = 0; i < st->h.n; i++)
		for (size_t k = 0; k < st->h.s[i].nchanges; k++)
			acked += st->h.s[i].changes[k].ack_note != NULL;
	fprintf(p.file.f, "<p>Each series is one metric of one benchmark (what was run, with which "
		     "inputs, on which host), one value per revision: the median of its runs. Exact "
		     "metrics (modeled time, counts, checks) change wherever a revision differs from "
		     "the one before; measured ones (wall clock) where E-divisive means finds a change "
		     "of level of at least %.0f%%. An alarm is a series whose last change made it "
		     "worse and was not acknowledged (<code>gpuiso ack</code>).</p>\n",
		100 * st->o->history.threshold);
	if (!st->h.n)
		fprintf(p.file.f, "<p>The store holds no runs yet: <code>gpuiso store add DB RESULTS.json</code>.</p>\n");
	else if (alarms)
		fprintf(p.file.f, "<div class=\"banner bad\">&#9650; %zu series got worse (unacknowledged)</div>\n",
			alarms);
	else
		fprintf(p.file.f, "<div class=\"banner good\">No regression: no series got worse unacknowledged</div>\n");
	if (alarms) {
		fprintf(p.file.f, "<h2>Alarms, by cause</h2>\n");
		dash_alarm_causes(st, p.file.f);
	}
	if (acked) {
		fprintf(p.file.f, "<h2>Acknowledged changes</h2>\n");
		dash_changes_table(st, p.file.f, NULL, true, NULL);
	}
	fprintf(p.file.f, "<h2>Series by benchmark</h2>\n%s<table><tr><th class=\"l\">benchmark</th>%s",
		filter_box, dash_series_head);
	for (size_t i = 0; !rc && i < st->h.n; i++) {
		const struct series *sr = &st->h.s[i];

		if (headline(sr->metric) && sr->nrevs)
			rc = dash_series_row(&p, sr, true);
	}
	fprintf(p.file.f, "</table>\n");
	rc = dash_page_close(&p) ?: rc;
	st->pages += !rc;
	return rc;
}
