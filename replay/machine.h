/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_REPLAY_MACHINE_H
#define GPUISO_REPLAY_MACHINE_H

#include <stdio.h>

#include "core/scenario.h"
#include "hw/backend.h"

/*
 * The machine a scenario describes, on the backend that runs it
 * (machine_check(), machine_open()): the one place above hw/ where a
 * scenario meets the factory of backends, so that the model links none.
 *
 * The machine a trace describes, as a scenario (`gpuiso scenario
 * from-trace`): what the trace says of the adapters, the rest from a base
 * scenario. Only Windows' DxgKrnl events say anything of the machine: its
 * Adapter/Start and Adapter/DC_Start events (docs/scenario-format.md,
 * "From a trace").
 */

/**
 * machine_load() - read a scenario (or take the default one) and check it
 * on the backend it will run on: scenario_load(), then machine_check().
 * @path: the scenario file, or NULL for scenario_defaults().
 * @backend: the backend, as for machine_check().
 * @scn: out: the scenario; scenario_free() it. After an error, empty.
 * @err: out: on error, lines "FILE:LINE:COL: error: ..." (NUL terminated).
 * @errlen: size of @err.
 *
 * Return: what scenario_load() returns, or -EINVAL for a setting the
 * backend refuses.
 */
int machine_load(const char *path, const char *backend, struct scenario *scn, char *err,
		 size_t errlen);

/**
 * machine_check() - whether the backend @name (or the scenario's own) takes
 * the scenario's settings (its iommu: and cost_model:), without making it.
 * @scn: the scenario.
 * @name: the backend (sim, vfio:BDF[,iommu=...]), or NULL for the
 *        scenario's own `backend:` (the simulator when it has none).
 * @err: out: why not: a line "FILE:LINE:COL: error: ..." per setting refused,
 *       or why @name names no backend.
 * @errlen: size of @err.
 *
 * Return: 0, or -EINVAL.
 */
int machine_check(const struct scenario *scn, const char *name, char *err, size_t errlen);

/**
 * machine_open() - the backend a scenario's machine runs on (hw_backend_open()).
 * @scn: the scenario.
 * @name: as for machine_check().
 * @be: out: the backend; hw_backend_close() it after core_destroy().
 * @err: out: why not.
 * @errlen: size of @err.
 *
 * Return: 0, -EINVAL (an unknown name; a setting refused; a machine the
 * backend cannot be), -ENOMEM, or an errno of the machine's (failure_of())
 * for a backend that cannot start here: what the VFIO backend says, or
 * -ENODEV where its errno would blame the input (a device that is not
 * there: -ENOENT); @err keeps its words.
 */
int machine_open(const struct scenario *scn, const char *name, struct hw_backend *be, char *err,
		 size_t errlen);

/**
 * machine_from_trace() - write the scenario of the machine @trace ran on.
 * @trace: a trace ctf_read() reads (an .etl file with DxgKrnl's adapter events).
 * @base: what the trace does not say (the system, the registry, each
 *        adapter's caps and physical adapters: its first adapter's).
 * @base_name: how the written file names @base in its opening comment.
 * @out: where the YAML goes.
 * @err: out: on failure, one line saying what and where.
 * @errlen: size of @err.
 *
 * One adapter per DxgKrnl adapter (pDxgAdapter) of the trace, in the order
 * of their first event, software ones (AdapterType SoftwareDevice) left
 * out: HybridIntegrated makes it integrated, and a HighestAcceptableAddress
 * below the top of @base's memory becomes its highest visible address
 * (which the model takes from a WDDM 3.0 driver: its wddm is raised to 3.0
 * if lower). Comments in the file say which event each came from.
 *
 * Return: 0; -ENOENT when the trace has no hardware adapter's event (@err
 * says which events were looked for); what ctf_read() returns; -EIO when
 * writing to @out fails.
 */
int machine_from_trace(const char *trace, const struct scenario *base, const char *base_name,
		       FILE *out, char *err, size_t errlen);

#endif
