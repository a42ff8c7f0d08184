/* SPDX-License-Identifier: MIT */
/* Every form scripts/kerneldoc-check accepts (tests/scripts/test_kerneldoc.py). */
#include <stddef.h>

struct thing;

/**
 * thing_create() - the multi-line form.
 * @size: bytes.
 * @out: out: the thing.
 *
 * Return: 0, -ENOMEM.
 */
int thing_create(size_t size, struct thing **out);

/** thing_free() - the one-line form. @t: the thing, or NULL. */
void thing_free(struct thing *t);

/** thing_move() - a list. @from, @to: things; @n; @flags. Return: 0. */
int thing_move(struct thing *from, struct thing *to, size_t n, unsigned int flags);

/**
 * thing_each() - a function-pointer parameter, and references to
 * @t->first and @fn's return.
 * @t: the thing.
 * @fn: called with @arg for each element.
 * @arg: passed to @fn.
 */
void thing_each(const struct thing *t, int (*fn)(void *elem, void *arg), void *arg);

/** thing_count() - no parameter. */
size_t thing_count(void) __attribute__((pure));

/** thing_log() - an attribute and varargs. @fmt: printf format. */
__attribute__((format(printf, 1, 2))) void thing_log(const char *fmt, ...);

/** thing_id() - a static inline helper. @t: the thing. Return: 1, or 0 for none. */
static inline int thing_id(const struct thing *t)
{
	return t ? 1 : 0;
}

#if 1
/** thing_trace() - one comment for both branches of an #if. @x: a value. */
void thing_trace(int x);
#else
static inline void thing_trace(int x)
{
	(void)x;
}
#endif

#define THING_MAX(a, b) ((a) > (b) ? (a) : (b)) /* macros are not checked */

typedef int (*thing_cb)(int x); /* nor typedefs */
