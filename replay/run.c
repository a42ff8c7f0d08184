/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#define LOG_PREFIX "replay"
#include "common/array.h"
#include "common/clock.h"
#include "common/digest_path.h"
#include "common/host.h"
#include "common/log.h"
#include "common/progress.h"
#include "common/yaml.h"
#include "replay.h"
#include "replay/cache.h"
#include "replay/ctf.h"
#include "replay/etl.h"
#include "replay/import.h"
#include "replay/source.h"
#include "replay/machine.h"

/* A replay: a model, an engine, and where the events come from. */
struct run {
	const struct replay_opts *o;
	struct replay_engine *engine;
	struct replay_report *rep;
	struct results *res;        /* where refused and unmatched events are listed, or NULL */
	struct cache_writer *cache;
	struct import_map *map;     /* translating foreign events, or NULL */
	uint64_t records;           /* workload events executed (by the executing thread) */
	struct replay_events *into; /* reading only: events kept here, not executed */
	const struct wl_event *events; /* replaying from memory: the events, or NULL */
	size_t nevents;
	bool looked;                /* in the cache for the trace: */
	int found;                  /* cache_find()'s return (-ENOENT: the cache is not used) */
	struct cache_entry entry;   /* when found is 0: the trace's content key and digests */
	struct run_input *input[CACHE_MAX_INPUTS]; /* the trace's and maps' among the results' inputs */
	struct progress progress;   /* of the events executed */
};

_Static_assert(REPLAY_MAX_MAPS < CACHE_MAX_INPUTS, "the cache keys on the trace and every map");

/* Reading only: one workload event appended to the events in memory. */
static int keep(struct run *r, const struct wl_event *e)
{
	struct replay_events *evs = r->into;

	if (array_reserve(&evs->ev, &evs->cap, evs->n, sizeof(*evs->ev))) {
		snprintf(r->rep->error, sizeof(r->rep->error),
			 "out of memory reading event %zu into memory", evs->n);
		return -ENOMEM;
	}
	evs->ev[evs->n++] = *e;
	r->records++;
	return 0;
}

/* One workload event into the model (@ctx: the run). */
static int apply(void *ctx, uint64_t index, const struct wl_event *e)
{
	struct run *r = ctx;
	int rc;

	if (r->into)
		return keep(r, e);
	if (r->o->before_event)
		r->o->before_event(r->engine, index, r->o->before_event_arg);
	rc = engine_apply(r->engine, e, index);

	if (rc < 0) {
		snprintf(r->rep->error, sizeof(r->rep->error), "%s",
			 rc == -EINVAL ? engine_error(r->engine) : strerror(-rc));
		return rc;
	}
	r->records++;
	progress_tick(&r->progress, r->records);
	return 0;
}

/* One decoded workload event: into the cache being built, then to the model. */
static int execute(void *ctx, uint64_t index, struct wl_event *e)
{
	struct run *r = ctx;

	if (r->cache && cache_writer_add(r->cache, index, e)) {
		cache_writer_abort(r->cache);
		r->cache = NULL;
	}
	return apply(r, index, e);
}

/* A foreign event an import map did not match, listed in the results (@ctx: the run). */
static void unmatched(void *ctx, uint64_t index, uint64_t ts, const char *event, const char *why)
{
	struct run *r = ctx;
	struct event_note n = { .event = index, .ts_ns = ts };

	if (!r->res)
		return;
	snprintf(n.name, sizeof(n.name), "%s", event);
	snprintf(n.reason, sizeof(n.reason), "%s", why);
	if (results_add_note(&r->res->unmatched, &n))
		log_err("out of memory listing event %llu (%s: %s)", (unsigned long long)index, event,
			why);
}

/*
 * The trace's entry in the replay cache (r->entry): found by its files'
 * identity, else by their content (hashed).
 */
static void find_cache(const struct replay_opts *o, struct run *r)
{
	r->looked = true;
	/* --strict judges the trace's event classes, which the cache does not keep */
	r->found = -ENOENT;
	if (o->cache && !o->strict)
		r->found = cache_find(o->cache_dir, o->trace, o->maps, o->nmaps, &r->entry);
}

/* A digest as run files record it (digest_path_hex()). */
static void digest_hex(uint64_t digest, char out[DIGEST_HEX_LEN])
{
	snprintf(out, DIGEST_HEX_LEN, "%016llx", (unsigned long long)digest);
}

/*
 * The cache file an identity file named is missing or damaged: hash the
 * trace (it is to be decoded anyway), in case the identity file is what
 * is wrong; the results then record the digests read. Return: 0, or
 * cache_hash()'s error (then the cache is not used).
 */
static int rehash_cache(const struct replay_opts *o, struct run *r)
{
	int rc = cache_hash(o->trace, o->maps, o->nmaps, &r->entry);

	for (size_t i = 0; !rc && i < r->entry.ninputs; i++)
		if (r->input[i])
			digest_hex(r->entry.digest[i], r->input[i]->digest);
	return rc;
}

/* The trace's cache file is good: record the identity it was found by, if it was hashed. */
static void remember_cache(const struct replay_opts *o, struct run *r)
{
	int rc = cache_remember(o->cache_dir, &r->entry);

	if (rc) /* the replay is fine; later ones will hash the trace, and should know why */
		log_warn("cannot record the trace's identity in the replay cache: %s", strerror(-rc));
}

/*
 * Events from the cache if it holds this trace, else from CTF (filling the
 * cache): to the model (replay_run()), or into memory (replay_read()).
 */
static int feed(const struct replay_opts *o, struct run *r)
{
	struct replay_report *rep = r->rep;
	struct cache_entry *ce = &r->entry;
	struct cache_meta meta = { 0 };
	struct wl_source_counts counts = { 0 };
	struct ctf_stats st = { 0 };
	char path[4096], err[512] = "";
	int rc;

	if (!r->looked)
		find_cache(o, r);
	if (!r->found && !cache_path(o->cache_dir, ce->key, path, sizeof(path))) {
		rc = cache_read(path, ce->key, apply, r, &meta);
		if ((rc == -ENOENT || rc == -ESTALE) && ce->by_identity && !r->records) {
			uint64_t key = ce->key;

			if (rehash_cache(o, r))
				goto decode;
			if (ce->key != key && !cache_path(o->cache_dir, ce->key, path, sizeof(path)))
				rc = cache_read(path, ce->key, apply, r, &meta);
		}
		if (!rc || (rc != -ENOENT && rc != -ESTALE)) {
			rep->from_cache = !rc;
			rep->cache_by_identity = !rc && ce->by_identity;
			rep->events = meta.events;
			rep->used = meta.events - meta.ignored - meta.unmatched;
			rep->ignored = meta.ignored;
			rep->unmatched = meta.unmatched;
			rep->live_at_start = meta.unmatched_ends;
			rep->discarded = meta.discarded;
			rep->lost_packets = meta.lost_packets;
			rep->first_ts = meta.first_ts;
			rep->last_ts = meta.last_ts;
			if (!rc)
				remember_cache(o, r);
			return rc;
		}
		if (r->records) {
			/* cache_read() checks a file whole before it delivers: one written in place between its readings */
			snprintf(rep->error, sizeof(rep->error),
				 "%llu events of a stale replay cache reached the model before it was "
				 "found stale", (unsigned long long)r->records);
			return -EIO;
		}
		if (rc == -ESTALE)
			log_info("cache %s does not match the trace: rebuilding it", path);
		rc = cache_writer_open(path, ce->key, &r->cache);
		if (rc) {
			/* the replay goes on from CTF; later ones will too, and should know why */
			log_warn("cannot write the replay cache %s: %s", path, strerror(-rc));
			r->cache = NULL;
		}
	}
decode:
	/* the decoder is a process of its own: the model runs here while it decodes ahead */
	rc = wl_source_read(&(struct wl_source){ .trace = o->trace, .map = r->map,
						 .strict = o->strict, .unmatched = unmatched },
			    execute, r, &st, &counts, err, sizeof(err));
	/* events after a loss whose objects' creation was lost were not used (the cache keeps this) */
	rep->used = counts.used;
	rep->unmatched = counts.unmatched;
	rep->live_at_start = counts.unmatched_ends;
	if (r->engine) {
		rep->used -= engine_losses(r->engine)->skipped;
		rep->unmatched += engine_losses(r->engine)->skipped;
	}
	rep->events = st.events;
	rep->ignored = st.events - rep->used - rep->unmatched;
	rep->discarded = st.discarded;
	rep->lost_packets = st.lost_packets;
	rep->first_ts = st.first_ts;
	rep->last_ts = st.last_ts;
	rep->decoder_peak_rss = st.decoder_peak_rss;
	if (rc && !rep->error[0]) {
		snprintf(rep->error, sizeof(rep->error), "%s", err);
	}
	if (r->cache && !rc) {
		meta = (struct cache_meta){ .events = st.events, .records = r->records,
					    .ignored = rep->ignored, .unmatched = rep->unmatched,
					    .discarded = st.discarded, .lost_packets = st.lost_packets,
					    .first_ts = st.first_ts,
					    .last_ts = st.last_ts,
					    .unmatched_ends = counts.unmatched_ends };
		rep->cache_written = !cache_writer_commit(r->cache, &meta);
		if (rep->cache_written)
			remember_cache(o, r);
	} else if (r->cache) {
		cache_writer_abort(r->cache);
	}
	r->cache = NULL;
	return rc;
}

/*
 * Record @path, if any, with the digest of its content among the run's
 * inputs: @digest when the replay cache knows it (r->entry), else hashed.
 * Return: where it was recorded, or NULL.
 */
static struct run_input *add_input(struct run_info *ri, const char *path, const uint64_t *digest)
{
	struct run_input *in = &ri->inputs[ri->ninputs];

	if (!path || !*path || ri->ninputs == ARRAY_SIZE(ri->inputs))
		return NULL;
	if (digest)
		digest_hex(*digest, in->digest);
	else if (digest_path_hex(path, in->digest))
		return NULL; /* what cannot be read fails the run itself, with its reason */
	snprintf(in->path, sizeof(in->path), "%s", path);
	ri->ninputs++;
	return in;
}

/*
 * @from_trace: the events come from o->trace (digested among the inputs,
 * with the maps; r->input says where), else from memory.
 */
static void run_info(const struct replay_opts *o, bool from_trace, struct run *r,
		     struct run_info *ri)
{
	const uint64_t *known = r->looked && !r->found ? r->entry.digest : NULL;
	time_t now = time(NULL);
	struct tm tm;

	gmtime_r(&now, &tm);
	strftime(ri->started, sizeof(ri->started), "%Y-%m-%dT%H:%M:%SZ", &tm);
	snprintf(ri->id, sizeof(ri->id), "%s-%d", ri->started, (int)getpid());
	if (o->repeat) /* repeats of one command start in the same second */
		snprintf(ri->id + strlen(ri->id), sizeof(ri->id) - strlen(ri->id), "-r%u", o->repeat);
	ri->repeat = o->repeat;
	snprintf(ri->trace_covers, sizeof(ri->trace_covers), "%s", trace_covers_name(o->covers));
	host_name(ri->host, sizeof(ri->host));
	snprintf(ri->backend, sizeof(ri->backend), "%s",
		 o->backend ? o->backend : o->scn->backend ? o->scn->backend : "sim");
	snprintf(ri->trace, sizeof(ri->trace), "%s", o->trace ? o->trace : "");
	snprintf(ri->scenario, sizeof(ri->scenario), "%s", o->scenario_path ? o->scenario_path : "");
	snprintf(ri->faults, sizeof(ri->faults), "%s", o->faults_path ? o->faults_path : "");
	ri->seed = o->seed;
	for (ri->nmaps = 0; ri->nmaps < o->nmaps && ri->nmaps < ARRAY_SIZE(ri->maps); ri->nmaps++)
		snprintf(ri->maps[ri->nmaps], sizeof(ri->maps[0]), "%s", o->maps[ri->nmaps]);
	if (from_trace)
		r->input[0] = add_input(ri, o->trace, known);
	add_input(ri, o->scenario_path, NULL);
	add_input(ri, o->faults_path, NULL);
	for (size_t i = 0; from_trace && i < o->nmaps; i++) {
		struct run_input *in = add_input(ri, o->maps[i], known ? &known[i + 1] : NULL);

		if (i + 1 < CACHE_MAX_INPUTS)
			r->input[i + 1] = in;
	}
}

/* Events in memory (r->events, r->nevents), event i as index i: the source of replay_run_events(). */
static int feed_memory(const struct replay_opts *o, struct run *r)
{
	struct replay_report *rep = r->rep;
	int rc = 0;

	(void)o;
	for (size_t i = 0; i < r->nevents && !rc; i++)
		rc = apply(r, i, &r->events[i]);
	rep->events = r->nevents;
	rep->used = r->nevents - engine_losses(r->engine)->skipped;
	rep->unmatched = engine_losses(r->engine)->skipped;
	if (r->nevents) {
		rep->first_ts = r->events[0].ts;
		rep->last_ts = r->events[r->nevents - 1].ts;
	}
	return rc;
}

_Static_assert(WL_NKINDS <= RESULTS_MAX_OPS, "the results hold an operation of every kind");

/* A fresh model of o->scn fed by @source; replay_run() and replay_run_events(). */
static int run_model(const struct replay_opts *o, struct run *r,
		     int (*source)(const struct replay_opts *o, struct run *r), struct results *res)
{
	struct replay_report *rep = r->rep;
	struct hw_backend be = { 0 };
	const char *names[WL_NKINDS];
	const struct core_violation *internal;
	const struct replay_refusal *refusals;
	struct core *core = NULL;
	struct fp_ctx fp, *fpc = NULL;
	uint64_t t0 = clock_mono_ns();
	struct rusage ru;
	int rc;

	memset(rep, 0, sizeof(*rep));
	for (int k = 0; k < WL_NKINDS; k++)
		names[k] = wl_catalogue[k].name;
	rc = results_init(res, names, WL_NKINDS);
	if (rc)
		goto say_errno;
	if (source == feed)
		find_cache(o, r); /* before run_info(): it knows the trace's digest */
	run_info(o, source == feed, r, &res->run);
	r->res = res;
	rc = machine_open(o->scn, o->backend, &be, rep->error, sizeof(rep->error));
	if (rc)
		return rc;
	{
		struct hw_caps caps;

		be.hw->ops->query_caps(be.hw, &caps);
		snprintf(rep->backend, sizeof(rep->backend), "%s", caps.name);
	}
	rc = core_create(o->scn, &be, &core);
	if (rc) {
		hw_backend_close(&be);
		goto say_errno;
	}
	if (o->fp) {
		fpc = o->fp;
	} else if (o->faults) {
		fault_plan_arm(o->faults, &fp);
		fpc = &fp;
	}
	core_set_faults(core, fpc);
	core_start(core);
	rc = engine_create(core, res, o->pace, &r->engine);
	if (rc)
		goto destroy_core;
	engine_set_tracing(r->engine, !o->notrace);
	engine_set_timing(r->engine, !o->untimed);
	engine_set_covers(r->engine, o->covers);
	rep->covers = o->covers;
	if (o->faults)
		engine_set_pressure(r->engine, o->faults->steps, o->faults->nsteps);
	if (source == feed && o->nmaps) {
		rc = import_map_load(o->maps, o->nmaps, &r->map, rep->error, sizeof(rep->error));
		if (rc) {
			goto destroy_engine;
		}
	}
	progress_begin(&r->progress, o->progress, "replay", "events", 0);
	rc = source(o, r);
	progress_end(&r->progress);
	import_map_free(r->map);
	r->map = NULL;
	rep->lost = *engine_losses(r->engine);
	rep->not_run = engine_after_bugcheck(r->engine);
	rep->used -= rep->not_run;
	if (core_bugcheck(core)) {
		rep->bugchecked = true;
		rep->bugcheck_event = core_bugcheck(core)->event;
		rep->bugcheck_ts = core_bugcheck(core)->ts_ns;
	}
	/* the count is set by the call: read it only after (argument order is unspecified) */
	refusals = engine_refusals(r->engine, &rep->nrefusals, &rep->refused);
	memcpy(rep->refusals, refusals, rep->nrefusals * sizeof(*rep->refusals));
	res->events = (struct event_counts){ .total = rep->events, .used = rep->used,
					     .ignored = rep->ignored, .unmatched = rep->unmatched,
					     .discarded = rep->discarded, .lost_packets = rep->lost_packets,
					     .refused = rep->refused, .not_run = rep->not_run };
	if (!rc) {
		rep->left_live = engine_live(r->engine);
		res->events.left_live = rep->left_live;
		res->events.live_at_start = rep->live_at_start;
		if (o->after_events)
			o->after_events(r->engine, o->after_events_arg);
		engine_finish(r->engine);
		rep->internal_errors = core_internal_errors(core, &internal);
		if (internal)
			snprintf(rep->first_internal, sizeof(rep->first_internal),
				 "event %llu (%llu ns): %s", (unsigned long long)internal->event,
				 (unsigned long long)internal->ts_ns, internal->detail);
		for (int p = 0; fpc && p < FP_NPOINTS; p++) {
			struct named_count *nc = &res->injected[res->ninjected];

			if (!fpc->injected[p] || res->ninjected == RESULTS_MAX_NAMED)
				continue;
			snprintf(nc->name, sizeof(nc->name), "%s", fp_point_name(p));
			nc->n = fpc->injected[p];
			res->ninjected++;
		}
	}
	if (o->finished)
		o->finished(res, rc, o->finished_arg);
destroy_engine:
	engine_destroy(r->engine);
	r->engine = NULL;
destroy_core:
	core_destroy(core);
	hw_backend_close(&be);
	rep->wall_s = (double)(clock_mono_ns() - t0) / 1e9;
	if (!getrusage(RUSAGE_SELF, &ru))
		rep->peak_rss = (uint64_t)ru.ru_maxrss * 1024;
	if (!rc)
		return 0;
say_errno:
	if (!rep->error[0])
		snprintf(rep->error, sizeof(rep->error), "%s", strerror(-rc));
	return rc;
}

int replay_run(const struct replay_opts *o, struct results *res, struct replay_report *rep)
{
	struct run r = { .o = o, .rep = rep };

	return run_model(o, &r, feed, res);
}

int replay_run_events(const struct replay_opts *o, const struct wl_event *events, size_t n,
		      struct results *res, struct replay_report *rep)
{
	struct run r = { .o = o, .rep = rep, .events = events, .nevents = n };

	return run_model(o, &r, feed_memory, res);
}

int replay_read(const struct replay_opts *o, struct replay_events *evs, struct replay_report *rep)
{
	struct run r = { .o = o, .rep = rep, .into = evs };
	int rc;

	memset(rep, 0, sizeof(*rep));
	*evs = (struct replay_events){ 0 };
	if (o->nmaps) {
		rc = import_map_load(o->maps, o->nmaps, &r.map, rep->error, sizeof(rep->error));
		if (rc)
			return rc;
	}
	rc = feed(o, &r);
	import_map_free(r.map);
	if (rc && !rep->error[0])
		snprintf(rep->error, sizeof(rep->error), "%s", strerror(-rc));
	if (rc)
		replay_events_free(evs);
	return rc;
}

void replay_events_free(struct replay_events *evs)
{
	free(evs->ev);
	*evs = (struct replay_events){ 0 };
}

bool replay_findings(const struct results *res)
{
	if (res->nviolations || res->dma.blocked || res->dma.exposed)
		return true;
	for (size_t i = 0; i < res->ninvariants; i++)
		if (!res->invariants[i].holds)
			return true;
	return false;
}

/* "blocked DMA: N (after_free 1, ...)" and "exposed: ...", each with the first few in full. */
static void dma_summary(const struct dma_result *d, FILE *out)
{
	static const struct {
		const char *name, *says;
	} why[] = {
		{ "not_mapped", "nothing mapped there" },
		{ "beyond_range", "beyond the domain's logical range" },
		{ "domain_switch", "during a switch of domains (exclusive access)" },
		{ "reserved", "in the interrupt window the IOMMU reserves" },
		{ "after_unmap", "after it was unmapped" },
		{ "after_free", "after it was freed" },
		{ "no_domain", "no IOMMU domain: physical memory reached" },
		{ "stale", "a stale address the IOMMU still translates (its unmap refused, or mapped again since)" },
	};
	const struct {
		const char *title;
		uint64_t n;
		const struct named_count *by;
		size_t nby, kept;
		const struct dma_record *first;
	} kinds[] = {
		{ "blocked DMA", d->blocked, d->blocked_by, d->ncauses, d->nblocked_kept,
		  d->blocked_first },
		{ "EXPOSED: DMA that reached memory its device was not given", d->exposed,
		  d->exposed_by, d->nhows, d->nexposed_kept, d->exposed_first },
	};

	for (size_t k = 0; k < ARRAY_SIZE(kinds); k++) {
		const char *sep = " (";

		if (!kinds[k].n)
			continue;
		fprintf(out, "%s: %llu", kinds[k].title, (unsigned long long)kinds[k].n);
		for (size_t i = 0; i < kinds[k].nby; i++)
			if (kinds[k].by[i].n) {
				fprintf(out, "%s%s %llu", sep, kinds[k].by[i].name,
					(unsigned long long)kinds[k].by[i].n);
				sep = ", ";
			}
		fprintf(out, ")\n");
		for (size_t i = 0; i < kinds[k].kept && i < 5; i++) {
			const struct dma_record *r = &kinds[k].first[i];
			const char *says = r->what;

			for (size_t w = 0; w < ARRAY_SIZE(why); w++)
				if (!strcmp(why[w].name, r->what))
					says = why[w].says;
			fprintf(out, "  event %llu at %llu ns: adapter %u phys %u %s at %#llx",
				(unsigned long long)r->event, (unsigned long long)r->ts_ns, r->adapter,
				r->phys, r->write ? "write" : "read", (unsigned long long)r->address);
			if (r->bytes)
				fprintf(out, " (%llu bytes)", (unsigned long long)r->bytes);
			fprintf(out, ": %s", says);
			if (r->has_by)
				fprintf(out, " at event %llu (%s, %llu ns)", (unsigned long long)r->by_event,
					r->by_op[0] ? r->by_op : "?", (unsigned long long)r->by_ts_ns);
			fputc('\n', out);
		}
		if (kinds[k].n > 5)
			fprintf(out, "  ... %llu more (all of them: --json OUT, faults.dma)\n",
				(unsigned long long)(kinds[k].n - 5));
	}
}

/* One listed event: "refused: event 3 at 4000 ns (dma): STATUS_INVALID_ADDRESS". */
static void summary_note(FILE *out, const char *what, const struct event_note *n)
{
	fprintf(out, "%s: event %llu at %llu ns (%s): %s\n", what, (unsigned long long)n->event,
		(unsigned long long)n->ts_ns, n->name, n->reason);
}

void replay_summary(const struct results *res, const struct replay_report *rep, bool verbose,
		    FILE *out)
{
	size_t shown;

	fprintf(out, "trace: %s\n", res->run.trace);
	fprintf(out, "backend: %s\n", rep->backend);
	fprintf(out, "events: %llu in the trace: %llu used, %llu ignored, %llu unmatched%s\n",
		(unsigned long long)rep->events, (unsigned long long)rep->used,
		(unsigned long long)rep->ignored, (unsigned long long)rep->unmatched,
		rep->from_cache ? " (from the replay cache)" : "");
	if (rep->refused)
		fprintf(out, "refused: %llu operations the model refused\n",
			(unsigned long long)rep->refused);
	if (!rep->events)
		fprintf(out, "EMPTY: the trace holds no event (its stream files are empty, or missing)\n");
	else if (!rep->used && !res->run.nmaps)
		fprintf(out, "NOTHING USED: no event is a gpuiso workload event; another tool's "
			"trace needs an import map (--map, docs/import-maps.md%s)\n",
			etl_file_is(res->run.trace) ? "; Windows' DxgKrnl events: "
			"traces/maps/windows-dxgkrnl.yaml" : "");
	if (rep->discarded)
		fprintf(out, "INCOMPLETE: the tracer discarded %llu events\n",
			(unsigned long long)rep->discarded);
	if (rep->lost_packets)
		fprintf(out, "INCOMPLETE: %llu packets of the trace were lost (their events unknown)\n",
			(unsigned long long)rep->lost_packets);
	if (rep->lost.skipped || rep->lost.ended)
		fprintf(out, "  after the loss: %llu events named objects whose creation was lost "
			"(not executed: unmatched), %llu ids were created again whose end was lost "
			"(the old object ended first)\n",
			(unsigned long long)rep->lost.skipped, (unsigned long long)rep->lost.ended);
	if (rep->bugchecked)
		fprintf(out, "STOPPED: bugcheck at event %llu (%llu ns): a WDDM 3.2 driver called back at DISPATCH_LEVEL; the %llu events after it were not executed\n",
			(unsigned long long)rep->bugcheck_event, (unsigned long long)rep->bugcheck_ts,
			(unsigned long long)rep->not_run);
	fprintf(out, "time: %.3f s wall, trace span %.3f s\n", rep->wall_s,
		(double)(rep->last_ts - rep->first_ts) / 1e9);
	fprintf(out, "memory: peak RSS %.1f MiB", (double)rep->peak_rss / (1 << 20));
	if (rep->decoder_peak_rss)
		fprintf(out, ", and %.1f MiB in its trace decoder (a child process)",
			(double)rep->decoder_peak_rss / (1 << 20));
	fputc('\n', out);
	fprintf(out, "\n%-18s %10s %7s %10s %10s %10s\n", "operation", "count", "errors", "p50 ns",
		"p99 ns", "max ns");
	for (size_t i = 0; i < res->nops; i++) {
		static const double p[] = { 50, 99 };
		const struct op_result *op = &res->ops[i];
		uint64_t v[ARRAY_SIZE(p)];

		if (!op->count)
			continue;
		hist_percentiles(&op->wall, p, ARRAY_SIZE(p), v);
		fprintf(out, "%-18s %10llu %7llu %10llu %10llu %10llu\n", op->name,
			(unsigned long long)op->count, (unsigned long long)op->errors,
			(unsigned long long)v[0], (unsigned long long)v[1],
			(unsigned long long)op->wall.max);
	}
	for (size_t i = 0; i < res->nops; i++)
		if (res->ops[i].wall.overflow)
			fprintf(out, "OUT OF RANGE: %llu %s latencies above %llu ns (73 min), counted "
				"as that: a percentile of that value means at least it\n",
				(unsigned long long)res->ops[i].wall.overflow, res->ops[i].name,
				(unsigned long long)HIST_TOP);
	fprintf(out, "\npower: %llu transitions, %llu completed (%llu pinned, %llu chunked), %llu reset\n",
		(unsigned long long)res->power.transitions, (unsigned long long)res->power.completed,
		(unsigned long long)res->power.pinned, (unsigned long long)res->power.chunked,
		(unsigned long long)res->power.reset);
	for (size_t i = 0; i < res->ninjected; i++)
		fprintf(out, "%s%s %llu%s", i ? ", " : "faults injected: ", res->injected[i].name,
			(unsigned long long)res->injected[i].n, i + 1 == res->ninjected ? "\n" : "");
	/* each refused and each unmatched event with -v; else the first ten refused */
	for (shown = 0; shown < res->refused.n && (verbose || shown < 10); shown++)
		summary_note(out, "refused", &res->refused.v[shown]);
	if (rep->refused > shown && verbose)
		fprintf(out, "refused: ... %llu more, not listed (past the first %d)\n",
			(unsigned long long)(rep->refused - shown), RESULTS_MAX_LISTED);
	else if (rep->refused > shown)
		fprintf(out, "refused: ... %llu more (-v lists each)\n",
			(unsigned long long)(rep->refused - shown));
	for (shown = 0; verbose && shown < res->unmatched.n; shown++)
		summary_note(out, "unmatched", &res->unmatched.v[shown]);
	if (verbose && rep->unmatched > shown && rep->from_cache)
		fprintf(out, "unmatched: ... %llu more, not listed (foreign events an import map did "
			"not match: the replay cache keeps their count only, --no-cache lists them)\n",
			(unsigned long long)(rep->unmatched - shown));
	else if (verbose && rep->unmatched > shown)
		fprintf(out, "unmatched: ... %llu more, not listed (past the first %d)\n",
			(unsigned long long)(rep->unmatched - shown), RESULTS_MAX_LISTED);
	/* the choice is said even when nothing was left live: it decides what the count means */
	fprintf(out, "left live by the trace: %zu objects%s (--trace-covers %s: %s)\n", rep->left_live,
		!rep->left_live ? "" : rep->bugchecked ? " when the machine stopped (not judged)"
		: rep->covers == COVERS_LIFE ? ", leaked" : ", released at the end",
		trace_covers_name(rep->covers),
		rep->covers == COVERS_LIFE ? "the adapters' whole life" : "a window of a longer run");
	/* a window is not judged by what it leaves live, but one that grew is worth a look */
	if (rep->covers == COVERS_WINDOW && !rep->bugchecked && rep->left_live > rep->live_at_start)
		fprintf(out, "GREW: the window ends with %zu live objects and began with %llu (those it "
			"frees without creating them): %llu more\n", rep->left_live,
			(unsigned long long)rep->live_at_start,
			(unsigned long long)(rep->left_live - rep->live_at_start));
	if (rep->internal_errors)
		fprintf(out, "INTERNAL ERROR: %llu impossible states of the model, a bug of gpuiso (please report it); the first at %s\n",
			(unsigned long long)rep->internal_errors, rep->first_internal);
	dma_summary(&res->dma, out);
	fprintf(out, "violations: %zu\n", res->nviolations);
	for (size_t i = 0; i < res->nviolations && i < 20; i++)
		fprintf(out, "  %s at event %llu: %s\n", res->violations[i].code,
			(unsigned long long)res->violations[i].event, res->violations[i].detail);
	for (size_t i = 0; i < res->ninvariants; i++)
		if (!res->invariants[i].holds)
			fprintf(out, "invariant broken: %s\n", res->invariants[i].name);
}
