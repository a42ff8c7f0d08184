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
		} alloc;
	} u;
};

/* Handles: index in the low 20 bits, generation above. */
#define H_INDEX_BITS 20
#define H_INDEX_MASK ((1u << H_INDEX_BITS) - 1)
#define H_CHUNK 1024

struct handle_table {
	struct hobj **chunks;
	size_t nchunks;
	uint32_t next_index; /* first never-used index */
	uint64_t *free_bits; /* bit set: the slot below next_index is free */
	uint32_t first_free; /* no slot below this is free */
	size_t live;
};

/* Reference counts of identity-mapped pages in a 1:1 domain, by page frame number. */
struct idmap {
	struct idmap_leaf **leaves; /* [pfn >> 18] -> counts of 2^18 frames, or NULL (core/domain.c) */
	size_t nleaves;
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
	uint64_t fb_bytes;     /* reserve saved on power down */
	uint64_t fb_vram_off;  /* where it lives in VRAM */
	uint64_t fb_section_off;
	uint64_t saved_hash;   /* VRAM reserve hash at power down */
	bool saved_valid;      /* a save completed: restore is owed */
	bool seeded;           /* reserve holds content worth saving */
	core_handle_t small;        /* KMD's forward-progress buffer for the GPU (MDL or ADL) */
	core_handle_t small_cpu;    /* the same memory for the CPU (the MDL, or a view of the PMO) */
	uint64_t small_bytes;
	core_handle_t small_pmo;    /* reference KMD, WDDM 3.0 services: the PMO behind it */
	struct range_extent *reserved; /* hardware-reserved ranges, queried at enable */
	size_t nreserved;
	bool reserved_mapped;
	struct pages pfs;      /* PopulatedFromSystemMemory segment */
	struct dmap pfs_map;
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
	uint64_t mapped_bytes;       /* bytes mapped in the domain right now */

	/* exclusive access */
	bool in_exclusive;
	bool sched_suspended;

	struct phys_adapter *phys;
	size_t nphys;
	struct section *sections;    /* [nphys]; shared mode uses [0] only */
	uint64_t fb_commit;          /* commit charge taken at init */
	struct range_alloc vram;     /* lead VRAM for VidMm allocations */
	unsigned int secure_vms;
	struct transition xfer;
};

/* DXGK_MEMORY_CACHING_TYPE defines three values; a driver passing another is refused. */
static inline bool cache_type_valid(enum cache_type cache)
{
	return (unsigned int)cache <= CACHE_WRITECOMBINED;
}

/*
 * A WDDM 3.0 driver that reports IOMMU linear remapping (DXGK_IOMMU_CAPS)
 * says it supports and uses the WDDM 3.0 memory services, whatever mode it
 * runs in: the WDDM 2.4 memory callbacks are deprecated for it.
 */
static inline bool adapter_wddm30_memory(const struct adapter *a)
{
	return a->caps.iommu_linear_remap;
}

struct vec {
	void *data;
	size_t n, cap, elem;
};

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
	uint64_t stale_seen;       /* hw stale_hits already reported */

	struct adapter *adapters;
	size_t nadapters;
	struct handle_table ht;

	struct vec violations;     /* struct core_violation */
	struct vec faults;         /* struct core_fault */
	struct vec power;          /* struct core_power_record */
};

/* verifier.c */
void viol(struct core *c, enum core_violation_code code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/*
 * An impossible state of the model (a bug of gpuiso, not of the driver):
 * counted, logged loudly with the event, the first kept for the report.
 */
void internal_error(struct core *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A finding about an adapter that does not stop it (at most CORE_MAX_ERRORS kept). */
void adapter_error(struct adapter *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A violation about one handle (HANDLE_LEAK): it carries @h. */
void viol_handle(struct core *c, enum core_violation_code code, core_handle_t h, const char *fmt,
		 ...) __attribute__((format(printf, 4, 5)));
int vec_push(struct vec *v, const void *elem);
void vec_free(struct vec *v);

/* handle.c */
int handle_new(struct core *c, enum hkind kind, unsigned int adapter, core_handle_t *h,
	       struct hobj **obj);
struct hobj *handle_peek(struct core *c, core_handle_t h);
struct hobj *handle_get(struct core *c, core_handle_t h, enum hkind kind, unsigned int adapter,
			const char *what);
struct hobj *handle_any(struct core *c, core_handle_t h, const char *what);
void handle_release(struct core *c, core_handle_t h);
void handle_table_free(struct handle_table *ht);
const char *hkind_name(enum hkind kind);

/*
 * Dxgkrnl calls DxgkDdiSetPowerState at PASSIVE_LEVEL, whatever level the
 * driver's DPCs had reached: the callbacks the KMD makes from it are judged
 * there, and the trace's level is back afterwards.
 */
static inline int kmd_at_passive(struct core *c,
				 int (*ddi)(struct core *, void *, unsigned int, unsigned int,
					    enum power_state),
				 unsigned int adapter, unsigned int phys, enum power_state state)
{
	enum core_irql was = c->irql;
	int rc;

	c->irql = CORE_IRQL_PASSIVE;
	rc = ddi(c, c->kmd, adapter, phys, state);
	c->irql = was;
	return rc;
}

/* gate.c: every driver callback starts here */
int cb_enter(struct core *c, unsigned int adapter, const char *name, struct adapter **out);
struct hobj *cb_handle(struct core *c, unsigned int adapter, const char *name, core_handle_t h,
		       enum hkind kind, struct adapter **a, int *rc);
struct adapter *adapter_get(struct core *c, unsigned int adapter);
int hw_err_pop(struct core *c, struct adapter *a, unsigned int phys);
void stale_check(struct core *c);

/* pages.c: the pages behind a handle */
enum pages_flag {
	PG_CONTIGUOUS = 1, /* one physically contiguous run */
	PG_LOCK = 2,       /* lock the pages too */
	PG_CHARGED = 4,    /* commit charge was taken in advance: take none */
};
int pages_alloc(struct core *c, struct pages *pg, uint64_t bytes, unsigned int flags);
int pages_copy(struct core *c, const struct pages *dst, uint64_t dst_off,
	       const struct pages *src, uint64_t src_off, uint64_t len, bool stream);
void pages_free(struct core *c, struct pages *pg);
int pages_lock(struct core *c, struct pages *pg, uint64_t bytes);
void pages_unlock(struct core *c, struct pages *pg);
int pages_slice(const struct pages *src, uint64_t offset, uint64_t bytes, struct pages *dst);
pa_t pages_pa(const struct pages *pg, uint64_t offset);
int pages_rw(struct core *c, const struct pages *pg, uint64_t offset, void *buf, uint64_t len,
	     bool write);

/*
 * The domain, in the order its files build on each other: idmap.c (1:1
 * reference counts) -> domain.c (mappings) -> exclusive.c (the bracket
 * around an attach) -> reserved.c (hardware-reserved ranges) -> enable.c
 * (the IOMMUFlags steps and teardown).
 */

/* idmap.c: one reference count per page frame mapped 1:1 */
int idmap_get(struct idmap *im, uint64_t pfn, uint64_t n);
uint64_t idmap_put(struct idmap *im, uint64_t pfn, uint64_t n);
uint64_t idmap_stretch(const struct idmap *im, uint64_t pfn, uint64_t n, bool zero);
void idmap_free(struct idmap *im);
uint64_t idmap_digest(const struct idmap *im, uint64_t h);

/* domain.c: mappings */
int dom_hw_map(struct core *c, struct adapter *a, iova_t iova, pa_t pa, uint64_t bytes,
	       unsigned int perm);
void dom_hw_unmap(struct core *c, struct adapter *a, iova_t iova, uint64_t bytes);
int dom_map(struct core *c, struct adapter *a, const struct pages *pg, struct dmap *m);
void dom_unmap(struct core *c, struct adapter *a, const struct pages *pg, struct dmap *m);
int dom_iova(const struct adapter *a, const struct pages *pg, const struct dmap *m,
	     uint64_t offset, iova_t *iova);
uint64_t dom_span(const struct adapter *a, const struct pages *pg, const struct dmap *m,
		  uint64_t offset);

/* exclusive.c: Begin/EndExclusiveAccess around every attach and detach */
uint64_t exclusive_begin(struct core *c, struct adapter *a);
void exclusive_end(struct core *c, struct adapter *a, uint64_t dma_before);
int attach_all(struct core *c, struct adapter *a, uint32_t domain);

/* reserved.c: hardware-reserved ranges, mapped before the attach */
int reserved_map(struct core *c, struct adapter *a);
void reserved_unmap(struct core *c, struct adapter *a);

/* enable.c: the IOMMUFlags steps, and teardown */
int dom_enable(struct core *c, struct adapter *a, bool mappings, bool attach);
void dom_teardown(struct core *c, struct adapter *a);

/* mem.c: objects behind handles, mapped for the device (then pmo.c, vidmm.c, fbsave.c) */
void obj_destroy(struct core *c, core_handle_t h);
int obj_map(struct core *c, struct adapter *a, struct hobj *o);

/* adapter.c */
int adapter_start(struct core *c, struct adapter *a);
void adapter_stop(struct core *c, struct adapter *a);

/* fbsave.c */
int fb_init(struct core *c, struct adapter *a, char *why, size_t len);
void fb_fini(struct core *c, struct adapter *a);
uint64_t fb_hash(struct core *c, struct adapter *a, unsigned int phys);

/* kmd.c */
const struct kmd_ops *kmd_reference(void);

#endif
