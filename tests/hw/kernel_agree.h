/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_TESTS_HW_KERNEL_AGREE_H
#define GPUISO_TESTS_HW_KERNEL_AGREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/range.h"

/*
 * The kernel judges the VFIO backend: the backend's journal (its lines in
 * the kernel's record, through trace_marker: hw/vfio/vfio.h) against the
 * kernel's own iommu:map and iommu:unmap events of the same record, in
 * the order the record holds them. A journal line comes after its call,
 * so the kernel's events since the line before are that call's:
 *   - a map that succeeded: maps only, tiling its range in ascending order
 *     (the kernel maps one physically contiguous run at a time);
 *   - an unmap that succeeded: unmaps only, covering its range exactly,
 *     in any order, without overlap (it unmaps run by run);
 *   - a call that failed: only events inside its range (what the kernel
 *     mapped of it, then took back);
 *   - close: unmaps covering exactly what the journal left mapped;
 *   - open: a session begins; kernel events outside sessions are not the
 *     backend's, and are counted apart.
 * Anything else is a disagreement, said naming both sides: the journal's
 * line and the kernel's first event that differs.
 */

struct agree_event {
	uint64_t index, ts;
	bool map;
	uint64_t iova, size; /* size: a map's, or the bytes an unmap unmapped */
};

struct agree {
	bool in_session;
	struct agree_event *pending; /* the kernel's events since the last journal line */
	size_t npending, pending_cap;
	struct range_alloc mapped;   /* what the journal has mapped now */
	/*
	 * What the kernel's record has mapped now, all its events (in one
	 * domain: an event at odds with it, a map over what is mapped or an
	 * unmap of what is not, says the record holds several, and counts in
	 * @kernel_odd)
	 */
	struct range_alloc kernel;
	uint64_t kernel_odd;
	/* counts, for the report */
	uint64_t sessions, maps, unmaps, failed, kernel_maps, kernel_unmaps, teardown_unmaps;
	uint64_t outside, ranges_compared;
};

/** agree_init() - an empty judge. @a: the judge. */
void agree_init(struct agree *a);

/** agree_fini() - free it. @a: the judge. */
void agree_fini(struct agree *a);

/**
 * agree_kernel() - one of the kernel's iommu:map or iommu:unmap events.
 * @a: the judge.
 * @e: the event (an unmap's size: the bytes it unmapped).
 *
 * Return: 0, -ENOMEM.
 */
int agree_kernel(struct agree *a, const struct agree_event *e);

/**
 * agree_journal() - one line of the backend's journal, judged against the
 * kernel's events since the line before.
 * @a: the judge.
 * @index: the line's event index in the record.
 * @ts: its time.
 * @line: "gpuiso-vfio ..." (other lines are not the journal's: ignored).
 * @err: out: on a disagreement, both sides.
 * @errlen: size of @err.
 *
 * Return: 0, -EINVAL (a disagreement, or a line the journal never
 * writes), -ENOMEM.
 */
int agree_journal(struct agree *a, uint64_t index, uint64_t ts, const char *line, char *err,
		  size_t errlen);

/**
 * agree_end() - the record is over: a session still open, or kernel events
 * after the last line of a session, disagree.
 * @a: the judge.
 * @err: out: why not.
 * @errlen: size of @err.
 *
 * Return: 0, -EINVAL.
 */
int agree_end(struct agree *a, char *err, size_t errlen);

#endif
