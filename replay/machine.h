/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_REPLAY_MACHINE_H
#define GPUISO_REPLAY_MACHINE_H

#include <stdio.h>

#include "core/scenario.h"

/*
 * The machine a trace describes, as a scenario (`gpuiso scenario
 * from-trace`): what the trace says of the adapters, the rest from a base
 * scenario. Only Windows' DxgKrnl events say anything of the machine: its
 * Adapter/Start and Adapter/DC_Start events (docs/scenario-format.md,
 * "From a trace").
 */

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
