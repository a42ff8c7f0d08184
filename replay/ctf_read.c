/* SPDX-License-Identifier: MIT */
/*
 * Reading CTF traces through libbabeltrace2.
 *
 * The graph is one src.ctf.fs per trace folder (each folder that directly
 * holds a "metadata" file, ctf_files.c), all feeding one
 * filter.utils.muxer, which feeds a simple sink of ours (ctf_sink.c).
 * src.ctf.fs makes an output port per stream and does not look into
 * subfolders, hence the walk and the muxer. A single stream has nothing to
 * merge: its port feeds the sink directly, and the sink checks the order
 * of time that the muxer would have checked.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "replay/ctf_internal.h"

/* The "ctf" and "utils" plugins, from one pass over the plugin folders (each pass loads them all). */
static int find_plugins(const bt_plugin **ctf, const bt_plugin **utils, char *err, size_t errlen)
{
	const bt_plugin_set *set = NULL;
	bt_plugin_find_all_status st = bt_plugin_find_all(BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE,
							  BT_FALSE, &set);
	const char *missing;

	*ctf = *utils = NULL;
	if (st == BT_PLUGIN_FIND_ALL_STATUS_MEMORY_ERROR) {
		bt_current_thread_clear_error();
		ctf_err_set(err, errlen, "out of memory loading babeltrace2 plugins");
		return -ENOMEM;
	}
	for (uint64_t i = 0; st == BT_PLUGIN_FIND_ALL_STATUS_OK && i < bt_plugin_set_get_plugin_count(set); i++) {
		const bt_plugin *p = bt_plugin_set_borrow_plugin_by_index_const(set, i);

		if (!strcmp(bt_plugin_get_name(p), "ctf"))
			*ctf = p;
		else if (!strcmp(bt_plugin_get_name(p), "utils"))
			*utils = p;
	}
	missing = !*ctf ? "ctf" : !*utils ? "utils" : NULL;
	if (missing) {
		*ctf = *utils = NULL;
		bt_current_thread_clear_error();
		ctf_err_set(err, errlen, "babeltrace2 plugin \"%s\" not found (is babeltrace2 installed?)",
			missing);
	} else {
		bt_plugin_get_ref(*ctf);
		bt_plugin_get_ref(*utils);
	}
	bt_plugin_set_put_ref(set);
	return missing ? -ENOSYS : 0;
}

static int add_source(struct reader *r, bt_graph *graph, const bt_component_class_source *cls,
		      unsigned int i, const bt_component_source **src)
{
	bt_value *params = bt_value_map_create();
	bt_value *inputs = NULL;
	char name[32], cut[512];
	int ret = -ENOMEM;

	if (!params)
		goto out;
	r->mark(r->ctx, CTF_MARK_FOLDER, r->folders->v[i], 0);
	if (ctf_metadata_whole(r->folders->v[i], cut, sizeof(cut)) ||
	    ctf_indexes_fit(r->folders->v[i], cut, sizeof(cut))) {
		ctf_err_set(r->err, r->errlen, "%s: cannot open CTF trace: %s", r->folders->v[i], cut);
		ret = -EINVAL;
		goto put_params;
	}
	if (bt_value_map_insert_empty_array_entry(params, "inputs", &inputs) ||
	    bt_value_array_append_string_element(inputs, r->folders->v[i]))
		goto put_params;
	snprintf(name, sizeof(name), CTF_SRC_NAME_FMT, i);
	switch (bt_graph_add_source_component(graph, cls, name, params, BT_LOGGING_LEVEL_NONE, src)) {
	case BT_GRAPH_ADD_COMPONENT_STATUS_OK:
		ret = 0;
		break;
	case BT_GRAPH_ADD_COMPONENT_STATUS_MEMORY_ERROR:
		bt_current_thread_clear_error();
		break;
	default: {
		char why[512], stream[256];
		int which;

		ctf_take_error(why, sizeof(why), &which, stream, sizeof(stream));
		if (strncmp(why, "Cannot create trace", 19) == 0)
			ctf_err_set(r->err, r->errlen, "%s: cannot open CTF trace: %s",
				r->folders->v[i], ctf_metadata_hint(r->folders->v[i]));
		else if (!ctf_stream_suspect(r->folders->v[i], stream, sizeof(stream)))
			ctf_err_set(r->err, r->errlen, "%s: cannot open CTF trace: %s (%s)",
				r->folders->v[i], stream, why);
		else if (stream[0])
			ctf_err_set(r->err, r->errlen, "%s: cannot open CTF trace: stream file %s: %s "
				"(found indexing its packets: truncated or damaged)",
				r->folders->v[i], stream, why);
		else
			ctf_err_set(r->err, r->errlen, "%s: cannot open CTF trace: %s%s",
				r->folders->v[i], why,
				strstr(why, "index CTF stream file") ?
				" (truncated or damaged: its packets do not fit the file)" : "");
		ret = -EINVAL;
		break;
	}
	}
put_params:
	bt_value_put_ref(params);
out:
	if (ret == -ENOMEM)
		ctf_err_set(r->err, r->errlen, "%s: out of memory", r->folders->v[i]);
	return ret;
}

/* The muxer always keeps one free input port: connect @out to it. */
static int connect_to_muxer(bt_graph *graph, const bt_component_filter *mux,
			    const bt_port_output *out)
{
	uint64_t n = bt_component_filter_get_input_port_count(mux);

	for (uint64_t i = 0; i < n; i++) {
		const bt_port_input *in = bt_component_filter_borrow_input_port_by_index_const(mux, i);

		if (bt_port_is_connected(bt_port_input_as_port_const(in)))
			continue;
		return bt_graph_connect_ports(graph, out, in, NULL) == BT_GRAPH_CONNECT_PORTS_STATUS_OK
			       ? 0 : -ENOMEM;
	}
	return -ENOMEM;
}

static int nomem(struct reader *r)
{
	bt_current_thread_clear_error();
	ctf_err_set(r->err, r->errlen, "%s: cannot build the babeltrace2 graph (out of memory?)", r->path);
	return -ENOMEM;
}

/*
 * A source per trace folder, and all their output ports in order in
 * *@ports (the caller frees the array; each port is borrowed from its
 * source, which the graph holds).
 */
static int add_sources(struct reader *r, bt_graph *graph, const bt_component_class_source *fs,
		       const bt_port_output ***ports, uint64_t *nports)
{
	*ports = NULL;
	*nports = 0;
	for (unsigned int i = 0; i < r->folders->n; i++) {
		const bt_component_source *src;
		uint64_t n;
		const bt_port_output **more;
		int ret = add_source(r, graph, fs, i, &src);

		if (ret)
			return ret;
		n = bt_component_source_get_output_port_count(src);
		more = realloc(*ports, (*nports + n) * sizeof(**ports));
		if (!more && n)
			return nomem(r);
		*ports = more;
		for (uint64_t p = 0; p < n; p++)
			(*ports)[(*nports)++] = bt_component_source_borrow_output_port_by_index_const(src, p);
	}
	return 0;
}

/*
 * Sources, then the sink. Streams are merged in time order by a muxer; a
 * trace of one stream has nothing to merge and feeds the sink directly, which
 * spares a muxer's work per message.
 */
static int build_graph(struct reader *r, bt_graph *graph, const bt_plugin *ctf,
		       const bt_plugin *utils)
{
	const bt_component_class_source *fs =
		bt_plugin_borrow_source_component_class_by_name_const(ctf, "fs");
	const bt_component_class_filter *muxer =
		bt_plugin_borrow_filter_component_class_by_name_const(utils, "muxer");
	const bt_port_output **ports, *to_sink;
	const bt_component_filter *mux;
	const bt_component_sink *sink;
	uint64_t nports;
	int ret;

	if (!fs || !muxer) {
		ctf_err_set(r->err, r->errlen, "babeltrace2 lacks %s",
			!fs ? "source.ctf.fs" : "filter.utils.muxer");
		return -ENOSYS;
	}
	ret = add_sources(r, graph, fs, &ports, &nports);
	if (ret) {
		free(ports);
		return ret;
	}
	ret = -ENOMEM;
	if (bt_graph_add_simple_sink_component(graph, "sink", NULL, ctf_sink_consume, NULL, r, &sink) !=
	    BT_GRAPH_ADD_COMPONENT_STATUS_OK)
		goto free_ports;
	if (nports == 1) {
		to_sink = ports[0];
	} else {
		if (bt_graph_add_filter_component(graph, muxer, "muxer", NULL, BT_LOGGING_LEVEL_NONE,
						  &mux) != BT_GRAPH_ADD_COMPONENT_STATUS_OK)
			goto free_ports;
		for (uint64_t p = 0; p < nports; p++)
			if (connect_to_muxer(graph, mux, ports[p]))
				goto free_ports;
		to_sink = bt_component_filter_borrow_output_port_by_index_const(mux, 0);
	}
	if (bt_graph_connect_ports(graph, to_sink,
				   bt_component_sink_borrow_input_port_by_index_const(sink, 0),
				   NULL) == BT_GRAPH_CONNECT_PORTS_STATUS_OK)
		ret = 0;
free_ports:
	free(ports);
	return ret ? nomem(r) : 0;
}

/* bt_graph_run() failed: say what, in which trace folder, and after which event. */
static int run_error(struct reader *r, bt_graph_run_status st)
{
	char why[512], stream[256], where[128];
	int which;

	ctf_take_error(why, sizeof(why), &which, stream, sizeof(stream));
	if (r->st->events)
		snprintf(where, sizeof(where), "after event %" PRIu64 " at %" PRIu64 " ns",
			 r->st->events - 1, r->st->last_ts);
	else
		snprintf(where, sizeof(where), "before the first event");
	if (st == BT_GRAPH_RUN_STATUS_MEMORY_ERROR) {
		ctf_err_set(r->err, r->errlen, "%s: out of memory %s", r->path, where);
		return -ENOMEM;
	}
	/* The muxer logs why it cannot order messages but reports only this. */
	if (strncmp(why, "Cannot find the youngest upstream", 33) == 0) {
		ctf_err_set(r->err, r->errlen,
			"%s: cannot merge the streams in time order %s: their clocks cannot be "
			"compared (traces from different machines, or clocks without a Unix-epoch "
			"origin): read the traces one at a time", r->path, where);
		return -EINVAL;
	}
	ctf_err_set(r->err, r->errlen, "%s: corrupt trace %s%s%s: %s",
		which >= 0 && (unsigned int)which < r->folders->n ? r->folders->v[which] : r->path,
		where, stream[0] ? " in " : "", stream, why);
	return -EINVAL;
}

/*
 * The run ended well, yet babeltrace2 may have given up on a stream: src.ctf.fs
 * 2.0 ends a stream whose packet it cannot decode ("Cannot handle state:
 * state=DSCOPE_EVENT_HEADER_CONTINUE") as if it had ended there, and only
 * the error it leaves behind says so. Such a stream is damaged, not short
 * or empty: say where, as a packet of the stream and the byte it begins at.
 * Return: 0, or -EINVAL with the error said.
 */
static int gave_up(struct reader *r)
{
	char why[512], stream[256], where[128], packet[128] = "";
	const char *name = NULL;
	uint64_t at, k = 0;
	struct stat sb;
	int which;

	if (!ctf_take_error(why, sizeof(why), &which, stream, sizeof(stream)))
		return 0;
	/* the stream the error names, else the only one, and the last packet begun in it */
	for (size_t i = 0; i < r->nstreams; i++) {
		const char *s = bt_stream_get_name(r->streams[i].stream);

		if (s && (stream[0] ? !strcmp(s, stream) : r->nstreams == 1)) {
			name = s;
			k = r->streams[i].packets ? r->streams[i].packets - 1 : 0;
		}
	}
	if (name) {
		bool known = ctf_packet_offset(name, k, &at);
		size_t n = (size_t)snprintf(packet, sizeof(packet), " at packet %" PRIu64, k);

		if (known && !stat(name, &sb))
			snprintf(packet + n, sizeof(packet) - n, " (byte %" PRIu64 " of %lld)", at,
				 (long long)sb.st_size);
		else if (known)
			snprintf(packet + n, sizeof(packet) - n, " (byte %" PRIu64 ")", at);
	}
	if (r->st->events)
		snprintf(where, sizeof(where), "after event %" PRIu64 " at %" PRIu64 " ns",
			 r->st->events - 1, r->st->last_ts);
	else
		snprintf(where, sizeof(where), "before the first event");
	ctf_err_set(r->err, r->errlen, "%s: corrupt trace %s: babeltrace2 gave up on stream file "
		"%s%s and went on as if it ended there: %s",
		which >= 0 && (unsigned int)which < r->folders->n ? r->folders->v[which] : r->path,
		where, name ? name : stream[0] ? stream : "(unnamed)", packet, why);
	return -EINVAL;
}

int ctf_decode(const char *path, ctf_bind_fn bind, ctf_event_fn on_event, ctf_mark_fn mark,
	       void *ctx, struct ctf_stats *st, char *err, size_t errlen)
{
	struct folders folders = { 0 };
	struct ctf_stats own = { 0 };
	struct reader r = {
		.path = path, .bind = bind, .on_event = on_event, .mark = mark, .ctx = ctx,
		.folders = &folders, .st = st ? st : &own, .err = err, .errlen = errlen,
	};
	const bt_plugin *ctf = NULL, *utils = NULL;
	bt_graph *graph;
	bt_graph_run_status rs;
	int ret;

	*r.st = (struct ctf_stats){ 0 };
	if (err && errlen)
		err[0] = '\0'; /* so a stop can tell whether cls_bind() said why */
	ret = ctf_find_traces(path, &folders, err, errlen);
	r.st->traces = folders.n;
	if (ret)
		goto free_folders;
	ret = find_plugins(&ctf, &utils, err, errlen);
	if (ret)
		goto free_folders;
	graph = bt_graph_create(0);
	if (!graph) {
		ctf_err_set(err, errlen, "%s: out of memory", path);
		ret = -ENOMEM;
		goto put_plugins;
	}
	ret = build_graph(&r, graph, ctf, utils);
	if (ret)
		goto put_graph;
	/* src.ctf.fs never asks to be called again; AGAIN is handled for other sources' sake. */
	do
		rs = bt_graph_run(graph);
	while (rs == BT_GRAPH_RUN_STATUS_AGAIN);
	if (r.stop < 0) {
		/* A caller's stop; cls_bind() may have written a message already. */
		ret = r.stop;
		if (ret == -ENOMEM)
			ctf_err_set(err, errlen, "%s: out of memory at event %" PRIu64, path, r.st->events);
		else if (err && errlen && !err[0])
			ctf_err_set(err, errlen, "%s: stopped at event %" PRIu64 " at %" PRIu64 " ns: %s",
				path, r.st->events ? r.st->events - 1 : 0, r.st->last_ts, strerror(-ret));
		bt_current_thread_clear_error();
	} else if (rs != BT_GRAPH_RUN_STATUS_OK) {
		ret = run_error(&r, rs);
	} else {
		ret = gave_up(&r);
	}
put_graph:
	bt_graph_put_ref(graph);
	ctf_classes_free(&r.classes);
	free(r.streams);
put_plugins:
	bt_plugin_put_ref(utils);
	bt_plugin_put_ref(ctf);
free_folders:
	ctf_folders_free(&folders);
	return ret;
}
