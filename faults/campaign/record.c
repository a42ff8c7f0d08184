/* SPDX-License-Identifier: MIT */
/*
 * A run's files in DIR/runs (docs/campaign-format.md, "Campaigns"):
 * ID.faults.yaml, its faults and pressure as a file of their own with the
 * command that reproduces it, and ID.outcome, how it ended. Every file is
 * written atomically: a record is either whole or missing, which is what
 * makes a killed campaign resumable. A record is line based: five lines an
 * older gpuiso wrote too, then the verdict and where the run injected first.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/atomic_file.h"
#include "common/digest_path.h"
#include "faults/campaign/campaign_internal.h"
#include "replay/command.h"

int campaign_job_path(const struct campaign *c, const struct camp_job *j, const char *suffix,
		    char *buf, size_t len)
{
	if (snprintf(buf, len, "%s/runs/%s%s", c->out, j->id, suffix) >= (int)len)
		return -ENAMETOOLONG;
	return 0;
}

/* "gpuiso replay TRACE [--map M]... [--scenario S] --faults DIR/runs/ID.faults.yaml --seed N" */
int campaign_reproduce_cmd(const struct campaign *c, const struct camp_job *j, char **out)
{
	const struct camp_trace *t = &c->traces[j->trace];
	char faults[CAMPAIGN_RUN_PATH_LEN];
	int rc = campaign_job_path(c, j, ".faults.yaml", faults, sizeof(faults));

	if (rc)
		return rc;
	return replay_command(&(struct replay_command){
		.program = c->program, .trace = t->path, .maps = (const char *const *)t->maps, .nmaps = t->nmaps,
		.scenario = c->has_scenario ? c->scenario : NULL, .faults = faults, .seeded = true,
		.seed = j->seed, .covers = c->covers }, out);
}

/* Keep @s on one line: records and comments are line based. */
void campaign_one_line(char *s)
{
	for (; *s; s++)
		if (*s == '\n' || *s == '\r')
			*s = ' ';
}

/*
 * Write DIR/runs/ID.faults.yaml, then read it back as `gpuiso replay
 * --faults` will: the reproduce command must replay exactly this run's plan.
 */
int campaign_faults_write(const struct campaign *c, const struct camp_job *j, char *err,
			     size_t errlen)
{
	const struct camp_run *r = &c->runs[j->run];
	struct fault_plan back;
	char path[CAMPAIGN_RUN_PATH_LEN], lerr[1024] = "", name[sizeof(c->name)];
	char *text = NULL, *cmd = NULL;
	size_t len;
	FILE *f;
	int rc = campaign_job_path(c, j, ".faults.yaml", path, sizeof(path));

	if (!rc)
		rc = campaign_reproduce_cmd(c, j, &cmd);
	if (rc)
		goto out;
	f = open_memstream(&text, &len);
	if (!f) {
		rc = -ENOMEM;
		goto out;
	}
	/* a line break in a name or path would end the comment early */
	snprintf(name, sizeof(name), "%s", c->name);
	campaign_one_line(name);
	campaign_one_line(cmd);
	fprintf(f, "# Campaign %s, run %s (%s): its faults and pressure.\n# Reproduce: %s\n%s",
		name, r->name, j->id, cmd, r->faults_yaml);
	if (fclose(f)) {
		rc = -ENOMEM;
		goto out;
	}
	rc = atomic_file_write(path, text, len);
	if (rc)
		goto out;
	rc = fault_plan_load(path, &back, lerr, sizeof(lerr));
	if (!rc && !fault_plan_equal(&back, &r->plan))
		rc = -ENOTRECOVERABLE;
	fault_plan_free(&back);
	if (rc == -ENOTRECOVERABLE || rc == -EINVAL) {
		/* gpuiso's writer and reader disagree: its own bug, not the campaign file's */
		snprintf(err, errlen, "%s: the faults file written for run '%s' does not read back as "
			 "the campaign's run: %s", path, r->name, *lerr ? lerr : "different rules");
		rc = -ENOTRECOVERABLE;
	}
out:
	if (rc && !*err)
		snprintf(err, errlen, "%s: cannot write: %s", path, strerror(-rc));
	free(cmd);
	free(text);
	return rc;
}

/* The verdict's lines (verdict_lines_write()), "verdict none" when it is unknown, or nothing. */
static void outcome_verdict_lines(FILE *f, const struct camp_outcome *oc)
{
	if (oc->has_verdict == CAMP_UNKNOWN)
		fputs("verdict none\n", f);
	if (oc->has_verdict == CAMP_KNOWN)
		verdict_lines_write(f, &oc->verdict);
}

/* "injected POINT NTH EVENT TS OP SITE" ("-": none), "injected none" or "injected unknown". */
static void injection_line(FILE *f, const struct camp_injection *in)
{
	if (in->known == CAMP_UNKNOWN)
		fputs("injected unknown\n", f);
	else if (in->known == CAMP_KNOWN && !in->any)
		fputs("injected none\n", f);
	else if (in->known == CAMP_KNOWN)
		fprintf(f, "injected %s %llu %llu %llu %s %s\n", fp_point_name(in->point),
			(unsigned long long)in->nth, (unsigned long long)in->event,
			(unsigned long long)in->ts, in->op[0] ? in->op : "-",
			in->site[0] ? in->site : "-");
}

int campaign_outcome_write(const struct campaign *c, const struct camp_job *j,
			 const struct camp_outcome *oc)
{
	char path[CAMPAIGN_RUN_PATH_LEN];
	struct atomic_file af;
	int rc = campaign_job_path(c, j, ".outcome", path, sizeof(path));

	if (!rc)
		rc = atomic_file_open(&af, path);
	if (rc)
		return rc;
	/* the first five lines are all an older gpuiso wrote, and reads */
	fprintf(af.f, "%s\nkey %016llx\nresults %s%016llx\noutcome %s\nreason %s\n",
		CAMPAIGN_OUTCOME_SCHEMA, (unsigned long long)oc->key, oc->has_results ? "" : "none ",
		(unsigned long long)oc->results,
		oc->hung ? "hung" : oc->failed ? "failed" : "passed", oc->reason);
	outcome_verdict_lines(af.f, oc);
	injection_line(af.f, &oc->injected);
	return atomic_file_commit(&af);
}

/* One line of an outcome record, without its line break: 1, 0 at the end, -1 for a cut line. */
static int record_line(FILE *f, char *line, size_t len)
{
	size_t l;

	if (!fgets(line, (int)len, f))
		return 0;
	l = strlen(line);
	if (!l || line[l - 1] != '\n')
		return -1;
	line[l - 1] = '\0';
	return 1;
}

/* One "name value" line of an outcome record; false when it is not that. */
static bool outcome_line(FILE *f, const char *name, char *val, size_t len)
{
	char line[CAMPAIGN_REASON_LEN + 64];
	size_t n = strlen(name);

	if (record_line(f, line, sizeof(line)) != 1 || strncmp(line, name, n) || line[n] != ' ')
		return false;
	snprintf(val, len, "%s", line + n + 1);
	return true;
}

/* "injected POINT NTH EVENT TS OP SITE", "injected none" or "injected unknown". */
static bool injection_parse(const char *val, struct camp_injection *in)
{
	char point[32];
	unsigned long long nth, event, ts;
	int p, n = -1;

	memset(in, 0, sizeof(*in));
	in->known = CAMP_KNOWN;
	if (!strcmp(val, "none"))
		return true;
	if (!strcmp(val, "unknown")) {
		in->known = CAMP_UNKNOWN;
		return true;
	}
	if (sscanf(val, "%31s %llu %llu %llu %47s %63s%n", point, &nth, &event, &ts, in->op,
		   in->site, &n) != 6 || val[n] || (p = fp_point_lookup(point)) < 0)
		return false;
	in->any = true;
	in->point = p;
	in->nth = nth;
	in->event = event;
	in->ts = ts;
	if (!strcmp(in->op, "-"))
		in->op[0] = '\0';
	if (!strcmp(in->site, "-"))
		in->site[0] = '\0';
	return true;
}

/*
 * The lines after the reason: the verdict and its findings, and where the
 * first failure was injected. A record without them is an older gpuiso's:
 * neither is recorded. A line this version does not know is left alone.
 */
static bool optional_lines(FILE *f, struct camp_outcome *oc)
{
	char line[CAMPAIGN_REASON_LEN + 64];
	bool ok = true;
	int got;

	while (ok && (got = record_line(f, line, sizeof(line))) == 1) {
		if (!strcmp(line, "verdict none")) {
			oc->has_verdict = CAMP_UNKNOWN;
		} else if (!strncmp(line, "injected ", 9)) {
			ok = injection_parse(line + 9, &oc->injected);
		} else if (!strncmp(line, "verdict ", 8) ||
			   (!strncmp(line, "finding ", 8) && oc->has_verdict == CAMP_KNOWN)) {
			ok = verdict_line_read(line, &oc->verdict) == 1;
			oc->has_verdict = CAMP_KNOWN;
		} else if (!strncmp(line, "finding ", 8)) {
			ok = false; /* a finding of no verdict */
		}
	}
	/* a line cut short is a record cut short */
	return ok && !got;
}

/* Read DIR/runs/ID.outcome; false when it is missing or not one. */
bool campaign_outcome_read(const struct campaign *c, const struct camp_job *j,
			   struct camp_outcome *oc)
{
	char path[CAMPAIGN_RUN_PATH_LEN], schema[64], key[32], results[64], what[16];
	unsigned long long v;
	bool ok;
	FILE *f;

	memset(oc, 0, sizeof(*oc));
	if (campaign_job_path(c, j, ".outcome", path, sizeof(path)) || !(f = fopen(path, "r")))
		return false;
	ok = fgets(schema, sizeof(schema), f) && !strcmp(schema, CAMPAIGN_OUTCOME_SCHEMA "\n") &&
	     outcome_line(f, "key", key, sizeof(key)) &&
	     outcome_line(f, "results", results, sizeof(results)) &&
	     outcome_line(f, "outcome", what, sizeof(what)) &&
	     outcome_line(f, "reason", oc->reason, sizeof(oc->reason)) && optional_lines(f, oc);
	fclose(f);
	if (!ok || sscanf(key, "%llx", &v) != 1)
		return false;
	oc->key = v;
	oc->has_results = strncmp(results, "none", 4) != 0;
	if (oc->has_results && sscanf(results, "%llx", &v) == 1)
		oc->results = v;
	else if (oc->has_results)
		return false;
	oc->hung = !strcmp(what, "hung");
	oc->failed = oc->hung || !strcmp(what, "failed");
	return oc->failed || !strcmp(what, "passed");
}

/* A finished run: its record matches this campaign's run and its results are intact. */
bool campaign_job_finished(const struct campaign *c, const struct camp_job *j)
{
	char path[CAMPAIGN_RUN_PATH_LEN];
	struct camp_outcome oc;
	uint64_t h = 0;

	if (!campaign_outcome_read(c, j, &oc) || oc.key != j->key || !oc.has_results)
		return false;
	return !campaign_job_path(c, j, ".json", path, sizeof(path)) && !digest_path(path, &h) &&
	       h == oc.results;
}
