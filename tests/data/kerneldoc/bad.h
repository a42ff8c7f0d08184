/* SPDX-License-Identifier: MIT */
/* One finding of each kind (tests/scripts/test_kerneldoc.py: bad.expected). */
#include <stddef.h>

struct thing;

int thing_undocumented(struct thing *t);

/* thing_plain() - a comment, but not kernel-doc. @t: the thing. */
void thing_plain(struct thing *t);

/**
 * thing_other() - about another function (a copy and paste).
 * @t: the thing.
 */
void thing_renamed(struct thing *t);

/** thing_nodash() the dash is missing. @t: the thing. */
void thing_nodash(struct thing *t);

/** thing_nosummary() - */
void thing_nosummary(void);

/**
 * thing_missing() - @n has no tag; a mention in the text is not one.
 * @t: the thing.
 */
int thing_missing(struct thing *t, size_t n);

/**
 * thing_stale() - a parameter that was removed.
 * @t: the thing.
 * @len: bytes.
 */
void thing_stale(struct thing *t);

/**
 * thing_gone() - a comment left behind when its function was removed.
 * @t: the thing.
 */

/** thing_gap() - a blank line between it and its function. @t: the thing. */

void thing_gap(struct thing *t);

/** thing_inline() - static inline helpers are checked too. */
static inline int thing_inline(int x)
{
	return x;
}
