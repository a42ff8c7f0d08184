/* SPDX-License-Identifier: MIT */
/* Translating a trace's events by the rules of import maps (import_map.c loads them). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LOG_PREFIX "import"
#include "common/array.h"
#include "common/digest.h"
#include "common/log.h"
#include "common/u64map.h"
#include "common/units.h"
#include "replay/import_internal.h"

/* The group that owns a class: the first (of the first map file) naming it. */
static const struct group *owner(const struct import_map *m, const char *event)
{
	for (size_t i = 0; i < m->ngroups; i++)
		if (!strcmp(m->groups[i].event, event))
			return &m->groups[i];
	return NULL;
}

/* A class binds the fields its group's rules read. */
int import_bind(void *ctx, const char *event_name, struct ctf_binding *b)
{
	struct import_map *m = ctx;
	const struct group *g = owner(m, event_name);

	b->tag = -1;
	if (!g)
		return 0;
	b->tag = (int)(g - m->groups);
	b->n = g->nnames;
	for (unsigned int k = 0; k < b->n; k++)
		b->names[k] = g->names[k];
	for (size_t i = 0; i < g->nmembers; i++)
		m->rules[g->members[i].rule].bound = true;
	return 0;
}

int import_check_defined(const struct import_map *m, char *err, size_t errlen)
{
	size_t nfiles = 0;

	for (size_t i = 0; i < m->nrules; i++)
		nfiles = m->rules[i].file + 1 > nfiles ? m->rules[i].file + 1 : nfiles;
	for (size_t f = 0; f < nfiles; f++) {
		const struct rule *first = NULL;
		bool fits = false;

		for (size_t i = 0; i < m->nrules && !fits; i++) {
			const struct rule *r = &m->rules[i];

			if (r->file != f)
				continue;
			first = first ? first : r;
			fits = r->bound;
			/* a class an earlier map owns is defined, only taken by that map */
			for (size_t j = 0; j < r->nevents && !fits; j++) {
				const struct group *g = owner(m, r->events[j]);

				fits = g && g->file != f;
			}
		}
		if (first && !fits) {
			snprintf(err, errlen, "%s: the trace defines none of the event classes this "
				 "map's rules name ('%s'%s): a map for other events, or they were not "
				 "recorded", first->at, first->events[0],
				 m->nrules > 1 ? ", ..." : "");
			return -EINVAL;
		}
	}
	return 0;
}

uint64_t import_unmatched_ends(const struct import_map *m)
{
	return m->unmatched_ends;
}

void import_warn_unbound(const struct import_map *m)
{
	bool any = false;

	for (size_t i = 0; i < m->nrules; i++)
		any |= m->rules[i].bound;
	/* a map names events a trace may not have (calloc): only none at all is suspect */
	for (size_t i = 0; i < m->nrules; i++) {
		const struct rule *r = &m->rules[i];
		const struct group *g = NULL;

		if (r->bound)
			continue;
		for (size_t j = 0; j < r->nevents && !g; j++)
			if ((g = owner(m, r->events[j])) && g->file == r->file)
				g = NULL;
		if (g)
			log_msg(any ? LOG_INFO : LOG_ERROR, any ? LOG_PREFIX : LOG_PREFIX ": warning",
				"%s: '%s' belongs to an earlier map's rules (%s): the rule takes none of its events",
				r->at, g->event, m->rules[g->members[0].rule].at);
		else
			log_msg(any ? LOG_INFO : LOG_ERROR, any ? LOG_PREFIX : LOG_PREFIX ": warning",
				"%s: the trace has no event class '%s'%s: the rule took no event",
				r->at, r->events[0],
				r->nevents > 1 ? " (nor the others the rule names)" : "");
	}
}

/*
 * Whether field @f of the rule's event is there (as an integer unless
 * @str_ok); the first time it is not, say so: a misspelt name in a map
 * would otherwise only show as counts.
 */
static bool has(struct rule *r, int f, const struct ctf_value *vals, bool str_ok)
{
	if (vals[f].present && (str_ok || !vals[f].is_str))
		return true;
	if (!(r->warned & 1u << f)) {
		r->warned |= 1u << f;
		log_warn("%s: the rule's events have no %spayload field '%s': not used",
			 r->at, str_ok ? "" : "integer ", r->names[f]);
	}
	return false;
}

static uint64_t operand(const struct operand *o, const struct ctf_value *vals)
{
	return o->field < 0 ? o->c : vals[o->field].u;
}

static bool present(struct rule *r, const struct value *v, const struct ctf_value *vals)
{
	return (v->a.field < 0 || has(r, v->a.field, vals, false)) &&
	       (!v->op || v->b.field < 0 || has(r, v->b.field, vals, false));
}

static uint64_t evaluate(const struct value *v, const struct ctf_value *vals)
{
	uint64_t a = operand(&v->a, vals), b = v->op ? operand(&v->b, vals) : 0;

	if (v->op == '<')
		return b < 64 ? a << b : 0;
	return v->op == '*' ? a * b : a;
}

/* Foreign keys may be strings (a device name): fold those to a number. */
static uint64_t key_of(const struct ctf_value *v)
{
	if (!v->is_str)
		return v->u;
	return digest_fnv1a(DIGEST_FNV_BASIS, v->s, strlen(v->s));
}

/*
 * The key of rule @r's event: one field's value as key_of() gives it (so a
 * `ref` of one field finds it), or the fields of a longer key folded into
 * one number, each with its kind (a string "7" is not the integer 7).
 */
static uint64_t rule_key(const struct rule *r, const struct ctf_value *vals)
{
	uint64_t h = DIGEST_FNV_BASIS;

	if (r->nkeys == 1)
		return key_of(&vals[r->keys[0]]);
	for (size_t i = 0; i < r->nkeys; i++) {
		const struct ctf_value *v = &vals[r->keys[i]];

		h = digest_fnv1a_word(h, v->is_str);
		h = v->is_str ? digest_fnv1a_str(h, v->s) : digest_fnv1a_word(h, v->u);
	}
	return h;
}

static bool matches(struct rule *r, const struct ctf_value *vals)
{
	for (size_t i = 0; i < r->nwhere; i++) {
		const struct ctf_value *v = &vals[r->where[i].field];
		uint64_t want = 0;
		bool equal;

		if (!has(r, r->where[i].field, vals, true))
			return false;
		equal = v->is_str ? !strcmp(v->s, r->where[i].str)
				  : !units_parse_u64(r->where[i].str, &want) && want == v->u;
		if (equal == r->where[i].negate)
			return false;
	}
	return true;
}

/* --- extents: what a `span` rule ends --- */

/* The first extent that ends after @at (extents never overlap: keys are addresses). */
static size_t extent_find(const struct import_map *m, uint64_t at)
{
	size_t lo = 0, hi = m->nextents;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->extents[mid].end <= at)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* An object created at @key, of @bytes: its extent from then on. */
static int extent_add(struct import_map *m, uint64_t key, uint64_t bytes)
{
	size_t i = extent_find(m, key);

	if (!bytes || key + bytes < key)
		return 0; /* no extent to end by address: ended by its key only */
	if (array_reserve(&m->extents, &m->extents_cap, m->nextents, sizeof(*m->extents)))
		return -ENOMEM;
	memmove(m->extents + i + 1, m->extents + i, (m->nextents - i) * sizeof(*m->extents));
	m->extents[i] = (struct span_obj){ key, key + bytes, bytes };
	m->nextents++;
	return 0;
}

static void extent_del(struct import_map *m, uint64_t key)
{
	size_t i = extent_find(m, key);

	if (i < m->nextents && m->extents[i].start == key) {
		memmove(m->extents + i, m->extents + i + 1, (m->nextents - i - 1) * sizeof(*m->extents));
		m->nextents--;
	}
}

static int queue_push(struct import_map *m, const struct wl_event *e)
{
	if (m->queue_head == m->nqueue)
		m->queue_head = m->nqueue = 0;
	if (array_reserve(&m->queue, &m->queue_cap, m->nqueue, sizeof(*m->queue)))
		return -ENOMEM;
	m->queue[m->nqueue++] = *e;
	return 0;
}

bool import_next(struct import_map *m, struct wl_event *e)
{
	if (m->queue_head == m->nqueue)
		return false;
	*e = m->queue[m->queue_head++];
	return true;
}

/* An event of a rule's that makes nothing: why, for import_unmatched_why(). */
static enum import_outcome unmatched(struct import_map *m, const char *why)
{
	m->unmatched_why = why;
	return IMPORT_UNMATCHED;
}

/*
 * A span rule's event: [key, key + span) is unmapped. Each object whose
 * extent it finishes ends (its destroy, in address order); one it covers
 * in part stays, with less of it mapped. Return: the outcome.
 */
static enum import_outcome translate_span(struct import_map *m, struct rule *r, uint64_t ts,
					  uint64_t key, const struct ctf_value *values,
					  struct wl_event *out, size_t *nout)
{
	uint64_t span, end;
	bool touched = false;
	size_t i;

	if (!present(r, &r->span, values))
		return unmatched(m, "a field its rule reads is missing");
	span = evaluate(&r->span, values);
	end = key + span < key ? UINT64_MAX : key + span;
	for (i = extent_find(m, key); i < m->nextents && m->extents[i].start < end;) {
		struct span_obj *x = &m->extents[i];
		uint64_t from = x->start > key ? x->start : key, to = x->end < end ? x->end : end;
		uint64_t *obj = u64map_get(&m->objects, x->start);
		struct wl_event e;

		touched = true;
		x->left -= to - from > x->left ? x->left : to - from;
		if (x->left || !obj) {
			i++;
			continue;
		}
		e = (struct wl_event){ .ts = ts, .kind = (uint32_t)wl_destroy_of((uint32_t)(*obj & 0xff)) };
		e.v[WL_ADAPTER] = m->adapter;
		e.v[WL_ID] = *obj >> 8;
		u64map_del(&m->objects, x->start);
		memmove(x, x + 1, (m->nextents - i - 1) * sizeof(*x));
		m->nextents--;
		if (*nout < 2)
			out[(*nout)++] = e;
		else if (queue_push(m, &e))
			return unmatched(m, "out of memory");
	}
	m->unmatched_ends += !touched; /* an unmap of what was mapped before the trace */
	return touched ? IMPORT_USED : unmatched(m, "its range covers no object the map made");
}

/* What rule @r makes of an event that passed its filter. */
static enum import_outcome translate(struct import_map *m, struct rule *r, uint64_t ts,
				     const struct ctf_value *values, struct wl_event *out, size_t *nout)
{
	struct wl_event *e = &out[0];
	uint64_t key = 0, *obj = NULL;

	*nout = 0;
	if (r->op == OP_PRESSURE) {
		uint64_t bytes;

		if (!present(r, &r->pressure, values))
			return unmatched(m, "a field its rule reads is missing");
		bytes = evaluate(&r->pressure, values);
		m->outstanding = r->sub ? (m->outstanding > bytes ? m->outstanding - bytes : 0)
					: m->outstanding + bytes;
		*e = (struct wl_event){ .ts = ts, .kind = WL_MEMORY };
		e->v[WL_OFFSET] = e->v[WL_BYTES] =
			m->memory_base > m->outstanding ? m->memory_base - m->outstanding : 0;
		*nout = 1;
		return IMPORT_USED;
	}
	if (r->nkeys) {
		for (size_t i = 0; i < r->nkeys; i++)
			if (!has(r, r->keys[i], values, true))
				return unmatched(m, "a field its rule reads is missing");
		key = rule_key(r, values);
		if (r->spans)
			return translate_span(m, r, ts, key, values, out, nout);
		obj = u64map_get(&m->objects, key);
	}
	if ((wl_destroys(r->op) || wl_uses(r->op)) && !obj) {
		m->unmatched_ends += wl_destroys(r->op);
		return unmatched(m, "no object was made under its key (its creation is not in the trace)");
	}
	if (wl_creates(r->op) && obj) {
		/* the key is reused without its free (lost event): end the old object first */
		*e = (struct wl_event){ .ts = ts, .kind = (uint32_t)wl_destroy_of((uint32_t)(*obj & 0xff)) };
		e->v[WL_ADAPTER] = m->adapter;
		e->v[WL_ID] = *obj >> 8;
		if (m->spans)
			extent_del(m, key);
		e++;
		(*nout)++;
	}
	*e = (struct wl_event){ .ts = ts, .kind = r->op };
	e->v[WL_ADAPTER] = m->adapter;
	if (r->ref >= 0) {
		uint64_t *target = has(r, r->ref, values, true) ?
			u64map_get(&m->objects, key_of(&values[r->ref])) : NULL;

		if (!target) {
			*nout = 0;
			return unmatched(m, "the object it refers to was never made");
		}
		e->v[WL_REF] = *target >> 8;
	}
	for (size_t i = 0; i < r->nsets; i++) {
		if (!present(r, &r->sets[i].v, values)) {
			*nout = 0;
			return unmatched(m, "a field its rule reads is missing");
		}
		e->v[r->sets[i].slot] = evaluate(&r->sets[i].v, values);
	}
	if (wl_creates(r->op)) {
		e->v[WL_ID] = ++m->next_id;
		if (u64map_put(&m->objects, key, e->v[WL_ID] << 8 | r->op) ||
		    (m->spans && r->nkeys == 1 && extent_add(m, key, e->v[WL_BYTES]))) {
			*nout = 0;
			return unmatched(m, "out of memory");
		}
	} else if (obj) {
		e->v[WL_ID] = *obj >> 8;
		if (wl_destroys(r->op))
			u64map_del(&m->objects, key);
		if (wl_destroys(r->op) && m->spans)
			extent_del(m, key);
	}
	(*nout)++;
	return IMPORT_USED;
}

enum import_outcome import_event(struct import_map *m, int tag, uint64_t ts,
				 const struct ctf_value *values, struct wl_event *out, size_t *nout)
{
	const struct group *g = &m->groups[tag];

	*nout = 0;
	m->unmatched_event = g->event;
	m->unmatched_why = "";
	for (size_t i = 0; i < g->nmembers; i++) {
		struct rule *r = &m->rules[g->members[i].rule];
		struct ctf_value vals[CTF_MAX_FIELDS];

		for (unsigned int f = 0; f < r->nnames; f++)
			vals[f] = values[g->members[i].at[f]];
		if (matches(r, vals))
			return translate(m, r, ts, vals, out, nout);
	}
	return IMPORT_IGNORED;
}

const char *import_unmatched_why(const struct import_map *m, const char **event)
{
	*event = m->unmatched_event ? m->unmatched_event : "";
	return m->unmatched_why ? m->unmatched_why : "";
}
