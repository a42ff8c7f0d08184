/* SPDX-License-Identifier: MIT */
/* The backend's journal against the kernel's iommu events (kernel_agree.h). */
#include "kernel_agree.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/array.h"

void agree_init(struct agree *a)
{
	*a = (struct agree){ 0 };
	range_init(&a->mapped);
	range_init(&a->kernel);
}

void agree_fini(struct agree *a)
{
	free(a->pending);
	range_fini(&a->mapped);
	range_fini(&a->kernel);
	*a = (struct agree){ 0 };
}

/* ---- the kernel's events ---- */

int agree_kernel(struct agree *a, const struct agree_event *e)
{
	int rc = e->map ? range_add(&a->kernel, e->iova, e->size)
			: range_remove(&a->kernel, e->iova, e->size);

	if (rc == -ENOMEM)
		return rc;
	a->kernel_odd += rc != 0;
	if (!a->in_session) {
		a->outside++;
		return 0;
	}
	if (array_reserve(&a->pending, &a->pending_cap, a->npending, sizeof(*a->pending)))
		return -ENOMEM;
	a->pending[a->npending++] = *e;
	return 0;
}

/* ---- the journal's lines, judged ---- */

struct line {
	const char *what; /* "open", "map", "unmap", "close" */
	uint64_t iova, size;
	int rc;
	uint64_t index, ts;
	const char *text;
};

static int disagree(char *err, size_t errlen, const struct line *l, const struct agree_event *e,
		    const char *why)
{
	char line[200];

	snprintf(line, sizeof(line), "%.*s", (int)strcspn(l->text, "\n"), l->text);
	if (e)
		snprintf(err, errlen, "the kernel disagrees with the backend: journal '%s' (event %"
			 PRIu64 " at %" PRIu64 " ns) against the kernel's iommu:%s iova=0x%" PRIx64
			 " size=0x%" PRIx64 " (event %" PRIu64 " at %" PRIu64 " ns): %s", line,
			 l->index, l->ts, e->map ? "map" : "unmap", e->iova, e->size, e->index,
			 e->ts, why);
	else
		snprintf(err, errlen, "the kernel disagrees with the backend: journal '%s' (event %"
			 PRIu64 " at %" PRIu64 " ns): %s", line, l->index, l->ts, why);
	return -EINVAL;
}

/* A map that succeeded: the kernel's maps tile [iova, iova + size) in ascending order. */
static int judge_map(struct agree *a, const struct line *l, char *err, size_t errlen)
{
	uint64_t at = l->iova;

	for (size_t i = 0; i < a->npending; i++) {
		const struct agree_event *e = &a->pending[i];

		if (!e->map)
			return disagree(err, errlen, l, e, "an unmap inside a map call");
		if (e->iova != at || e->size > l->iova + l->size - at || !e->size)
			return disagree(err, errlen, l, e, "not the next piece of the range");
		at += e->size;
		a->kernel_maps++;
	}
	if (at != l->iova + l->size)
		return disagree(err, errlen, l, NULL, a->npending ? "the kernel mapped less" :
				"the kernel mapped nothing");
	/* (the kernel mapped over what the journal has mapped: it should have refused) */
	if (range_add(&a->mapped, l->iova, l->size) == -EINVAL)
		return disagree(err, errlen, l, NULL, "the kernel mapped over a mapping");
	return 0;
}

/* Unmaps that cover the set @want exactly, in any order, each once. */
static int judge_cover(struct agree *a, const struct line *l, const struct range_alloc *want,
		       char *err, size_t errlen)
{
	struct range_alloc seen;
	int rc = 0;

	range_init(&seen);
	for (size_t i = 0; i < a->npending && !rc; i++) {
		const struct agree_event *e = &a->pending[i];

		if (e->map)
			rc = disagree(err, errlen, l, e, "a map inside an unmap");
		else if (!e->size || !range_contains(want, e->iova, e->size))
			rc = disagree(err, errlen, l, e, "outside what the call unmaps");
		else if ((rc = range_add(&seen, e->iova, e->size)) == -EINVAL)
			rc = disagree(err, errlen, l, e, "unmapped twice");
	}
	if (!rc && seen.free_bytes != want->free_bytes)
		rc = disagree(err, errlen, l, NULL, "the kernel unmapped less than the call");
	range_fini(&seen);
	return rc;
}

static int parse(const char *text, struct line *l)
{
	char what[16] = "";
	unsigned long long iova, size;

	if (sscanf(text, "gpuiso-vfio %15s", what) != 1)
		return -EINVAL;
	l->what = !strcmp(what, "open") ? "open" : !strcmp(what, "close") ? "close" :
		  !strcmp(what, "map") ? "map" : !strcmp(what, "unmap") ? "unmap" : NULL;
	if (!l->what)
		return -EINVAL;
	if ((l->what[0] == 'm' || l->what[0] == 'u') &&
	    sscanf(text + strlen("gpuiso-vfio ") + strlen(what), " iova=0x%llx size=0x%llx rc=%d",
		   &iova, &size, &l->rc) != 3)
		return -EINVAL;
	if (l->what[0] == 'm' || l->what[0] == 'u') {
		l->iova = iova;
		l->size = size;
	}
	return 0;
}

int agree_journal(struct agree *a, uint64_t index, uint64_t ts, const char *text, char *err,
		  size_t errlen)
{
	struct line l = { .index = index, .ts = ts, .text = text };
	struct range_alloc call;
	int rc = 0;

	if (strncmp(text, "gpuiso-vfio ", 12))
		return 0; /* another writer of trace_marker */
	if (parse(text, &l))
		return disagree(err, errlen, &l, NULL, "not a line the journal writes");
	if (!strcmp(l.what, "open")) {
		if (a->in_session)
			return disagree(err, errlen, &l, NULL, "opened again before close");
		a->in_session = true;
		a->sessions++;
		a->outside += a->npending;
		a->npending = 0;
		range_fini(&a->mapped);
		range_init(&a->mapped);
		return 0;
	}
	if (!a->in_session)
		return disagree(err, errlen, &l, NULL, "a call outside open ... close");
	range_init(&call);
	if (!strcmp(l.what, "close")) {
		rc = judge_cover(a, &l, &a->mapped, err, errlen);
		a->teardown_unmaps += a->npending;
		a->ranges_compared += a->mapped.n;
		range_fini(&a->mapped);
		range_init(&a->mapped);
		a->in_session = false;
	} else if (l.rc) {
		a->failed++;
		for (size_t i = 0; i < a->npending && !rc; i++)
			if (a->pending[i].iova < l.iova ||
			    a->pending[i].iova + a->pending[i].size > l.iova + l.size)
				rc = disagree(err, errlen, &l, &a->pending[i],
					      "outside the range of a call that failed");
	} else if (!strcmp(l.what, "map")) {
		a->maps++;
		rc = judge_map(a, &l, err, errlen);
		a->ranges_compared++;
	} else {
		a->unmaps++;
		if (!l.size || !range_contains(&a->mapped, l.iova, l.size))
			return disagree(err, errlen, &l, NULL, "the journal never mapped it, yet the "
					"kernel said yes");
		rc = range_add(&call, l.iova, l.size) ?: judge_cover(a, &l, &call, err, errlen);
		a->kernel_unmaps += a->npending;
		a->ranges_compared++;
		if (!rc)
			rc = range_remove(&a->mapped, l.iova, l.size);
	}
	range_fini(&call);
	a->npending = 0;
	return rc;
}

int agree_end(struct agree *a, char *err, size_t errlen)
{
	if (a->in_session) {
		snprintf(err, errlen, "the record ends inside a session of the backend (no "
			 "'gpuiso-vfio close'): record the run to its end");
		return -EINVAL;
	}
	return 0;
}
