/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_BENCH_RESULTS_H
#define GPUISO_BENCH_RESULTS_H

#include <stdio.h>

#include "bench/hist.h"
#include "common/json.h"
#include "common/digest_path.h"

/*
 * What one run measured, in the shape of the results JSON contract
 * (gpuiso-results/1): per operation counts, errors and latency histograms
 * (wall clock and modeled device time), the power transitions, injected
 * faults, verifier violations and invariants.
 */

#define RESULTS_MAX_OPS 64 /* the workload kinds: a record's head has room for 64 (replay/record.c) */
#define RESULTS_MAX_NAMED 64

struct op_result {
	const char *name;
	uint64_t count, errors;
	struct hist wall;    /* ns */
	struct hist modeled; /* ns */
};

/* Transitions of one direction, by outcome. */
struct power_paths {
	uint64_t transitions, completed, pinned, chunked, reset;
};

struct power_result {
	uint64_t transitions, completed, reset, pinned, chunked, chunks, bytes;
	uint64_t longest_stall_ns; /* longest wait without progress in any transition */
	struct power_paths to_d3, to_d0;
	struct hist time_to_complete; /* ns */
};

struct named_count {
	char name[48];
	uint64_t n;
};

struct violation_result {
	char code[32];
	uint64_t event;
	uint64_t ts_ns;    /* its event's timestamp */
	bool at_teardown;  /* found as the adapters stopped, after the last event */
	bool by_os;        /* the rule is the OS's own (the model's), not the driver's */
	char detail[200];
};

/*
 * A DMA the IOMMU blocked, or one that reached memory the device was not
 * given (docs/model.md, "Blocked DMA"), as a run keeps it.
 */
struct dma_record {
	uint64_t event, ts_ns;
	unsigned int adapter, phys;
	uint64_t address;     /* blocked: the first page refused; exposed: where the access began */
	uint64_t bytes;       /* exposed: its length; blocked: 0 */
	bool write;
	char what[16];        /* blocked: the cause ("after_free"); exposed: how ("no_domain") */
	uint32_t domain;      /* blocked: the domain the device was in (UINT32_MAX: none) */
	unsigned int hw_reason; /* blocked: the hardware's fault reason (VT-d's numbering) */
	bool has_by;          /* blocked after an unmap or free: the event that did it */
	uint64_t by_event, by_ts_ns;
	char by_op[32];
};

#define RESULTS_DMA_KEPT 64   /* records kept in full of each kind; all are counted */
#define RESULTS_DMA_CAUSES 8

struct dma_result {
	uint64_t blocked, exposed;
	size_t ncauses, nhows;     /* every cause and way the model has, counted even when 0 */
	struct named_count blocked_by[RESULTS_DMA_CAUSES], exposed_by[RESULTS_DMA_CAUSES];
	size_t nblocked_kept, nexposed_kept;
	struct dma_record blocked_first[RESULTS_DMA_KEPT], exposed_first[RESULTS_DMA_KEPT];
};

struct invariant_result {
	const char *name;
	bool holds;
};

/* An input file of a run (or a folder: a trace) and the digest of its content. */
struct run_input {
	char path[512];
	char digest[DIGEST_HEX_LEN]; /* of its content (common/digest_path.h) */
};

struct run_info {
	char id[48];          /* unique per run */
	char started[32];     /* ISO 8601 UTC */
	char host[64];
	char backend[32];
	char trace[512];
	char scenario[512];
	char faults[512];
	uint64_t seed;
	char maps[8][256];    /* import maps, in order */
	unsigned int nmaps;
	unsigned int repeat;  /* which of repeated runs of one command (1..), or 0 */
	char trace_covers[8]; /* "window" or "life" (replay --trace-covers), or "" */
	struct run_input inputs[11]; /* trace, scenario, faults, maps: what the run read */
	unsigned int ninputs;
};

/* What became of the trace's events. */
struct event_counts {
	uint64_t total;       /* events in the trace */
	uint64_t used;        /* became workload operations */
	uint64_t ignored;     /* of classes nothing takes, or filtered out by a map */
	uint64_t unmatched;   /* foreign events whose object a map could not pair */
	uint64_t discarded;   /* lost by the tracer: the trace is incomplete */
	uint64_t lost_packets; /* packets lost by the tracer (their events unknown) */
	uint64_t refused;     /* operations the model refused */
	uint64_t left_live;   /* objects the trace created and never freed */
	uint64_t live_at_start; /* objects the trace ends and never created: live before it began */
	uint64_t not_run;     /* after a bugcheck: the machine had stopped */
};

/*
 * One event of the trace that was refused, or left unmatched: what the
 * results' lists say of each (the counts are in struct event_counts).
 */
struct event_note {
	uint64_t event;  /* its index in the trace */
	uint64_t ts_ns;  /* its timestamp */
	char name[64];   /* the workload event's name, or the foreign event's class */
	char reason[96]; /* why it was refused, or why it was not matched */
};

/* The first RESULTS_MAX_LISTED notes of one kind, in trace order. */
#define RESULTS_MAX_LISTED 10000

struct event_notes {
	size_t n, cap;
	struct event_note *v;
};

struct results {
	struct run_info run;
	struct event_counts events;
	struct event_notes refused;   /* each refused event (events.refused counts them all) */
	struct event_notes unmatched; /* each unmatched event (events.unmatched counts them all) */
	size_t nops;
	struct op_result ops[RESULTS_MAX_OPS];
	struct power_result power;
	size_t ninjected;
	struct named_count injected[RESULTS_MAX_NAMED];
	size_t nviolations, violations_cap;
	struct violation_result *violations;
	struct dma_result dma;
	size_t ninvariants;
	struct invariant_result invariants[16];
};

/**
 * results_init() - empty results for operations named @ops.
 * @r: the results.
 * @ops: operation names (must outlive @r), at most RESULTS_MAX_OPS.
 * @nops: how many.
 *
 * Return: 0, -EINVAL (more than RESULTS_MAX_OPS).
 */
int results_init(struct results *r, const char *const *ops, size_t nops);

/** results_fini() - free what results_init() and the adders allocated. @r. */
void results_fini(struct results *r);

/**
 * results_add_violation() - record one violation.
 * @r: the results.
 * @v: the violation (copied).
 *
 * Return: 0, -ENOMEM.
 */
int results_add_violation(struct results *r, const struct violation_result *v);

/**
 * results_add_note() - list one refused or unmatched event.
 * @list: &r->refused or &r->unmatched.
 * @note: the event (copied).
 *
 * Past RESULTS_MAX_LISTED notes in @list, the note is left out: the count
 * in struct event_counts still has it.
 *
 * Return: 0, -ENOMEM (not listed).
 */
int results_add_note(struct event_notes *list, const struct event_note *note);

/**
 * results_build_json() - which build wrote a file, as keys of the current
 * object: "git_rev", "code" (the source tree) and "build" (how it was built);
 * the results store tells runs of the same code apart by them.
 * @j: the writer.
 */
void results_build_json(struct json *j);

/**
 * results_write_json() - write gpuiso-results/1 to @path atomically (or to
 * stdout for "-").
 * @r: the results.
 * @path: file.
 *
 * Return: 0 or a negative errno.
 */
int results_write_json(const struct results *r, const char *path);

#endif
