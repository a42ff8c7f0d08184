/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/array.h"
#include "common/warn.h"
#include "sim_internal.h"

/*
 * 4-level radix I/O page tables, 9 bits per level over a 48-bit IOVA: level 1
 * entries map 4 KiB, level 2 entries 2 MiB, level 3 entries 1 GiB. Tables
 * emptied by unmap stay linked (a hot map/unmap loop allocates nothing); they
 * are freed with the domain, or when a large page is mapped over them.
 *
 * A mapping made with HW_MAP_4K may be unmapped page by page, yet it still
 * gets large leaves where alignment allows: they carry SIM_PTE_SPLIT, and an
 * unmap that covers part of one first splits it into a table of leaves one
 * level smaller (as Arm's io-pgtable splits a block), down to where the
 * range begins and ends.
 *
 * map and unmap check the whole range before changing anything, so a refused
 * call leaves the table as it was (an unmap that must split takes its tables
 * before it starts). Runs of 4 KiB leaves are checked, written and
 * cleared a level-1 table's worth at a time, and each domain remembers the
 * level-1 table it last reached, so the second pass and a hot map/unmap
 * loop skip the upper levels. Tables are freed only by map (a large page
 * over an emptied table) and with the domain, and both forget that table.
 */

static inline unsigned int pt_shift(unsigned int level)
{
	return GPUISO_PAGE_SHIFT + SIM_PT_BITS * (level - 1);
}

static inline uint64_t pt_size(unsigned int level)
{
	return (uint64_t)1 << pt_shift(level);
}

static inline unsigned int pt_index(iova_t iova, unsigned int level)
{
	return (iova >> pt_shift(level)) & (SIM_PT_ENTRIES - 1);
}

static inline uint64_t *pt_child(uint64_t pte)
{
	return (uint64_t *)(uintptr_t)(pte & SIM_PTE_ADDR);
}

static uint64_t *pt_table_alloc(void)
{
	uint64_t *t = aligned_alloc(GPUISO_PAGE_SIZE, SIM_PT_ENTRIES * sizeof(uint64_t));

	if (t)
		memset(t, 0, SIM_PT_ENTRIES * sizeof(uint64_t));
	return t;
}

/* Free a table of @level and the tables below it. */
static void pt_table_free(uint64_t *t, unsigned int level)
{
	if (level > 1) {
		for (unsigned int i = 0; i < SIM_PT_ENTRIES; i++)
			if (t[i] & SIM_PTE_TABLE)
				pt_table_free(pt_child(t[i]), level - 1);
	}
	free(t);
}

/* Whether a table of @level and everything below it maps nothing. */
static bool pt_table_empty(const uint64_t *t, unsigned int level)
{
	for (unsigned int i = 0; i < SIM_PT_ENTRIES; i++) {
		if (t[i] & SIM_PTE_PERM)
			return false;
		if ((t[i] & SIM_PTE_TABLE) && !pt_table_empty(pt_child(t[i]), level - 1))
			return false;
	}
	return true;
}

int sim_pt_init(struct sim_domain *d)
{
	*d = (struct sim_domain){ .root = pt_table_alloc(), .l1_region = UINT64_MAX,
				  .shadow_first = UINT64_MAX };
	return d->root ? 0 : -ENOMEM;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

void sim_l1_compact(struct sim_domain *d)
{
	size_t n = 0;

	if (d->nl1_dirty < 2)
		return; /* nothing to sort (and qsort() takes no NULL array) */
	qsort(d->l1_dirty, d->nl1_dirty, sizeof(*d->l1_dirty), cmp_u64);
	for (size_t i = 0; i < d->nl1_dirty; i++)
		if (!n || d->l1_dirty[n - 1] != d->l1_dirty[i])
			d->l1_dirty[n++] = d->l1_dirty[i];
	d->nl1_dirty = n;
}

void sim_l1_touch(struct sim *s, struct sim_domain *d, iova_t base)
{
	if (!s->digest_on || d->l1_lost)
		return;
	/* a run of maps or unmaps in one region notes it once */
	if (d->nl1_dirty && d->l1_dirty[d->nl1_dirty - 1] == base)
		return;
	/* a run that goes long between digests notes the same regions again and again */
	if (d->nl1_dirty == d->l1_dirty_cap && d->nl1_dirty >= 1024)
		sim_l1_compact(d);
	if (array_reserve(&d->l1_dirty, &d->l1_dirty_cap, d->nl1_dirty, sizeof(*d->l1_dirty))) {
		d->l1_lost = true;
		return;
	}
	d->l1_dirty[d->nl1_dirty++] = base;
}

void sim_pt_fini(struct sim_domain *d)
{
	if (d->root)
		pt_table_free(d->root, SIM_LEVELS);
	u64map_fini(&d->l1_terms);
	free(d->l1_dirty);
	*d = (struct sim_domain){ .l1_region = UINT64_MAX, .shadow_first = UINT64_MAX };
}

/* pt_walk() below the remembered level-1 table. */
static uint64_t *pt_walk_tables(struct sim_domain *d, iova_t iova, unsigned int stop,
				bool alloc, unsigned int *level)
{
	uint64_t *t = d->root;
	unsigned int l = SIM_LEVELS;

	for (;;) {
		uint64_t *e = &t[pt_index(iova, l)];

		if (l == 1) {
			d->l1 = t;
			d->l1_region = iova >> pt_shift(2);
		}
		if (l == stop)
			break;
		if (!*e && alloc) {
			uint64_t *n = pt_table_alloc();

			if (!n)
				return NULL;
			*e = (uint64_t)(uintptr_t)n | SIM_PTE_TABLE;
		}
		if (!(*e & SIM_PTE_TABLE))
			break;
		t = pt_child(*e);
		l--;
	}
	*level = l;
	return &t[pt_index(iova, l)];
}

/*
 * The entry for @iova at level @stop, or at the first level above it whose
 * entry is not a table (a leaf or empty). With @alloc, missing tables down to
 * @stop are created (NULL when memory runs out).
 */
static inline uint64_t *pt_walk(struct sim_domain *d, iova_t iova, unsigned int stop, bool alloc,
				unsigned int *level)
{
	if (stop == 1 && d->l1_region == iova >> pt_shift(2)) {
		*level = 1;
		return &d->l1[pt_index(iova, 1)];
	}
	return pt_walk_tables(d, iova, stop, alloc, level);
}

uint64_t sim_pt_lookup(struct sim_domain *d, iova_t iova, unsigned int *levels)
{
	unsigned int l;
	uint64_t pte = *pt_walk(d, iova, 1, false, &l);

	*levels = SIM_LEVELS - l + 1;
	if (!(pte & SIM_PTE_PERM))
		return 0;
	/* The 4 KiB page of @iova inside a leaf of any size. */
	return ((pte & SIM_PTE_ADDR) + (iova & (pt_size(l) - 1) & SIM_PTE_ADDR)) |
	       (pte & SIM_PTE_PERM);
}

/*
 * Pages from @iova on to the end of its level-1 table, at most @left bytes'
 * worth: the 4 KiB leaves that map, unmap and clear handle in one go.
 */
static inline uint64_t pt_l1_run(iova_t iova, uint64_t left)
{
	uint64_t to_end = pt_size(2) - (iova & (pt_size(2) - 1));

	return GPUISO_MIN(to_end, left) >> GPUISO_PAGE_SHIFT;
}

/* The largest leaf level for which iova, pa and the remaining size fit. */
static unsigned int pt_leaf_level(iova_t iova, pa_t pa, uint64_t left)
{
	for (unsigned int l = 3; l > 1; l--)
		if (ALIGNED(iova | pa, pt_size(l)) && left >= pt_size(l))
			return l;
	return 1;
}

/* Spare tables for the splits of one unmap: at most two per end of the range. */
#define PT_SPLIT_MAX (2 * (SIM_LEVELS - 2))

struct pt_spare {
	uint64_t *t[PT_SPLIT_MAX];
	unsigned int n;
};

static int pt_spare_fill(struct pt_spare *sp)
{
	for (sp->n = 0; sp->n < PT_SPLIT_MAX; sp->n++) {
		sp->t[sp->n] = pt_table_alloc();
		if (!sp->t[sp->n])
			return -ENOMEM;
	}
	return 0;
}

static void pt_spare_free(struct pt_spare *sp)
{
	while (sp->n)
		free(sp->t[--sp->n]);
}

/*
 * Replace the leaf *e of @level, at @base, by a table of 512 leaves one
 * level smaller; entries written. The digest's terms follow while @digest.
 */
static uint64_t pt_split(struct sim *s, struct sim_domain *d, uint64_t *e, iova_t base,
			 unsigned int level, struct pt_spare *sp)
{
	uint64_t *t = sp->t[--sp->n], flags = *e & ~SIM_PTE_ADDR, pa = *e & SIM_PTE_ADDR;

	if (s->digest_on)
		d->pt_state ^= sim_leaf_term(base, level, *e);
	for (unsigned int i = 0; i < SIM_PT_ENTRIES; i++) {
		t[i] = (pa + i * pt_size(level - 1)) | flags;
		if (s->digest_on && level > 2)
			d->pt_state ^= sim_leaf_term(base + i * pt_size(level - 1), level - 1, t[i]);
	}
	/* a table of 4 KiB leaves counts whole, at the next digest */
	if (level == 2)
		sim_l1_touch(s, d, base);
	*e = (uint64_t)(uintptr_t)t | SIM_PTE_TABLE;
	return SIM_PT_ENTRIES;
}

/*
 * Clear the leaves of [iova, iova+size), all known to be there, splitting
 * the splittable leaves that reach outside it with tables from @sp. Returns
 * the levels walked; *writes counts the entries written.
 */
static uint64_t pt_clear(struct sim *s, struct sim_domain *d, iova_t iova, uint64_t size,
			 struct pt_spare *sp, uint64_t *leaves, uint64_t *writes)
{
	uint64_t levels = 0, n = 0, split = 0, cleared;
	unsigned int l;

	for (uint64_t off = 0; off < size; off += cleared << pt_shift(l)) {
		uint64_t *e = pt_walk(d, iova + off, 1, false, &l);

		while (l > 1 && (!ALIGNED(iova + off, pt_size(l)) || size - off < pt_size(l))) {
			/*
			 * sim_op_unmap()'s first pass filled a spare per split (two per
			 * end); sim_pt_map()'s unwind clears whole leaves: no spares
			 */
			if (WARN_ON(&s->st.internal_errors, !sp || !sp->n))
				break; /* the leaf is cleared whole: loudly wrong, not a wild write */
			split += pt_split(s, d, e, ALIGN_DOWN(iova + off, pt_size(l)), l, sp);
			l--;
			e = &pt_child(*e)[pt_index(iova + off, l)];
		}
		cleared = l == 1 ? pt_l1_run(iova + off, size - off) : 1;
		if (l == 1)
			sim_l1_touch(s, d, ALIGN_DOWN(iova + off, pt_size(2)));
		else if (s->digest_on)
			d->pt_state ^= sim_leaf_term(iova + off, l, *e);
		if (cleared == 1)
			*e = 0; /* a large leaf, or one page: no block clear for one entry */
		else
			memset(e, 0, cleared * sizeof(*e));
		n += cleared;
		levels += cleared * (SIM_LEVELS - l + 1);
	}
	*leaves = n;
	*writes = n + split;
	return levels;
}

int sim_pt_map(struct sim *s, struct sim_domain *d, iova_t iova, pa_t pa, uint64_t size,
	       unsigned int perm, bool *large)
{
	uint64_t off, next, levels = 0, leaves = 0, flags;
	unsigned int l, at;
	bool big = false;

	if (!d)
		return -ENOENT;
	if (!size || !ALIGNED(iova | pa | size, GPUISO_PAGE_SIZE) || !(perm & HW_PERM_RW) ||
	    (perm & ~(HW_PERM_RW | HW_MAP_4K)))
		return -EINVAL;
	if (iova >= SIM_IOVA_END || size > SIM_IOVA_END - iova || pa >= s->pm->bytes.size ||
	    size > s->pm->bytes.size - pa)
		return -ERANGE;

	/*
	 * Pass 1: nothing may be mapped anywhere in the range. An empty entry
	 * above the leaf level vouches for everything under it; in a level-1
	 * table, the rest of the range in that table is checked at once.
	 */
	for (off = 0; off < size; off = next) {
		uint64_t *e, n, any = 0;

		l = pt_leaf_level(iova + off, pa + off, size - off);
		e = pt_walk(d, iova + off, l, false, &at);
		if (*e & SIM_PTE_PERM)
			return -EEXIST;
		if ((*e & SIM_PTE_TABLE) && !pt_table_empty(pt_child(*e), at - 1))
			return -EEXIST;
		if (at > 1) {
			next = GPUISO_MIN(ALIGN_DOWN(iova + off, pt_size(at)) + pt_size(at) - iova, size);
			continue;
		}
		n = pt_l1_run(iova + off, size - off);
		for (uint64_t i = 0; i < n; i++)
			any |= e[i];
		if (any & SIM_PTE_PERM)
			return -EEXIST;
		next = off + (n << GPUISO_PAGE_SHIFT);
	}

	/* Pass 2: write the leaves, a level-1 table's worth of 4 KiB leaves at a time. */
	flags = (perm & HW_PERM_RW) | (perm & HW_MAP_4K ? SIM_PTE_SPLIT : 0);
	for (off = 0; off < size; off = next) {
		uint64_t *e, n;

		l = pt_leaf_level(iova + off, pa + off, size - off);
		e = pt_walk(d, iova + off, l, true, &at);
		if (!e)
			goto unwind;
		if (*e & SIM_PTE_TABLE) {
			/* An empty table left by unmaps gives way to a large page. */
			pt_table_free(pt_child(*e), l - 1);
			d->l1_region = UINT64_MAX;
		}
		n = l == 1 ? pt_l1_run(iova + off, size - off) : 1;
		for (uint64_t i = 0; i < n; i++)
			e[i] = (pa + off + (i << GPUISO_PAGE_SHIFT)) | flags;
		if (l == 1)
			sim_l1_touch(s, d, ALIGN_DOWN(iova + off, pt_size(2)));
		else if (s->digest_on)
			d->pt_state ^= sim_leaf_term(iova + off, l, *e);
		next = off + (n << pt_shift(l));
		levels += n * (SIM_LEVELS - l + 1);
		leaves += n;
		big |= l > 1;
	}
	*large = big;
	s->st.pte_writes += leaves;
	s->st.pt_walks += leaves;
	s->st.pt_walk_levels += levels;
	return 0;

unwind:
	/* Out of memory for a table: take back the leaves written so far (whole ones). */
	pt_clear(s, d, iova, off, NULL, &leaves, &levels);
	return -ENOMEM;
}

int sim_op_unmap(struct hw *hw, uint32_t domain, iova_t iova, uint64_t size)
{
	struct sim *s = to_sim(hw);
	struct sim_domain *d = sim_dom(s, domain);
	struct pt_spare spare = { .n = 0 };
	uint64_t leaves, writes, next;
	bool split = false;
	unsigned int l;

	if (!d)
		return -ENOENT;
	if (!size || !ALIGNED(iova | size, GPUISO_PAGE_SIZE))
		return -EINVAL;
	if (iova >= SIM_IOVA_END || size > SIM_IOVA_END - iova)
		return -ERANGE;

	/* Pass 1: every page mapped; a leaf reaching outside the range must be splittable. */
	for (uint64_t off = 0; off < size; off = next) {
		uint64_t *e = pt_walk(d, iova + off, 1, false, &l);

		if (l == 1) {
			/* the rest of the range in this level-1 table at once */
			uint64_t n = pt_l1_run(iova + off, size - off);
			bool hole = false;

			for (uint64_t i = 0; i < n; i++)
				hole |= !(e[i] & SIM_PTE_PERM);
			if (hole)
				return -ENOENT;
			next = off + (n << GPUISO_PAGE_SHIFT);
			continue;
		}
		if (!(*e & SIM_PTE_PERM))
			return -ENOENT;
		next = ALIGN_DOWN(iova + off, pt_size(l)) + pt_size(l) - iova;
		if (ALIGNED(iova + off, pt_size(l)) && next <= size)
			continue;
		if (!(*e & SIM_PTE_SPLIT))
			return -EINVAL;
		split = true;
	}
	if (split && pt_spare_fill(&spare)) {
		pt_spare_free(&spare);
		return -ENOMEM;
	}

	s->st.pt_walk_levels += pt_clear(s, d, iova, size, &spare, &leaves, &writes);
	pt_spare_free(&spare);
	s->st.pte_writes += writes;
	s->st.pt_walks += leaves;
	/* IOTLB entries filled before now may be stale: they are checked on use. */
	d->gen++;
	d->tlb_valid = 0;
	return 0;
}
