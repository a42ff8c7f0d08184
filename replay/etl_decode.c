/* SPDX-License-Identifier: MIT */
/*
 * etl_decode(): an .etl file's events handed over as ctf_decode() hands a
 * CTF trace's. A class is one event of one provider at one version (its
 * id, version, task and opcode); a provider whose manifest gpuiso knows
 * (etl_schema.h) names its events and their fields, any other's events
 * are named by their provider's GUID and id, without fields. The file is
 * read twice: once to list the classes it has, so that a map naming none
 * of them fails before any event, then to hand the events over.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/array.h"
#include "common/u64map.h"
#include "replay/etl.h"
#include "replay/etl_internal.h"
#include "replay/etl_schema.h"

#define ETL_PROVIDERS_MAX 0xFFFEu /* provider slots in a class key; one more for other records */
#define ETL_STR_MAX (65536u / 2u * 3u + 1u) /* a payload's longest string, as UTF-8 */

static const struct etl_provider *const etl_known[] = { &etl_dxgkrnl };

/* What a bound name reads of its field. */
struct esel {
	int field;            /* in the layout; -1: absent */
	enum ctf_sel sel;
	uint32_t i;
};

/* One event class. */
struct eclass {
	const struct etl_provider *prov;      /* NULL: a provider gpuiso does not know */
	const struct etl_event_desc *desc;    /* its layout; NULL: not known */
	const struct etl_event_desc *like;    /* the event at another version: what it is named */
	char name[160], by_id[80];
	uint16_t id, task;
	uint8_t version, opcode;
	bool asked;                           /* bound at least once */
	bool listed;                          /* the last binding was asked before any event */
	int tag;
	unsigned int n;
	struct esel sel[CTF_MAX_FIELDS];
	struct etl_event first;               /* its first event */
};

struct edec {
	const char *path;
	ctf_bind_fn bind;
	ctf_event_fn on_event;
	ctf_mark_fn mark;
	void *ctx;
	struct ctf_stats *st;
	char *err;
	size_t errlen;

	struct u64map by_key;                 /* class key -> index in @cls, plus one */
	struct eclass *cls;
	size_t ncls, cls_cap;
	uint8_t (*guids)[16];                 /* the providers seen: a key's slot is an index here */
	size_t nguids, guids_cap;
	char *str;                            /* the current event's strings: ETL_STR_MAX each */
	uint64_t buffer;                      /* the buffer last marked, plus one */
};

static void guid_format(const uint8_t g[16], char *out, size_t len)
{
	snprintf(out, len, "{%08x-%04x-%04x-%02x%02x-%02x%02x%02x%02x%02x%02x}",
		 (unsigned int)etl_le(g, 4), (unsigned int)etl_le(g + 4, 2),
		 (unsigned int)etl_le(g + 6, 2), g[8], g[9], g[10], g[11], g[12], g[13], g[14], g[15]);
}

static bool is_event_header(const struct etl_event *ev)
{
	return ev->kind == 0x12 || ev->kind == 0x13;
}

/* Records of other header kinds: named by their kind (docs/trace-events.md). */
static const char *kind_name(uint8_t kind)
{
	switch (kind) {
	case 0x01: return "SYSTEM32";
	case 0x02: return "SYSTEM64";
	case 0x03: return "COMPACT32";
	case 0x04: return "COMPACT64";
	case 0x0A: case 0x14: return "FULL";
	case 0x0B: case 0x15: return "INSTANCE";
	case 0x10: return "PERFINFO32";
	case 0x11: return "PERFINFO64";
	default: return "MESSAGE";
	}
}

/* The key of @ev's class; -ENOSPC past ETL_PROVIDERS_MAX providers. */
static int class_key(struct edec *d, const struct etl_event *ev, uint64_t *key)
{
	size_t slot;

	if (!is_event_header(ev)) {
		*key = (uint64_t)0xFFFF << 48 | ev->kind;
		return 0;
	}
	for (slot = 0; slot < d->nguids; slot++)
		if (!memcmp(d->guids[slot], ev->provider, 16))
			break;
	if (slot == d->nguids) {
		if (slot >= ETL_PROVIDERS_MAX)
			return -ENOSPC;
		if (array_reserve(&d->guids, &d->guids_cap, d->nguids, sizeof(*d->guids)))
			return -ENOMEM;
		memcpy(d->guids[d->nguids++], ev->provider, 16);
	}
	*key = (uint64_t)slot << 48 | (uint64_t)ev->id << 32 | (uint64_t)ev->version << 24 |
	       (uint64_t)ev->opcode << 16 | ev->task;
	return 0;
}

/* What gpuiso knows of @c's provider and event, and the names it goes by. */
static void class_describe(struct eclass *c, const struct etl_event *ev)
{
	char guid[40];
	const char *prov;

	for (size_t i = 0; i < sizeof(etl_known) / sizeof(etl_known[0]); i++)
		if (!memcmp(etl_known[i]->guid, ev->provider, 16))
			c->prov = etl_known[i];
	for (size_t i = 0; c->prov && i < c->prov->nevents; i++) {
		const struct etl_event_desc *e = &c->prov->events[i];

		if (e->id != ev->id || e->task != ev->task || e->opcode != ev->opcode)
			continue;
		if (e->version == ev->version)
			c->desc = e;
		c->like = e;
	}
	if (c->desc)
		c->like = c->desc;
	guid_format(ev->provider, guid, sizeof(guid));
	prov = c->prov ? c->prov->name : guid;
	snprintf(c->by_id, sizeof(c->by_id), "%s:%u", prov, ev->id);
	if (c->like)
		snprintf(c->name, sizeof(c->name), "%s:%s", prov, c->like->name);
	else
		snprintf(c->name, sizeof(c->name), "%s", c->by_id);
}

static int class_find(struct edec *d, const struct etl_event *ev, struct eclass **out)
{
	uint64_t key, *slot;
	struct eclass *c;
	int rc = class_key(d, ev, &key);

	if (rc)
		return rc;
	slot = u64map_get(&d->by_key, key);
	if (slot) {
		*out = &d->cls[*slot - 1];
		return 0;
	}
	if (array_reserve(&d->cls, &d->cls_cap, d->ncls, sizeof(*d->cls)))
		return -ENOMEM;
	c = &d->cls[d->ncls];
	*c = (struct eclass){ .id = ev->id, .task = ev->task, .version = ev->version,
			      .opcode = ev->opcode, .tag = -1, .first = *ev };
	if (is_event_header(ev)) {
		class_describe(c, ev);
	} else {
		snprintf(c->name, sizeof(c->name), "ETW:%s", kind_name(ev->kind));
		c->by_id[0] = '\0';
	}
	rc = u64map_put(&d->by_key, key, d->ncls + 1);
	if (rc)
		return rc;
	*out = &d->cls[d->ncls++];
	return 0;
}

static bool type_is_int(uint8_t type)
{
	return type <= ETL_PTR || type == ETL_BOOL || type == ETL_FILETIME;
}

static bool field_is_array(const struct etl_field *f)
{
	return f->type != ETL_WSTR && f->type != ETL_ASTR && f->type != ETL_BINARY &&
	       (f->count_of >= 0 || f->count != 1);
}

/* "NAME", "NAME[I]", "NAME.count", "NAME.sum" (ctf_name_parse()) of @desc's fields. */
static struct esel resolve(const struct etl_event_desc *desc, const char *want)
{
	struct esel s = { .field = -1 };
	const struct etl_field *f = NULL;
	char base[128];

	s.sel = ctf_name_parse(want, base, sizeof(base), &s.i);
	for (unsigned int i = 0; desc && base[0] && i < desc->nfields && !f; i++)
		if (!strcmp(desc->fields[i].name, base)) {
			f = &desc->fields[i];
			s.field = (int)i;
		}
	if (!f)
		return s;
	if (s.sel == CTF_SEL_WHOLE ? field_is_array(f) ||
				     (!type_is_int(f->type) && f->type != ETL_WSTR &&
				      f->type != ETL_ASTR && f->type != ETL_GUID)
				   : (!field_is_array(f) || !type_is_int(f->type)) &&
				     !(s.sel == CTF_SEL_COUNT && f->type == ETL_BINARY))
		s.field = -1;
	return s;
}

/* Ask the caller about @c: by its name, then by its id. */
static int class_bind(struct edec *d, struct eclass *c, bool listed)
{
	struct ctf_binding b = { .listed = listed, .tag = -1 };
	int rc = d->bind(d->ctx, c->name, &b);

	if (!rc && b.tag < 0 && c->by_id[0] && strcmp(c->by_id, c->name)) {
		b = (struct ctf_binding){ .listed = listed, .tag = -1 };
		rc = d->bind(d->ctx, c->by_id, &b);
	}
	if (rc < 0)
		return rc;
	c->asked = true;
	c->listed = listed;
	c->tag = b.tag;
	c->n = b.n > CTF_MAX_FIELDS ? CTF_MAX_FIELDS : b.n;
	for (unsigned int i = 0; b.tag >= 0 && i < c->n; i++)
		c->sel[i] = resolve(c->desc, b.names[i] ? b.names[i] : "");
	return 0;
}

/* Where an event is, for a message. */
static void event_where(const struct edec *d, const struct etl_event *ev, uint64_t index,
			char *out, size_t len)
{
	snprintf(out, len, "%s: event %" PRIu64 " at %" PRIu64 " ns (CPU %u, buffer %" PRIu64
		 ", offset %" PRIu64 ")", d->path, index, ev->ts_ns, ev->cpu, ev->buffer, ev->offset);
}

/* A caller that reads the fields of an event whose layout gpuiso does not know: refused. */
static int refuse_unknown(struct edec *d, const struct eclass *c, const struct etl_event *ev,
			  uint64_t index)
{
	char where[256], versions[64] = "";
	size_t used = 0;

	if (c->tag < 0 || !c->n || c->desc)
		return 0;
	for (size_t i = 0; c->prov && i < c->prov->nevents && used < sizeof(versions) - 8; i++) {
		const struct etl_event_desc *e = &c->prov->events[i];

		if (e->id == c->id && e->task == c->task && e->opcode == c->opcode)
			used += (size_t)snprintf(versions + used, sizeof(versions) - used, "%s%u",
						 used ? ", " : "", e->version);
	}
	event_where(d, ev, index, where, sizeof(where));
	if (c->like)
		ctf_err_first(d->err, d->errlen, "%s: %s (id %u) is at version %u, whose layout gpuiso "
			      "does not know (it knows version%s %s): refused rather than read by "
			      "guess", where, c->name, c->id, c->version,
			      strchr(versions, ',') ? "s" : "", versions);
	else
		ctf_err_first(d->err, d->errlen, "%s: %s (version %u, task %u, opcode %u) is an event "
			      "whose layout gpuiso does not know: its fields cannot be read", where,
			      c->name, c->version, c->task, c->opcode);
	return -EINVAL;
}

/* Bytes of one element of a field of @type; 0 for those whose size is their content's. */
static uint32_t type_size(uint8_t type, unsigned int ptr)
{
	static const uint8_t sizes[] = {
		[ETL_U8] = 1, [ETL_I8] = 1, [ETL_U16] = 2, [ETL_I16] = 2, [ETL_U32] = 4,
		[ETL_I32] = 4, [ETL_U64] = 8, [ETL_I64] = 8, [ETL_BOOL] = 4, [ETL_F32] = 4,
		[ETL_F64] = 8, [ETL_GUID] = 16, [ETL_FILETIME] = 8, [ETL_SYSTEMTIME] = 16,
		[ETL_WSTR] = 2, [ETL_ASTR] = 1, [ETL_BINARY] = 1,
	};

	if (type == ETL_PTR)
		return ptr;
	return type < sizeof(sizes) ? sizes[type] : 0;
}

/* Where each field of @desc lies in @ev's payload. */
struct placed {
	uint32_t off[256], len[256], count[256];
	unsigned int have;    /* fields wholly inside the payload */
};

static uint64_t read_int(const uint8_t *p, uint32_t size, bool is_signed)
{
	uint64_t v = etl_le(p, size);

	if (is_signed && size < 8 && (v >> (size * 8 - 1)) & 1)
		v |= ~0ull << (size * 8);
	return v;
}

static bool type_signed(uint8_t type)
{
	return type == ETL_I8 || type == ETL_I16 || type == ETL_I32 || type == ETL_I64;
}

/*
 * Lay @desc's fields over @ev's payload, in order, until one does not fit.
 * Return: the index of the first required field that does not fit, or -1.
 */
static int place(const struct etl_event_desc *desc, const struct etl_event *ev,
		 struct placed *pl)
{
	unsigned int ptr = ev->kind == 0x12 ? 4 : 8;
	uint32_t at = 0;

	pl->have = 0;
	for (unsigned int i = 0; i < desc->nfields; i++) {
		const struct etl_field *f = &desc->fields[i];
		uint32_t es = type_size(f->type, ptr), left = ev->len - at;
		uint64_t count = f->count, bytes;

		if (f->count_of >= 0)
			count = read_int(ev->data + pl->off[f->count_of], pl->len[f->count_of] > 8 ?
					 8 : pl->len[f->count_of], false);
		if (f->type == ETL_SID) {
			bytes = left >= 2 ? 8 + 4 * (uint64_t)ev->data[at + 1] : 8;
			count = 1;
		} else if ((f->type == ETL_WSTR || f->type == ETL_ASTR) && f->count_of < 0 &&
			   !f->count) {
			/* NUL-terminated: its length is where the NUL is */
			for (count = 0, bytes = UINT64_MAX; (count + 1) * es <= left; count++)
				if (!etl_le(ev->data + at + count * es, es)) {
					bytes = (count + 1) * es;
					break;
				}
		} else {
			bytes = es && count > left / es ? UINT64_MAX : count * es;
		}
		if (bytes > left)
			return i < desc->nrequired ? (int)i : -1;
		pl->off[i] = at;
		pl->len[i] = (uint32_t)bytes;
		pl->count[i] = (uint32_t)count;
		pl->have = i + 1;
		at += (uint32_t)bytes;
	}
	return -1;
}

/* UTF-16LE to UTF-8 (an unpaired surrogate becomes U+FFFD), up to a NUL. */
static void utf16_to_utf8(const uint8_t *p, uint32_t units, char *out)
{
	size_t n = 0;

	for (uint32_t i = 0; i < units; i++) {
		uint32_t cp = (uint32_t)etl_le(p + 2 * i, 2);

		if (!cp)
			break;
		if (cp >= 0xD800 && cp < 0xDC00 && i + 1 < units) {
			uint32_t lo = (uint32_t)etl_le(p + 2 * i + 2, 2);

			if (lo >= 0xDC00 && lo < 0xE000) {
				cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
				i++;
			}
		}
		if (cp >= 0xD800 && cp < 0xE000)
			cp = 0xFFFD;
		if (cp < 0x80) {
			out[n++] = (char)cp;
		} else if (cp < 0x800) {
			out[n++] = (char)(0xC0 | cp >> 6);
			out[n++] = (char)(0x80 | (cp & 0x3F));
		} else if (cp < 0x10000) {
			out[n++] = (char)(0xE0 | cp >> 12);
			out[n++] = (char)(0x80 | (cp >> 6 & 0x3F));
			out[n++] = (char)(0x80 | (cp & 0x3F));
		} else {
			out[n++] = (char)(0xF0 | cp >> 18);
			out[n++] = (char)(0x80 | (cp >> 12 & 0x3F));
			out[n++] = (char)(0x80 | (cp >> 6 & 0x3F));
			out[n++] = (char)(0x80 | (cp & 0x3F));
		}
	}
	out[n] = '\0';
}

/* One selected value of @ev (laid out in @pl). */
static void read_value(const struct eclass *c, const struct esel *s, const struct etl_event *ev,
		       const struct placed *pl, struct ctf_value *v, char *str)
{
	const struct etl_field *f;
	const uint8_t *p;
	uint32_t es;

	*v = (struct ctf_value){ 0 };
	if (s->field < 0 || (unsigned int)s->field >= pl->have)
		return;
	f = &c->desc->fields[s->field];
	p = ev->data + pl->off[s->field];
	es = type_size(f->type, ev->kind == 0x12 ? 4 : 8);
	switch (s->sel) {
	case CTF_SEL_WHOLE:
		if (f->type == ETL_WSTR) {
			utf16_to_utf8(p, pl->count[s->field], str);
		} else if (f->type == ETL_ASTR) {
			size_t n = strnlen((const char *)p, pl->count[s->field]);

			memcpy(str, p, n);
			str[n] = '\0';
		} else if (f->type == ETL_GUID) {
			guid_format(p, str, ETL_STR_MAX);
		} else {
			v->u = read_int(p, es, type_signed(f->type));
			v->negative = type_signed(f->type) && (int64_t)v->u < 0;
			break;
		}
		v->is_str = true;
		v->s = str;
		break;
	case CTF_SEL_ELEM:
		if (s->i >= pl->count[s->field])
			return; /* absent */
		v->u = read_int(p + (size_t)s->i * es, es, type_signed(f->type));
		v->negative = type_signed(f->type) && (int64_t)v->u < 0;
		break;
	case CTF_SEL_COUNT:
		v->u = pl->count[s->field];
		break;
	case CTF_SEL_SUM:
		for (uint32_t i = 0; i < pl->count[s->field]; i++)
			v->u += read_int(p + (size_t)i * es, es, type_signed(f->type));
		break;
	}
	v->present = true;
}

/* A new buffer: marked, so that a death there can be placed. */
static void mark_buffer(struct edec *d, const struct etl_event *ev)
{
	char name[32];

	if (d->buffer == ev->buffer + 1)
		return;
	d->buffer = ev->buffer + 1;
	snprintf(name, sizeof(name), "cpu %u", ev->cpu);
	d->mark(d->ctx, CTF_MARK_PACKET, name, ev->buffer);
}

static int one_event(struct edec *d, const struct etl_event *ev, struct placed *pl)
{
	struct ctf_value vals[CTF_MAX_FIELDS] = { 0 };
	char where[256];
	struct eclass *c;
	uint64_t index;
	int rc, bad;

	mark_buffer(d, ev);
	rc = class_find(d, ev, &c);
	if (rc)
		return rc;
	if (d->st->events && ev->ts_ns < d->st->last_ts) {
		event_where(d, ev, d->st->events, where, sizeof(where));
		ctf_err_first(d->err, d->errlen, "%s: corrupt trace: it comes after event %" PRIu64
			      " at %" PRIu64 " ns", where, d->st->events - 1, d->st->last_ts);
		return -EINVAL;
	}
	index = d->st->events++;
	if (index == 0)
		d->st->first_ts = ev->ts_ns;
	d->st->last_ts = ev->ts_ns;
	if ((index & 4095) == 4095)
		d->mark(d->ctx, CTF_MARK_STATS, NULL, 0);
	if (!c->asked || (c->listed && c->tag < 0)) {
		/* asked (again) at its first event, where the caller may refuse it */
		rc = class_bind(d, c, false);
		if (rc < 0) {
			event_where(d, ev, index, where, sizeof(where));
			ctf_err_first(d->err, d->errlen, "%s", where);
			return rc;
		}
		rc = refuse_unknown(d, c, ev, index);
		if (rc)
			return rc;
	}
	if (c->tag < 0)
		return 0;
	if (c->desc && c->n && (bad = place(c->desc, ev, pl)) >= 0) {
		event_where(d, ev, index, where, sizeof(where));
		ctf_err_first(d->err, d->errlen, "%s: corrupt trace: %s (version %u)'s field '%s' lies "
			      "beyond its %u bytes", where, c->name, c->version,
			      c->desc->fields[bad].name, ev->len);
		return -EINVAL;
	}
	for (unsigned int i = 0; i < c->n; i++)
		read_value(c, &c->sel[i], ev, pl, &vals[i], d->str + (size_t)i * ETL_STR_MAX);
	return d->on_event(d->ctx, c->tag, index, ev->ts_ns, vals);
}

/* The classes the file has, each asked about before any event. */
static int list_classes(struct edec *d, struct etl_reader *r)
{
	struct etl_event ev;
	struct eclass *c;
	int rc;

	while (etl_next(r, &ev)) {
		mark_buffer(d, &ev);
		rc = class_find(d, &ev, &c);
		if (rc)
			return rc;
	}
	d->buffer = 0;
	for (size_t i = 0; i < d->ncls; i++) {
		c = &d->cls[i];
		rc = class_bind(d, c, true);
		if (rc < 0) {
			ctf_err_first(d->err, d->errlen, "%s: the trace's event classes", d->path);
			return rc;
		}
		rc = refuse_unknown(d, c, &c->first, c->first.index);
		if (rc)
			return rc;
	}
	etl_rewind(r);
	return 0;
}

int etl_decode(const char *path, ctf_bind_fn bind, ctf_event_fn on_event, ctf_mark_fn mark,
	       void *ctx, struct ctf_stats *st, char *err, size_t errlen)
{
	struct edec d = { .path = path, .bind = bind, .on_event = on_event, .mark = mark,
			  .ctx = ctx, .st = st, .err = err, .errlen = errlen };
	struct etl_layout lay;
	struct etl_reader *r;
	struct etl_event ev;
	struct placed *pl;
	int rc;

	if (err && errlen)
		err[0] = '\0';
	*st = (struct ctf_stats){ 0 };
	mark(ctx, CTF_MARK_FOLDER, path, 0);
	rc = etl_open(path, &r, &lay, err, errlen);
	if (rc)
		return rc;
	st->traces = 1;
	/* ETW counts its losses for the whole session, not where they were */
	st->discarded = lay.events_lost;
	st->lost_packets = lay.buffers_lost;
	if (st->discarded || st->lost_packets)
		mark(ctx, CTF_MARK_STATS, NULL, 0);
	d.str = malloc((size_t)CTF_MAX_FIELDS * ETL_STR_MAX);
	pl = malloc(sizeof(*pl));
	rc = d.str && pl ? u64map_init(&d.by_key) : -ENOMEM;
	if (rc)
		goto free_buffers;
	rc = list_classes(&d, r);
	while (!rc && etl_next(r, &ev))
		rc = one_event(&d, &ev, pl);
	if (rc == -ENOMEM || rc == -ENOSPC) {
		ctf_err_first(d.err, d.errlen, "%s: %s", path, rc == -ENOMEM ? "out of memory" :
			      "more providers than a trace may have");
		rc = rc == -ENOSPC ? -EINVAL : rc;
	}
	mark(ctx, CTF_MARK_STATS, NULL, 0);
	u64map_fini(&d.by_key);
free_buffers:
	if (rc == -ENOMEM)
		ctf_err_first(d.err, d.errlen, "%s: out of memory", path);
	free(pl);
	free(d.str);
	free(d.cls);
	free(d.guids);
	etl_close(r);
	return rc;
}
