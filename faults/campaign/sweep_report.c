/* SPDX-License-Identifier: MIT */
/*
 * A sweep's report, once every run has ended and been booked (sweep.c).
 * The failing runs, sorted so that both modes write the same files, are
 * grouped into findings (finding.h). Each finding's first run (its
 * smallest nth) is trimmed to a reproducer on a trace of its own
 * (OUT/findings/SIGNATURE/trace, finding_trim.h), each in a child of the
 * pool; a finding that could not be trimmed is reproduced on the whole
 * trace. Then OUT/summary.json (gpuiso-sweep/1),
 * OUT/summary.txt, and the command's lines: a line per finding and the
 * points no run reached.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/atomic_file.h"
#include "common/host.h"
#include "common/json.h"
#include "faults/campaign/finding.h"
#include "faults/campaign/sweep_internal.h"
#include "replay/command.h"
#include "replay/replay.h"
#include "replay/trim.h"
#include "replay/verdict.h"

const char *const sweep_outcome_names[SWEEP_NOUTCOMES] = {
	[SWEEP_RECOVERED] = "recovered",
	[SWEEP_RESET] = "reset",
	[SWEEP_VIOLATION] = "violation",
	[SWEEP_CRASH] = "crash",
	[SWEEP_HUNG] = "hung",
};

static int cmp_failure(const void *a, const void *b)
{
	const struct sweep_failure *x = a, *y = b;

	if (x->point != y->point)
		return x->point < y->point ? -1 : 1;
	return x->nth < y->nth ? -1 : x->nth > y->nth;
}

/* The command that reproduces @f, in *@out (malloc'ed): 0 or -ENOMEM. */
static int reproducer(const struct sweep *s, const struct sweep_failure *f, char **out)
{
	const struct replay_command c = {
		.program = s->o->program, .trace = s->trace, .maps = (const char *const *)s->maps, .nmaps = s->o->nmaps,
		.scenario = s->scenario, .faults = s->faults, .covers = s->o->covers, .fail = true,
		.point = f->point, .nth = f->nth,
	};

	return replay_command(&c, out);
}

static void summary_fill(struct json *j, const void *ctx)
{
	const struct sweep *s = ctx;
	char host[256];

	json_obj_begin(j, NULL);
	json_str(j, "schema", "gpuiso-sweep/1");
	results_build_json(j);
	json_str(j, "trace", s->trace);
	json_arr_begin(j, "maps");
	for (size_t i = 0; i < s->o->nmaps; i++)
		json_str(j, NULL, s->maps[i]);
	json_arr_end(j);
	json_str(j, "scenario", s->scenario);
	json_str(j, "faults", s->faults);
	json_str(j, "trace_covers", trace_covers_name(s->o->covers));
	json_str(j, "host", host_name(host, sizeof(host)));
	json_obj_begin(j, "inputs");
	json_input(j, s->trace);
	json_input(j, s->scenario);
	if (s->faults)
		json_input(j, s->faults);
	for (size_t i = 0; i < s->o->nmaps; i++)
		json_input(j, s->maps[i]);
	json_obj_end(j);
	/* what the trace gave the runs: a foreign trace's through its maps */
	json_obj_begin(j, "events");
	json_u64(j, "total", s->events.total);
	json_u64(j, "used", s->events.used);
	json_u64(j, "ignored", s->events.ignored);
	json_u64(j, "unmatched", s->events.unmatched);
	json_obj_end(j);
	json_str(j, "baseline", sweep_outcome_names[s->baseline]);
	json_obj_begin(j, "points");
	for (int p = 0; p < FP_NPOINTS; p++) {
		if (!s->selected[p])
			continue;
		json_obj_begin(j, fp_point_name(p));
		json_u64(j, "hits", s->hits[p]);
		for (int oc = 0; oc < SWEEP_NOUTCOMES; oc++)
			json_u64(j, sweep_outcome_names[oc], s->outcomes[p][oc]);
		json_obj_end(j);
	}
	json_obj_end(j);
	/* what was not tested, and what would test it */
	json_arr_begin(j, "unreached");
	for (int p = 0; p < FP_NPOINTS; p++) {
		if (!s->selected[p] || s->hits[p])
			continue;
		json_obj_begin(j, NULL);
		json_str(j, "point", fp_point_name(p));
		json_str(j, "hint", fp_point_reach(p));
		json_obj_end(j);
	}
	json_arr_end(j);
	json_arr_begin(j, "findings");
	for (size_t i = 0; i < s->findings.n; i++) {
		const struct finding_repro *r = &s->repro[i];

		finding_json(j, &s->findings.v[i], true, r->cmd, r->trimmed ? &r->trim : NULL, r->whole);
	}
	json_arr_end(j);
	json_arr_begin(j, "failures");
	for (size_t i = 0; i < s->nfailures; i++) {
		const struct sweep_failure *f = &s->failures[i];
		const struct sweep_hit *w = &s->where[f->point][f->nth - 1];
		char *repro = NULL;

		reproducer(s, f, &repro); /* out of memory: null, not a command cut short */
		json_obj_begin(j, NULL);
		json_str(j, "point", fp_point_name(f->point));
		json_u64(j, "nth", f->nth);
		json_str(j, "outcome", sweep_outcome_names[f->outcome]);
		json_str(j, "reproduce", repro);
		json_obj_begin(j, "injected");
		json_u64(j, "event", w->event);
		json_u64(j, "ts_ns", w->ts);
		json_str(j, "operation", w->op);
		json_str(j, "site", w->site);
		json_obj_end(j);
		if (f->has_verdict)
			finding_verdict_json(j, &f->verdict);
		json_obj_end(j);
		free(repro);
	}
	json_arr_end(j);
	json_obj_end(j);
}

/* Group the failures (sorted) into findings: the first run of each is its smallest nth. */
static int findings_build(struct sweep *s)
{
	for (size_t i = 0; i < s->nfailures; i++) {
		const struct sweep_failure *f = &s->failures[i];
		const struct finding_run r = {
			.point = fp_point_name(f->point),
			.op = s->where[f->point][f->nth - 1].op,
			.outcome = sweep_outcome_names[f->outcome],
			.verdict = f->has_verdict ? &f->verdict : NULL,
		};
		int rc = finding_add(&s->findings, &r, f->nth, i);

		if (rc)
			return rc;
	}
	return 0;
}

/* The selected points no run reached, with what would reach them, after @head. */
static void unreached_text(const struct sweep *s, FILE *f, const char *head)
{
	for (int p = 0; p < FP_NPOINTS; p++) {
		if (!s->selected[p] || s->hits[p])
			continue;
		fprintf(f, "%s  %s: reached by %s\n", head, fp_point_name(p), fp_point_reach(p));
		head = "";
	}
}

/*
 * OUT/summary.txt: the findings first, one line each with its runs and its
 * reproducer, then every failing run with what it found first.
 */
static void summary_text(const struct sweep *s, FILE *f)
{
	fprintf(f, "sweep of %s", s->trace);
	for (size_t i = 0; i < s->o->nmaps; i++)
		fprintf(f, "%s%s", i ? ", " : " through the maps ", s->maps[i]);
	fprintf(f, ": %llu runs, %zu not recovered, %zu finding%s\n", (unsigned long long)s->ended,
		s->nfailures, s->findings.n, s->findings.n == 1 ? "" : "s");
	for (size_t i = 0; i < s->findings.n; i++) {
		const struct finding *fd = &s->findings.v[i];

		if (finding_section(&s->findings, i))
			fprintf(f, "\n%s\n", finding_section(&s->findings, i));
		fprintf(f, "\n%zu. %s\n   blame: %s; %llu run%s, nth %llu..%llu\n", i + 1, fd->title,
			finding_blame_name(fd->blame), (unsigned long long)fd->runs,
			fd->runs == 1 ? "" : "s", (unsigned long long)fd->nth_min,
			(unsigned long long)fd->nth_max);
		finding_contexts_text(f, fd, true);
		finding_repro_text(f, &s->repro[i]);
	}
	unreached_text(s, f, "\nnot reached, so not tested:\n");
	if (s->nfailures)
		fputs("\nruns not recovered (point:nth, outcome, injected at event (operation, site), first finding):\n", f);
	for (size_t i = 0; i < s->nfailures; i++) {
		const struct sweep_failure *fl = &s->failures[i];
		const struct sweep_hit *w = &s->where[fl->point][fl->nth - 1];

		fprintf(f, "%s:%llu  %s  event %llu at %llu ns (%s, %s)", fp_point_name(fl->point),
			(unsigned long long)fl->nth, sweep_outcome_names[fl->outcome],
			(unsigned long long)w->event, (unsigned long long)w->ts, w->op ? w->op : "start",
			w->site ? w->site : "?");
		if (fl->has_verdict && fl->verdict.kept)
			fprintf(f, "  %s at event %llu%s: %s", fl->verdict.findings[0].code,
				(unsigned long long)fl->verdict.findings[0].event,
				fl->verdict.findings[0].at_teardown ? " (teardown)" : "",
				fl->verdict.findings[0].detail);
		fputc('\n', f);
	}
}

/* Finding @i's trimming (finding_trimmer.opts): from its first run, the smallest nth. */
static void trim_opts_fill(void *arg, size_t i, struct trim_opts *to)
{
	const struct sweep *s = arg;
	const struct sweep_failure *f = &s->failures[s->findings.v[i].first];

	*to = (struct trim_opts){
		.trace = s->trace, .scn = &s->scn, .scenario_path = s->scenario,
		.program = s->o->program, .maps = (const char *const *)s->maps, .nmaps = s->o->nmaps,
		.covers = s->o->covers, .cache = !s->uncacheable,
		.base = s->faults ? &s->base : NULL, .base_path = s->faults,
		.fail = true, .point = f->point, .nth = f->nth,
	};
}

/* Each finding's reproducer: on the whole trace, then trimmed (OUT/findings, made anew). */
static int findings_reproduce(struct sweep *s)
{
	struct finding_trimmer ft = {
		.findings = &s->findings, .pool = &s->pool, .out = s->out, .who = "sweep",
		.progress = s->o->progress, .exit_error = SWEEP_EXIT_ERROR, .opts = trim_opts_fill,
		.arg = s,
	};

	s->repro = calloc(s->findings.n ? s->findings.n : 1, sizeof(*s->repro));
	if (!s->repro)
		return -ENOMEM;
	for (size_t i = 0; i < s->findings.n; i++) {
		const struct sweep_failure *f = &s->failures[s->findings.v[i].first];

		reproducer(s, f, &s->repro[i].whole);
		if (!f->has_verdict)
			snprintf(s->repro[i].why, sizeof(s->repro[i].why), "not trimmed: its run %s",
				 f->outcome == SWEEP_HUNG ? "hung" : "crashed, or said nothing");
	}
	ft.repro = s->repro;
	return finding_trim_all(&ft, s->err, s->errlen);
}

int sweep_summary_write(struct sweep *s)
{
	struct atomic_file af;
	char path[4096];
	int rc;

	/* runs end in any order: sort so both modes write the same file */
	if (s->nfailures)
		qsort(s->failures, s->nfailures, sizeof(*s->failures), cmp_failure);
	rc = findings_build(s);
	if (!rc && s->findings.n)
		qsort(s->findings.v, s->findings.n, sizeof(*s->findings.v), finding_cmp);
	if (!rc)
		rc = findings_reproduce(s);
	if (rc)
		return rc;
	if ((size_t)snprintf(path, sizeof(path), "%s/summary.json", s->o->out) >= sizeof(path)) {
		snprintf(s->err, s->errlen, "sweep: output folder name too long");
		return -EINVAL;
	}
	rc = json_write_file(path, summary_fill, s);
	if (!rc) {
		snprintf(path, sizeof(path), "%s/summary.txt", s->o->out);
		rc = atomic_file_open(&af, path);
		if (!rc) {
			summary_text(s, af.f);
			rc = atomic_file_commit(&af);
		}
	}
	if (rc)
		snprintf(s->err, s->errlen, "sweep: writing %s: %s", path, strerror(-rc));
	return rc;
}

void sweep_report_findings(const struct sweep *s, FILE *f)
{
	for (size_t i = 0; i < s->findings.n; i++) {
		const struct finding *fd = &s->findings.v[i];

		fprintf(f, "finding %zu: %s [%s; %llu run%s]\n", i + 1, fd->title,
			finding_blame_name(fd->blame), (unsigned long long)fd->runs,
			fd->runs == 1 ? "" : "s");
	}
	unreached_text(s, f, "not reached, so not tested:\n");
}
