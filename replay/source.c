/* SPDX-License-Identifier: MIT */
/* A CTF trace's workload events: the catalogue's, or a foreign trace's through import maps. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "replay/source.h"

/* One read: the caller's sink, and what went wrong where. */
struct source_read {
	const struct wl_source *s;
	wl_source_fn fn;
	void *ctx;
	const struct ctf_stats *st; /* the reader's, current during the read */
	struct wl_source_counts counts;
	bool listed;                /* the trace listed the classes it defines */
	bool fit_checked;           /* ... and the maps were checked against them */
	char bind_error[256];
	char decode_error[256];     /* a bad event, said where */
};

/* Workload events bind to their catalogue fields; anything else is ignored (or refused). */
static int bind_wl(struct source_read *r, const char *name, struct ctf_binding *b)
{
	int kind = wl_kind_lookup(name);

	if (kind < 0) {
		if (r->s->strict) {
			snprintf(r->bind_error, sizeof(r->bind_error),
				 "event class '%s' is not a workload event (--strict)", name);
			return -EINVAL;
		}
		b->tag = -1;
		return 0;
	}
	b->tag = kind;
	b->n = wl_catalogue[kind].nfields;
	for (unsigned int i = 0; i < b->n; i++)
		b->names[i] = wl_catalogue[kind].fields[i].name;
	return 0;
}

static int bind(void *ctx, const char *name, struct ctf_binding *b)
{
	struct source_read *r = ctx;

	r->listed |= b->listed;
	if (!r->s->map)
		return b->listed ? ((b->tag = -1), 0) : bind_wl(r, name, b);
	import_bind(r->s->map, name, b);
	if (b->tag < 0 && r->s->strict && !b->listed) {
		snprintf(r->bind_error, sizeof(r->bind_error),
			 "no rule of the import maps takes event class '%s' (--strict)", name);
		return -EINVAL;
	}
	return 0;
}

/* One workload event to the caller, marked when the tracer lost events before it. */
static int deliver(struct source_read *r, uint64_t index, struct wl_event *e)
{
	if (r->st->discarded || r->st->lost_packets)
		e->flags |= WL_AFTER_LOSS;
	return r->fn(r->ctx, index, e);
}

static int on_wl_event(struct source_read *r, int tag, uint64_t index, uint64_t ts,
		       const struct ctf_value *values)
{
	const struct wl_desc *d = &wl_catalogue[tag];
	struct wl_event e = { .ts = ts, .kind = (uint32_t)tag };

	for (unsigned int i = 0; i < d->nfields; i++) {
		if (!values[i].present || values[i].is_str || values[i].negative) {
			snprintf(r->decode_error, sizeof(r->decode_error),
				 "event %llu at %llu ns: %s:%s has no %s field '%s'",
				 (unsigned long long)index, (unsigned long long)ts, WL_PROVIDER,
				 d->name, values[i].negative ? "non-negative" : "integer",
				 d->fields[i].name);
			return -EINVAL;
		}
		e.v[d->fields[i].slot] = values[i].u;
	}
	r->counts.used++;
	return deliver(r, index, &e);
}

/* Once the trace listed its classes: does every map fit it (import_check_defined())? */
static int check_fit(struct source_read *r)
{
	if (!r->listed || r->fit_checked)
		return 0;
	r->fit_checked = true;
	return import_check_defined(r->s->map, r->decode_error, sizeof(r->decode_error));
}

static int on_foreign_event(struct source_read *r, int tag, uint64_t index, uint64_t ts,
			    const struct ctf_value *values)
{
	struct wl_event out[2];
	size_t n;
	int rc = check_fit(r);

	if (rc)
		return rc;

	switch (import_event(r->s->map, tag, ts, values, out, &n)) {
	case IMPORT_USED:
		r->counts.used++;
		break;
	case IMPORT_UNMATCHED:
		r->counts.unmatched++;
		if (r->s->unmatched) {
			const char *event, *why = import_unmatched_why(r->s->map, &event);

			r->s->unmatched(r->ctx, index, ts, event, why);
		}
		break;
	case IMPORT_IGNORED:
		break;
	}
	for (size_t i = 0; i < n && !rc; i++)
		rc = deliver(r, index, &out[i]);
	while (!rc && import_next(r->s->map, &out[0]))
		rc = deliver(r, index, &out[0]);
	return rc;
}

static int on_ctf_event(void *ctx, int tag, uint64_t index, uint64_t ts,
			const struct ctf_value *values)
{
	struct source_read *r = ctx;

	return r->s->map ? on_foreign_event(r, tag, index, ts, values)
			 : on_wl_event(r, tag, index, ts, values);
}

int wl_source_read(const struct wl_source *s, wl_source_fn fn, void *ctx, struct ctf_stats *st,
		   struct wl_source_counts *counts, char *err, size_t errlen)
{
	struct source_read r = { .s = s, .fn = fn, .ctx = ctx };
	struct ctf_stats own = { 0 };
	char cerr[512] = "";
	int rc;

	if (!st)
		st = &own;
	r.st = st;
	rc = ctf_read(s->trace, bind, on_ctf_event, &r, s->lim, st, cerr, sizeof(cerr));
	if (s->map && !rc)
		rc = check_fit(&r);
	if (s->map && !rc)
		import_warn_unbound(s->map);
	if (s->map)
		r.counts.unmatched_ends = import_unmatched_ends(s->map);
	if (counts)
		*counts = r.counts;
	if (r.decode_error[0])
		snprintf(err, errlen, "%s", r.decode_error);
	else if (r.bind_error[0]) /* the reader said where (the event), bind() what */
		snprintf(err, errlen, "%s: %s", cerr, r.bind_error);
	else
		snprintf(err, errlen, "%s", cerr);
	return rc;
}
