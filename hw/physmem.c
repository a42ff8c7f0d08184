/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/digest.h"
#include "physmem.h"

/*
 * The byte store covers at least a 46-bit physical address space (a common
 * x86 server width), so DMA to device-reserved ranges above RAM has bytes
 * to reach; the directory of that is 512 KiB of untouched zero pages.
 */
#define PHYSMEM_MIN_STORE ((uint64_t)1 << 46)

static int physmem_cmp_ext(const void *a, const void *b)
{
	const struct range_extent *x = a, *y = b;

	return x->base < y->base ? -1 : x->base > y->base;
}

int physmem_init(struct physmem *pm, const struct physmem_config *cfg)
{
	uint64_t top = 0;
	int err;

	*pm = (struct physmem){ 0 };
	if (!cfg || !cfg->nram || !cfg->ram)
		return -EINVAL;
	pm->ram = calloc(cfg->nram, sizeof(*pm->ram));
	if (!pm->ram)
		return -ENOMEM;
	memcpy(pm->ram, cfg->ram, cfg->nram * sizeof(*pm->ram));
	pm->nram = cfg->nram;
	qsort(pm->ram, pm->nram, sizeof(*pm->ram), physmem_cmp_ext);

	err = -EINVAL;
	for (size_t i = 0; i < pm->nram; i++) {
		const struct range_extent *r = &pm->ram[i];

		if (!r->size || !ALIGNED(r->base | r->size, GPUISO_PAGE_SIZE) ||
		    r->base + r->size < r->base || r->base + r->size > PHYSMEM_MAX_ADDR)
			goto free_ram;
		if (r->base < top)
			goto free_ram; /* overlaps the previous range */
		top = r->base + r->size;
	}
	pm->highest_pa = top - 1;

	range_init(&pm->frames);
	range_init(&pm->held);
	range_init(&pm->withheld);
	for (size_t i = 0; i < pm->nram; i++) {
		err = range_add(&pm->frames, pm->ram[i].base, pm->ram[i].size);
		if (err)
			goto fini_frames;
	}
	err = sparse_init(&pm->bytes, GPUISO_MAX(ALIGN_UP(top, SZ_1G), PHYSMEM_MIN_STORE));
	if (err)
		goto fini_frames;

	pm->commit_limit = cfg->commit_limit;
	pm->lockable_limit = cfg->lockable_limit;
	pm->pressure = (struct physmem_pressure){ UINT64_MAX, UINT64_MAX, UINT64_MAX };
	return 0;

fini_frames:
	range_fini(&pm->frames);
free_ram:
	free(pm->ram);
	*pm = (struct physmem){ 0 };
	return err;
}

void physmem_fini(struct physmem *pm)
{
	sparse_fini(&pm->bytes);
	range_fini(&pm->frames);
	range_fini(&pm->held);
	range_fini(&pm->withheld);
	free(pm->ram);
	*pm = (struct physmem){ 0 };
}

/*
 * Take @bytes of a charge @held against @limit and what pressure leaves
 * (@avail, UINT64_MAX for none). Pressure says what is still grantable, so a
 * grant lowers it and a return raises it again.
 */
static int physmem_charge(uint64_t *held, uint64_t limit, uint64_t *avail, uint64_t bytes)
{
	if (bytes > limit || *held > limit - bytes || bytes > *avail)
		return -ENOMEM;
	*held += bytes;
	if (*avail != UINT64_MAX)
		*avail -= bytes;
	return 0;
}

static void physmem_release(uint64_t *held, uint64_t *avail, uint64_t bytes)
{
	bytes = GPUISO_MIN(bytes, *held);
	*held -= bytes;
	/* Saturate below UINT64_MAX, which would mean "no pressure". */
	if (*avail != UINT64_MAX)
		*avail = bytes >= UINT64_MAX - *avail ? UINT64_MAX - 1 : *avail + bytes;
}

int physmem_commit(struct physmem *pm, uint64_t bytes)
{
	return physmem_charge(&pm->usage.committed, pm->commit_limit,
			      &pm->pressure.commit_available, bytes);
}

void physmem_uncommit(struct physmem *pm, uint64_t bytes)
{
	physmem_release(&pm->usage.committed, &pm->pressure.commit_available, bytes);
}

int physmem_lock(struct physmem *pm, uint64_t bytes)
{
	if (!ALIGNED(bytes, GPUISO_PAGE_SIZE))
		return -EINVAL;
	return physmem_charge(&pm->usage.locked, pm->lockable_limit,
			      &pm->pressure.lockable_available, bytes);
}

void physmem_unlock(struct physmem *pm, uint64_t bytes)
{
	physmem_release(&pm->usage.locked, &pm->pressure.lockable_available, bytes);
}

/* Index of the first extent of @ext[0..n) that ends above @addr (n if none). */
static size_t physmem_ext_find(const struct range_extent *ext, size_t n, uint64_t addr)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ext[mid].base + ext[mid].size <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static bool physmem_put_run(struct physmem *pm, pa_t pa, uint64_t bytes)
{
	/* Frames that are not RAM never join the free pool. */
	if (!physmem_is_ram(pm, pa, bytes) || range_add(&pm->frames, pa, bytes))
		return false;
	sparse_discard(&pm->bytes, pa, bytes);
	pm->usage.allocated -= bytes;
	return true;
}

static void physmem_put_free(struct physmem *pm, pa_t pa, uint64_t npages);

/* Give back a run of frames: the held ones are withheld, the others join the pool. */
static void physmem_put_pages(struct physmem *pm, pa_t pa, uint64_t npages)
{
	uint64_t end = pa + npages * GPUISO_PAGE_SIZE;
	const struct range_extent *h;

	while (pa < end && (h = range_first_overlap(&pm->held, pa, end - pa))) {
		uint64_t from = GPUISO_MAX(h->base, pa), to = GPUISO_MIN(h->base + h->size, end);

		if (from > pa)
			physmem_put_free(pm, pa, (from - pa) / GPUISO_PAGE_SIZE);
		/* out of memory to note them (or freed twice): lost to the pool, never reused */
		range_add(&pm->withheld, from, to - from);
		pa = to;
	}
	if (pa < end)
		physmem_put_free(pm, pa, (end - pa) / GPUISO_PAGE_SIZE);
}

/* Give back a run of frames none of which is held (page by page if the run is refused). */
static void physmem_put_free(struct physmem *pm, pa_t pa, uint64_t npages)
{
	/* Part of a refused run is free already (a double free): return the rest. */
	if (!physmem_put_run(pm, pa, npages * GPUISO_PAGE_SIZE) && npages > 1) {
		for (uint64_t j = 0; j < npages; j++)
			physmem_put_run(pm, pa + j * GPUISO_PAGE_SIZE, GPUISO_PAGE_SIZE);
	}
	pm->usage.resident = pm->bytes.resident;
}

/* Give back the frames of pages[0..n), run by run. */
static void physmem_put(struct physmem *pm, const pa_t *pages, uint64_t n)
{
	uint64_t i = 0;

	while (i < n) {
		uint64_t run = 1;

		while (i + run < n && pages[i + run] == pages[i] + run * GPUISO_PAGE_SIZE)
			run++;
		physmem_put_pages(pm, pages[i], run);
		i += run;
	}
}

int phys_runs_add(struct phys_runs *r, pa_t pa, uint64_t npages)
{
	struct phys_run *last = r->n == 1 ? &r->one : r->n ? &r->more[r->n - 1] : NULL;

	if (last && last->pa + last->npages * GPUISO_PAGE_SIZE == pa) {
		last->npages += npages;
		return 0;
	}
	if (!r->n) {
		r->one = (struct phys_run){ pa, npages };
		r->n = 1;
		return 0;
	}
	if (r->n >= r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 8;
		struct phys_run *more = realloc(r->more, cap * sizeof(*more));

		if (!more)
			return -ENOMEM;
		if (!r->cap)
			more[0] = r->one;
		r->more = more;
		r->cap = cap;
	}
	r->more[r->n++] = (struct phys_run){ pa, npages };
	return 0;
}

void phys_runs_free(struct phys_runs *r)
{
	free(r->more);
	*r = (struct phys_runs){ 0 };
}

/* Give back every frame of @r and forget its runs. */
static void physmem_put_runs(struct physmem *pm, struct phys_runs *r)
{
	const struct phys_run *runs = phys_runs_array(r);

	for (size_t i = 0; i < r->n; i++)
		physmem_put_pages(pm, runs[i].pa, runs[i].npages);
	phys_runs_free(r);
}

static int physmem_alloc_contiguous(struct physmem *pm, uint64_t bytes, struct phys_runs *runs)
{
	/* Align big runs so the IOMMU can map them with large pages. */
	uint64_t align = bytes >= SZ_1G ? SZ_1G : bytes >= SZ_2M ? SZ_2M : GPUISO_PAGE_SIZE;
	uint64_t base;
	int err;

	if (bytes > pm->pressure.max_contiguous)
		return -ENOMEM;
	err = range_take(&pm->frames, bytes, align, UINT64_MAX, &base);
	if (err == -ENOSPC && align != GPUISO_PAGE_SIZE)
		err = range_take(&pm->frames, bytes, GPUISO_PAGE_SIZE, UINT64_MAX, &base);
	if (err)
		return err == -ENOSPC ? -ENOMEM : err;
	pm->usage.allocated += bytes;
	return phys_runs_add(runs, base, bytes / GPUISO_PAGE_SIZE);
}

/*
 * Take runs in address order until *@done reaches @want, each at most
 * @max_run, starting each at an @align boundary and a multiple of @align
 * long. With a bound on runs (@bounded), a page is skipped after each full
 * run, so two runs are never physically adjacent: the allocation really is
 * that fragmented. Returns 0 also when memory ran out before @want.
 */
static int physmem_take_runs(struct physmem *pm, struct phys_runs *runs, uint64_t *done,
			     uint64_t want, uint64_t max_run, bool bounded, uint64_t align)
{
	uint64_t cursor = 0;
	size_t i = 0;

	while (*done < want) {
		const struct range_extent *e;
		uint64_t start, end, run;
		int err;

		/* runs go up in address order: the extents before @i end below the cursor */
		while (i < pm->frames.n && pm->frames.ext[i].base + pm->frames.ext[i].size <= cursor)
			i++;
		if (i == pm->frames.n)
			return 0;
		e = &pm->frames.ext[i];
		start = ALIGN_UP(GPUISO_MAX(e->base, cursor), align);
		end = e->base + e->size;
		if (start >= end || end - start < align) {
			cursor = end;
			continue;
		}
		run = GPUISO_MIN(ALIGN_DOWN(end - start, align), (want - *done) * GPUISO_PAGE_SIZE);
		run = GPUISO_MIN(run, max_run);
		err = range_remove_at(&pm->frames, i, start, run);
		if (err)
			return err;
		pm->usage.allocated += run;
		*done += run / GPUISO_PAGE_SIZE;
		err = phys_runs_add(runs, start, run / GPUISO_PAGE_SIZE);
		if (err) {
			physmem_put_pages(pm, start, run / GPUISO_PAGE_SIZE);
			return err;
		}
		cursor = start + run + (bounded && run == max_run ? GPUISO_PAGE_SIZE : 0);
	}
	return 0;
}

/*
 * Runs in address order, each at most max_contiguous. Without that bound,
 * whole 2 MiB blocks come first, from 2 MiB-aligned free stretches: the
 * IOMMU can then use large pages and the simulator's stores share whole
 * chunks; the rest comes from wherever frames are free.
 */
static int physmem_alloc_scattered(struct physmem *pm, uint64_t npages, struct phys_runs *runs)
{
	uint64_t max_run = pm->pressure.max_contiguous, done = 0;
	bool bounded = max_run != UINT64_MAX;
	int err = 0;

	max_run = GPUISO_MAX(ALIGN_DOWN(max_run, GPUISO_PAGE_SIZE), GPUISO_PAGE_SIZE);
	if (pm->frames.free_bytes / GPUISO_PAGE_SIZE < npages)
		return -ENOMEM;
	if (!bounded && npages >= SZ_2M / GPUISO_PAGE_SIZE)
		err = physmem_take_runs(pm, runs, &done, ALIGN_DOWN(npages, SZ_2M / GPUISO_PAGE_SIZE),
					max_run, false, SZ_2M);
	if (!err)
		err = physmem_take_runs(pm, runs, &done, npages, max_run, bounded, GPUISO_PAGE_SIZE);
	if (!err && done < npages)
		err = -ENOMEM;
	return err;
}

int physmem_alloc_runs(struct physmem *pm, uint64_t npages, bool contiguous,
		       struct phys_runs *runs)
{
	int err;

	*runs = (struct phys_runs){ 0 };
	if (!npages)
		return 0;
	if (npages > pm->frames.free_bytes / GPUISO_PAGE_SIZE)
		return -ENOMEM;
	if (contiguous)
		err = physmem_alloc_contiguous(pm, npages * GPUISO_PAGE_SIZE, runs);
	else
		err = physmem_alloc_scattered(pm, npages, runs);
	if (err)
		physmem_put_runs(pm, runs);
	return err;
}

int physmem_alloc(struct physmem *pm, uint64_t npages, bool contiguous, pa_t *pages)
{
	const struct phys_run *run;
	struct phys_runs runs;
	uint64_t done = 0;
	int err;

	err = physmem_alloc_runs(pm, npages, contiguous, &runs);
	if (err)
		return err;
	run = phys_runs_array(&runs);
	for (size_t r = 0; r < runs.n; r++)
		for (uint64_t i = 0; i < run[r].npages; i++)
			pages[done++] = run[r].pa + i * GPUISO_PAGE_SIZE;
	phys_runs_free(&runs);
	return 0;
}

void physmem_free(struct physmem *pm, const pa_t *pages, uint64_t npages)
{
	physmem_put(pm, pages, npages);
}

void physmem_free_run(struct physmem *pm, pa_t pa, uint64_t npages)
{
	if (npages)
		physmem_put_pages(pm, pa, npages);
}

int physmem_hold(struct physmem *pm, pa_t pa, uint64_t npages)
{
	uint64_t end = pa + npages * GPUISO_PAGE_SIZE;
	const struct range_extent *h;

	/* what is held already (a page shared by two mappings) is held once */
	while (pa < end && (h = range_first_overlap(&pm->held, pa, end - pa))) {
		if (h->base > pa && range_add(&pm->held, pa, h->base - pa))
			return -ENOMEM;
		h = range_first_overlap(&pm->held, pa, end - pa); /* the add may have moved it */
		pa = GPUISO_MIN(h->base + h->size, end);
	}
	return pa < end ? range_add(&pm->held, pa, end - pa) : 0;
}

void physmem_unhold(struct physmem *pm, pa_t pa, uint64_t npages)
{
	uint64_t end = pa + npages * GPUISO_PAGE_SIZE;
	const struct range_extent *h;

	while ((h = range_first_overlap(&pm->held, pa, end - pa))) {
		uint64_t from = GPUISO_MAX(h->base, pa), to = GPUISO_MIN(h->base + h->size, end);

		if (range_remove(&pm->held, from, to - from))
			break; /* cannot be: the stretch is inside the extent */
	}
	/* those freed meanwhile join the pool now */
	while ((h = range_first_overlap(&pm->withheld, pa, end - pa))) {
		uint64_t from = GPUISO_MAX(h->base, pa), to = GPUISO_MIN(h->base + h->size, end);

		if (range_remove(&pm->withheld, from, to - from))
			break;
		physmem_put_free(pm, from, (to - from) / GPUISO_PAGE_SIZE);
	}
}

void physmem_set_pressure(struct physmem *pm, const struct physmem_pressure *p)
{
	pm->pressure = *p;
}

bool physmem_is_ram(const struct physmem *pm, pa_t pa, uint64_t len)
{
	uint64_t end = pa + len < pa ? UINT64_MAX : pa + len;

	if (!len)
		return false;
	/* Adjacent RAM ranges of the map count as one. */
	for (size_t i = physmem_ext_find(pm->ram, pm->nram, pa); i < pm->nram && pm->ram[i].base <= pa; i++) {
		pa = pm->ram[i].base + pm->ram[i].size;
		if (pa >= end)
			return true;
	}
	return false;
}

bool physmem_overlaps_ram(const struct physmem *pm, pa_t pa, uint64_t len)
{
	uint64_t end = pa + len < pa ? UINT64_MAX : pa + len;
	size_t i = physmem_ext_find(pm->ram, pm->nram, pa);

	return len && i < pm->nram && pm->ram[i].base < end;
}

/* @pm's digest from its frames' (@frames: free, held, withheld) and its bytes' (@bytes). */
static uint64_t digest_of(const struct physmem *pm, const uint64_t frames[3], uint64_t bytes)
{
	/* usage.resident is not in: it counts the host memory behind the bytes, not the bytes */
	return DIGEST_FOLD(0, pm->commit_limit, pm->lockable_limit, pm->pressure.commit_available,
			   pm->pressure.lockable_available, pm->pressure.max_contiguous,
			   pm->usage.committed, pm->usage.locked, pm->usage.allocated, frames[0],
			   frames[1], frames[2], bytes);
}

uint64_t physmem_digest(struct physmem *pm)
{
	const uint64_t frames[3] = { range_digest(&pm->frames), range_digest(&pm->held),
				     range_digest(&pm->withheld) };

	return digest_of(pm, frames, sparse_state_digest(&pm->bytes));
}

uint64_t physmem_digest_full(const struct physmem *pm)
{
	const uint64_t frames[3] = { range_digest_full(&pm->frames), range_digest_full(&pm->held),
				     range_digest_full(&pm->withheld) };

	return digest_of(pm, frames, sparse_state_digest_full(&pm->bytes));
}
