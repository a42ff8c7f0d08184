/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_CORE_INTERNAL_H
#define GPUISO_CORE_INTERNAL_H

/* Private to core/: the structures behind struct core. */

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

/* handle.c */

/**
 * handle_new() - a new live handle and its empty object.
 * @c: the core.
 * @kind: the object's kind.
 * @adapter: the adapter it belongs to.
 * @h: out: the handle (never 0).
 * @obj: out: its object, pages and mapping empty.
 *
 * Takes the lowest free slot, so the slots two runs use depend only on
 * which objects are live; the slot's generation moves on.
 *
 * Return: 0; -ENOSPC when every index is taken, -ENOMEM.
 */
int handle_new(struct core *c, enum hkind kind, unsigned int adapter, core_handle_t *h,
	       struct hobj **obj);
/**
 * handle_peek() - the object of a live handle, silently.
 * @c: the core.
 * @h: the handle.
 *
 * Return: the object, or NULL for 0, a handle never given or one freed
 * since (its generation no longer matches). Records nothing.
 */
struct hobj *handle_peek(struct core *c, core_handle_t h);
/**
 * handle_get() - the object of a handle a driver passed, checked.
 * @c: the core.
 * @h: the handle.
 * @kind: the kind it must be.
 * @adapter: the adapter it must belong to.
 * @what: the callback's name, for the violation.
 *
 * Return: the object, or NULL with a BAD_HANDLE violation recorded when @h
 * is not live, not of @kind or of another adapter.
 */
struct hobj *handle_get(struct core *c, core_handle_t h, enum hkind kind, unsigned int adapter,
			const char *what);
/**
 * handle_any() - the object of a live handle of any kind and adapter.
 * @c: the core.
 * @h: the handle.
 * @what: the operation's name, for the violation.
 *
 * For operations that only need its pages.
 *
 * Return: the object, or NULL with a BAD_HANDLE violation recorded when @h
 * is not live.
 */
struct hobj *handle_any(struct core *c, core_handle_t h, const char *what);
/**
 * handle_touch() - note that the object in slot @index is changing: its
 * term in the state digest is due again (core/digest.c). handle_new(),
 * handle_release() and the lookups that give an object to change
 * (handle_peek(), handle_get(), handle_any()) note it themselves; a walk
 * of the table that changes objects calls it.
 * @ht: the handle table.
 * @index: the slot.
 */
void handle_touch(struct handle_table *ht, uint32_t index);
/**
 * handle_release() - free a handle's slot for reuse.
 * @c: the core.
 * @h: the handle; one not live is ignored.
 *
 * Frees the object's run array only: unmap and free its pages first
 * (obj_destroy() does all of it). @h no longer resolves afterwards.
 */
void handle_release(struct core *c, core_handle_t h);
/**
 * handle_table_free() - free a handle table and empty it.
 * @ht: the table; the objects' pages are not freed.
 */
void handle_table_free(struct handle_table *ht);
/**
 * hkind_name() - a handle kind as the violations name it.
 * @kind: the kind.
 *
 * Return: a static string ("MDL", "CPU view"...), "?" for an unknown kind.
 */
const char *hkind_name(enum hkind kind);

/*
 * hwcall.c: every call core/ makes to its backend (hw/iommu.h) goes through
 * these. An error the model handles is returned as the op returned it, and
 * nothing is recorded; any other is returned too and is an internal error
 * naming the op, its adapter, physical adapter and device, and the errno.
 */

/**
 * hwc_domain_alloc() - a new domain for @a.
 * @c: the core.
 * @a: the adapter it is for (for reports).
 * @domain: out: its id.
 *
 * Return: 0; -ENOMEM or -ENOSPC (the backend has no room: expected), or
 * another error (an internal error).
 */
int hwc_domain_alloc(struct core *c, struct adapter *a, uint32_t *domain)
	__attribute__((warn_unused_result));
/**
 * hwc_domain_free() - free @a's domain (a->domain) in the backend.
 * @c: the core.
 * @a: the adapter; a->domain is left as it is.
 *
 * Return: 0, or an error (an internal error: the model detaches first).
 */
int hwc_domain_free(struct core *c, struct adapter *a) __attribute__((warn_unused_result));
/**
 * hwc_attach() - attach physical adapter @phys of @a to @domain.
 * @c: the core.
 * @a: the adapter.
 * @phys: its physical adapter.
 * @domain: the domain; not CORE_NO_DOMAIN.
 *
 * Return: 0; -ENOMEM or -ENOSPC (expected), or another error (an internal error).
 */
int hwc_attach(struct core *c, struct adapter *a, unsigned int phys, uint32_t domain)
	__attribute__((warn_unused_result));
/**
 * hwc_detach() - detach physical adapter @phys of @a from its domain.
 * @c: the core.
 * @a: the adapter.
 * @phys: its physical adapter; attached (a->phys[phys].domain set).
 *
 * Return: 0, or an error (an internal error).
 */
int hwc_detach(struct core *c, struct adapter *a, unsigned int phys)
	__attribute__((warn_unused_result));
/**
 * hwc_map() - one map call in @a's domain.
 * @c: the core.
 * @a: the adapter; its domain exists.
 * @iova: device address.
 * @pa: physical address.
 * @bytes: size.
 * @perm: HW_PERM_* and HW_MAP_4K.
 *
 * Return: 0; -ENOMEM, -ENOSPC, -ERANGE or -EEXIST (expected: see
 * hwcall.c), or another error (an internal error).
 */
int hwc_map(struct core *c, struct adapter *a, iova_t iova, pa_t pa, uint64_t bytes,
	    unsigned int perm) __attribute__((warn_unused_result));
/**
 * hwc_unmap() - one unmap call in @a's domain (the IOTLB is not flushed).
 * @c: the core.
 * @a: the adapter; its domain exists.
 * @iova: device address.
 * @bytes: size.
 *
 * Return: 0, or an error (an internal error: the model unmaps only what it mapped).
 */
int hwc_unmap(struct core *c, struct adapter *a, iova_t iova, uint64_t bytes)
	__attribute__((warn_unused_result));
/**
 * hwc_flush() - invalidate the IOTLB entries of [iova, iova+bytes) in @a's domain.
 * @c: the core.
 * @a: the adapter; its domain exists.
 * @iova: device address.
 * @bytes: size.
 */
void hwc_flush(struct core *c, struct adapter *a, iova_t iova, uint64_t bytes);
/**
 * hwc_fault_pop() - take the oldest fault the backend queued.
 * @c: the core.
 * @fault: out: the fault.
 *
 * Return: 0; -ENOENT when none is queued, or another error (an internal error).
 */
int hwc_fault_pop(struct core *c, struct hw_fault *fault) __attribute__((warn_unused_result));
/**
 * hwc_stats() - the backend's counters so far.
 * @c: the core.
 * @stats: out: the counters.
 */
void hwc_stats(struct core *c, struct hw_stats *stats);
/**
 * hwc_state_digest() - the digest of the backend's state (hw_ops.state_digest).
 * @c: the core.
 * @full: computed again from all the state (hw_ops.state_digest_full), as
 *        the cross-check of what the backend keeps.
 * @digest: out: the digest.
 *
 * Return: 0, or -EOPNOTSUPP for a backend that cannot see all of its state.
 */
int hwc_state_digest(struct core *c, bool full, uint64_t *digest)
	__attribute__((warn_unused_result));
/**
 * hwc_vram_size() - bytes of VRAM of physical adapter @phys of @a.
 * @c: the core.
 * @a: the adapter.
 * @phys: its physical adapter.
 *
 * Return: the size; 0 (an internal error) when the backend does not know the device.
 */
uint64_t hwc_vram_size(struct core *c, struct adapter *a, unsigned int phys)
	__attribute__((warn_unused_result));
/**
 * hwc_vram_fill() - write a pattern over a range of a powered device's VRAM.
 * @c: the core.
 * @a: the adapter.
 * @phys: its physical adapter; powered.
 * @off: byte offset in VRAM.
 * @len: bytes.
 * @pattern: the pattern.
 * @plen: its bytes.
 *
 * Return: 0, or an error (an internal error).
 */
int hwc_vram_fill(struct core *c, struct adapter *a, unsigned int phys, uint64_t off,
		  uint64_t len, const void *pattern, uint64_t plen)
	__attribute__((warn_unused_result));
/**
 * hwc_vram_digest() - the digest of a range of a powered device's VRAM.
 * @c: the core.
 * @a: the adapter.
 * @phys: its physical adapter; powered.
 * @off: byte offset in VRAM.
 * @len: bytes.
 * @digest: out: the digest, set only on success.
 *
 * Return: 0, or an error (an internal error): no digest to compare then.
 */
int hwc_vram_digest(struct core *c, struct adapter *a, unsigned int phys, uint64_t off,
		    uint64_t len, uint64_t *digest) __attribute__((warn_unused_result));
/**
 * hwc_power() - power a physical adapter's device on or off.
 * @c: the core.
 * @a: the adapter.
 * @phys: its physical adapter.
 * @on: on, or off (VRAM content is lost).
 *
 * Return: 0, or an error (an internal error; -EBUSY: the device still had
 * work queued, and kept its power and its VRAM).
 */
int hwc_power(struct core *c, struct adapter *a, unsigned int phys, bool on)
	__attribute__((warn_unused_result));
/**
 * hwc_gpu_submit() - queue a copy-engine job on a physical adapter's device.
 * @c: the core.
 * @a: the adapter.
 * @phys: its physical adapter.
 * @job: the job.
 *
 * Return: 0; -EIO while the model has the device off, -ERANGE, -EBUSY or
 * -EOPNOTSUPP (expected: see hwcall.c), or another error (an internal error).
 */
int hwc_gpu_submit(struct core *c, struct adapter *a, unsigned int phys, const struct hw_job *job)
	__attribute__((warn_unused_result));
/**
 * hwc_gpu_wait() - run a physical adapter's queued jobs to completion.
 * @c: the core.
 * @a: the adapter.
 * @phys: its physical adapter.
 *
 * Return: 0; -EFAULT (an access was blocked: its fault is queued) or
 * -ERANGE (expected), or another error (an internal error).
 */
int hwc_gpu_wait(struct core *c, struct adapter *a, unsigned int phys)
	__attribute__((warn_unused_result));
/**
 * hwc_gpu_pending() - jobs queued on a physical adapter's device and not yet run.
 * @c: the core.
 * @a: the adapter.
 * @phys: its physical adapter.
 *
 * Return: how many.
 */
unsigned int hwc_gpu_pending(struct core *c, struct adapter *a, unsigned int phys)
	__attribute__((warn_unused_result));

/* gate.c: every driver callback starts here */

/**
 * cb_enter() - the gate every driver callback passes.
 * @c: the core.
 * @adapter: the adapter the callback names.
 * @name: the callback's name, for violations.
 * @out: out: the adapter, when the call may go on.
 *
 * Checks the IRQL (PASSIVE or APC only: a violation, and from WDDM 3.2 a
 * bugcheck), exclusive access (no callback between Begin and
 * EndExclusiveAccess: CB_IN_EXCLUSIVE) and a started adapter.
 *
 * Return: 0; -ESHUTDOWN after a bugcheck, -ENODEV for an unknown or
 * stopped adapter, -EPERM for a bugcheck now or a call in exclusive access.
 */
int cb_enter(struct core *c, unsigned int adapter, const char *name, struct adapter **out);
/**
 * cb_handle() - cb_enter() and handle_get(): the start of a callback on a handle.
 * @c: the core.
 * @adapter: the adapter the callback names.
 * @name: the callback's name, for violations.
 * @h: the handle passed.
 * @kind: the kind it must be.
 * @a: out: the adapter.
 * @rc: out: 0, cb_enter()'s error, or -EINVAL for a bad handle.
 *
 * Return: the handle's object, or NULL with *@rc set.
 */
struct hobj *cb_handle(struct core *c, unsigned int adapter, const char *name, core_handle_t h,
		       enum hkind kind, struct adapter **a, int *rc);
/**
 * adapter_get() - a logical adapter by index.
 * @c: the core.
 * @adapter: the index.
 *
 * Return: the adapter, or NULL when out of range.
 */
struct adapter *adapter_get(struct core *c, unsigned int adapter);
/**
 * hw_err_pop() - move the faults the backend queued into the record.
 * @c: the core.
 * @a: the adapter a fault is charged to unless its device says otherwise.
 * @phys: likewise its physical adapter.
 *
 * A fault whose device belongs to another physical adapter is recorded
 * against that one. A fault lost to ENOMEM is logged.
 *
 * Return: how many faults were taken.
 */
int hw_err_pop(struct core *c, struct adapter *a, unsigned int phys);
/**
 * exposure_note() - record a DMA that reached memory its device was not given.
 * @c: the core.
 * @a: the adapter.
 * @phys: its physical adapter that issued it.
 * @address: where the access began, as the device issued it.
 * @bytes: its length.
 * @write: true: the device wrote system memory.
 * @how: enum core_exposure_how.
 */
void exposure_note(struct core *c, struct adapter *a, unsigned int phys, uint64_t address,
		   uint64_t bytes, bool write, enum core_exposure_how how);
/**
 * device_wait() - wait for a device's jobs after they were submitted: the
 * faults it queued recorded (hw_err_pop()), stale IOTLB use checked.
 * @c: the core.
 * @a: the adapter.
 * @phys: its physical adapter whose jobs these are.
 * @submitted: 0, or the submit's error (the jobs queued before it still run).
 *
 * Return: @submitted if an error, else the wait's (-EFAULT: blocked).
 */
int device_wait(struct core *c, struct adapter *a, unsigned int phys, int submitted);
/**
 * device_dma() - one stretch of device addresses, as the device issues it
 * on its own (rogue.c, exclusive.c): what the IOMMU blocks recorded as
 * faults, what reaches memory with no domain between, or through a stale
 * address, as an exposure.
 * @c: the core.
 * @a: the adapter.
 * @phys: its physical adapter that issues it.
 * @address: the first device address.
 * @bytes: length.
 * @write: true: the device writes system memory.
 * @stale: the address is one the device kept from memory since freed.
 *
 * Return: 0, -EFAULT (blocked), or what the backend says (-ERANGE: beyond
 * what the device can address).
 */
int device_dma(struct core *c, struct adapter *a, unsigned int phys, uint64_t address,
	       uint64_t bytes, bool write, bool stale);
/**
 * stale_check() - record DMA through stale IOTLB entries since the last check.
 * @c: the core.
 *
 * An access an IOTLB entry translated after its PTE was cleared (unmap
 * without flush) broke isolation: a STALE_TRANSLATION violation.
 */
void stale_check(struct core *c);

/* blocked.c: blocked DMA, and what a device reached */

/**
 * blocked_note_unmap() - remember an unmap the IOMMU carried out, with the
 * current event, for the faults it may cause later.
 * @c: the core.
 * @a: the adapter whose domain it was.
 * @iova: first address.
 * @bytes: length.
 */
void blocked_note_unmap(struct core *c, struct adapter *a, iova_t iova, uint64_t bytes);
/**
 * blocked_note_tomb() - remember the device addresses of an object being
 * freed (core_dma_stale()).
 * @c: the core.
 * @h: its handle.
 * @o: its object, still holding its pages and mapping.
 */
void blocked_note_tomb(struct core *c, core_handle_t h, const struct hobj *o);
/**
 * blocked_classify() - the cause of a fault, from what the model knows of
 * its address: sets @f->cause and, after an unmap, @f->by_event and the rest.
 * @c: the core.
 * @a: the adapter of the device that faulted.
 * @f: the fault, its address and hardware reason filled in.
 */
void blocked_classify(const struct core *c, const struct adapter *a, struct core_fault *f);
/**
 * blocked_irq_window() - whether [@address, +@bytes) meets the interrupt window.
 * @address: first address.
 * @bytes: length.
 *
 * Return: true if any byte lies in 0xFEE00000 - 0xFEEFFFFF.
 */
bool blocked_irq_window(uint64_t address, uint64_t bytes);
/** blocked_fini() - free what blocked.c holds. @c: the core. */
void blocked_fini(struct core *c);

/* pages.c: the pages behind a handle */
enum pages_flag {
	PG_CONTIGUOUS = 1, /* one physically contiguous run */
	PG_LOCK = 2,       /* lock the pages too */
	PG_CHARGED = 4,    /* commit charge was taken in advance: take none */
};
/**
 * pages_alloc() - frames for @bytes, rounded up to pages, owned by @pg.
 * @c: the core.
 * @pg: empty pages; filled.
 * @bytes: size; not 0.
 * @flags: PG_CONTIGUOUS, PG_LOCK, PG_CHARGED (enum pages_flag).
 *
 * Takes commit charge (unless PG_CHARGED) and locks (PG_LOCK) first; the
 * failure points mem/commit and mem/lock apply.
 *
 * Return: 0; -EINVAL for 0 bytes, -ENOMEM (no charge, lock or frames).
 * Nothing is held on an error.
 */
int pages_alloc(struct core *c, struct pages *pg, uint64_t bytes, unsigned int flags);
/**
 * pages_copy() - copy bytes between two sets of pages in system memory.
 * @c: the core.
 * @dst: the destination pages.
 * @dst_off: byte offset in @dst.
 * @src: the source pages.
 * @src_off: byte offset in @src.
 * @len: bytes.
 * @stream: copy with streaming stores (a large copy the CPU will not read).
 *
 * Return: 0; -ERANGE when either range leaves its pages, or the error of
 * sparse_copy() (-ENOMEM).
 */
int pages_copy(struct core *c, const struct pages *dst, uint64_t dst_off,
	       const struct pages *src, uint64_t src_off, uint64_t len, bool stream);
/**
 * pages_free() - give back all @pg holds and empty it.
 * @c: the core.
 * @pg: the pages: their frames if owned, their lock and commit charge.
 *
 * Does not unmap them: dom_unmap() first.
 */
void pages_free(struct core *c, struct pages *pg);
/**
 * pages_lock() - lock @bytes more for @pg.
 * @c: the core.
 * @pg: the pages the lock is counted in (freed with them).
 * @bytes: bytes to lock.
 *
 * Return: 0; -ENOMEM at the lockable limit or an injected mem/lock failure.
 */
int pages_lock(struct core *c, struct pages *pg, uint64_t bytes);
/**
 * pages_unlock() - release every byte @pg holds locked.
 * @c: the core.
 * @pg: the pages.
 */
void pages_unlock(struct core *c, struct pages *pg);
/**
 * pages_slice() - describe part of some pages without owning it.
 * @src: the pages sliced.
 * @offset: byte offset in @src; page aligned.
 * @bytes: size, rounded up to pages; not 0.
 * @dst: out: pages over the same frames, not owned and not charged.
 *
 * Return: 0; -ERANGE for a misaligned, empty or too long slice, -ENOMEM
 * (@dst empty then).
 */
int pages_slice(const struct pages *src, uint64_t offset, uint64_t bytes, struct pages *dst);
/**
 * pages_pa() - the physical address of a byte of some pages.
 * @pg: the pages.
 * @offset: byte offset in them.
 *
 * Return: its physical address, or (pa_t)-1 beyond the pages.
 */
pa_t pages_pa(const struct pages *pg, uint64_t offset);
/**
 * pages_rw() - CPU read or write of some pages' system memory.
 * @c: the core.
 * @pg: the pages.
 * @offset: byte offset in them.
 * @buf: the CPU side of the copy.
 * @len: bytes.
 * @write: true: @buf -> memory; false: memory -> @buf.
 *
 * Return: 0; -ERANGE when the range leaves the pages, or the error of
 * sparse_read()/sparse_write() (-ENOMEM).
 */
int pages_rw(struct core *c, const struct pages *pg, uint64_t offset, void *buf, uint64_t len,
	     bool write);

/*
 * The domain, in the order its files build on each other: idmap.c (1:1
 * reference counts) -> domain.c (mappings) -> exclusive.c (the bracket
 * around an attach) -> reserved.c (hardware-reserved ranges) -> enable.c
 * (the IOMMUFlags steps and teardown).
 */

/* idmap.c: one reference count per page frame mapped 1:1 */

/* What idmap_get() and idmap_put() saw of the frames' counts: */
#define IDMAP_SAW_ZERO 1u /* a frame's count was zero (before a get, after a put) */
#define IDMAP_SAW_SET 2u  /* a frame's count was not (before a get, after a put) */

/**
 * idmap_get() - count one more reference to each frame of [pfn, pfn+n).
 * @im: the counts.
 * @pfn: first page frame number.
 * @n: frames; 0 does nothing.
 * @saw: out: IDMAP_SAW_* of the counts before (IDMAP_SAW_ZERO alone: no
 *       frame was referenced, IDMAP_SAW_SET alone: every frame was), or
 *       NULL; 0 when @n is 0.
 *
 * Return: 0, or -ENOMEM (nothing counted then).
 */
int idmap_get(struct idmap *im, uint64_t pfn, uint64_t n, unsigned int *saw);
/**
 * idmap_put() - drop one reference to each frame of [pfn, pfn+n).
 * @im: the counts.
 * @pfn: first page frame number.
 * @n: frames.
 * @saw: out: IDMAP_SAW_* of the counts after (IDMAP_SAW_ZERO alone: no frame
 *       is referenced any more), or NULL.
 *
 * Return: the frames that had no reference to drop (0 when all is well).
 */
uint64_t idmap_put(struct idmap *im, uint64_t pfn, uint64_t n, unsigned int *saw);
/**
 * idmap_free() - free all counts and empty @im.
 * @im: the counts.
 */
void idmap_free(struct idmap *im);
/**
 * idmap_digest() - a digest of the counts, kept as they change.
 * @im: the counts.
 *
 * The XOR of a term per chunk of counts: equal counts give equal digests
 * however they are held (per chunk or per frame). The first call walks
 * every chunk and starts keeping the value; each later one costs the
 * chunks changed since.
 *
 * Return: the digest.
 */
uint64_t idmap_digest(struct idmap *im);
/**
 * idmap_digest_full() - idmap_digest() computed again from every chunk.
 * @im: the counts.
 *
 * The cross-check of the kept value (tests): the two are always equal.
 *
 * Return: the digest.
 */
uint64_t idmap_digest_full(const struct idmap *im);

/* domain.c: mappings */

/**
 * dom_hw_map() - one map call of the backend in the adapter's domain.
 * @c: the core.
 * @a: the adapter.
 * @iova: device address.
 * @pa: physical address.
 * @bytes: size.
 * @perm: HW_PERM_* and HW_MAP_4K.
 *
 * Return: 0, -ENOMEM for an injected iommu/map failure, or the backend's
 * map error (see struct hw_ops).
 */
int dom_hw_map(struct core *c, struct adapter *a, iova_t iova, pa_t pa, uint64_t bytes,
	       unsigned int perm);
/**
 * dom_hw_unmap() - one unmap call of the backend and its IOTLB flush.
 * @c: the core.
 * @a: the adapter.
 * @iova: device address.
 * @bytes: size.
 *
 * The model unmaps only what it mapped: a failed unmap is an internal error
 * (hwc_unmap()); the flush is made all the same.
 */
void dom_hw_unmap(struct core *c, struct adapter *a, iova_t iova, uint64_t bytes);
/**
 * dom_map() - map some pages in the adapter's domain, if wanted and possible.
 * @c: the core.
 * @a: the adapter.
 * @pg: the pages.
 * @m: their mapping state; does nothing unless wanted, not yet mapped, and
 *     the domain exists and has mappings.
 *
 * Logical mode takes an IOVA range (2 MiB aligned from 2 MiB up) and maps
 * each run there; 1:1 mode maps each frame at its physical address once,
 * reference counted.
 *
 * Return: 0; -ENOSPC when no IOVA range fits (or an injected iommu/iova
 * failure), -ENOMEM, or a map error. Nothing is left mapped on an error.
 */
int dom_map(struct core *c, struct adapter *a, const struct pages *pg, struct dmap *m);
/**
 * dom_unmap() - take some pages out of the adapter's domain, if mapped.
 * @c: the core.
 * @a: the adapter.
 * @pg: the pages.
 * @m: their mapping state; still wanted afterwards.
 *
 * An injected iommu/unmap failure leaves the entries in place (teardown
 * finds them: MAPPING_LEAK). In 1:1 mode a frame is unmapped only when its
 * last reference goes.
 */
void dom_unmap(struct core *c, struct adapter *a, const struct pages *pg, struct dmap *m);
/**
 * dom_iova() - the device address of a byte of some pages.
 * @a: the adapter.
 * @pg: the pages.
 * @m: their mapping state.
 * @offset: byte offset in the pages.
 * @iova: out: the address.
 *
 * Return: 0; -ERANGE beyond the pages, -EINVAL in logical mode while they
 * are not mapped (they have no logical address yet).
 */
int dom_iova(const struct adapter *a, const struct pages *pg, const struct dmap *m,
	     uint64_t offset, iova_t *iova);
/**
 * dom_span() - how far device addresses run on contiguously.
 * @a: the adapter.
 * @pg: the pages.
 * @m: their mapping state.
 * @offset: byte offset in the pages.
 *
 * Return: the bytes from @offset whose device addresses are contiguous (to
 * the end in logical mode, to the end of the run in 1:1); 0 beyond them.
 */
uint64_t dom_span(const struct adapter *a, const struct pages *pg, const struct dmap *m,
		  uint64_t offset);

/* exclusive.c: Begin/EndExclusiveAccess around every attach and detach */

/**
 * exclusive_begin() - suspend the scheduler and enter exclusive access.
 * @c: the core.
 * @a: the adapter.
 *
 * Waits for each physical adapter's queued work (recording its faults),
 * then calls DxgkDdiBeginExclusiveAccess if the adapter is started. Work
 * still queued after it is a WORK_IN_EXCLUSIVE violation.
 *
 * Return: the DMA count that exclusive_end() compares against.
 */
uint64_t exclusive_begin(struct core *c, struct adapter *a);
/**
 * exclusive_end() - leave exclusive access and resume the scheduler.
 * @c: the core.
 * @a: the adapter.
 * @dma_before: what exclusive_begin() returned; any DMA since is a
 *              DMA_IN_EXCLUSIVE violation.
 */
void exclusive_end(struct core *c, struct adapter *a, uint64_t dma_before);
/**
 * attach_all() - attach or detach every physical adapter, under exclusive access.
 * @c: the core.
 * @a: the adapter.
 * @domain: the domain to attach, or CORE_NO_DOMAIN to detach.
 *
 * Return: 0, or the first attach error (-EIO when injected by
 * domain/attach); those attached before it are detached again.
 */
int attach_all(struct core *c, struct adapter *a, uint32_t domain);

/* reserved.c: hardware-reserved ranges, mapped before the attach */

/**
 * reserved_map() - query, validate and map each physical adapter's reserved ranges.
 * @c: the core.
 * @a: the adapter, its domain created.
 *
 * Each range is mapped read/write at its physical address in both modes (in
 * logical mode taken out of the IOVA allocator first). A problem is also
 * told with adapter_error().
 *
 * Return: 0; the KMD's query error, -ENOMEM, -EINVAL for a range that is
 * misaligned, overlaps OS memory or lies above the logical limit, a range
 * collision, or a map error. Nothing stays mapped on an error.
 */
int reserved_map(struct core *c, struct adapter *a);
/**
 * reserved_unmap() - unmap the reserved ranges reserved_map() mapped.
 * @c: the core.
 * @a: the adapter; in logical mode the ranges go back to the IOVA allocator.
 */
void reserved_unmap(struct core *c, struct adapter *a);

/* enable.c: the IOMMUFlags steps, and teardown */

/**
 * dom_enable() - enable the IOMMU for an adapter as far as asked.
 * @c: the core.
 * @a: the adapter.
 * @mappings: map the reserved ranges and everything the adapter was given so far.
 * @attach: attach every physical adapter to the domain.
 *
 * Creates the domain first if there is none (1:1 mode unless the adapter
 * remaps). Steps already done are skipped.
 *
 * Return: 0; -EIO for an injected adapter/enable failure, or the error of
 * the step that failed. Everything done by this call is undone on an error.
 */
int dom_enable(struct core *c, struct adapter *a, bool mappings, bool attach);
/**
 * dom_teardown() - unmap everything, detach, and free the adapter's domain.
 * @c: the core.
 * @a: the adapter; nothing happens without a domain.
 *
 * Bytes still mapped after it all (an unmap that failed) are a
 * MAPPING_LEAK violation.
 */
void dom_teardown(struct core *c, struct adapter *a);

/* mem.c: objects behind handles, mapped for the device (then pmo.c, vidmm.c, fbsave.c) */
/**
 * obj_destroy() - unmap an object, free its pages and release its handle.
 * @c: the core.
 * @h: the handle; one not live is ignored.
 */
void obj_destroy(struct core *c, core_handle_t h);
/**
 * obj_map() - make an object's pages device-visible for as long as it lives.
 * @c: the core.
 * @a: the adapter whose domain maps them.
 * @o: the object; its mapping becomes wanted, read/write.
 *
 * Mapped now if the domain has mappings, else when it gets them.
 *
 * Return: 0, or dom_map()'s error.
 */
int obj_map(struct core *c, struct adapter *a, struct hobj *o);

/* adapter.c */

/**
 * adapter_start() - start a logical adapter as Dxgkrnl does.
 * @c: the core.
 * @a: the adapter.
 *
 * Queries the caps, decides remapping and the IOMMUFlags, sets up the save
 * areas and segments, enables a remapping adapter's domain before
 * DxgkDdiStartDevice, and the registry-forced enablement after it
 * (AllowFailure lets the adapter run without it). Why it did not start goes
 * to a->start_error.
 *
 * Return: 0; the caps query's or the KMD's error, -ENOTSUP when remapping
 * is needed and the driver cannot do it, or the error of a setup step.
 * What was set up is undone on an error.
 */
int adapter_start(struct core *c, struct adapter *a);
/**
 * adapter_stop() - stop a started adapter.
 * @c: the core.
 * @a: the adapter; one not started is left alone.
 *
 * Calls DxgkDdiStopDevice, reports and frees every handle left (HANDLE_LEAK),
 * frees the segments and save areas and tears the domain down.
 */
void adapter_stop(struct core *c, struct adapter *a);

/* fbsave.c */

/**
 * fb_init() - size the frame-buffer save areas and take their commit charge.
 * @c: the core.
 * @a: the adapter; only one reporting IOMMU isolation support is asked.
 * @why: out: why it failed, on an error.
 * @len: size of @why.
 *
 * Asks each physical adapter for its save size, places each reserve at the
 * top of its VRAM (a shared section dealt out among them by the reference
 * KMD's layout, told as notes where it leaves something unused) and
 * charges the total. A driver not asked gets a note for a size it would
 * report that is not a page multiple.
 *
 * Return: 0; the KMD's query error, -EINVAL for a size not a page multiple
 * or larger than VRAM, -ENOMEM for the charge.
 */
int fb_init(struct core *c, struct adapter *a, char *why, size_t len);
/**
 * fb_fini() - free the save areas' frames and their commit charge.
 * @c: the core.
 * @a: the adapter.
 */
void fb_fini(struct core *c, struct adapter *a);
/**
 * fb_hash() - a digest of a physical adapter's VRAM reserve.
 * @c: the core.
 * @a: the adapter.
 * @phys: the physical adapter; powered.
 * @digest: out: the digest (what a restore must reproduce), set only on success.
 *
 * Return: 0, or the backend's error (an internal error, hwc_vram_digest()):
 * there is no digest to compare then.
 */
int fb_hash(struct core *c, struct adapter *a, unsigned int phys, uint64_t *digest)
	__attribute__((warn_unused_result));

/* kmd.c */

/**
 * kmd_reference() - the reference KMD: a well-behaved driver.
 *
 * The base a scenario's KMD ops are merged over (c->kmd_merged).
 *
 * Return: its ops table; static.
 */
const struct kmd_ops *kmd_reference(void);

#endif
