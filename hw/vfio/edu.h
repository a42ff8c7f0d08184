/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_HW_VFIO_EDU_H
#define GPUISO_HW_VFIO_EDU_H

#include <stdbool.h>
#include <stdint.h>

/*
 * The DMA engine of QEMU's edu device (PCI 1234:11e8), driven through its
 * BAR0 registers: source, destination, count and command; the device's own
 * 4 KiB buffer is at device address 0x40000. It reaches system memory
 * through the IOMMU at the IOVAs it is given, below its 28-bit DMA mask, and
 * completes each transfer on a 100 ms timer of QEMU's: for correctness, not
 * throughput.
 */

#define EDU_VENDOR 0x1234
#define EDU_DEVICE 0x11e8
#define EDU_DMA_BITS 28
/* QEMU 7.2 stops the whole VM for a transfer of the full 4 KiB: stay below. */
#define EDU_DMA_MAX 2048

struct edu {
	volatile uint8_t *bar0; /* mapped BAR0 */
};

/**
 * edu_probe() - check the identification register.
 * @e: the device.
 *
 * Return: 0, or -ENODEV when it does not answer as edu.
 */
int edu_probe(struct edu *e);

/**
 * edu_dma() - one transfer between the device's buffer (its first @len
 * bytes) and system memory. The CPU cannot reach the buffer: data goes in
 * and out by DMA only (a driver bounces it through a page of its own).
 * @e: the device.
 * @iova: system side, as the device addresses it.
 * @len: at most EDU_DMA_MAX.
 * @to_memory: true: the device writes memory; false: it reads it.
 *
 * Return: 0 when the engine finished, -ETIMEDOUT when it did not, -EINVAL
 * for a bad length or an IOVA beyond the DMA mask. A transfer the IOMMU
 * blocked also finishes: the kernel reports the fault.
 */
int edu_dma(struct edu *e, uint64_t iova, uint32_t len, bool to_memory);

#endif
