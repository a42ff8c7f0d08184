/* SPDX-License-Identifier: MIT */
/*
 * The engine's live map, trace ids to live handles (engine_internal.h),
 * the objects freed whose addresses a device may still use, the frees the
 * model refused, and their part of the state digest.
 */
#include <errno.h>

#include "common/array.h"
#include "common/digest.h"
#include "replay/engine_internal.h"

/* The tag of the trace id @key as a holder of a handle (core_digest_ref()). */
static uint64_t id_tag(uint64_t key)
{
	return digest_combine(0x74726163652d6964ull, key);
}

/* The term of live entry @key -> @val: its object by its slot alone (core_digest_ref()). */
static uint64_t live_term(const struct replay_engine *e, uint64_t key, uint64_t val)
{
	return DIGEST_FOLD(0x6c697665ull, key, LIVE_KIND(val),
			   core_handle_digest(e->core, LIVE_HANDLE(val)) & ~1ull);
}

/* The term of refused_at's entry @key -> @val. */
static uint64_t refused_term(const struct replay_engine *e, uint64_t key, uint64_t val)
{
	return DIGEST_FOLD(0x7265667573656400ull, key, e->rf[val - 1].index);
}

/* Count live entry @key -> @val in the kept digest, or (a second call) no longer. */
static void live_toggle(struct replay_engine *e, uint64_t key, uint64_t val)
{
	e->digest_ids ^= live_term(e, key, val);
	if (LIVE_HANDLE(val))
		core_digest_ref(e->core, LIVE_HANDLE(val), id_tag(key));
}

int engine_live_put(struct replay_engine *e, uint64_t key, uint64_t val)
{
	uint64_t *old = e->digest_on ? u64map_get(&e->live, key) : NULL;

	if (old)
		live_toggle(e, key, *old);
	if (u64map_put(&e->live, key, val))
		return -ENOMEM;
	if (e->digest_on)
		live_toggle(e, key, val);
	return 0;
}

/*
 * live's and refused_at's part of the digest computed from every entry;
 * the terms their objects count in the model's part (core_digest_ref()) in *@refs.
 */
static uint64_t ids_full(const struct replay_engine *e, uint64_t *refs)
{
	uint64_t key, val, h = 0;
	size_t pos = 0;

	*refs = 0;
	/* the map's slots depend on its history: each entry alone, in any order */
	while (u64map_next(&e->live, &pos, &key, &val)) {
		h ^= live_term(e, key, val);
		if (LIVE_HANDLE(val))
			*refs ^= core_digest_ref_term(e->core, LIVE_HANDLE(val), id_tag(key));
	}
	/* an object whose free was refused is a finding to come: part of the state */
	pos = 0;
	while (u64map_next(&e->refused_at, &pos, &key, &val))
		h ^= refused_term(e, key, val);
	return h;
}

/* engine_state_digest(), or with @full engine_state_digest_full(). */
static int state_digest(const struct replay_engine *e, bool full, uint64_t *digest)
{
	/* the kept parts are a cache of the state: keeping them changes nothing of it */
	struct replay_engine *me = (struct replay_engine *)e;
	uint64_t key, val, h, ids, refs;
	size_t pos = 0;
	int rc;

	if (!full && !e->digest_on) {
		/* the model keeps its parts from its first digest: count the ids' objects from then on */
		rc = core_state_digest(e->core, &h);
		if (rc)
			return rc;
		me->digest_ids = 0;
		while (u64map_next(&e->live, &pos, &key, &val))
			live_toggle(me, key, val);
		pos = 0;
		while (u64map_next(&e->refused_at, &pos, &key, &val))
			me->digest_ids ^= refused_term(e, key, val);
		me->digest_on = true;
	}
	if (full) {
		rc = core_state_digest_full(e->core, &h);
		ids = ids_full(e, &refs);
		h ^= refs;
	} else {
		rc = core_state_digest(e->core, &h);
		ids = e->digest_ids;
	}
	if (rc)
		return rc;
	*digest = DIGEST_FOLD(h, ids, e->next_step);
	return 0;
}

int engine_state_digest(const struct replay_engine *e, uint64_t *digest)
{
	return state_digest(e, false, digest);
}

int engine_state_digest_full(const struct replay_engine *e, uint64_t *digest)
{
	return state_digest(e, true, digest);
}

size_t engine_live(const struct replay_engine *e)
{
	uint64_t key, val;
	size_t n = 0, pos = 0;

	while (u64map_next(&e->live, &pos, &key, &val))
		n += LIVE_HANDLE(val) != 0;
	return n;
}

core_handle_t engine_handle(const struct replay_engine *e, uint64_t adapter, uint64_t id)
{
	const uint64_t *v;

	if (adapter > LIVE_ADAPTER_MAX || id > LIVE_ID_MAX)
		return 0;
	v = u64map_get(&e->live, engine_live_key(adapter, id));
	return v ? LIVE_HANDLE(*v) : 0;
}

void engine_bury(struct replay_engine *e, uint64_t key, core_handle_t h)
{
	e->dead[e->dead_next % CORE_TOMBS].key = key;
	e->dead[e->dead_next++ % CORE_TOMBS].h = h;
}

bool engine_dead_handle(const struct replay_engine *e, uint64_t key, core_handle_t *h)
{
	uint64_t n = e->dead_next < CORE_TOMBS ? e->dead_next : CORE_TOMBS;

	for (uint64_t i = 1; i <= n; i++)
		if (e->dead[(e->dead_next - i) % CORE_TOMBS].key == key) {
			*h = e->dead[(e->dead_next - i) % CORE_TOMBS].h;
			return true;
		}
	return false;
}

void engine_forget(struct replay_engine *e, uint64_t key)
{
	uint64_t *v;

	if (e->digest_on && (v = u64map_get(&e->live, key)))
		live_toggle(e, key, *v);
	if (e->digest_on && (v = u64map_get(&e->refused_at, key)))
		e->digest_ids ^= refused_term(e, key, *v);
	u64map_del(&e->live, key);
	u64map_del(&e->refused_at, key);
	if (e->life) {
		u64map_del(&e->born, key);
		u64map_del(&e->born_ts, key);
	}
}

int engine_remember_refused(struct replay_engine *e, uint64_t key, const struct wl_event *ev,
			    uint64_t index, int rc)
{
	if (array_reserve(&e->rf, &e->caprf, e->nrf, sizeof(*e->rf)))
		return -ENOMEM;
	uint64_t *old = e->digest_on ? u64map_get(&e->refused_at, key) : NULL;

	e->rf[e->nrf++] = (struct refused_free){ .index = index, .ts = ev->ts, .kind = ev->kind,
						 .rc = rc };
	if (old)
		e->digest_ids ^= refused_term(e, key, *old);
	if (u64map_put(&e->refused_at, key, e->nrf))
		return -ENOMEM;
	if (e->digest_on)
		e->digest_ids ^= refused_term(e, key, e->nrf);
	return 0;
}
