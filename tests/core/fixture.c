/* SPDX-License-Identifier: MIT */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"

void fx_defaults(struct fx *fx)
{
	memset(fx, 0, sizeof(*fx));
	cr_assert_eq(scenario_defaults(&fx->scn), 0);
}

void fx_load(struct fx *fx, const char *relpath)
{
	const char *root = getenv("GPUISO_SOURCE_ROOT");
	char path[4096], err[4096] = "";

	memset(fx, 0, sizeof(*fx));
	snprintf(path, sizeof(path), "%s/%s", root ? root : ".", relpath);
	cr_assert_eq(scenario_load(path, &fx->scn, err, sizeof(err)), 0, "%s", err);
}

static void copy_phys(struct scn_phys *dst, const struct scn_phys *src)
{
	*dst = *src;
	dst->reserved = NULL;
	if (src->nreserved) {
		dst->reserved = calloc(src->nreserved, sizeof(*dst->reserved));
		cr_assert_not_null(dst->reserved);
		memcpy(dst->reserved, src->reserved, src->nreserved * sizeof(*dst->reserved));
	}
}

void fx_set_phys(struct fx *fx, size_t a, size_t n)
{
	struct scn_adapter *ad = &fx->scn.adapters[a];

	for (size_t i = n; i < ad->nphys; i++)
		free(ad->phys[i].reserved);
	ad->phys = realloc(ad->phys, n * sizeof(*ad->phys));
	cr_assert_not_null(ad->phys);
	for (size_t i = ad->nphys; i < n; i++) {
		copy_phys(&ad->phys[i], &ad->phys[0]);
		/* each device reserves its own range, next to the previous one */
		for (size_t r = 0; r < ad->phys[i].nreserved; r++)
			ad->phys[i].reserved[r].base += i * 0x2000000ull;
	}
	ad->nphys = n;
}

size_t fx_add_adapter(struct fx *fx, const char *name)
{
	struct scenario *s = &fx->scn;
	struct scn_adapter *ad;
	size_t i = s->nadapters;

	s->adapters = realloc(s->adapters, (i + 1) * sizeof(*s->adapters));
	cr_assert_not_null(s->adapters);
	ad = &s->adapters[i];
	*ad = s->adapters[0];
	ad->name = strdup(name);
	ad->phys = calloc(ad->nphys, sizeof(*ad->phys));
	cr_assert(ad->name && ad->phys);
	for (size_t p = 0; p < ad->nphys; p++) {
		copy_phys(&ad->phys[p], &s->adapters[0].phys[p]);
		for (size_t r = 0; r < ad->phys[p].nreserved; r++)
			ad->phys[p].reserved[r].base += 0x10000000ull * i;
	}
	s->nadapters++;
	return i;
}

void fx_remap_capable(struct fx *fx, size_t a)
{
	struct scn_adapter *ad = &fx->scn.adapters[a];

	ad->wddm = SCN_WDDM(3, 0);
	ad->caps.iommu_linear_remap = true;
	ad->caps.dma_remapping_compatible = 3;
	ad->caps.has_physical_caps = true;
	ad->caps.highest_visible_address = 0xFFFFFFFFFFull; /* 1 TiB: all of memory */
}

void fx_need_remap(struct fx *fx, size_t a)
{
	/* 64 GiB installed, reaching 0x107FFFFFFF; a 32-bit device sees 4 GiB. */
	fx_remap_capable(fx, a);
	fx->scn.adapters[a].caps.highest_visible_address = 0xFFFFFFFFull;
}

void fx_create(struct fx *fx)
{
	static const struct hw_backend_name sim = { .kind = HW_BACKEND_SIM };
	struct hw_machine m;
	uint64_t *vram;
	char err[256] = "";

	cr_assert_eq(scenario_machine(&fx->scn, &m, &vram), 0);
	cr_assert_eq(hw_backend_open(&sim, &m, &fx->scn.settings, &fx->be, err, sizeof(err)), 0,
		     "%s", err);
	free(vram);
	cr_assert_eq(core_create(&fx->scn, &fx->be, &fx->core), 0);
}

void fx_start_kmd(struct fx *fx, const struct kmd_ops *ops, void *kmd)
{
	fx_create(fx);
	if (ops)
		core_set_kmd(fx->core, ops, kmd);
	cr_assert_eq(core_start(fx->core), 0);
}

void fx_start(struct fx *fx)
{
	fx_start_kmd(fx, NULL, NULL);
}

void fx_fini(struct fx *fx)
{
	core_destroy(fx->core);
	fx->core = NULL;
	hw_backend_close(&fx->be);
	scenario_free(&fx->scn);
}

size_t fx_violations(struct fx *fx, enum core_violation_code code)
{
	const struct core_violation *v;
	size_t n, count = 0;

	v = core_violations(fx->core, &n);
	for (size_t i = 0; i < n; i++)
		count += v[i].code == code;
	return count;
}

const char *fx_violation_text(struct fx *fx)
{
	static char text[8192];
	const struct core_violation *v;
	size_t n, len = 0;

	text[0] = '\0';
	v = core_violations(fx->core, &n);
	for (size_t i = 0; i < n && len < sizeof(text) - 1; i++)
		len += (size_t)snprintf(text + len, sizeof(text) - len, "%s: %s\n",
					core_violation_name(v[i].code), v[i].detail);
	return text;
}

size_t fx_faults(struct fx *fx)
{
	size_t n;

	core_faults(fx->core, &n);
	return n;
}

struct core_adapter_info fx_info(struct fx *fx, unsigned int adapter)
{
	struct core_adapter_info info;

	cr_assert_eq(core_adapter_info(fx->core, adapter, &info), 0);
	return info;
}

static uint32_t dev_of(struct fx *fx, unsigned int adapter, unsigned int phys)
{
	uint32_t dev = 0;

	for (unsigned int a = 0; a < adapter; a++)
		dev += (uint32_t)fx->scn.adapters[a].nphys;
	return dev + phys;
}

int fx_dma_write(struct fx *fx, unsigned int adapter, unsigned int phys, core_handle_t h,
		 uint64_t off, uint64_t len, uint8_t byte)
{
	struct hw *hw = core_hw(fx->core);
	uint8_t *buf = malloc(len);
	int rc;

	cr_assert_not_null(buf);
	memset(buf, byte, len);
	cr_assert_eq(hw->ops->vram_rw(hw, dev_of(fx, adapter, phys), 0, buf, len, true), 0);
	free(buf);
	rc = core_dma(fx->core, adapter, phys, h, off, len, true);
	return rc;
}

int fx_dma_read(struct fx *fx, unsigned int adapter, unsigned int phys, core_handle_t h,
		uint64_t off, uint64_t len, uint8_t *out)
{
	struct hw *hw = core_hw(fx->core);
	int rc = core_dma(fx->core, adapter, phys, h, off, len, false);

	if (!rc)
		cr_assert_eq(hw->ops->vram_rw(hw, dev_of(fx, adapter, phys), 0, out, len, false), 0);
	return rc;
}

void fx_assert_no_violations(struct fx *fx)
{
	size_t n;

	core_violations(fx->core, &n);
	cr_assert_eq(n, 0, "unexpected violations:\n%s", fx_violation_text(fx));
}

void fx_assert_usage_eq(struct physmem_usage a, struct physmem_usage b, const char *when)
{
	cr_assert_eq(a.committed, b.committed, "%s: committed %llu, expected %llu", when,
		     (unsigned long long)a.committed, (unsigned long long)b.committed);
	cr_assert_eq(a.locked, b.locked, "%s: locked %llu, expected %llu", when,
		     (unsigned long long)a.locked, (unsigned long long)b.locked);
	cr_assert_eq(a.allocated, b.allocated, "%s: allocated %llu, expected %llu", when,
		     (unsigned long long)a.allocated, (unsigned long long)b.allocated);
}

iova_t fx_iova_of(struct fx *fx, core_handle_t h, uint64_t off)
{
	iova_t iova = 0;

	cr_assert_eq(core_handle_iova(fx->core, h, off, &iova), 0, "core_handle_iova(0x%x, %llu)",
		     h, (unsigned long long)off);
	return iova;
}

void fx_pressure(struct fx *fx, uint64_t commit, uint64_t lock, uint64_t contig)
{
	struct physmem_pressure p = { commit, lock, contig };

	core_memory(fx->core, &p);
}

struct physmem_usage fx_usage(struct fx *fx)
{
	return core_physmem(fx->core)->usage;
}

int fx_raw_dma(struct fx *fx, uint32_t dev, iova_t iova, void *buf, uint64_t len, bool write,
	       uint8_t *reason)
{
	struct hw *hw = core_hw(fx->core);
	struct hw_fault f;
	int rc;

	while (!hw->ops->fault_pop(hw, &f))
		;
	*reason = 0;
	rc = hw->ops->dma(hw, dev, iova, buf, len, write);
	if (rc == -EFAULT) {
		cr_assert_eq(hw->ops->fault_pop(hw, &f), 0, "a blocked DMA queues a fault");
		cr_assert_eq(f.dev, dev);
		cr_assert_eq(f.iova, ALIGN_DOWN(iova, GPUISO_PAGE_SIZE), "fault at %#llx, DMA at %#llx",
			     (unsigned long long)f.iova, (unsigned long long)iova);
		cr_assert_eq(f.write, write);
		*reason = f.reason;
	}
	return rc;
}

int fx_probe_write(struct fx *fx, uint32_t dev, iova_t iova, uint8_t *reason)
{
	uint8_t buf[64];

	memset(buf, 0xEE, sizeof(buf));
	return fx_raw_dma(fx, dev, iova, buf, sizeof(buf), true, reason);
}

int fx_probe_read(struct fx *fx, uint32_t dev, iova_t iova, uint8_t *reason)
{
	uint8_t buf[64];

	return fx_raw_dma(fx, dev, iova, buf, sizeof(buf), false, reason);
}

void fx_assert_blocked(struct fx *fx, uint32_t dev, iova_t iova, const char *what)
{
	uint8_t reason;

	cr_assert_eq(fx_probe_write(fx, dev, iova, &reason), -EFAULT,
		     "%s: device %u wrote %#llx, the IOMMU should block it", what, dev,
		     (unsigned long long)iova);
	cr_assert_eq(reason, HW_FAULT_NO_WRITE, "%s: fault reason %#x", what, reason);
}

void fx_assert_reachable(struct fx *fx, uint32_t dev, iova_t iova, const char *what)
{
	uint8_t reason;

	cr_assert_eq(fx_probe_write(fx, dev, iova, &reason), 0,
		     "%s: device %u could not write %#llx (fault reason %#x)", what, dev,
		     (unsigned long long)iova, reason);
}
