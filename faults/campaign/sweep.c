/* SPDX-License-Identifier: MIT */
/*
 * Fail-nth sweeps. A counting replay learns how often each selected point is
 * hit; then every hit is failed once, each in its own process so that a crash
 * only costs that run.
 *
 * Two ways to get there:
 *  - fork mode (the default): one replay runs in this process with every
 *    selected point observed; at each hit it forks, the child fails that hit
 *    and finishes the replay it inherited, the parent lets the hit pass and
 *    goes on. No prefix is replayed twice.
 *  - from scratch (the baseline, like the kernel's iommufd fail-nth
 *    selftest): each (point, N) is a complete replay in a fresh child whose
 *    only rule is {nth = N}.
 * A child reports its outcome in its exit status; a signal (or any other
 * status) is a crash. The parent watches each child's progress (watch.h):
 * one that makes no progress for --stall-timeout, or is still going after
 * --run-timeout, is killed and is hung. No child outlives the parent.
 *
 * A forked run also stops early once it is back where the unfailed run
 * was. The counting pass records the state digest before each event
 * (engine_state_digest()); a child compares its own at its failure's event,
 * the next, then the next multiple of 2, of 4, of 8..., and at every
 * multiple of SWEEP_MEET_EVERY in between. Where they meet,
 * the rest of its run would be the unfailed run's rest, which (when the
 * unfailed run ends recovered) adds no finding and leaves nothing behind:
 * its outcome is what it has found so far. Where a child's state and
 * findings so far meet an earlier run's instead (faults/campaign/meet.h),
 * (checked at the doublings only, where every run checks) it stops and
 * takes that run's outcome, booked once every run has ended
 * (unless that run crashed: then it runs again from the start).
 * From-scratch runs always run to the end.
 *
 * Before any replay, sweep_load.c checks the options and loads the inputs.
 * Once every run is booked, sweep_report.c groups the failures into
 * findings, trims their reproducers and writes the summaries
 * (sweep_internal.h: what the files share).
 */
#include <errno.h>
#include <malloc.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/array.h"
#include "common/clock.h"
#include "core/scenario.h"
#include "common/digest.h"
#include "faults/campaign/finding.h"
#include "faults/campaign/meet.h"
#include "faults/campaign/pool.h"
#include "faults/campaign/sweep.h"
#include "faults/campaign/sweep_internal.h"
#include "replay/replay.h"
#include "replay/verdict.h"

/* Blocks from this size up get their own mapping (glibc's initial default, kept fixed). */
#define SWEEP_MMAP_THRESHOLD (128 * 1024)

/*
 * A run compares its state with the unfailed run's at least this often, in
 * events: a digest is kept as the state changes (a few microseconds), so
 * a run that rejoins the unfailed run far from its hit stops within this
 * many events of it rather than at the next doubling of its distance.
 */
#define SWEEP_MEET_EVERY 64

/* The first three outcomes are the verdict's, by value: classify() casts. */
_Static_assert(SWEEP_RECOVERED == (int)VERDICT_RECOVERED && SWEEP_RESET == (int)VERDICT_RESET &&
	       SWEEP_VIOLATION == (int)VERDICT_VIOLATION && VERDICT_NOUTCOMES == 3,
	       "a sweep's first outcomes are a verdict's");

/* The outcome of a finished replay (see docs/campaign-format.md, "Sweeps"). */
static enum sweep_outcome classify(const struct verdict *v)
{
	return (enum sweep_outcome)v->outcome;
}

_Noreturn void sweep_run_leave(struct sweep *s, int status, const struct verdict *v)
{
	if (v && v->outcome == VERDICT_RECOVERED)
		v = NULL;
	if (s->persist)
		sweep_persist_leave(s, status, v); /* does not return */
	if (v && pool_send(&s->pool, s->slot, v, sizeof(*v)))
		_exit(SWEEP_EXIT_ERROR);
	_exit(status);
}

static void replay_opts_fill(const struct sweep *s, struct fp_ctx *fp, struct replay_opts *ro)
{
	*ro = (struct replay_opts){
		.trace = s->o->trace,
		.maps = (const char *const *)s->maps,
		.nmaps = s->maps ? s->o->nmaps : 0,
		.scn = &s->scn,
		.scenario_path = s->o->scenario,
		.pace = REPLAY_PACE_ASAP,
		/* the compiled cache: every run after the first skips CTF decoding */
		.cache = !s->uncacheable,
		.fp = fp,
		/* its pressure schedule (fp holds its rules already) */
		.faults = s->faults ? &s->base : NULL,
		.faults_path = s->faults,
		.covers = s->o->covers,
		/*
		 * Only outcomes count here. Latency histograms would cost each
		 * forked run a copy of every page of counts it writes to.
		 */
		.untimed = true,
	};
}

/*
 * A child's outcome leaves as its exit status, and what it found as its
 * message: _exit(), as its stdio buffers are the parent's.
 */
static void child_exit(struct sweep *s, const struct results *res, int rc)
{
	struct verdict v;

	if (rc || !res)
		sweep_run_leave(s, SWEEP_EXIT_ERROR, NULL);
	verdict_of(res, &v);
	sweep_run_leave(s, SWEEP_EXIT_BASE + (int)classify(&v), &v);
}

/* The end of a replay: a child (even one forked during it) leaves at once, without freeing. */
static void replay_finished(const struct results *res, int rc, void *arg)
{
	struct sweep *s = arg;

	if (s->in_child)
		child_exit(s, res, rc);
}

/* The counting pass: record the unfailed run's state before each event. */
static void record_state(const struct replay_engine *e, uint64_t index, void *arg)
{
	struct sweep *s = arg;
	uint64_t digest, *d;

	(void)index;
	s->nevents++;
	if (!s->digests)
		return;
	if (engine_state_digest(e, &digest)) {
		free(s->digests); /* a state out of sight: every run goes to the end */
		s->digests = NULL;
		return;
	}
	if (s->ndigests % 4096 == 0) {
		d = realloc(s->digests, (s->ndigests + 4096) * sizeof(*d));
		if (!d) {
			free(s->digests);
			s->digests = NULL;
			return;
		}
		s->digests = d;
	}
	s->digests[s->ndigests++] = digest;
}

/*
 * A child whose state is the unfailed run's: the rest of its run would be
 * that run's rest, which finds nothing and ends clean, so its findings so
 * far are its verdict.
 */
static void met_exit(struct sweep *s, const struct replay_engine *e)
{
	struct results res;
	struct verdict v;

	memset(&res, 0, sizeof(res));
	engine_findings_so_far(e, &res);
	verdict_of(&res, &v);
	sweep_run_leave(s, SWEEP_EXIT_BASE + SWEEP_EXIT_MET + (int)classify(&v), &v);
}

/*
 * The fork pass: count events; a child stops where its state meets the
 * unfailed run's, or where an earlier run's state and findings were.
 */
static void meet_state(const struct replay_engine *e, uint64_t index, void *arg)
{
	struct sweep *s = arg;
	uint64_t event = s->event++, digest, found;
	bool violation, reset, claim;
	uint32_t first;

	(void)index;
	/*
	 * The digest's parts are kept from the first one on: kept current
	 * here, a child's first check costs what it changed since its fork.
	 */
	if (!s->in_child) {
		(void)engine_state_digest(e, &digest);
		return;
	}
	if (event >= s->ndigests)
		return;
	claim = event == s->next_check;
	if (!claim && event % SWEEP_MEET_EVERY)
		return;
	if (engine_state_digest(e, &digest))
		return;
	if (digest == s->digests[event])
		met_exit(s, e);
	if (!claim)
		return;
	/* the next multiple of the step: runs branched apart claim at the same events */
	s->next_check = (event / s->check_step + 1) * s->check_step;
	s->check_step *= 2;
	engine_findings(e, &violation, &reset, &found);
	/* what it found so far is in the key: a run that follows takes the other's verdict whole */
	first = meet_claim(&s->meet, DIGEST_FOLD(event, digest, found), s->run);
	if (first != s->run) {
		meet_follow(&s->meet, s->run, first);
		sweep_run_leave(s, SWEEP_EXIT_FOLLOWS, NULL);
	}
}

/* Every event a child begins is progress its parent sees (from-scratch runs). */
static void beat_event(const struct replay_engine *e, uint64_t index, void *arg)
{
	struct sweep *s = arg;

	(void)e;
	(void)index;
	watch_event(s->beat);
}

void sweep_fork_event(const struct replay_engine *e, uint64_t index, void *arg)
{
	struct sweep *s = arg;

	watch_event(s->beat);
	if (s->digests)
		meet_state(e, index, arg);
}

int sweep_replay(struct sweep *s, struct fp_ctx *fp,
		 void (*before_event)(const struct replay_engine *, uint64_t, void *),
		 enum sweep_outcome *outcome)
{
	struct replay_report *rep = calloc(1, sizeof(*rep));
	struct replay_opts ro;
	struct results res;
	int rc;

	if (!rep) {
		if (s->in_child)
			child_exit(s, NULL, -ENOMEM);
		return -ENOMEM;
	}
	replay_opts_fill(s, fp, &ro);
	ro.finished = replay_finished;
	ro.finished_arg = s;
	ro.before_event = before_event;
	ro.before_event_arg = s;
	rc = replay_run(&ro, &res, rep);
	if (s->in_child)
		child_exit(s, &res, rc);
	if (rc) {
		snprintf(s->err, s->errlen, "sweep: %s: %s", s->o->trace, rep->error);
	} else {
		struct verdict v;

		verdict_of(&res, &v);
		*outcome = classify(&v);
		s->cached = rep->from_cache || rep->cache_written;
		s->events = (struct sweep_events){ .total = rep->events, .used = rep->used,
						   .ignored = rep->ignored,
						   .unmatched = rep->unmatched };
	}
	results_fini(&res);
	free(rep);
	return rc;
}

/* List @run as a failure, with what it found (@v, or NULL). */
static int failing_run_add(struct sweep *s, uint32_t run, enum sweep_outcome oc, const struct verdict *v)
{
	struct sweep_failure *f;

	/* in memory fork() does not copy: the parent forks at each hit, with them all */
	if (array_reserve_shared(&s->failures, &s->failures_cap, s->nfailures, sizeof(*s->failures)))
		return -ENOMEM;
	f = &s->failures[s->nfailures++];
	*f = (struct sweep_failure){ .point = s->runs[run].point, .nth = s->runs[run].nth,
				     .outcome = oc, .run = run, .has_verdict = v != NULL };
	if (v)
		f->verdict = *v;
	s->runs[run].failure = (uint32_t)s->nfailures;
	return 0;
}

/* The outcome a child's exit @status reports; *met: whether it met the unfailed run. */
static enum sweep_outcome outcome_of_status(int status, bool *met)
{
	int code;

	*met = false;
	if (!WIFEXITED(status))
		return SWEEP_CRASH;
	code = WEXITSTATUS(status) - SWEEP_EXIT_BASE;
	if (code >= SWEEP_EXIT_MET) {
		*met = true;
		code -= SWEEP_EXIT_MET;
	}
	return code >= 0 && code < SWEEP_CRASH ? (enum sweep_outcome)code : SWEEP_CRASH;
}

void sweep_progress(struct sweep *s)
{
	snprintf(s->runs_progress.note, sizeof(s->runs_progress.note), "%llu not recovered",
		 (unsigned long long)s->nfailures);
	progress_show(&s->runs_progress, s->ended);
}

void sweep_book(struct sweep *s, uint32_t r, enum sweep_outcome oc, const struct verdict *v)
{
	struct sweep_run *run = &s->runs[r];
	int rc = 0;

	run->outcome = oc;
	s->outcomes[run->point][oc]++;
	if (oc != SWEEP_RECOVERED)
		rc = failing_run_add(s, r, oc, v);
	if (!rc && s->journal >= 0)
		rc = sweep_shard_add(s, r, oc, v);
	if (rc && !s->error)
		s->error = rc;
}

/* The verdict the child of slot @i sent, into *@v: false when it sent none (or not one). */
static bool slot_verdict(const struct pool *p, size_t i, struct verdict *v)
{
	const struct pool_slot *slot = &p->slots[i];

	if (slot->msg_overflow || slot->msglen != sizeof(*v))
		return false;
	memcpy(v, slot->msg, sizeof(*v));
	return true;
}

void sweep_run_ended(struct sweep *s, uint32_t r, int status, bool killed, const struct verdict *v)
{
	struct sweep_run *run = &s->runs[r];
	enum sweep_outcome oc;
	bool met;

	run->ended = true;
	s->ended++;
	if (killed) {
		sweep_book(s, r, SWEEP_HUNG, NULL);
	} else if (WIFEXITED(status) && WEXITSTATUS(status) == SWEEP_EXIT_FOLLOWS) {
		run->follows = true;
		s->followed++;
	} else {
		oc = outcome_of_status(status, &met);
		/* a verdict that says otherwise than the status is not this run's */
		if (v && (oc >= SWEEP_CRASH || classify(v) != oc))
			v = NULL;
		sweep_book(s, r, oc, v);
		s->met += met;
	}
	sweep_progress(s);
}

/*
 * The child of slot @i ended with @status: book its run. A run that
 * followed another is booked once all have ended (book_followers()): the
 * run it followed may still be going.
 */
static void child_done(void *arg, const struct pool *p, size_t i, int status)
{
	struct verdict sent;
	const struct verdict *v = slot_verdict(p, i, &sent) ? &sent : NULL;

	sweep_run_ended(arg, (uint32_t)p->slots[i].job, status,
			p->slots[i].killed && WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL, v);
}

int sweep_reap_all(struct sweep *s)
{
	int rc = 0;

	while (s->pool.running && !rc)
		rc = pool_wait(&s->pool, child_done, s);
	/* no run is left behind all the same */
	pool_kill_all(&s->pool);
	return rc;
}

/*
 * Fork a child for @run once a job slot is free.
 * Return: 0 in the parent, 1 in the child, or a negative errno (in the parent).
 */
static int spawn_run(struct sweep *s, uint32_t run)
{
	size_t slot = 0;
	pid_t pid;
	int rc;

	while (s->pool.running == s->pool.n) {
		rc = pool_wait(&s->pool, child_done, s);
		if (rc)
			return rc;
	}
	while (s->pool.slots[slot].pid)
		slot++;
	/* named for ps and /proc/PID/comm */
	pid = pool_fork(&s->pool, slot, run, "sweep-run", SWEEP_EXIT_ERROR);
	if (pid == -EAGAIN && s->pool.running) {
		/* out of processes: let ours end, then try once more */
		rc = sweep_reap_all(s);
		if (rc)
			return rc;
		pid = pool_fork(&s->pool, slot, run, "sweep-run", SWEEP_EXIT_ERROR);
	}
	if (pid < 0) {
		snprintf(s->err, s->errlen, "sweep: fork for %s:%llu: %s",
			 fp_point_name(s->runs[run].point), (unsigned long long)s->runs[run].nth,
			 strerror((int)-pid));
		return (int)pid;
	}
	if (!pid) {
		s->beat = pool_beat(&s->pool, slot);
		s->in_child = true;
		s->run = run;
		s->slot = slot;
		/* compare states from the next event on (a failure while starting: from the first) */
		s->next_check = s->event;
		s->check_step = 1;
		return 1;
	}
	return 0;
}

/* Fork run @run. Return: as spawn_run(). */
static int spawn(struct sweep *s, uint32_t run)
{
	int rc = spawn_run(s, run);

	if (rc >= 0)
		s->spawned++;
	return rc;
}

/* In a child: @run's replay from the start, armed as its reproducer (replay --fail-nth) arms it. */
static void scratch_replay(struct sweep *s, uint32_t run)
{
	enum sweep_outcome ignored;
	struct fp_ctx fp;

	/* the base plan, then the hit, as replay --faults BASE --fail-nth P:N arms them */
	fault_plan_arm(&s->base, &fp);
	fp_arm(&fp, s->runs[run].point, &(struct fp_rule){ .nth = s->runs[run].nth });
	sweep_replay(s, &fp, beat_event, &ignored); /* does not return in a child */
}

/*
 * Each run that followed another gets the outcome of the run it followed,
 * through the chain of those that followed in turn. Each link goes to a
 * state claimed at the same event as the follower's last, and a run claims
 * before it follows, so chains go forward in events and end.
 *
 * A chain that ends in a crash or a hang is not taken: either may come
 * from outside the run (a kill, a deadlock inherited at fork(), a loaded
 * machine), so its followers run again, from the start, and are booked for
 * what they do.
 */
static int book_followers(struct sweep *s)
{
	uint64_t again = 0;
	int rc = 0, wrc;

	for (uint64_t r = 0; r < s->total; r++) {
		uint32_t first = (uint32_t)r;
		uint64_t links = 0;
		bool known;

		if (!s->runs[r].follows)
			continue;
		do {
			known = meet_followed(&s->meet, first, &first) && first < s->total &&
				s->runs[first].ended && links++ < s->total;
		} while (known && s->runs[first].follows);
		if (!known) {
			snprintf(s->err, s->errlen, "sweep: %s:%llu stopped to follow a run that is not known",
				 fp_point_name(s->runs[r].point), (unsigned long long)s->runs[r].nth);
			return -ENOTRECOVERABLE;
		}
		if (s->runs[first].outcome == SWEEP_CRASH || s->runs[first].outcome == SWEEP_HUNG) {
			s->runs[r].again = true;
			again++;
		} else {
			const struct sweep_failure *led = s->runs[first].failure ?
				&s->failures[s->runs[first].failure - 1] : NULL;
			struct verdict v;

			/* the same so far, and the same from there on: its verdict is the other's */
			if (led && led->has_verdict)
				v = led->verdict; /* booking may move the failures */
			sweep_book(s, (uint32_t)r, s->runs[first].outcome,
				   led && led->has_verdict ? &v : NULL);
		}
	}
	if (again && s->o->progress)
		fprintf(s->o->progress, "sweep: %llu runs met a run that crashed or hung: "
			"running them again from the start\n", (unsigned long long)again);
	for (uint64_t r = 0; r < s->total && !rc && !s->error; r++) {
		if (!s->runs[r].again)
			continue;
		s->runs[r] = (struct sweep_run){ .point = s->runs[r].point, .nth = s->runs[r].nth };
		s->ended--;
		s->followed--;
		rc = spawn_run(s, (uint32_t)r);
		if (rc > 0)
			scratch_replay(s, (uint32_t)r);
	}
	wrc = sweep_reap_all(s);
	return rc ? rc : s->error ? s->error : wrc;
}

/* The counting pass's hook: every hit passes (fp_ctx.hits counts them); note where it was. */
static bool count_observe(void *arg, enum fp_point p, uint64_t hit)
{
	struct sweep *s = arg;
	const struct fp_ctx *fp = s->count_fp;

	if (s->error)
		return false;
	/* out of the memory every fork copies: the forking parent keeps it all along */
	if (array_reserve_shared(&s->where[p], &s->where_cap[p], hit - 1, sizeof(*s->where[p]))) {
		s->error = -ENOMEM;
		return false;
	}
	s->where[p][hit - 1] = (struct sweep_hit){ .event = fp->event, .ts = fp->ts, .op = fp->op,
						   .site = fp->site };
	/* a run per hit, in the order the replay hits them (the order a fork pass forks them) */
	if (array_reserve(&s->runs, &s->runs_cap, s->total, sizeof(*s->runs))) {
		s->error = -ENOMEM;
		return false;
	}
	s->runs[s->total++] = (struct sweep_run){ .point = p, .nth = hit };
	return false;
}

/* The fork-mode hook: the child fails this hit, the parent lets it pass. */
static bool fork_observe(void *arg, enum fp_point p, uint64_t hit)
{
	struct sweep *s = arg;
	uint64_t run = s->seen++;
	int rc;

	/* a child fails exactly one hit; an earlier error stops forking */
	if (s->in_child || s->error || !sweep_hit_expected(s, run, p, hit))
		return false;
	if (s->runs[run].skip)
		return false;
	rc = spawn(s, (uint32_t)run);
	if (rc < 0)
		s->error = rc;
	return rc == 1;
}

void sweep_fp_observe(const struct sweep *s, struct fp_ctx *fp,
		      bool (*observe)(void *, enum fp_point, uint64_t), void *arg)
{
	const struct fp_rule rule = { .observe = true };

	fault_plan_arm(&s->base, fp);
	for (int p = 0; p < FP_NPOINTS; p++)
		if (s->selected[p])
			fp_arm(fp, (enum fp_point)p, &rule);
	fp->observe = observe;
	fp->observe_arg = arg;
}

static int count_pass(struct sweep *s)
{
	struct fp_ctx fp;
	int rc;

	sweep_fp_observe(s, &fp, count_observe, s);
	s->count_fp = &fp;
	/* a merge forks no run: it needs no digests */
	s->digests = s->o->from_scratch || s->merging ? NULL : malloc(4096 * sizeof(*s->digests));
	rc = sweep_replay(s, &fp, record_state, &s->baseline);
	s->count_fp = NULL;
	if (!rc && s->error)
		rc = s->error;
	if (rc)
		return rc;
	/* the unfailed run's rest must add nothing to a run that meets it */
	if (s->baseline != SWEEP_RECOVERED) {
		free(s->digests);
		s->digests = NULL;
	}
	for (int p = 0; p < FP_NPOINTS; p++) {
		if (!s->selected[p])
			continue;
		s->hits[p] = fp.hits[p];
		if (s->o->progress && fp.hits[p] && !s->merging)
			fprintf(s->o->progress, "sweep: %s: %llu hits\n", fp_point_name(p),
				(unsigned long long)fp.hits[p]);
	}
	s->todo = s->total;
	/*
	 * Forking needs the cache: a child forked while the parent decodes CTF
	 * and fills the cache would finish and commit that cache file as well.
	 */
	s->forking = !s->o->from_scratch && s->cached;
	s->persisting = s->forking && !s->o->fork && !s->merging && sweep_persist_available(s);
	s->uncacheable = !s->cached;
	if (s->uncacheable && !s->merging) /* once, progress or not: the counting replay said why */
		fprintf(s->o->progress ? s->o->progress : stderr,
			"sweep: the replay cache could not be written: every run decodes the trace%s\n",
			s->o->from_scratch ? "" : ", from scratch instead of forking");
	/* a sweep of a trace none of whose events is used tests only the adapters' start and end */
	if (s->events.total && !s->events.used && !s->merging)
		fprintf(s->o->progress ? s->o->progress : stderr,
			"sweep: none of the trace's %llu events is a workload event: %s\n",
			(unsigned long long)s->events.total, s->o->nmaps ?
			"the import maps take none of them (docs/import-maps.md)" :
			"another tool's trace needs an import map (--map, docs/import-maps.md)");
	if (s->o->progress && s->baseline != SWEEP_RECOVERED && !s->merging)
		fprintf(s->o->progress, "sweep: with no failure injected the run ends in %s already\n",
			sweep_outcome_names[s->baseline]);
	return 0;
}

int sweep_meet_init(struct sweep *s)
{
	/* a run claims the states it checks: at most one per doubling of its distance */
	size_t checks = 1;

	if (!s->digests)
		return 0;
	while (s->ndigests >> checks)
		checks++;
	return meet_table_init(&s->meet, s->total, s->todo * (checks + 1));
}

void sweep_hits_check(struct sweep *s, const struct fp_ctx *fp)
{
	/* the counting pass ran the same replay: differing now means it is not deterministic */
	for (int p = 0; !s->error && p < FP_NPOINTS; p++) {
		if (s->selected[p] && fp->hits[p] != s->hits[p]) {
			s->error = -ENOTRECOVERABLE;
			snprintf(s->err, s->errlen,
				 "sweep: %s was hit %llu times, then %llu: the replay is not deterministic",
				 fp_point_name(p), (unsigned long long)s->hits[p],
				 (unsigned long long)fp->hits[p]);
		}
	}
}

bool sweep_hit_expected(struct sweep *s, uint64_t run, enum fp_point p, uint64_t hit)
{
	if (run < s->total && s->runs[run].point == p && s->runs[run].nth == hit)
		return true;
	snprintf(s->err, s->errlen, "sweep: hit %llu of %s is not where the counting pass "
		 "had it: the replay is not deterministic", (unsigned long long)hit,
		 fp_point_name(p));
	s->error = -ENOTRECOVERABLE;
	return false;
}

static int fork_pass(struct sweep *s)
{
	enum sweep_outcome ignored;
	struct fp_ctx fp;
	int rc = sweep_meet_init(s);

	if (rc)
		return rc;
	sweep_fp_observe(s, &fp, fork_observe, s);
	rc = sweep_replay(s, &fp, sweep_fork_event, &ignored);
	if (!rc)
		sweep_hits_check(s, &fp);
	return rc;
}

static int scratch_pass(struct sweep *s)
{
	int rc;

	for (uint64_t r = 0; r < s->total && !s->error; r++) {
		if (s->runs[r].skip)
			continue;
		rc = spawn(s, (uint32_t)r);
		if (rc < 0)
			return rc;
		if (rc)
			scratch_replay(s, s->run);
	}
	return 0;
}

void sweep_init(struct sweep *s, const struct sweep_opts *o, char *err, size_t errlen)
{
	*s = (struct sweep){ .o = o, .err = err, .errlen = errlen, .t0 = clock_mono_s(), .journal = -1 };
	if (errlen)
		*err = '\0';
}

int sweep_plan(struct sweep *s)
{
	int rc = sweep_prepare(s);

	return rc ? rc : count_pass(s);
}

void sweep_totals_fill(const struct sweep *s, struct sweep_totals *t)
{
	memset(t, 0, sizeof(*t));
	for (int p = 0; p < FP_NPOINTS; p++) {
		t->hits += s->hits[p];
		t->recovered += s->outcomes[p][SWEEP_RECOVERED];
		t->reset += s->outcomes[p][SWEEP_RESET];
		t->violation += s->outcomes[p][SWEEP_VIOLATION];
		t->crash += s->outcomes[p][SWEEP_CRASH];
		t->hung += s->outcomes[p][SWEEP_HUNG];
	}
	t->runs = s->ended;
	t->met = s->met;
	t->followed = s->followed;
	t->findings = s->findings.n;
	t->shard_runs = s->o->shard.count ? s->todo + s->resumed : 0;
	t->resumed = s->resumed;
	t->seconds = clock_mono_s() - s->t0;
}

void sweep_free(struct sweep *s)
{
	if (s->journal >= 0)
		close(s->journal);
	finding_repro_free(s->repro, s->findings.n);
	finding_set_free(&s->findings);
	for (int p = 0; p < FP_NPOINTS; p++)
		array_free_shared(s->where[p], s->where_cap[p], sizeof(*s->where[p]));
	meet_table_fini(&s->meet);
	free(s->runs);
	array_free_shared(s->failures, s->failures_cap, sizeof(*s->failures));
	free(s->digests);
	pool_fini(&s->pool);
	for (size_t i = 0; s->maps && i < s->o->nmaps; i++)
		free(s->maps[i]);
	free(s->maps);
	free(s->faults);
	free(s->out);
	free(s->scenario);
	free(s->trace);
	fault_plan_free(&s->base);
	scenario_free(&s->scn);
}

/* The runs (this shard's not yet booked), each in a child; every one booked. */
static int run_all(struct sweep *s)
{
	int rc, wrc;

	if (s->o->progress)
		fprintf(s->o->progress, "sweep: %llu runs to do (%s)\n", (unsigned long long)s->todo,
			s->persisting ? "in persistent workers" :
			s->forking ? "forking at each hit" : "from scratch");
	progress_begin(&s->runs_progress, s->o->progress, "sweep", "runs", s->todo);
	rc = s->persisting ? sweep_persist_pass(s) : s->forking ? fork_pass(s) : scratch_pass(s);
	progress_end(&s->runs_progress);
	/* whatever happened, no child is left behind */
	wrc = sweep_reap_all(s);
	if (!rc)
		rc = s->error ? s->error : wrc;
	if (!rc)
		rc = book_followers(s);
	return rc;
}

int sweep_run(const struct sweep_opts *o, struct sweep_totals *t, char *err, size_t errlen)
{
	struct sweep s;
	int rc;

	memset(t, 0, sizeof(*t));
	sweep_init(&s, o, err, errlen);
	/*
	 * Every fork copies the page-table entry of each resident page, and
	 * the parent forks at each hit. glibc raises its mmap threshold when a
	 * large block is freed (the reserve seed's 2 MiB buffer is one), after
	 * which large blocks come from the heap and stay resident, freed or
	 * not: a fixed threshold keeps them in their own mappings, returned on
	 * free and present only where touched (half the parent's pages here).
	 */
	mallopt(M_MMAP_THRESHOLD, SWEEP_MMAP_THRESHOLD);
	rc = sweep_plan(&s);
	if (!rc && o->shard.count)
		rc = sweep_shard_begin(&s);
	if (!rc)
		rc = run_all(&s);
	if (!rc)
		rc = o->shard.count ? sweep_shard_end(&s) : sweep_summary_write(&s);
	if (rc && !*err)
		snprintf(err, errlen, "sweep: %s", strerror(-rc));
	sweep_totals_fill(&s, t);
	if (!rc && o->report && !o->shard.count)
		sweep_report_findings(&s, o->report);
	sweep_free(&s);
	return rc;
}
