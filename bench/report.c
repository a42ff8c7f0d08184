/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "bench/results.h"
#include "common/host.h"
#include "common/json.h"

void bench_add(struct bench_report *r, const char *name, double value, const char *unit,
	       const char *note)
{
	struct bench_metric *m;

	if (r->n == BENCH_MAX_METRICS)
		return;
	m = &r->m[r->n++];
	snprintf(m->name, sizeof(m->name), "%s", name);
	m->value = value;
	m->unit = unit;
	snprintf(m->note, sizeof(m->note), "%s", note ? note : "");
}

static void fill(struct json *j, const void *ctx)
{
	const struct bench_report *r = ctx;
	char host[256];

	json_obj_begin(j, NULL);
	json_str(j, "schema", "gpuiso-bench/1");
	json_str(j, "host", host_name(host, sizeof(host)));
	results_build_json(j);
	json_str(j, "suite", r->suite);
	if (r->notes)
		json_str(j, "notes", r->notes);
	json_obj_begin(j, "metrics");
	for (size_t i = 0; i < r->n; i++) {
		json_obj_begin(j, r->m[i].name);
		json_double(j, "value", r->m[i].value);
		json_str(j, "unit", r->m[i].unit);
		json_obj_end(j);
	}
	json_obj_end(j);
	json_obj_end(j);
}

int bench_write_json(const struct bench_report *r, const char *path)
{
	return json_write_file(path, fill, r);
}

void bench_progress(const struct bench_report *r, const char *what)
{
	if (r->progress) {
		fprintf(r->progress, "%s...\n", what);
		fflush(r->progress);
	}
}

int bench_main(const struct bench_suite *suites, size_t nsuites, const char *suite,
	       const char *json_path, FILE *out)
{
	const struct bench_suite *s = NULL;
	struct bench_report *r;
	int rc;

	for (size_t i = 0; i < nsuites; i++)
		if (!strcmp(suites[i].name, suite))
			s = &suites[i];
	if (!s)
		return -ENOENT;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	/* Say what is running when someone is watching: a suite takes seconds. */
	if (isatty(fileno(out)))
		r->progress = stderr;
	r->suite = s->name;
	rc = s->run(r);
	if (!rc) {
		fprintf(out, "%-30s %14s  %-6s\n", "metric", "value", "unit");
		for (size_t i = 0; i < r->n; i++)
			fprintf(out, "%-30s %14.3f  %-6s %s\n", r->m[i].name, r->m[i].value,
				r->m[i].unit, r->m[i].note);
	}
	if (!rc && json_path) {
		rc = bench_write_json(r, json_path);
		if (rc)
			fprintf(stderr, "gpuiso: bench: writing %s: %s\n", json_path, strerror(-rc));
		rc = rc ? -EIO : 0; /* said: not to be taken for an unknown suite */
	}
	free(r);
	return rc;
}
