/* SPDX-License-Identifier: MIT */
/* `gpuiso trace info`: what a trace holds, counted per event name. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/array.h"
#include "common/json.h"
#include "replay/ctf.h"
#include "replay/ftrace.h"
#include "replay/info.h"

struct name_count {
	char *name;
	uint64_t count;
};

/* One tag per distinct name; several traces may each have a class of that name. */
struct info_ctx {
	struct name_count *v;
	size_t n, cap;
};

static int info_bind(void *ctx, const char *event_name, struct ctf_binding *b)
{
	struct info_ctx *ic = ctx;
	size_t i;

	if (b->listed) { /* counted from its first event: a class without any is not listed */
		b->tag = -1;
		return 0;
	}
	/* Linear: bind runs once per event class, not per event. */
	for (i = 0; i < ic->n; i++)
		if (strcmp(ic->v[i].name, event_name) == 0)
			break;
	if (i == ic->n) {
		if (array_reserve(&ic->v, &ic->cap, ic->n, sizeof(*ic->v)))
			return -ENOMEM;
		ic->v[i].name = strdup(event_name);
		if (!ic->v[i].name)
			return -ENOMEM;
		ic->v[i].count = 0;
		ic->n++;
	}
	if (i > INT32_MAX)
		return -ENOMEM;
	b->tag = (int)i;
	b->n = 0;
	return 0;
}

static int info_event(void *ctx, int tag, uint64_t index, uint64_t ts,
		      const struct ctf_value *values)
{
	struct info_ctx *ic = ctx;

	ic->v[tag].count++;
	return 0;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct name_count *)a)->name, ((const struct name_count *)b)->name);
}

/* ns as seconds with all nine decimals: exact, and what babeltrace2 --clock-seconds shows. */
static char *fmt_secs(uint64_t ns, char *buf, size_t len)
{
	snprintf(buf, len, "%" PRIu64 ".%09" PRIu64 " s", ns / 1000000000u, ns % 1000000000u);
	return buf;
}

static int print_json(const char *path, const struct ctf_stats *st,
		      const struct ftrace_layout *lay, const struct info_ctx *ic, FILE *out)
{
	struct json j;

	json_init(&j, out);
	json_obj_begin(&j, NULL);
	json_str(&j, "schema", "gpuiso-trace-info/1");
	json_str(&j, "path", path);
	json_str(&j, "format", lay ? "trace.dat" : "ctf");
	if (lay) {
		json_u64(&j, "file_version", lay->version);
		json_str(&j, "compression", lay->compression);
		json_u64(&j, "cpus", lay->cpus);
	}
	json_u64(&j, "traces", st->traces);
	json_u64(&j, "events", st->events);
	json_u64(&j, "discarded", st->discarded);
	json_u64(&j, "lost_packets", st->lost_packets);
	if (st->events) {
		json_u64(&j, "first_ts", st->first_ts);
		json_u64(&j, "last_ts", st->last_ts);
	} else { /* no event, no time */
		json_null(&j, "first_ts");
		json_null(&j, "last_ts");
	}
	json_obj_begin(&j, "by_name");
	for (size_t i = 0; i < ic->n; i++)
		json_u64(&j, ic->v[i].name, ic->v[i].count);
	json_obj_end(&j);
	json_obj_end(&j);
	return json_end(&j);
}

static int print_text(const char *path, const struct ctf_stats *st,
		      const struct ftrace_layout *lay, const struct info_ctx *ic, FILE *out)
{
	char a[48], b[48];
	int w = 10;

	fprintf(out, "trace:      %s\n", path);
	if (lay)
		fprintf(out, "format:     trace.dat version %u (compression: %s), %u CPUs, "
			"%u-byte pages\n", lay->version, lay->compression, lay->cpus, lay->page_size);
	else
		fprintf(out, "folders:    %u\n", st->traces);
	fprintf(out, "events:     %" PRIu64 "\n", st->events);
	fprintf(out, "discarded:  %" PRIu64 "%s\n", st->discarded,
		st->discarded || st->lost_packets ? " (trace is incomplete)" : "");
	if (st->lost_packets)
		fprintf(out, "lost:       %" PRIu64 " packets (their events are not counted)\n",
			st->lost_packets);
	if (!st->events) {
		fprintf(out, "first ts:   none (no event: its stream files are empty, or missing)\n");
	} else {
		fprintf(out, "first ts:   %" PRIu64 " ns (%s)\n", st->first_ts,
			fmt_secs(st->first_ts, a, sizeof(a)));
		fprintf(out, "last ts:    %" PRIu64 " ns (%s)\n", st->last_ts,
			fmt_secs(st->last_ts, b, sizeof(b)));
		fprintf(out, "span:       %s\n", fmt_secs(st->last_ts - st->first_ts, a, sizeof(a)));
	}
	fprintf(out, "by name:\n");
	for (size_t i = 0; i < ic->n; i++) {
		int len = (int)strlen(ic->v[i].name);

		w = len > w ? len : w;
	}
	for (size_t i = 0; i < ic->n; i++)
		fprintf(out, "  %-*s %12" PRIu64 "\n", w, ic->v[i].name, ic->v[i].count);
	return ferror(out) ? -EIO : 0;
}

int trace_info(const char *path, bool json, FILE *out, char *err, size_t errlen)
{
	struct info_ctx ic = { 0 };
	struct ftrace_layout lay;
	bool dat = ftrace_file_is(path);
	struct ctf_stats st;
	int ret;

	ret = dat ? ftrace_file_check(path, &lay, err, errlen) : 0;
	if (ret)
		return ret == -ENOMEM ? ret : -EINVAL;
	ret = ctf_read(path, info_bind, info_event, &ic, NULL, &st, err, errlen);
	if (ret)
		goto free_names;
	if (ic.n) /* (no classes: no array either) */
		qsort(ic.v, ic.n, sizeof(*ic.v), by_name);
	ret = json ? print_json(path, &st, dat ? &lay : NULL, &ic, out)
		   : print_text(path, &st, dat ? &lay : NULL, &ic, out);
	if (ret)
		snprintf(err, errlen, "%s: cannot write the summary: %s", path, strerror(-ret));
free_names:
	for (size_t i = 0; i < ic.n; i++)
		free(ic.v[i].name);
	free(ic.v);
	return ret;
}
