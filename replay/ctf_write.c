/* SPDX-License-Identifier: MIT */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define LOG_PREFIX "ctf_write"
#include "common/array.h"
#include "common/digest.h"
#include "common/failure.h"
#include "common/log.h"
#include "common/path.h"
#include "replay/ctf.h"
#include "replay/ctf_internal.h"

/*
 * CTF writing. Debian's libbabeltrace2 has no CTF writer API, so the trace is
 * written by a graph: a source component class of ours (ctf_write_source.c),
 * whose message iterator pulls events from the caller's wl_next_fn,
 * connected to sink.ctf.fs. Reproducible output: once the graph has run,
 * the random UUID sink.ctf.fs gave the trace is replaced by one derived from
 * the events written (ctf_write_uuid.c).
 */

/* More than sink.ctf.fs grows a file by at once (8 pages): to learn why it could not. */
#define CW_PROBE_BYTES (1 << 20)

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
	src_cls = ctf_write_source_class();
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

/* --- the output folder --- */

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
		return failure_output(rc);
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
		rc = ctf_write_fix_uuid(dir, run, err, errlen);
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
