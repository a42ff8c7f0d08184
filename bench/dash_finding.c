/* SPDX-License-Identifier: MIT */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/atomic_file.h"
#include "dash_internal.h"

/*
 * The dashboard's page of each finding (finding-SIGNATURE.html), and the
 * links between findings and the alarms of the overview: a finding that
 * appeared (new) at a revision where an alarm was raised may be its
 * cause, or its symptom.
 */

/* @path's content (at most @max bytes, NUL-terminated; free() it), or NULL. */
static char *file_text(const char *path, size_t max)
{
	FILE *f = fopen(path, "rb");
	char *buf = f ? malloc(max + 1) : NULL;
	size_t n = 0;

	if (buf) {
		n = fread(buf, 1, max, f);
		buf[n] = '\0';
	}
	if (f)
		fclose(f);
	return buf;
}

/*
 * The regular files of @from (a trimmed trace: a flat CTF folder) into
 * @to, made if missing: the site carries the trace to download. Return:
 * 0 or a negative errno.
 */
static int copy_folder(const char *from, const char *to)
{
	char src[PATH_MAX], dst[PATH_MAX];
	struct dirent *e;
	struct stat sb;
	DIR *dir = opendir(from);
	int rc = 0;

	if (!dir)
		return -errno;
	if (mkdir(to, 0777) && errno != EEXIST)
		rc = -errno;
	while (!rc && (e = readdir(dir))) {
		char *bytes;
		FILE *f;
		long len;

		if (snprintf(src, sizeof(src), "%s/%s", from, e->d_name) >= (int)sizeof(src) ||
		    snprintf(dst, sizeof(dst), "%s/%s", to, e->d_name) >= (int)sizeof(dst))
			rc = -ENAMETOOLONG;
		else if (stat(src, &sb) || !S_ISREG(sb.st_mode))
			continue;
		if (rc)
			break;
		f = fopen(src, "rb");
		if (!f) {
			rc = -errno;
			break;
		}
		len = sb.st_size;
		bytes = malloc((size_t)len + 1);
		if (!bytes || fread(bytes, 1, (size_t)len, f) != (size_t)len)
			rc = bytes ? -EIO : -ENOMEM;
		fclose(f);
		if (!rc)
			rc = atomic_file_write(dst, bytes, (size_t)len);
		free(bytes);
	}
	closedir(dir);
	return rc;
}

/* The revision of the alarm cause whose first series is @head. */
static const char *alarm_rev(const struct site *st, size_t head)
{
	const struct series *sr = &st->h.s[head];

	return sr->revs[dash_alarm_of(sr)->at].rev;
}

/*
 * Whether the alarm cause whose first series is @head concerns the
 * findings of @run: @run is of its revision and, where the cause moved
 * series of campaigns or sweeps, of one of their benchmarks (the alarm of
 * another campaign is not its own).
 */
static bool alarm_concerns(const struct site *st, size_t head, const struct findings_run *run)
{
	const struct series *sr = &st->h.s[head];
	bool of_findings = false, same = false;

	if (!run->rev || strcmp(run->rev, alarm_rev(st, head)))
		return false;
	for (size_t k = head; k < st->h.n; k++) {
		const struct series *o = &st->h.s[k];

		if ((o->kind != RUN_CAMPAIGN && o->kind != RUN_SWEEP) || !dash_same_cause(o, sr))
			continue;
		of_findings = true;
		same = same || !strcmp(o->benchmark, run->series);
	}
	return !of_findings || same;
}

/*
 * Whether finding @k of run @r appeared (new) at an earlier run that the
 * alarm cause of series @head concerns: listed there already.
 */
static bool listed_before(const struct site *st, size_t head, size_t r, size_t k)
{
	const struct findings *fs = &st->findings;
	const char *sig = fs->runs[r].f[k].f.signature;

	for (size_t a = 0; a <= r; a++)
		for (size_t b = 0; b < (a == r ? k : fs->runs[a].n); b++)
			if (fs->runs[a].f[b].state == FINDING_NEW && !strcmp(fs->runs[a].f[b].f.signature, sig) &&
			    alarm_concerns(st, head, &fs->runs[a]))
				return true;
	return false;
}

void dash_alarm_findings(const struct site *st, FILE *f, size_t head)
{
	size_t shown = 0;

	for (size_t r = 0; r < st->findings.n; r++) {
		const struct findings_run *run = &st->findings.runs[r];

		for (size_t k = 0; k < run->n && alarm_concerns(st, head, run); k++) {
			const struct run_finding *fd = &run->f[k].f;

			if (run->f[k].state != FINDING_NEW || listed_before(st, head, r, k))
				continue;
			fprintf(f, "%s<a class=\"finding\" href=\"finding-%.16s.html\">",
				shown++ ? "; " : "<p class=\"alarm-findings\">New findings at this revision: ",
				fd->signature);
			dash_esc(f, fd->title);
			fprintf(f, "</a> <code>%.16s</code>", fd->signature);
		}
	}
	if (shown)
		fprintf(f, "</p>\n");
}

/* The alarms raised where finding @sig appeared (new), each linking its row of the overview. */
static void finding_alarms(const struct site *st, FILE *f, const char *sig)
{
	size_t shown = 0;

	for (size_t i = 0; i < st->h.n; i++) {
		bool concerns = false;
		char cause[512], id[96];
		size_t n = 0;

		if (!dash_alarm_head(st, i))
			continue;
		for (size_t r = 0; r < st->findings.n && !concerns; r++)
			for (size_t k = 0; k < st->findings.runs[r].n && !concerns; k++)
				concerns = st->findings.runs[r].f[k].state == FINDING_NEW &&
					   !strcmp(st->findings.runs[r].f[k].f.signature, sig) &&
					   alarm_concerns(st, i, &st->findings.runs[r]);
		if (!concerns)
			continue;
		for (size_t k = i; k < st->h.n; k++)
			n += dash_same_cause(&st->h.s[k], &st->h.s[i]);
		if (!shown++)
			fprintf(f, "<h2>Alarms where it appeared</h2>\n<table class=\"alarms\"><tr>"
				   "<th class=\"l\">cause</th><th>first bad</th><th>series</th></tr>\n");
		dash_cause_of(&st->h.s[i], cause, sizeof(cause));
		dash_alarm_id(&st->h.s[i], id, sizeof(id));
		fprintf(f, "<tr class=\"bad\"><td class=\"l\"><a class=\"alarm\" href=\"index.html#%s\">", id);
		dash_esc(f, cause);
		fprintf(f, "</a></td><td>");
		dash_rev_cell(st, f, alarm_rev(st, i));
		fprintf(f, "</td><td>%zu</td></tr>\n", n);
	}
	if (shown)
		fprintf(f, "</table>\n");
}

/* The operations the finding @fd was met in, with their runs (and a sweep's hits); none: nothing. */
static void finding_contexts_table(FILE *f, const struct run_finding *fd)
{
	bool hits = false;

	if (!fd->ncontexts)
		return;
	for (size_t i = 0; i < fd->ncontexts; i++)
		hits = hits || fd->contexts[i].nth_max;
	fprintf(f, "<h2>The operations it was met in</h2>\n<table class=\"contexts\"><tr>"
		   "<th class=\"l\">operation</th><th>runs</th>%s</tr>\n", hits ? "<th>hits</th>" : "");
	for (size_t i = 0; i < fd->ncontexts; i++) {
		const struct run_context *c = &fd->contexts[i];

		fprintf(f, "<tr><td class=\"l\">");
		dash_esc(f, c->operation);
		fprintf(f, "</td><td>%lld</td>", c->runs);
		if (hits && c->nth_max)
			fprintf(f, "<td>%lld&ndash;%lld</td>", c->nth_min, c->nth_max);
		else if (hits)
			fprintf(f, "<td>&ndash;</td>");
		fprintf(f, "</tr>\n");
	}
	fprintf(f, "</table>\n");
}

/* Where finding @sig is listed: each stored run, its series, date, revision, state, runs. */
static void finding_seen(const struct site *st, FILE *f, const char *sig)
{
	fprintf(f, "<h2>Where it was seen</h2>\n<table><tr><th class=\"l\">series</th>"
		   "<th>date</th><th>revision</th><th>state</th><th>runs</th></tr>\n");
	for (size_t i = 0; i < st->findings.n; i++)
		for (size_t k = 0; k < st->findings.runs[i].n; k++) {
			const struct findings_run *run = &st->findings.runs[i];
			const struct judged_finding *fd = &run->f[k];

			if (strcmp(fd->f.signature, sig))
				continue;
			fprintf(f, "<tr><td class=\"l\">");
			dash_esc(f, run->series);
			fprintf(f, "</td><td>%s</td><td>", run->date);
			dash_rev_cell(st, f, run->rev ? run->rev : "?");
			fprintf(f, "</td><td>%s</td><td>%lld</td></tr>\n", finding_state_name(fd->state),
				fd->f.runs);
		}
	fprintf(f, "</table>\n");
}

/*
 * The plan the trimmed trace fails under, when trimming wrote one beside it
 * (TRACE.faults.yaml: a campaign's, or a sweep's on a base plan), inline
 * and copied into the site beside the trace's folder.
 */
static void finding_plan(const struct site *st, FILE *f, const char *sig, const struct run_finding *fd)
{
	char from[PATH_MAX + 16], to[PATH_MAX];
	char *text;

	snprintf(from, sizeof(from), "%s.faults.yaml", fd->trimmed);
	text = file_text(from, 1 << 16);
	if (!text)
		return;
	snprintf(to, sizeof(to), "%s/findings-%.16s.faults.yaml", st->dir, sig);
	fprintf(f, "<p>The failures and pressure it replays under, where they fell in the whole "
		   "run (<code>--faults</code>)");
	if (!atomic_file_write(to, text, strlen(text)))
		fprintf(f, ": <a href=\"findings-%.16s.faults.yaml\">findings-%.16s.faults.yaml</a>",
			sig, sig);
	fprintf(f, ".</p>\n<pre class=\"plan\">");
	dash_esc(f, text);
	fprintf(f, "</pre>\n");
	free(text);
}

/*
 * The trimmed trace of finding @fd (@sig), copied into the site with its
 * events as text (the sweep's TRACE.txt beside it); one no longer where
 * the summary says is said, not linked.
 */
static void finding_trimmed(const struct site *st, FILE *f, const char *sig, const struct run_finding *fd)
{
	char folder[PATH_MAX], text_path[PATH_MAX + 8], *text;

	if (!fd->trimmed)
		return;
	snprintf(folder, sizeof(folder), "%s/findings-%.16s", st->dir, sig);
	snprintf(text_path, sizeof(text_path), "%s.txt", fd->trimmed);
	fprintf(f, "<h2>The trimmed trace</h2>\n<p>%lld of the trace's %lld events", fd->trimmed_events,
		fd->trimmed_of);
	if (!copy_folder(fd->trimmed, folder)) {
		fprintf(f, "; its CTF files: <a href=\"findings-%.16s/\">findings-%.16s/</a> "
			   "(<code>gpuiso replay</code> reads the folder)", sig, sig);
	} else {
		fprintf(f, " (no longer at <code>");
		dash_esc(f, fd->trimmed);
		fprintf(f, "</code>: not copied)");
	}
	fprintf(f, ".</p>\n");
	text = file_text(text_path, 1 << 16);
	if (text) {
		fprintf(f, "<pre class=\"events\">");
		dash_esc(f, text);
		fprintf(f, "</pre>\n");
		free(text);
	}
	finding_plan(st, f, sig, fd);
}

/* What finding @fd (@sig) is, and when it was seen: first (@first), last (@last), in @seen runs. */
static void finding_head(const struct site *st, FILE *f, const char *sig, const struct run_finding *fd,
			 const struct findings_run *first, const struct findings_run *last, size_t seen)
{
	fprintf(f, "<table class=\"l\"><tr><th class=\"l\">signature</th><td class=\"l\"><code>");
	dash_esc(f, sig);
	fprintf(f, "</code> (of <code>");
	dash_esc(f, fd->key);
	fprintf(f, "</code>)</td></tr>\n<tr><th class=\"l\">blame</th><td class=\"l\">");
	dash_esc(f, fd->blame);
	fprintf(f, "; outcome ");
	dash_esc(f, fd->outcome);
	fprintf(f, "</td></tr>\n<tr><th class=\"l\">first seen</th><td class=\"l\">");
	dash_rev_cell(st, f, first->rev ? first->rev : "?");
	fprintf(f, " %s</td></tr>\n<tr><th class=\"l\">last seen</th><td class=\"l\">", first->date);
	dash_rev_cell(st, f, last->rev ? last->rev : "?");
	fprintf(f, " %s</td></tr>\n<tr><th class=\"l\">seen in</th><td class=\"l\">%zu stored "
		   "run%s</td></tr>\n<tr><th class=\"l\">latest</th><td class=\"l\">%lld run%s", last->date,
		seen, seen == 1 ? "" : "s", fd->runs, fd->runs == 1 ? "" : "s");
	if (fd->nth_max)
		fprintf(f, ", hits %lld&ndash;%lld", fd->nth_min, fd->nth_max);
	fprintf(f, "</td></tr></table>\n");
}

/*
 * The page of finding @sig: what it is, every stored run that listed it
 * (first and last seen), the alarms raised where it appeared, the
 * operations it was met in (as its latest run lists them), the command
 * that reproduces it, and its trimmed trace.
 */
static int write_finding_page(struct site *st, const char *sig)
{
	struct findings_run *first = NULL, *last = NULL;
	size_t seen = 0, latest = 0;
	char name[64];
	struct page p;
	int rc;

	for (size_t i = 0; i < st->findings.n; i++)
		for (size_t k = 0; k < st->findings.runs[i].n; k++) {
			struct findings_run *run = &st->findings.runs[i];
			const struct judged_finding *fd = &run->f[k];

			if (strcmp(fd->f.signature, sig) || fd->state == FINDING_GONE)
				continue;
			seen++;
			if (!first || strcmp(run->date, first->date) < 0)
				first = run;
			if (!last || strcmp(run->date, last->date) >= 0) {
				last = run;
				latest = k;
			}
		}
	if (!last)
		return 0;
	rc = findings_contexts(st->s, &st->findings, last);
	if (rc)
		return rc;
	snprintf(name, sizeof(name), "finding-%.16s.html", sig);
	rc = dash_page_open(&p, st->dir, name, last->f[latest].f.title, "");
	if (rc)
		return rc;
	finding_head(st, p.file.f, sig, &last->f[latest].f, first, last, seen);
	finding_alarms(st, p.file.f, sig);
	finding_contexts_table(p.file.f, &last->f[latest].f);
	fprintf(p.file.f, "<h2>Reproduce</h2>\n<pre>");
	dash_esc(p.file.f, last->f[latest].f.reproduce);
	fprintf(p.file.f, "</pre>\n");
	finding_seen(st, p.file.f, sig);
	finding_trimmed(st, p.file.f, sig, &last->f[latest].f);
	rc = dash_page_close(&p);
	st->pages += !rc;
	return rc;
}

int dash_finding_pages(struct site *st)
{
	int rc = 0;

	for (size_t i = 0; !rc && i < st->findings.n; i++)
		for (size_t k = 0; !rc && k < st->findings.runs[i].n; k++) {
			const char *sig = st->findings.runs[i].f[k].f.signature;
			bool done = false;

			/* written at its first listing */
			for (size_t a = 0; !done && a <= i; a++)
				for (size_t b = 0; !done && b < (a == i ? k : st->findings.runs[a].n); b++)
					done = !strcmp(st->findings.runs[a].f[b].f.signature, sig);
			if (!done)
				rc = write_finding_page(st, sig);
		}
	return rc;
}
