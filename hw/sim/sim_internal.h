/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_HW_SIM_INTERNAL_H
#define GPUISO_HW_SIM_INTERNAL_H

#include "sim.h"

/*
 * Private to hw/sim: the backend state and the functions its files share.
 * Nothing here is global: everything hangs off struct sim.
 */

#define SIM_IOVA_BITS 48
#define SIM_IOVA_END ((uint64_t)1 << SIM_IOVA_BITS)
#define SIM_LEVELS 4           /* level 4 is the root, level 1 holds 4 KiB leaves */
#define SIM_PT_BITS 9
#define SIM_PT_ENTRIES (1u << SIM_PT_BITS)
#define SIM_IOTLB_DEFAULT 512
#define SIM_IOTLB_MAX (1u << 20)
#define SIM_QUEUE 64           /* copy-engine jobs a device holds */
#define SIM_FAULTS 256         /* fault records queued before new ones are dropped */

/*
 * A page-table entry. A leaf holds the physical address of its page (4 KiB,
 * 2 MiB or 1 GiB, by level) with HW_PERM_* in the low bits; a table entry
 * holds a pointer to the next level's table (4 KiB aligned) with
 * SIM_PTE_TABLE. Zero is empty. A leaf always has a permission (map refuses
 * none), so "any permission bit" means "leaf".
 */
#define SIM_PTE_PERM ((uint64_t)HW_PERM_RW)
#define SIM_PTE_TABLE ((uint64_t)4)
#define SIM_PTE_SPLIT ((uint64_t)8) /* leaf mapped with HW_MAP_4K: may be cut (split) by unmap */
#define SIM_PTE_ADDR (~(uint64_t)(GPUISO_PAGE_SIZE - 1))

struct sim_domain {
	uint64_t *root;      /* level-4 table; NULL while the slot is free */
	uint64_t gen;        /* bumped by each unmap: older IOTLB entries get checked */
	unsigned int users;  /* devices attached */
	uint64_t *l1;        /* the level-1 table last reached (a walk cache) ... */
	uint64_t l1_region;  /* ... and the 2 MiB region it covers; UINT64_MAX for none */
	/*
	 * Pages [shadow_first, shadow_last] hold large leaves mapped while
	 * IOTLB entries of smaller leaves there were not flushed yet (none
	 * when first > last): only there must a translation look for them.
	 */
	uint64_t shadow_first, shadow_last;
	uint64_t tlb_held;   /* IOTLB entries of this domain */
};

/* One translation: a leaf of any size. */
struct sim_tlb_entry {
	uint64_t vpn;      /* the leaf's first page: iova >> GPUISO_PAGE_SHIFT */
	uint64_t pte;      /* the leaf's pa | perm, as the walk found it */
	uint64_t gen;      /* the domain's generation when filled or last verified */
	uint32_t dom;      /* domain id; 0 marks an empty entry */
	uint32_t level;    /* 1: 4 KiB, 2: 2 MiB, 3: 1 GiB */
};

/* A physically contiguous piece of a translated transfer. */
struct sim_run {
	pa_t pa;
	uint64_t len;
};

struct sim_dev {
	struct sparse_mem vram;
	uint32_t domain; /* 0: passthrough */
	bool powered;
	struct hw_job queue[SIM_QUEUE];
	unsigned int head, count;
	int err; /* first error of a job run early because the queue was full */
};

struct sim {
	struct hw hw;
	struct physmem *pm;
	struct sim_cost_model cost;
	unsigned int ndevs;
	struct sim_dev *devs;

	struct sim_domain *doms; /* domain id N lives at doms[N - 1] */
	size_t ndoms;

	struct sim_tlb_entry *tlb; /* direct mapped */
	size_t ntlb;
	size_t tlb_mask;           /* ntlb - 1 when ntlb is a power of two (a mask picks the slot), else 0 */
	size_t tlb_large;          /* entries of 2 MiB and 1 GiB leaves held: none, none to look for */

	struct hw_fault faults[SIM_FAULTS]; /* ring */
	unsigned int fault_head, fault_count;
	uint64_t faults_dropped;

	struct sim_run *runs; /* scratch for the transfer being translated */
	size_t nruns, runs_cap;

	struct hw_stats st;
};

static inline struct sim *to_sim(struct hw *hw)
{
	return container_of(hw, struct sim, hw);
}

/* sim.c */
struct sim_domain *sim_dom(struct sim *s, uint32_t id);
void sim_fault_push(struct sim *s, const struct hw_fault *f);

/* pt.c: I/O page tables */
int sim_pt_init(struct sim_domain *d);
void sim_pt_fini(struct sim_domain *d);
uint64_t sim_pt_lookup(struct sim_domain *d, iova_t iova, unsigned int *levels);
int sim_op_map(struct hw *hw, uint32_t domain, iova_t iova, pa_t pa, uint64_t size,
	       unsigned int perm);
int sim_op_unmap(struct hw *hw, uint32_t domain, iova_t iova, uint64_t size);

/* iotlb.c */
int sim_iotlb_init(struct sim *s, unsigned int entries);
void sim_iotlb_fini(struct sim *s);
uint64_t sim_iotlb_lookup(struct sim *s, uint32_t id, struct sim_domain *d, iova_t page,
			  uint64_t *reach);
void sim_iotlb_large_mapped(struct sim *s, uint32_t id, struct sim_domain *d, iova_t iova,
			    uint64_t size);
void sim_iotlb_drop_domain(struct sim *s, uint32_t id);
void sim_op_flush(struct hw *hw, uint32_t domain, iova_t iova, uint64_t size);

/* digest.c */
uint64_t sim_op_state_digest(struct hw *hw);

/* dma.c */
int sim_dma_job(struct sim *s, uint32_t dev, const struct hw_job *job);
int sim_op_dma(struct hw *hw, uint32_t dev, iova_t iova, void *buf, uint64_t len, bool write);

/* gpu.c */
int sim_gpu_init(struct sim_dev *dv, uint64_t vram_bytes);
void sim_gpu_fini(struct sim_dev *dv);
uint64_t sim_op_vram_size(struct hw *hw, uint32_t dev);
int sim_op_vram_rw(struct hw *hw, uint32_t dev, uint64_t off, void *buf, uint64_t len,
		   bool write);
int sim_op_vram_fill(struct hw *hw, uint32_t dev, uint64_t off, uint64_t len,
		     const void *pattern, uint64_t plen);
int sim_op_vram_digest(struct hw *hw, uint32_t dev, uint64_t off, uint64_t len,
		       uint64_t *digest);
int sim_op_power(struct hw *hw, uint32_t dev, bool on);
int sim_op_gpu_submit(struct hw *hw, uint32_t dev, const struct hw_job *job);
int sim_op_gpu_wait(struct hw *hw, uint32_t dev);
unsigned int sim_op_gpu_pending(struct hw *hw, uint32_t dev);

#endif
