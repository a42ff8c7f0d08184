/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_CORE_ADAPTER_INTERNAL_H
#define GPUISO_CORE_ADAPTER_INTERNAL_H

#include "internal.h"

/*
 * Private to core/: a logical adapter's start and stop (adapter.c), its
 * frame-buffer save areas (fbsave.c), and the reference KMD (kmd.c).
 */

/* adapter.c */

/**
 * adapter_start() - start a logical adapter as Dxgkrnl does.
 * @c: the core.
 * @a: the adapter.
 *
 * Queries the caps, decides remapping and the IOMMUFlags, sets up the save
 * areas and segments, enables a remapping adapter's domain before
 * DxgkDdiStartDevice, and the registry-forced enablement after it
 * (AllowFailure lets the adapter run without it). Why it did not start goes
 * to a->start_error.
 *
 * Return: 0; the caps query's or the KMD's error, -ENOTSUP when remapping
 * is needed and the driver cannot do it, or the error of a setup step.
 * What was set up is undone on an error.
 */
int adapter_start(struct core *c, struct adapter *a);
/**
 * adapter_stop() - stop a started adapter.
 * @c: the core.
 * @a: the adapter; one not started is left alone.
 *
 * Calls DxgkDdiStopDevice, reports and frees every handle left (HANDLE_LEAK),
 * frees the segments and save areas and tears the domain down.
 */
void adapter_stop(struct core *c, struct adapter *a);

/* fbsave.c */

/**
 * fb_init() - size the frame-buffer save areas and take their commit charge.
 * @c: the core.
 * @a: the adapter; only one reporting IOMMU isolation support is asked.
 * @why: out: why it failed, on an error.
 * @len: size of @why.
 *
 * Asks each physical adapter for its save size, places each reserve at the
 * top of its VRAM (a shared section dealt out among them by the reference
 * KMD's layout, told as notes where it leaves something unused) and
 * charges the total. A driver not asked gets a note for a size it would
 * report that is not a page multiple.
 *
 * Return: 0; the KMD's query error, -EINVAL for a size not a page multiple
 * or larger than VRAM, -ENOMEM for the charge.
 */
int fb_init(struct core *c, struct adapter *a, char *why, size_t len);
/**
 * fb_fini() - free the save areas' frames and their commit charge.
 * @c: the core.
 * @a: the adapter.
 */
void fb_fini(struct core *c, struct adapter *a);
/**
 * fb_hash() - a digest of a physical adapter's VRAM reserve.
 * @c: the core.
 * @a: the adapter.
 * @phys: the physical adapter; powered.
 * @digest: out: the digest (what a restore must reproduce), set only on success.
 *
 * Return: 0, or the backend's error (an internal error, hwc_vram_digest()):
 * there is no digest to compare then.
 */
int fb_hash(struct core *c, struct adapter *a, unsigned int phys, uint64_t *digest)
	__attribute__((warn_unused_result));

/* kmd.c */

/**
 * kmd_reference() - the reference KMD: a well-behaved driver.
 *
 * The base a scenario's KMD ops are merged over (c->kmd_merged).
 *
 * Return: its ops table; static.
 */
const struct kmd_ops *kmd_reference(void);

#endif
