/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_CORE_CORE_H
#define GPUISO_CORE_CORE_H

#include <stdio.h>

#include "common/types.h"
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
 */

struct core;

/** typedef core_handle_t - a handle the model gives a driver; 0 is never valid. */
typedef uint32_t core_handle_t;

enum core_irql {
	CORE_IRQL_PASSIVE = 0,
	CORE_IRQL_APC = 1,
	CORE_IRQL_DISPATCH = 2, /* callbacks here are a violation (WDDM 3.2 bugchecks) */
	CORE_IRQL_HIGH = 15,    /* HIGH_LEVEL on x64: the highest level a trace may give */
};

/* DXGK_MEMORY_CACHING_TYPE: these three values and no other. */
enum cache_type {
	CACHE_NONCACHED = 0,
	CACHE_CACHED = 1,
	CACHE_WRITECOMBINED = 2,
};

/* DXGK_ACCESS_MODE: whom a CPU view of a PMO is mapped for. */
enum cpu_access {
	CPU_KERNEL = 0,
	CPU_USER = 1,
};

/* Where a VidMm allocation lives. */
enum core_segment {
	CORE_SEG_VRAM = 0,     /* a memory segment in VRAM */
	CORE_SEG_APERTURE = 1, /* an aperture segment (system pages mapped for the GPU) */
	CORE_SEG_SYSTEM = 2,   /* the implicit system-memory segment */
};

/* DXGK_ALLOCATIONINFOFLAGS_WDDM2_0 bits that matter here. */
enum alloc_flag {
	ALLOC_ACCESSED_PHYSICALLY = 0x1,
	ALLOC_MAP_APERTURE_CPU_VISIBLE = 0x2,
};

enum transfer_dir {
	TRANSFER_TO_VRAM = 0,   /* page in: system backing store -> VRAM */
	TRANSFER_FROM_VRAM = 1, /* evict: VRAM -> system backing store */
};

enum power_state {
	POWER_D0 = 0,
	POWER_D3 = 3,
};

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

/* A MapApertureSegment2 (or legacy MapApertureSegment) the KMD received. */
struct paging_op {
	enum { PAGING_MAP_APERTURE, PAGING_MAP_APERTURE2, PAGING_UNMAP_APERTURE } kind;
	core_handle_t allocation;
	uint64_t offset_pages, pages;
	/* MAP_APERTURE2: the ADL */
	bool adl_logical;    /* pages are logical addresses */
	bool adl_contiguous; /* DXGK_ADL flag: one run */
	iova_t adl_base;     /* first page's address (as the device uses it) */
	uint64_t adl_offset; /* AdlOffset in pages */
	/*
	 * CpuVisibleAddress: a CPU view of the mapped pages (core_view_rw()),
	 * valid while the allocation is mapped into the aperture segment and
	 * freed right after the matching unmap; 0 (NULL) without
	 * MapApertureCpuVisible.
	 */
	core_handle_t cpu_visible_address;
};

/* Queries Dxgkrnl makes of the KMD (DXGKQAITYPE_*). */
enum qai_type {
	QAI_DRIVERCAPS,           /* out: struct scn_caps (VidMm caps part) */
	QAI_PHYSICAL_MEMORY_CAPS, /* out: uint64_t highest visible address; -ENOTSUP if none */
	QAI_IOMMU_CAPS,           /* out: bool linear remap supported */
	QAI_FRAMEBUFFERSAVESIZE,  /* in: phys; out: uint64_t bytes */
	QAI_HARDWARERESERVEDRANGES, /* in: phys; out: count, then array (two calls) */
	/*
	 * in: phys; out: uint64_t bytes the driver saves at this power-down
	 * ("the exact amount ... can change dynamically"); asked at each one,
	 * within the maximum of QAI_FRAMEBUFFERSAVESIZE. An error: the maximum.
	 */
	QAI_FRAMEBUFFERSAVESIZE_NOW,
};

struct qai_reserved {
	size_t count;               /* in/out */
	struct range_extent *ranges; /* NULL on the first call */
};

/* The KMD as Dxgkrnl sees it: the DDIs Dxgkrnl calls. */
struct kmd_ops {
	int (*query_adapter_info)(struct core *core, void *kmd, unsigned int adapter,
				  enum qai_type type, unsigned int phys, void *out);
	int (*start_device)(struct core *core, void *kmd, unsigned int adapter);
	void (*stop_device)(struct core *core, void *kmd, unsigned int adapter);
	void (*begin_exclusive_access)(struct core *core, void *kmd, unsigned int adapter);
	void (*end_exclusive_access)(struct core *core, void *kmd, unsigned int adapter);
	int (*build_paging_buffer)(struct core *core, void *kmd, unsigned int adapter,
				   const struct paging_op *op);
	int (*set_power_state)(struct core *core, void *kmd, unsigned int adapter,
			       unsigned int phys, enum power_state state);
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
 * core_set_kmd() - replace the reference KMD (before core_start()).
 * @core: the model.
 * @ops: the DDIs; NULL members fall back to the reference KMD's.
 * @kmd: passed back to @ops.
 */
void core_set_kmd(struct core *core, const struct kmd_ops *ops, void *kmd);

/**
 * core_kmd_reference() - the reference KMD's DDIs (for a test KMD to wrap).
 *
 * Return: the ops table; its functions ignore the kmd argument.
 */
const struct kmd_ops *core_kmd_reference(void);

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

/* --- WDDM 2.4 memory callbacks (DXGKCB_*) --- */

/**
 * core_alloc_contiguous() - DxgkCbAllocateContiguousMemory: physically
 * contiguous pages, mapped to the IOMMU in one step.
 * @core: the model.
 * @adapter: index.
 * @bytes: size (rounded up to pages).
 * @cache: caching type.
 * @h: out: handle for core_free_contiguous().
 * @logical: out: the device address of its first byte (may be NULL).
 *
 * Return: 0, -EINVAL (no bytes, a caching type the DDI does not define),
 * -ENOMEM, -EPERM (refused: a driver reporting linear remapping, a WDDM
 * 3.2 bugcheck, exclusive access), -ENODEV, -ESHUTDOWN (after a bugcheck).
 */
int core_alloc_contiguous(struct core *core, unsigned int adapter, uint64_t bytes,
			  enum cache_type cache, core_handle_t *h, iova_t *logical);

/**
 * core_free_contiguous() - DxgkCbFreeContiguousMemory.
 * @core, @adapter, @h: as allocated.
 *
 * Return: 0, -EINVAL (not a live allocation of @adapter: a violation says
 * which), or -ENODEV or -ESHUTDOWN as every callback (no adapter, after a bugcheck).
 */
int core_free_contiguous(struct core *core, unsigned int adapter, core_handle_t h);

/**
 * core_alloc_mdl() - DxgkCbAllocatePagesForMdl: pages (not necessarily
 * contiguous) described by an MDL, mapped to the IOMMU in one step.
 * @core: the model.
 * @adapter: index.
 * @bytes: size (rounded up to pages).
 * @h: out: the MDL handle.
 *
 * Return: as core_alloc_contiguous().
 */
int core_alloc_mdl(struct core *core, unsigned int adapter, uint64_t bytes, core_handle_t *h);

/**
 * core_free_mdl() - DxgkCbFreePagesFromMdl.
 * @core, @adapter, @h: the MDL.
 *
 * Return: as core_free_contiguous().
 */
int core_free_mdl(struct core *core, unsigned int adapter, core_handle_t h);

/**
 * core_map_mdl() - DxgkCbMapMdlToIoMmu: map a driver-managed MDL; the MDL
 * must outlive the mapping (unmapping after freeing it is a violation).
 * @core: the model.
 * @adapter: index.
 * @mdl: the MDL.
 * @h: out: the mapping handle.
 * @logical: out: device address of the first page (may be NULL).
 *
 * Return: 0, -EINVAL (not a live MDL of @adapter), -ENOMEM, -EPERM (a
 * deprecated callback refused), or -ENODEV or -ESHUTDOWN as every callback (no adapter, after a bugcheck).
 */
int core_map_mdl(struct core *core, unsigned int adapter, core_handle_t mdl, core_handle_t *h,
		 iova_t *logical);

/**
 * core_driver_mdl_create() - the driver builds an MDL over memory it
 * obtained itself (non-paged: committed and locked), not through a
 * callback: nothing is mapped for the device until core_map_mdl(), which
 * exists to track exactly such MDLs. Freed with core_driver_mdl_free(),
 * never with core_free_mdl().
 * @core: the model.
 * @adapter: index.
 * @bytes: size (rounded up to pages).
 * @h: out: the MDL.
 *
 * Return: 0, -EINVAL (no bytes), -ENOMEM, -ENODEV, -ESHUTDOWN (bugchecked).
 */
int core_driver_mdl_create(struct core *core, unsigned int adapter, uint64_t bytes,
			   core_handle_t *h);

/**
 * core_driver_mdl_free() - the driver frees its own MDL and the memory under
 * it. It must outlive every mapping of it (UNMAP_AFTER_FREE at the unmap).
 * @core: the model.
 * @adapter: index.
 * @h: from core_driver_mdl_create().
 *
 * Return: 0, -EINVAL (BAD_HANDLE: not a live driver MDL of @adapter).
 */
int core_driver_mdl_free(struct core *core, unsigned int adapter, core_handle_t h);

/**
 * core_unmap_mdl() - DxgkCbUnmapMdlFromIoMmu.
 * @core, @adapter, @h: the mapping.
 *
 * Return: as core_free_contiguous().
 */
int core_unmap_mdl(struct core *core, unsigned int adapter, core_handle_t h);

/*
 * --- WDDM 3.0 memory management services ---
 * Each refuses a driver of a WDDM version before 3.0 (-EPERM, a CB_VERSION
 * violation): the services are WDDM 3.0's.
 */

/**
 * core_pmo_create() - create a physical memory object over system memory
 * (pages committed and allocated, not locked).
 * @core: the model.
 * @adapter: index.
 * @bytes: size (rounded up to pages).
 * @cache: caching type of its CPU views (DXGK_MEMORY_CACHING_TYPE).
 * @h: out: the PMO.
 *
 * Return: 0, -EINVAL (no bytes, a caching type the DDI does not define),
 * -ENOMEM, -EPERM, -ENODEV.
 */
int core_pmo_create(struct core *core, unsigned int adapter, uint64_t bytes,
		    enum cache_type cache, core_handle_t *h);
/**
 * core_pmo_create_io() - create a physical memory object over a range of IO
 * space the driver provides (DXGK_PHYSICAL_MEMORY_TYPE_IO_SPACE): device
 * memory, not RAM, so nothing is committed, allocated or locked; an ADL
 * maps it for the GPU and CPU views map it for the CPU.
 * @core: the model.
 * @adapter: index.
 * @base: physical address of the range (page aligned).
 * @bytes: its size (whole pages).
 * @cache: caching type of its CPU views.
 * @h: out: the PMO.
 *
 * Return: 0, -EINVAL (unaligned, empty, beyond the address space, a caching
 * type the DDI does not define), -EFAULT (the range overlaps installed
 * memory: that is RAM, not IO space), -EPERM, -ENODEV.
 */
int core_pmo_create_io(struct core *core, unsigned int adapter, uint64_t base, uint64_t bytes,
		       enum cache_type cache, core_handle_t *h);
/**
 * core_pmo_destroy() - destroy a PMO with nothing outstanding on it.
 * @core, @adapter, @h: the PMO.
 *
 * Return: 0, -EINVAL (not a live PMO of @adapter), -EBUSY (opened, viewed
 * or mapped still), or -ENODEV or -ESHUTDOWN as every callback (no adapter, after a bugcheck).
 */
int core_pmo_destroy(struct core *core, unsigned int adapter, core_handle_t h);
/**
 * core_pmo_open() - another reference to a PMO.
 * @core, @adapter, @pmo: the PMO.
 * @h: out: the reference.
 *
 * Return: 0, -EINVAL (not a live PMO of @adapter), -ENOMEM, or -ENODEV or -ESHUTDOWN as every callback (no adapter, after a bugcheck).
 */
int core_pmo_open(struct core *core, unsigned int adapter, core_handle_t pmo, core_handle_t *h);
/**
 * core_pmo_close() - drop a reference from core_pmo_open().
 * @core, @adapter, @h: the reference.
 *
 * Return: as core_free_contiguous().
 */
int core_pmo_close(struct core *core, unsigned int adapter, core_handle_t h);

/**
 * core_pmo_map_cpu() - DxgkCbMapPhysicalMemory: map a CPU view of part of a
 * PMO, for kernel or user mode, with the PMO's caching type. The view
 * covers the whole pages around [@offset, @offset + @bytes): the requested
 * data starts core_view_info().start bytes into it.
 * @core: the model.
 * @adapter: index.
 * @pmo: the PMO.
 * @mode: CPU_KERNEL or CPU_USER.
 * @offset: byte offset in the PMO.
 * @bytes: length (not 0).
 * @h: out: the view.
 *
 * Return: 0, -ERANGE (outside the PMO), -EINVAL, -EPERM, -ENODEV.
 */
int core_pmo_map_cpu(struct core *core, unsigned int adapter, core_handle_t pmo,
		     enum cpu_access mode, uint64_t offset, uint64_t bytes, core_handle_t *h);

/* A CPU view as the driver holds it. */
struct core_view_info {
	enum cpu_access mode;   /* kernel or user mode */
	enum cache_type cache;  /* its PMO's (a frame-buffer chunk: write-combined) */
	bool io_space;          /* it maps IO space, not RAM */
	uint64_t start;         /* where the requested bytes begin in it */
	uint64_t bytes;         /* mapped size: whole pages */
};

/**
 * core_view_info() - what a CPU view maps and how.
 * @core: the model.
 * @h: a CPU view (of a PMO, a frame-buffer chunk or an aperture mapping).
 * @info: out.
 *
 * Return: 0, or -EINVAL when @h is not a live view.
 */
int core_view_info(struct core *core, core_handle_t h, struct core_view_info *info);
/**
 * core_pmo_unmap_cpu() - drop a view.
 * @core, @adapter, @h: the view.
 *
 * Return: as core_free_contiguous().
 */
int core_pmo_unmap_cpu(struct core *core, unsigned int adapter, core_handle_t h);

/**
 * core_view_rw() - CPU access through a handle with a CPU address: a CPU
 * view (of a PMO, a frame-buffer chunk, an aperture mapping), an MDL,
 * contiguous memory, an allocation's or fence's memory.
 * @core: the model.
 * @h: the view.
 * @offset: byte offset in the view.
 * @buf: data.
 * @len: bytes.
 * @write: direction.
 *
 * Return: 0; -EPERM with a CPU_ACCESS violation for an ADL, an MDL's
 * IOMMU mapping or a PMO (no CPU address); -EINVAL for a handle that is not
 * live.
 */
int core_view_rw(struct core *core, core_handle_t h, uint64_t offset, void *buf, uint64_t len,
		 bool write);

/**
 * core_cpu_access() - the driver's CPU reads or writes memory through the
 * CPU address it holds for a handle: contiguous memory, an MDL (Dxgkrnl's
 * or its own), a CPU view (of a PMO, a frame-buffer chunk), a pinned save
 * area, a monitored fence; for a VidMm allocation, its CpuVisibleAddress
 * (MapApertureSegment2 with MapApertureCpuVisible), valid only while the
 * allocation is mapped into the aperture segment. Not a callback: no IRQL
 * or exclusive-access gate. A write stores a byte pattern of the event.
 * @core: the model.
 * @adapter: index.
 * @h: the handle, of @adapter.
 * @offset: byte offset in the memory the CPU address maps (an allocation:
 *          from its CpuVisibleAddress).
 * @bytes: length (not 0).
 * @write: direction.
 *
 * Return: 0; -EPERM with a CPU_ACCESS violation when @h gives the CPU no
 * address (an ADL, an MDL's IOMMU mapping, a PMO or an open handle of it,
 * an allocation that is not mapped with a CpuVisibleAddress now: never,
 * without MapApertureCpuVisible, or after the unmap freed it); -ERANGE
 * (beyond what it maps); -EINVAL (no bytes; with BAD_HANDLE: not live, or
 * another adapter's); -ENODEV; -ESHUTDOWN (bugchecked).
 */
int core_cpu_access(struct core *core, unsigned int adapter, core_handle_t h, uint64_t offset,
		    uint64_t bytes, bool write);

/**
 * core_adl_alloc() - lock part of a PMO for the GPU and describe it by an ADL:
 * logical pages (one contiguous run) in logical-remap mode, physical pages
 * otherwise. Locked and mapped for the ADL's lifetime.
 * @core: the model.
 * @adapter: index.
 * @pmo: the PMO.
 * @offset: byte offset, page aligned.
 * @bytes: length.
 * @h: out: the ADL.
 *
 * Return: 0, -ERANGE (outside the PMO), -ENOSPC (no logical range free below
 * the device's limit), -ENOMEM (cannot lock or map), -EPERM, -ENODEV.
 */
int core_adl_alloc(struct core *core, unsigned int adapter, core_handle_t pmo, uint64_t offset,
		   uint64_t bytes, core_handle_t *h);
/**
 * core_adl_free() - unlock and unmap an ADL.
 * @core, @adapter, @h: the ADL.
 *
 * Return: as core_free_contiguous().
 */
int core_adl_free(struct core *core, unsigned int adapter, core_handle_t h);

struct core_adl_info {
	bool logical;    /* addresses are logical */
	bool contiguous; /* one run */
	iova_t base;     /* device address of the first page */
	uint64_t pages;
};
/**
 * core_adl_info() - describe an ADL.
 * @core, @h: the ADL.
 * @info: out.
 *
 * Return: 0, or -EINVAL when @h is not a live ADL.
 */
int core_adl_info(struct core *core, core_handle_t h, struct core_adl_info *info);

/* --- VidMm --- */

/**
 * core_alloc_create() - DxgkDdiCreateAllocation through VidMm.
 * @core: the model.
 * @adapter: index.
 * @bytes: size.
 * @segment: requested segment; an aperture request without
 *           ALLOC_ACCESSED_PHYSICALLY goes to the implicit system segment.
 * @flags: enum alloc_flag bits.
 * @h: out: the allocation.
 *
 * Return: 0, -EINVAL (MapApertureCpuVisible without MapAperture2Supported),
 * -ENOMEM, -ENODEV.
 */
int core_alloc_create(struct core *core, unsigned int adapter, uint64_t bytes,
		      enum core_segment segment, uint32_t flags, core_handle_t *h);
/**
 * core_alloc_destroy() - destroy an allocation (unmapping what VidMm mapped).
 * @core, @adapter, @h: the allocation, as created.
 *
 * Return: 0, -EINVAL (not a live allocation of @adapter), or -ENODEV or
 * -ESHUTDOWN as every VidMm operation.
 */
int core_alloc_destroy(struct core *core, unsigned int adapter, core_handle_t h);
/**
 * core_alloc_segment() - the segment an allocation was placed in.
 * @core: the model.
 * @h: the allocation.
 *
 * Return: its enum core_segment, or -EINVAL when @h is not a live allocation.
 */
int core_alloc_segment(struct core *core, core_handle_t h);

/**
 * core_map_aperture() - map pages of an aperture-segment allocation
 * (MAP_APERTURE_SEGMENT2 to the KMD when it supports it).
 * @core: the model.
 * @adapter: index.
 * @h: the allocation.
 * @offset_pages: first page.
 * @pages: how many.
 *
 * Return: 0, -EINVAL (not in an aperture segment, out of range), -EBUSY (mapped).
 */
int core_map_aperture(struct core *core, unsigned int adapter, core_handle_t h,
		      uint64_t offset_pages, uint64_t pages);
/**
 * core_unmap_aperture() - UNMAP_APERTURE_SEGMENT; the CPU-visible address dies.
 * @core, @adapter, @h: the allocation, as mapped.
 *
 * Return: 0, -EINVAL (not an allocation of @adapter mapped in the aperture),
 * what every VidMm operation's entry refuses (-ENODEV, -ESHUTDOWN), or the
 * KMD's paging operation's error.
 */
int core_unmap_aperture(struct core *core, unsigned int adapter, core_handle_t h);

/**
 * core_transfer() - a paging transfer between VRAM and the backing store; the
 * backing store is mapped for the duration of the transfer only.
 * @core: the model.
 * @adapter: index.
 * @h: a VRAM-segment allocation.
 * @dir: direction.
 * @bytes: bytes to move (0: the whole allocation).
 *
 * Return: 0, -EINVAL (not in VRAM, a direction that is neither), -ERANGE
 * (more bytes than the allocation), -ENOMEM, -EIO.
 */
int core_transfer(struct core *core, unsigned int adapter, core_handle_t h, enum transfer_dir dir,
		  uint64_t bytes);

/**
 * core_fence_create() - a monitored fence: one page mapped for the GPU.
 * @core: the model.
 * @adapter: index.
 * @h: out: the fence.
 *
 * Return: 0, -ENOMEM (no page, no handle, no page table), or -ENODEV or
 * -ESHUTDOWN as every VidMm operation.
 */
int core_fence_create(struct core *core, unsigned int adapter, core_handle_t *h);
/**
 * core_fence_destroy() - unmap and free a monitored fence.
 * @core, @adapter, @h: the fence, as created.
 *
 * Return: 0, -EINVAL (not a live fence of @adapter), or -ENODEV or
 * -ESHUTDOWN as every VidMm operation.
 */
int core_fence_destroy(struct core *core, unsigned int adapter, core_handle_t h);

/**
 * core_dma() - the GPU of physical adapter @phys reads or writes memory
 * behind a handle (any kind the GPU can address).
 * @core: the model.
 * @adapter: index.
 * @phys: physical adapter.
 * @h: target.
 * @offset: byte offset in it.
 * @bytes: length.
 * @write: true: the device writes system memory.
 *
 * Return: 0, -EFAULT when the IOMMU blocked it (a core_fault is recorded),
 * -EINVAL, -EPERM (exclusive access).
 */
int core_dma(struct core *core, unsigned int adapter, unsigned int phys, core_handle_t h,
	     uint64_t offset, uint64_t bytes, bool write);

/**
 * core_dma_raw() - the GPU of physical adapter @phys reads or writes at a
 * device address of its own choosing, through no handle: a device gone rogue.
 * @core: the model.
 * @adapter: index.
 * @phys: physical adapter.
 * @address: the address the device issues (in 1:1 mode a physical address,
 *           in logical mode a logical one; with no domain, physical).
 * @bytes: length.
 * @write: true: the device writes system memory.
 *
 * What the IOMMU blocks is recorded as core_faults(); what reaches memory
 * with no domain in between, as core_exposures().
 *
 * Return: 0, -EFAULT (blocked), -EINVAL (no bytes, or more than the GPU's
 * VRAM), -ENOENT, -ENODEV (not started), -EPERM (scheduler suspended), -ERANGE
 * (beyond what the device can address).
 */
int core_dma_raw(struct core *core, unsigned int adapter, unsigned int phys, uint64_t address,
		 uint64_t bytes, bool write);

/**
 * core_dma_stale() - a DMA through a handle that is no longer live: the
 * device still holds the addresses the object had, and uses them.
 * @core: the model.
 * @adapter: index.
 * @phys: physical adapter.
 * @h: the handle as it was given (now freed).
 * @offset: byte offset in the object.
 * @bytes: length.
 * @write: true: the device writes system memory.
 *
 * The model remembers the device addresses of the last CORE_TOMBS objects
 * freed. A DMA the IOMMU lets through to an address mapped again since is
 * an exposure (CORE_EXPOSED_STALE); with no domain, CORE_EXPOSED_NO_DOMAIN.
 *
 * Return: as core_dma_raw(), and -ENOENT when @h is not among the objects
 * remembered, -ERANGE when @offset + @bytes runs past the object.
 */
int core_dma_stale(struct core *core, unsigned int adapter, unsigned int phys, core_handle_t h,
		   uint64_t offset, uint64_t bytes, bool write);

/**
 * core_dma_exclusive() - the GPU of physical adapter @phys will read or write
 * at @address inside its adapter's next exclusive access (the bracket of a
 * domain attach or detach), where the hardware must be silent.
 * @core: the model.
 * @adapter: index.
 * @phys: physical adapter.
 * @address: the device address (as core_dma_raw()).
 * @bytes: length.
 * @write: true: the device writes system memory.
 *
 * At DxgkDdiBeginExclusiveAccess the device issues it, before its domain
 * changes: a DMA_IN_EXCLUSIVE violation, and what the IOMMU blocks is a
 * fault of cause CORE_FAULT_SWITCH. With no exclusive access before the
 * adapter stops (no domain to detach), the device issues it as it stops.
 *
 * Return: 0 (armed), -ENOENT, -ENODEV (not started), -EINVAL, -ERANGE, -ENOMEM.
 */
int core_dma_exclusive(struct core *core, unsigned int adapter, unsigned int phys,
		       uint64_t address, uint64_t bytes, bool write);

/* How many freed objects core_dma_stale() can still reach. */
#define CORE_TOMBS 4096

/**
 * core_power() - a power transition of one physical adapter: D0->D3 saves
 * its frame-buffer reserve (pinned, else chunked, else reset), D3->D0
 * restores it and checks VRAM equals what was saved. One core_power_record each.
 * @core: the model.
 * @adapter: index.
 * @phys: physical adapter.
 * @state: target state.
 *
 * Return: 0 when the transition completed (possibly by reset), -EINVAL for a
 * transition to the state it is in.
 */
int core_power(struct core *core, unsigned int adapter, unsigned int phys,
	       enum power_state state);

/**
 * core_memory() - memory pressure from now on (UINT64_MAX: none).
 * @core: the model.
 * @p: what is available.
 */
void core_memory(struct core *core, const struct physmem_pressure *p);

/* --- frame-buffer save callbacks (DXGKCB_*FRAMEBUFFER*), used by the KMD --- */

/**
 * core_fb_pin() - DxgkCbPinFrameBufferForSave: lock the whole save section
 * and map it to the IOMMU.
 * @core: the model.
 * @adapter: index.
 * @caller: the physical adapter whose hAdapter the driver passed (must be the lead).
 * @phys: the physical adapter whose section (shared mode: the one section).
 * @mdl: out: the locked, mapped section (for core_gpu_copy()).
 *
 * Return: 0, -ENOMEM (could not lock or map), -EINVAL (not the lead, no
 * save area), -EBUSY (pinned already).
 */
int core_fb_pin(struct core *core, unsigned int adapter, unsigned int caller, unsigned int phys,
		core_handle_t *mdl);
/**
 * core_fb_unpin() - DxgkCbUnpinFrameBufferForSave.
 * @core, @adapter, @caller: as for core_fb_pin().
 * @mdl: from core_fb_pin().
 *
 * Return: 0, -EINVAL (not a pinned save area: a violation says why), or
 * what every save-area callback's entry refuses (core_fb_pin()).
 */
int core_fb_unpin(struct core *core, unsigned int adapter, unsigned int caller, core_handle_t mdl);
/**
 * core_fb_map_chunk() - DxgkCbMapFrameBufferPointer: lock and CPU-map
 * [offset, offset+bytes) of the save section.
 * @core: the model.
 * @adapter: index.
 * @caller: hAdapter's physical adapter (must be the lead).
 * @phys: whose section.
 * @offset: byte offset (page aligned).
 * @bytes: length.
 * @view: out: a view for core_view_rw().
 *
 * Return: 0, -EINVAL (a range outside the section, not page aligned),
 * -ENOMEM, or what every save-area callback's entry refuses (core_fb_pin()).
 */
int core_fb_map_chunk(struct core *core, unsigned int adapter, unsigned int caller,
		      unsigned int phys, uint64_t offset, uint64_t bytes, core_handle_t *view);
/**
 * core_fb_unmap_chunk() - DxgkCbUnmapFrameBufferPointer.
 * @core, @adapter, @caller: as for core_fb_map_chunk().
 * @view: from core_fb_map_chunk().
 *
 * Return: as core_fb_unpin(), for a mapped save-area chunk.
 */
int core_fb_unmap_chunk(struct core *core, unsigned int adapter, unsigned int caller,
			core_handle_t view);

/**
 * core_fb_save_size() - the driver's frame-buffer save size from now on.
 * @core: the model.
 * @adapter: index.
 * @phys: the physical adapter.
 * @bytes: what the reference KMD answers when Dxgkrnl asks it at the next
 *         power-downs (QAI_FRAMEBUFFERSAVESIZE_NOW); not judged here.
 *
 * A state of the driver, not a callback: no gate. Until the first, the
 * reference KMD saves all of its part of the save area.
 *
 * Return: 0, -ENOENT (no such adapter or physical adapter), -ENODEV (not
 * started), -ESHUTDOWN (bugchecked).
 */
int core_fb_save_size(struct core *core, unsigned int adapter, unsigned int phys,
		      uint64_t bytes);

/**
 * core_fb_region() - where a physical adapter's reserve lives: its VRAM
 * offset and size, and its byte offset in its save section.
 * @core: the model.
 * @adapter: index.
 * @phys: physical adapter.
 * @vram_off: out.
 * @bytes: out: the bytes of it the current (or last) power-down saves, as
 *         the driver said when asked (all of it until then).
 * @section_off: out.
 *
 * Return: 0, or -ENOENT when there is no such adapter or physical adapter.
 */
int core_fb_region(struct core *core, unsigned int adapter, unsigned int phys,
		   uint64_t *vram_off, uint64_t *bytes, uint64_t *section_off);

/**
 * core_small_buffer() - the forward-progress buffer a physical adapter's KMD
 * preallocated (the reference KMD registers it here).
 * @core: the model.
 * @adapter: index.
 * @phys: physical adapter.
 * @gpu: out: the handle the GPU copies through (an MDL, or an ADL).
 * @cpu: out: the handle the CPU copies through (the MDL, or a CPU view of
 * the PMO behind the ADL: an ADL is never CPU-accessible).
 * @bytes: out: its size.
 *
 * Return: 0, or -ENOENT when the physical adapter has none.
 */
int core_small_buffer(struct core *core, unsigned int adapter, unsigned int phys,
		      core_handle_t *gpu, core_handle_t *cpu, uint64_t *bytes);

/**
 * core_gpu_copy() - submit copy-engine jobs on a physical adapter and wait
 * for them: VRAM <-> the memory behind handle @h (split where its device
 * addresses are not contiguous).
 * @core: the model.
 * @adapter: index.
 * @phys: physical adapter.
 * @dir: HW_COPY_TO_SYSTEM or HW_COPY_FROM_SYSTEM.
 * @vram_off: VRAM offset.
 * @h: the system-side memory (any handle with pages).
 * @offset: byte offset in it.
 * @bytes: length.
 *
 * Return: 0, -EFAULT (blocked: faults recorded), -EPERM (scheduler
 * suspended), -EIO (device off or injected), -EINVAL, -ERANGE.
 */
int core_gpu_copy(struct core *core, unsigned int adapter, unsigned int phys,
		  enum hw_copy_dir dir, uint64_t vram_off, core_handle_t h, uint64_t offset,
		  uint64_t bytes);

/**
 * core_view_copy() - CPU copy between the memory of two handles (what a
 * driver's RtlCopyMemory between two mapped buffers does).
 * @core: the model.
 * @dst: destination handle.
 * @dst_off: byte offset in it.
 * @src: source handle.
 * @src_off: byte offset in it.
 * @bytes: length.
 *
 * Return: as core_view_rw(), for either handle.
 */
int core_view_copy(struct core *core, core_handle_t dst, uint64_t dst_off, core_handle_t src,
		   uint64_t src_off, uint64_t bytes);

/**
 * core_handle_iova() - device address of byte @offset of a handle's memory.
 * @core: the model.
 * @h: any handle with pages (MDL, contiguous memory, ADL, fence, allocation...).
 * @offset: byte offset.
 * @iova: out.
 *
 * Return: 0, -EINVAL (no device-visible memory), -ERANGE.
 */
int core_handle_iova(struct core *core, core_handle_t h, uint64_t offset, iova_t *iova);

/**
 * core_explain() - print what the model decided for every adapter.
 * @core: a started model.
 * @out: where.
 * @json: the gpuiso-explain/1 JSON document instead of text.
 *
 * Return: 0, -EIO on a write error.
 */
int core_explain(struct core *core, FILE *out, bool json);

/**
 * core_state_digest() - a digest of everything that decides what the model
 * does next: handles and what they hold, adapters, domains, physical memory
 * and its bytes, and the backend's state. Records (violations, faults,
 * power transitions), counters and latencies are not in it. Two models in
 * equal states give equal digests, so from equal states and equal input
 * they go on alike: a forked sweep run whose digest meets the unfailed
 * run's at the same event can stop there.
 * @core: the model.
 * @digest: out.
 *
 * Its large parts (handles, memory, page tables, IOTLB, 1:1 counts, free
 * extents) are sums of a term per object kept as the objects change, from
 * the first call on: a call costs what changed since the last one, plus
 * the adapters, domains and devices.
 *
 * Return: 0, or -EOPNOTSUPP when part of the state is out of sight: a
 * backend without a state digest (real hardware) or a KMD of the caller's.
 */
int core_state_digest(struct core *core, uint64_t *digest);

/**
 * core_state_digest_full() - core_state_digest() computed again from all of
 * the state, without the parts kept as the state changes.
 * @core: the model.
 * @digest: out.
 *
 * The cross-check of the kept parts (tests): the two are always equal.
 *
 * Return: 0, or -EOPNOTSUPP as core_state_digest().
 */
int core_state_digest_full(struct core *core, uint64_t *digest);

/**
 * core_digest_ref() - count a handle held outside the model (a trace id's
 * object) in the state digest, or, called again alike, no longer.
 * @core: the model.
 * @h: the handle.
 * @tag: what holds it, the same for both calls (distinct for each holder).
 *
 * While @h resolves, a term of its slot and @tag is in its slot's part of
 * the digest: freeing the object takes it out, so a holder's own term need
 * only name the slot. Nothing is counted for a handle that does not
 * resolve, nor before the first core_state_digest(): a holder that starts
 * counting then counts every handle it holds.
 * The value is core_digest_ref_term()'s.
 */
void core_digest_ref(struct core *core, core_handle_t h, uint64_t tag);

/**
 * core_digest_ref_term() - the term core_digest_ref() counts for @h and
 * @tag now, as a holder's recomputation (engine_state_digest_full()) adds it.
 * @core: the model.
 * @h: the handle.
 * @tag: its holder's tag.
 *
 * Return: the term, or 0 when @h does not resolve.
 */
uint64_t core_digest_ref_term(const struct core *core, core_handle_t h, uint64_t tag);

/**
 * core_handle_digest() - a handle as core_state_digest() counts it: by the
 * object slot it names and whether it resolves there, not its generation.
 * @core: the model.
 * @h: the handle (0 stays 0).
 *
 * Return: the value to fold into a digest.
 */
uint64_t core_handle_digest(const struct core *core, core_handle_t h);

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
