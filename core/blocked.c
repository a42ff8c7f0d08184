/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define LOG_PREFIX "core"
#include "common/array.h"
#include "common/log.h"
#include "gate_internal.h"
#include "internal.h"

/*
 * Blocked DMA (docs/model.md, "Blocked DMA"). The hardware says of a
 * blocked access only "not present" or "no permission"; the model gives
 * each fault its cause from what it knows of the address: the domain's
 * logical range, exclusive access, the interrupt window, and the unmaps it
 * remembers. It also remembers the device addresses of the objects freed
 * last, which a device that kept them still uses (rogue.c).
 */

/* The x86 interrupt window: writes there are interrupt requests, never DMA. */
#define IRQ_WINDOW_BASE 0xFEE00000ull
#define IRQ_WINDOW_SIZE SZ_1M

static const char *const cause_names[CORE_FAULT_NCAUSES] = {
	[CORE_FAULT_NOT_MAPPED] = "not_mapped",
	[CORE_FAULT_BEYOND_RANGE] = "beyond_range",
	[CORE_FAULT_SWITCH] = "domain_switch",
	[CORE_FAULT_RESERVED] = "reserved",
	[CORE_FAULT_AFTER_UNMAP] = "after_unmap",
	[CORE_FAULT_AFTER_FREE] = "after_free",
};

const char *core_fault_cause_name(unsigned int cause)
{
	return cause < CORE_FAULT_NCAUSES ? cause_names[cause] : "?";
}

const char *core_exposure_how_name(unsigned int how)
{
	return how == CORE_EXPOSED_NO_DOMAIN ? "no_domain" : how == CORE_EXPOSED_STALE ? "stale" : "?";
}

bool blocked_irq_window(uint64_t address, uint64_t bytes)
{
	return address < IRQ_WINDOW_BASE + IRQ_WINDOW_SIZE && address + bytes > IRQ_WINDOW_BASE;
}

void blocked_note_unmap(struct core *c, struct adapter *a, iova_t iova, uint64_t bytes)
{
	struct unmap_note *n;

	/* the ring grows as unmaps come, to CORE_UNMAP_NOTES; only then does it wrap */
	if (a->unmaps_next < CORE_UNMAP_NOTES &&
	    array_reserve(&a->unmaps, &a->unmaps_cap, (size_t)a->unmaps_next, sizeof(*a->unmaps))) {
		log_err("out of memory remembering unmaps: blocked DMA will say less");
		return;
	}
	n = &a->unmaps[a->unmaps_next++ % CORE_UNMAP_NOTES];
	*n = (struct unmap_note){ .iova = iova, .bytes = bytes, .event = c->event, .ts_ns = c->ts_ns,
				  .op = c->op, .freed = c->unmap_frees };
}

/* The newest unmap the adapter remembers of @iova's page, or NULL. */
static const struct unmap_note *unmap_of(const struct adapter *a, iova_t iova)
{
	uint64_t n = GPUISO_MIN(a->unmaps_next, (uint64_t)CORE_UNMAP_NOTES);

	for (uint64_t i = 1; a->unmaps && i <= n; i++) {
		const struct unmap_note *u = &a->unmaps[(a->unmaps_next - i) % CORE_UNMAP_NOTES];

		if (iova >= u->iova && iova - u->iova < u->bytes)
			return u;
	}
	return NULL;
}

void blocked_classify(const struct core *c, const struct adapter *a, struct core_fault *f)
{
	const struct unmap_note *u;

	f->cause = CORE_FAULT_NOT_MAPPED;
	if (a->in_exclusive)
		f->cause = CORE_FAULT_SWITCH;
	else if (f->reason == HW_FAULT_BEYOND_AW ||
		 (a->mode == MODE_LOGICAL && f->iova >= a->logical_limit))
		f->cause = CORE_FAULT_BEYOND_RANGE;
	else if (blocked_irq_window(f->iova, 1))
		f->cause = CORE_FAULT_RESERVED;
	else if ((u = unmap_of(a, f->iova))) {
		f->cause = u->freed ? CORE_FAULT_AFTER_FREE : CORE_FAULT_AFTER_UNMAP;
		f->by_event = u->event;
		f->by_ts_ns = u->ts_ns;
		f->by_op = u->op;
	}
	(void)c;
}

void blocked_note_tomb(struct core *c, core_handle_t h, const struct hobj *o)
{
	struct tomb *t;
	const struct phys_run *runs = pg_runs(&o->pg);

	if (!o->pg.npages)
		return;
	t = &c->tombs[c->tombs_next++ % CORE_TOMBS];
	phys_runs_free(&t->runs);
	*t = (struct tomb){ .h = h, .adapter = o->adapter, .npages = o->pg.npages,
			    .logical = o->map.mapped && o->map.logical, .iova = o->map.iova };
	if (t->logical)
		return;
	for (size_t r = 0; r < o->pg.runs.n; r++)
		if (phys_runs_add(&t->runs, runs[r].pa, runs[r].npages)) {
			log_err("out of memory remembering a freed object's addresses");
			t->h = 0;
			phys_runs_free(&t->runs);
			return;
		}
}

void blocked_fini(struct core *c)
{
	for (size_t i = 0; i < CORE_TOMBS; i++)
		phys_runs_free(&c->tombs[i].runs);
	for (size_t i = 0; i < c->nadapters; i++)
		free(c->adapters[i].unmaps);
}
