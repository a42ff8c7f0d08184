/* SPDX-License-Identifier: MIT */
/* `gpuiso trace info`: what a trace holds, counted per event name. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/array.h"
#include "common/json.h"
#include "replay/ctf.h"
#include "replay/etl.h"
#include "replay/ftrace.h"
#include "replay/info.h"

/* What the file's own walk found, for a trace.dat or an .etl file. */
struct info_file {
	const char *format;          /* "ctf", "trace.dat", "etl" */
	struct ftrace_layout dat;
	struct etl_layout etl;
};

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

/*
 * An .etl file's events per provider: the part of their names before the
 * first ':' (etl_decode()), in name order as @ic is. Return: how many.
 */
static size_t providers_count(const struct info_ctx *ic, struct name_count *out)
{
	size_t n = 0;

	for (size_t i = 0; i < ic->n; i++) {
		size_t len = strcspn(ic->v[i].name, ":");

		if (!n || strlen(out[n - 1].name) != len || strncmp(out[n - 1].name, ic->v[i].name, len))
			out[n++] = (struct name_count){ .name = strndup(ic->v[i].name, len) };
		if (!out[n - 1].name)
			return SIZE_MAX;
		out[n - 1].count += ic->v[i].count;
	}
	return n;
}

static int print_json(const char *path, const struct ctf_stats *st, const struct info_file *f,
		      const struct info_ctx *ic, const struct name_count *prov, size_t nprov,
		      FILE *out)
{
	struct json j;

	json_init(&j, out);
	json_obj_begin(&j, NULL);
	json_str(&j, "schema", "gpuiso-trace-info/1");
	json_str(&j, "path", path);
	json_str(&j, "format", f->format);
	if (!strcmp(f->format, "trace.dat")) {
		json_u64(&j, "file_version", f->dat.version);
		json_str(&j, "compression", f->dat.compression);
		json_u64(&j, "cpus", f->dat.cpus);
	} else if (!strcmp(f->format, "etl")) {
		json_u64(&j, "buffers", f->etl.buffers);
		json_u64(&j, "buffer_size", f->etl.buffer_size);
		json_u64(&j, "cpus", f->etl.cpus);
		json_u64(&j, "pointer_size", f->etl.pointer_size);
		json_u64(&j, "clock_hz", f->etl.clock_type == 1 ? f->etl.perf_freq : 10000000u);
		json_u64(&j, "lost_buffers_flagged", f->etl.buffers_flagged_lost);
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
	if (prov) {
		json_obj_begin(&j, "by_provider");
		for (size_t i = 0; i < nprov; i++)
			json_u64(&j, prov[i].name, prov[i].count);
		json_obj_end(&j);
	}
	json_obj_begin(&j, "by_name");
	for (size_t i = 0; i < ic->n; i++)
		json_u64(&j, ic->v[i].name, ic->v[i].count);
	json_obj_end(&j);
	json_obj_end(&j);
	return json_end(&j);
}

static int print_text(const char *path, const struct ctf_stats *st, const struct info_file *f,
		      const struct info_ctx *ic, const struct name_count *prov, size_t nprov,
		      FILE *out)
{
	char a[48], b[48];
	int w = 10;

	fprintf(out, "trace:      %s\n", path);
	if (!strcmp(f->format, "trace.dat"))
		fprintf(out, "format:     trace.dat version %u (compression: %s), %u CPUs, "
			"%u-byte pages\n", f->dat.version, f->dat.compression, f->dat.cpus,
			f->dat.page_size);
	else if (!strcmp(f->format, "etl"))
		fprintf(out, "format:     .etl, %" PRIu64 " buffer%s of %u bytes, %u CPUs, %u-byte "
			"pointers, clock %s at %" PRIu64 " Hz\n", f->etl.buffers,
			f->etl.buffers == 1 ? "" : "s", f->etl.buffer_size, f->etl.cpus, f->etl.pointer_size, f->etl.clock_type == 1 ?
			"QPC" : "system time", f->etl.clock_type == 1 ? f->etl.perf_freq : 10000000u);
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
	if (prov) {
		fprintf(out, "by provider:\n");
		for (size_t i = 0; i < nprov; i++)
			fprintf(out, "  %-40s %12" PRIu64 "\n", prov[i].name, prov[i].count);
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
	struct info_file f = { .format = "ctf" };
	struct name_count *prov = NULL;
	size_t nprov = 0;
	struct ctf_stats st;
	int ret = 0;

	if (ftrace_file_is(path)) {
		f.format = "trace.dat";
		ret = ftrace_file_check(path, &f.dat, err, errlen);
	} else if (etl_file_is(path)) {
		f.format = "etl";
		ret = etl_file_check(path, &f.etl, err, errlen);
	}
	if (ret)
		return ret == -ENOMEM ? ret : -EINVAL;
	ret = ctf_read(path, info_bind, info_event, &ic, NULL, &st, err, errlen);
	if (ret)
		goto free_names;
	if (ic.n) /* (no classes: no array either) */
		qsort(ic.v, ic.n, sizeof(*ic.v), by_name);
	if (!strcmp(f.format, "etl")) {
		prov = calloc(ic.n + 1, sizeof(*prov));
		nprov = prov ? providers_count(&ic, prov) : SIZE_MAX;
		if (nprov == SIZE_MAX) {
			nprov = ic.n + 1;
			ret = -ENOMEM;
			snprintf(err, errlen, "%s: out of memory", path);
			goto free_names;
		}
	}
	ret = json ? print_json(path, &st, &f, &ic, prov, nprov, out)
		   : print_text(path, &st, &f, &ic, prov, nprov, out);
	if (ret)
		snprintf(err, errlen, "%s: cannot write the summary: %s", path, strerror(-ret));
free_names:
	for (size_t i = 0; prov && i < nprov; i++)
		free(prov[i].name);
	free(prov);
	for (size_t i = 0; i < ic.n; i++)
		free(ic.v[i].name);
	free(ic.v);
	return ret;
}
