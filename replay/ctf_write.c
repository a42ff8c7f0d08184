/* SPDX-License-Identifier: MIT */
#include <babeltrace2/babeltrace.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define LOG_PREFIX "ctf_write"
#include "common/array.h"
#include "common/digest.h"
#include "common/log.h"
#include "common/path.h"
#include "replay/ctf.h"
#include "replay/ctf_decode.h"

/*
 * CTF writing. Debian's libbabeltrace2 has no CTF writer API, so the trace is
 * written by a graph: a source component class of ours, whose message
 * iterator pulls events from the caller's wl_next_fn, connected to
 * sink.ctf.fs. The source emits one stream (named "stream", so the data file
 * is always DIR/stream), packets of CW_PACKET_EVENTS events whose begin/end
 * clock snapshots are their first/last event timestamps, and one event class
 * per catalogue kind whose payload is the catalogue's fields as unsigned
 * 64-bit integers, in catalogue order.
 *
 * Reproducible output: sink.ctf.fs 2.0 gives every trace it writes a random
 * UUID (in the metadata and in every packet header) whatever the trace IR
 * says, so once the graph has run, that UUID is replaced by one derived from
 * a hash of the events written. Everything else in the output is a function of
 * the events: fixed clock class name and UUID, no hostname or date in the
 * environment.
 */

/* Events per packet: large enough that packet headers cost nothing, small
 * enough that a reader seeking by packet index stays cheap. */
#define CW_PACKET_EVENTS 4096

/* More than sink.ctf.fs grows a file by at once (8 pages): to learn why it could not. */
#define CW_PROBE_BYTES (1 << 20)

/* The clock's fixed UUID: all gpuiso-generated traces share one synthetic clock. */
static const uint8_t cw_clock_uuid[16] = {
	0x67, 0x70, 0x75, 0x69, 0x73, 0x6f, 0x4c, 0x6b,
	0x81, 0x63, 0x6c, 0x6f, 0x63, 0x6b, 0x00, 0x01,
};

/* One ctf_write() call: owned by ctf_write(), reached by the component and its iterator. */
struct cw_run {
	wl_lossy_next_fn next;
	void *ctx;
	bool lossy;          /* the stream class supports discarded events and packets */
	int rc;              /* the first error of ours or of @next (0: none) */
	char msg[256];       /* what it was */
	uint64_t events;     /* events pulled so far */
	uint64_t last_ts;
	struct ctf_loss lost; /* the losses so far, added up */
	uint64_t hash[2];    /* content hash of the events: the trace UUID */
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

static inline uint64_t cw_mix(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	return x ^ (x >> 31);
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

/* --- the graph --- */

/* Babeltrace's error of this thread as one line (innermost cause first), and clear it. */
static void cw_take_bt_error(char *err, size_t errlen, const char *what)
{
	const bt_error *e = bt_current_thread_take_error();
	size_t n;

	n = (size_t)snprintf(err, errlen, "%s", what);
	if (!e)
		return;
	for (uint64_t i = bt_error_get_cause_count(e); i-- > 0 && n < errlen;) {
		const bt_error_cause *c = bt_error_borrow_cause_by_index(e, i);
		char cause[512];

		/* (without its addresses, which mean something in a debugger only) */
		ctf_clean_cause(bt_error_cause_get_message(c), cause, sizeof(cause));
		n += (size_t)snprintf(err + n, errlen - n, ": %s [%s]", cause,
				      bt_error_cause_get_module_name(c));
	}
	bt_error_release(e);
}

static bt_component_class_source *cw_class_create(void)
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

/*
 * sink.ctf.fs only logs why a write failed: the errno of growing a file by
 * its next packet (ENOSPC, EFBIG past a file size limit, EDQUOT). Grow the
 * files it wrote as it does, by more than a packet, for that errno.
 * Return: it, negative, or 0 when they grow.
 */
static int cw_why_not_written(const char *dir)
{
	static const char *const files[] = { "stream", "metadata" };
	char path[4096];
	struct stat st;
	int fd, rc = 0;

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]) && !rc; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
		fd = open(path, O_WRONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (!fstat(fd, &st))
			rc = -posix_fallocate(fd, st.st_size, CW_PROBE_BYTES);
		close(fd);
	}
	return rc;
}

/*
 * The graphs of failed writes. babeltrace2 2.0's sink.ctf.fs frees a
 * stream's mapping twice when it is finalized after a failed write (its
 * serializer unmaps it when growing the file fails, and again at the
 * end), so such a graph is never put: it is held here, reachable, until
 * the process ends, rather than dropped with everything in it (our source
 * component's data and its iterator's among them). About 150 KB each; a
 * write fails for the machine's reasons only.
 */
static struct cw_kept {
	bt_graph **v;
	size_t n, cap;
} cw_kept;

static void cw_keep_failed(bt_graph *graph)
{
	if (!array_reserve(&cw_kept.v, &cw_kept.cap, cw_kept.n + 1, sizeof(*cw_kept.v)))
		cw_kept.v[cw_kept.n++] = graph;
}

/* Build source -> sink.ctf.fs and run it. Return: 0, or a negative errno with @err set. */
static int cw_run_graph(const char *dir, struct cw_run *run, char *err, size_t errlen)
{
	const bt_component_class_sink *sink_cls;
	const bt_component_source *src;
	const bt_component_sink *sink;
	bt_component_class_source *src_cls;
	const bt_plugin *plugin = NULL;
	bt_value *params = NULL;
	bt_graph *graph;
	bt_graph_run_status st;
	int rc = -ENOMEM;

	graph = bt_graph_create(0);
	if (!graph) {
		snprintf(err, errlen, "cannot create a babeltrace2 graph");
		return -ENOMEM;
	}
	src_cls = cw_class_create();
	if (!src_cls) {
		cw_take_bt_error(err, errlen, "cannot create the source component class");
		goto put_graph;
	}
	if (bt_plugin_find("ctf", BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, &plugin) !=
	    BT_PLUGIN_FIND_STATUS_OK) {
		cw_take_bt_error(err, errlen, "babeltrace2 plugin \"ctf\" not found");
		rc = -EIO;
		goto put_src_cls;
	}
	sink_cls = bt_plugin_borrow_sink_component_class_by_name_const(plugin, "fs");
	params = bt_value_map_create();
	if (!sink_cls || !params) {
		snprintf(err, errlen, sink_cls ? "out of memory" : "no sink.ctf.fs in plugin \"ctf\"");
		rc = sink_cls ? -ENOMEM : -EIO;
		goto put_params;
	}
	if (bt_value_map_insert_string_entry(params, "path", dir) ||
	    bt_value_map_insert_bool_entry(params, "assume-single-trace", BT_TRUE) ||
	    bt_value_map_insert_bool_entry(params, "quiet", BT_TRUE)) {
		snprintf(err, errlen, "out of memory");
		goto put_params;
	}
	if (bt_graph_add_source_component_with_initialize_method_data(
		    graph, src_cls, "source", NULL, run, BT_LOGGING_LEVEL_NONE, &src)) {
		cw_take_bt_error(err, errlen, "cannot add the source component");
		goto put_params;
	}
	/* (silent: what it would log, the write's failure says, once, in gpuiso's words) */
	if (bt_graph_add_sink_component(graph, sink_cls, "sink", params, BT_LOGGING_LEVEL_NONE,
					&sink)) {
		cw_take_bt_error(err, errlen, "cannot add sink.ctf.fs");
		rc = -EIO;
		goto put_params;
	}
	if (bt_graph_connect_ports(graph, bt_component_source_borrow_output_port_by_index_const(src, 0),
				   bt_component_sink_borrow_input_port_by_index_const(sink, 0), NULL)) {
		cw_take_bt_error(err, errlen, "cannot connect the source to sink.ctf.fs");
		rc = -EIO;
		goto put_params;
	}
	do {
		st = bt_graph_run(graph);
	} while (st == BT_GRAPH_RUN_STATUS_AGAIN);
	if (st == BT_GRAPH_RUN_STATUS_OK) {
		rc = 0;
	} else if (run->rc) {
		/* Our iterator or the producer failed: its own words say more than the graph's. */
		bt_current_thread_clear_error();
		snprintf(err, errlen, "%s", run->msg);
		rc = run->rc;
	} else {
		rc = cw_why_not_written(dir);
		if (rc) {
			bt_current_thread_clear_error();
			snprintf(err, errlen, "writing the trace failed: %s", strerror(-rc));
		} else {
			cw_take_bt_error(err, errlen, "writing the trace failed");
			rc = st == BT_GRAPH_RUN_STATUS_MEMORY_ERROR ? -ENOMEM : -EIO;
		}
		cw_keep_failed(graph);
		graph = NULL;
	}
put_params:
	bt_value_put_ref(params);
	/* The graph holds the sink component, whose class lives in the plugin: graph first. */
	bt_graph_put_ref(graph);
	graph = NULL;
	bt_plugin_put_ref(plugin);
put_src_cls:
	bt_component_class_source_put_ref(src_cls);
put_graph:
	bt_graph_put_ref(graph);
	return rc;
}

/* --- output folder and the UUID fix-up --- */

/*
 * @dir must not exist or be an empty folder. sink.ctf.fs in single-trace mode
 * refuses an existing path and creates it (with its parents) itself, so an
 * empty folder is removed first; *@existed says to put it back on failure.
 */
static int cw_prepare_dir(const char *dir, bool *existed, char *err, size_t errlen)
{
	struct dirent *de;
	struct stat st;
	DIR *d;
	int rc;

	*existed = false;
	if (stat(dir, &st))
		return 0;
	if (!S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "%s exists and is not a folder", dir);
		return -EEXIST;
	}
	d = opendir(dir);
	if (!d) {
		rc = -errno;
		snprintf(err, errlen, "%s: %s", dir, strerror(-rc));
		return rc;
	}
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			break;
	closedir(d);
	if (de) {
		snprintf(err, errlen, "%s exists and is not empty", dir);
		return -EEXIST;
	}
	if (rmdir(dir)) {
		rc = -errno;
		snprintf(err, errlen, "cannot replace the empty folder %s: %s", dir, strerror(-rc));
		return rc;
	}
	*existed = true;
	return 0;
}

/*
 * Whether @dir can be made (a read-only or full file system, a folder we
 * may not write): made, with its parents, and removed again for sink.ctf.fs
 * to make, so that a failure is said here, in our words, rather than by
 * the sink as it starts. @existed: cw_prepare_dir() removed it, empty.
 */
static int cw_try_dir(const char *dir, bool existed, char *err, size_t errlen)
{
	int rc = path_mkdir_p(dir);

	if (rc) {
		snprintf(err, errlen, "%s: cannot create the folder: %s", dir, strerror(-rc));
		if (existed)
			mkdir(dir, 0777);
		return rc;
	}
	if (rmdir(dir)) {
		rc = -errno;
		snprintf(err, errlen, "%s: cannot make the folder anew: %s", dir, strerror(-rc));
		return rc;
	}
	return 0;
}

/* After a failure: remove what the sink wrote, and leave @dir as it was found. */
static void cw_remove_output(const char *dir, bool existed)
{
	char path[4096];
	struct dirent *de;
	DIR *d = opendir(dir);

	if (d) {
		while ((de = readdir(d))) {
			if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
				continue;
			snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
			unlink(path);
		}
		closedir(d);
	}
	if (existed)
		mkdir(dir, 0777);
	else
		rmdir(dir);
}

static int cw_hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
		: c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" <-> 16 bytes. */
static int cw_uuid_parse(const char *s, uint8_t out[16])
{
	for (int i = 0, b = 0; b < 16; i++) {
		int hi, lo;

		if (i == 8 || i == 13 || i == 18 || i == 23) {
			if (s[i] != '-')
				return -EINVAL;
			continue;
		}
		hi = cw_hexval(s[i]);
		lo = cw_hexval(s[i + 1]);
		if (hi < 0 || lo < 0)
			return -EINVAL;
		out[b++] = (uint8_t)(hi << 4 | lo);
		i++;
	}
	return 0;
}

static void cw_uuid_format(const uint8_t u[16], char out[37])
{
	snprintf(out, 37,
		 "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12],
		 u[13], u[14], u[15]);
}

/* Bytes read at once when patching a data file: memory stays small whatever the trace size. */
#define CW_PATCH_CHUNK (1u << 20)

/* Replace every occurrence of @from (16 bytes) in file @path by @to. Return: count or -errno. */
static long cw_patch_file(const char *path, const uint8_t from[16], const uint8_t to[16])
{
	uint8_t *buf, *p;
	long count = 0;
	off_t pos = 0;
	int fd = open(path, O_RDWR);

	if (fd < 0)
		return -errno;
	buf = malloc(CW_PATCH_CHUNK + 15);
	if (!buf) {
		count = -ENOMEM;
		goto close_fd;
	}
	for (;;) {
		/* 15 bytes past the chunk, so a match straddling its end is seen here. */
		ssize_t n = pread(fd, buf, CW_PATCH_CHUNK + 15, pos);

		if (n < 0) {
			count = -errno;
			break;
		}
		for (p = buf; n >= 16 && (p = memmem(p, (size_t)(buf + n - p), from, 16)) &&
			      p < buf + CW_PATCH_CHUNK; p += 16) {
			if (pwrite(fd, to, 16, pos + (p - buf)) != 16) {
				count = -EIO;
				goto free_buf;
			}
			count++;
		}
		if (n <= (ssize_t)CW_PATCH_CHUNK)
			break;
		pos += CW_PATCH_CHUNK;
	}
free_buf:
	free(buf);
close_fd:
	if (close(fd) && count >= 0)
		count = -errno;
	return count;
}

/*
 * Give the trace the UUID of its content: find the one sink.ctf.fs made up in
 * the metadata's trace block, then replace it there (text) and in every packet
 * header of the data files (binary). The chance that 16 random bytes also
 * occur in the payload is 2^-128 per position, so replacing every occurrence
 * is exact in practice and needs no knowledge of the packet layout.
 */
static int cw_fix_uuid(const char *dir, const struct cw_run *run, char *err, size_t errlen)
{
	uint8_t from[16], to[16];
	char path[4096], text[37];
	struct dirent *de;
	char *meta = NULL, *at;
	long n, total = 0;
	size_t len = 0;
	FILE *f;
	DIR *d;
	int rc = -EIO;

	snprintf(path, sizeof(path), "%s/metadata", dir);
	f = fopen(path, "rb");
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -EIO;
	}
	if (fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
		snprintf(err, errlen, "cannot read %s", path);
		fclose(f);
		return -EIO;
	}
	len = (size_t)n;
	meta = malloc(len + 1);
	if (!meta || fread(meta, 1, len, f) != len) {
		snprintf(err, errlen, "cannot read %s", path);
		fclose(f);
		goto free_meta;
	}
	fclose(f);
	meta[len] = '\0';
	at = strstr(meta, "trace {");
	at = at ? strstr(at, "uuid = \"") : NULL;
	if (!at || cw_uuid_parse(at + 8, from)) {
		snprintf(err, errlen, "%s: no trace UUID found", path);
		goto free_meta;
	}
	for (int i = 0; i < 2; i++)
		for (int b = 0; b < 8; b++)
			to[i * 8 + b] = (uint8_t)(cw_mix(run->hash[i] ^ run->events) >> (8 * b));
	to[6] = (uint8_t)((to[6] & 0x0f) | 0x80); /* RFC 9562 version 8: custom */
	to[8] = (uint8_t)((to[8] & 0x3f) | 0x80); /* variant 10 */
	cw_uuid_format(to, text);
	memcpy(at + 8, text, 36);

	f = fopen(path, "wb");
	if (!f || fwrite(meta, 1, len, f) != len) {
		snprintf(err, errlen, "cannot write %s", path);
		if (f)
			fclose(f);
		goto free_meta;
	}
	if (fclose(f)) {
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
		goto free_meta;
	}
	d = opendir(dir);
	if (!d) {
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		goto free_meta;
	}
	rc = 0;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || !strcmp(de->d_name, "metadata"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		n = cw_patch_file(path, from, to);
		if (n < 0) {
			snprintf(err, errlen, "%s: %s", path, strerror((int)-n));
			rc = -EIO;
			break;
		}
		total += n;
	}
	closedir(d);
	if (!rc && run->events && !total) {
		snprintf(err, errlen, "%s: no packet header carries the trace UUID", dir);
		rc = -EIO;
	}
free_meta:
	free(meta);
	return rc;
}

static int cw_write(const char *dir, bool have_next, struct cw_run *run, char *err,
		    size_t errlen)
{
	char dummy[1];
	bool existed;
	int rc;

	if (!err || !errlen) {
		err = dummy;
		errlen = sizeof(dummy);
	}
	err[0] = '\0';
	if (!dir || !*dir || !have_next) {
		snprintf(err, errlen, "ctf_write: no output folder or event source");
		return -EINVAL;
	}
	rc = cw_prepare_dir(dir, &existed, err, errlen);
	if (rc)
		return rc;
	rc = cw_try_dir(dir, existed, err, errlen);
	if (rc)
		return rc;
	rc = cw_run_graph(dir, run, err, errlen);
	if (!rc)
		rc = cw_fix_uuid(dir, run, err, errlen);
	if (rc) {
		cw_remove_output(dir, existed);
		return rc;
	}
	log_dbg("%s: %llu events", dir, (unsigned long long)run->events);
	return 0;
}

int ctf_write_lossy(const char *dir, wl_lossy_next_fn next, void *ctx, char *err, size_t errlen)
{
	struct cw_run run = {
		.next = next,
		.ctx = ctx,
		.lossy = true,
		.hash = { DIGEST_FNV_BASIS, 0x6a09e667f3bcc909ull },
	};

	return cw_write(dir, next != NULL, &run, err, errlen);
}

/* A producer of events alone, as one that loses nothing. */
struct cw_lossless {
	wl_next_fn next;
	void *ctx;
};

static int cw_lossless_next(void *ctx, struct wl_event *e, struct ctf_loss *loss)
{
	struct cw_lossless *l = ctx;

	return l->next(l->ctx, e);
}

int ctf_write(const char *dir, wl_next_fn next, void *ctx, char *err, size_t errlen)
{
	struct cw_lossless l = { .next = next, .ctx = ctx };
	struct cw_run run = {
		.next = cw_lossless_next,
		.ctx = &l,
		.hash = { DIGEST_FNV_BASIS, 0x6a09e667f3bcc909ull },
	};

	return cw_write(dir, next != NULL, &run, err, errlen);
}
