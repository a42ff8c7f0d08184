/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_REPLAY_TRIM_H
#define GPUISO_REPLAY_TRIM_H

#include <stdio.h>

#include "core/scenario.h"
#include "faults/faults.h"
#include "replay/replay.h"
#include "replay/verdict.h"

/*
 * Trimming a trace (`gpuiso trace trim`, docs/trace-events.md, "Trimming a
 * trace"): the smallest part of a failing run's trace that still breaks
 * the same way. Delta debugging (ddmin) over units of events that keep
 * object lifetimes whole: an object's events, a power-down with the
 * power-up after it, an IRQL raise with its lowering. The failures the
 * whole trace's run injected (its plan's, and the one of --fail-nth) are
 * held where they fell: every candidate fails the same hit of the same
 * event, wherever its count is now, and no other. A part reproduces when
 * its replay's verdict is verdict_same() as the whole trace's and the
 * --fail-nth failure, if any, is reached. The result is written as CTF and
 * replayed from disk, armed as its reproducer arms it, before it is
 * reported.
 */

/* The replays a trim may spend when trim_opts.max_replays is 0. */
#define TRIM_MAX_REPLAYS 50000

struct trim_opts {
	const char *trace;            /* the trace folder (or a folder above it) */
	const struct scenario *scn;   /* the machine and adapters */
	const char *scenario_path;    /* its file, for the reproduce command; NULL: built-in */
	const char *program;          /* the gpuiso the reproduce command names, or NULL: "gpuiso" */
	enum trace_covers covers;     /* what the trace covers, as replay --trace-covers */
	const char *const *maps;      /* import maps for a foreign trace, as replay_opts */
	size_t nmaps;
	bool cache;                   /* read the trace through the compiled replay cache */
	const char *cache_dir;        /* NULL: $XDG_CACHE_HOME/gpuiso */
	const struct fault_plan *base; /* the whole trace's plan, or NULL: its failures stay
				       * where its run drew them, its pressure steps at the
				       * same events (trim.c) */
	const char *base_path;        /* its file, for the reproduce command */
	bool fail;                    /* a failure is injected: point's hit nth fails (the base
				       * plan must leave the point unarmed) */
	enum fp_point point;
	uint64_t nth;                 /* 1-based, as replay --fail-nth POINT:N */
	const char *out;              /* the trimmed trace's folder: must not exist or be empty */
	FILE *progress;               /* progress lines, or NULL */
	uint64_t max_replays;         /* at most this many replays to trim (two more replay
				       * what was kept: from memory, then from disk);
				       * 0: TRIM_MAX_REPLAYS */
	void (*beat)(void *arg);      /* called as each replay starts (a watchdog's), or NULL */
	void *beat_arg;
};

struct trim_result {
	uint64_t events;      /* workload events of the trace */
	uint64_t kept;        /* events of the trimmed trace */
	uint64_t units;       /* units of the trace (trimming drops whole units) */
	uint64_t kept_units;  /* units of the trimmed trace */
	uint64_t nth;         /* with a failure: the hit of the point to fail in the trimmed trace */
	bool plan;            /* the trimmed run's plan was written to OUT.faults.yaml */
	struct verdict verdict; /* the trace's, which the trimmed trace reproduces */
	uint64_t replays;     /* replays spent (the final check from disk included) */
	bool budget_spent;    /* stopped at max_replays: a smaller trace may reproduce too */
	double seconds;
};

/**
 * trim_run() - trim @o->trace to a trace that breaks the same way, write it
 * to @o->out and check that it does.
 * @o: options.
 * @r: out: what was kept and what it cost.
 * @err: out: on failure, what went wrong and where.
 * @errlen: size of @err.
 *
 * The trace's events are read once (replay_read()); every candidate is
 * replayed from memory (replay_run_events()), untimed and untraced. The
 * trimmed trace keeps the events' timestamps. When @o->base arms a point or
 * has a pressure step at an event, the trimmed run's plan is written to
 * @o->out.faults.yaml (fault_plan_write()): the hits its failures fall on,
 * @o->point's among them, and the steps at the trimmed trace's events. The
 * trimmed trace is then replayed from @o->out through replay_run(), armed
 * with that plan, or else with @o->base and @o->point's hit @r->nth as the
 * command line arms them, and must give a verdict_same() as the trace's
 * with the same failures, at the same hits, as its last replay from memory.
 *
 * Return: 0; -EINVAL for bad input (the trace or options; a run that
 * recovers, with nothing to trim; a failure that is never reached; a trace
 * the tracer lost events of), -EEXIST (@o->out exists and is not empty),
 * -EPROTO (the trimmed trace did not reproduce from disk: not reported),
 * -E2BIG (the trimmed run fails one point more than FP_RULE_HITS times),
 * -ENOMEM, or another negative errno of the machine.
 */
int trim_run(const struct trim_opts *o, struct trim_result *r, char *err, size_t errlen);

/**
 * trim_reproducer() - the command that replays the trimmed trace as it
 * breaks: "gpuiso replay OUT [--scenario S] [--faults BASE] [--trace-covers life]
 * [--fail-nth POINT:N']", or with "--faults OUT.faults.yaml" when the plan
 * was written (replay_command_write()).
 * @o: the trim's options.
 * @r: its result.
 * @f: where to write it (no newline).
 *
 * Return: 0, -ENAMETOOLONG (the plan's path), or -EIO when @f reports a
 * write error.
 */
int trim_reproducer(const struct trim_opts *o, const struct trim_result *r, FILE *f);

#endif
