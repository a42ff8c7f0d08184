/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_REPLAY_REPLAY_H
#define GPUISO_REPLAY_REPLAY_H

#include <stdio.h>

#include "bench/results.h"
#include "core/core.h"
#include "faults/plan.h"
#include "replay/event.h"

/*
 * The replay engine: workload events in, core operations out. Trace ids
 * are mapped to the handles the model gives; every event is timed (wall
 * clock from its intended issue time, and the backend's modeled time); an
 * event the model refuses is recorded with its index and timestamp and the
 * replay goes on.
 */

enum replay_pace {
	REPLAY_PACE_ASAP = 0,  /* as fast as possible */
	REPLAY_PACE_TRACE = 1, /* each event at its trace time, open loop */
};

/* An event the model refused (or that named an unknown id). */
struct replay_refusal {
	uint64_t index, ts;
	uint32_t kind;
	int rc;          /* negative errno */
	char why[96];
};

#define REPLAY_MAX_REFUSALS 64

/*
 * What a trace covers, which decides what the objects it leaves live at its
 * end are (docs/model.md, "Leaks at the end of a trace").
 */
enum trace_covers {
	COVERS_WINDOW = 0, /* a window of a longer run: they are live, released quietly at the end */
	COVERS_LIFE = 1,   /* the adapters' whole life: they leaked (HANDLE_LEAK) */
};

/** trace_covers_name() - "window" or "life". @c: the value. */
const char *trace_covers_name(enum trace_covers c);

/**
 * trace_covers_parse() - "window" or "life".
 * @s: the text.
 * @out: out: the value.
 *
 * Return: 0, or -EINVAL for any other text.
 */
int trace_covers_parse(const char *s, enum trace_covers *out);

struct replay_engine;

/**
 * engine_create() - an engine driving @core, recording into @res.
 * @core: a started model (not owned).
 * @res: results for the WL_NKINDS operations (results_init() with wl names).
 * @pace: pacing.
 * @out: out: the engine.
 *
 * Return: 0, -ENOMEM.
 */
int engine_create(struct core *core, struct results *res, enum replay_pace pace,
		  struct replay_engine **out);

/**
 * engine_set_tracing() - call the tracepoints (the default) or not.
 * @e: the engine.
 * @on: whether to.
 */
void engine_set_tracing(struct replay_engine *e, bool on);

/**
 * engine_set_timing() - record each operation's latencies in the results'
 * histograms (the default) or only count it: no clock is read nor cost
 * model asked, and its tracepoint carries zero latencies.
 * @e: the engine.
 * @on: whether to.
 */
void engine_set_timing(struct replay_engine *e, bool on);

/**
 * engine_set_pressure() - a memory-pressure schedule, applied before the
 * first event at or after each step (by index or by trace time).
 * @e: the engine.
 * @steps: the steps (must outlive the engine).
 * @n: how many.
 */
void engine_set_pressure(struct replay_engine *e, const struct pressure_step *steps, size_t n);

/**
 * engine_set_covers() - what the trace covers (COVERS_WINDOW by default); set
 * before the first event. With COVERS_LIFE the engine keeps the event that
 * created each live object, and engine_finish() leaves what the trace left
 * live to the model's teardown, which reports each as a HANDLE_LEAK.
 * @e: the engine.
 * @covers: the value.
 */
void engine_set_covers(struct replay_engine *e, enum trace_covers covers);

/** engine_destroy() - free the engine (the core is left as it is). @e: or NULL. */
void engine_destroy(struct replay_engine *e);

/**
 * engine_apply() - execute one event.
 * @e: the engine.
 * @ev: the event.
 * @index: its index in the trace (for reports).
 *
 * Return: 0 when the model did it, > 0 when the model refused it (recorded),
 * or a negative errno for input the replay cannot go on with (an id created
 * twice, a kind out of range: the message is in engine_error()).
 */
int engine_apply(struct replay_engine *e, const struct wl_event *ev, uint64_t index);

/** engine_error() - the last fatal input error's message. @e. */
const char *engine_error(const struct replay_engine *e);

/**
 * engine_refusals() - the first refused events.
 * @e: the engine.
 * @n: out: how many are listed (at most REPLAY_MAX_REFUSALS).
 * @total: out: how many there were.
 *
 * Return: the array.
 */
const struct replay_refusal *engine_refusals(const struct replay_engine *e, size_t *n,
					     uint64_t *total);

/**
 * engine_state_digest() - a digest of the replay's state between two events:
 * the model's (core_state_digest()), the trace ids live and what they name,
 * and the pressure schedule's progress.
 * @e: the engine.
 * @digest: out.
 *
 * Its parts are kept as the state changes from the first call on (in the
 * process that made it, and the processes it forks after): a call costs
 * what changed since the last one (docs/campaign-format.md).
 *
 * Return: 0, or -EOPNOTSUPP as core_state_digest().
 */
int engine_state_digest(const struct replay_engine *e, uint64_t *digest);

/**
 * engine_state_digest_full() - engine_state_digest() computed again from
 * all of the state (core_state_digest_full()), without the parts kept as
 * the state changes.
 * @e: the engine.
 * @digest: out.
 *
 * The cross-check of the kept parts (tests): the two are always equal.
 *
 * Return: 0, or -EOPNOTSUPP as core_state_digest().
 */
int engine_state_digest_full(const struct replay_engine *e, uint64_t *digest);

/**
 * engine_findings() - what the run has found so far, before the end-of-run
 * checks: a violation (or a power transition neither completed nor
 * cancelled), transitions cancelled with an adapter reset, and a digest
 * of every violation recorded so far and of those two: two runs with the
 * same digest would have the same verdict (verdict_of()) if both ended now.
 * @e: the engine.
 * @violation: out.
 * @reset: out.
 * @found: out: the digest.
 */
void engine_findings(const struct replay_engine *e, bool *violation, bool *reset, uint64_t *found);

/**
 * engine_findings_so_far() - fill @res's power, violations and invariants
 * as engine_finish() would if the rest of the run found nothing and ended
 * where a clean run ends (a forked sweep run that met the unfailed run):
 * the model is not stopped, nothing is traced.
 * @e: the engine.
 * @res: out: zeroed results (results_fini() them).
 */
void engine_findings_so_far(const struct replay_engine *e, struct results *res);

/* What a trace's lost events did to the events after them (WL_AFTER_LOSS). */
struct engine_losses {
	uint64_t skipped; /* events naming an object whose creation was lost: not executed */
	uint64_t ended;   /* ids created again whose end was lost: the old object ended first */
};

/** engine_losses() - what the trace's lost events cost so far. @e. */
const struct engine_losses *engine_losses(const struct replay_engine *e);

/**
 * engine_after_bugcheck() - events not executed because the model had
 * bugchecked before them (core_bugcheck()): the run ended there.
 * @e: the engine.
 *
 * Return: how many.
 */
uint64_t engine_after_bugcheck(const struct replay_engine *e);

/** engine_live() - trace objects still live (not freed by the trace). @e. */
size_t engine_live(const struct replay_engine *e);

/**
 * engine_handle() - the model's handle of a live trace object.
 * @e: the engine.
 * @adapter: its adapter.
 * @id: its trace id.
 *
 * Return: the handle, or 0 when no object is live under (@adapter, @id)
 * or the model refused its creation.
 */
core_handle_t engine_handle(const struct replay_engine *e, uint64_t adapter, uint64_t id);

/**
 * engine_finish() - stop the model and fill power, violation and invariant
 * results. What the trace left live (counted by engine_live() before) is
 * freed first as a driver unloading would (COVERS_WINDOW), or left to the
 * model's teardown (COVERS_LIFE): each such HANDLE_LEAK then carries the
 * index of the event that created the object, and names its trace id.
 * @e: the engine.
 */
void engine_finish(struct replay_engine *e);

/* --- a whole replay: trace (or its cache) -> model -> results --- */

/* The most import maps a command takes (--map): as many as a run file records (bench/results.h). */
#define REPLAY_MAX_MAPS 8

struct replay_opts {
	const char *trace;           /* CTF folder (or a folder above it), or a trace.dat */
	const struct scenario *scn;  /* the machine and adapters */
	const char *scenario_path;   /* for the results, or NULL for built-in defaults */
	enum replay_pace pace;
	bool strict;                 /* unknown event classes are an error */
	bool cache;                  /* use and fill the compiled replay cache */
	const char *cache_dir;       /* NULL: $XDG_CACHE_HOME/gpuiso */
	const struct fault_plan *faults; /* injection rules and pressure schedule, or NULL */
	const char *faults_path;     /* for the results */
	struct fp_ctx *fp;           /* an injection context to use as it is (sweeps), or NULL */
	uint64_t seed;               /* for the results */
	unsigned int repeat;         /* for the results: which of repeated replays (1..), or 0 */
	const char *const *maps;     /* import maps for foreign traces (docs/import-maps.md) */
	size_t nmaps;
	bool notrace;                /* skip the tracepoint calls (to measure what they cost) */
	bool untimed;                /* no latency histograms: operations are only counted (sweeps) */
	enum trace_covers covers;    /* what the trace covers: what it leaves live leaked or not */
	const char *backend;         /* "sim" (or NULL) or "vfio:BDF" (docs/backends.md) */
	FILE *progress;              /* progress of a long replay (common/progress.h), or NULL */
	/*
	 * Called with the results and the run's return code once the trace
	 * has been fed to the model (to its end or to an error), before
	 * anything is freed; not when the run could not start. Or NULL. A
	 * forked sweep run leaves from it with _exit(): tearing down its copy
	 * of the model buys nothing.
	 */
	void (*finished)(const struct results *res, int rc, void *arg);
	void *finished_arg;
	/*
	 * Called before each workload event is executed, with its index (on
	 * the thread that executes it), or NULL. A sweep reads the run's
	 * state there (engine_state_digest()); a forked run may leave from it.
	 */
	void (*before_event)(const struct replay_engine *e, uint64_t index, void *arg);
	void *before_event_arg;
	/*
	 * Called once the last event has been executed, before what the trace
	 * left live is released and the model stops (engine_finish()), or
	 * NULL: what happens after it happens at the end of the run (a trim
	 * tells a failure at the end from one in the last event with it).
	 */
	void (*after_events)(const struct replay_engine *e, void *arg);
	void *after_events_arg;
};

/*
 * What a replay did. After a replay that stopped with an error, the event
 * counts cover what was read, which may run past the event that stopped it
 * (the decoder reads ahead of the model by up to a few thousand events):
 * error says where it stopped.
 */
struct replay_report {
	char backend[32];            /* the backend ("sim", "vfio/iommufd", "vfio/type1") */
	uint64_t events;             /* events in the trace */
	uint64_t used;               /* workload events executed */
	uint64_t ignored;            /* events of other classes */
	uint64_t unmatched;          /* events naming objects never created (maps, losses) */
	uint64_t discarded;          /* events the tracer lost: the trace is incomplete */
	uint64_t lost_packets;       /* packets the tracer lost (events unknown): incomplete too */
	struct engine_losses lost;   /* what the loss did to the events after it */
	uint64_t first_ts, last_ts;
	bool from_cache;             /* events came from the compiled cache */
	bool cache_by_identity;      /* found by its files' identity: the trace was not hashed */
	bool cache_written;
	uint64_t refused;            /* events the model refused */
	size_t nrefusals;
	struct replay_refusal refusals[REPLAY_MAX_REFUSALS];
	size_t left_live;            /* objects the trace never freed (leaked with COVERS_LIFE) */
	uint64_t live_at_start;      /* objects the trace ends but never created: live before it began */
	bool bugchecked;             /* a WDDM 3.2+ driver called back at DISPATCH_LEVEL */
	uint64_t bugcheck_event, bugcheck_ts; /* then: where, and when */
	uint64_t not_run;            /* events after the bugcheck: never executed */
	uint64_t internal_errors;    /* impossible states of the model (bugs of gpuiso) */
	char first_internal[240];    /* the first: its event and what */
	enum trace_covers covers;    /* what the trace was taken to cover */
	double wall_s;
	uint64_t peak_rss;           /* bytes: this process's peak resident set so far */
	uint64_t decoder_peak_rss;   /* bytes: the trace decoder's (a child process); 0: none ran */
	char error[512];
};

/**
 * replay_run() - replay a trace through a fresh model of @o->scn.
 * @o: options.
 * @res: out: results (initialised here; results_fini() afterwards, also on error).
 * @rep: out: what happened.
 *
 * A replay from CTF runs the model in this process while the decoder, a
 * child process (replay/ctf.h), decodes ahead. A fault hook that forks
 * (a sweep's) must do so only in a replay from the cache: a process forked
 * during a read from CTF cannot read on.
 *
 * Return: 0 when the replay ran to the end (violations or refusals are
 * findings in @res and @rep), or a negative errno (whose fault it is:
 * failure_of()) with rep->error saying why.
 */
int replay_run(const struct replay_opts *o, struct results *res, struct replay_report *rep);

/**
 * replay_run_events() - replay_run() on workload events in memory instead of
 * a trace: event i has index i. Of @o, trace, maps, cache, cache_dir and
 * strict are not read (the events are already translated), except that
 * o->trace names the run in @res when set.
 * @o: options.
 * @events: the events, timestamps not decreasing.
 * @n: how many.
 * @res: out: results (initialised here; results_fini() afterwards, also on error).
 * @rep: out: what happened.
 *
 * Return: 0 or a negative errno, as replay_run().
 */
int replay_run_events(const struct replay_opts *o, const struct wl_event *events, size_t n,
		      struct results *res, struct replay_report *rep);

/* A trace's workload events in memory, in the order a replay executes them. */
struct replay_events {
	struct wl_event *ev;
	size_t n, cap;
};

/**
 * replay_read() - read the workload events of o->trace into memory as
 * replay_run() would take them (from the compiled cache if it holds the
 * trace, else from CTF through o's import maps, filling the cache), and
 * execute none.
 * @o: options: trace, strict, cache, cache_dir, maps and nmaps are read.
 * @evs: out: the events (replay_events_free() them; empty after an error).
 * @rep: out: the counts (events, used, ignored, unmatched, discarded,
 *       lost_packets, first_ts, last_ts, from_cache, cache_by_identity,
 *       cache_written), or the error.
 *
 * Events after a loss of the tracer keep WL_AFTER_LOSS; none is skipped.
 *
 * Return: 0, or a negative errno (failure_of()) with rep->error saying why.
 */
int replay_read(const struct replay_opts *o, struct replay_events *evs, struct replay_report *rep);

/** replay_events_free() - free events read by replay_read(). @evs: them (left empty). */
void replay_events_free(struct replay_events *evs);

/**
 * replay_summary() - the human summary: per operation count and p50/p99/max
 * latency, power transitions, refusals, violations, invariants.
 * @res: results.
 * @rep: the report.
 * @verbose: list each refused and each unmatched event (res->refused,
 *           res->unmatched: index, time, name, reason), not only the first
 *           ten refused (`gpuiso replay -v`).
 * @out: where.
 */
void replay_summary(const struct results *res, const struct replay_report *rep, bool verbose,
		    FILE *out);

/**
 * replay_findings() - whether the run found violations or broken invariants.
 * @res: results.
 *
 * Return: true when the replay should exit 1.
 */
bool replay_findings(const struct results *res);


#endif
