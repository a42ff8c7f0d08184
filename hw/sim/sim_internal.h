/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_HW_SIM_INTERNAL_H
#define GPUISO_HW_SIM_INTERNAL_H

#include "common/u64map.h"
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
	uint64_t tlb_large;  /* of those, entries of 2 MiB and 1 GiB leaves ... */
	uint64_t large_first, large_last; /* ... all within pages [large_first, large_last] */
	/*
	 * Kept while sim->digest_on (digest.c): the XOR of the large leaves'
	 * terms and of the level-1 tables' as of the last digest (l1_terms:
	 * a 2 MiB region's base -> its table's term), the regions whose table
	 * was written since (pt.c notes them, l1_dirty; l1_lost: one could
	 * not be, the next digest takes every table), ...
	 */
	uint64_t pt_state;
	struct u64map l1_terms;
	uint64_t *l1_dirty;
	size_t nl1_dirty, l1_dirty_cap;
	bool l1_lost;
	/* ... and the XOR of the valid IOTLB entries' terms (filled or checked at the current gen) */
	uint64_t tlb_valid;
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
	enum hw_iommu_model model;
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

	/*
	 * The state digest's running terms (digest.c), kept from its first
	 * call on: the IOTLB entries' here, the leaves' and the valid entries'
	 * in each domain.
	 */
	bool digest_on;
	uint64_t tlb_state;          /* the XOR of tlb_terms */
	uint64_t *tlb_terms;         /* [ntlb]: each entry's term as of the last digest */
	uint64_t *tlb_dirty_bits;    /* a bit per entry changed since ... */
	uint32_t *tlb_dirty;         /* ... and those entries, each once */
	size_t ntlb_dirty;

	struct hw_stats st;
	/*
	 * The cost model's two divisions made multiplications and shifts
	 * where they are exact (sim_create()): modeled ns per cycle (0: divide
	 * by the clock), and log2 of the bytes a cycle moves (-1: divide).
	 */
	uint64_t ns_per_cycle;
	int bytes_shift;
};

/**
 * to_sim() - the simulator a backend handle belongs to.
 * @hw: the struct hw embedded in a struct sim (every sim_op_* receives one).
 *
 * Return: the struct sim around @hw.
 */
static inline struct sim *to_sim(struct hw *hw)
{
	return container_of(hw, struct sim, hw);
}

/* sim.c */

/**
 * sim_dom() - a live domain by its id. Inline: every file of the
 * simulator looks domains up, and none should call sim.c for it.
 * @s: the simulator.
 * @id: domain id (1-based; 0 is passthrough).
 *
 * Return: the domain, or NULL for 0, an id out of range or a freed slot.
 */
static inline struct sim_domain *sim_dom(struct sim *s, uint32_t id)
{
	if (!id || id > s->ndoms || !s->doms[id - 1].root)
		return NULL;
	return &s->doms[id - 1];
}

/*
 * The state digest's terms, inline: pt.c and iotlb.c keep them as they
 * change the state (a map of 1 GiB changes 262,144 leaves), digest.c sums
 * them. A leaf by its address, level and entry; an IOTLB entry by its slot
 * and what it holds; whether an entry is valid (checked on use or not) by
 * its slot, in its domain's term: an unmap makes every entry of the domain
 * invalid at once. Each is a chain of a 64-bit finalizer (MurmurHash3's,
 * a bijection), a few cycles: the sums are compared within one sweep, so
 * only their spread matters, not any value.
 */

/**
 * sim_mix() - the finalizer the terms are made of.
 * @k: a value.
 *
 * Return: its mix (distinct values give distinct mixes).
 */
static inline uint64_t sim_mix(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdull;
	k ^= k >> 33;
	k *= 0xc4ceb9fe1a85ec53ull;
	return k ^ (k >> 33);
}

/**
 * sim_leaf_term() - the term of one leaf of a page table.
 * @iova: the first address it maps.
 * @level: its level (1: 4 KiB).
 * @pte: the entry.
 *
 * Return: the term.
 */
static inline uint64_t sim_leaf_term(iova_t iova, unsigned int level, uint64_t pte)
{
	return sim_mix(sim_mix((iova | level) ^ 0x6c656166ull) ^ pte);
}

/**
 * sim_tlb_term() - the term of one IOTLB entry, its validity left out.
 * @s: the simulator.
 * @e: the entry, not empty.
 *
 * Return: the term.
 */
static inline uint64_t sim_tlb_term(const struct sim *s, const struct sim_tlb_entry *e)
{
	/* the slot (below SIM_IOTLB_MAX, 2^20), level and domain in one word */
	uint64_t where = (uint64_t)e->dom << 32 | (uint64_t)e->level << 24 | (uint64_t)(e - s->tlb);

	return sim_mix(sim_mix(sim_mix(where ^ 0x746c62ull) ^ e->vpn) ^ e->pte);
}

/**
 * sim_tlb_valid_term() - the term of an IOTLB entry being valid, in its domain's.
 * @s: the simulator.
 * @e: the entry.
 *
 * Return: the term.
 */
static inline uint64_t sim_tlb_valid_term(const struct sim *s, const struct sim_tlb_entry *e)
{
	return sim_mix((uint64_t)(e - s->tlb) ^ 0x76616c6964000000ull);
}

/**
 * sim_l1_touch() - note that the level-1 table of the 2 MiB region at
 * @base is being written: its term is taken again at the next digest.
 * @s: the simulator; nothing is noted unless s->digest_on.
 * @d: the domain.
 * @base: the region's first address.
 */
void sim_l1_touch(struct sim *s, struct sim_domain *d, iova_t base);

/**
 * sim_l1_compact() - sort the regions @d noted (sim_l1_touch()) and drop
 * those noted twice.
 * @d: the domain.
 */
void sim_l1_compact(struct sim_domain *d);

/**
 * sim_tlb_touch() - note that IOTLB entry @e is changing: its term is
 * taken again at the next digest.
 * @s: the simulator; nothing is noted unless s->digest_on.
 * @e: the entry.
 */
static inline void sim_tlb_touch(struct sim *s, const struct sim_tlb_entry *e)
{
	size_t i = (size_t)(e - s->tlb);

	if (!s->digest_on || (s->tlb_dirty_bits[i / 64] >> (i % 64) & 1))
		return;
	s->tlb_dirty_bits[i / 64] |= (uint64_t)1 << (i % 64);
	s->tlb_dirty[s->ntlb_dirty++] = (uint32_t)i;
}

/* pt.c: I/O page tables */

/**
 * sim_pt_init() - make @d a live, empty domain.
 * @d: the domain slot; overwritten (its walk cache and shadow emptied).
 *
 * Return: 0, or -ENOMEM for the root table (@d stays a free slot then).
 */
int sim_pt_init(struct sim_domain *d);
/**
 * sim_pt_fini() - free every page table of @d and make it a free slot.
 * @d: the domain; a free slot is fine.
 */
void sim_pt_fini(struct sim_domain *d);
/**
 * sim_pt_lookup() - walk the page tables for one page, as hardware would.
 * @d: the domain.
 * @iova: the address to translate.
 * @levels: out: the table levels the walk visited (for the cost model).
 *
 * Counts nothing: the caller charges the walk if it is a hardware one.
 *
 * Return: the physical address of @iova's 4 KiB page with its HW_PERM_*
 * bits (whatever the size of the leaf holding it), or 0 when unmapped.
 */
uint64_t sim_pt_lookup(struct sim_domain *d, iova_t iova, unsigned int *levels);
/**
 * sim_pt_map() - what the map op of struct hw_ops (hw/iommu.h) does to the
 * page tables; sim.c's op then tells the IOTLB of large leaves.
 * @s: the simulator.
 * @d: the domain (sim_dom()), or NULL.
 * @iova: first address; page aligned.
 * @pa: physical address it maps to; page aligned.
 * @size: bytes; a page multiple, not 0.
 * @perm: HW_PERM_* (at least one), and HW_MAP_4K for leaves unmap may cut.
 * @large: out: whether any leaf written is larger than 4 KiB.
 *
 * Uses the largest leaves alignment and size allow; checks the whole range
 * before writing any entry.
 *
 * Return: 0; -ENOENT for no domain (@d NULL), -EINVAL for misalignment or a
 * bad @perm, -ERANGE beyond 48 bits or system memory, -EEXIST if any page
 * is mapped already (nothing changed), -ENOMEM for a table (the leaves
 * written are taken back).
 */
int sim_pt_map(struct sim *s, struct sim_domain *d, iova_t iova, pa_t pa, uint64_t size,
	       unsigned int perm, bool *large);
/**
 * sim_op_unmap() - the unmap op of struct hw_ops (hw/iommu.h).
 * @hw: the simulator.
 * @domain: the domain id.
 * @iova: first address; page aligned.
 * @size: bytes; a page multiple, not 0.
 *
 * The IOTLB is left alone: the domain's generation moves on, so entries
 * filled before are checked against the tables when next used.
 *
 * Return: 0; -ENOENT for an unknown domain or a page not mapped, -EINVAL
 * for misalignment or a large leaf to cut that was not mapped with
 * HW_MAP_4K, -ERANGE beyond 48 bits, -ENOMEM for the tables of a split.
 * Nothing is changed on an error.
 */
int sim_op_unmap(struct hw *hw, uint32_t domain, iova_t iova, uint64_t size);

/**
 * sim_iotlb_invalidate() - drop the IOTLB entries of @domain whose leaves
 * overlap [iova, iova+size), counted as invalidations.
 * @s: the simulator.
 * @domain: the domain id (an unknown one invalidates nothing).
 * @iova: the range's start.
 * @size: its bytes (0: nothing).
 */
void sim_iotlb_invalidate(struct sim *s, uint32_t domain, iova_t iova, uint64_t size);

/* iotlb.c */

/**
 * sim_iotlb_init() - allocate an empty IOTLB.
 * @s: the simulator.
 * @entries: its size; 0 for SIM_IOTLB_DEFAULT.
 *
 * Return: 0, or -ENOMEM.
 */
int sim_iotlb_init(struct sim *s, unsigned int entries);
/**
 * sim_iotlb_fini() - free the IOTLB.
 * @s: the simulator; calling it again is harmless.
 */
void sim_iotlb_fini(struct sim *s);
/**
 * sim_iotlb_lookup() - translate one page through the IOTLB.
 * @s: the simulator.
 * @id: the domain id, the entries' tag.
 * @d: the domain @id names.
 * @page: the page-aligned address to translate.
 * @reach: out: the bytes from @page on that translate alike (to the end of
 *         its leaf, or up to a page a smaller entry still holds).
 *
 * Looks for an entry of each leaf size; on a miss, walks the tables (counted)
 * and fills an entry. An entry older than the last unmap is checked against
 * the tables once and counted as a stale hit if it no longer matches; it is
 * used all the same, as hardware would.
 *
 * Return: pa | HW_PERM_* of @page, or 0 when it is unmapped.
 */
uint64_t sim_iotlb_lookup(struct sim *s, uint32_t id, struct sim_domain *d, iova_t page,
			  uint64_t *reach);
/**
 * sim_iotlb_large_mapped() - note large leaves just mapped.
 * @s: the simulator.
 * @id: the domain id.
 * @d: the domain @id names.
 * @iova: first address of the range mapped.
 * @size: its bytes.
 *
 * If entries of smaller leaves of @id still lie in the range (a flush is
 * missing), the range joins @d's shadow, where translations look for them.
 */
void sim_iotlb_large_mapped(struct sim *s, uint32_t id, struct sim_domain *d, iova_t iova,
			    uint64_t size);
/**
 * sim_iotlb_drop_domain() - drop every entry of a domain, uncounted.
 * @s: the simulator.
 * @id: the domain id, before it is freed and can be reused.
 */
void sim_iotlb_drop_domain(struct sim *s, uint32_t id);
/**
 * sim_op_flush() - the flush op of struct hw_ops (hw/iommu.h).
 * @hw: the simulator.
 * @domain: the domain id; an unknown one is ignored.
 * @iova: first address of the range.
 * @size: its bytes (0: nothing); a range past the top stops there.
 *
 * Drops every entry of @domain whose leaf overlaps the range, counting each
 * as an invalidation, and empties the domain's shadow once a flush covers it.
 */
void sim_op_flush(struct hw *hw, uint32_t domain, iova_t iova, uint64_t size);

/* digest.c */

/**
 * sim_op_state_digest() - the state_digest op of struct hw_ops (hw/iommu.h).
 * @hw: the simulator.
 *
 * The first call computes the terms of the leaves and the IOTLB and keeps
 * them from then on (sim->digest_on); each later one costs what changed
 * since, as the devices' VRAM's does (sparse_state_digest()), plus the
 * domains, the devices' queued jobs and the queued faults.
 *
 * Return: a digest of the domains' tables, the IOTLB, the devices (power,
 * queued jobs, VRAM), the queued faults and the stale-hit count; the other
 * counters are left out.
 */
uint64_t sim_op_state_digest(struct hw *hw);
/**
 * sim_op_state_digest_full() - the state_digest_full op of struct hw_ops.
 * @hw: the simulator.
 *
 * Return: what sim_op_state_digest() gives, computed again from every
 * leaf, IOTLB entry and chunk of VRAM without the kept terms.
 */
uint64_t sim_op_state_digest_full(struct hw *hw);

/* dma.c */

/**
 * sim_dma_job() - run one copy-engine job between VRAM and system memory.
 * @s: the simulator.
 * @dev: the device; a valid index (the caller checked it).
 * @job: the job: direction, VRAM offset, IOVA and length.
 *
 * The whole transfer is translated before any byte moves.
 *
 * Return: 0; -EFAULT at the first blocked page (its fault queued, nothing
 * copied), -ENOMEM.
 */
int sim_dma_job(struct sim *s, uint32_t dev, const struct hw_job *job);
/**
 * sim_op_dma() - the dma op of struct hw_ops (hw/iommu.h).
 * @hw: the simulator.
 * @dev: the device doing the transfer.
 * @iova: the device address of the first byte.
 * @buf: the CPU side: the source of a write, the destination of a read.
 * @len: bytes.
 * @write: true: @buf -> system memory; false: system memory -> @buf.
 *
 * Return: 0; -ENOENT for an unknown device, -EIO while it is off, -EFAULT
 * at the first blocked page (its fault queued, no byte moved), -ENOMEM.
 */
int sim_op_dma(struct hw *hw, uint32_t dev, iova_t iova, void *buf, uint64_t len, bool write);

/* gpu.c */

/**
 * sim_gpu_init() - a powered, idle GPU with empty VRAM.
 * @dv: the device; overwritten.
 * @vram_bytes: its VRAM size; 0 for a GPU without VRAM.
 *
 * Return: 0, or the error of sparse_init(): -EINVAL for a bad size, -ENOMEM.
 */
int sim_gpu_init(struct sim_dev *dv, uint64_t vram_bytes);
/**
 * sim_gpu_fini() - free a GPU's VRAM.
 * @dv: the device.
 */
void sim_gpu_fini(struct sim_dev *dv);
/**
 * sim_op_vram_size() - the vram_size op of struct hw_ops (hw/iommu.h).
 * @hw: the simulator.
 * @dev: the device.
 *
 * Return: @dev's VRAM bytes, 0 for an unknown device.
 */
uint64_t sim_op_vram_size(struct hw *hw, uint32_t dev);
/**
 * sim_op_vram_rw() - the vram_rw op of struct hw_ops (hw/iommu.h).
 * @hw: the simulator.
 * @dev: the device.
 * @off: offset in its VRAM.
 * @buf: the CPU side of the copy.
 * @len: bytes.
 * @write: true: @buf -> VRAM; false: VRAM -> @buf.
 *
 * Return: 0; -ENOENT for an unknown device, -ERANGE outside its VRAM, -EIO
 * while it is off, or the sparse store's error (-ENOMEM).
 */
int sim_op_vram_rw(struct hw *hw, uint32_t dev, uint64_t off, void *buf, uint64_t len,
		   bool write);
/**
 * sim_op_vram_fill() - the vram_fill op of struct hw_ops (hw/iommu.h).
 * @hw: the simulator.
 * @dev: the device.
 * @off: offset in its VRAM.
 * @len: bytes to fill.
 * @pattern: the bytes repeated.
 * @plen: their count.
 *
 * Return: 0; -ENOENT, -ERANGE or -EIO as sim_op_vram_rw(), else the error of
 * sparse_fill() (-EINVAL for an empty pattern, -ENOMEM).
 */
int sim_op_vram_fill(struct hw *hw, uint32_t dev, uint64_t off, uint64_t len,
		     const void *pattern, uint64_t plen);
/**
 * sim_op_vram_digest() - the vram_digest op of struct hw_ops (hw/iommu.h).
 * @hw: the simulator.
 * @dev: the device.
 * @off: offset in its VRAM.
 * @len: bytes digested.
 * @digest: out: the digest, equal for equal content.
 *
 * Return: 0; -ENOENT, -ERANGE or -EIO as sim_op_vram_rw().
 */
int sim_op_vram_digest(struct hw *hw, uint32_t dev, uint64_t off, uint64_t len,
		       uint64_t *digest);
/**
 * sim_op_power() - the power op of struct hw_ops (hw/iommu.h).
 * @hw: the simulator.
 * @dev: the device.
 * @on: power it on, or off (its VRAM content is discarded).
 *
 * Return: 0 (also when already in that state); -ENOENT for an unknown
 * device, -EBUSY to power off with jobs still queued.
 */
int sim_op_power(struct hw *hw, uint32_t dev, bool on);
/**
 * sim_op_gpu_submit() - the gpu_submit op of struct hw_ops (hw/iommu.h).
 * @hw: the simulator.
 * @dev: the device.
 * @job: the copy job; copied.
 *
 * When the queue is full the oldest job runs first to make room; its error
 * is kept for the next sim_op_gpu_wait().
 *
 * Return: 0; -ENOENT for an unknown device, -EINVAL for a bad direction,
 * -ERANGE outside its VRAM, -EIO while it is off.
 */
int sim_op_gpu_submit(struct hw *hw, uint32_t dev, const struct hw_job *job);
/**
 * sim_op_gpu_wait() - the gpu_wait op of struct hw_ops (hw/iommu.h).
 * @hw: the simulator.
 * @dev: the device.
 *
 * Runs every queued job in order.
 *
 * Return: 0 if all jobs since the last wait succeeded, else the first
 * one's error (-EFAULT for a blocked access); -ENOENT for an unknown device.
 */
int sim_op_gpu_wait(struct hw *hw, uint32_t dev);
/**
 * sim_op_gpu_pending() - the gpu_pending op of struct hw_ops (hw/iommu.h).
 * @hw: the simulator.
 * @dev: the device.
 *
 * Return: jobs queued on @dev and not yet run; 0 for an unknown device.
 */
unsigned int sim_op_gpu_pending(struct hw *hw, uint32_t dev);

#endif
