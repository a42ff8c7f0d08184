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
}

void agree_fini(struct agree *a)
{
	free(a->pending);
	free(a->mapped);
	free(a->kernel);
	*a = (struct agree){ 0 };
}

/* ---- sets of ranges, kept sorted and merged ---- */

static int set_add(struct agree_range **v, size_t *n, size_t *cap, uint64_t s, uint64_t e)
{
	size_t i = 0, j;

	while (i < *n && (*v)[i].end < s)
		i++;
	/* [i, j) are the ranges that touch or overlap [s, e): merged into one */
	for (j = i; j < *n && (*v)[j].start <= e; j++) {
		s = (*v)[j].start < s ? (*v)[j].start : s;
		e = (*v)[j].end > e ? (*v)[j].end : e;
	}
	if (j == i) {
		if (array_reserve(v, cap, *n, sizeof(**v)))
			return -ENOMEM;
		memmove(*v + i + 1, *v + i, (*n - i) * sizeof(**v));
		(*n)++;
	} else {
		memmove(*v + i + 1, *v + j, (*n - j) * sizeof(**v));
		*n -= j - i - 1;
	}
	(*v)[i] = (struct agree_range){ s, e };
	return 0;
}

/* Take [s, e) out of the set, wherever it is. */
static int set_remove(struct agree_range **v, size_t *n, size_t *cap, uint64_t s, uint64_t e)
{
	for (size_t i = 0; i < *n; i++) {
		struct agree_range r = (*v)[i];

		if (r.end <= s || r.start >= e)
			continue;
		if (r.start < s && r.end > e) { /* a hole in the middle: two ranges */
			(*v)[i].end = s;
			return set_add(v, n, cap, e, r.end);
		}
		if (r.start < s) {
			(*v)[i].end = s;
		} else if (r.end > e) {
			(*v)[i].start = e;
		} else {
			memmove(*v + i, *v + i + 1, (*n - i - 1) * sizeof(**v));
			(*n)--;
			i--;
		}
	}
	return 0;
}

static uint64_t set_bytes(const struct agree_range *v, size_t n)
{
	uint64_t b = 0;

	for (size_t i = 0; i < n; i++)
		b += v[i].end - v[i].start;
	return b;
}

/* Whether [s, e) lies inside one range of the set. */
static bool set_holds(const struct agree_range *v, size_t n, uint64_t s, uint64_t e)
{
	for (size_t i = 0; i < n; i++)
		if (v[i].start <= s && e <= v[i].end)
			return true;
	return false;
}

/* ---- the kernel's events ---- */

int agree_kernel(struct agree *a, const struct agree_event *e)
{
	int rc;

	rc = e->map ? set_add(&a->kernel, &a->nkernel, &a->kernel_cap, e->iova, e->iova + e->size)
		    : set_remove(&a->kernel, &a->nkernel, &a->kernel_cap, e->iova, e->iova + e->size);
	if (rc)
		return rc;
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
	return set_add(&a->mapped, &a->nmapped, &a->mapped_cap, l->iova, l->iova + l->size);
}

/* Unmaps that cover the set @want exactly, in any order, each once. */
static int judge_cover(struct agree *a, const struct line *l, const struct agree_range *want,
		       size_t nwant, char *err, size_t errlen)
{
	struct agree_range *seen = NULL;
	size_t nseen = 0, cap = 0;
	uint64_t bytes = 0;
	int rc = 0;

	for (size_t i = 0; i < a->npending && !rc; i++) {
		const struct agree_event *e = &a->pending[i];

		if (e->map)
			rc = disagree(err, errlen, l, e, "a map inside an unmap");
		else if (!set_holds(want, nwant, e->iova, e->iova + e->size) || !e->size)
			rc = disagree(err, errlen, l, e, "outside what the call unmaps");
		else if (!(rc = set_add(&seen, &nseen, &cap, e->iova, e->iova + e->size)) &&
			 set_bytes(seen, nseen) != bytes + e->size)
			rc = disagree(err, errlen, l, e, "unmapped twice");
		bytes += e->size;
	}
	if (!rc && bytes != set_bytes(want, nwant))
		rc = disagree(err, errlen, l, NULL, "the kernel unmapped less than the call");
	free(seen);
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
	struct agree_range call;
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
		a->nmapped = 0;
		return 0;
	}
	if (!a->in_session)
		return disagree(err, errlen, &l, NULL, "a call outside open ... close");
	call = (struct agree_range){ l.iova, l.iova + l.size };
	if (!strcmp(l.what, "close")) {
		rc = judge_cover(a, &l, a->mapped, a->nmapped, err, errlen);
		a->teardown_unmaps += a->npending;
		a->ranges_compared += a->nmapped;
		a->nmapped = 0;
		a->in_session = false;
	} else if (l.rc) {
		a->failed++;
		for (size_t i = 0; i < a->npending && !rc; i++)
			if (a->pending[i].iova < call.start ||
			    a->pending[i].iova + a->pending[i].size > call.end)
				rc = disagree(err, errlen, &l, &a->pending[i],
					      "outside the range of a call that failed");
	} else if (!strcmp(l.what, "map")) {
		a->maps++;
		rc = judge_map(a, &l, err, errlen);
		a->ranges_compared++;
	} else {
		a->unmaps++;
		if (!set_holds(a->mapped, a->nmapped, call.start, call.end))
			return disagree(err, errlen, &l, NULL, "the journal never mapped it, yet the "
					"kernel said yes");
		rc = judge_cover(a, &l, &call, 1, err, errlen);
		a->kernel_unmaps += a->npending;
		a->ranges_compared++;
		if (!rc)
			rc = set_remove(&a->mapped, &a->nmapped, &a->mapped_cap, call.start, call.end);
	}
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
