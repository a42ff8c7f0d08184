/* SPDX-License-Identifier: MIT */
/*
 * The VFIO backend's domains and their mappings. A domain is the backend's
 * record of its mappings; the I/O address space (ioas.h) holds those of the
 * domain the device is attached to, so an attach takes one domain's out and
 * puts the other's in. Every map and unmap of the address space is a line
 * of the journal (vfio_config.journal).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/array.h"
#include "common/log.h"
#include "common/sparse.h"
#include "vfio_internal.h"

static struct vfio_domain *dom_get(struct vfio *v, uint32_t id)
{
	return id >= 1 && id <= VFIO_MAX_DOMAINS && v->doms[id - 1].used ? &v->doms[id - 1] : NULL;
}

/* --- the I/O address space --- */

/* One line, in one write(): each is one event when the journal is ftrace's trace_marker. */
void vfio_journal_say(struct vfio *v, const char *fmt, ...)
{
	char line[160];
	va_list ap;
	int n;

	if (v->journal < 0)
		return;
	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n > 0 && (size_t)n < sizeof(line) && write(v->journal, line, (size_t)n) != n &&
	    !v->journal_failed) {
		v->journal_failed = true; /* said once: a journal missing lines disagrees with the kernel */
		log_warn("%s: the journal lost a line: %s", v->bdf, strerror(errno));
	}
}

int vfio_space_map(struct vfio *v, iova_t iova, void *vaddr, uint64_t size, unsigned int perm)
{
	int rc = v->ioas->ops->map(v->ioas, iova, vaddr, size, perm);

	vfio_journal_say(v, "gpuiso-vfio map iova=0x%" PRIx64 " size=0x%" PRIx64 " rc=%d\n",
			 (uint64_t)iova, size, rc);
	return rc;
}

int vfio_space_unmap(struct vfio *v, iova_t iova, uint64_t size)
{
	int rc = v->ioas->ops->unmap(v->ioas, iova, size);

	vfio_journal_say(v, "gpuiso-vfio unmap iova=0x%" PRIx64 " size=0x%" PRIx64 " rc=%d\n",
			 (uint64_t)iova, size, rc);
	return rc;
}

static void *vmap_vaddr(struct vfio *v, const struct vfio_map *m)
{
	uint64_t avail;

	/* pinned already: sparse_peek gives the same stable pointer */
	return (void *)sparse_peek(&v->pm->bytes, m->pa, &avail);
}

/* Put a domain's mappings into the address space (or take them out). */
static int space_load(struct vfio *v, struct vfio_domain *d, bool in)
{
	int rc = 0;

	for (size_t i = 0; i < d->n && !rc; i++) {
		const struct vfio_map *m = &d->m[i];

		rc = in ? vfio_space_map(v, m->iova, vmap_vaddr(v, m), m->size, m->perm)
			: vfio_space_unmap(v, m->iova, m->size);
		if (rc && in) {
			while (i--)
				vfio_space_unmap(v, d->m[i].iova, d->m[i].size);
		}
	}
	return rc;
}

/* --- ops: domains and mappings --- */

int vfio_op_domain_alloc(struct hw *hw, uint32_t *domain)
{
	struct vfio *v = to_vfio(hw);

	for (uint32_t i = 0; i < VFIO_MAX_DOMAINS; i++) {
		if (!v->doms[i].used) {
			v->doms[i] = (struct vfio_domain){ .used = true };
			*domain = i + 1;
			return 0;
		}
	}
	return -ENOSPC;
}

static void vmap_release(struct vfio *v, const struct vfio_map *m)
{
	sparse_unpin(&v->pm->bytes, m->pa);
}

int vfio_op_domain_free(struct hw *hw, uint32_t domain)
{
	struct vfio *v = to_vfio(hw);
	struct vfio_domain *d = dom_get(v, domain);

	if (!d)
		return -ENOENT;
	if (v->attached == domain)
		return -EBUSY;
	for (size_t i = 0; i < d->n; i++)
		vmap_release(v, &d->m[i]);
	free(d->m);
	*d = (struct vfio_domain){ 0 };
	return 0;
}

int vfio_op_attach(struct hw *hw, uint32_t dev, uint32_t domain)
{
	struct vfio *v = to_vfio(hw);
	struct vfio_domain *d = dom_get(v, domain), *old = dom_get(v, v->attached);
	int rc;

	if (dev != 0 || !d)
		return -ENOENT;
	if (v->attached == domain)
		return 0;
	if (old)
		space_load(v, old, false);
	rc = space_load(v, d, true);
	if (rc) {
		if (old)
			space_load(v, old, true);
		return rc;
	}
	v->attached = domain;
	return 0;
}

int vfio_op_detach(struct hw *hw, uint32_t dev)
{
	struct vfio *v = to_vfio(hw);
	struct vfio_domain *d = dom_get(v, v->attached);

	if (dev != 0 || !d)
		return -ENOENT;
	space_load(v, d, false);
	v->attached = 0;
	return 0;
}

static bool in_ranges(const struct vfio *v, iova_t iova, uint64_t size)
{
	if (v->engine && iova + size > VFIO_STAGING_IOVA)
		return false; /* the DMA mask, less the driver's bounce page */
	for (size_t i = 0; i < v->ioas->nranges; i++)
		if (iova >= v->ioas->ranges[i].start && iova + size - 1 <= v->ioas->ranges[i].last)
			return true;
	return false;
}

static bool overlaps(const struct vfio_map *m, iova_t iova, uint64_t size)
{
	return m->iova < iova + size && iova < m->iova + m->size;
}

static int vmap_push(struct vfio_domain *d, const struct vfio_map *m)
{
	if (array_reserve(&d->m, &d->cap, d->n, sizeof(*d->m)))
		return -ENOMEM;
	d->m[d->n++] = *m;
	return 0;
}

static void vmap_remove(struct vfio *v, struct vfio_domain *d, size_t i)
{
	vmap_release(v, &d->m[i]);
	d->m[i] = d->m[--d->n];
}

/*
 * One MAP_DMA per piece: a 4 KiB page with HW_MAP_4K (each can be unmapped
 * alone), else the part of a 2 MiB chunk of the store (a mapping VFIO will
 * not cut, like a large page).
 */
int vfio_op_map(struct hw *hw, uint32_t domain, iova_t iova, pa_t pa, uint64_t size,
		unsigned int perm)
{
	struct vfio *v = to_vfio(hw);
	struct vfio_domain *d = dom_get(v, domain);
	uint64_t off = 0;
	int rc = 0;

	if (!d)
		return -ENOENT;
	if (!size || !ALIGNED(iova | pa | size, GPUISO_PAGE_SIZE) || !(perm & HW_PERM_RW) ||
	    (perm & ~(HW_PERM_RW | HW_MAP_4K)))
		return -EINVAL;
	if (!in_ranges(v, iova, size) || pa >= v->pm->bytes.size || size > v->pm->bytes.size - pa)
		return -ERANGE;
	for (size_t i = 0; i < d->n; i++)
		if (overlaps(&d->m[i], iova, size))
			return -EEXIST;
	while (off < size && !rc) {
		uint64_t avail, n = (perm & HW_MAP_4K) ? GPUISO_PAGE_SIZE : size - off;
		struct vfio_map m = { iova + off, pa + off, 0, perm & HW_PERM_RW };
		void *vaddr = sparse_pin(&v->pm->bytes, m.pa, n, &avail);

		if (!vaddr) {
			rc = -ENOMEM;
			break;
		}
		m.size = GPUISO_MIN(n, avail);
		rc = v->attached == domain ? vfio_space_map(v, m.iova, vaddr, m.size, m.perm) : 0;
		if (!rc)
			rc = vmap_push(d, &m);
		if (rc) {
			if (v->attached == domain)
				vfio_space_unmap(v, m.iova, m.size);
			sparse_unpin(&v->pm->bytes, m.pa);
			break;
		}
		off += m.size;
		v->st.pte_writes += m.size / GPUISO_PAGE_SIZE;
	}
	if (rc && off)
		vfio_op_unmap(hw, domain, iova, off);
	return rc;
}

int vfio_op_unmap(struct hw *hw, uint32_t domain, iova_t iova, uint64_t size)
{
	struct vfio *v = to_vfio(hw);
	struct vfio_domain *d = dom_get(v, domain);
	uint64_t covered = 0;

	if (!d)
		return -ENOENT;
	if (!size || !ALIGNED(iova | size, GPUISO_PAGE_SIZE))
		return -EINVAL;
	if (!in_ranges(v, iova, size))
		return -ERANGE;
	for (size_t i = 0; i < d->n; i++) {
		const struct vfio_map *m = &d->m[i];

		if (!overlaps(m, iova, size))
			continue;
		if (m->iova < iova || m->iova + m->size > iova + size)
			return -EINVAL; /* it would cut a mapping */
		covered += m->size;
	}
	if (covered != size)
		return -ENOENT;
	for (size_t i = d->n; i-- > 0;) {
		if (!overlaps(&d->m[i], iova, size))
			continue;
		if (v->attached == domain)
			vfio_space_unmap(v, d->m[i].iova, d->m[i].size);
		v->st.pte_writes += d->m[i].size / GPUISO_PAGE_SIZE;
		vmap_remove(v, d, i);
	}
	return 0;
}

/* VFIO's unmap invalidates the IOTLB itself. */
void vfio_op_flush(struct hw *hw, uint32_t domain, iova_t iova, uint64_t size)
{
	(void)hw;
	(void)domain;
	(void)iova;
	(void)size;
}

/* Whether the attached domain lets the device at [iova, +len) that way. */
bool vfio_reachable(struct vfio *v, iova_t page, bool write)
{
	struct vfio_domain *d = dom_get(v, v->attached);

	for (size_t i = 0; d && i < d->n; i++)
		if (overlaps(&d->m[i], page, GPUISO_PAGE_SIZE))
			return d->m[i].perm & (write ? HW_PERM_WRITE : HW_PERM_READ);
	return false;
}
