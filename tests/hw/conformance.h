/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_TESTS_HW_CONFORMANCE_H
#define GPUISO_TESTS_HW_CONFORMANCE_H

#include "hw/iommu.h"
#include "hw/physmem.h"

/*
 * The backend conformance cases (conformance.c) use only hw/iommu.h and
 * hw/physmem.h. Each backend links them with a fixture that implements this
 * one function (conf_sim.c for the simulator).
 */

/**
 * conf_backend_open() - make a backend over @pm for one test case.
 * @pm: initialised system memory the backend's DMA reaches.
 * @hw: out: the backend, with at least one device of at least 16 MiB of VRAM;
 *      the case frees it with hw->ops->destroy().
 *
 * Return: 0 or a negative errno.
 */
int conf_backend_open(struct physmem *pm, struct hw **hw);

#endif
