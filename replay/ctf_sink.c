/* SPDX-License-Identifier: MIT */
/*
 * The sink of the CTF reader's graph. Per event class the caller's binding
 * is resolved once to payload member indices and field kinds; per event
 * only index-based accessors run, so the cost per event is a few borrows
 * and no string comparison. Nothing is kept per event: memory grows with
 * the number of event classes only.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/array.h"
#include "replay/ctf_internal.h"

enum fkind { FK_NONE, FK_UINT, FK_SINT, FK_STR, FK_ARRAY };

/* One event class as the caller bound it, resolved to member indices. */
struct cls_info {
	const bt_event_class *ec;   /* a reference of ours: keeps the key's address unique */
	int tag;
	unsigned int n;
	bool has_clock;             /* its stream class has a default clock */
	uint64_t idx[CTF_MAX_FIELDS];
	uint8_t kind[CTF_MAX_FIELDS]; /* enum fkind; FK_NONE: never present */
	uint8_t sel[CTF_MAX_FIELDS];  /* FK_ARRAY: enum ctf_sel */
	uint32_t elem[CTF_MAX_FIELDS]; /* CTF_SEL_ELEM: the element */
};

static struct cls_info *cls_find(const struct u64map *classes, const bt_event_class *ec)
{
	uint64_t *ci = u64map_get(classes, (uintptr_t)ec);

	return ci ? (struct cls_info *)(uintptr_t)*ci : NULL;
}

void ctf_classes_free(struct u64map *classes)
{
	uint64_t ec, ci;
	size_t pos = 0;

	while (u64map_next(classes, &pos, &ec, &ci)) {
		bt_event_class_put_ref((const bt_event_class *)(uintptr_t)ec);
		free((struct cls_info *)(uintptr_t)ci);
	}
	u64map_fini(classes);
}

static enum fkind kind_of(const bt_field_class *fc)
{
	bt_field_class_type t = bt_field_class_get_type(fc);

	/* Enumerations are integers of these types too. */
	if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_UNSIGNED_INTEGER))
		return FK_UINT;
	if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_SIGNED_INTEGER))
		return FK_SINT;
	if (t == BT_FIELD_CLASS_TYPE_STRING)
		return FK_STR;
	return FK_NONE;
}

enum ctf_sel ctf_name_parse(const char *name, char *base, size_t len, uint32_t *index)
{
	const char *br = strchr(name, '['), *dot = strrchr(name, '.');
	enum ctf_sel sel = CTF_SEL_WHOLE;
	size_t n = strlen(name);
	char *end;

	if (br) {
		unsigned long long i = strtoull(br + 1, &end, 10);

		if (end != br + 1 && br[1] >= '0' && br[1] <= '9' && !strcmp(end, "]") &&
		    i <= UINT32_MAX) {
			sel = CTF_SEL_ELEM;
			*index = (uint32_t)i;
			n = (size_t)(br - name);
		}
	} else if (dot && (!strcmp(dot, ".count") || !strcmp(dot, ".sum"))) {
		sel = dot[1] == 'c' ? CTF_SEL_COUNT : CTF_SEL_SUM;
		n = (size_t)(dot - name);
	}
	if (n >= len) {
		if (len)
			base[0] = '\0';
		return CTF_SEL_WHOLE;
	}
	memcpy(base, name, n);
	base[n] = '\0';
	return sel;
}

/* An array (static or dynamic) of integers: what CTF_SEL_ELEM and the others read. */
static bool is_int_array(const bt_field_class *fc)
{
	bt_field_class_type t = bt_field_class_get_type(fc);
	enum fkind k;

	if (!bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_ARRAY))
		return false;
	k = kind_of(bt_field_class_array_borrow_element_field_class_const(fc));
	return k == FK_UINT || k == FK_SINT;
}

static bool class_has_clock(const bt_event_class *ec)
{
	const bt_stream_class *sc = bt_event_class_borrow_stream_class_const(ec);

	return bt_stream_class_borrow_default_clock_class_const(sc) != NULL;
}

/* The first event of a class: ask the caller and resolve its names once. */
static int cls_bind(struct reader *r, const bt_event_class *ec, struct cls_info **out)
{
	struct ctf_binding b = { .tag = -1 };
	const char *name = bt_event_class_get_name(ec);
	const bt_field_class *payload = bt_event_class_borrow_payload_field_class_const(ec);
	struct cls_info *ci;
	uint64_t nmemb = 0;
	int ret;

	ret = r->bind(r->ctx, name ? name : "", &b);
	if (ret < 0)
		return ret;
	if (b.tag >= 0 && b.n > CTF_MAX_FIELDS) {
		ctf_err_set(r->err, r->errlen, "%s: binding of event \"%s\" asks for %u fields (max %d)",
			r->path, name ? name : "", b.n, CTF_MAX_FIELDS);
		return -EINVAL;
	}
	ci = calloc(1, sizeof(*ci));
	if (!ci)
		return -ENOMEM;
	ci->tag = b.tag < 0 ? -1 : b.tag;
	ci->n = b.tag < 0 ? 0 : b.n;
	ci->has_clock = class_has_clock(ec);
	if (payload && bt_field_class_get_type(payload) == BT_FIELD_CLASS_TYPE_STRUCTURE)
		nmemb = bt_field_class_structure_get_member_count(payload);
	for (unsigned int f = 0; f < ci->n; f++) {
		char base[256];
		uint32_t elem = 0;
		enum ctf_sel sel = ctf_name_parse(b.names[f] ? b.names[f] : "", base, sizeof(base),
						  &elem);

		ci->kind[f] = FK_NONE;
		for (uint64_t m = 0; base[0] && m < nmemb; m++) {
			const bt_field_class_structure_member *mb =
				bt_field_class_structure_borrow_member_by_index_const(payload, m);
			const bt_field_class *fc;

			if (strcmp(bt_field_class_structure_member_get_name(mb), base) != 0)
				continue;
			fc = bt_field_class_structure_member_borrow_field_class_const(mb);
			ci->idx[f] = m;
			if (sel == CTF_SEL_WHOLE)
				ci->kind[f] = (uint8_t)kind_of(fc);
			else if (is_int_array(fc))
				ci->kind[f] = FK_ARRAY;
			ci->sel[f] = (uint8_t)sel;
			ci->elem[f] = elem;
			break;
		}
	}
	ci->ec = ec;
	ret = u64map_put(&r->classes, (uintptr_t)ec, (uintptr_t)ci);
	if (ret) {
		free(ci);
		return ret;
	}
	/* Held until the end so no other class can reuse the address we key on. */
	bt_event_class_get_ref(ec);
	*out = ci;
	return 0;
}

/* ---- the sink ---- */

static uint64_t event_ts(const bt_message *msg)
{
	const bt_clock_snapshot *cs = bt_message_event_borrow_default_clock_snapshot_const(msg);
	int64_t ns;

	if (bt_clock_snapshot_get_ns_from_origin(cs, &ns) != BT_CLOCK_SNAPSHOT_GET_NS_FROM_ORIGIN_STATUS_OK) {
		/* Beyond int64 ns from the origin: the raw cycle count still orders events. */
		bt_current_thread_clear_error();
		return bt_clock_snapshot_get_value(cs);
	}
	/* Before the origin cannot be shown as an unsigned time; such clocks are unheard of. */
	return ns < 0 ? 0 : (uint64_t)ns;
}

/* An array's element, count or sum into @v (an element past its end: absent). */
static void array_value(const bt_field *fld, enum ctf_sel sel, uint32_t elem, struct ctf_value *v)
{
	uint64_t n = bt_field_array_get_length(fld);

	if (sel == CTF_SEL_COUNT) {
		v->u = n;
		return;
	}
	for (uint64_t i = sel == CTF_SEL_ELEM ? elem : 0; i < n; i++) {
		const bt_field *e = bt_field_array_borrow_element_field_by_index_const(fld, i);
		uint64_t x = kind_of(bt_field_borrow_class_const(e)) == FK_SINT
				     ? (uint64_t)bt_field_integer_signed_get_value(e)
				     : bt_field_integer_unsigned_get_value(e);

		if (sel == CTF_SEL_ELEM) {
			v->u = x;
			v->negative = kind_of(bt_field_borrow_class_const(e)) == FK_SINT &&
				      (int64_t)x < 0;
			return;
		}
		v->u += x;
	}
	if (sel == CTF_SEL_ELEM)
		v->present = false;
}

static int on_event_msg(struct reader *r, const bt_message *msg)
{
	const bt_event *ev = bt_message_event_borrow_event_const(msg);
	const bt_event_class *ec = bt_event_borrow_class_const(ev);
	struct ctf_value vals[CTF_MAX_FIELDS];
	struct cls_info *ci = r->last;
	uint64_t index, ts = 0;
	int ret;

	if (!ci || ci->ec != ec) {
		ci = cls_find(&r->classes, ec);
		if (!ci) {
			ret = cls_bind(r, ec, &ci);
			if (ret < 0) {
				/* the caller refused it: say where (its message says what) */
				if (r->err && r->errlen && !r->err[0])
					ctf_err_set(r->err, r->errlen, "%s: event %" PRIu64 " at %" PRIu64 " ns",
						r->path, r->st->events,
						class_has_clock(ec) ? event_ts(msg) : 0);
				return ret;
			}
		}
		r->last = ci;
	}
	if (ci->has_clock) {
		ts = event_ts(msg);
		/* A muxer refuses this between streams; within one stream it is ours to see. */
		if (ts < r->st->last_ts) {
			ctf_err_set(r->err, r->errlen,
				"%s: corrupt trace: event %" PRIu64 " at %" PRIu64
				" ns comes after event %" PRIu64 " at %" PRIu64 " ns",
				r->path, r->st->events, ts, r->st->events - 1, r->st->last_ts);
			return -EINVAL;
		}
	}
	index = r->st->events++;
	if (index == 0)
		r->st->first_ts = ts;
	r->st->last_ts = ts;
	if ((index & 4095) == 4095)
		r->mark(r->ctx, CTF_MARK_STATS, NULL, 0);
	if (ci->tag < 0)
		return 0;

	const bt_field *payload = ci->n ? bt_event_borrow_payload_field_const(ev) : NULL;

	for (unsigned int f = 0; f < ci->n; f++) {
		struct ctf_value *v = &vals[f];
		const bt_field *fld;

		v->present = ci->kind[f] != FK_NONE;
		v->is_str = false;
		v->negative = false;
		v->u = 0;
		v->s = NULL;
		if (!v->present)
			continue;
		fld = bt_field_structure_borrow_member_field_by_index_const(payload, ci->idx[f]);
		switch (ci->kind[f]) {
		case FK_UINT:
			v->u = bt_field_integer_unsigned_get_value(fld);
			break;
		case FK_SINT: {
			int64_t i = bt_field_integer_signed_get_value(fld);

			v->u = (uint64_t)i;
			v->negative = i < 0;
			break;
		}
		case FK_ARRAY:
			array_value(fld, ci->sel[f], ci->elem[f], v);
			break;
		default:
			v->is_str = true;
			v->s = bt_field_string_get_value(fld);
			break;
		}
	}
	for (unsigned int f = ci->n; f < CTF_MAX_FIELDS; f++)
		vals[f].present = false; /* (a reader may look past the binding's count) */
	return r->on_event(r->ctx, ci->tag, index, ts, vals);
}

/* A packet begins: mark it with its stream's name and its index in the stream. */
static int mark_packet(struct reader *r, const bt_message *msg)
{
	const bt_stream *s = bt_packet_borrow_stream_const(
		bt_message_packet_beginning_borrow_packet_const(msg));
	const char *name = bt_stream_get_name(s);
	char id[32];
	size_t i;

	for (i = 0; i < r->nstreams && r->streams[i].stream != s; i++)
		;
	if (i == r->nstreams) {
		if (array_reserve(&r->streams, &r->streams_cap, r->nstreams, sizeof(*r->streams)))
			return -ENOMEM;
		r->streams[r->nstreams++] = (struct stream_packets){ .stream = s };
	}
	if (!name) {
		snprintf(id, sizeof(id), "stream %" PRIu64, bt_stream_get_id(s));
		name = id;
	}
	r->mark(r->ctx, CTF_MARK_PACKET, name, r->streams[i].packets++);
	return 0;
}

bt_graph_simple_sink_component_consume_func_status
ctf_sink_consume(bt_message_iterator *it, void *data)
{
	struct reader *r = data;
	bt_message_array_const msgs;
	uint64_t count;

	switch (bt_message_iterator_next(it, &msgs, &count)) {
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_OK:
		break;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_END:
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_END;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_AGAIN:
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_AGAIN;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_MEMORY_ERROR:
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_MEMORY_ERROR;
	default:
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_ERROR;
	}
	for (uint64_t i = 0; i < count; i++) {
		const bt_message *msg = msgs[i];
		uint64_t n;

		if (r->stop == 0) {
			switch (bt_message_get_type(msg)) {
			case BT_MESSAGE_TYPE_EVENT:
				r->stop = on_event_msg(r, msg);
				if (r->stop > 0)
					r->stop = 0;
				break;
			case BT_MESSAGE_TYPE_DISCARDED_EVENTS:
				if (bt_message_discarded_events_get_count(msg, &n) !=
				    BT_PROPERTY_AVAILABILITY_AVAILABLE)
					n = 1; /* some, the tracer did not say how many */
				r->st->discarded += n;
				r->mark(r->ctx, CTF_MARK_STATS, NULL, 0);
				break;
			case BT_MESSAGE_TYPE_DISCARDED_PACKETS:
				/* lost packets held an unknown number of events: counted apart */
				if (bt_message_discarded_packets_get_count(msg, &n) !=
				    BT_PROPERTY_AVAILABILITY_AVAILABLE)
					n = 1;
				r->st->lost_packets += n;
				r->mark(r->ctx, CTF_MARK_STATS, NULL, 0);
				break;
			case BT_MESSAGE_TYPE_PACKET_BEGINNING:
				r->stop = mark_packet(r, msg);
				break;
			default:
				break; /* stream and packet boundaries, inactivity */
			}
		}
		/* Every message is ours, also those after a stop. */
		bt_message_put_ref(msg);
	}
	/* END, not ERROR: a stop by the caller is no babeltrace2 failure to report. */
	return r->stop ? BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_END
		       : BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_OK;
}
