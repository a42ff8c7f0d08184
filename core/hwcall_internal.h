/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_CORE_HWCALL_INTERNAL_H
#define GPUISO_CORE_HWCALL_INTERNAL_H

#include "internal.h"

/* Private to core/: the one way to the backend (hwcall.c). */

/*
 * hwcall.c: every call core/ makes to its backend (hw/iommu.h) goes through
 * these. An error the model handles is returned as the op returned it, and
 * nothing is recorded; any other is returned too and is an internal error
 * naming the op, its adapter, physical adapter and device, and the errno.
 */

/**
 * hwc_domain_alloc() - a new domain for @a.
 * @c: the core.
 * @a: the adapter it is for (for reports).
 * @domain: out: its id.
 *
 * Return: 0; -ENOMEM or -ENOSPC (the backend has no room: expected), or
 * another error (an internal error).
 */
int hwc_domain_alloc(struct core *c, struct adapter *a, uint32_t *domain)
	__attribute__((warn_unused_result));
/**
 * hwc_domain_free() - free @a's domain (a->domain) in the backend.
 * @c: the core.
 * @a: the adapter; a->domain is left as it is.
 *
 * Return: 0, or an error (an internal error: the model detaches first).
 */
int hwc_domain_free(struct core *c, struct adapter *a) __attribute__((warn_unused_result));
/**
 * hwc_attach() - attach physical adapter @phys of @a to @domain.
 * @c: the core.
 * @a: the adapter.
 * @phys: its physical adapter.
 * @domain: the domain; not CORE_NO_DOMAIN.
 *
 * Return: 0; -ENOMEM or -ENOSPC (expected), or another error (an internal error).
 */
int hwc_attach(struct core *c, struct adapter *a, unsigned int phys, uint32_t domain)
	__attribute__((warn_unused_result));
/**
 * hwc_detach() - detach physical adapter @phys of @a from its domain.
 * @c: the core.
 * @a: the adapter.
 * @phys: its physical adapter; attached (a->phys[phys].domain set).
 *
 * Return: 0, or an error (an internal error).
 */
int hwc_detach(struct core *c, struct adapter *a, unsigned int phys)
	__attribute__((warn_unused_result));
/**
 * hwc_map() - one map call in @a's domain.
 * @c: the core.
 * @a: the adapter; its domain exists.
 * @iova: device address.
 * @pa: physical address.
 * @bytes: size.
 * @perm: HW_PERM_* and HW_MAP_4K.
 *
 * Return: 0; -ENOMEM, -ENOSPC, -ERANGE or -EEXIST (expected: see
 * hwcall.c), or another error (an internal error).
 */
int hwc_map(struct core *c, struct adapter *a, iova_t iova, pa_t pa, uint64_t bytes,
	    unsigned int perm) __attribute__((warn_unused_result));
/**
 * hwc_unmap() - one unmap call in @a's domain (the IOTLB is not flushed).
 * @c: the core.
 * @a: the adapter; its domain exists.
 * @iova: device address.
 * @bytes: size.
 *
 * Return: 0, or an error (an internal error: the model unmaps only what it mapped).
 */
int hwc_unmap(struct core *c, struct adapter *a, iova_t iova, uint64_t bytes)
	__attribute__((warn_unused_result));
/**
 * hwc_flush() - invalidate the IOTLB entries of [iova, iova+bytes) in @a's domain.
 * @c: the core.
 * @a: the adapter; its domain exists.
 * @iova: device address.
 * @bytes: size.
 */
void hwc_flush(struct core *c, struct adapter *a, iova_t iova, uint64_t bytes);
/**
 * hwc_fault_pop() - take the oldest fault the backend queued.
 * @c: the core.
 * @fault: out: the fault.
 *
 * Return: 0; -ENOENT when none is queued, or another error (an internal error).
 */
int hwc_fault_pop(struct core *c, struct hw_fault *fault) __attribute__((warn_unused_result));
/**
 * hwc_stats() - the backend's counters so far.
 * @c: the core.
 * @stats: out: the counters.
 */
void hwc_stats(struct core *c, struct hw_stats *stats);
/**
 * hwc_state_digest() - the digest of the backend's state (hw_ops.state_digest).
 * @c: the core.
 * @full: computed again from all the state (hw_ops.state_digest_full), as
 *        the cross-check of what the backend keeps.
 * @digest: out: the digest.
 *
 * Return: 0, or -EOPNOTSUPP for a backend that cannot see all of its state.
 */
int hwc_state_digest(struct core *c, bool full, uint64_t *digest)
	__attribute__((warn_unused_result));
/**
 * hwc_vram_size() - bytes of VRAM of physical adapter @phys of @a.
 * @c: the core.
 * @a: the adapter.
 * @phys: its physical adapter.
 *
 * Return: the size; 0 (an internal error) when the backend does not know the device.
 */
uint64_t hwc_vram_size(struct core *c, struct adapter *a, unsigned int phys)
	__attribute__((warn_unused_result));
/**
 * hwc_vram_fill() - write a pattern over a range of a powered device's VRAM.
 * @c: the core.
 * @a: the adapter.
 * @phys: its physical adapter; powered.
 * @off: byte offset in VRAM.
 * @len: bytes.
 * @pattern: the pattern.
 * @plen: its bytes.
 *
 * Return: 0, or an error (an internal error).
 */
int hwc_vram_fill(struct core *c, struct adapter *a, unsigned int phys, uint64_t off,
		  uint64_t len, const void *pattern, uint64_t plen)
	__attribute__((warn_unused_result));
/**
 * hwc_vram_digest() - the digest of a range of a powered device's VRAM.
 * @c: the core.
 * @a: the adapter.
 * @phys: its physical adapter; powered.
 * @off: byte offset in VRAM.
 * @len: bytes.
 * @digest: out: the digest, set only on success.
 *
 * Return: 0, or an error (an internal error): no digest to compare then.
 */
int hwc_vram_digest(struct core *c, struct adapter *a, unsigned int phys, uint64_t off,
		    uint64_t len, uint64_t *digest) __attribute__((warn_unused_result));
/**
 * hwc_power() - power a physical adapter's device on or off.
 * @c: the core.
 * @a: the adapter.
 * @phys: its physical adapter.
 * @on: on, or off (VRAM content is lost).
 *
 * Return: 0, or an error (an internal error; -EBUSY: the device still had
 * work queued, and kept its power and its VRAM).
 */
int hwc_power(struct core *c, struct adapter *a, unsigned int phys, bool on)
	__attribute__((warn_unused_result));
/**
 * hwc_gpu_submit() - queue a copy-engine job on a physical adapter's device.
 * @c: the core.
 * @a: the adapter.
 * @phys: its physical adapter.
 * @job: the job.
 *
 * Return: 0; -EIO while the model has the device off, -ERANGE, -EBUSY or
 * -EOPNOTSUPP (expected: see hwcall.c), or another error (an internal error).
 */
int hwc_gpu_submit(struct core *c, struct adapter *a, unsigned int phys, const struct hw_job *job)
	__attribute__((warn_unused_result));
/**
 * hwc_gpu_wait() - run a physical adapter's queued jobs to completion.
 * @c: the core.
 * @a: the adapter.
 * @phys: its physical adapter.
 *
 * Return: 0; -EFAULT (an access was blocked: its fault is queued) or
 * -ERANGE (expected), or another error (an internal error).
 */
int hwc_gpu_wait(struct core *c, struct adapter *a, unsigned int phys)
	__attribute__((warn_unused_result));
/**
 * hwc_gpu_pending() - jobs queued on a physical adapter's device and not yet run.
 * @c: the core.
 * @a: the adapter.
 * @phys: its physical adapter.
 *
 * Return: how many.
 */
unsigned int hwc_gpu_pending(struct core *c, struct adapter *a, unsigned int phys)
	__attribute__((warn_unused_result));

#endif
