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
 * power-up after it, an IRQL raise with its lowering. A part reproduces
 * when its replay's verdict is verdict_same() as the whole trace's and an
 * injected failure, if any, fails the same hit of the same event. The
 * result is written as CTF and replayed from disk, with the failure armed
 * as `gpuiso replay --fail-nth` arms it, before it is reported.
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
	const struct fault_plan *base; /* rules and pressure every replay runs under, or NULL */
	const char *base_path;        /* its file, for the reproduce command */
	bool fail;                    /* a failure is injected: point's hit nth fails (the base
				       * plan must leave the point unarmed) */
	enum fp_point point;
	uint64_t nth;                 /* 1-based, as replay --fail-nth POINT:N */
	const char *out;              /* the trimmed trace's folder: must not exist or be empty */
	FILE *progress;               /* progress lines, or NULL */
	uint64_t max_replays;         /* at most this many replays to trim (the check from
				       * disk is one more); 0: TRIM_MAX_REPLAYS */
	void (*beat)(void *arg);      /* called as each replay starts (a watchdog's), or NULL */
	void *beat_arg;
};

struct trim_result {
	uint64_t events;      /* workload events of the trace */
	uint64_t kept;        /* events of the trimmed trace */
	uint64_t units;       /* units of the trace (trimming drops whole units) */
	uint64_t kept_units;  /* units of the trimmed trace */
	uint64_t nth;         /* with a failure: the hit of the point to fail in the trimmed trace */
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
 * trimmed trace keeps the events' timestamps. It is then replayed from @o->out
 * through replay_run(), @o->point's hit @r->nth armed with
 * fault_plan_fail_nth() as the command line arms it, and must give a
 * verdict_same() as the trace's, with that one failure injected at the
 * trimmed trace's copy of the original event.
 *
 * Return: 0; -EINVAL for bad input (the trace or options; a run that
 * recovers, with nothing to trim; a failure that is never reached; a trace
 * the tracer lost events of), -EEXIST (@o->out exists and is not empty),
 * -EPROTO (the trimmed trace did not reproduce from disk: not reported),
 * -ENOMEM, or another negative errno of the machine.
 */
int trim_run(const struct trim_opts *o, struct trim_result *r, char *err, size_t errlen);

/**
 * trim_reproducer() - the command that replays the trimmed trace as it
 * breaks: "gpuiso replay OUT [--scenario S] [--faults BASE] [--trace-covers life]
 * [--fail-nth POINT:N']" (replay_command_write()).
 * @o: the trim's options.
 * @r: its result.
 * @f: where to write it (no newline).
 *
 * Return: 0, or -EIO when @f reports a write error.
 */
int trim_reproducer(const struct trim_opts *o, const struct trim_result *r, FILE *f);

#endif
