/* SPDX-License-Identifier: MIT */
/*
 * A run's files in DIR/runs (docs/campaign-format.md, "Campaigns"):
 * ID.faults.yaml, its faults and pressure as a file of their own with the
 * command that reproduces it, and ID.outcome, how it ended. Every file is
 * written atomically: a record is either whole or missing, which is what
 * makes a killed campaign resumable.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/atomic_file.h"
#include "common/digest_path.h"
#include "common/shell.h"
#include "faults/campaign/campaign_internal.h"

int campaign_job_path(const struct campaign *c, const struct camp_job *j, const char *suffix,
		    char *buf, size_t len)
{
	if (snprintf(buf, len, "%s/runs/%s%s", c->out, j->id, suffix) >= (int)len)
		return -ENAMETOOLONG;
	return 0;
}

/* "gpuiso replay TRACE [--scenario S] --faults DIR/runs/ID.faults.yaml --seed N" */
int campaign_reproduce_cmd(const struct campaign *c, const struct camp_job *j, char **out)
{
	char faults[CAMPAIGN_RUN_PATH_LEN];
	size_t len;
	FILE *f;
	int rc = campaign_job_path(c, j, ".faults.yaml", faults, sizeof(faults));

	if (rc)
		return rc;
	f = open_memstream(out, &len);
	if (!f)
		return -ENOMEM;
	fputs("gpuiso replay ", f);
	shell_word(f, c->traces[j->trace].path);
	if (c->has_scenario) {
		fputs(" --scenario ", f);
		shell_word(f, c->scenario);
	}
	fputs(" --faults ", f);
	shell_word(f, faults);
	fprintf(f, " --seed %llu", (unsigned long long)j->seed);
	if (c->covers != COVERS_WINDOW)
		fprintf(f, " --trace-covers %s", trace_covers_name(c->covers));
	if (fclose(f)) {
		free(*out);
		*out = NULL;
		return -ENOMEM;
	}
	return 0;
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
		rc = -EPROTO;
	fault_plan_free(&back);
	if (rc == -EPROTO || rc == -EINVAL)
		snprintf(err, errlen, "%s: the faults file written for run '%s' does not read back as "
			 "the campaign's run: %s", path, r->name, *lerr ? lerr : "different rules");
out:
	if (rc && !*err)
		snprintf(err, errlen, "%s: cannot write: %s", path, strerror(-rc));
	free(cmd);
	free(text);
	return rc;
}

int campaign_outcome_write(const struct campaign *c, const struct camp_job *j,
			 const struct camp_outcome *oc)
{
	char path[CAMPAIGN_RUN_PATH_LEN], text[CAMPAIGN_REASON_LEN + 256];
	int n, rc = campaign_job_path(c, j, ".outcome", path, sizeof(path));

	if (rc)
		return rc;
	n = snprintf(text, sizeof(text), "%s\nkey %016llx\nresults %s%016llx\noutcome %s\nreason %s\n",
		     CAMPAIGN_OUTCOME_SCHEMA, (unsigned long long)oc->key, oc->has_results ? "" : "none ",
		     (unsigned long long)oc->results,
		     oc->hung ? "hung" : oc->failed ? "failed" : "passed", oc->reason);
	if (n < 0 || (size_t)n >= sizeof(text))
		return -EOVERFLOW;
	return atomic_file_write(path, text, (size_t)n);
}

/* One "name value" line of an outcome record; false when it is not that. */
static bool outcome_line(FILE *f, const char *name, char *val, size_t len)
{
	char line[CAMPAIGN_REASON_LEN + 64];
	size_t n = strlen(name), l;

	if (!fgets(line, sizeof(line), f) || strncmp(line, name, n) || line[n] != ' ')
		return false;
	l = strlen(line);
	if (!l || line[l - 1] != '\n')
		return false;
	line[l - 1] = '\0';
	snprintf(val, len, "%s", line + n + 1);
	return true;
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
	     outcome_line(f, "reason", oc->reason, sizeof(oc->reason));
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
