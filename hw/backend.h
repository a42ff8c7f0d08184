/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_HW_BACKEND_H
#define GPUISO_HW_BACKEND_H

#include <stddef.h>

#include "hw/iommu.h"
#include "hw/physmem.h"
#include "hw/sim/cost.h"

/*
 * Backend names, as --backend and the scenario's backend key spell them
 * (docs/backends.md): "sim", or "vfio:BDF" with options after commas:
 * "iommu=type1" or "iommu=iommufd" to choose the kernel interface, and
 * "journal=PATH" for a line per IOMMU call the backend makes.
 */

enum hw_backend_kind {
	HW_BACKEND_SIM,
	HW_BACKEND_VFIO,
};

/* Which kernel interface holds a VFIO device's mappings. */
enum hw_iommu_api {
	HW_IOMMU_AUTO = 0, /* iommufd if the kernel offers it for the device, else type1 */
	HW_IOMMU_TYPE1,    /* a type1 container through the device's IOMMU group */
	HW_IOMMU_IOMMUFD,  /* an iommufd IOAS and the device's character device */
};

struct hw_backend_name {
	enum hw_backend_kind kind;
	char bdf[32];            /* HW_BACKEND_VFIO: the PCI address */
	enum hw_iommu_api iommu; /* HW_BACKEND_VFIO: the interface asked for */
	char journal[512];       /* HW_BACKEND_VFIO: where its IOMMU calls are said ("": nowhere) */
};

/**
 * hw_backend_parse() - read a backend name.
 * @name: e.g. "sim", "vfio:0000:00:03.0", "vfio:0000:00:03.0,iommu=iommufd",
 *        "vfio:0000:00:03.0,iommu=type1,journal=/sys/kernel/tracing/trace_marker".
 * @out: out: what it names.
 * @err: out: why not, listing the names there are.
 * @errlen: size of @err.
 *
 * Return: 0, or -EINVAL if @name names no backend.
 */
int hw_backend_parse(const char *name, struct hw_backend_name *out, char *err, size_t errlen);

/* The machine a backend is made for: what a scenario describes of it. */
struct hw_machine {
	struct physmem_config memory; /* system memory: RAM ranges and limits */
	unsigned int ngpus;           /* one per physical adapter */
	const uint64_t *vram;         /* [ngpus]: bytes of VRAM of each */
	struct sim_cost_model cost;   /* the simulator's cycle costs */
	enum hw_iommu_model iommu_model; /* the simulator's IOMMU model */
};

/* An open backend: the IOMMU and devices, and the system memory they reach. */
struct hw_backend {
	struct hw *hw;
	struct physmem pm;
};

/**
 * hw_backend_open() - the one factory of backends: make the one @name says
 * for machine @m. The simulator builds every GPU; VFIO opens its one device
 * (a machine of one GPU) and gives it the machine's memory.
 * @name: from hw_backend_parse().
 * @m: the machine; copied.
 * @b: out: the backend; hw_backend_close() it.
 * @err: out: why not (a VFIO device that cannot be opened says what failed).
 * @errlen: size of @err.
 *
 * Return: 0, -EINVAL (the machine does not fit the backend), -ENOMEM, or
 * what vfio_create() says.
 */
int hw_backend_open(const struct hw_backend_name *name, const struct hw_machine *m,
		    struct hw_backend *b, char *err, size_t errlen);

/** hw_backend_close() - destroy an open backend and its memory. @b: opened, or zeroed. */
void hw_backend_close(struct hw_backend *b);

#endif
