/* SPDX-License-Identifier: MIT */
/*
 * In-process snapshots (snap.h): userfaultfd asynchronous write-protect
 * notes the pages written, PAGEMAP_SCAN hands them over, a shadow keeps
 * the snapshot's copy, and ucontext keeps the function's place.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <dirent.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include "common/snap.h"

/* Debian 12's headers predate Linux 6.7: the ABI, as the kernel's uapi headers have it. */
#ifndef UFFD_FEATURE_WP_UNPOPULATED
#define UFFD_FEATURE_WP_UNPOPULATED (1 << 13)
#endif
#ifndef UFFD_FEATURE_WP_ASYNC
#define UFFD_FEATURE_WP_ASYNC (1 << 15)
#endif
#ifndef PAGEMAP_SCAN
#define PAGE_IS_WPALLOWED (1 << 0)
#define PAGE_IS_WRITTEN (1 << 1)
#define PAGE_IS_PRESENT (1 << 3)
#define PAGE_IS_SWAPPED (1 << 4)
#define PM_SCAN_WP_MATCHING (1 << 0)
struct page_region {
	uint64_t start, end, categories;
};
struct pm_scan_arg {
	uint64_t size, flags, start, end, walk_end, vec, vec_len, max_pages;
	uint64_t category_inverted, category_mask, category_anyof_mask, return_mask;
};
#define PAGEMAP_SCAN _IOWR('f', 16, struct pm_scan_arg)
#endif

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SNAP_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
	__has_feature(memory_sanitizer)
#define SNAP_SANITIZER 1
#endif
#endif
#ifndef SNAP_SANITIZER
#define SNAP_SANITIZER 0
#endif

#define SNAP_PAGE 4096u
#define SNAP_MAX_RANGES 1024
#define SNAP_VEC 512
/* virtual room for the shadow: the watched memory, and the heap's growth */
#define SNAP_SHADOW_BYTES ((size_t)64 << 30)
/* ... whose second half is the heap's, at the heap's own offsets, so that it grows in place */
#define SNAP_HEAP_SHADOW (SNAP_SHADOW_BYTES / 2)
#define SNAP_SELF_BYTES ((sizeof(struct snap) + SNAP_PAGE - 1) & ~(size_t)(SNAP_PAGE - 1))

/* Open files: at most this many, their copies numbered from SNAP_FD_COPY up. */
#define SNAP_MAX_FDS 256
#define SNAP_FD_COPY 1000

/* A file descriptor open at the snapshot, and a copy of it that a branch cannot close. */
struct snap_fd {
	int fd, copy;
	int flags;      /* its F_GETFD flags */
	dev_t dev;      /* what it is open on */
	ino_t ino;
};

/* One watched mapping and its copy in the shadow. */
struct snap_range {
	uintptr_t start, end;
	size_t shadow;  /* offset in the shadow */
};

struct snap {
	int uffd, pagemap;
	struct snap_range range[SNAP_MAX_RANGES];  /* sorted by start, not overlapping */
	unsigned int nranges;
	uintptr_t heap_start, heap_end; /* the watched heap (heap_end 0: none) */
	uint8_t *shadow;
	size_t shadow_used;
	uint8_t *stack;
	size_t stack_bytes;
	ucontext_t ctl;             /* the caller's place */
	ucontext_t fn;              /* the function's */
	ucontext_t fn_taken;        /* ... at the snapshot */
	void (*entry)(void *);
	void *arg;
	bool returned;
	bool taken;
	struct snap_stats st;
	struct snap_fd fds[SNAP_MAX_FDS];  /* sorted by fd */
	unsigned int nfds;
	int open_now[SNAP_MAX_FDS + 1];    /* fds_open()'s answer */
	char dents[8192];
	struct page_region vec[SNAP_VEC];
};

/* "WHAT: strerror(ERR)NOTE" into @why */
static void say(char *why, size_t whylen, const char *what, int err, const char *note)
{
	if (whylen)
		snprintf(why, whylen, "%s: %s%s", what, strerror(err), note);
}

/* The range holding @addr, or NULL. */
static struct snap_range *range_of(struct snap *sn, uintptr_t addr)
{
	unsigned int lo = 0, hi = sn->nranges;

	while (lo < hi) {
		unsigned int mid = (lo + hi) / 2;

		if (addr < sn->range[mid].start)
			hi = mid;
		else if (addr >= sn->range[mid].end)
			lo = mid + 1;
		else
			return &sn->range[mid];
	}
	return NULL;
}

/* Copy [start, end) between the process and the shadow (@to_shadow: which way). */
static void copy_span(struct snap *sn, uintptr_t start, uintptr_t end, bool to_shadow)
{
	while (start < end) {
		struct snap_range *r = range_of(sn, start);
		uintptr_t stop;
		uint8_t *mirror;

		if (!r) { /* not watched (it cannot be written in: the scan passes it over) */
			start += SNAP_PAGE;
			continue;
		}
		stop = end < r->end ? end : r->end;
		mirror = sn->shadow + r->shadow + (start - r->start);
		if (to_shadow)
			memcpy(mirror, (void *)start, stop - start);
		else
			memcpy((void *)start, mirror, stop - start);
		start = stop;
	}
}

/* How scan_copy() goes about it. */
enum scan_way {
	SCAN_PRESENT,  /* every page that holds something, to the shadow */
	SCAN_TAKE,     /* the pages written since, to the shadow, protected again as reported */
	SCAN_RESTORE,  /* ... from the shadow, left unprotected (see snap_restore()) */
};

/*
 * Copy each span of [start, end) that @way asks for, between the process
 * and the shadow.
 * Return: pages copied, or a negative errno.
 */
static long scan_copy(struct snap *sn, uintptr_t start, uintptr_t end, enum scan_way way)
{
	uint64_t cat = way == SCAN_PRESENT ? PAGE_IS_PRESENT | PAGE_IS_SWAPPED : PAGE_IS_WRITTEN;
	struct pm_scan_arg arg = {
		.size = sizeof(arg), .flags = way == SCAN_TAKE ? PM_SCAN_WP_MATCHING : 0,
		.start = start, .end = end,
		.vec = (uint64_t)(uintptr_t)sn->vec, .vec_len = SNAP_VEC,
		/* only watched memory (without WP_MATCHING the scan would take in the rest) */
		.category_mask = PAGE_IS_WPALLOWED, .category_anyof_mask = cat, .return_mask = cat,
	};
	long pages = 0;

	while (arg.start < arg.end) {
		long n = ioctl(sn->pagemap, PAGEMAP_SCAN, &arg);

		if (n < 0)
			return -errno;
		for (long i = 0; i < n; i++) {
			copy_span(sn, (uintptr_t)sn->vec[i].start, (uintptr_t)sn->vec[i].end,
				  way != SCAN_RESTORE);
			pages += (long)((sn->vec[i].end - sn->vec[i].start) / SNAP_PAGE);
		}
		if (arg.walk_end <= arg.start)
			return -EIO; /* the kernel's walk did not advance */
		arg.start = arg.walk_end;
	}
	return pages;
}

/* Note [start, end) as watched, its copy at @shadow in the shadow; join it to the range before. */
static int range_add(struct snap *sn, uintptr_t start, uintptr_t end, size_t shadow)
{
	unsigned int i = sn->nranges;

	if (shadow + (end - start) > SNAP_SHADOW_BYTES)
		return -ENOSPC;
	/* kept sorted: maps lists them in order, and the heap only grows at its end */
	while (i && sn->range[i - 1].start > start)
		i--;
	if (i && sn->range[i - 1].end == start &&
	    sn->range[i - 1].shadow + (start - sn->range[i - 1].start) == shadow) {
		sn->range[i - 1].end = end;
	} else {
		if (sn->nranges == SNAP_MAX_RANGES)
			return -ENOSPC;
		memmove(&sn->range[i + 1], &sn->range[i], (sn->nranges - i) * sizeof(sn->range[0]));
		sn->range[i] = (struct snap_range){ .start = start, .end = end, .shadow = shadow };
		sn->nranges++;
	}
	sn->st.bytes += end - start;
	sn->st.ranges = sn->nranges;
	return 0;
}

/*
 * Watch [start, end): register it, protect it, copy what it holds to the
 * shadow (at the heap's place for the heap, else after the last copy).
 */
static int watch_range(struct snap *sn, uintptr_t start, uintptr_t end, bool heap)
{
	struct uffdio_register reg = { .range = { .start = start, .len = end - start },
				       .mode = UFFDIO_REGISTER_MODE_WP };
	struct uffdio_writeprotect wp = { .range = reg.range, .mode = UFFDIO_WRITEPROTECT_MODE_WP };
	size_t shadow = heap ? SNAP_HEAP_SHADOW + (start - sn->heap_start) : sn->shadow_used;
	long pages;
	int rc;

	if (!heap && shadow + (end - start) > SNAP_HEAP_SHADOW)
		return -ENOSPC;
	rc = range_add(sn, start, end, shadow);
	if (rc)
		return rc;
	if (!heap)
		sn->shadow_used += end - start;
	if (ioctl(sn->uffd, UFFDIO_REGISTER, &reg) || ioctl(sn->uffd, UFFDIO_WRITEPROTECT, &wp))
		return -errno;
	/* what is there now (pages never touched read as zero in both) */
	pages = scan_copy(sn, start, end, SCAN_PRESENT);
	return pages < 0 ? (int)pages : 0;
}

/*
 * Whether a line of /proc/self/maps is memory to watch. @guarded: it is
 * anonymous and right above an inaccessible anonymous mapping, as a
 * thread's stack is above its guard: with one thread left (after fork())
 * the stacks of the others are memory nothing runs on, and watching them
 * would cost each scan their page tables' walk.
 */
static bool watchable(const char *perms, const char *name, bool guarded)
{
	if (perms[1] != 'w' || perms[3] != 'p')
		return false;  /* read-only, or shared with other processes */
	if (guarded && !*name)
		return false;
	/* the caller's stack; the kernel's pages */
	return strncmp(name, "[stack", 6) && strncmp(name, "[v", 2);
}

/*
 * Watch [start, end) but for the snapshots' own memory (this block, the
 * shadow, and the stack, watched on its own), which the kernel may have
 * joined to a neighbouring mapping.
 */
static int watch_except_own(struct snap *sn, uintptr_t start, uintptr_t end)
{
	const uintptr_t own[3][2] = {
		{ (uintptr_t)sn, (uintptr_t)sn + SNAP_SELF_BYTES },
		{ (uintptr_t)sn->shadow, (uintptr_t)sn->shadow + SNAP_SHADOW_BYTES },
		{ (uintptr_t)sn->stack, (uintptr_t)sn->stack + sn->stack_bytes },
	};

	for (int i = 0; i < 3; i++) {
		int rc;

		if (own[i][1] <= start || own[i][0] >= end)
			continue;
		rc = own[i][0] > start ? watch_except_own(sn, start, own[i][0]) : 0;
		if (!rc && own[i][1] < end)
			rc = watch_except_own(sn, own[i][1], end);
		return rc;
	}
	return watch_range(sn, start, end, false);
}

/* Every private writable mapping, from /proc/self/maps. */
static int watch_all(struct snap *sn, char *why, size_t whylen)
{
	static const char path[] = "/proc/self/maps";
	size_t cap = 1 << 20, len = 0;
	char *buf = malloc(cap), *line, *next;
	uintptr_t prev_guard = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc = 0;

	if (fd < 0 || !buf) {
		rc = fd < 0 ? -errno : -ENOMEM;
		say(why, whylen, path, -rc, "");
		goto close_maps;
	}
	for (ssize_t n; (n = read(fd, buf + len, cap - 1 - len)) > 0;)
		len += (size_t)n;
	buf[len] = '\0';
	/* each line is taken before any is registered: registering splits and joins mappings */
	for (line = buf; line && *line && !rc; line = next) {
		unsigned long start, end;
		char perms[5];
		const char *name = "";
		bool guarded;
		int at = 0;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (sscanf(line, "%lx-%lx %4s %*s %*s %*s %n", &start, &end, perms, &at) < 3)
			continue;
		if (at)
			name = line + at;
		guarded = prev_guard == start;
		prev_guard = !strcmp(perms, "---p") && !*name ? end : 0;
		if (!watchable(perms, name, guarded))
			continue;
		if (!strcmp(name, "[heap]")) {
			/* the heap's lines (one, or more where it was split), in order */
			if (!sn->heap_end)
				sn->heap_start = start;
			rc = watch_range(sn, start, end, true);
			sn->heap_end = end;
		} else {
			rc = watch_except_own(sn, start, end);
		}
		if (rc)
			snprintf(why, whylen, "watching %s: %s", *name ? name : "anonymous memory",
				 strerror(-rc));
	}
close_maps:
	if (fd >= 0)
		close(fd);
	free(buf);
	return rc;
}

/* Whether this kernel lacks PAGEMAP_SCAN: ask about one page of this block. */
static bool pagemap_scan_missing(struct snap *sn)
{
	struct pm_scan_arg arg = {
		.size = sizeof(arg), .start = (uint64_t)(uintptr_t)sn,
		.end = (uint64_t)(uintptr_t)sn + SNAP_PAGE, .vec = (uint64_t)(uintptr_t)sn->vec,
		.vec_len = SNAP_VEC, .category_anyof_mask = PAGE_IS_PRESENT,
		.return_mask = PAGE_IS_PRESENT,
	};

	return ioctl(sn->pagemap, PAGEMAP_SCAN, &arg) < 0;
}

/* The process's threads, from /proc/self/status: snapshots need it to have one. */
static int threads(void)
{
	char buf[4096], *t;
	int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	t = strstr(buf, "\nThreads:");
	return t ? atoi(t + 9) : -1;
}

/* The block, a userfaultfd with asynchronous write-protect, and PAGEMAP_SCAN: or why not. */
static int snap_new(struct snap **out, char *why, size_t whylen)
{
	struct uffdio_api api = { .api = UFFD_API,
				  .features = UFFD_FEATURE_WP_ASYNC | UFFD_FEATURE_WP_UNPOPULATED };
	struct snap *sn;
	int rc;

	*out = NULL;
	if (SNAP_SANITIZER) {
		if (whylen)
			snprintf(why, whylen,
				 "not in a sanitizer build (its allocator maps memory of its own)");
		return -EOPNOTSUPP;
	}
	sn = mmap(NULL, SNAP_SELF_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (sn == MAP_FAILED)
		return -ENOMEM;
	sn->pagemap = -1;
	sn->shadow = MAP_FAILED;
	sn->stack = MAP_FAILED;
	sn->uffd = (int)syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK | UFFD_USER_MODE_ONLY);
	if (sn->uffd < 0) {
		rc = -errno;
		say(why, whylen, "userfaultfd", -rc, "");
		rc = rc == -ENOMEM ? rc : -EOPNOTSUPP;
		goto close_snap;
	}
	if (ioctl(sn->uffd, UFFDIO_API, &api)) {
		rc = -EOPNOTSUPP;
		say(why, whylen, "userfaultfd", errno,
		    " (asynchronous write-protect needs Linux 6.7)");
		goto close_snap;
	}
	sn->pagemap = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	if (sn->pagemap < 0) {
		rc = -errno;
		say(why, whylen, "/proc/self/pagemap", -rc, "");
		rc = -EOPNOTSUPP;
		goto close_snap;
	}
	if (pagemap_scan_missing(sn)) {
		rc = -EOPNOTSUPP;
		say(why, whylen, "PAGEMAP_SCAN", errno, " (it needs Linux 6.7)");
		goto close_snap;
	}
	*out = sn;
	return 0;

close_snap:
	snap_close(sn);
	return rc;
}

int snap_probe(char *why, size_t whylen)
{
	struct snap *sn;
	int rc = snap_new(&sn, why, whylen);

	snap_close(sn);
	return rc;
}

int snap_open(struct snap **out, size_t stack_bytes, char *why, size_t whylen)
{
	struct snap *sn;
	int rc, n = threads();

	*out = NULL;
	if (n != 1) {
		if (whylen)
			snprintf(why, whylen, "the process has %d threads: snapshots need it to have one", n);
		return -EINVAL;
	}
	rc = snap_new(&sn, why, whylen);
	if (rc)
		return rc;
	sn->stack_bytes = stack_bytes;
	sn->shadow = mmap(NULL, SNAP_SHADOW_BYTES, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	/* the stack, with a guard page below it: running over it is a crash, not a silent write */
	sn->stack = mmap(NULL, stack_bytes, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (sn->shadow == MAP_FAILED || sn->stack == MAP_FAILED) {
		rc = -ENOMEM;
		goto close_snap;
	}
	mprotect(sn->stack, SNAP_PAGE, PROT_NONE);
	/* no huge pages: one byte written would cost 2 MiB copied both ways */
	madvise(sn->shadow, SNAP_SHADOW_BYTES, MADV_NOHUGEPAGE);
	madvise(sn->stack, stack_bytes, MADV_NOHUGEPAGE);
	rc = watch_all(sn, why, whylen);
	if (!rc)
		rc = watch_range(sn, (uintptr_t)sn->stack + SNAP_PAGE,
				 (uintptr_t)sn->stack + stack_bytes, false);
	if (!rc && !sn->nranges) {
		rc = -EOPNOTSUPP;
		if (whylen)
			snprintf(why, whylen, "no private writable memory in /proc/self/maps");
	}
	if (rc)
		goto close_snap;
	*out = sn;
	return 0;

close_snap:
	snap_close(sn);
	return rc;
}

void snap_close(struct snap *sn)
{
	if (!sn)
		return;
	for (unsigned int i = 0; i < sn->nfds; i++)
		close(sn->fds[i].copy);
	/* closing the userfaultfd unregisters every range */
	if (sn->uffd >= 0)
		close(sn->uffd);
	if (sn->pagemap >= 0)
		close(sn->pagemap);
	if (sn->stack != MAP_FAILED)
		munmap(sn->stack, sn->stack_bytes);
	if (sn->shadow != MAP_FAILED)
		munmap(sn->shadow, SNAP_SHADOW_BYTES);
	munmap(sn, SNAP_SELF_BYTES);
}

/* The function, on its stack; makecontext() passes ints, so the pointer comes in two halves. */
static void trampoline(unsigned int hi, unsigned int lo)
{
	struct snap *sn = (struct snap *)(((uintptr_t)hi << 32) | lo);

	sn->entry(sn->arg);
	sn->returned = true;
	/* uc_link: back to the caller's place */
}

int snap_start(struct snap *sn, void (*fn)(void *), void *arg)
{
	uintptr_t self = (uintptr_t)sn;

	if (getcontext(&sn->fn))
		return -errno;
	sn->fn.uc_stack.ss_sp = sn->stack + SNAP_PAGE;
	sn->fn.uc_stack.ss_size = sn->stack_bytes - SNAP_PAGE;
	sn->fn.uc_link = &sn->ctl;
	sn->entry = fn;
	sn->arg = arg;
	sn->returned = false;
	makecontext(&sn->fn, (void (*)(void))trampoline, 2, (unsigned int)(self >> 32),
		    (unsigned int)self);
	return snap_resume(sn);
}

void snap_yield(struct snap *sn)
{
	swapcontext(&sn->fn, &sn->ctl);
}

int snap_resume(struct snap *sn)
{
	if (sn->returned)
		return 1;
	swapcontext(&sn->ctl, &sn->fn);
	return sn->returned ? 1 : 0;
}

static uintptr_t page_up(uintptr_t a)
{
	return (a + SNAP_PAGE - 1) & ~(uintptr_t)(SNAP_PAGE - 1);
}

/* The heap grew (brk) since it was last looked at: watch what it grew by. */
static int heap_grown(struct snap *sn)
{
	uintptr_t end = page_up((uintptr_t)sbrk(0));
	int rc;

	if (!sn->heap_end || end <= sn->heap_end)
		return 0;
	/* what the pages there hold was not noted as written: it is copied whole */
	rc = watch_range(sn, sn->heap_end, end, true);
	if (!rc)
		sn->heap_end = end;
	return rc;
}

/*
 * After a restore, the C library's idea of the heap's end is the
 * snapshot's: where a branch grew it further, the kernel's is not. Give
 * that back, so the next growth brings zeroed pages, as calloc() expects.
 */
static void heap_trim(struct snap *sn)
{
	uintptr_t mine = (uintptr_t)sbrk(0);

	if (sn->heap_end && (uintptr_t)syscall(SYS_brk, 0) > mine)
		syscall(SYS_brk, mine);
}

/* The pages written since the last scan, copied @way's way. */
static long sync_written(struct snap *sn, enum scan_way way)
{
	return scan_copy(sn, sn->range[0].start, sn->range[sn->nranges - 1].end, way);
}

/* Whether @fd is one of the copies the snapshots keep. */
static bool fd_copy_is(const struct snap *sn, int fd)
{
	for (unsigned int i = 0; i < sn->nfds; i++)
		if (sn->fds[i].copy == fd)
			return true;
	return false;
}

/*
 * The descriptors open now into sn->open_now, sorted, leaving out the
 * copies the snapshots keep. Return: how many, or a negative errno.
 */
static int fds_open(struct snap *sn)
{
	int dir = open("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC), n = 0;
	long got;

	if (dir < 0)
		return -errno;
	while ((got = syscall(SYS_getdents64, dir, sn->dents, sizeof(sn->dents))) > 0) {
		for (long at = 0; at < got;) {
			const struct dirent64 *d = (const void *)(sn->dents + at);
			int fd = atoi(d->d_name);

			at += d->d_reclen;
			if (d->d_name[0] < '0' || d->d_name[0] > '9' || fd == dir)
				continue;
			if (fd >= SNAP_FD_COPY && fd_copy_is(sn, fd))
				continue;
			if (n == SNAP_MAX_FDS) {
				close(dir);
				return -ENOSPC;
			}
			sn->open_now[n++] = fd;
		}
	}
	close(dir);
	if (got < 0)
		return -EIO;
	/* the kernel lists them in order; keep them so whatever it does */
	for (int i = 1; i < n; i++)
		for (int j = i; j && sn->open_now[j - 1] > sn->open_now[j]; j--) {
			int t = sn->open_now[j];

			sn->open_now[j] = sn->open_now[j - 1];
			sn->open_now[j - 1] = t;
		}
	return n;
}

/*
 * Whether descriptor @fd is still what @f noted: open, on the same file.
 * (A file opened again on the same number passes: what a replay reads
 * with pread() is the same.)
 */
static bool fd_same(const struct snap_fd *f, int fd)
{
	struct stat st;

	return !fstat(fd, &st) && st.st_dev == f->dev && st.st_ino == f->ino;
}

/* The files open now become the snapshot's: each kept by a copy a branch cannot close. */
static int fds_take(struct snap *sn)
{
	struct snap_fd was[SNAP_MAX_FDS];
	unsigned int nwas = sn->nfds, k = 0;
	int n = fds_open(sn);

	if (n < 0)
		return n;
	memcpy(was, sn->fds, nwas * sizeof(*was));
	sn->nfds = 0;
	for (int i = 0; i < n; i++) {
		int fd = sn->open_now[i];
		struct snap_fd *f = &sn->fds[sn->nfds];
		struct stat st;

		while (k < nwas && was[k].fd < fd)
			close(was[k++].copy);  /* closed since: its copy goes */
		if (k < nwas && was[k].fd == fd && fd_same(&was[k], fd)) {
			*f = was[k++];
			sn->nfds++;
			continue;
		}
		if (k < nwas && was[k].fd == fd)
			close(was[k++].copy);  /* another file on the same number */
		if (fstat(fd, &st))
			continue;  /* closed as it was looked at */
		*f = (struct snap_fd){ .fd = fd, .flags = fcntl(fd, F_GETFD),
				       .dev = st.st_dev, .ino = st.st_ino };
		f->copy = fcntl(fd, F_DUPFD_CLOEXEC, SNAP_FD_COPY);
		if (f->copy < 0)
			return -errno;
		sn->nfds++;
	}
	while (k < nwas)
		close(was[k++].copy);
	return 0;
}

/* The files back as the snapshot had them: those a branch closed reopened, those it opened closed. */
static int fds_restore(struct snap *sn)
{
	unsigned int k = 0;
	int n = fds_open(sn);

	if (n < 0)
		return n;
	for (int i = 0; i < n; i++) {
		int fd = sn->open_now[i];

		while (k < sn->nfds && sn->fds[k].fd < fd)
			k++;
		if (k == sn->nfds || sn->fds[k].fd != fd)
			close(fd);  /* opened by the branch */
	}
	for (unsigned int i = 0; i < sn->nfds; i++) {
		const struct snap_fd *f = &sn->fds[i];

		if (!fd_same(f, f->fd) &&
		    dup3(f->copy, f->fd, f->flags > 0 && (f->flags & FD_CLOEXEC) ? O_CLOEXEC : 0) < 0)
			return -errno;
	}
	return 0;
}

int snap_take(struct snap *sn)
{
	long pages = sync_written(sn, SCAN_TAKE);
	int rc;

	if (pages < 0)
		return (int)pages;
	rc = heap_grown(sn);
	if (!rc)
		rc = fds_take(sn);
	if (rc)
		return rc;
	sn->fn_taken = sn->fn;
	sn->taken = true;
	sn->st.takes++;
	sn->st.pages_taken += (uint64_t)pages;
	return 0;
}

/*
 * The pages restored stay unprotected, so copying them back faults on none:
 * they count as written, and the next snap_take() copies them (as they are
 * the shadow's already, that copy is wasted but cheaper than protecting
 * each span again here) and protects them in the scan it makes anyway.
 */
int snap_restore(struct snap *sn)
{
	long pages;
	int rc;

	if (!sn->taken)
		return -EINVAL;
	pages = sync_written(sn, SCAN_RESTORE);
	if (pages < 0)
		return (int)pages;
	heap_trim(sn);
	rc = fds_restore(sn);
	if (rc)
		return rc;
	sn->fn = sn->fn_taken;
	sn->returned = false;
	sn->st.restores++;
	sn->st.pages_restored += (uint64_t)pages;
	return 0;
}

void snap_stats(const struct snap *sn, struct snap_stats *st)
{
	*st = sn->st;
}
