/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_COMMON_WARN_H
#define GPUISO_COMMON_WARN_H

#include <stdbool.h>
#include <stdint.h>

/*
 * Loud checks of what the code relies on without a local proof, as the
 * kernel's WARN_ON(): a broken one is a bug of gpuiso, not of the driver or
 * the trace. It is logged with where it is, counted where its owner's
 * verdict reads it (the model's model_sound invariant reads the core's and
 * the backend's counts), and aborts debug and sanitizer builds
 * (GPUISO_WARN_ABORT in config.h), so that a test or fuzz target stops at
 * the place it broke rather than at the wrong verdict it leads to. A
 * release build goes on and reports it.
 *
 *	if (WARN_ON(&s->st.internal_errors, !sp->n))
 *		return -EFAULT;
 */

/**
 * warn_stop() - what a broken check does once it is reported: abort a debug
 * or sanitizer build, nothing in the others.
 */
void warn_stop(void);

/**
 * warn_report() - report a broken check; WARN_ON() calls it.
 * @count: incremented: the owner's count of broken checks.
 * @file: where the check is.
 * @line: its line.
 * @cond: the condition that held and must not have.
 */
void warn_report(uint64_t *count, const char *file, int line, const char *cond)
	__attribute__((cold));

/* WARN_ON() - the value of @cond; when it holds, warn_report() reports it. */
#define WARN_ON(count, cond) \
	((cond) ? (warn_report((count), __FILE__, __LINE__, #cond), true) : false)

#endif
