/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "handle_internal.h"
#include "internal.h"

/*
 * The pages behind a handle: committed, allocated and locked from system
 * memory (physmem), sliced, and read, written and copied by the CPU.
 */

int pages_lock(struct core *c, struct pages *pg, uint64_t bytes)
{
	int rc;

	if (fp_should_fail_bytes(c->fp, FP_MEM_LOCK, bytes))
		return -ENOMEM;
	rc = physmem_lock(c->pm, bytes);
	if (rc)
		return rc;
	pg->locked += bytes;
	return 0;
}

void pages_unlock(struct core *c, struct pages *pg)
{
	if (pg->locked)
		physmem_unlock(c->pm, pg->locked);
	pg->locked = 0;
}

int pages_alloc(struct core *c, struct pages *pg, uint64_t bytes, unsigned int flags)
{
	uint64_t n = ALIGN_UP(bytes, GPUISO_PAGE_SIZE) / GPUISO_PAGE_SIZE;
	int rc;

	if (!n)
		return -EINVAL;
	if (!(flags & PG_CHARGED)) {
		if (fp_should_fail_bytes(c->fp, FP_MEM_COMMIT, n * GPUISO_PAGE_SIZE))
			return -ENOMEM;
		rc = physmem_commit(c->pm, n * GPUISO_PAGE_SIZE);
		if (rc)
			return rc;
		pg->committed = n * GPUISO_PAGE_SIZE;
	}
	if (flags & PG_LOCK) {
		rc = pages_lock(c, pg, n * GPUISO_PAGE_SIZE);
		if (rc)
			goto uncommit;
	}
	rc = physmem_alloc_runs(c->pm, n, flags & PG_CONTIGUOUS, &pg->runs);
	if (rc)
		goto unlock;
	pg->npages = n;
	pg->owned = true;
	return 0;

unlock:
	pages_unlock(c, pg);
uncommit:
	if (pg->committed)
		physmem_uncommit(c->pm, pg->committed);
	pg->committed = 0;
	return rc;
}

void pages_free(struct core *c, struct pages *pg)
{
	const struct phys_run *runs = pg_runs(pg);

	if (pg->owned) {
		for (size_t r = 0; r < pg->runs.n; r++)
			physmem_free_run(c->pm, runs[r].pa, runs[r].npages);
	}
	pages_unlock(c, pg);
	if (pg->committed)
		physmem_uncommit(c->pm, pg->committed);
	phys_runs_free(&pg->runs);
	memset(pg, 0, sizeof(*pg));
}

int pages_slice(const struct pages *src, uint64_t offset, uint64_t bytes, struct pages *dst)
{
	const struct phys_run *runs = pg_runs(src);
	uint64_t first = offset / GPUISO_PAGE_SIZE,
		 n = ALIGN_UP(bytes, GPUISO_PAGE_SIZE) / GPUISO_PAGE_SIZE;
	uint64_t skip = first, left = n;

	if (offset % GPUISO_PAGE_SIZE || !n || first + n > src->npages)
		return -ERANGE;
	memset(dst, 0, sizeof(*dst));
	for (size_t r = 0; r < src->runs.n && left; r++) {
		uint64_t take;

		if (skip >= runs[r].npages) {
			skip -= runs[r].npages;
			continue;
		}
		take = GPUISO_MIN(runs[r].npages - skip, left);
		if (phys_runs_add(&dst->runs, runs[r].pa + skip * GPUISO_PAGE_SIZE, take)) {
			phys_runs_free(&dst->runs);
			return -ENOMEM;
		}
		left -= take;
		skip = 0;
	}
	dst->npages = n;
	return 0;
}

pa_t pages_pa(const struct pages *pg, uint64_t offset)
{
	const struct phys_run *runs = pg_runs(pg);
	uint64_t page = offset / GPUISO_PAGE_SIZE;

	for (size_t r = 0; r < pg->runs.n; r++) {
		if (page < runs[r].npages)
			return runs[r].pa + page * GPUISO_PAGE_SIZE + offset % GPUISO_PAGE_SIZE;
		page -= runs[r].npages;
	}
	return (pa_t)-1;
}

/* Byte-run iteration shared by pages_rw() and pages_copy(): physical address and run length at @off. */
static pa_t pages_at(const struct pages *pg, uint64_t off, uint64_t *len)
{
	const struct phys_run *runs = pg_runs(pg);

	for (size_t r = 0; r < pg->runs.n; r++) {
		uint64_t run_bytes = runs[r].npages * GPUISO_PAGE_SIZE;

		if (off < run_bytes) {
			*len = run_bytes - off;
			return runs[r].pa + off;
		}
		off -= run_bytes;
	}
	*len = 0;
	return 0;
}

int pages_rw(struct core *c, const struct pages *pg, uint64_t offset, void *buf, uint64_t len,
	     bool write)
{
	uint8_t *p = buf;

	if (offset + len < offset || offset + len > pg->npages * GPUISO_PAGE_SIZE)
		return -ERANGE;
	while (len) {
		uint64_t run_len;
		pa_t pa = pages_at(pg, offset, &run_len);
		uint64_t n = GPUISO_MIN(run_len, len);
		int rc = write ? sparse_write(&c->pm->bytes, pa, p, n)
			       : sparse_read(&c->pm->bytes, pa, p, n);

		if (rc)
			return rc;
		p += n;
		offset += n;
		len -= n;
	}
	return 0;
}

int pages_copy(struct core *c, const struct pages *dst, uint64_t dst_off,
	       const struct pages *src, uint64_t src_off, uint64_t len, bool stream)
{
	if (dst_off + len < dst_off || dst_off + len > dst->npages * GPUISO_PAGE_SIZE ||
	    src_off + len < src_off || src_off + len > src->npages * GPUISO_PAGE_SIZE)
		return -ERANGE;
	while (len) {
		uint64_t dlen, slen, n;
		pa_t dpa = pages_at(dst, dst_off, &dlen), spa = pages_at(src, src_off, &slen);
		int rc;

		n = GPUISO_MIN(GPUISO_MIN(dlen, slen), len);
		rc = sparse_copy(&c->pm->bytes, dpa, &c->pm->bytes, spa, n, stream);
		if (rc)
			return rc;
		dst_off += n;
		src_off += n;
		len -= n;
	}
	return 0;
}
