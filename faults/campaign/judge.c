/* SPDX-License-Identifier: MIT */
/*
 * A run's outcome. In its child, the run is replayed and judged from its
 * results: it fails for each invariant the campaign requires that it broke,
 * and for the verifier's violations. In the parent, a child that was
 * killed as hung, crashed, or could not record its outcome is judged from
 * how it ended. Either way the outcome record says (record.c).
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "common/digest_path.h"
#include "faults/campaign/campaign_internal.h"

static void reason_add(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void reason_add(char *buf, size_t len, const char *fmt, ...)
{
	size_t n = strlen(buf);
	va_list ap;

	if (n + 1 >= len)
		return;
	if (n) {
		snprintf(buf + n, len - n, "; ");
		n = strlen(buf);
	}
	va_start(ap, fmt);
	vsnprintf(buf + n, len - n, fmt, ap);
	va_end(ap);
}

/*
 * Why a run failed: the required invariants it broke, an internal error of
 * the model (never hidden), and the verifier's violations.
 */
void campaign_judge(const struct campaign *c, const struct results *res, struct camp_outcome *oc)
{
	oc->reason[0] = '\0';
	for (size_t i = 0; i < res->ninvariants; i++) {
		const struct invariant_result *inv = &res->invariants[i];

		if (inv->holds)
			continue;
		/* an impossible state of the model fails every run, whatever the file requires */
		if (!strcmp(inv->name, "model_sound"))
			reason_add(oc->reason, sizeof(oc->reason),
				   "internal error of the model (a bug of gpuiso: see the run's stderr)");
		for (size_t k = 0; k < CAMPAIGN_NINVARIANTS; k++)
			if (c->required[k] && !strcmp(inv->name, campaign_invariants[k]))
				reason_add(oc->reason, sizeof(oc->reason), "invariant %s broken",
					   inv->name);
	}
	if (res->nviolations) {
		const struct violation_result *v = &res->violations[0];

		reason_add(oc->reason, sizeof(oc->reason), "%zu violation%s: %s at event %llu (%s)%s",
			   res->nviolations, res->nviolations > 1 ? "s" : "", v->code,
			   (unsigned long long)v->event, v->detail,
			   res->nviolations > 1 ? " and more" : "");
	}
	oc->failed = oc->reason[0] != '\0';
}

/* Where the run's first failure was injected, from its injection context. */
static void injection_of(const struct fp_ctx *fp, struct camp_injection *in)
{
	memset(in, 0, sizeof(*in));
	in->known = CAMP_KNOWN;
	in->any = fp->ninjections > 0;
	if (!in->any)
		return;
	in->point = fp->first.point;
	in->nth = fp->first.nth;
	in->event = fp->first.event;
	in->ts = fp->first.ts;
	snprintf(in->op, sizeof(in->op), "%s", fp->first.op ? fp->first.op : "");
	snprintf(in->site, sizeof(in->site), "%s", fp->first.site ? fp->first.site : "");
}

/* Each event the run begins is progress its parent sees. */
static void run_event(const struct replay_engine *e, uint64_t index, void *arg)
{
	(void)e;
	(void)index;
	watch_event(arg);
}

int campaign_child_run(const struct campaign *c, const struct camp_job *j,
		       struct watch_beat *beat)
{
	struct camp_outcome oc = { .key = j->key, .has_verdict = CAMP_UNKNOWN };
	struct fault_plan plan = c->runs[j->run].plan;
	char json[CAMPAIGN_RUN_PATH_LEN], faults[CAMPAIGN_RUN_PATH_LEN];
	struct replay_opts ro = { .scn = &c->scn, .cache = true, .faults = &plan, .seed = j->seed,
				  .covers = c->covers, .before_event = run_event,
				  .before_event_arg = beat };
	struct fp_ctx fp;
	struct replay_report *rep;
	struct results res;
	bool replayed;
	int rc = 0;

	watch_beat(beat); /* it has started */
	/* the campaign's seed replaces every rule's, as `gpuiso replay --seed` does */
	fault_plan_seed(&plan, j->seed);
	/* armed here rather than by the replay, so that where it injected can be read back */
	fault_plan_arm(&plan, &fp);
	ro.fp = &fp;
	if (campaign_job_path(c, j, ".json", json, sizeof(json)) ||
	    campaign_job_path(c, j, ".faults.yaml", faults, sizeof(faults)))
		return ENAMETOOLONG;
	ro.trace = c->traces[j->trace].path;
	ro.maps = (const char *const *)c->traces[j->trace].maps;
	ro.nmaps = c->traces[j->trace].nmaps;
	ro.scenario_path = c->has_scenario ? c->scenario : NULL;
	ro.faults_path = faults;
	rep = calloc(1, sizeof(*rep));
	if (!rep)
		return ENOMEM;
	replayed = !replay_run(&ro, &res, rep);
	watch_beat(beat); /* the replay has ended; the results follow */
	injection_of(&fp, &oc.injected);
	if (!replayed) {
		/* the trace could not be replayed: a failed run, with no results */
		oc.failed = true;
		if (snprintf(oc.reason, sizeof(oc.reason), "replay failed: %s", rep->error) < 0)
			oc.reason[0] = '\0'; /* a long message cut short still says why */
	} else {
		rc = results_write_json(&res, json);
		watch_beat(beat);
		if (!rc)
			rc = digest_path(json, &oc.results);
		oc.has_results = !rc;
		if (!rc) {
			campaign_judge(c, &res, &oc);
			verdict_of(&res, &oc.verdict);
			oc.has_verdict = CAMP_KNOWN;
		}
	}
	campaign_one_line(oc.reason);
	results_fini(&res);
	free(rep);
	if (!rc)
		rc = campaign_outcome_write(c, j, &oc);
	return -rc;
}

/* Why the parent killed a run, as its reason. */
static void hung_reason(const struct campaign *c, const struct pool *p, size_t i,
			struct camp_outcome *oc)
{
	if (p->slots[i].killed == WATCH_OVERTIME)
		snprintf(oc->reason, sizeof(oc->reason),
			 "hung: still running after %u s (--run-timeout), killed", c->run_timeout_s);
	else
		snprintf(oc->reason, sizeof(oc->reason),
			 "hung: no progress for %u s (after %llu events), killed", p->watch.stall_s,
			 (unsigned long long)watch_events(&p->watch, i));
}

void campaign_judge_end(const struct campaign *c, const struct pool *p, size_t i, int status)
{
	const struct pool_slot *s = &p->slots[i];
	const struct camp_job *j = &c->jobs[s->job];
	/* a child that did not record its outcome did not say what it found, nor where it injected */
	struct camp_outcome oc = { .key = j->key, .failed = true, .has_verdict = CAMP_UNKNOWN,
				   .injected = { .known = CAMP_UNKNOWN } };

	if (s->killed && WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) {
		/* what it may have written meanwhile is not its outcome */
		oc.hung = true;
		hung_reason(c, p, i, &oc);
		campaign_outcome_write(c, j, &oc);
	} else if (WIFSIGNALED(status)) {
		snprintf(oc.reason, sizeof(oc.reason), "crashed: signal %d", WTERMSIG(status));
		campaign_outcome_write(c, j, &oc);
	} else if (WIFEXITED(status) && WEXITSTATUS(status)) {
		snprintf(oc.reason, sizeof(oc.reason), "could not record the run: %s",
			 strerror(WEXITSTATUS(status)));
		campaign_outcome_write(c, j, &oc);
	}
}
