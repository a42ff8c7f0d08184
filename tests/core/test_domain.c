/* SPDX-License-Identifier: MIT */
/*
 * core/domain.c from the inside: states no caller of core/core.h can
 * reach, which the model must report loudly, never hide.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "core/domain_internal.h"
#include "core/handle_internal.h"
#include "core/idmap.h"
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
	/* and the backend's refusal to unmap what is not mapped (core/hwcall.c): two */
	cr_assert_eq(core_internal_errors(fx.core, &first), 2);
	cr_assert_eq(first->event, 17);
	cr_assert_eq(first->ts_ns, 4242);
	cr_assert(strstr(first->detail, "2 frames had no identity mapping reference"), "%s",
		  first->detail);
	cr_assert_eq(core_free_mdl(fx.core, 0, mdl), 0);
	fx_fini(&fx);
}

/*
 * An unmap the IOMMU refuses leaves the device able to reach the frames:
 * freed, they must not be given to anyone else until the domain is gone.
 */
Test(domain, frames_a_refused_unmap_left_mapped_are_not_reused_until_teardown)
{
	struct fp_ctx fp = { 0 };
	const struct physmem *pm;
	core_handle_t mdl, again;
	struct hobj *o;
	uint64_t free0;
	pa_t pa;
	struct fx fx;

	fx_defaults(&fx);
	fx_start(&fx);
	core_set_faults(fx.core, &fp);
	pm = core_physmem(fx.core);
	free0 = pm->frames.free_bytes;
	cr_assert_eq(core_alloc_mdl(fx.core, 0, 4096, &mdl), 0);
	o = handle_peek(fx.core, mdl);
	cr_assert_not_null(o);
	pa = pages_pa(&o->pg, 0);
	fp_arm(&fp, FP_IOMMU_UNMAP, &(struct fp_rule){ .nth = 1 });
	cr_assert_eq(core_free_mdl(fx.core, 0, mdl), 0);
	/* not back in the pool: held, withheld */
	cr_assert_eq(pm->frames.free_bytes, free0 - 4096);
	cr_assert(range_contains(&pm->withheld, pa, 4096));
	cr_assert_not(range_contains(&pm->frames, pa, 4096));
	/* the next allocation of the same size gets another frame */
	cr_assert_eq(core_alloc_mdl(fx.core, 0, 4096, &again), 0);
	o = handle_peek(fx.core, again);
	cr_assert_not_null(o);
	cr_assert_neq(pages_pa(&o->pg, 0), pa, "a frame the device still reaches was reused");
	cr_assert_eq(core_free_mdl(fx.core, 0, again), 0);
	/* the domain goes at teardown, reported, and the frame with it */
	core_stop(fx.core);
	cr_assert_eq(fx_violations(&fx, CORE_V_MAPPING_LEAK), 1, "%s", fx_violation_text(&fx));
	cr_assert_eq(pm->held.n, 0);
	cr_assert_eq(pm->withheld.n, 0);
	cr_assert(range_contains(&pm->frames, pa, 4096), "the frame never went back");
	fx_fini(&fx);
}

/*
 * A get says whether the frames were referenced before it, a put whether
 * they still are after it: a run of its own is mapped, and unmapped, in one
 * call without looking at its counts again (core/domain.c); one partly
 * referenced goes stretch by stretch. Within a chunk, across chunks, and
 * a whole chunk (one count for its 512 frames).
 */
Test(domain, identity_counts_say_what_a_get_and_a_put_saw)
{
	const unsigned int both = IDMAP_SAW_ZERO | IDMAP_SAW_SET;
	struct idmap im = { 0 };
	unsigned int saw = 99;

	cr_assert_eq(idmap_get(&im, 100, 0, &saw), 0);
	cr_assert_eq(saw, 0, "no frames, nothing seen");
	cr_assert_eq(idmap_get(&im, 100, 8, &saw), 0);
	cr_assert_eq(saw, IDMAP_SAW_ZERO);
	cr_assert_eq(idmap_get(&im, 100, 8, &saw), 0);
	cr_assert_eq(saw, IDMAP_SAW_SET);
	cr_assert_eq(idmap_get(&im, 104, 8, &saw), 0);
	cr_assert_eq(saw, both);
	cr_assert_eq(idmap_put(&im, 104, 8, &saw), 0);
	cr_assert_eq(saw, both, "104..107 still referenced, 108..111 not");
	cr_assert_eq(idmap_put(&im, 100, 8, &saw), 0);
	cr_assert_eq(saw, IDMAP_SAW_SET);
	cr_assert_eq(idmap_put(&im, 100, 8, &saw), 0);
	cr_assert_eq(saw, IDMAP_SAW_ZERO);
	cr_assert_eq(idmap_stretch(&im, 96, 32, true), 32, "every count back at zero");

	/* across a chunk boundary, then a whole chunk */
	cr_assert_eq(idmap_get(&im, 1020, 8, &saw), 0);
	cr_assert_eq(saw, IDMAP_SAW_ZERO);
	cr_assert_eq(idmap_get(&im, 1024, 512, &saw), 0);
	cr_assert_eq(saw, both, "1024..1027 were referenced, the rest of the chunk not");
	cr_assert_eq(idmap_get(&im, 1536, 512, &saw), 0);
	cr_assert_eq(saw, IDMAP_SAW_ZERO);
	cr_assert_eq(idmap_get(&im, 1536, 512, &saw), 0);
	cr_assert_eq(saw, IDMAP_SAW_SET);
	cr_assert_eq(idmap_put(&im, 1536, 512, &saw), 0);
	cr_assert_eq(saw, IDMAP_SAW_SET);
	cr_assert_eq(idmap_put(&im, 1536, 512, &saw), 0);
	cr_assert_eq(saw, IDMAP_SAW_ZERO);
	cr_assert_eq(idmap_put(&im, 1020, 8, &saw), 0);
	cr_assert_eq(saw, both, "1024..1027 still referenced by the chunk's get");
	cr_assert_eq(idmap_put(&im, 1024, 512, &saw), 0);
	cr_assert_eq(saw, IDMAP_SAW_ZERO);
	cr_assert_eq(idmap_put(&im, 2048, 4, &saw), 4, "never referenced: nothing to drop");
	cr_assert_eq(saw, IDMAP_SAW_ZERO);
	idmap_free(&im);
}
