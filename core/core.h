/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_CORE_CORE_H
#define GPUISO_CORE_CORE_H

#include <stdio.h>

#include "common/types.h"
#include "core/core_digest.h"
#include "core/core_dma.h"
#include "core/core_kmd.h"
#include "core/core_mem.h"
#include "core/core_pmo.h"
#include "core/core_power.h"
#include "core/core_results.h"
#include "core/core_types.h"
#include "core/core_vidmm.h"
#include "core/scenario.h"
#include "faults/faults.h"
#include "hw/iommu.h"
#include "hw/physmem.h"

/*
 * The Dxgkrnl-side model of IOMMU-based GPU isolation (WDDM 2.4) and IOMMU
 * DMA remapping (WDDM 3.0): logical adapters with their LDA chains, the
 * IOMMUFlags registry semantics, one IOMMU domain per logical adapter
 * attached under exclusive access, the memory callbacks a kernel-mode driver
 * (KMD) uses, VidMm's paging mappings, hardware-reserved ranges, frame-buffer
 * save/restore with forward progress, and a verifier that records every rule
 * a driver (or the model) breaks.
 *
 * The model drives the hardware only through struct hw_ops (hw/iommu.h).
 * A reference KMD (core/kmd.c) answers Dxgkrnl's queries from the scenario
 * and follows the documented algorithms; tests may install their own.
 *
 * All functions return 0 or a negative errno unless they say otherwise.
 * "Adapter" means a logical adapter by index; "phys" a physical adapter of
 * its LDA chain by index (0 is the lead).
 *
 * This header has the model's life (create, start, stop, destroy), what it
 * decided for each adapter, and the event and IRQL it runs at. It includes
 * the headers of the rest, one family each: core/core_types.h (the handle
 * and the values the families share), core/core_kmd.h (the KMD's DDIs and
 * Dxgkrnl's queries), core/core_mem.h (the WDDM 2.4 memory callbacks),
 * core/core_pmo.h (the WDDM 3.0 memory services), core/core_vidmm.h
 * (VidMm), core/core_dma.h (what the GPU does with memory),
 * core/core_power.h (power transitions and the frame-buffer save),
 * core/core_digest.h (the state digest) and core/core_results.h (what the
 * model records).
 */

/* Per logical adapter: what the model decided. The explain contract. */
enum map_mode {
	MODE_NONE = 0,     /* IOMMU not enabled */
	MODE_PHYSICAL = 1, /* 1:1, logical address == physical address */
	MODE_LOGICAL = 2,  /* DMA remapping: logical addresses from [0, limit) */
};

enum attach_on {
	ATTACH_NEVER = 0,
	ATTACH_AT_START = 1,
	ATTACH_AT_SECURE_VM = 2,
};

/* The domain of an adapter attached to none. */
#define CORE_NO_DOMAIN UINT32_MAX

struct core_phys_info {
	uint32_t domain;    /* backend domain id, or CORE_NO_DOMAIN when none */
	uint64_t save_area; /* bytes of its frame-buffer save section */
	uint64_t saves;     /* bytes of its reserve it saves (its part of a shared section) */
	uint64_t save_off;  /* where in the section they go (0 but in a shared one) */
	bool powered;       /* D0 */
	bool reset;         /* its last transition ended in an adapter reset */
};

#define CORE_MAX_ERRORS 8

struct core_adapter_info {
	const char *name;
	unsigned int wddm;      /* the driver's WDDM version, SCN_WDDM() */
	bool integrated;
	bool started;
	char start_error[256];  /* why it did not start ("" when it did) */
	/* the driver reports linear remapping: WDDM 3.0 memory services only (valid when started) */
	bool wddm30_memory;
	char certification[320]; /* a WDDM 3.0 certification finding ("" when none) */
	bool iommu_enabled;
	bool mappings;
	bool attached;
	enum attach_on attach_on;
	uint32_t domain;        /* CORE_NO_DOMAIN when none */
	enum map_mode mode;
	uint64_t logical_limit; /* bytes of logical address space (MODE_LOGICAL) */
	size_t nphys;
	size_t nerrors;         /* findings that did not stop the start */
	char errors[CORE_MAX_ERRORS][256];
};

/**
 * core_create() - build the model of a scenario on a backend.
 * @scn: the scenario; it must outlive the core.
 * @be: the backend (scenario_backend_open(), or hw_backend_open()); it must
 *      outlive the core, which uses it and never closes it.
 * @out: out: the model. Nothing is started yet: see core_start().
 *
 * Return: 0, -EINVAL, -ENOMEM.
 */
int core_create(const struct scenario *scn, struct hw_backend *be, struct core **out);

/**
 * core_destroy() - stop every adapter (reporting leaks as violations) and free the model.
 * @core: the model, or NULL.
 */
void core_destroy(struct core *core);

/**
 * core_set_faults() - use @fp for injection points (NULL: none).
 * @core: the model.
 * @fp: the injection context; not owned.
 */
void core_set_faults(struct core *core, struct fp_ctx *fp);

/**
 * core_start() - start every logical adapter: query caps, decide the mapping
 * mode, take save-area commit charge, start the device and enable the IOMMU
 * as the registry and caps say. An adapter that fails to start is a finding
 * (core_adapter_info()), not an error of this call.
 * @core: the model.
 *
 * Return: 0, -EALREADY if started.
 */
int core_start(struct core *core);

/**
 * core_stop() - tear every adapter down: the KMD frees what it holds, leaked
 * handles and leftover mappings are reported as violations and released,
 * domains are detached and freed, save-area charge is returned.
 * @core: the model. core_destroy() calls this if needed.
 */
void core_stop(struct core *core);

/** core_adapter_count() - logical adapters. @core: the model. Return: the count. */
size_t core_adapter_count(const struct core *core);

/**
 * core_adapter_info() - what the model decided for one adapter.
 * @core: the model.
 * @adapter: index.
 * @info: out.
 *
 * Return: 0, -ENOENT.
 */
int core_adapter_info(const struct core *core, unsigned int adapter, struct core_adapter_info *info);

/**
 * core_phys_info() - one physical adapter's state.
 * @core: the model.
 * @adapter: logical adapter.
 * @phys: physical adapter.
 * @info: out.
 *
 * Return: 0, -ENOENT.
 */
int core_phys_info(const struct core *core, unsigned int adapter, unsigned int phys,
		   struct core_phys_info *info);

/**
 * core_set_event() - the workload event now being executed (violations, faults,
 * records and injected failures carry it).
 * @core: the model.
 * @index: event index.
 * @ts_ns: its timestamp.
 * @op: its operation's name (a static string), or NULL.
 */
void core_set_event(struct core *core, uint64_t index, uint64_t ts_ns, const char *op);

/**
 * core_set_irql() - the IRQL the driver calls callbacks at from now on.
 * @core: the model.
 * @irql: the level.
 */
void core_set_irql(struct core *core, enum core_irql irql);

/**
 * core_bugcheck() - whether the machine stopped: a driver of WDDM 3.2 or
 * later called back at DISPATCH_LEVEL or above (WDDM 3.2 validates callers'
 * IRQL and bugchecks). From then on every callback fails with -ESHUTDOWN
 * and no violation is recorded; a replay executes no further event.
 * @core: the model.
 *
 * Return: the CB_IRQL violation that stopped it, or NULL while it runs.
 */
const struct core_violation *core_bugcheck(const struct core *core);

/**
 * core_internal_errors() - impossible states the model met and checks its
 * backend found broken (WARN_ON(), common/warn.h): bugs of gpuiso, not
 * findings about the driver (each is also logged as it happens).
 * @core: the model.
 * @first: out: the model's first, with its event index and timestamp
 * (.code is meaningless), or NULL when the model met none (the backend's
 * say where they are in the log).
 *
 * Return: how many.
 */
uint64_t core_internal_errors(const struct core *core, const struct core_violation **first);

/**
 * core_secure_vm_create() - a secure VM starts: with the staging key, the
 * adapter's domain is attached now (first time); the VM fails if the driver
 * lacks IOMMU support (AllowFailure does not apply).
 * @core: the model.
 * @adapter: index.
 *
 * Return: 0, -ENOTSUP (no IOMMU support), -ENODEV (adapter not started), or
 * the enablement error.
 */
int core_secure_vm_create(struct core *core, unsigned int adapter);

/**
 * core_iommu_disable() - always refused: once enabled, the IOMMU stays enabled.
 * @core: the model.
 * @adapter: index.
 *
 * Return: -EPERM if it is enabled, -EINVAL if it never was.
 */
int core_iommu_disable(struct core *core, unsigned int adapter);

/**
 * core_memory() - memory pressure from now on (UINT64_MAX: none).
 * @core: the model.
 * @p: what is available.
 */
void core_memory(struct core *core, const struct physmem_pressure *p);

/**
 * core_explain() - print what the model decided for every adapter.
 * @core: a started model.
 * @out: where.
 * @json: the gpuiso-explain/1 JSON document instead of text.
 *
 * Return: 0, -EIO on a write error.
 */
int core_explain(struct core *core, FILE *out, bool json);

/** core_live_handles() - handles not yet freed (any adapter). @core: the model. */
size_t core_live_handles(const struct core *core);
/** core_hw() - the backend. @core: the model. */
struct hw *core_hw(struct core *core);
/** core_physmem() - the physical memory. @core: the model. */
struct physmem *core_physmem(struct core *core);

/**
 * ntstatus_name() - the NTSTATUS a negative errno stands for when reporting.
 * @err: 0 or a negative errno.
 *
 * Return: e.g. "STATUS_NO_MEMORY" for -ENOMEM; "STATUS_SUCCESS" for 0.
 */
const char *ntstatus_name(int err);

#endif
