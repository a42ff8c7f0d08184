/* SPDX-License-Identifier: MIT */
#include <criterion/criterion.h>
#include <errno.h>

#include "fixture.h"

#define PG 4096u

static uint64_t digest_of(struct fx *fx)
{
	uint64_t d = 0;

	cr_assert_eq(core_state_digest(fx->core, &d), 0);
	return d;
}

/* Three MDLs, freed in the order @order gives, then one more: its handle goes to *@last. */
static void churn(struct fx *fx, const int order[3], core_handle_t *last)
{
	core_handle_t h[3];

	for (int i = 0; i < 3; i++)
		cr_assert_eq(core_alloc_mdl(fx->core, 0, (i + 1) * PG, &h[i]), 0);
	for (int i = 0; i < 3; i++)
		cr_assert_eq(core_free_mdl(fx->core, 0, h[order[i]]), 0);
	cr_assert_eq(core_alloc_mdl(fx->core, 0, 2 * PG, last), 0);
}

Test(digest, equal_states_reached_by_different_paths_digest_alike)
{
	static const int forward[3] = { 0, 1, 2 }, backward[3] = { 2, 1, 0 };
	struct fx a, b;
	core_handle_t ha, hb, extra;

	fx_defaults(&a);
	fx_start(&a);
	fx_defaults(&b);
	fx_start(&b);
	cr_assert_eq(digest_of(&a), digest_of(&b), "two fresh models");
	churn(&a, forward, &ha);
	churn(&b, backward, &hb);
	/* the lowest free slot, whatever order the others were freed in */
	cr_assert_eq(ha, hb, "handles 0x%x and 0x%x", ha, hb);
	cr_assert_eq(digest_of(&a), digest_of(&b));
	/* one MDL more: the states differ, then agree again once it is gone */
	cr_assert_eq(core_alloc_mdl(a.core, 0, PG, &extra), 0);
	cr_assert_neq(digest_of(&a), digest_of(&b));
	cr_assert_eq(core_free_mdl(a.core, 0, extra), 0);
	cr_assert_eq(digest_of(&a), digest_of(&b));
	/* the same pages with other bytes are another state */
	cr_assert_eq(core_view_rw(a.core, ha, 0, &(uint8_t){ 7 }, 1, true), 0);
	cr_assert_neq(digest_of(&a), digest_of(&b));
	fx_fini(&a);
	fx_fini(&b);
}

static int no_power(struct core *c, void *kmd, unsigned int adapter, unsigned int phys,
		    enum power_state state)
{
	(void)c, (void)kmd, (void)adapter, (void)phys, (void)state;
	return 0;
}

Test(digest, a_kmd_of_the_callers_is_out_of_sight)
{
	const struct kmd_ops ops = { .set_power_state = no_power };
	struct fx fx;
	uint64_t d;

	fx_defaults(&fx);
	fx_start_kmd(&fx, &ops, NULL);
	cr_assert_eq(core_state_digest(fx.core, &d), -EOPNOTSUPP);
	fx_fini(&fx);
}

/* The save size the driver will answer is state: runs that differ in it have not met. */
Test(digest, the_drivers_save_size_is_part_of_the_state)
{
	struct fx a, b;

	fx_defaults(&a);
	fx_start(&a);
	fx_defaults(&b);
	fx_start(&b);
	cr_assert_eq(core_fb_save_size(b.core, 0, 0, 16 * PG), 0);
	cr_assert_neq(digest_of(&a), digest_of(&b));
	cr_assert_eq(core_fb_save_size(a.core, 0, 0, 16 * PG), 0);
	cr_assert_eq(digest_of(&a), digest_of(&b));
	fx_fini(&a);
	fx_fini(&b);
}
