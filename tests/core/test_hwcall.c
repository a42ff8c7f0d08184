/* SPDX-License-Identifier: MIT */
/*
 * core/hwcall.c: no verdict rests on a backend call whose failure nobody
 * checked. The simulator's own ops table is wrapped, one op failing as a
 * backend can fail; an error the model does not expect is an internal error
 * that says where (op, adapter, device, errno, event) and breaks
 * model_sound, one it expects is the operation's refusal and nothing more.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "fixture.h"

#define SAVE (1ull << 20)

static const struct hw_ops *real;  /* the simulator's table */
static struct hw_ops wrapped;      /* a copy of it, one op replaced */

/* Put a copy of the backend's ops in front of it, changed by @change. */
static void wrap(struct fx *fx, void (*change)(struct hw_ops *ops))
{
	struct hw *hw = core_hw(fx->core);

	real = hw->ops;
	wrapped = *real;
	change(&wrapped);
	hw->ops = &wrapped;
}

static void unwrap(struct fx *fx)
{
	core_hw(fx->core)->ops = real;
}

static int digest_fails(struct hw *hw, uint32_t dev, uint64_t off, uint64_t len, uint64_t *digest)
{
	return -EIO;
}

static void fail_digest(struct hw_ops *ops)
{
	ops->vram_digest = digest_fails;
}

static int power_off_busy(struct hw *hw, uint32_t dev, bool on)
{
	return on ? real->power(hw, dev, on) : -EBUSY;
}

static void busy_power_off(struct hw_ops *ops)
{
	ops->power = power_off_busy;
}

static int unmap_fails(struct hw *hw, uint32_t domain, iova_t iova, uint64_t size)
{
	return -EIO;
}

static void fail_unmap(struct hw_ops *ops)
{
	ops->unmap = unmap_fails;
}

static int map_no_memory(struct hw *hw, uint32_t domain, iova_t iova, pa_t pa, uint64_t size,
			 unsigned int perm)
{
	return -ENOMEM;
}

static void map_out_of_memory(struct hw_ops *ops)
{
	ops->map = map_no_memory;
}

static const struct core_power_record *last_record(struct fx *fx)
{
	const struct core_power_record *r;
	size_t n;

	r = core_power_records(fx->core, &n);
	cr_assert_gt(n, 0);
	return &r[n - 1];
}

static void start_small(struct fx *fx)
{
	fx_defaults(fx);
	fx->scn.adapters[0].phys[0].fb_save_size = SAVE;
	fx_start(fx);
}

/* The first internal error: at @event, its detail holding each of the NULL-ended strings. */
static void assert_internal(struct fx *fx, uint64_t event, const char *const *has)
{
	const struct core_violation *first;

	cr_assert_gt(core_internal_errors(fx->core, &first), 0,
		     "the backend's error must be an internal error");
	cr_assert_eq(first->event, event, "at event %llu", (unsigned long long)first->event);
	cr_assert_eq(first->ts_ns, event * 1000);
	for (; *has; has++)
		cr_assert(strstr(first->detail, *has), "'%s' not in: %s", *has, first->detail);
}

/*
 * A digest the backend fails to take was 0 on both sides of the transition:
 * the save and the restore "matched". Now there is no digest to compare:
 * an internal error at the power-down, and the restore is not claimed
 * verified.
 */
Test(hwcall, a_failed_digest_does_not_let_a_save_and_restore_match)
{
	struct fx fx;

	start_small(&fx);
	wrap(&fx, fail_digest);
	core_set_event(fx.core, 5, 5000, "power");
	cr_assert_eq(core_power(fx.core, 0, 0, POWER_D3), 0);
	core_set_event(fx.core, 6, 6000, "power");
	cr_assert_eq(core_power(fx.core, 0, 0, POWER_D0), 0);
	cr_assert(last_record(&fx)->completed);
	cr_assert_not(last_record(&fx)->verified, "a restore checked against no digest");
	assert_internal(&fx, 5, (const char *const[]){ "vram_digest", "gpu0 physical adapter 0",
						       "device 0", "EIO", NULL });
	unwrap(&fx);
	fx_fini(&fx);
}

/*
 * A device that refuses to power off (work still queued) keeps its VRAM:
 * a restore that did nothing would match. The -EBUSY is an internal error,
 * not lost, and the restore is not claimed verified.
 */
Test(hwcall, a_power_off_the_backend_refuses_is_not_lost)
{
	struct fx fx;

	start_small(&fx);
	wrap(&fx, busy_power_off);
	core_set_event(fx.core, 3, 3000, "power");
	cr_assert_eq(core_power(fx.core, 0, 0, POWER_D3), 0);
	assert_internal(&fx, 3, (const char *const[]){ "power(off)", "gpu0 physical adapter 0",
						       "EBUSY", NULL });
	core_set_event(fx.core, 4, 4000, "power");
	cr_assert_eq(core_power(fx.core, 0, 0, POWER_D0), 0);
	cr_assert_not(last_record(&fx)->verified, "VRAM that never lost power proves no restore");
	unwrap(&fx);
	fx_fini(&fx);
}

/*
 * An unmap the backend refuses leaves the mapping; it was only logged, and
 * the model went on as if the memory were unmapped. Now an internal error.
 */
Test(hwcall, an_unmap_the_backend_refuses_is_an_internal_error)
{
	core_handle_t mdl;
	struct fx fx;

	fx_defaults(&fx);
	fx_start(&fx);
	cr_assert_eq(core_alloc_mdl(fx.core, 0, 2 * 4096, &mdl), 0);
	wrap(&fx, fail_unmap);
	core_set_event(fx.core, 9, 9000, "free_mdl");
	cr_assert_eq(core_free_mdl(fx.core, 0, mdl), 0);
	assert_internal(&fx, 9, (const char *const[]){ "unmap(", "gpu0", "EIO", NULL });
	unwrap(&fx);
	fx_fini(&fx);
}

/* An error the model handles (no memory for page tables) refuses the operation, soundly. */
Test(hwcall, an_expected_backend_error_refuses_the_operation_only)
{
	const struct core_violation *first;
	core_handle_t mdl;
	struct fx fx;

	fx_defaults(&fx);
	fx_start(&fx);
	wrap(&fx, map_out_of_memory);
	cr_assert_eq(core_alloc_mdl(fx.core, 0, 2 * 4096, &mdl), -ENOMEM);
	cr_assert_eq(core_internal_errors(fx.core, &first), 0, "%s", first ? first->detail : "");
	unwrap(&fx);
	fx_fini(&fx);
}

static void stats_with_a_broken_check(struct hw *hw, struct hw_stats *stats)
{
	real->stats(hw, stats);
	stats->internal_errors++;
}

static void broken_backend_check(struct hw_ops *ops)
{
	ops->stats = stats_with_a_broken_check;
}

/* A check the backend found broken (WARN_ON()) is a bug of gpuiso: model_sound breaks. */
Test(hwcall, a_broken_check_of_the_backend_is_an_internal_error)
{
	const struct core_violation *first;
	struct fx fx;

	fx_defaults(&fx);
	fx_start(&fx);
	cr_assert_eq(core_internal_errors(fx.core, &first), 0);
	wrap(&fx, broken_backend_check);
	cr_assert_eq(core_internal_errors(fx.core, &first), 1);
	cr_assert_null(first, "the model met none itself: the backend's is in the log");
	unwrap(&fx);
	fx_fini(&fx);
}
