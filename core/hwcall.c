/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#define LOG_PREFIX "core"
#include "common/log.h"
#include "hwcall_internal.h"
#include "internal.h"

/*
 * The one way from core/ to a backend (hw/iommu.h): a wrapper for each op
 * core/ calls, and nothing in core/ calls c->hw->ops itself. Each wrapper
 * checks what the op returned against what the model expects of it:
 *
 * - an error the model handles is returned as it is, with nothing
 *   recorded; the caller refuses the operation or undoes what it did
 *   (which errors those are is said at each wrapper);
 * - any other error is returned too, and becomes an internal error
 *   (internal_error(): logged with the event index and time, breaking the
 *   invariant model_sound) naming the op, its arguments, the adapter, the
 *   physical adapter and its device, and the errno: a verdict that rested on
 *   that call would not be one.
 *
 * Each wrapper also asserts its preconditions (CORE_WARN_ON()): what the
 * model must know about the device before it calls, such as a device it
 * has powered on before it reads its VRAM.
 *
 * The wrappers that return a value are marked warn_unused_result, so that
 * no caller can drop it (-Werror).
 */

/* Record an unexpected error of one backend call: which op, on what, and the errno. */
static void unexpected(struct core *c, const struct adapter *a, unsigned int phys, int rc,
		       const char *call)
{
	const char *name = strerrorname_np(-rc);
	char where[96] = "";

	if (a && phys < a->nphys)
		snprintf(where, sizeof(where), " of %s physical adapter %u (device %u)", a->cfg->name,
			 phys, a->phys[phys].dev);
	else if (a)
		snprintf(where, sizeof(where), " of %s", a->cfg->name);
	internal_error(c, "backend call %s%s failed unexpectedly: %d (%s: %s)", call, where, rc,
		       name ? name : "?", strerror(-rc));
}

/* @rc unless it is 0 or one of the @n errors of @expected: then an internal error too. */
static int check(struct core *c, const struct adapter *a, unsigned int phys, int rc,
		 const char *call, const int *expected, size_t n)
{
	if (!rc)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (rc == expected[i])
			return rc;
	unexpected(c, a, phys, rc, call);
	return rc;
}

#define CHECK(c, a, phys, rc, call, ...)                                                        \
	check(c, a, phys, rc, call, (const int[]){ 0, __VA_ARGS__ },                           \
	      sizeof((const int[]){ 0, __VA_ARGS__ }) / sizeof(int))

/* The device of physical adapter @phys of @a, asserted to be one. */
static bool phys_ok(struct core *c, const struct adapter *a, unsigned int phys)
{
	return !CORE_WARN_ON(c, !a || phys >= a->nphys);
}

/* A backend error of the domain ops the model handles: the backend ran out of room. */
int hwc_domain_alloc(struct core *c, struct adapter *a, uint32_t *domain)
{
	int rc = c->hw->ops->domain_alloc(c->hw, domain);

	return CHECK(c, a, a->nphys, rc, "domain_alloc()", -ENOMEM, -ENOSPC);
}

int hwc_domain_free(struct core *c, struct adapter *a)
{
	char call[64];
	int rc;

	if (CORE_WARN_ON(c, a->domain == CORE_NO_DOMAIN))
		return -EINVAL;
	rc = c->hw->ops->domain_free(c->hw, a->domain);
	if (!rc)
		return 0; /* the call's text is made only for an error */
	snprintf(call, sizeof(call), "domain_free(domain %u)", a->domain);
	return CHECK(c, a, a->nphys, rc, call);
}

/*
 * Expected: -ENOMEM, -ENOSPC (VFIO maps the domain's mappings for the device
 * as it attaches: the kernel's limits, as for hwc_map()).
 */
int hwc_attach(struct core *c, struct adapter *a, unsigned int phys, uint32_t domain)
{
	char call[64];
	int rc;

	if (!phys_ok(c, a, phys) || CORE_WARN_ON(c, domain == CORE_NO_DOMAIN))
		return -EINVAL;
	rc = c->hw->ops->attach(c->hw, a->phys[phys].dev, domain);
	if (!rc)
		return 0; /* the call's text is made only for an error */
	snprintf(call, sizeof(call), "attach(domain %u)", domain);
	return CHECK(c, a, phys, rc, call, -ENOMEM, -ENOSPC);
}

int hwc_detach(struct core *c, struct adapter *a, unsigned int phys)
{
	int rc;

	if (!phys_ok(c, a, phys) || CORE_WARN_ON(c, a->phys[phys].domain == CORE_NO_DOMAIN))
		return -EINVAL;
	rc = c->hw->ops->detach(c->hw, a->phys[phys].dev);
	return CHECK(c, a, phys, rc, "detach()");
}

/*
 * Expected: -ENOMEM (no memory for page tables, or VFIO's locked-memory
 * limit), -ENOSPC (type1's limit of mappings per container), -ERANGE (beyond the
 * IOMMU's address width: a backend's aperture may be narrower than the
 * memory the model gives the GPU), -EEXIST (hardware-reserved ranges of a
 * scenario's physical adapters that overlap in 1:1 mode; reserved_map()
 * reports it).
 */
int hwc_map(struct core *c, struct adapter *a, iova_t iova, pa_t pa, uint64_t bytes,
	    unsigned int perm)
{
	char call[112];
	int rc;

	if (CORE_WARN_ON(c, a->domain == CORE_NO_DOMAIN))
		return -EINVAL;
	rc = c->hw->ops->map(c->hw, a->domain, iova, pa, bytes, perm);
	if (!rc)
		return 0; /* the call's text is made only for an error */
	snprintf(call, sizeof(call), "map(domain %u, iova %#llx, pa %#llx, %#llx bytes, perm %#x)",
		 a->domain, (unsigned long long)iova, (unsigned long long)pa,
		 (unsigned long long)bytes, perm);
	return CHECK(c, a, a->nphys, rc, call, -ENOMEM, -ENOSPC, -ERANGE, -EEXIST);
}

/* Nothing expected: the model unmaps only what it mapped, whole. */
int hwc_unmap(struct core *c, struct adapter *a, iova_t iova, uint64_t bytes)
{
	char call[96];
	int rc;

	if (CORE_WARN_ON(c, a->domain == CORE_NO_DOMAIN))
		return -EINVAL;
	rc = c->hw->ops->unmap(c->hw, a->domain, iova, bytes);
	if (!rc)
		return 0; /* the call's text is made only for an error */
	snprintf(call, sizeof(call), "unmap(domain %u, iova %#llx, %#llx bytes)", a->domain,
		 (unsigned long long)iova, (unsigned long long)bytes);
	return CHECK(c, a, a->nphys, rc, call);
}

void hwc_flush(struct core *c, struct adapter *a, iova_t iova, uint64_t bytes)
{
	if (CORE_WARN_ON(c, a->domain == CORE_NO_DOMAIN))
		return;
	c->hw->ops->flush(c->hw, a->domain, iova, bytes);
}

/* -ENOENT: no fault is queued (the end of the queue, not an error). */
int hwc_fault_pop(struct core *c, struct hw_fault *fault)
{
	int rc = c->hw->ops->fault_pop(c->hw, fault);

	return CHECK(c, NULL, 0, rc, "fault_pop()", -ENOENT);
}

void hwc_stats(struct core *c, struct hw_stats *stats)
{
	c->hw->ops->stats(c->hw, stats);
}

/* The model's impossible states, and the backend's broken checks: both bugs of gpuiso. */
uint64_t core_internal_errors(const struct core *core, const struct core_violation **first)
{
	struct hw_stats st;

	core->hw->ops->stats(core->hw, &st);
	*first = core->internal_errors ? &core->first_internal : NULL;
	return core->internal_errors + st.internal_errors;
}

int hwc_state_digest(struct core *c, bool full, uint64_t *digest)
{
	uint64_t (*fn)(struct hw *hw) = full ? c->hw->ops->state_digest_full
					     : c->hw->ops->state_digest;

	if (!fn)
		return -EOPNOTSUPP; /* a backend that cannot see all of its state (hw/iommu.h) */
	*digest = fn(c->hw);
	return 0;
}

uint64_t hwc_vram_size(struct core *c, struct adapter *a, unsigned int phys)
{
	uint64_t bytes;

	if (!phys_ok(c, a, phys))
		return 0;
	bytes = c->hw->ops->vram_size(c->hw, a->phys[phys].dev);
	if (!bytes)
		unexpected(c, a, phys, -ENOENT, "vram_size() (0 bytes: an unknown device)");
	return bytes;
}

/* Nothing expected: the model fills only a reserve it placed in VRAM, powered. */
int hwc_vram_fill(struct core *c, struct adapter *a, unsigned int phys, uint64_t off,
		  uint64_t len, const void *pattern, uint64_t plen)
{
	char call[96];
	int rc;

	if (!phys_ok(c, a, phys) || CORE_WARN_ON(c, !a->phys[phys].powered))
		return -EINVAL;
	rc = c->hw->ops->vram_fill(c->hw, a->phys[phys].dev, off, len, pattern, plen);
	if (!rc)
		return 0; /* the call's text is made only for an error */
	snprintf(call, sizeof(call), "vram_fill(offset %#llx, %#llx bytes)",
		 (unsigned long long)off, (unsigned long long)len);
	return CHECK(c, a, phys, rc, call);
}

/* Nothing expected: as hwc_vram_fill(). *@digest is set only on success. */
int hwc_vram_digest(struct core *c, struct adapter *a, unsigned int phys, uint64_t off,
		    uint64_t len, uint64_t *digest)
{
	uint64_t d = 0;
	char call[96];
	int rc;

	if (!phys_ok(c, a, phys) || CORE_WARN_ON(c, !a->phys[phys].powered))
		return -EINVAL;
	rc = c->hw->ops->vram_digest(c->hw, a->phys[phys].dev, off, len, &d);
	if (!rc) {
		*digest = d;
		return 0;
	}
	snprintf(call, sizeof(call), "vram_digest(offset %#llx, %#llx bytes)",
		 (unsigned long long)off, (unsigned long long)len);
	return CHECK(c, a, phys, rc, call);
}

/*
 * Nothing expected: the model waits for every job it submits, so a device
 * has none queued when it is powered off (-EBUSY would mean it has).
 */
int hwc_power(struct core *c, struct adapter *a, unsigned int phys, bool on)
{
	int rc;

	if (!phys_ok(c, a, phys))
		return -EINVAL;
	rc = c->hw->ops->power(c->hw, a->phys[phys].dev, on);
	return CHECK(c, a, phys, rc, on ? "power(on)" : "power(off)");
}

/*
 * Expected: -EIO while the model has the device powered off (work a trace
 * gives a device in D3 is refused), -ERANGE (a VRAM range past the device's,
 * or an address beyond what the device can issue: VFIO's DMA mask), -EBUSY
 * (the backend's queue is full: VFIO's), -EOPNOTSUPP (a VFIO device whose
 * DMA engine gpuiso does not drive).
 */
int hwc_gpu_submit(struct core *c, struct adapter *a, unsigned int phys, const struct hw_job *job)
{
	char call[112];
	int rc;

	if (!phys_ok(c, a, phys))
		return -EINVAL;
	rc = c->hw->ops->gpu_submit(c->hw, a->phys[phys].dev, job);
	if (!rc || (rc == -EIO && !a->phys[phys].powered))
		return rc;
	snprintf(call, sizeof(call), "gpu_submit(%s, VRAM %#llx, iova %#llx, %#llx bytes)",
		 job->dir == HW_COPY_TO_SYSTEM ? "to system" : "from system",
		 (unsigned long long)job->vram_off, (unsigned long long)job->iova,
		 (unsigned long long)job->len);
	return CHECK(c, a, phys, rc, call, -ERANGE, -EBUSY, -EOPNOTSUPP);
}

/* Expected: -EFAULT (a job's access was blocked: its fault is queued), -ERANGE as for submit. */
int hwc_gpu_wait(struct core *c, struct adapter *a, unsigned int phys)
{
	int rc;

	if (!phys_ok(c, a, phys))
		return -EINVAL;
	rc = c->hw->ops->gpu_wait(c->hw, a->phys[phys].dev);
	return CHECK(c, a, phys, rc, "gpu_wait()", -EFAULT, -ERANGE);
}

unsigned int hwc_gpu_pending(struct core *c, struct adapter *a, unsigned int phys)
{
	if (!phys_ok(c, a, phys))
		return 0;
	return c->hw->ops->gpu_pending(c->hw, a->phys[phys].dev);
}
