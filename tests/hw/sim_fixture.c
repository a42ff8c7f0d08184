/* SPDX-License-Identifier: MIT */
#include <criterion/criterion.h>

#include "sim_fixture.h"

static const struct range_extent ram[] = { { 0, 4 * SZ_1G } };

const uint64_t vram[] = { 64 * MiB, 64 * MiB };

struct physmem pm;
struct hw *hw;
const struct hw_ops *ops;

void pm_setup(void)
{
	struct physmem_config cfg = {
		.ram = ram, .nram = 1, .commit_limit = 4 * SZ_1G, .lockable_limit = 4 * SZ_1G,
	};

	cr_assert_eq(physmem_init(&pm, &cfg), 0);
}

struct hw *sim_open(unsigned int iotlb_entries)
{
	struct sim_config cfg = {
		.pm = &pm, .ndevs = 2, .vram_bytes = vram, .iotlb_entries = iotlb_entries,
	};
	struct hw *h;

	sim_cost_default(HW_MODEL_VTD, &cfg.cost);
	cr_assert_eq(sim_create(&cfg, &h), 0);
	return h;
}

void setup(void)
{
	pm_setup();
	hw = sim_open(0);
	ops = hw->ops;
}

void teardown(void)
{
	ops->destroy(hw);
	physmem_fini(&pm);
}

struct hw_stats stats(void)
{
	struct hw_stats st;

	ops->stats(hw, &st);
	return st;
}

uint32_t attached_domain(void)
{
	uint32_t d;

	cr_assert_eq(ops->domain_alloc(hw, &d), 0);
	cr_assert_eq(ops->attach(hw, 0, d), 0);
	return d;
}

int read_byte(iova_t iova, uint8_t *b)
{
	return ops->dma(hw, 0, iova, b, 1, false);
}

int byte_at(iova_t iova)
{
	uint8_t b;

	return read_byte(iova, &b) ? -1 : b;
}

void mark_pages(pa_t pa, uint64_t size)
{
	for (uint64_t off = 0; off < size; off += GPUISO_PAGE_SIZE) {
		uint8_t v = (uint8_t)MARK(pa + off);

		cr_assert_eq(sparse_write(&pm.bytes, pa + off, &v, 1), 0);
	}
}
