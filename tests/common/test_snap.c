/* SPDX-License-Identifier: MIT */
/*
 * In-process snapshots: a restore brings back the heap, the data and the
 * function's stack and place, however much a branch wrote, freed, or grew
 * the heap; the heap a branch grew comes back zeroed; a file a branch
 * closed is open again, one it opened is closed; a process with two
 * threads is refused; where snapshots cannot be had, the reason is said.
 *
 * Each check runs in a child forked from the test (one thread, as the
 * snapshots need), which says how it went in its exit status.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/snap.h"

/* In the process's data and bss: watched, so restored. */
static int in_data = 7;
static char in_bss[10000];

/* What the controller tells the function and hears from it: on the controller's stack. */
struct ctl {
	struct snap *sn;
	int fd;            /* open on this test's program before the first snapshot */
	int opened;        /* what the last branch opened */
	bool branch;       /* the function is in a branch: it writes all over */
	int branches;      /* branches run */
	int bad;           /* the first check that failed after a restore (0: none) */
};

enum { ROUNDS = 4, BLOCKS = 64, BLOCK = 256 * 1024 };

static bool all(const unsigned char *p, size_t n, unsigned char v)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != v)
			return false;
	return true;
}

/* A branch: change everything the snapshot holds, then go back without returning. */
static void branch(struct ctl *c, int round, int *heap, char *kept, char *local)
{
	void *grown[BLOCKS];

	in_data = -1;
	memset(in_bss, 0xee, sizeof(in_bss));
	memset(heap, 0xee, 4096 * sizeof(*heap));
	strcpy(local, "branch");
	free(kept);  /* freed here, still there after the restore */
	c->opened = open("/dev/null", O_RDONLY);  /* opened here, closed after the restore */
	close(c->fd);  /* closed here, open after the restore */
	/* the heap grows well past its top pad */
	for (int i = 0; i < BLOCKS; i++) {
		grown[i] = malloc(BLOCK);
		if (grown[i])
			memset(grown[i], 0xab, BLOCK);
	}
	(void)grown;
	(void)round;
	c->branches++;
	snap_yield(c->sn);
	abort(); /* never resumed from here */
}

static void fn(void *arg)
{
	struct ctl *c = arg;
	int *heap = malloc(4096 * sizeof(*heap));
	char *kept = strdup("kept across branches");
	char local[32] = "before", buf[4];

	if (!heap || !kept) {
		c->bad = 1;
		return;
	}
	for (int round = 0; round < ROUNDS && !c->bad; round++) {
		/* the unfailed way changes things between snapshots: each must hold them */
		in_data = round;
		memset(in_bss, round, sizeof(in_bss));
		for (int i = 0; i < 4096; i++)
			heap[i] = round * 1000 + i;
		snap_yield(c->sn);
		if (c->branch)
			branch(c, round, heap, kept, local);
		/* back from the snapshot: all as it was at the yield */
		if (in_data != round)
			c->bad = 2;
		else if (!all((unsigned char *)in_bss, sizeof(in_bss), (unsigned char)round))
			c->bad = 3;
		else if (heap[4095] != round * 1000 + 4095 || heap[0] != round * 1000)
			c->bad = 4;
		else if (strcmp(local, "before") || strcmp(kept, "kept across branches"))
			c->bad = 5;
		else if (pread(c->fd, buf, 4, 0) != 4 || memcmp(buf, "\177ELF", 4))
			c->bad = 7;
		else if (c->opened >= 0 && fcntl(c->opened, F_GETFD) != -1)
			c->bad = 8;
	}
	/* what the branches grew the heap by comes back zeroed, as calloc() expects */
	for (int i = 0; i < BLOCKS && !c->bad; i++) {
		unsigned char *z = calloc(1, BLOCK);

		if (!z || !all(z, BLOCK, 0))
			c->bad = 6;
	}
	free(kept);
	free(heap);
}

/* In the child: snapshots at each yield of fn(), a branch from each. Return: the exit status. */
static int snapshots_in_child(void)
{
	struct ctl c = { 0 };
	char why[512];
	int rc, done;

	mallopt(M_MMAP_MAX, 0);
	mallopt(M_TRIM_THRESHOLD, -1);
	c.fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	if (c.fd < 0)
		return 15;
	rc = snap_open(&c.sn, 1 << 20, why, sizeof(why));
	if (rc)
		return 10;
	for (done = snap_start(c.sn, fn, &c); !done; done = snap_resume(c.sn)) {
		if (snap_take(c.sn))
			return 11;
		c.branch = true;
		if (snap_resume(c.sn))
			return 12; /* the branch returned: it must not */
		if (snap_restore(c.sn))
			return 13;
		c.branch = false;
	}
	snap_close(c.sn);
	if (c.bad)
		return 20 + c.bad;
	return c.branches == ROUNDS ? 0 : 14;
}

static int in_child(int (*fn_child)(void))
{
	pid_t pid = fork();
	int status;

	cr_assert_geq(pid, 0, "fork: %s", strerror(errno));
	if (!pid)
		_exit(fn_child());
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status), "the child died (status %#x)", status);
	return WEXITSTATUS(status);
}

Test(snap, a_restore_brings_back_heap_data_stack_and_place)
{
	char why[512];
	int rc = snap_probe(why, sizeof(why));

	if (rc) {
		/* not here (a sanitizer build, or an older kernel): said, and refused alike */
		cr_assert_eq(rc, -EOPNOTSUPP);
		cr_assert_eq(in_child(snapshots_in_child), 10, "snap_open() did not refuse: %s", why);
		return;
	}
	rc = in_child(snapshots_in_child);
	cr_assert_eq(rc, 0, "%d (10-15: a snapshot call failed; 21-28: a check after a restore "
		     "failed)", rc);
}

static void *sleeper(void *arg)
{
	(void)arg;
	pause();
	return NULL;
}

static int two_threads_in_child(void)
{
	pthread_t t;
	struct snap *sn;
	char why[512] = "";
	int rc;

	if (pthread_create(&t, NULL, sleeper, NULL))
		return 2;
	rc = snap_open(&sn, 1 << 20, why, sizeof(why));
	if (!rc)
		return 3;
	return rc == -EINVAL && strstr(why, "2 threads") ? 0 : 4;
}

Test(snap, a_process_with_two_threads_is_refused)
{
	cr_assert_eq(in_child(two_threads_in_child), 0, "2: no thread; 3: accepted; 4: wrong error");
}

Test(snap, where_snapshots_cannot_be_had_the_reason_is_said)
{
	char why[512] = "";
	int rc = snap_probe(why, sizeof(why));

#if defined(__SANITIZE_ADDRESS__)
	cr_assert_eq(rc, -EOPNOTSUPP);
	cr_assert(strstr(why, "sanitizer"), "%s", why);
#else
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
	cr_assert_eq(rc, -EOPNOTSUPP);
	cr_assert(strstr(why, "sanitizer"), "%s", why);
	return;
#endif
#endif
	cr_assert(rc == 0 || (rc == -EOPNOTSUPP && (strstr(why, "userfaultfd") ||
						    strstr(why, "PAGEMAP_SCAN"))),
		  "%d: %s", rc, why);
#endif
}
