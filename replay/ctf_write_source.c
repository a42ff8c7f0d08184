/* SPDX-License-Identifier: MIT */
/*
 * The source component of the CTF writer's graph (ctf_write.c), whose
 * message iterator pulls events from the caller's wl_next_fn. It emits one
 * stream (named "stream", so the data file is always DIR/stream), packets
 * of CW_PACKET_EVENTS events whose begin/end clock snapshots are their
 * first/last event timestamps, and one event class per catalogue kind
 * whose payload is the catalogue's fields as unsigned 64-bit integers, in
 * catalogue order. Everything it emits is a function of the events: fixed
 * clock class name and UUID, no hostname or date in the environment.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/digest.h"
#include "replay/ctf.h"
#include "replay/ctf_internal.h"

/* Events per packet: large enough that packet headers cost nothing, small
 * enough that a reader seeking by packet index stays cheap. */
#define CW_PACKET_EVENTS 4096

/* The clock's fixed UUID: all gpuiso-generated traces share one synthetic clock. */
static const uint8_t cw_clock_uuid[16] = {
	0x67, 0x70, 0x75, 0x69, 0x73, 0x6f, 0x4c, 0x6b,
	0x81, 0x63, 0x6c, 0x6f, 0x63, 0x6b, 0x00, 0x01,
};

/* The source component's private data: the trace IR it emits. */
struct cw_source {
	struct cw_run *run;
	bt_trace_class *tc;
	bt_stream_class *sc;
	bt_event_class *ec[WL_NKINDS];
	bt_trace *trace;
	bt_stream *stream;
};

enum cw_phase { CW_STREAM_BEGIN, CW_EVENTS, CW_STREAM_END, CW_DONE };

/* The message iterator's private data. */
struct cw_iter {
	struct cw_source *src;
	enum cw_phase phase;
	bt_packet *packet;        /* the open packet, NULL between packets */
	uint64_t in_packet;       /* events emitted into it */
	uint64_t packet_last_ts;  /* timestamp of its last event */
	bool have_event;          /* @ev was pulled and waits to be emitted */
	struct wl_event ev;
	struct ctf_loss loss;     /* lost before @ev (or after the last event): to emit first */
	bool ended;               /* the producer has no more events */
	bool tail_packet;         /* a loss after the last event: an empty packet carries it */
	bool head_packet;         /* a loss before the first event: an empty packet precedes it */
	bool pulled;              /* the producer was asked at least once */
};

static void cw_fail(struct cw_run *run, int rc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Record the first failure of the run; later ones are consequences. */
static void cw_fail(struct cw_run *run, int rc, const char *fmt, ...)
{
	va_list ap;

	if (run->rc)
		return;
	run->rc = rc;
	va_start(ap, fmt);
	vsnprintf(run->msg, sizeof(run->msg), fmt, ap);
	va_end(ap);
}

/* Two independent 64-bit lanes over every word of the event that lands in the trace. */
static inline void cw_hash_word(struct cw_run *run, uint64_t w)
{
	run->hash[0] = digest_fnv1a_word(run->hash[0], w);
	run->hash[1] = ((run->hash[1] ^ w) << 23 | (run->hash[1] ^ w) >> 41) * 0x9e3779b97f4a7c15ull;
}

static void cw_hash_event(struct cw_run *run, const struct wl_event *e)
{
	const struct wl_desc *d = &wl_catalogue[e->kind];

	cw_hash_word(run, e->ts);
	cw_hash_word(run, e->kind);
	for (unsigned int i = 0; i < d->nfields; i++)
		cw_hash_word(run, e->v[d->fields[i].slot]);
}

/* --- the source component --- */

static void cw_source_put(struct cw_source *s)
{
	bt_stream_put_ref(s->stream);
	bt_trace_put_ref(s->trace);
	for (int k = 0; k < WL_NKINDS; k++)
		bt_event_class_put_ref(s->ec[k]);
	bt_stream_class_put_ref(s->sc);
	bt_trace_class_put_ref(s->tc);
	free(s);
}

/* One event class per catalogue kind: "gpuiso_wl:NAME", payload of u64 fields. */
static int cw_build_event_class(struct cw_source *s, int kind)
{
	const struct wl_desc *d = &wl_catalogue[kind];
	bt_field_class *payload;
	char name[64];
	int rc = -ENOMEM;

	s->ec[kind] = bt_event_class_create(s->sc);
	if (!s->ec[kind])
		return -ENOMEM;
	snprintf(name, sizeof(name), "%s:%s", WL_PROVIDER, d->name);
	if (bt_event_class_set_name(s->ec[kind], name))
		return -ENOMEM;
	payload = bt_field_class_structure_create(s->tc);
	if (!payload)
		return -ENOMEM;
	for (unsigned int i = 0; i < d->nfields; i++) {
		bt_field_class *fc = bt_field_class_integer_unsigned_create(s->tc);

		if (!fc)
			goto put_payload;
		if (bt_field_class_structure_append_member(payload, d->fields[i].name, fc)) {
			bt_field_class_put_ref(fc);
			goto put_payload;
		}
		bt_field_class_put_ref(fc);
	}
	if (!bt_event_class_set_payload_field_class(s->ec[kind], payload))
		rc = 0;
put_payload:
	bt_field_class_put_ref(payload);
	return rc;
}

static int cw_build(bt_self_component *self, struct cw_source *s)
{
	bt_clock_class *cc;
	int rc;

	s->tc = bt_trace_class_create(self);
	if (!s->tc)
		return -ENOMEM;
	s->sc = bt_stream_class_create(s->tc);
	if (!s->sc)
		return -ENOMEM;
	/* 1 GHz (the default frequency), origin the Unix epoch: event timestamps are ns. */
	cc = bt_clock_class_create(self);
	if (!cc)
		return -ENOMEM;
	bt_clock_class_set_origin_is_unix_epoch(cc, BT_TRUE);
	bt_clock_class_set_uuid(cc, cw_clock_uuid);
	rc = bt_clock_class_set_name(cc, "gpuiso") ||
	     bt_stream_class_set_default_clock_class(s->sc, cc) ? -ENOMEM : 0;
	bt_clock_class_put_ref(cc);
	if (rc)
		return rc;
	/* Packets with begin/end snapshots: without them the trimmer crashes on the result. */
	bt_stream_class_set_supports_packets(s->sc, BT_TRUE, BT_TRUE, BT_TRUE);
	/*
	 * Losses without a time range: sink.ctf.fs then only adds them to the
	 * next packet's counters (events_discarded, packet_seq_num), which is
	 * where a reader of CTF 1.8 finds them, before that packet's events.
	 */
	if (s->run->lossy) {
		bt_stream_class_set_supports_discarded_events(s->sc, BT_TRUE, BT_FALSE);
		bt_stream_class_set_supports_discarded_packets(s->sc, BT_TRUE, BT_FALSE);
	}
	for (int k = 0; k < WL_NKINDS; k++) {
		rc = cw_build_event_class(s, k);
		if (rc)
			return rc;
	}
	s->trace = bt_trace_create(s->tc);
	if (!s->trace)
		return -ENOMEM;
	if (bt_trace_set_name(s->trace, "gpuiso") ||
	    bt_trace_set_environment_entry_string(s->trace, "tracer_name", "gpuiso"))
		return -ENOMEM;
	s->stream = bt_stream_create(s->sc, s->trace);
	if (!s->stream)
		return -ENOMEM;
	/* sink.ctf.fs names the data file after the stream. */
	return bt_stream_set_name(s->stream, "stream") ? -ENOMEM : 0;
}

static bt_component_class_initialize_method_status
cw_source_init(bt_self_component_source *self_src, bt_self_component_source_configuration *config,
	       const bt_value *params, void *init_data)
{
	bt_self_component *self = bt_self_component_source_as_self_component(self_src);
	struct cw_source *s = calloc(1, sizeof(*s));

	if (!s)
		return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_MEMORY_ERROR;
	s->run = init_data;
	if (cw_build(self, s))
		goto put_source;
	if (bt_self_component_source_add_output_port(self_src, "out", NULL, NULL))
		goto put_source;
	bt_self_component_set_data(self, s);
	return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_OK;

put_source:
	cw_source_put(s);
	BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(self, "cannot build the trace classes");
	return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_MEMORY_ERROR;
}

static void cw_source_finalize(bt_self_component_source *self_src)
{
	struct cw_source *s = bt_self_component_get_data(
		bt_self_component_source_as_self_component(self_src));

	if (s)
		cw_source_put(s);
}

/* --- its message iterator --- */

static bt_message_iterator_class_initialize_method_status
cw_iter_init(bt_self_message_iterator *self_it, bt_self_message_iterator_configuration *config,
	     bt_self_component_port_output *port)
{
	struct cw_iter *it = calloc(1, sizeof(*it));

	if (!it)
		return BT_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD_STATUS_MEMORY_ERROR;
	it->src = bt_self_component_get_data(bt_self_message_iterator_borrow_component(self_it));
	it->phase = CW_STREAM_BEGIN;
	bt_self_message_iterator_set_data(self_it, it);
	return BT_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD_STATUS_OK;
}

static void cw_iter_finalize(bt_self_message_iterator *self_it)
{
	struct cw_iter *it = bt_self_message_iterator_get_data(self_it);

	if (!it)
		return;
	bt_packet_put_ref(it->packet);
	free(it);
}

/* Pull the next event from the producer into it->ev: 1, 0 at the end, < 0 on error. */
static int cw_pull(struct cw_iter *it)
{
	struct cw_run *run = it->src->run;
	int rc;

	it->loss = (struct ctf_loss){ 0 };
	rc = run->next(run->ctx, &it->ev, &it->loss);
	if (rc < 0) {
		cw_fail(run, rc, "event source failed after %llu events: %s",
			(unsigned long long)run->events, strerror(-rc));
		return rc;
	}
	if ((it->loss.events || it->loss.packets) && !run->lossy) {
		cw_fail(run, -EINVAL, "event %llu: a loss, and the trace was not begun as lossy",
			(unsigned long long)run->events);
		return -EINVAL;
	}
	if (it->loss.events > CTF_LOST_EVENTS_MAX - run->lost.events ||
	    it->loss.packets > CTF_LOST_PACKETS_MAX - run->lost.packets) {
		cw_fail(run, -EINVAL, "event %llu: the losses add up to more than a CTF trace "
			"carries (%llu events, %llu packets)", (unsigned long long)run->events,
			(unsigned long long)CTF_LOST_EVENTS_MAX,
			(unsigned long long)CTF_LOST_PACKETS_MAX);
		return -EINVAL;
	}
	run->lost.events += it->loss.events;
	run->lost.packets += it->loss.packets;
	if (run->lossy) { /* a lossless trace's UUID stays what it always was */
		cw_hash_word(run, it->loss.events);
		cw_hash_word(run, it->loss.packets);
	}
	if (!rc)
		return 0;
	if (it->ev.kind >= WL_NKINDS) {
		cw_fail(run, -EINVAL, "event %llu: unknown kind %u", (unsigned long long)run->events,
			it->ev.kind);
		return -EINVAL;
	}
	if (it->ev.ts > CTF_TS_MAX) {
		cw_fail(run, -EINVAL, "event %llu: timestamp %llu past the largest a CTF trace "
			"carries (%llu ns)", (unsigned long long)run->events,
			(unsigned long long)it->ev.ts, (unsigned long long)CTF_TS_MAX);
		return -EINVAL;
	}
	if (run->events && it->ev.ts < run->last_ts) {
		cw_fail(run, -EINVAL, "event %llu: timestamp %llu before the previous one (%llu)",
			(unsigned long long)run->events, (unsigned long long)it->ev.ts,
			(unsigned long long)run->last_ts);
		return -EINVAL;
	}
	cw_hash_event(run, &it->ev);
	run->last_ts = it->ev.ts;
	run->events++;
	it->have_event = true;
	return 1;
}

static bt_message *cw_event_msg(bt_self_message_iterator *self_it, struct cw_iter *it)
{
	const struct wl_desc *d = &wl_catalogue[it->ev.kind];
	bt_message *msg;
	bt_field *payload;

	msg = bt_message_event_create_with_packet_and_default_clock_snapshot(
		self_it, it->src->ec[it->ev.kind], it->packet, it->ev.ts);
	if (!msg)
		return NULL;
	payload = bt_event_borrow_payload_field(bt_message_event_borrow_event(msg));
	for (unsigned int i = 0; i < d->nfields; i++)
		bt_field_integer_unsigned_set_value(
			bt_field_structure_borrow_member_field_by_index(payload, i),
			it->ev.v[d->fields[i].slot]);
	return msg;
}

/* The packet end message; the packet itself is released either way. */
static bt_message *cw_close_packet(bt_self_message_iterator *self_it, struct cw_iter *it)
{
	bt_message *msg = bt_message_packet_end_create_with_default_clock_snapshot(
		self_it, it->packet, it->packet_last_ts);

	bt_packet_put_ref(it->packet);
	it->packet = NULL;
	it->in_packet = 0;
	return msg;
}

static bool cw_loss_pending(const struct cw_iter *it)
{
	return it->loss.events || it->loss.packets;
}

/*
 * One message into *msg, or none with *msg NULL and phase CW_DONE.
 * Return: 0, or a negative errno (recorded in the run).
 */
static int cw_step(bt_self_message_iterator *self_it, struct cw_iter *it, bt_message **msg)
{
	struct cw_run *run = it->src->run;
	int rc;

	*msg = NULL;
	switch (it->phase) {
	case CW_STREAM_BEGIN:
		*msg = bt_message_stream_beginning_create(self_it, it->src->stream);
		it->phase = CW_EVENTS;
		break;
	case CW_EVENTS:
		if (it->have_event && it->packet && !cw_loss_pending(it)) {
			*msg = cw_event_msg(self_it, it);
			it->have_event = false;
			it->packet_last_ts = it->ev.ts;
			it->in_packet++;
			break;
		}
		/* a loss is between packets: the one after it carries its count */
		if (it->packet &&
		    (it->in_packet == CW_PACKET_EVENTS || cw_loss_pending(it) || it->ended)) {
			*msg = cw_close_packet(self_it, it);
			break;
		}
		/*
		 * A reader takes the first packet's counters for what the tracer
		 * lost before the trace began, whose count it does not know: a
		 * loss before the first event comes after an empty packet.
		 */
		if (it->head_packet) {
			it->head_packet = false;
			it->packet = bt_packet_create(it->src->stream);
			if (!it->packet)
				break;
			it->packet_last_ts = it->ended ? run->last_ts : it->ev.ts;
			*msg = bt_message_packet_beginning_create_with_default_clock_snapshot(
				self_it, it->packet, it->packet_last_ts);
			break;
		}
		if (it->loss.events) {
			*msg = bt_message_discarded_events_create(self_it, it->src->stream);
			if (*msg)
				bt_message_discarded_events_set_count(*msg, it->loss.events);
			it->loss.events = 0;
			break;
		}
		if (it->loss.packets) {
			*msg = bt_message_discarded_packets_create(self_it, it->src->stream);
			if (*msg)
				bt_message_discarded_packets_set_count(*msg, it->loss.packets);
			it->loss.packets = 0;
			break;
		}
		if (it->ended) {
			if (!it->tail_packet) {
				it->phase = CW_STREAM_END;
				return cw_step(self_it, it, msg);
			}
			it->tail_packet = false;
			it->packet = bt_packet_create(it->src->stream);
			if (!it->packet)
				break;
			it->packet_last_ts = run->last_ts;
			*msg = bt_message_packet_beginning_create_with_default_clock_snapshot(
				self_it, it->packet, run->last_ts);
			break;
		}
		if (!it->have_event) {
			/*
			 * The next event: emitted into the open packet, or first
			 * opening one, since a packet begins at its first event's
			 * timestamp.
			 */
			rc = cw_pull(it);
			if (rc < 0)
				return rc;
			it->head_packet = !it->pulled && cw_loss_pending(it);
			it->pulled = true;
			if (!rc) {
				it->ended = true;
				it->tail_packet = cw_loss_pending(it);
			}
			return cw_step(self_it, it, msg);
		}
		it->packet = bt_packet_create(it->src->stream);
		if (!it->packet)
			break;
		*msg = bt_message_packet_beginning_create_with_default_clock_snapshot(
			self_it, it->packet, it->ev.ts);
		break;
	case CW_STREAM_END:
		*msg = bt_message_stream_end_create(self_it, it->src->stream);
		it->phase = CW_DONE;
		break;
	case CW_DONE:
		return 0;
	}
	if (!*msg) {
		cw_fail(run, -ENOMEM, "cannot create a message after %llu events",
			(unsigned long long)run->events);
		return -ENOMEM;
	}
	return 0;
}

static bt_message_iterator_class_next_method_status
cw_iter_next(bt_self_message_iterator *self_it, bt_message_array_const msgs, uint64_t capacity,
	     uint64_t *count)
{
	struct cw_iter *it = bt_self_message_iterator_get_data(self_it);
	uint64_t n = 0;

	while (n < capacity && it->phase != CW_DONE) {
		bt_message *msg;

		if (cw_step(self_it, it, &msg)) {
			/* On error the caller ignores the array: the messages are ours to put. */
			for (uint64_t i = 0; i < n; i++)
				bt_message_put_ref(msgs[i]);
			BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_MESSAGE_ITERATOR(self_it, "%s",
										   it->src->run->msg);
			return it->src->run->rc == -ENOMEM
				       ? BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_MEMORY_ERROR
				       : BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_ERROR;
		}
		if (msg)
			msgs[n++] = msg;
	}
	*count = n;
	if (!n)
		return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_END;
	return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK;
}

bt_component_class_source *ctf_write_source_class(void)
{
	bt_message_iterator_class *ic = bt_message_iterator_class_create(cw_iter_next);
	bt_component_class_source *cls = NULL;

	if (!ic)
		return NULL;
	if (bt_message_iterator_class_set_initialize_method(ic, cw_iter_init) ||
	    bt_message_iterator_class_set_finalize_method(ic, cw_iter_finalize))
		goto put_iter_class;
	cls = bt_component_class_source_create("gpuiso-wl", ic);
	if (!cls)
		goto put_iter_class;
	if (bt_component_class_source_set_initialize_method(cls, cw_source_init) ||
	    bt_component_class_source_set_finalize_method(cls, cw_source_finalize)) {
		bt_component_class_source_put_ref(cls);
		cls = NULL;
	}
put_iter_class:
	bt_message_iterator_class_put_ref(ic);
	return cls;
}
