/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>

#include "sim_internal.h"

/*
 * The simulated IOMMU: backend lifetime, domains and attachment, the fault
 * queue and the counters. Page tables live in pt.c, the IOTLB in iotlb.c,
 * the DMA engine in dma.c and the GPUs in gpu.c.
 */

/* Map, then tell the IOTLB of the large leaves just written (it caches them whole). */
static int sim_op_map(struct hw *hw, uint32_t domain, iova_t iova, pa_t pa, uint64_t size,
		      unsigned int perm)
{
	struct sim *s = to_sim(hw);
	struct sim_domain *d = sim_dom(s, domain);
	bool large = false;
	int rc = sim_pt_map(s, d, iova, pa, size, perm, &large);

	if (!rc && large)
		sim_iotlb_large_mapped(s, domain, d, iova, size);
	if (!rc && s->model == HW_MODEL_VIRTIO)
		s->st.requests++;
	return rc;
}

/*
 * Unmap. Behind virtio-iommu the unmap is a request the host serves whole:
 * the range is invalidated with it, and no stale entry outlives it.
 */
static int sim_op_unmap_request(struct hw *hw, uint32_t domain, iova_t iova, uint64_t size)
{
	struct sim *s = to_sim(hw);
	int rc = sim_op_unmap(hw, domain, iova, size);

	if (!rc && s->model == HW_MODEL_VIRTIO) {
		s->st.requests++;
		sim_iotlb_invalidate(s, domain, iova, size);
	}
	return rc;
}

static int sim_op_fault_pop(struct hw *hw, struct hw_fault *fault)
{
	struct sim *s = to_sim(hw);

	if (!s->fault_count)
		return -ENOENT;
	*fault = s->faults[s->fault_head];
	s->fault_head = (s->fault_head + 1) % SIM_FAULTS;
	s->fault_count--;
	return 0;
}

static void sim_op_query_caps(struct hw *hw, struct hw_caps *caps)
{
	*caps = (struct hw_caps){
		.name = "sim",
		.pgsize_bitmap = GPUISO_PAGE_SIZE | SZ_2M | SZ_1G,
		.iova_bits = SIM_IOVA_BITS,
		.ndevs = to_sim(hw)->ndevs,
		.passthrough = true,
		.dma_bits = 64,
		.model = to_sim(hw)->model,
	};
}

static void sim_op_stats(struct hw *hw, struct hw_stats *stats)
{
	struct sim *s = to_sim(hw);

	*stats = s->st;
	stats->modeled_ns = sim_cost_ns(&s->cost, &s->st);
}

/*
 * sim_cost_ns() of the counters as they stand, without their copy and,
 * for a clock that divides 1 GHz and a power-of-two bandwidth (the
 * defaults), without a division: the same figure.
 */
static uint64_t sim_op_modeled_ns(struct hw *hw)
{
	struct sim *s = to_sim(hw);
	const struct sim_cost_model *cost = &s->cost;
	const struct hw_stats *st = &s->st;
	uint64_t cycles = st->pte_writes * cost->pte_write + st->pt_walk_levels * cost->pt_walk_level +
			  st->iotlb_hits * cost->iotlb_hit + st->iotlb_misses * cost->iotlb_miss +
			  st->iotlb_invalidations * cost->iotlb_invalidate +
			  st->dma_transfers * cost->dma_setup + st->requests * cost->request;

	if (s->bytes_shift >= 0)
		cycles += st->dma_bytes >> s->bytes_shift;
	else if (cost->bytes_per_cycle)
		cycles += st->dma_bytes / cost->bytes_per_cycle;
	return s->ns_per_cycle ? cycles * s->ns_per_cycle : cycles * 1000 / cost->clock_mhz;
}

static int sim_op_domain_alloc(struct hw *hw, uint32_t *domain)
{
	struct sim *s = to_sim(hw);
	size_t i;
	int err;

	/* Ids of freed domains are reused: their IOTLB entries went with them. */
	for (i = 0; i < s->ndoms && s->doms[i].root; i++)
		;
	if (i == s->ndoms) {
		size_t n = s->ndoms ? s->ndoms * 2 : 8;
		struct sim_domain *doms;

		if (n > UINT32_MAX)
			return -ENOSPC;
		doms = realloc(s->doms, n * sizeof(*doms));
		if (!doms)
			return -ENOMEM;
		for (size_t j = s->ndoms; j < n; j++)
			doms[j] = (struct sim_domain){ 0 };
		s->doms = doms;
		s->ndoms = n;
	}
	err = sim_pt_init(&s->doms[i]);
	if (err)
		return err;
	*domain = (uint32_t)(i + 1);
	return 0;
}

static int sim_op_domain_free(struct hw *hw, uint32_t domain)
{
	struct sim *s = to_sim(hw);
	struct sim_domain *d = sim_dom(s, domain);

	if (!d)
		return -ENOENT;
	if (d->users)
		return -EBUSY;
	sim_iotlb_drop_domain(s, domain);
	sim_pt_fini(d);
	return 0;
}

static int sim_op_attach(struct hw *hw, uint32_t dev, uint32_t domain)
{
	struct sim *s = to_sim(hw);
	struct sim_domain *d = sim_dom(s, domain);
	struct sim_dev *dv;

	if (dev >= s->ndevs || !d)
		return -ENOENT;
	dv = &s->devs[dev];
	/* IOTLB entries are tagged by domain: switching needs no flush to be safe. */
	if (dv->domain)
		sim_dom(s, dv->domain)->users--;
	dv->domain = domain;
	d->users++;
	return 0;
}

static int sim_op_detach(struct hw *hw, uint32_t dev)
{
	struct sim *s = to_sim(hw);
	struct sim_dev *dv;

	if (dev >= s->ndevs || !s->devs[dev].domain)
		return -ENOENT;
	dv = &s->devs[dev];
	sim_dom(s, dv->domain)->users--;
	dv->domain = 0;
	return 0;
}

static void sim_op_destroy(struct hw *hw)
{
	struct sim *s = to_sim(hw);

	for (size_t i = 0; i < s->ndoms; i++)
		sim_pt_fini(&s->doms[i]);
	free(s->doms);
	for (unsigned int i = 0; i < s->ndevs; i++)
		sim_gpu_fini(&s->devs[i]);
	free(s->devs);
	sim_iotlb_fini(s);
	free(s->runs);
	free(s);
}

static const struct hw_ops sim_ops = {
	.destroy = sim_op_destroy,
	.query_caps = sim_op_query_caps,
	.domain_alloc = sim_op_domain_alloc,
	.domain_free = sim_op_domain_free,
	.attach = sim_op_attach,
	.detach = sim_op_detach,
	.map = sim_op_map,
	.unmap = sim_op_unmap_request,
	.flush = sim_op_flush,
	.dma = sim_op_dma,
	.fault_pop = sim_op_fault_pop,
	.stats = sim_op_stats,
	.modeled_ns = sim_op_modeled_ns,
	.state_digest = sim_op_state_digest,
	.state_digest_full = sim_op_state_digest_full,
	.vram_size = sim_op_vram_size,
	.vram_rw = sim_op_vram_rw,
	.vram_fill = sim_op_vram_fill,
	.vram_digest = sim_op_vram_digest,
	.power = sim_op_power,
	.gpu_submit = sim_op_gpu_submit,
	.gpu_wait = sim_op_gpu_wait,
	.gpu_pending = sim_op_gpu_pending,
};

static bool sim_config_ok(const struct sim_config *cfg)
{
	if (!cfg || !cfg->pm || !cfg->pm->bytes.size || cfg->ndevs > SIM_MAX_DEVS)
		return false;
	if (cfg->ndevs && !cfg->vram_bytes)
		return false;
	if (cfg->iotlb_entries > SIM_IOTLB_MAX || (unsigned int)cfg->model >= HW_MODEL_N)
		return false;
	for (unsigned int i = 0; i < cfg->ndevs; i++) {
		uint64_t v = cfg->vram_bytes[i];

		if (!ALIGNED(v, GPUISO_PAGE_SIZE) || v > SIM_MAX_VRAM)
			return false;
	}
	return true;
}

int sim_create(const struct sim_config *cfg, struct hw **out)
{
	struct sim *s;
	unsigned int i;
	int err;

	if (!sim_config_ok(cfg))
		return -EINVAL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->hw.ops = &sim_ops;
	s->pm = cfg->pm;
	s->cost = cfg->cost;
	s->model = cfg->model;
	s->ndevs = cfg->ndevs;
	/* sim_cost_ns(): a clock of 0 counts cycles as ns */
	if (!s->cost.clock_mhz || 1000 % s->cost.clock_mhz == 0)
		s->ns_per_cycle = s->cost.clock_mhz ? 1000 / s->cost.clock_mhz : 1;
	s->bytes_shift = -1;
	if (s->cost.bytes_per_cycle && !(s->cost.bytes_per_cycle & (s->cost.bytes_per_cycle - 1)))
		s->bytes_shift = __builtin_ctz(s->cost.bytes_per_cycle);

	err = sim_iotlb_init(s, cfg->iotlb_entries);
	if (err)
		goto free_sim;
	err = -ENOMEM;
	s->devs = calloc(GPUISO_MAX(cfg->ndevs, 1u), sizeof(*s->devs));
	if (!s->devs)
		goto fini_iotlb;
	for (i = 0; i < cfg->ndevs; i++) {
		err = sim_gpu_init(&s->devs[i], cfg->vram_bytes[i]);
		if (err)
			goto fini_gpus;
	}
	*out = &s->hw;
	return 0;

fini_gpus:
	while (i--)
		sim_gpu_fini(&s->devs[i]);
	free(s->devs);
fini_iotlb:
	sim_iotlb_fini(s);
free_sim:
	free(s);
	return err;
}
