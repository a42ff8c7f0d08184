/* SPDX-License-Identifier: MIT */
/*
 * core/domain.c from the inside: states no caller of core/core.h can
 * reach, which the model must report loudly, never hide.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "core/internal.h"
#include "fixture.h"

/* An identity reference dropped twice: an internal error with its event, not a clamp. */
Test(domain, a_reference_count_below_zero_is_a_loud_internal_error)
{
	const struct core_violation *first;
	struct hobj *o;
	core_handle_t mdl;
	struct fx fx;

	fx_defaults(&fx);
	fx_start(&fx);
	cr_assert_eq(core_internal_errors(fx.core, &first), 0);
	cr_assert_null(first);
	cr_assert_eq(core_alloc_mdl(fx.core, 0, 2 * 4096, &mdl), 0);
	o = handle_peek(fx.core, mdl);
	cr_assert_not_null(o);
	cr_assert(o->map.mapped);
	core_set_event(fx.core, 17, 4242, NULL);
	dom_unmap(fx.core, &fx.core->adapters[0], &o->pg, &o->map);
	cr_assert_eq(core_internal_errors(fx.core, &first), 0, "the first unmap is sound");
	o->map.mapped = true; /* the impossible state: unmapped once more */
	dom_unmap(fx.core, &fx.core->adapters[0], &o->pg, &o->map);
	cr_assert_eq(core_internal_errors(fx.core, &first), 1);
	cr_assert_eq(first->event, 17);
	cr_assert_eq(first->ts_ns, 4242);
	cr_assert(strstr(first->detail, "2 frames had no identity mapping reference"), "%s",
		  first->detail);
	cr_assert_eq(core_free_mdl(fx.core, 0, mdl), 0);
	fx_fini(&fx);
}
