/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_CORE_INTERNAL_H
#define GPUISO_CORE_INTERNAL_H

/*
 * Private to core/: the structures behind struct core, and how a file of
 * core/ records a violation or an internal error (verifier.c). The
 * functions of each job are in a private header of their own beside this
 * one: handle_internal.h (handles, their pages, objects), hwcall_internal.h
 * (the backend), gate_internal.h (the callback gate, blocked DMA),
 * domain_internal.h (the IOMMU domain) and adapter_internal.h (adapters,
 * their save areas, the reference KMD).
 */

#include "common/range.h"
#include "core/core.h"

/* Pages: the memory behind a handle, as runs of frames (use pg_runs()). */
struct pages {
	uint64_t npages;
	struct phys_runs runs;
	uint64_t committed; /* commit charge this object holds */
	uint64_t locked;    /* bytes this object holds locked */
	bool owned;         /* frames belong to this object (freed with it) */
};

/**
 * pg_runs() - the runs of frames behind some pages.
 * @pg: the pages.
 *
 * Return: the array of @pg's pg->runs.n runs, in page order.
 */
static inline const struct phys_run *pg_runs(const struct pages *pg)
{
	return phys_runs_array(&pg->runs);
}

/* A mapping of pages into the adapter's domain. */
struct dmap {
	bool wanted;    /* should be mapped whenever the domain has mappings */
	bool mapped;    /* is in the I/O page tables */
	bool logical;   /* iova is a logical range from the IOVA allocator */
	unsigned int perm;
	iova_t iova;    /* logical mode: base of the range; 1:1: unused */
};

enum hkind {
	H_FREE = 0,
	H_CONTIG,    /* DxgkCbAllocateContiguousMemory */
	H_MDL,       /* DxgkCbAllocatePagesForMdl */
	H_MDL_MAP,   /* DxgkCbMapMdlToIoMmu */
	H_PMO,
	H_PMO_OPEN,
	H_VIEW,      /* CPU view: PMO map, frame-buffer chunk, CPU-visible aperture */
	H_ADL,
	H_ALLOC,     /* VidMm allocation */
	H_FENCE,     /* monitored fence */
	H_DRIVER_MDL, /* an MDL the driver built over memory it obtained itself */
	H_NKINDS
};

struct hobj {
	enum hkind kind;
	uint32_t gen;       /* bumped on free: stale handles do not resolve */
	unsigned int adapter;
	struct pages pg;
	struct dmap map;
	union {
		struct { core_handle_t mdl; } mdl_map;
		struct { enum cache_type cache; } contig;
		struct {
			uint32_t opens, adls, views;
			enum cache_type cache;
			bool io_space;          /* over driver-provided IO space, not RAM */
		} pmo;
		/* PMO children (open handle, view, ADL): .pmo first in each, the same place */
		struct { core_handle_t pmo; } pmo_open;
		struct {
			core_handle_t pmo;
			bool fb_pin, fb_chunk;
			unsigned int section;
			enum cpu_access mode;
			enum cache_type cache;
			bool io_space;
			uint64_t start;         /* requested data's offset in the view */
		} view;
		struct { core_handle_t pmo; } adl;
		struct {
			enum core_segment seg;
			uint32_t flags;
			uint64_t vram_off;     /* CORE_SEG_VRAM: where in the lead's VRAM */
			bool aperture_mapped;
			core_handle_t cpu_view;     /* CPU-visible address while aperture-mapped */
			bool cpu_view_freed;        /* the last one died at an unmap, at ... */
			uint64_t cpu_view_freed_at; /* ... this event */
		} alloc;
	} u;
};

/* Handles: index in the low 20 bits, generation above. */
#define H_INDEX_BITS 20
#define H_INDEX_MASK ((1u << H_INDEX_BITS) - 1)
#define H_CHUNK 1024

/*
 * A slot's part of the state digest (core/digest.c), beside its object. A
 * reference to a handle (an object's to its MDL, PMO or view, a trace id's
 * to its object) counts twice: the slot it names in its holder's term, and,
 * while it resolves, a term in the named slot's refs, which goes when that
 * object is freed: so freeing an object changes no other slot's term.
 */
struct hdig {
	uint64_t term;          /* in ht->objs as of the last digest; 0 for a free slot */
	uint64_t refs;          /* the XOR of the terms of the references resolving here */
	core_handle_t reg;      /* the handle the object referred to then, counted in its slot's refs */
	bool touched;           /* noted in ht->touched: its term is due again */
};

struct handle_table {
	struct hobj **chunks;
	struct hdig **dig;   /* [nchunks] -> [H_CHUNK], beside chunks */
	size_t nchunks;
	uint32_t next_index; /* first never-used index */
	uint64_t *free_bits; /* bit set: the slot below next_index is free */
	uint32_t first_free; /* no slot below this is free */
	size_t live;
	/*
	 * The digest's terms, kept once a digest was asked for (track): the
	 * XOR of the live slots' terms as of the last digest, of the terms of
	 * the references that resolve, and the slots changed since (each once).
	 */
	bool track;
	bool touch_lost;     /* a slot could not be noted: the next digest takes every slot again */
	uint64_t objs;
	uint64_t refs;
	uint32_t *touched;
	size_t ntouched, touched_cap;
};

/* Reference counts of identity-mapped pages in a 1:1 domain, by page frame number. */
struct idmap {
	struct idmap_leaf **leaves; /* [pfn >> 18] -> counts of 2^18 frames, or NULL (core/idmap.h) */
	size_t nleaves;
	/*
	 * The digest (idmap_digest()), kept once first asked for: the XOR of
	 * the chunks' terms as of the last call (each chunk keeps its own),
	 * and the chunks changed since (pfn >> IDMAP_CHUNK_SHIFT, each once).
	 */
	bool track;
	bool touch_lost;            /* a chunk could not be noted: the next call walks them all */
	uint64_t state;
	uint64_t *touched;
	size_t ntouched, touched_cap;
};

struct section {
	uint64_t bytes;    /* max size the KMD reported (the commit charge) */
	struct pages pg;   /* frames, allocated on first use */
	struct dmap map;   /* unused: pins map through their own handle */
	bool pinned;
};

/* What Dxgkrnl sees of a power transition in progress. */
struct transition {
	bool active;
	bool pinned;       /* a pin succeeded */
	uint64_t chunks;
	uint64_t chunk_bytes;
	uint64_t last_progress_ns; /* when it last moved on (start, pin, a chunk) */
	uint64_t max_stall_ns;     /* longest wait between two such steps */
};

struct phys_adapter {
	uint32_t dev;          /* backend device */
	uint32_t domain;       /* attached domain, CORE_NO_DOMAIN when none */
	bool powered;
	bool reset;
	uint64_t fb_bytes;     /* reserve saved on power down: its most (its part of the save area) */
	uint64_t fb_now;       /* of it, what the current or last power-down saves (asked then) */
	uint64_t fb_vram_off;  /* where it lives in VRAM */
	uint64_t fb_section_off;
	uint64_t saved_hash;   /* VRAM reserve hash at power down */
	bool saved_valid;      /* a save completed: restore is owed */
	bool seeded;           /* reserve holds content worth saving */
	core_handle_t small;        /* KMD's forward-progress buffer for the GPU (MDL or ADL) */
	core_handle_t small_cpu;    /* the same memory for the CPU (the MDL, or a view of the PMO) */
	uint64_t small_bytes;
	core_handle_t small_pmo;    /* reference KMD, WDDM 3.0 services: the PMO behind it */
	bool save_size_set;         /* reference KMD: the trace said its save size (core_fb_save_size()) */
	uint64_t save_size;         /* then: what it answers QAI_FRAMEBUFFERSAVESIZE_NOW */
	struct range_extent *reserved; /* hardware-reserved ranges, queried at enable */
	size_t nreserved;
	bool reserved_mapped;
	struct pages pfs;      /* PopulatedFromSystemMemory segment */
	struct dmap pfs_map;
};

/* A growable array of elements of elem bytes (vec_push()). */
struct vec {
	void *data;
	size_t n, cap, elem;
};

/* A DMA the device will issue inside its adapter's next exclusive access. */
struct armed_dma {
	unsigned int phys;
	uint64_t address, bytes;
	bool write;
};

/* One unmap the IOMMU carried out: what a later blocked DMA at that address is told. */
struct unmap_note {
	iova_t iova;
	uint64_t bytes;
	uint64_t event, ts_ns;
	const char *op;  /* the event's operation, or NULL */
	bool freed;      /* the memory went with the mapping */
};

/* How many unmaps an adapter remembers (3 MiB at most, grown as they come). */
#define CORE_UNMAP_NOTES 65536

/* The device addresses a freed object had: what a device that kept them still uses. */
struct tomb {
	core_handle_t h;        /* 0: none */
	unsigned int adapter;
	uint64_t npages;
	bool logical;           /* one logical range at iova; else the frames' physical addresses */
	iova_t iova;
	struct phys_runs runs;
};

struct adapter {
	unsigned int index;
	const struct scn_adapter *cfg;
	struct scn_caps caps;        /* as queried from the KMD */
	bool started;
	char start_error[256];
	char certification[320];     /* a certification finding, "" when none */
	char errors[CORE_MAX_ERRORS][256];
	size_t nerrors;

	/* registry decisions */
	bool want_enable, want_mappings, want_attach;
	enum attach_on attach_on;

	/* IOMMU state */
	bool iommu_enabled;
	bool mappings;
	bool attached;
	enum map_mode mode;
	uint32_t domain;             /* CORE_NO_DOMAIN when none */
	uint64_t logical_limit;
	struct range_alloc iova;     /* MODE_LOGICAL: free logical addresses */
	struct idmap idmap;          /* MODE_PHYSICAL: mapped page refcounts */
	struct phys_runs held;       /* frames whose unmap the IOMMU refused: held until the domain goes */
	uint64_t mapped_bytes;       /* bytes mapped in the domain right now */
	struct unmap_note *unmaps;   /* a ring of the last CORE_UNMAP_NOTES unmaps, or NULL */
	size_t unmaps_cap;           /* its room, growing to CORE_UNMAP_NOTES */
	uint64_t unmaps_next;        /* unmaps noted so far */

	/* exclusive access */
	bool in_exclusive;
	bool sched_suspended;
	struct vec armed;            /* struct armed_dma: issued at the next Begin (core_dma_exclusive()) */

	struct phys_adapter *phys;
	size_t nphys;
	struct section *sections;    /* [nphys]; shared mode uses [0] only */
	uint64_t fb_commit;          /* commit charge taken at init */
	struct range_alloc vram;     /* lead VRAM for VidMm allocations */
	unsigned int secure_vms;
	struct transition xfer;
};

/**
 * cache_type_valid() - whether a driver's caching type is one WDDM defines.
 * @cache: the value the driver passed.
 *
 * DXGK_MEMORY_CACHING_TYPE defines three values; a driver passing another
 * is refused.
 *
 * Return: true for CACHE_NONCACHED, CACHE_CACHED or CACHE_WRITECOMBINED.
 */
static inline bool cache_type_valid(enum cache_type cache)
{
	return (unsigned int)cache <= CACHE_WRITECOMBINED;
}

/**
 * adapter_wddm30_memory() - whether the driver uses the WDDM 3.0 memory services.
 * @a: the adapter, its caps queried.
 *
 * A WDDM 3.0 driver that reports IOMMU linear remapping (DXGK_IOMMU_CAPS)
 * says it supports and uses the WDDM 3.0 memory services, whatever mode it
 * runs in: the WDDM 2.4 memory callbacks are deprecated for it.
 *
 * Return: true when the WDDM 2.4 memory callbacks are deprecated for @a.
 */
static inline bool adapter_wddm30_memory(const struct adapter *a)
{
	return a->caps.iommu_linear_remap;
}

struct core {
	const struct scenario *scn;
	struct hw *hw;
	struct physmem *pm;
	struct fp_ctx *fp;

	const struct kmd_ops *kmd_ops; /* merged with the reference KMD */
	struct kmd_ops kmd_merged;
	void *kmd;

	bool started, stopped;
	bool bugchecked;           /* a WDDM 3.2+ driver called back at DISPATCH_LEVEL */
	struct core_violation bugcheck; /* then: its CB_IRQL */
	uint64_t internal_errors;  /* impossible states met (internal_error()) */
	struct core_violation first_internal; /* the first of them, with its event */
	enum core_irql irql;
	uint64_t event, ts_ns;
	const char *op;            /* the event's operation (core_set_event()), or NULL */
	bool unmap_frees;          /* the unmaps being made free the memory too (obj_destroy()) */
	uint64_t stale_seen;       /* hw stale_hits already reported */

	struct adapter *adapters;
	size_t nadapters;
	struct handle_table ht;

	struct vec violations;     /* struct core_violation */
	struct vec faults;         /* struct core_fault */
	struct vec exposures;      /* struct core_exposure */
	struct tomb tombs[CORE_TOMBS]; /* a ring of the last objects freed */
	uint64_t tombs_next;       /* objects put in it so far */
	struct vec power;          /* struct core_power_record */
};

/* verifier.c */

/**
 * viol() - record a violation of the driver at the current event.
 * @c: the core.
 * @code: what kind of violation.
 * @fmt: printf format of its detail, then its arguments.
 *
 * Logged and kept for the report; after a bugcheck nothing more is
 * recorded. A violation lost to ENOMEM is logged as such.
 */
void viol(struct core *c, enum core_violation_code code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/**
 * internal_error() - record an impossible state of the model.
 * @c: the core.
 * @fmt: printf format of the detail, then its arguments.
 *
 * A bug of gpuiso, not of the driver: counted, logged loudly with the
 * event, the first kept for the report (core_internal_errors()).
 */
void internal_error(struct core *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/**
 * internal_warn() - report a broken precondition of the model, as the
 * kernel's WARN_ON() does; CORE_WARN_ON() calls it.
 * @c: the core.
 * @file: where the check is.
 * @line: its line.
 * @cond: the condition that held and must not have.
 *
 * An internal_error() (logged loudly with the event, model_sound broken),
 * so that a run of a release build goes on and reports it. Debug and
 * sanitizer builds (GPUISO_WARN_ABORT in config.h) abort as well: there a
 * broken precondition stops the test or fuzz target at the place it broke,
 * with the sanitizer's stack, rather than at the wrong verdict it leads to
 * (warn_stop(), common/warn.h).
 */
void internal_warn(struct core *c, const char *file, int line, const char *cond)
	__attribute__((cold));

/*
 * CORE_WARN_ON() - the value of @cond; when it holds, a precondition of the
 * model is broken: internal_warn() reports it (and aborts in debug and
 * sanitizer builds). Used as the kernel's WARN_ON(): if (CORE_WARN_ON(c, x)) return;
 */
#define CORE_WARN_ON(c, cond) \
	((cond) ? (internal_warn((c), __FILE__, __LINE__, #cond), true) : false)

/**
 * adapter_error() - note a finding about the adapter that does not stop it
 * (scenario explain's notes).
 * @a: the adapter; past CORE_MAX_ERRORS, notes are dropped.
 * @fmt: printf format, then its arguments.
 */
void adapter_error(struct adapter *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/**
 * viol_handle() - record a violation about one handle, as viol() does.
 * @c: the core.
 * @code: what kind of violation (HANDLE_LEAK).
 * @h: the handle the violation carries.
 * @fmt: printf format of its detail, then its arguments.
 */
void viol_handle(struct core *c, enum core_violation_code code, core_handle_t h, const char *fmt,
		 ...) __attribute__((format(printf, 4, 5)));
/**
 * vec_push() - append one element to a growable array.
 * @v: the array; v->elem is the size of an element.
 * @elem: the element; v->elem bytes copied.
 *
 * Return: 0, or -ENOMEM (@v unchanged).
 */
int vec_push(struct vec *v, const void *elem);
/**
 * vec_free() - free a growable array's elements and empty it.
 * @v: the array; v->elem is kept, so it can be used again.
 */
void vec_free(struct vec *v);

#endif
