/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench/stats.h"
#include "common/array.h"
#include "common/clock.h"
#include "common/u64map.h"
#include "core/core.h"
#include "core/scenario.h"
#include "hw/backend.h"
#include "replay/cache.h"
#include "replay/ctf.h"
#include "replay/gen.h"
#include "replay/replay.h"
#include "suites.h"
#include "replay/machine.h"

/*
 * The floor suite (issue 35): what a replay from the compiled cache costs
 * against the simulator work it causes and nothing else.
 *
 * One generated desktop trace of 1M events (seed 1) on the replay suite's
 * scenario. A recording pass, apart from anything timed, runs the model
 * over the trace's events with a recorder in front of the backend's ops
 * table: every op the model calls, with its arguments (stats, the model's
 * own bookkeeping, left out), and before each event the lookups the
 * engine's live map makes for it (one for an id it creates, frees or uses,
 * one for the object it refers to; an insert for a creation, a removal for
 * a free). The floor replays that log into a fresh simulator of the same
 * machine through the same ops table, and a map of its own for the lookups:
 * the same counted simulator work, with none of the model's decisions,
 * checks, statistics or timing around it. Its counters at the end must equal
 * the model's, or the floor is not the same work and the suite fails.
 *
 * Then ROUNDS rounds, each a replay of the trace from the cache in this
 * process (replay_run(), as `gpuiso replay` does it) and then the floor;
 * the figures are CPU-time medians (this process's: the machines here are
 * shared), and the ratio the median of each round's.
 */

#define ROUNDS 5

enum floor_op {
	FL_EVENT, /* the engine's live-map lookups of one event */
	FL_DOMAIN_ALLOC,
	FL_DOMAIN_FREE,
	FL_ATTACH,
	FL_DETACH,
	FL_MAP,
	FL_UNMAP,
	FL_FLUSH,
	FL_DMA,
	FL_FAULT_POP,
	FL_VRAM_SIZE,
	FL_VRAM_RW,
	FL_VRAM_FILL,
	FL_VRAM_DIGEST,
	FL_POWER,
	FL_GPU_SUBMIT,
	FL_GPU_WAIT,
	FL_GPU_PENDING,
	FL_NOPS
};

/* FL_EVENT's flags: what the engine looks up for it */
#define FL_CREATES 1u
#define FL_FREES 2u
#define FL_USES 4u
#define FL_REFERS 8u

/* One op and its arguments, and what it returned (the check pass compares). */
struct floor_rec {
	uint8_t op;    /* enum floor_op */
	uint8_t flags; /* perm, write, dir, on; FL_EVENT: FL_CREATES... */
	int32_t rc;
	uint32_t id;   /* domain or device */
	uint64_t a, b, c;
};

struct floor_log {
	struct floor_rec *recs;
	size_t n, cap;
	uint8_t *patterns; /* vram_fill's patterns, one after the other */
	size_t npat, cappat;
	uint64_t max_len;  /* the largest CPU buffer an op used */
	uint64_t count[FL_NOPS];
	uint64_t map_pages, unmap_pages; /* pages of the maps and unmaps that succeeded */
	struct hw_stats final; /* the simulator's counters when the model was done with it */
};

/* The recorder: a backend in front of another, recording each call. */
struct recorder {
	struct hw hw;
	struct hw *inner;
	struct floor_log *log;
	int err; /* the log could not grow */
};

static struct recorder *to_rec(struct hw *hw)
{
	return container_of(hw, struct recorder, hw);
}

static struct floor_rec *rec_add(struct recorder *r, enum floor_op op, uint32_t id, uint64_t a,
				 uint64_t b, uint64_t c, unsigned int flags)
{
	struct floor_log *log = r->log;
	static struct floor_rec lost;

	if (array_reserve(&log->recs, &log->cap, log->n, sizeof(*log->recs))) {
		r->err = -ENOMEM;
		return &lost;
	}
	log->count[op]++;
	log->recs[log->n] = (struct floor_rec){ .op = (uint8_t)op, .flags = (uint8_t)flags,
						.id = id, .a = a, .b = b, .c = c };
	return &log->recs[log->n++];
}

static void rec_len(struct recorder *r, uint64_t len)
{
	r->log->max_len = GPUISO_MAX(r->log->max_len, len);
}

static void rec_destroy(struct hw *hw)
{
	struct recorder *r = to_rec(hw);

	r->inner->ops->destroy(r->inner);
	free(r);
}

static void rec_query_caps(struct hw *hw, struct hw_caps *caps)
{
	to_rec(hw)->inner->ops->query_caps(to_rec(hw)->inner, caps);
}

static int rec_domain_alloc(struct hw *hw, uint32_t *domain)
{
	struct recorder *r = to_rec(hw);
	int rc = r->inner->ops->domain_alloc(r->inner, domain);

	rec_add(r, FL_DOMAIN_ALLOC, rc ? 0 : *domain, 0, 0, 0, 0)->rc = rc;
	return rc;
}

static int rec_domain_free(struct hw *hw, uint32_t domain)
{
	struct recorder *r = to_rec(hw);
	int rc = r->inner->ops->domain_free(r->inner, domain);

	rec_add(r, FL_DOMAIN_FREE, domain, 0, 0, 0, 0)->rc = rc;
	return rc;
}

static int rec_attach(struct hw *hw, uint32_t dev, uint32_t domain)
{
	struct recorder *r = to_rec(hw);
	int rc = r->inner->ops->attach(r->inner, dev, domain);

	rec_add(r, FL_ATTACH, dev, domain, 0, 0, 0)->rc = rc;
	return rc;
}

static int rec_detach(struct hw *hw, uint32_t dev)
{
	struct recorder *r = to_rec(hw);
	int rc = r->inner->ops->detach(r->inner, dev);

	rec_add(r, FL_DETACH, dev, 0, 0, 0, 0)->rc = rc;
	return rc;
}

static int rec_map(struct hw *hw, uint32_t domain, iova_t iova, pa_t pa, uint64_t size,
		   unsigned int perm)
{
	struct recorder *r = to_rec(hw);
	int rc = r->inner->ops->map(r->inner, domain, iova, pa, size, perm);

	rec_add(r, FL_MAP, domain, iova, pa, size, perm)->rc = rc;
	r->log->map_pages += rc ? 0 : size >> GPUISO_PAGE_SHIFT;
	return rc;
}

static int rec_unmap(struct hw *hw, uint32_t domain, iova_t iova, uint64_t size)
{
	struct recorder *r = to_rec(hw);
	int rc = r->inner->ops->unmap(r->inner, domain, iova, size);

	rec_add(r, FL_UNMAP, domain, iova, 0, size, 0)->rc = rc;
	r->log->unmap_pages += rc ? 0 : size >> GPUISO_PAGE_SHIFT;
	return rc;
}

static void rec_flush(struct hw *hw, uint32_t domain, iova_t iova, uint64_t size)
{
	struct recorder *r = to_rec(hw);

	r->inner->ops->flush(r->inner, domain, iova, size);
	rec_add(r, FL_FLUSH, domain, iova, 0, size, 0);
}

static int rec_dma(struct hw *hw, uint32_t dev, iova_t iova, void *buf, uint64_t len, bool write)
{
	struct recorder *r = to_rec(hw);
	int rc = r->inner->ops->dma(r->inner, dev, iova, buf, len, write);

	rec_add(r, FL_DMA, dev, iova, 0, len, write)->rc = rc;
	rec_len(r, len);
	return rc;
}

static int rec_fault_pop(struct hw *hw, struct hw_fault *fault)
{
	struct recorder *r = to_rec(hw);
	int rc = r->inner->ops->fault_pop(r->inner, fault);

	rec_add(r, FL_FAULT_POP, 0, 0, 0, 0, 0)->rc = rc;
	return rc;
}

/* Not recorded, nor modeled_ns: the model's reading of the counters is its own bookkeeping. */
static void rec_stats(struct hw *hw, struct hw_stats *stats)
{
	to_rec(hw)->inner->ops->stats(to_rec(hw)->inner, stats);
}

static uint64_t rec_modeled_ns(struct hw *hw)
{
	struct hw *inner = to_rec(hw)->inner;

	return inner->ops->modeled_ns ? inner->ops->modeled_ns(inner) : 0;
}

static uint64_t rec_vram_size(struct hw *hw, uint32_t dev)
{
	struct recorder *r = to_rec(hw);

	rec_add(r, FL_VRAM_SIZE, dev, 0, 0, 0, 0);
	return r->inner->ops->vram_size(r->inner, dev);
}

static int rec_vram_rw(struct hw *hw, uint32_t dev, uint64_t off, void *buf, uint64_t len,
		       bool write)
{
	struct recorder *r = to_rec(hw);
	int rc = r->inner->ops->vram_rw(r->inner, dev, off, buf, len, write);

	rec_add(r, FL_VRAM_RW, dev, off, 0, len, write)->rc = rc;
	rec_len(r, len);
	return rc;
}

static int rec_vram_fill(struct hw *hw, uint32_t dev, uint64_t off, uint64_t len,
			 const void *pattern, uint64_t plen)
{
	struct recorder *r = to_rec(hw);
	struct floor_log *log = r->log;
	int rc = r->inner->ops->vram_fill(r->inner, dev, off, len, pattern, plen);

	/* the pattern goes to log->patterns after its length */
	rec_add(r, FL_VRAM_FILL, dev, off, log->npat, len, 0)->rc = rc;
	while (log->cappat < log->npat + sizeof(plen) + plen)
		if (array_reserve(&log->patterns, &log->cappat, log->cappat, 1)) {
			r->err = -ENOMEM;
			return rc;
		}
	memcpy(log->patterns + log->npat, &plen, sizeof(plen));
	memcpy(log->patterns + log->npat + sizeof(plen), pattern, plen);
	log->npat += sizeof(plen) + plen;
	return rc;
}

static int rec_vram_digest(struct hw *hw, uint32_t dev, uint64_t off, uint64_t len,
			   uint64_t *digest)
{
	struct recorder *r = to_rec(hw);
	int rc = r->inner->ops->vram_digest(r->inner, dev, off, len, digest);

	rec_add(r, FL_VRAM_DIGEST, dev, off, 0, len, 0)->rc = rc;
	return rc;
}

static int rec_power(struct hw *hw, uint32_t dev, bool on)
{
	struct recorder *r = to_rec(hw);
	int rc = r->inner->ops->power(r->inner, dev, on);

	rec_add(r, FL_POWER, dev, 0, 0, 0, on)->rc = rc;
	return rc;
}

static int rec_gpu_submit(struct hw *hw, uint32_t dev, const struct hw_job *job)
{
	struct recorder *r = to_rec(hw);
	int rc = r->inner->ops->gpu_submit(r->inner, dev, job);

	rec_add(r, FL_GPU_SUBMIT, dev, job->iova, job->vram_off, job->len, job->dir)->rc = rc;
	return rc;
}

static int rec_gpu_wait(struct hw *hw, uint32_t dev)
{
	struct recorder *r = to_rec(hw);
	int rc = r->inner->ops->gpu_wait(r->inner, dev);

	rec_add(r, FL_GPU_WAIT, dev, 0, 0, 0, 0)->rc = rc;
	return rc;
}

static unsigned int rec_gpu_pending(struct hw *hw, uint32_t dev)
{
	struct recorder *r = to_rec(hw);
	unsigned int n = r->inner->ops->gpu_pending(r->inner, dev);

	rec_add(r, FL_GPU_PENDING, dev, 0, 0, 0, 0)->rc = (int32_t)n;
	return n;
}

static const struct hw_ops rec_ops = {
	.destroy = rec_destroy, .query_caps = rec_query_caps,
	.domain_alloc = rec_domain_alloc, .domain_free = rec_domain_free,
	.attach = rec_attach, .detach = rec_detach,
	.map = rec_map, .unmap = rec_unmap, .flush = rec_flush,
	.dma = rec_dma, .fault_pop = rec_fault_pop, .stats = rec_stats,
	.modeled_ns = rec_modeled_ns,
	.state_digest = NULL, /* a replay takes none */
	.vram_size = rec_vram_size, .vram_rw = rec_vram_rw, .vram_fill = rec_vram_fill,
	.vram_digest = rec_vram_digest, .power = rec_power,
	.gpu_submit = rec_gpu_submit, .gpu_wait = rec_gpu_wait, .gpu_pending = rec_gpu_pending,
};

/* The engine's live-map key of (@adapter, @id), as replay/engine.c makes it. */
static uint64_t floor_key(uint64_t adapter, uint64_t id)
{
	return adapter << 56 | (id & ((1ull << 56) - 1));
}

/*
 * The recording pass: the model over @evs on a fresh backend of @scn behind
 * a recorder, from the start of the model to its end, into @log.
 */
static int floor_record(const struct scenario *scn, const struct replay_events *evs,
			struct floor_log *log)
{
	const char *names[WL_NKINDS];
	struct replay_engine *engine;
	struct hw_backend be;
	struct recorder *r = NULL;
	struct results res;
	struct core *core;
	char err[256];
	int rc;

	for (int k = 0; k < WL_NKINDS; k++)
		names[k] = wl_catalogue[k].name;
	rc = results_init(&res, names, WL_NKINDS);
	if (rc)
		return rc;
	rc = machine_open(scn, NULL, &be, err, sizeof(err));
	if (rc)
		goto fini_results;
	r = calloc(1, sizeof(*r));
	if (!r) {
		rc = -ENOMEM;
		goto close_backend;
	}
	*r = (struct recorder){ .hw.ops = &rec_ops, .inner = be.hw, .log = log };
	be.hw = &r->hw;
	rc = core_create(scn, &be, &core);
	if (rc)
		goto close_backend;
	rc = core_start(core);
	if (!rc)
		rc = engine_create(core, &res, REPLAY_PACE_ASAP, &engine);
	if (rc)
		goto destroy_core;
	for (size_t i = 0; !rc && i < evs->n; i++) {
		const struct wl_event *ev = &evs->ev[i];
		unsigned int flags = (wl_creates(ev->kind) ? FL_CREATES : 0) |
				     (wl_destroys(ev->kind) ? FL_FREES : 0) |
				     (wl_uses(ev->kind) ? FL_USES : 0) |
				     (wl_refers(ev->kind) ? FL_REFERS : 0);

		if (flags)
			rec_add(r, FL_EVENT, 0, floor_key(ev->v[WL_ADAPTER], ev->v[WL_ID]),
				floor_key(ev->v[WL_ADAPTER], ev->v[WL_REF]), i, flags);
		rc = engine_apply(engine, ev, i);
		if (rc > 0)
			rc = 0; /* refused: counted by the model, nothing the floor needs */
	}
	if (!rc)
		engine_finish(engine);
	engine_destroy(engine);
destroy_core:
	core_destroy(core);
close_backend:
	if (!rc && r && r->err)
		rc = r->err;
	if (!rc)
		be.hw->ops->stats(be.hw, &log->final);
	hw_backend_close(&be);
fini_results:
	results_fini(&res);
	return rc;
}

/*
 * The floor: @log into a fresh backend of @scn through its ops table, and
 * its lookups into a map of its own; the counters at the end to @st. With
 * @check, each op's return must be the recorded one (-ENOTRECOVERABLE otherwise).
 */
static int floor_replay(const struct scenario *scn, const struct floor_log *log, uint8_t *buf,
			bool check, struct hw_stats *st)
{
	struct hw_backend be;
	struct u64map live;
	struct hw_fault fault;
	char err[256];
	int rc;

	rc = machine_open(scn, NULL, &be, err, sizeof(err));
	if (rc)
		return rc;
	rc = u64map_init(&live);
	if (rc)
		goto close_backend;
	struct hw *hw = be.hw;
	const struct hw_ops *ops = hw->ops;

	for (size_t i = 0; i < log->n; i++) {
		const struct floor_rec *x = &log->recs[i];
		uint64_t got = 0;
		uint32_t dom;
		int32_t ret = 0;

		switch ((enum floor_op)x->op) {
		case FL_EVENT:
			/* as the engine does: look the id up, then insert or remove it */
			if (x->flags & (FL_CREATES | FL_FREES | FL_USES))
				got = u64map_get(&live, x->a) != NULL;
			if (x->flags & FL_REFERS)
				got += u64map_get(&live, x->b) != NULL;
			if (x->flags & FL_CREATES)
				ret = u64map_put(&live, x->a, x->c + 1);
			if (x->flags & FL_FREES)
				u64map_del(&live, x->a);
			(void)got;
			break;
		case FL_DOMAIN_ALLOC:
			ret = ops->domain_alloc(hw, &dom);
			if (check && !ret && dom != x->id)
				ret = -ENOTRECOVERABLE;
			break;
		case FL_DOMAIN_FREE: ret = ops->domain_free(hw, x->id); break;
		case FL_ATTACH: ret = ops->attach(hw, x->id, (uint32_t)x->a); break;
		case FL_DETACH: ret = ops->detach(hw, x->id); break;
		case FL_MAP: ret = ops->map(hw, x->id, x->a, x->b, x->c, x->flags); break;
		case FL_UNMAP: ret = ops->unmap(hw, x->id, x->a, x->c); break;
		case FL_FLUSH: ops->flush(hw, x->id, x->a, x->c); break;
		case FL_DMA: ret = ops->dma(hw, x->id, x->a, buf, x->c, x->flags); break;
		case FL_FAULT_POP: ret = ops->fault_pop(hw, &fault); break;
		case FL_VRAM_SIZE: ops->vram_size(hw, x->id); break;
		case FL_VRAM_RW: ret = ops->vram_rw(hw, x->id, x->a, buf, x->c, x->flags); break;
		case FL_VRAM_FILL: {
			uint64_t plen;

			memcpy(&plen, log->patterns + x->b, sizeof(plen));
			ret = ops->vram_fill(hw, x->id, x->a, x->c, log->patterns + x->b + sizeof(plen),
					     plen);
			break;
		}
		case FL_VRAM_DIGEST: ret = ops->vram_digest(hw, x->id, x->a, x->c, &got); break;
		case FL_POWER: ret = ops->power(hw, x->id, x->flags); break;
		case FL_GPU_SUBMIT:
			ret = ops->gpu_submit(hw, x->id, &(struct hw_job){ .dir = x->flags,
									.vram_off = x->b,
									.iova = x->a, .len = x->c });
			break;
		case FL_GPU_WAIT: ret = ops->gpu_wait(hw, x->id); break;
		case FL_GPU_PENDING: ret = (int32_t)ops->gpu_pending(hw, x->id); break;
		case FL_NOPS: break;
		}
		if (check && x->op != FL_EVENT && ret != x->rc) {
			fprintf(stderr, "bench: floor: op %zu (%u) returned %d, the model's %d\n", i,
				x->op, ret, x->rc);
			rc = -ENOTRECOVERABLE;
			break;
		}
		if (x->op == FL_EVENT && ret) {
			rc = ret;
			break;
		}
	}
	if (!rc)
		ops->stats(hw, st);
	u64map_fini(&live);
close_backend:
	hw_backend_close(&be);
	return rc;
}

static double cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

struct floor_rig {
	char dir[64];
	char trace[128], scenario[128], cache[128];
	struct scenario scn;
};

static int floor_rig_up(struct floor_rig *rig)
{
	char err[1024];
	struct gen *g;
	FILE *f;
	int rc;

	snprintf(rig->dir, sizeof(rig->dir), "/tmp/gpuiso-floor-XXXXXX");
	if (!mkdtemp(rig->dir))
		return -errno;
	snprintf(rig->trace, sizeof(rig->trace), "%s/desktop-1m", rig->dir);
	snprintf(rig->scenario, sizeof(rig->scenario), "%s/scenario.yaml", rig->dir);
	snprintf(rig->cache, sizeof(rig->cache), "%s/cache", rig->dir);
	f = fopen(rig->scenario, "w");
	if (!f)
		return -errno;
	fputs(bench_replay_scenario, f);
	if (fclose(f))
		return -errno;
	rc = machine_load(rig->scenario, NULL, &rig->scn, err, sizeof(err));
	if (rc)
		return rc;
	rc = gen_create("desktop", 1000000, 1, &g);
	if (rc)
		return rc;
	rc = ctf_write(rig->trace, gen_next, g, err, sizeof(err));
	gen_destroy(g);
	return rc;
}

static void floor_rig_down(struct floor_rig *rig)
{
	char cmd[128];

	scenario_free(&rig->scn);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", rig->dir);
	if (system(cmd))
		fprintf(stderr, "bench: could not remove %s\n", rig->dir);
}

/* A replay of the trace from the cache, in this process: its CPU time; whether it was a hit. */
static int floor_model_run(struct floor_rig *rig, double *cpu, double *wall, bool *hit)
{
	struct replay_opts o = { .trace = rig->trace, .scn = &rig->scn, .cache = true,
				 .cache_dir = rig->cache };
	struct replay_report *rep = calloc(1, sizeof(*rep));
	double c0 = cpu_s(), t0 = (double)clock_mono_ns() / 1e9;
	struct results res;
	int rc;

	if (!rep)
		return -ENOMEM;
	rc = replay_run(&o, &res, rep);
	*cpu = cpu_s() - c0;
	*wall = (double)clock_mono_ns() / 1e9 - t0;
	*hit = rep->from_cache;
	if (!rc && (res.nviolations || rep->refused))
		rc = -ENOTRECOVERABLE; /* a benchmark of a failing replay measures nothing */
	results_fini(&res);
	free(rep);
	return rc;
}

/* The floor once, timed; its counters must be the model's. */
static int floor_floor_run(struct floor_rig *rig, const struct floor_log *log, uint8_t *buf,
			   double *cpu, double *wall)
{
	double c0 = cpu_s(), t0 = (double)clock_mono_ns() / 1e9;
	struct hw_stats st;
	int rc = floor_replay(&rig->scn, log, buf, false, &st);

	*cpu = cpu_s() - c0;
	*wall = (double)clock_mono_ns() / 1e9 - t0;
	if (!rc && memcmp(&st, &log->final, sizeof(st)))
		rc = -ENOTRECOVERABLE;
	return rc;
}

static int floor_measure(struct bench_report *r, struct floor_rig *rig, struct floor_log *log)
{
	double m_cpu[ROUNDS], m_wall[ROUNDS], f_cpu[ROUNDS], f_wall[ROUNDS], ratio[ROUNDS];
	struct replay_opts o = { .trace = rig->trace, .scn = &rig->scn, .cache = true,
				 .cache_dir = rig->cache };
	struct replay_events evs = { 0 };
	struct replay_report *rep = calloc(1, sizeof(*rep));
	struct hw_stats st;
	uint8_t *buf = NULL;
	double events;
	char note[96];
	bool hit;
	int rc;

	if (!rep)
		return -ENOMEM;
	/* fills the cache; its files then settle, so that later replays find it by identity */
	rc = floor_model_run(rig, &m_cpu[0], &m_wall[0], &hit);
	if (!rc)
		sleep(CACHE_SETTLE_S + 1);
	if (!rc)
		rc = floor_model_run(rig, &m_cpu[0], &m_wall[0], &hit);
	if (!rc && !hit)
		rc = -ESTALE;
	bench_progress(r, "floor: recording the model's simulator operations");
	if (!rc)
		rc = replay_read(&o, &evs, rep);
	if (!rc)
		rc = floor_record(&rig->scn, &evs, log);
	if (!rc) {
		buf = calloc(1, log->max_len ? log->max_len : 1);
		if (!buf)
			rc = -ENOMEM;
	}
	/* the floor is the same work: every op returns what it returned to the model */
	if (!rc)
		rc = floor_replay(&rig->scn, log, buf, true, &st);
	if (!rc && memcmp(&st, &log->final, sizeof(st))) {
		fprintf(stderr, "bench: floor: the simulator's counters differ from the model's\n");
		rc = -ENOTRECOVERABLE;
	}
	bench_progress(r, "floor: the model's cached replay and the floor, alternately");
	for (int i = 0; !rc && i < ROUNDS; i++) {
		rc = floor_model_run(rig, &m_cpu[i], &m_wall[i], &hit);
		if (!rc && !hit)
			rc = -ESTALE;
		if (!rc)
			rc = floor_floor_run(rig, log, buf, &f_cpu[i], &f_wall[i]);
		ratio[i] = m_cpu[i] / f_cpu[i];
		if (!rc && r->progress)
			fprintf(r->progress, "  round %d: model %.3f s CPU (%.3f s wall), floor %.3f s"
				" CPU (%.3f s wall): %.2f\n", i + 1, m_cpu[i], m_wall[i], f_cpu[i],
				f_wall[i], ratio[i]);
	}
	events = (double)evs.n;
	free(buf);
	replay_events_free(&evs);
	free(rep);
	if (rc)
		return rc;
	bench_add(r, "floor.model_cpu_s", stats_median(m_cpu, ROUNDS), "s",
		  "replay of 1M desktop events from the cache, CPU");
	bench_add(r, "floor.floor_cpu_s", stats_median(f_cpu, ROUNDS), "s",
		  "its simulator operations and lookups alone, CPU");
	bench_add(r, "floor.model_ns_per_event", stats_median(m_cpu, ROUNDS) * 1e9 / events,
		  "ns", "CPU");
	bench_add(r, "floor.floor_ns_per_event", stats_median(f_cpu, ROUNDS) * 1e9 / events,
		  "ns", "CPU");
	bench_add(r, "floor.model_vs_floor", stats_median(ratio, ROUNDS), "ratio",
		  "the two CPU times per round, median (target <= 2)");
	bench_add(r, "floor.map.count", (double)log->count[FL_MAP], "count", NULL);
	bench_add(r, "floor.map_pages.count", (double)log->map_pages, "count", NULL);
	bench_add(r, "floor.unmap.count", (double)log->count[FL_UNMAP], "count", NULL);
	bench_add(r, "floor.unmap_pages.count", (double)log->unmap_pages, "count", NULL);
	bench_add(r, "floor.flush.count", (double)log->count[FL_FLUSH], "count", NULL);
	bench_add(r, "floor.copy_job.count", (double)log->count[FL_GPU_SUBMIT], "count",
		  "copy-engine jobs: the device's DMA");
	snprintf(note, sizeof(note), "%.0f IOTLB hits, %.0f misses",
		 (double)log->final.iotlb_hits, (double)log->final.iotlb_misses);
	bench_add(r, "floor.translation.count",
		  (double)(log->final.iotlb_hits + log->final.iotlb_misses), "count", note);
	bench_add(r, "floor.lookup_event.count", (double)log->count[FL_EVENT], "count",
		  "events with live-map lookups");
	return 0;
}

int bench_suite_floor(struct bench_report *r)
{
	struct floor_rig rig = { 0 };
	struct floor_log log = { 0 };
	int rc;

	bench_progress(r, "floor: generating a 1M-event desktop trace");
	rc = floor_rig_up(&rig);
	if (!rc)
		rc = floor_measure(r, &rig, &log);
	free(log.recs);
	free(log.patterns);
	floor_rig_down(&rig);
	return rc;
}
