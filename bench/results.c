/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/array.h"
#include "common/json.h"
#include "results.h"
#include "code.h"
#include "config.h"
#include "version.h"

int results_init(struct results *r, const char *const *ops, size_t nops)
{
	int rc;

	memset(r, 0, sizeof(*r));
	if (nops > RESULTS_MAX_OPS)
		return -EINVAL;
	r->nops = nops;
	for (size_t i = 0; i < nops; i++) {
		r->ops[i].name = ops[i];
		rc = hist_init(&r->ops[i].wall, 3);
		if (!rc)
			rc = hist_init(&r->ops[i].modeled, 3);
		if (rc)
			goto fini;
	}
	rc = hist_init(&r->power.time_to_complete, 3);
	if (!rc)
		return 0;
fini:
	results_fini(r);
	return rc;
}

void results_fini(struct results *r)
{
	for (size_t i = 0; i < RESULTS_MAX_OPS; i++) {
		hist_fini(&r->ops[i].wall);
		hist_fini(&r->ops[i].modeled);
	}
	hist_fini(&r->power.time_to_complete);
	free(r->violations);
	r->violations = NULL;
	r->nviolations = r->violations_cap = 0;
	free(r->refused.v);
	free(r->unmatched.v);
	r->refused = r->unmatched = (struct event_notes){ 0 };
}

int results_add_note(struct event_notes *list, const struct event_note *note)
{
	if (list->n == RESULTS_MAX_LISTED)
		return 0;
	if (array_reserve(&list->v, &list->cap, list->n, sizeof(*list->v)))
		return -ENOMEM;
	list->v[list->n++] = *note;
	return 0;
}

int results_add_violation(struct results *r, const struct violation_result *v)
{
	if (array_reserve(&r->violations, &r->violations_cap, r->nviolations, sizeof(*r->violations)))
		return -ENOMEM;
	r->violations[r->nviolations++] = *v;
	return 0;
}

void results_build_json(struct json *j)
{
	json_str(j, "git_rev", GPUISO_GIT_REV);
	json_str(j, "code", GPUISO_CODE_ID);
	json_str(j, "build", GPUISO_BUILD);
}

static void power_paths(struct json *j, const char *key, const struct power_paths *p)
{
	json_obj_begin(j, key);
	json_u64(j, "transitions", p->transitions);
	json_u64(j, "completed", p->completed);
	json_u64(j, "pinned", p->pinned);
	json_u64(j, "chunked", p->chunked);
	json_u64(j, "reset", p->reset);
	json_obj_end(j);
}

/* "overflow" only where values were above the histogram's range: its percentiles there are lower bounds */
static void percentiles(struct json *j, const char *key, const struct hist *h)
{
	static const double p[] = { 50, 90, 99, 99.9 };
	uint64_t v[ARRAY_SIZE(p)];

	hist_percentiles(h, p, ARRAY_SIZE(p), v);
	json_obj_begin(j, key);
	json_u64(j, "p50", v[0]);
	json_u64(j, "p90", v[1]);
	json_u64(j, "p99", v[2]);
	json_u64(j, "p999", v[3]);
	json_u64(j, "max", h->total ? h->max : 0);
	json_double(j, "mean", hist_mean(h));
	if (h->overflow)
		json_u64(j, "overflow", h->overflow);
	json_obj_end(j);
}

static void dma_records(struct json *j, const char *name, const struct dma_record *d, size_t n,
			bool blocked)
{
	json_arr_begin(j, name);
	for (size_t i = 0; i < n; i++) {
		json_obj_begin(j, NULL);
		json_u64(j, "event", d[i].event);
		json_u64(j, "ts_ns", d[i].ts_ns);
		json_u64(j, "adapter", d[i].adapter);
		json_u64(j, "phys", d[i].phys);
		json_u64(j, "address", d[i].address);
		json_str(j, "access", d[i].write ? "write" : "read");
		json_str(j, blocked ? "reason" : "how", d[i].what);
		if (blocked) {
			if (d[i].domain == UINT32_MAX)
				json_null(j, "domain");
			else
				json_u64(j, "domain", d[i].domain);
			json_u64(j, "hw_reason", d[i].hw_reason);
		} else {
			json_u64(j, "bytes", d[i].bytes);
		}
		if (d[i].has_by) {
			json_u64(j, "by_event", d[i].by_event);
			json_u64(j, "by_ts_ns", d[i].by_ts_ns);
			json_str(j, "by_op", d[i].by_op[0] ? d[i].by_op : NULL);
		}
		json_obj_end(j);
	}
	json_arr_end(j);
}

/* A list of refused or unmatched events: not metrics (the counts under "events" are). */
static void notes(struct json *j, const char *key, const struct event_notes *list)
{
	json_arr_begin(j, key);
	for (size_t i = 0; i < list->n; i++) {
		json_obj_begin(j, NULL);
		json_u64(j, "event", list->v[i].event);
		json_u64(j, "ts_ns", list->v[i].ts_ns);
		json_str(j, "name", list->v[i].name);
		json_str(j, "reason", list->v[i].reason);
		json_obj_end(j);
	}
	json_arr_end(j);
}

/* "dma": the counts by reason (exact metrics), then the first records in full. */
static void dma_json(struct json *j, const struct dma_result *d)
{
	json_obj_begin(j, "dma");
	json_u64(j, "blocked", d->blocked);
	json_obj_begin(j, "blocked_by");
	for (size_t i = 0; i < d->ncauses; i++)
		json_u64(j, d->blocked_by[i].name, d->blocked_by[i].n);
	json_obj_end(j);
	json_u64(j, "exposed", d->exposed);
	json_obj_begin(j, "exposed_by");
	for (size_t i = 0; i < d->nhows; i++)
		json_u64(j, d->exposed_by[i].name, d->exposed_by[i].n);
	json_obj_end(j);
	dma_records(j, "blocked_first", d->blocked_first, d->nblocked_kept, true);
	dma_records(j, "exposed_first", d->exposed_first, d->nexposed_kept, false);
	json_obj_end(j);
}

static void write_doc(const struct results *r, struct json *j)
{
	const struct run_info *run = &r->run;

	json_obj_begin(j, NULL);
	json_str(j, "schema", "gpuiso-results/1");
	json_obj_begin(j, "run");
	json_str(j, "id", run->id);
	json_str(j, "started", run->started);
	results_build_json(j);
	json_str(j, "host", run->host);
	json_str(j, "backend", run->backend);
	json_str(j, "trace", run->trace);
	json_str(j, "scenario", run->scenario[0] ? run->scenario : NULL);
	json_str(j, "faults", run->faults[0] ? run->faults : NULL);
	json_u64(j, "seed", run->seed);
	json_arr_begin(j, "maps");
	for (unsigned int i = 0; i < run->nmaps; i++)
		json_str(j, NULL, run->maps[i]);
	json_arr_end(j);
	if (run->repeat)
		json_u64(j, "repeat", run->repeat);
	if (run->trace_covers[0])
		json_str(j, "trace_covers", run->trace_covers);
	json_obj_begin(j, "inputs");
	for (unsigned int i = 0; i < run->ninputs; i++)
		json_str(j, run->inputs[i].path, run->inputs[i].digest);
	json_obj_end(j);
	json_obj_end(j);
	json_obj_begin(j, "events");
	json_u64(j, "total", r->events.total);
	json_u64(j, "used", r->events.used);
	json_u64(j, "ignored", r->events.ignored);
	json_u64(j, "unmatched", r->events.unmatched);
	json_u64(j, "discarded", r->events.discarded);
	json_u64(j, "lost_packets", r->events.lost_packets);
	json_u64(j, "not_run", r->events.not_run);
	json_u64(j, "refused", r->events.refused);
	json_u64(j, "left_live", r->events.left_live);
	json_u64(j, "live_at_start", r->events.live_at_start);
	json_obj_end(j);
	notes(j, "refusals", &r->refused);
	notes(j, "unmatched_events", &r->unmatched);
	json_obj_begin(j, "ops");
	for (size_t i = 0; i < r->nops; i++) {
		const struct op_result *op = &r->ops[i];

		if (!op->count)
			continue;
		json_obj_begin(j, op->name);
		json_u64(j, "count", op->count);
		json_u64(j, "errors", op->errors);
		percentiles(j, "latency_ns", &op->wall);
		percentiles(j, "modeled_ns", &op->modeled);
		json_obj_end(j);
	}
	json_obj_end(j);
	json_obj_begin(j, "power");
	json_u64(j, "transitions", r->power.transitions);
	json_u64(j, "completed", r->power.completed);
	json_u64(j, "reset", r->power.reset);
	json_u64(j, "pinned", r->power.pinned);
	json_u64(j, "chunked", r->power.chunked);
	json_u64(j, "chunks", r->power.chunks);
	json_u64(j, "bytes", r->power.bytes);
	json_u64(j, "longest_stall_ns", r->power.longest_stall_ns);
	power_paths(j, "to_d3", &r->power.to_d3);
	power_paths(j, "to_d0", &r->power.to_d0);
	percentiles(j, "time_to_complete_ns", &r->power.time_to_complete);
	json_obj_end(j);
	json_obj_begin(j, "faults");
	json_obj_begin(j, "injected");
	for (size_t i = 0; i < r->ninjected; i++)
		json_u64(j, r->injected[i].name, r->injected[i].n);
	json_obj_end(j);
	json_arr_begin(j, "violations");
	for (size_t i = 0; i < r->nviolations; i++) {
		json_obj_begin(j, NULL);
		json_str(j, "code", r->violations[i].code);
		json_u64(j, "event", r->violations[i].event);
		json_u64(j, "ts_ns", r->violations[i].ts_ns);
		json_bool(j, "at_teardown", r->violations[i].at_teardown);
		json_str(j, "party", r->violations[i].by_os ? "os" : "driver");
		json_str(j, "detail", r->violations[i].detail);
		json_obj_end(j);
	}
	json_arr_end(j);
	dma_json(j, &r->dma);
	json_obj_end(j);
	json_obj_begin(j, "invariants");
	for (size_t i = 0; i < r->ninvariants; i++)
		json_bool(j, r->invariants[i].name, r->invariants[i].holds);
	json_obj_end(j);
	json_obj_end(j);
}

static void fill(struct json *j, const void *r)
{
	write_doc(r, j);
}

int results_write_json(const struct results *r, const char *path)
{
	return json_write_file(path, fill, r);
}
