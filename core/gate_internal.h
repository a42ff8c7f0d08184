/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_CORE_GATE_INTERNAL_H
#define GPUISO_CORE_GATE_INTERNAL_H

#include "internal.h"

/*
 * Private to core/: the gate of every driver callback and of the device's
 * own DMA (gate.c), and what a blocked DMA is told (blocked.c).
 */

/* gate.c: every driver callback starts here */

/**
 * cb_enter() - the gate every driver callback passes.
 * @c: the core.
 * @adapter: the adapter the callback names.
 * @name: the callback's name, for violations.
 * @out: out: the adapter, when the call may go on.
 *
 * Checks the IRQL (PASSIVE or APC only: a violation, and from WDDM 3.2 a
 * bugcheck), exclusive access (no callback between Begin and
 * EndExclusiveAccess: CB_IN_EXCLUSIVE) and a started adapter.
 *
 * Return: 0; -ESHUTDOWN after a bugcheck, -ENODEV for an unknown or
 * stopped adapter, -EPERM for a bugcheck now or a call in exclusive access.
 */
int cb_enter(struct core *c, unsigned int adapter, const char *name, struct adapter **out);
/**
 * cb_handle() - cb_enter() and handle_get(): the start of a callback on a handle.
 * @c: the core.
 * @adapter: the adapter the callback names.
 * @name: the callback's name, for violations.
 * @h: the handle passed.
 * @kind: the kind it must be.
 * @a: out: the adapter.
 * @rc: out: 0, cb_enter()'s error, or -EINVAL for a bad handle.
 *
 * Return: the handle's object, or NULL with *@rc set.
 */
struct hobj *cb_handle(struct core *c, unsigned int adapter, const char *name, core_handle_t h,
		       enum hkind kind, struct adapter **a, int *rc);
/**
 * adapter_get() - a logical adapter by index.
 * @c: the core.
 * @adapter: the index.
 *
 * Return: the adapter, or NULL when out of range.
 */
struct adapter *adapter_get(struct core *c, unsigned int adapter);
/**
 * hw_err_pop() - move the faults the backend queued into the record.
 * @c: the core.
 * @a: the adapter a fault is charged to unless its device says otherwise.
 * @phys: likewise its physical adapter.
 *
 * A fault whose device belongs to another physical adapter is recorded
 * against that one. A fault lost to ENOMEM is logged.
 *
 * Return: how many faults were taken.
 */
int hw_err_pop(struct core *c, struct adapter *a, unsigned int phys);
/**
 * exposure_note() - record a DMA that reached memory its device was not given.
 * @c: the core.
 * @a: the adapter.
 * @phys: its physical adapter that issued it.
 * @address: where the access began, as the device issued it.
 * @bytes: its length.
 * @write: true: the device wrote system memory.
 * @how: enum core_exposure_how.
 */
void exposure_note(struct core *c, struct adapter *a, unsigned int phys, uint64_t address,
		   uint64_t bytes, bool write, enum core_exposure_how how);
/**
 * device_wait() - wait for a device's jobs after they were submitted: the
 * faults it queued recorded (hw_err_pop()), stale IOTLB use checked.
 * @c: the core.
 * @a: the adapter.
 * @phys: its physical adapter whose jobs these are.
 * @submitted: 0, or the submit's error (the jobs queued before it still run).
 *
 * Return: @submitted if an error, else the wait's (-EFAULT: blocked).
 */
int device_wait(struct core *c, struct adapter *a, unsigned int phys, int submitted);
/**
 * device_dma() - one stretch of device addresses, as the device issues it
 * on its own (rogue.c, exclusive.c): what the IOMMU blocks recorded as
 * faults, what reaches memory with no domain between, or through a stale
 * address, as an exposure.
 * @c: the core.
 * @a: the adapter.
 * @phys: its physical adapter that issues it.
 * @address: the first device address.
 * @bytes: length.
 * @write: true: the device writes system memory.
 * @stale: the address is one the device kept from memory since freed.
 *
 * Return: 0, -EFAULT (blocked), or what the backend says (-ERANGE: beyond
 * what the device can address).
 */
int device_dma(struct core *c, struct adapter *a, unsigned int phys, uint64_t address,
	       uint64_t bytes, bool write, bool stale);
/**
 * stale_check() - record DMA through stale IOTLB entries since the last check.
 * @c: the core.
 *
 * An access an IOTLB entry translated after its PTE was cleared (unmap
 * without flush) broke isolation: a STALE_TRANSLATION violation.
 */
void stale_check(struct core *c);

/* blocked.c: blocked DMA, and what a device reached */

/**
 * blocked_note_unmap() - remember an unmap the IOMMU carried out, with the
 * current event, for the faults it may cause later.
 * @c: the core.
 * @a: the adapter whose domain it was.
 * @iova: first address.
 * @bytes: length.
 */
void blocked_note_unmap(struct core *c, struct adapter *a, iova_t iova, uint64_t bytes);
/**
 * blocked_note_tomb() - remember the device addresses of an object being
 * freed (core_dma_stale()).
 * @c: the core.
 * @h: its handle.
 * @o: its object, still holding its pages and mapping.
 */
void blocked_note_tomb(struct core *c, core_handle_t h, const struct hobj *o);
/**
 * blocked_classify() - the cause of a fault, from what the model knows of
 * its address: sets @f->cause and, after an unmap, @f->by_event and the rest.
 * @c: the core.
 * @a: the adapter of the device that faulted.
 * @f: the fault, its address and hardware reason filled in.
 */
void blocked_classify(const struct core *c, const struct adapter *a, struct core_fault *f);
/**
 * blocked_irq_window() - whether [@address, +@bytes) meets the interrupt window.
 * @address: first address.
 * @bytes: length.
 *
 * Return: true if any byte lies in 0xFEE00000 - 0xFEEFFFFF.
 */
bool blocked_irq_window(uint64_t address, uint64_t bytes);
/** blocked_fini() - free what blocked.c holds. @c: the core. */
void blocked_fini(struct core *c);

#endif
