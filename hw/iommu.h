/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_HW_IOMMU_H
#define GPUISO_HW_IOMMU_H

#include "common/types.h"

/*
 * The backend interface: one ops table in front of interchangeable IOMMU
 * backends (hw/sim and hw/vfio, made by the factory of hw/backend.h). The
 * core never calls a backend directly: core/hwcall.c is its one way to these
 * ops, and checks what each returns.
 *
 * A backend owns IOMMU domains (each an I/O page table), devices (the
 * physical adapters: each a GPU with VRAM and a copy engine with a work
 * queue) and a fault queue. A device attached to no domain is in
 * passthrough: its DMA reaches physical addresses untranslated, as before the
 * OS enables the IOMMU (where the backend can: hw_caps.passthrough; through
 * VFIO such a device reaches nothing). A device attached to a domain reaches only what that
 * domain maps; anything else is blocked, recorded as a fault and leaves memory
 * untouched.
 *
 * Every op returns 0 or a negative errno unless it says otherwise.
 */

struct hw;

enum hw_perm {
	HW_PERM_READ = 1,  /* the device may read system memory */
	HW_PERM_WRITE = 2, /* the device may write system memory */
	HW_PERM_RW = 3,
	/*
	 * Not a permission: every 4 KiB page of the mapping may later be
	 * unmapped on its own (a backend maps page by page, or splits a large
	 * page when part of it is unmapped).
	 */
	HW_MAP_4K = 4,
};

/*
 * The IOMMU models a backend may be (docs/backends.md, "IOMMU models"): the
 * simulator is any of them, a real backend is what the machine has.
 */
enum hw_iommu_model {
	HW_MODEL_VTD = 0, /* Intel VT-d */
	HW_MODEL_AMD_VI,  /* AMD-Vi (the AMD IOMMU) */
	HW_MODEL_VIRTIO,  /* virtio-iommu: mappings are requests to the host */
	HW_MODEL_N
};

/**
 * hw_iommu_model_name() - "vtd", "amd-vi" or "virtio".
 * @m: the model.
 *
 * Return: the name, or NULL for an unknown model.
 */
const char *hw_iommu_model_name(enum hw_iommu_model m);

/**
 * hw_iommu_model_parse() - the model hw_iommu_model_name() calls @name.
 * @name: the name.
 *
 * Return: the model, or -EINVAL.
 */
int hw_iommu_model_parse(const char *name);

/*
 * Fault reasons, numbered as VT-d numbers them (and as Linux reports them).
 * AMD-Vi (an IO_PAGE_FAULT event) and virtio-iommu (a MAPPING fault) have
 * no reason for an address past the width: they report it as a read or
 * write the tables do not allow.
 */
enum hw_fault_reason {
	HW_FAULT_BEYOND_AW = 0x04, /* address above the input address width */
	HW_FAULT_NO_WRITE = 0x05,  /* write to a page without write permission (or unmapped) */
	HW_FAULT_NO_READ = 0x06,   /* read of a page without read permission (or unmapped) */
};

struct hw_fault {
	uint32_t dev;       /* the device that issued the access */
	iova_t iova;        /* first faulting address, page aligned down */
	bool write;         /* true for a write to system memory */
	uint8_t reason;     /* enum hw_fault_reason */
};

struct hw_caps {
	const char *name;       /* backend name, e.g. "sim" */
	uint64_t pgsize_bitmap; /* page sizes the I/O page tables map (bit n: 2^n bytes) */
	unsigned int iova_bits; /* input address width */
	unsigned int dma_bits;  /* addresses the devices can issue (a DMA mask); above iova_bits they reach past the IOMMU's width */
	unsigned int ndevs;     /* devices the backend has */
	bool passthrough;       /* a device attached to no domain reaches physical addresses (else nothing) */
	enum hw_iommu_model model; /* what faults and invalidation behave like */
};

/*
 * Counters since the backend was created. The simulator turns them into
 * modeled device time with its cost model (deterministic for a given
 * sequence of operations); a real backend leaves modeled_ns at 0.
 */
struct hw_stats {
	uint64_t pte_writes;          /* page-table entries written or cleared */
	uint64_t pt_walks;            /* page-table walks (IOTLB misses or map/unmap walks) */
	uint64_t pt_walk_levels;      /* levels visited by those walks */
	uint64_t iotlb_hits;
	uint64_t iotlb_misses;
	uint64_t iotlb_invalidations; /* entries dropped by flushes */
	uint64_t dma_transfers;       /* DMA transfers and copy jobs started */
	uint64_t dma_bytes;           /* bytes moved by device DMA (including copies) */
	uint64_t faults;              /* accesses blocked */
	uint64_t faults_unreported;   /* of those, known from the domain's mappings only: the platform's report did not come */
	uint64_t stale_hits;          /* accesses translated by an IOTLB entry whose PTE is gone */
	uint64_t requests;            /* map and unmap requests to the host (virtio-iommu) */
	uint64_t internal_errors;     /* the backend's broken checks (WARN_ON(), common/warn.h): bugs of gpuiso */
	uint64_t modeled_ns;          /* device time the cost model assigns to all of the above */
};

enum hw_copy_dir {
	HW_COPY_TO_SYSTEM = 0,   /* VRAM -> system memory at an IOVA (device writes) */
	HW_COPY_FROM_SYSTEM = 1, /* system memory at an IOVA -> VRAM (device reads) */
};

/* One copy-engine job. */
struct hw_job {
	enum hw_copy_dir dir;
	uint64_t vram_off; /* byte offset in the device's VRAM */
	iova_t iova;       /* system side, as the device addresses it */
	uint64_t len;      /* bytes */
};

struct hw_ops {
	/** @destroy: free the backend and everything it holds. */
	void (*destroy)(struct hw *hw);
	/** @query_caps: fill @caps. */
	void (*query_caps)(struct hw *hw, struct hw_caps *caps);

	/** @domain_alloc: a new empty domain; its id goes to @domain. */
	int (*domain_alloc)(struct hw *hw, uint32_t *domain);
	/** @domain_free: free an empty or non-empty domain; -EBUSY while a device is attached to it. */
	int (*domain_free)(struct hw *hw, uint32_t domain);
	/**
	 * @attach: attach @dev to @domain, replacing any previous domain (a
	 * switch). -ENOENT for an unknown device or domain.
	 */
	int (*attach)(struct hw *hw, uint32_t dev, uint32_t domain);
	/** @detach: back to passthrough; -ENOENT if @dev is not attached. */
	int (*detach)(struct hw *hw, uint32_t dev);

	/**
	 * @map: map [iova, iova+size) to [pa, pa+size) with @perm (enum
	 * hw_perm). iova, pa and size are page aligned; large pages are used
	 * where size and alignment allow. -EEXIST if any page is mapped already
	 * (nothing is changed then), -ERANGE beyond the address width, -EINVAL
	 * for misalignment or no permission, -ENOMEM.
	 */
	int (*map)(struct hw *hw, uint32_t domain, iova_t iova, pa_t pa, uint64_t size,
		   unsigned int perm);
	/**
	 * @unmap: clear [iova, iova+size); every page in it must be mapped
	 * (-ENOENT otherwise, nothing changed); a large page may be cut only if
	 * it was mapped with HW_MAP_4K (-EINVAL otherwise). The IOTLB is not
	 * flushed: call @flush.
	 */
	int (*unmap)(struct hw *hw, uint32_t domain, iova_t iova, uint64_t size);
	/** @flush: invalidate the IOTLB entries of [iova, iova+size) in @domain. */
	void (*flush)(struct hw *hw, uint32_t domain, iova_t iova, uint64_t size);

	/**
	 * @dma: device @dev reads (@write false: system memory -> @buf) or
	 * writes (@write true: @buf -> system memory) @len bytes at @iova.
	 * Every page is translated first; if any is blocked, one fault is
	 * queued, no byte moves and -EFAULT is returned.
	 */
	int (*dma)(struct hw *hw, uint32_t dev, iova_t iova, void *buf, uint64_t len, bool write);
	/** @fault_pop: take the oldest queued fault; -ENOENT when none. */
	int (*fault_pop)(struct hw *hw, struct hw_fault *fault);
	/** @stats: fill @stats with the counters so far. */
	void (*stats)(struct hw *hw, struct hw_stats *stats);
	/**
	 * @modeled_ns: what @stats would say in modeled_ns, without filling
	 * the counters (a replay reads it after every event). NULL for a
	 * backend whose modeled time is 0 (real hardware).
	 */
	uint64_t (*modeled_ns)(struct hw *hw);
	/**
	 * @state_digest: a digest of everything the backend holds that decides
	 * what later calls do (page tables, IOTLB, devices' VRAM and queues,
	 * faults not yet taken), its counters left out: equal states give equal
	 * digests. NULL for a backend that cannot see all of it (real hardware).
	 */
	uint64_t (*state_digest)(struct hw *hw);
	/**
	 * @state_digest_full: state_digest's value computed again from all the
	 * state, for a backend that keeps parts of it as they change (the
	 * cross-check of the kept parts); NULL when state_digest is.
	 */
	uint64_t (*state_digest_full)(struct hw *hw);

	/** @vram_size: bytes of VRAM of @dev (0 for an unknown device). */
	uint64_t (*vram_size)(struct hw *hw, uint32_t dev);
	/** @vram_rw: CPU access to @dev's VRAM through its BAR; -ERANGE outside it. */
	int (*vram_rw)(struct hw *hw, uint32_t dev, uint64_t off, void *buf, uint64_t len,
		       bool write);
	/**
	 * @vram_fill: write @pattern (@plen bytes) over and over across [off,
	 * off+len) of @dev's VRAM, as vram_rw() would; filling costs the memory
	 * of one period when @off and @plen are multiples of 2 MiB. -ERANGE
	 * outside it, -EIO while off, -EINVAL for an empty pattern.
	 */
	int (*vram_fill)(struct hw *hw, uint32_t dev, uint64_t off, uint64_t len,
			 const void *pattern, uint64_t plen);
	/**
	 * @vram_digest: a digest of [off, off+len) of @dev's VRAM into @digest,
	 * equal for equal content (how a restore is checked against the save
	 * without reading the area back); -ERANGE outside it, -EIO while off.
	 */
	int (*vram_digest)(struct hw *hw, uint32_t dev, uint64_t off, uint64_t len,
			   uint64_t *digest);
	/** @power: power @dev on or off; powering off loses VRAM content. */
	int (*power)(struct hw *hw, uint32_t dev, bool on);
	/**
	 * @gpu_submit: queue a copy-engine job on @dev; it runs asynchronously.
	 * -EIO while @dev is powered off.
	 */
	int (*gpu_submit)(struct hw *hw, uint32_t dev, const struct hw_job *job);
	/**
	 * @gpu_wait: run every queued job of @dev to completion. Returns 0 if
	 * all succeeded, else the first job's error (-EFAULT for a blocked
	 * access, whose fault is queued).
	 */
	int (*gpu_wait)(struct hw *hw, uint32_t dev);
	/** @gpu_pending: jobs queued on @dev and not yet run. */
	unsigned int (*gpu_pending)(struct hw *hw, uint32_t dev);
};

/* Every backend embeds this first. */
struct hw {
	const struct hw_ops *ops;
};

#endif
