/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_CORE_CORE_RESULTS_H
#define GPUISO_CORE_CORE_RESULTS_H

#include "common/types.h"
#include "core/core_types.h"

/*
 * What the model records as it runs: the verifier's violations, the DMA the
 * IOMMU blocked, the DMA that reached memory not given to it, and every
 * power transition (core/verifier.c, core/blocked.c, core/rogue.c).
 */

/* Stable verifier codes; core_violation_name() gives their text. */
enum core_violation_code {
	CORE_V_CB_IRQL,           /* callback at DISPATCH_LEVEL or above */
	CORE_V_CB_IN_EXCLUSIVE,   /* callback between Begin/EndExclusiveAccess */
	CORE_V_DMA_IN_EXCLUSIVE,  /* device DMA between Begin/EndExclusiveAccess */
	CORE_V_WORK_IN_EXCLUSIVE, /* work submitted while the scheduler is suspended */
	CORE_V_UNMAP_AFTER_FREE,  /* UnmapMdlFromIoMmu after the MDL was freed */
	CORE_V_DEPRECATED_CB,     /* WDDM 2.4 memory callback by a driver reporting linear remapping */
	CORE_V_BAD_HANDLE,        /* unknown, freed, foreign or wrong-kind handle */
	CORE_V_HANDLE_LEAK,       /* handle still live at adapter teardown */
	CORE_V_MAPPING_LEAK,      /* IOMMU mapping left in a domain at teardown */
	CORE_V_FB_NOT_LEAD,       /* frame-buffer callback without the lead adapter */
	CORE_V_FB_RESTORE_MISMATCH, /* restored VRAM differs from what was saved */
	CORE_V_FB_SEQUENCE,       /* unpin without pin, pin twice, transition out of order */
	CORE_V_PMO_BUSY,          /* PMO destroyed with ADLs, views or opens outstanding */
	CORE_V_STALE_TRANSLATION, /* DMA translated by a stale IOTLB entry */
	CORE_V_CPU_ACCESS,        /* CPU access through no CPU address (ADL, PMO, dead CpuVisibleAddress) */
	CORE_V_CB_VERSION,        /* WDDM 3.0 memory service called by a driver of an earlier version */
	CORE_V_FB_SAVE_SIZE,      /* save size at a power-down above the maximum, or not whole pages */
	CORE_V_NVIOLATIONS
};

struct core_violation {
	enum core_violation_code code;
	uint64_t event;   /* event index when it happened (core_set_event) */
	uint64_t ts_ns;   /* event timestamp */
	core_handle_t handle;  /* HANDLE_LEAK: the handle never freed; else 0 */
	bool at_teardown; /* found as the adapters stopped (core_stop()), after the last event */
	char detail[200];
};

/* Whose rule a violation code is (docs/model.md, "Who broke it"). */
enum core_party {
	CORE_PARTY_DRIVER, /* the driver's: the model only checks it */
	CORE_PARTY_OS,     /* the model's own (Dxgkrnl's): mappings, IOTLB, saved VRAM */
};

/*
 * Why the IOMMU blocked a DMA, as the model knows it (docs/model.md,
 * "Blocked DMA"): the hardware says only "not present" or "no permission".
 */
enum core_fault_cause {
	CORE_FAULT_NOT_MAPPED,   /* nothing is mapped there, and no unmap the model remembers was */
	CORE_FAULT_BEYOND_RANGE, /* past the domain's logical range, or the IOMMU's input width */
	CORE_FAULT_SWITCH,       /* during a switch of domains: inside exclusive access */
	CORE_FAULT_RESERVED,     /* in the interrupt window the IOMMU reserves (0xFEE00000, 1 MiB) */
	CORE_FAULT_AFTER_UNMAP,  /* its mapping was removed at event by_event; the memory lives on */
	CORE_FAULT_AFTER_FREE,   /* its memory was freed at event by_event */
	CORE_FAULT_NCAUSES
};

/* A DMA the IOMMU blocked: what VT-d's fault recording or AMD-Vi's event log keeps, and why. */
struct core_fault {
	uint64_t event, ts_ns;
	unsigned int adapter, phys;
	uint32_t domain;  /* the physical adapter's domain then (CORE_NO_DOMAIN: none) */
	iova_t iova;      /* the first blocked page */
	bool write;
	uint8_t reason;   /* enum hw_fault_reason: what the hardware said */
	uint8_t cause;    /* enum core_fault_cause */
	uint64_t by_event, by_ts_ns; /* CORE_FAULT_AFTER_UNMAP, _AFTER_FREE: the event that did it */
	const char *by_op;           /* and its operation's name, or NULL */
};

/*
 * A DMA the IOMMU let through to memory the device was not given: with no
 * domain between it and memory, or through the address of a freed object
 * that the IOMMU still translates (its unmap refused, or mapped again since
 * for other memory).
 */
enum core_exposure_how {
	CORE_EXPOSED_NO_DOMAIN, /* no IOMMU domain: the device reached physical memory */
	CORE_EXPOSED_STALE,     /* a stale address the IOMMU still translates: unmap refused, or mapped again */
};

struct core_exposure {
	uint64_t event, ts_ns;
	unsigned int adapter, phys;
	uint64_t address, bytes; /* as the device issued them */
	bool write;
	uint8_t how;             /* enum core_exposure_how */
};

enum power_path {
	PATH_PINNED = 0,  /* whole save area pinned, one GPU copy */
	PATH_CHUNKED = 1, /* forward progress through the small buffer */
	PATH_RESET = 2,   /* even a chunk failed: transition cancelled, adapter reset */
	PATH_NONE = 3,    /* nothing to save: no save area */
};

struct core_power_record {
	uint64_t event, ts_ns;
	unsigned int adapter, phys;
	enum power_state to;
	enum power_path path;
	bool completed;     /* finished (pinned or chunked) */
	bool verified;      /* power-up: VRAM equal to what was saved */
	uint64_t bytes;     /* bytes copied */
	uint64_t chunks;    /* chunks (chunked path) */
	uint64_t copy_ns;   /* wall time of the save or restore itself */
	uint64_t modeled_ns; /* device time the backend's cost model gave it */
	uint64_t max_stall_ns; /* longest wall time without progress (between start, pin, chunks, end) */
};

/* --- results --- */

/** core_violations() - the verifier's record. @core; @n: out: count. Return: array. */
const struct core_violation *core_violations(const struct core *core, size_t *n);
/** core_violation_name() - stable code text, e.g. "UNMAP_AFTER_FREE". @code: the code. */
const char *core_violation_name(enum core_violation_code code);
/** core_violation_party() - whose rule the code is. @code: the code. Return: the party. */
enum core_party core_violation_party(enum core_violation_code code);
/** core_faults() - DMA the IOMMU blocked. @core; @n: out. Return: array. */
const struct core_fault *core_faults(const struct core *core, size_t *n);
/**
 * core_fault_cause_name() - the stable text of a cause, e.g. "after_free".
 * @cause: enum core_fault_cause.
 *
 * Return: the name, or "?" for a value out of range.
 */
const char *core_fault_cause_name(unsigned int cause);
/**
 * core_exposure_how_name() - the stable text of an exposure, e.g. "no_domain".
 * @how: enum core_exposure_how.
 *
 * Return: the name, or "?" for a value out of range.
 */
const char *core_exposure_how_name(unsigned int how);
/** core_exposures() - DMA that reached memory not given to it. @core; @n: out. Return: array. */
const struct core_exposure *core_exposures(const struct core *core, size_t *n);
/** core_power_records() - every power transition. @core; @n: out. Return: array. */
const struct core_power_record *core_power_records(const struct core *core, size_t *n);

#endif
