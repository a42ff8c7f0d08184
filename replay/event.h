/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_REPLAY_EVENT_H
#define GPUISO_REPLAY_EVENT_H

#include "common/types.h"

/*
 * Workload events: what a replay consumes (provider gpuiso_wl, the DESIGN.md
 * catalogue). Every source of events — CTF traces written by `trace gen`,
 * traces recorded with LTTng, foreign traces through an import map, the
 * compiled replay cache — produces struct wl_event, and one table
 * (wl_catalogue) names each kind's fields and where they live in the struct.
 *
 * Trace-level ids name objects per adapter: an id is unique among the live
 * objects of one adapter, whatever their kind (a DMA names its target by id).
 */

enum wl_kind {
	WL_SECURE_VM_CREATE,
	WL_ALLOC_CONTIGUOUS,
	WL_FREE_CONTIGUOUS,
	WL_ALLOC_MDL,
	WL_FREE_MDL,
	WL_MAP_MDL,
	WL_UNMAP_MDL,
	WL_PMO_CREATE,
	WL_PMO_DESTROY,
	WL_ADL_ALLOC,
	WL_ADL_FREE,
	WL_ALLOC_CREATE,
	WL_ALLOC_DESTROY,
	WL_MAP_APERTURE,
	WL_UNMAP_APERTURE,
	WL_TRANSFER,
	WL_FENCE_CREATE,
	WL_FENCE_DESTROY,
	WL_DMA,
	WL_POWER,
	WL_MEMORY,
	WL_IRQL,             /* the IRQL the driver calls back at from now on */
	WL_DRIVER_MDL_CREATE, /* an MDL the driver built over memory it obtained itself */
	WL_DRIVER_MDL_FREE,
	WL_DMA_RAW,          /* a DMA at an address of the device's choosing: no id */
	WL_DMA_EXCLUSIVE,    /* such a DMA, issued inside the adapter's next exclusive access */
	/* the four frame-buffer save callbacks, as the driver calls them (hadapter: whose hAdapter) */
	WL_FB_PIN,           /* DxgkCbPinFrameBufferForSave */
	WL_FB_UNPIN,         /* DxgkCbUnpinFrameBufferForSave */
	WL_FB_MAP,           /* DxgkCbMapFrameBufferPointer */
	WL_FB_UNMAP,         /* DxgkCbUnmapFrameBufferPointer */
	WL_CPU_ACCESS,       /* the driver's CPU reads or writes through an object's CPU address */
	WL_PMO_CREATE_IO,    /* a PMO over a range of IO space the driver names */
	WL_PMO_MAP_CPU,      /* DxgkCbMapPhysicalMemory: a CPU view of a PMO */
	WL_PMO_UNMAP_CPU,    /* DxgkCbUnmapPhysicalMemory */
	WL_IOMMU_DISABLE,    /* an attempt to disable the adapter's IOMMU */
	WL_FB_SAVE_SIZE,     /* the driver's frame-buffer save size from now on */
	WL_NKINDS
};

/* Where a field's value lives in struct wl_event. */
enum wl_slot {
	WL_ADAPTER,
	WL_PHYS,
	WL_ID,
	WL_REF,    /* the object another refers to: map_mdl.mdl, adl_alloc.pmo, pmo_map_cpu.pmo */
	WL_OFFSET, /* offset, offset_pages, commit_available, address, base */
	WL_BYTES,  /* bytes, pages, lockable_available, fb_save_size.bytes */
	WL_ARG,    /* cache, segment, dir, write, state, level, hadapter, mode */
	WL_FLAGS,  /* alloc_create.flags */
	WL_NSLOTS
};

struct wl_event {
	uint64_t ts;               /* ns since the trace clock's origin */
	uint32_t kind;             /* enum wl_kind */
	uint32_t flags;            /* WL_AFTER_LOSS */
	uint64_t v[WL_NSLOTS];     /* indexed by enum wl_slot */
};

/*
 * The values of the trace format's enumerated fields (docs/trace-events.md,
 * "Enumerations"). The format owns them: the engine maps them to the
 * model's, and a value outside these is the model's to refuse.
 */
enum wl_cache { WL_CACHE_NONCACHED = 0, WL_CACHE_CACHED = 1, WL_CACHE_WRITECOMBINED = 2 };
enum wl_segment { WL_SEG_VRAM = 0, WL_SEG_APERTURE = 1, WL_SEG_SYSTEM = 2 };
enum wl_alloc_flag {
	WL_ALLOC_ACCESSED_PHYSICALLY = 0x1,
	WL_ALLOC_MAP_APERTURE_CPU_VISIBLE = 0x2,
};
enum wl_dir { WL_DIR_TO_VRAM = 0, WL_DIR_FROM_VRAM = 1 };
enum wl_power { WL_POWER_D0 = 0, WL_POWER_D3 = 3 };
enum wl_irql { WL_IRQL_PASSIVE = 0, WL_IRQL_APC = 1, WL_IRQL_DISPATCH = 2, WL_IRQL_HIGH = 15 };
enum wl_access { WL_ACCESS_KERNEL = 0, WL_ACCESS_USER = 1 };

/*
 * The tracer lost events before this one (a discarded-events record came
 * first): an id it names may have lost its creation or its end.
 */
#define WL_AFTER_LOSS 1u

#define WL_MAX_FIELDS 6

struct wl_field {
	const char *name;   /* CTF field name, e.g. "bytes" */
	enum wl_slot slot;
};

struct wl_desc {
	const char *name;   /* event name without provider, e.g. "alloc_mdl" */
	unsigned int nfields;
	struct wl_field fields[WL_MAX_FIELDS];
};

/* The catalogue, indexed by enum wl_kind; docs/trace-events.md describes it. */
extern const struct wl_desc wl_catalogue[WL_NKINDS];

/* The provider name of workload events in CTF/LTTng: events are "gpuiso_wl:NAME". */
#define WL_PROVIDER "gpuiso_wl"

/**
 * wl_kind_lookup() - the kind of an event name, with or without the
 * "gpuiso_wl:" prefix.
 * @name: e.g. "gpuiso_wl:alloc_mdl" or "alloc_mdl".
 *
 * Return: the kind, or -ENOENT.
 */
int wl_kind_lookup(const char *name);

/**
 * wl_creates() - whether events of @kind create an object under their id.
 * @kind: enum wl_kind.
 *
 * Return: true or false.
 */
bool wl_creates(uint32_t kind);

/**
 * wl_destroys() - whether events of @kind end the object of their id.
 * @kind: enum wl_kind.
 *
 * Return: true or false.
 */
bool wl_destroys(uint32_t kind);

/**
 * wl_uses() - whether events of @kind act on the live object of their id
 * (without creating or ending it).
 * @kind: enum wl_kind.
 *
 * Return: true or false.
 */
bool wl_uses(uint32_t kind);

/**
 * wl_refers() - whether events of @kind name a second live object, by the
 * field in WL_REF (map_mdl's MDL, adl_alloc's and pmo_map_cpu's PMO).
 * @kind: enum wl_kind.
 *
 * Return: true or false.
 */
bool wl_refers(uint32_t kind);

/**
 * wl_destroy_of() - the kind that ends an object @kind created.
 * @kind: a creating kind.
 *
 * Return: the destroying kind, or -EINVAL.
 */
int wl_destroy_of(uint32_t kind);

/**
 * wl_format() - one event as text: "alloc_mdl adapter=0 id=7 bytes=4096".
 * @e: the event.
 * @buf: destination.
 * @len: its size.
 *
 * Return: @buf.
 */
char *wl_format(const struct wl_event *e, char *buf, size_t len);

#endif
