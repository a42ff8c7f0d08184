/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_REPLAY_CTF_INTERNAL_H
#define GPUISO_REPLAY_CTF_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <babeltrace2/babeltrace.h>

#include "common/u64map.h"
#include "replay/ctf_decode.h"

/*
 * What the files of the CTF reader share: ctf_read.c builds and runs the
 * babeltrace2 graph (ctf_decode()), ctf_files.c finds the trace folders
 * and checks their files before babeltrace2 opens them, ctf_sink.c binds
 * event classes and reads each event's fields, ctf_error.c words
 * babeltrace2's errors for a user; and what the files of the CTF writer
 * share: ctf_write.c runs the graph into sink.ctf.fs in its output folder,
 * ctf_write_source.c is the source component that emits the caller's
 * events, ctf_write_uuid.c gives the trace the UUID of its content.
 */

/* ---- the reader ---- */

/* A component name; sources are "ctf-fs-N" with N the trace folder's index. */
#define CTF_SRC_NAME_FMT "ctf-fs-%u"

struct folders {
	char **v;
	unsigned int n;
	size_t cap;
};

/* How many packets of one stream have begun. */
struct stream_packets {
	const bt_stream *stream;
	uint64_t packets;
};

/* One event class as the caller bound it (ctf_sink.c). */
struct cls_info;

/* Everything one read needs; the sink's user data. */
struct reader {
	const char *path;
	ctf_bind_fn bind;
	ctf_event_fn on_event;
	ctf_mark_fn mark;
	void *ctx;
	struct folders *folders;
	struct stream_packets *streams; /* packets begun per stream, for the marks */
	size_t nstreams, streams_cap;

	struct u64map classes;      /* event class address -> its struct cls_info * */
	struct cls_info *last;      /* consecutive events mostly share a class */
	struct ctf_stats *st;       /* the caller's, kept current */

	int stop;                   /* < 0: a callback (or we) stopped the read with it */
	char *err;
	size_t errlen;
};

/**
 * ctf_err_set() - say why a read stops.
 * @err: the message, replaced; nothing when NULL.
 * @errlen: size of @err; nothing when 0.
 * @fmt: printf() format of the message, and its arguments.
 */
void ctf_err_set(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/**
 * ctf_take_error() - take the current thread's babeltrace2 error, and release it.
 * @msg: out: its root cause (it names what actually failed, the others only
 *       relay it), on one line; "babeltrace2 failed without saying why"
 *       when no cause says anything.
 * @len: size of @msg.
 * @src: out: the index of the source component the causes name, or -1.
 * @stream: out: the stream file the causes name, or "".
 * @slen: size of @stream.
 *
 * Return: whether there was an error.
 */
bool ctf_take_error(char *msg, size_t len, int *src, char *stream, size_t slen);

/**
 * ctf_find_traces() - the trace folders at or below @path, in byte order.
 * @path: a folder.
 * @out: out: the trace folders (ctf_folders_free() them, also after an error).
 * @err: out: why there are none.
 * @errlen: size of @err.
 *
 * A folder holding "metadata" is a trace, taken whole; every entry in it
 * must be a subfolder or a regular file.
 *
 * Return: 0, -ENOENT (no trace), -EINVAL, -ENOMEM, or another negative errno.
 */
int ctf_find_traces(const char *path, struct folders *out, char *err, size_t errlen);

/** ctf_folders_free() - free the trace folders. @f: them. */
void ctf_folders_free(struct folders *f);

/**
 * ctf_metadata_whole() - whether the metadata of trace folder @dir, when
 * packetized (LTTng's), is whole packets: src.ctf.fs spins for ever on one
 * cut short. Each packet's header gives its size.
 * @dir: the trace folder.
 * @why: out: where it is cut short, or which packet's size is bad.
 * @len: size of @why.
 *
 * Return: 0 (text metadata, or whole packets), or -EINVAL with @why said.
 */
int ctf_metadata_whole(const char *dir, char *why, size_t len);

/**
 * ctf_indexes_fit() - whether each packet that the LTTng packet index of a
 * stream file of trace folder @dir (index/NAME.idx) names lies within the
 * file: src.ctf.fs trusts the index, and aborts on a packet past the end.
 * @dir: the trace folder.
 * @why: out: which packet of which stream file does not.
 * @len: size of @why.
 *
 * Return: 0, or -EINVAL with @why said.
 */
int ctf_indexes_fit(const char *dir, char *why, size_t len);

/**
 * ctf_metadata_hint() - what is wrong with the metadata of trace folder
 * @dir, which src.ctf.fs cannot use but does not say why.
 * @dir: the trace folder.
 *
 * Return: the words.
 */
const char *ctf_metadata_hint(const char *dir);

/**
 * ctf_stream_suspect() - the first file of trace folder @dir that cannot be
 * a stream file: not empty, but too short for a packet's header and
 * context, or without a packet's magic. src.ctf.fs takes every file but
 * the metadata for a stream, and does not say which one it could not read.
 * @dir: the trace folder.
 * @out: out: the file, and what is wrong with it.
 * @len: size of @out.
 *
 * Return: 0 with @out said, or -ENOENT.
 */
int ctf_stream_suspect(const char *dir, char *out, size_t len);

/**
 * ctf_packet_offset() - where packet @k of a stream file begins: byte 0 for
 * the first, else as its LTTng packet index (index/NAME.idx) says
 * (src.ctf.fs alone knows the packets' sizes otherwise).
 * @path: the stream file.
 * @k: the packet's index in it.
 * @at: out: its first byte.
 *
 * Return: whether it is known.
 */
bool ctf_packet_offset(const char *path, uint64_t k, uint64_t *at);

/**
 * ctf_sink_consume() - the sink's work: the messages that came, each
 * event to its reader's callback.
 * @it: the sink's message iterator.
 * @data: the struct reader.
 *
 * Return: OK, END (also after a stop, @data's stop says), AGAIN, or an error.
 */
bt_graph_simple_sink_component_consume_func_status ctf_sink_consume(bt_message_iterator *it,
								      void *data);

/**
 * ctf_classes_free() - the event classes bound, freed, and their
 * references put.
 * @classes: event class address -> its struct cls_info *.
 */
void ctf_classes_free(struct u64map *classes);


/* ---- the writer ---- */

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

/**
 * ctf_write_source_class() - the source component class that emits the
 * events of a struct cw_run (its initialization data), as one stream of
 * packets with an event class per catalogue kind.
 *
 * Return: the class (a reference to put), or NULL (out of memory).
 */
bt_component_class_source *ctf_write_source_class(void);

/**
 * ctf_write_fix_uuid() - give the trace the UUID of its content: find the
 * one sink.ctf.fs made up in the metadata's trace block, then replace it
 * there (text) and in every packet header of the data files (binary).
 * @dir: the trace folder sink.ctf.fs wrote.
 * @run: the write, whose events' hash makes the UUID.
 * @err: out: why it could not.
 * @errlen: size of @err.
 *
 * The chance that 16 random bytes also occur in the payload is 2^-128 per
 * position, so replacing every occurrence is exact in practice and needs no
 * knowledge of the packet layout.
 *
 * Return: 0 or -EIO.
 */
int ctf_write_fix_uuid(const char *dir, const struct cw_run *run, char *err, size_t errlen);

#endif
