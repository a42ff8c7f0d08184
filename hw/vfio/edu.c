/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <time.h>

#include "common/clock.h"
#include "edu.h"

#define EDU_IDENT 0x00
#define EDU_DMA_SRC 0x80
#define EDU_DMA_DST 0x88
#define EDU_DMA_COUNT 0x90
#define EDU_DMA_CMD 0x98
#define EDU_BUFFER 0x40000
#define EDU_CMD_RUN 0x1
#define EDU_CMD_TO_MEMORY 0x2 /* direction: device buffer -> system memory */
/* The engine completes on a timer (emulation): allow it a while. */
#define EDU_TIMEOUT_NS 2000000000ull

static uint32_t rd32(struct edu *e, unsigned int off)
{
	return *(volatile uint32_t *)(e->bar0 + off);
}

static void wr64(struct edu *e, unsigned int off, uint64_t v)
{
	*(volatile uint64_t *)(e->bar0 + off) = v;
}

static uint64_t rd64(struct edu *e, unsigned int off)
{
	return *(volatile uint64_t *)(e->bar0 + off);
}

int edu_probe(struct edu *e)
{
	/* major version 1, low byte 0xed */
	return (rd32(e, EDU_IDENT) & 0xff0000ff) == 0x010000ed ? 0 : -ENODEV;
}

int edu_dma(struct edu *e, uint64_t iova, uint32_t len, bool to_memory)
{
	uint64_t deadline;

	if (!len || len > EDU_DMA_MAX || iova >> EDU_DMA_BITS || (iova + len - 1) >> EDU_DMA_BITS)
		return -EINVAL;
	wr64(e, EDU_DMA_SRC, to_memory ? EDU_BUFFER : iova);
	wr64(e, EDU_DMA_DST, to_memory ? iova : EDU_BUFFER);
	wr64(e, EDU_DMA_COUNT, len);
	wr64(e, EDU_DMA_CMD, EDU_CMD_RUN | (to_memory ? EDU_CMD_TO_MEMORY : 0));
	deadline = clock_mono_ns() + EDU_TIMEOUT_NS;
	while (rd64(e, EDU_DMA_CMD) & EDU_CMD_RUN) {
		if (clock_mono_ns() > deadline)
			return -ETIMEDOUT;
	}
	return 0;
}
