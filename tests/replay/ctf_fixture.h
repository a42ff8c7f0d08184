/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_TESTS_REPLAY_CTF_FIXTURE_H
#define GPUISO_TESTS_REPLAY_CTF_FIXTURE_H

/*
 * Shared by the suites of the trace reader (test_ctf_read.c,
 * test_ctf_files.c, test_ctf_child.c, test_info.c): real traces recorded
 * elsewhere (shared/traces-real, see its README), scratch copies of them,
 * and a reader that counts what it reads. Expected counts and values come
 * from `babeltrace2 DIR` on the same traces.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "replay/ctf.h"

#define UST "tc-ust-libc-memory"
#define KERNEL "tc-kernel-rpm-kmem"
#define UST_EVENTS 328056
#define KERNEL_EVENTS 31556

/* The folder of the real traces (traces_real(): skips the test when it is absent). */
const char *real_dir(void);
/* The real trace @name (in a buffer the next call reuses). */
const char *real(const char *name);
/* A new scratch folder, its path in @buf. */
void tmpdir(char *buf, size_t len);
/* Remove @dir and everything in it. */
void rm_tree(const char *dir);
void copy_file(const char *from, const char *to);
/* Copies the real trace @name's top-level files (not index/) into @dst. */
void copy_trace(const char *name, const char *dst);
void write_file(const char *path, const void *data, size_t len);
/* Replace the first @from in file @path by @to (same length or not). */
void edit_file(const char *path, const char *from, const char *to);

/* ---- a counting reader: one tag per name, optional fields per name ---- */

#define MAX_NAMES 256

struct want {
	const char *event;          /* bind these fields for this event name */
	const char *fields[CTF_MAX_FIELDS];
	unsigned int n;
};

struct counter {
	const struct want *wants;   /* NULL-event terminated, may be NULL */
	bool bind_only_wanted;      /* other names get tag -1 */
	char *names[MAX_NAMES];
	uint64_t counts[MAX_NAMES];
	unsigned int nnames;
	unsigned int binds;

	uint64_t calls, last_index, last_ts;
	bool order_ok, index_ok;
	int fail_at;                /* > 0: return -ECANCELED at this callback */
	int bind_error;             /* != 0: bind returns it */

	/* Filled by check callbacks. */
	struct ctf_value first[MAX_NAMES][CTF_MAX_FIELDS];
	bool seen[MAX_NAMES];
	uint64_t sum[MAX_NAMES][CTF_MAX_FIELDS];
	char first_str[MAX_NAMES][64];
};

int tag_of(const struct counter *c, const char *name);
int count_bind(void *ctx, const char *name, struct ctf_binding *b);
int count_event(void *ctx, int tag, uint64_t index, uint64_t ts, const struct ctf_value *v);
void counter_fini(struct counter *c);
uint64_t count_of(const struct counter *c, const char *name);
int read_into(const char *path, struct counter *c, struct ctf_stats *st, char *err, size_t errlen);
/* Read @path, which must fail with a message of one line in @err: ctf_read()'s result. */
int read_bad(const char *path, char *err, size_t errlen);

#endif
