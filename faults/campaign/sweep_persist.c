/* SPDX-License-Identifier: MIT */
/*
 * Persistent sweep workers. A fork per run costs the process's size (its
 * page tables copied, its pages faulted in as they are written, all torn
 * down at exit) where a run that stops at a meet does little work. So a
 * worker instead replays the trace once, unfailed, and branches at each
 * hit it has been given: it takes a snapshot there (common/snap.h: the
 * pages written since the last one), fails the hit and runs on until the
 * run ends (at a meet, or at the end of the trace), hands its end to the
 * parent, restores the snapshot (the pages the run wrote) and lets the hit
 * pass. A run costs the pages it writes, not the process's size.
 *
 * Worker k of n takes the runs r with r % n == k. Each run's end goes to
 * the parent in shared memory (struct persist_end, and its verdict), and a
 * byte down the worker's pool pipe wakes the parent to book it. A worker
 * says which run it is in (persist_out.current) before it begins it: when
 * it dies, or the watch kills it (no progress, or a run past
 * --run-timeout: the limit counts from each run's beginning,
 * watch_run_begins()), that run is booked as crashed or hung, and a fresh
 * worker does the rest of the runs it had (the parent's bookings, which it
 * inherits at fork(), say which are done).
 *
 * A branch is a forked child in all but the process: the same hooks
 * (sweep.c), meets and outcomes; it leaves through sweep_run_leave(),
 * which comes here. What the snapshot does not hold, the worker keeps
 * itself: struct sweep (on the main stack, outside the snapshot) is saved
 * before a branch and put back after it.
 */
#include <errno.h>
#include <malloc.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/child.h"
#include "common/snap.h"
#include "common/sparse.h"
#include "faults/campaign/sweep_internal.h"

/* The replay's stack in a worker (reserved, used as touched). */
#define PERSIST_STACK ((size_t)2 << 20)
/* The heap grows by this much more each time: growth costs a whole copy of what it adds. */
#define PERSIST_TOP_PAD (4 << 20)

enum persist_run_state { PERSIST_WAITING = 0, PERSIST_ENDED };

/* How a run ended, as its worker hands it to the parent (shared memory, one per run). */
struct persist_end {
	_Atomic uint32_t state;
	int status;        /* as sweep_run_leave() */
	bool has_verdict;  /* persist_pass.verdicts[run] holds it */
};

/* What a worker hands its parent besides its runs (shared memory, one per worker). */
struct persist_out {
	_Atomic uint64_t current; /* 1 + the run it is in, or 0 */
	int rc;                   /* the error it stopped with, or 0 */
	char err[1024];           /* ... and what it said */
	struct snap_stats snap;   /* what its snapshots cost, once it has done its runs */
	uint64_t events;          /* events its runs began after their hits ... */
	uint64_t events_to_end;   /* ... of those, in runs that went to the end of the trace */
	uint64_t runs_to_end;
};

/* The parent's side of the pass; a worker reads it, and writes the shared parts. */
struct persist_pass {
	struct sweep *s;
	size_t n;                  /* workers */
	struct persist_out *out;   /* n, shared */
	struct snap_stats snap;    /* the workers' snapshots, summed */
	uint64_t events, events_to_end, runs_to_end; /* the workers' runs', summed */
	struct persist_end *ends;  /* s->total, shared */
	struct verdict *verdicts;  /* s->total, shared, touched only for runs that send one */
	size_t out_bytes, ends_bytes, verdicts_bytes;
	uint64_t *cursor;          /* n: the first run of each worker's not yet booked */
	uint64_t *spawned_at;      /* n: ... when the worker was forked */
	bool *respawn;             /* n: a fresh worker is to do the rest of the worker's runs */
};

/* A worker's own state: on its main stack, which the snapshots leave alone. */
struct sweep_persist {
	struct persist_pass *pass;
	struct snap *sn;
	size_t k;          /* which worker */
	uint64_t run;      /* the run whose hit it yielded at */
	bool at_hit;       /* it yielded at a hit (else: a branch left) */
	bool fail;         /* the hit fails (a branch), or passes (after the restore) */
	bool to_end;       /* the branch went to the end of the trace */
	int rc;            /* its unfailed replay's error */
};

bool sweep_persist_available(struct sweep *s)
{
	char why[512];
	int rc = snap_probe(why, sizeof(why));

	if (!rc && child_fork_traced()) {
		/* a worker would run LTTng-UST's threads again: snapshots need one thread */
		snprintf(why, sizeof(why), "gpuiso's tracepoints are being recorded, and a worker "
			 "would be traced with threads of its own");
		rc = -EOPNOTSUPP;
	}
	if (!rc)
		return true;
	fprintf(s->o->progress ? s->o->progress : stderr,
		"sweep: persistent workers are not available here: %s: forking at each hit\n", why);
	return false;
}

/* ---- in a worker ------------------------------------------------------------ */

/* The worker's observe hook: at a hit of its own, it branches (its controller decides). */
static bool persist_observe(void *arg, enum fp_point p, uint64_t hit)
{
	struct sweep *s = arg;
	struct sweep_persist *w = s->persist;
	uint64_t run = s->seen++;

	if (s->in_child || s->error || !sweep_hit_expected(s, run, p, hit))
		return false;
	if (run % w->pass->n != w->k || s->runs[run].skip || s->runs[run].ended)
		return false;
	w->run = run;
	w->at_hit = true;
	snap_yield(w->sn);
	/* the branch fails it; once the snapshot is back, it passes */
	return w->fail;
}

/* The worker's replay, on the snapshots' stack: unfailed, branching at its hits. */
static void persist_replay(void *arg)
{
	struct sweep *s = arg;
	enum sweep_outcome ignored;
	struct fp_ctx fp;
	int rc;

	sweep_fp_observe(s, &fp, persist_observe, s);
	rc = sweep_replay(s, &fp, sweep_fork_event, &ignored);
	if (!rc)
		sweep_hits_check(s, &fp);
	s->persist->rc = rc ? rc : s->error;
}

_Noreturn void sweep_persist_leave(struct sweep *s, int status, const struct verdict *v)
{
	struct sweep_persist *w = s->persist;
	struct persist_end *end = &w->pass->ends[s->run];

	/* first: a process named sweep-run is in a run that has not ended */
	prctl(PR_SET_NAME, "sweep-worker", 0, 0, 0);
	if (v)
		w->pass->verdicts[s->run] = *v;
	end->status = status;
	end->has_verdict = v != NULL;
	w->to_end = status >= SWEEP_EXIT_BASE && status - SWEEP_EXIT_BASE < SWEEP_EXIT_MET;
	atomic_store_explicit(&end->state, PERSIST_ENDED, memory_order_release);
	w->at_hit = false;
	snap_yield(w->sn);
	/* a branch is never resumed from where it left: the restore puts it back at its hit */
	abort();
}

/* A worker stops: what went wrong goes to the parent. */
static _Noreturn void worker_stop(struct sweep *s, struct persist_out *out, int rc, const char *what)
{
	out->rc = rc;
	if (what)
		snprintf(out->err, sizeof(out->err), "sweep: a persistent worker: %s: %s", what,
			 strerror(-rc));
	else if (rc && *s->err)
		snprintf(out->err, sizeof(out->err), "%s", s->err);
	else if (rc)
		snprintf(out->err, sizeof(out->err), "sweep: a persistent worker: %s", strerror(-rc));
	_exit(rc ? SWEEP_EXIT_ERROR : 0);
}

/* Run one branch from the hit the replay yielded at; back at the hit, unfailed, when it returns. */
static void worker_branch(struct sweep *s, struct sweep_persist *w, struct persist_out *out)
{
	struct sweep saved;
	int rc = snap_take(w->sn);

	if (rc)
		worker_stop(s, out, rc, "the snapshot could not be taken");
	saved = *s;
	atomic_store_explicit(&out->current, w->run + 1, memory_order_release);
	watch_run_begins(s->beat);
	/* named for ps and /proc/PID/comm while in a run, as a forked run is */
	prctl(PR_SET_NAME, "sweep-run", 0, 0, 0);
	/* as a child forked at the hit begins */
	s->in_child = true;
	s->run = (uint32_t)w->run;
	s->next_check = s->event;
	s->check_step = 1;
	w->at_hit = false;
	w->fail = true;
	if (snap_resume(w->sn) || w->at_hit)
		worker_stop(s, out, -ENOTRECOVERABLE, "a run went on past its end");

	atomic_store_explicit(&out->current, 0, memory_order_release);
	watch_run_ends(s->beat);
	out->events += s->event - saved.event;
	if (w->to_end) {
		out->events_to_end += s->event - saved.event;
		out->runs_to_end++;
	}
	/* wake the parent to book it (it reads what this wrote before it) */
	pool_send(&s->pool, s->slot, "", 1);
	rc = snap_restore(w->sn);
	if (rc)
		worker_stop(s, out, rc, "the snapshot could not be restored");
	*s = saved;
	w->fail = false;
}

/* Worker @k: replay once, branching at each hit of its own. Never returns. */
static _Noreturn void persist_worker(struct sweep *s, struct persist_pass *pass, size_t k)
{
	struct sweep_persist w = { .pass = pass, .k = k };
	struct persist_out *out = &pass->out[k];
	char why[512];
	int rc;

	/*
	 * From here on nothing is mapped or unmapped (snap.h): blocks come from
	 * the heap, which grows by brk only, in large steps, and never shrinks.
	 */
	mallopt(M_MMAP_MAX, 0);
	mallopt(M_TRIM_THRESHOLD, -1);
	mallopt(M_TOP_PAD, PERSIST_TOP_PAD);
	sparse_chunks_from_heap(true);
	/* a huge page written once would be copied whole, both ways */
	prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0);
	rc = snap_open(&w.sn, PERSIST_STACK, why, sizeof(why));
	if (rc) {
		char what[sizeof(why) + 64];

		snprintf(what, sizeof(what), "%s (--fork forks at each hit instead)", why);
		worker_stop(s, out, rc, what);
	}
	/* cppcheck-suppress autoVariables ; the worker ends in this frame (worker_stop() exits) */
	s->persist = &w;
	for (int done = snap_start(w.sn, persist_replay, s); !done; done = snap_resume(w.sn)) {
		if (!w.at_hit)
			worker_stop(s, out, -ENOTRECOVERABLE, "the replay yielded outside a hit");
		worker_branch(s, &w, out);
	}
	snap_stats(w.sn, &out->snap);
	worker_stop(s, out, w.rc, NULL);
}

/* ---- in the parent ---------------------------------------------------------- */

static void *shared_map(size_t bytes)
{
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE,
		       -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

static void pass_fini(struct persist_pass *pass)
{
	if (pass->out)
		munmap(pass->out, pass->out_bytes);
	if (pass->ends)
		munmap(pass->ends, pass->ends_bytes);
	if (pass->verdicts)
		munmap(pass->verdicts, pass->verdicts_bytes);
	free(pass->cursor);
	free(pass->spawned_at);
	free(pass->respawn);
}

static int pass_init(struct persist_pass *pass, struct sweep *s)
{
	size_t total = s->total ? s->total : 1;

	*pass = (struct persist_pass){ .s = s, .n = s->pool.n < s->todo ? s->pool.n : s->todo };
	pass->out_bytes = pass->n * sizeof(*pass->out);
	pass->ends_bytes = total * sizeof(*pass->ends);
	pass->verdicts_bytes = total * sizeof(*pass->verdicts);
	pass->out = pass->n ? shared_map(pass->out_bytes) : NULL;
	pass->ends = shared_map(pass->ends_bytes);
	pass->verdicts = shared_map(pass->verdicts_bytes);
	pass->cursor = calloc(pass->n ? pass->n : 1, sizeof(*pass->cursor));
	pass->spawned_at = calloc(pass->n ? pass->n : 1, sizeof(*pass->spawned_at));
	pass->respawn = calloc(pass->n ? pass->n : 1, sizeof(*pass->respawn));
	if ((pass->n && !pass->out) || !pass->ends || !pass->verdicts || !pass->cursor ||
	    !pass->spawned_at || !pass->respawn) {
		pass_fini(pass);
		return -ENOMEM;
	}
	for (size_t k = 0; k < pass->n; k++)
		pass->cursor[k] = k;
	return 0;
}

/* Fork worker @k into slot @k. Return: 0 or a negative errno (@s->err says what). */
static int worker_spawn(struct persist_pass *pass, size_t k)
{
	struct sweep *s = pass->s;
	pid_t pid;

	pass->respawn[k] = false;
	pass->spawned_at[k] = pass->cursor[k];
	pass->out[k] = (struct persist_out){ 0 };
	pid = pool_fork(&s->pool, k, k, "sweep-worker", SWEEP_EXIT_ERROR);
	if (pid < 0) {
		snprintf(s->err, s->errlen, "sweep: fork for a persistent worker: %s",
			 strerror((int)-pid));
		return (int)pid;
	}
	if (!pid) {
		s->beat = pool_beat(&s->pool, k);
		s->slot = k;
		/* replaying up to its first hit is no run: the run limit waits for one */
		watch_run_ends(s->beat);
		persist_worker(s, pass, k);
	}
	return 0;
}

/* Book the runs the workers have ended, each worker's in order. */
static void book_ended(struct persist_pass *pass)
{
	struct sweep *s = pass->s;

	for (size_t k = 0; k < pass->n; k++) {
		uint64_t r = pass->cursor[k];

		for (; r < s->total; r += pass->n) {
			struct persist_end *end = &pass->ends[r];

			if (s->runs[r].skip || s->runs[r].ended)
				continue;
			if (atomic_load_explicit(&end->state, memory_order_acquire) != PERSIST_ENDED)
				break;
			sweep_run_ended(s, (uint32_t)r, W_EXITCODE(end->status, 0), false,
					end->has_verdict ? &pass->verdicts[r] : NULL);
		}
		pass->cursor[k] = r;
	}
}

/* Whether worker @k has runs left that no one has ended. */
static bool runs_left(const struct persist_pass *pass, size_t k)
{
	const struct sweep *s = pass->s;

	for (uint64_t r = pass->cursor[k]; r < s->total; r += pass->n)
		if (!s->runs[r].skip && !s->runs[r].ended)
			return true;
	return false;
}

/* Worker @i ended with @status: book the run it was in, if any, and have its rest done. */
static void worker_ended(void *arg, const struct pool *p, size_t i, int status)
{
	struct persist_pass *pass = arg;
	struct sweep *s = pass->s;
	const struct persist_out *out = &pass->out[i];
	uint64_t current = atomic_load_explicit(&out->current, memory_order_acquire);
	bool killed = p->slots[i].killed && WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;

	book_ended(pass);
	if (current && !s->runs[current - 1].ended) {
		/* it ended the worker: crashed, or hung */
		sweep_run_ended(s, (uint32_t)(current - 1), status, killed, NULL);
		pass->respawn[i] = runs_left(pass, i);
		return;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && !out->rc) {
		pass->snap.restores += out->snap.restores;
		pass->snap.pages_restored += out->snap.pages_restored;
		pass->snap.bytes = GPUISO_MAX(pass->snap.bytes, out->snap.bytes);
		pass->events += out->events;
		pass->events_to_end += out->events_to_end;
		pass->runs_to_end += out->runs_to_end;
		if (!runs_left(pass, i))
			return;
		snprintf(s->err, s->errlen, "sweep: a persistent worker ended with runs not done");
	} else if (out->rc) {
		snprintf(s->err, s->errlen, "%s", out->err);
	} else if (pass->cursor[i] != pass->spawned_at[i] && runs_left(pass, i)) {
		/* killed from outside between two runs: a fresh one goes on from there */
		pass->respawn[i] = true;
		return;
	} else if (killed) {
		snprintf(s->err, s->errlen, "sweep: a persistent worker stalled in the replay with no "
			 "failure, outside any run, before its first run ended");
	} else {
		snprintf(s->err, s->errlen, "sweep: a persistent worker ended (status %#x) in the "
			 "replay with no failure, outside any run, before its first run ended",
			 (unsigned int)status);
	}
	if (!s->error)
		s->error = out->rc ? out->rc : -ECHILD;
}

int sweep_persist_pass(struct sweep *s)
{
	struct persist_pass pass;
	int rc = sweep_meet_init(s);

	if (!rc)
		rc = pass_init(&pass, s);
	if (rc)
		return rc;
	for (size_t k = 0; k < pass.n && !rc; k++)
		rc = worker_spawn(&pass, k);
	while (!rc && !s->error && s->pool.running) {
		rc = pool_wait(&s->pool, worker_ended, &pass);
		book_ended(&pass);
		for (size_t k = 0; k < pass.n && !rc && !s->error; k++)
			if (pass.respawn[k])
				rc = worker_spawn(&pass, k);
	}
	/* whatever happened, no worker is left behind */
	pool_kill_all(&s->pool);
	progress_end(&s->runs_progress); /* the runs have ended: lines follow */
	if (!rc && !s->error && s->o->progress && pass.snap.restores) {
		fprintf(s->o->progress, "sweep: a run wrote %.0f pages on average (restored from the "
			"snapshot), of %.1f MiB under watch\n",
			(double)pass.snap.pages_restored / (double)pass.snap.restores,
			(double)pass.snap.bytes / (1 << 20));
		fprintf(s->o->progress, "sweep: the runs replayed %llu events after their hits, %llu "
			"of them in the %llu runs that went to the end of the trace\n",
			(unsigned long long)pass.events, (unsigned long long)pass.events_to_end,
			(unsigned long long)pass.runs_to_end);
	}
	pass_fini(&pass);
	return rc;
}
