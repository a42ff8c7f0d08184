/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_CORE_HANDLE_INTERNAL_H
#define GPUISO_CORE_HANDLE_INTERNAL_H

#include "internal.h"

/*
 * Private to core/: the handles a driver is given (handle.c), the pages
 * behind them (pages.c), and the objects made of both, mapped for the
 * device (mem.c).
 */

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

#endif
