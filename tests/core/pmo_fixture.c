/* SPDX-License-Identifier: MIT */
#include <criterion/criterion.h>

#include "pmo_fixture.h"

const struct physmem_pressure no_pressure = { UINT64_MAX, UINT64_MAX, UINT64_MAX };

void pmo_defaults(struct fx *fx)
{
	fx_defaults(fx);
	fx->scn.adapters[0].wddm = SCN_WDDM(3, 0);
}

void fill(uint8_t *buf, uint64_t len, uint8_t seed)
{
	for (uint64_t i = 0; i < len; i++)
		buf[i] = (uint8_t)(seed + i / PG * 31 + i * 7);
}

int gpu_write(struct fx *fx, uint32_t dev, unsigned int adapter, core_handle_t h,
	      uint64_t off, const uint8_t *buf, uint64_t len)
{
	struct hw *hw = core_hw(fx->core);

	cr_assert_eq(hw->ops->vram_rw(hw, dev, 0, (void *)buf, len, true), 0);
	return core_dma(fx->core, adapter, 0, h, off, len, true);
}
