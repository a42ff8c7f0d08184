/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_REPLAY_VERDICT_H
#define GPUISO_REPLAY_VERDICT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "bench/results.h"

/*
 * A run's verdict: how it ended and what it found first, in a fixed size a
 * forked run can hand its parent whole (one pipe write), and the part of it
 * that says whether two runs broke the same way (verdict_same()).
 */

#define VERDICT_MAX_FINDINGS 4

enum verdict_outcome {
	VERDICT_RECOVERED = 0, /* no violation, every invariant held, no adapter reset */
	VERDICT_RESET = 1,     /* a power transition was cancelled with an adapter reset, nothing else */
	VERDICT_VIOLATION = 2, /* a violation, or an invariant broken */
	VERDICT_NOUTCOMES
};

struct verdict {
	enum verdict_outcome outcome;
	uint32_t broken;     /* bit i: invariant verdict_invariant_name(i) broke */
	uint32_t kept;       /* findings[] in use */
	uint64_t nfindings;  /* the run's violations, all of them */
	struct violation_result findings[VERDICT_MAX_FINDINGS]; /* the first ones */
};

/**
 * verdict_of() - the verdict of a finished replay.
 * @res: its results.
 * @v: out: the verdict.
 */
void verdict_of(const struct results *res, struct verdict *v);

/**
 * verdict_outcome_name() - "recovered", "reset" or "violation".
 * @o: the outcome.
 *
 * Return: the name, or NULL for an unknown outcome.
 */
const char *verdict_outcome_name(enum verdict_outcome o);

/**
 * verdict_invariant_name() - the name of invariant bit @i of verdict.broken.
 * @i: from 0.
 *
 * Return: the name (the results' invariant names), or NULL past the last.
 */
const char *verdict_invariant_name(unsigned int i);

/**
 * verdict_same() - whether two runs broke the same way: the same outcome,
 * the same first violation code (where found: during the run or at
 * teardown), and the same invariants broken. Where and how often do not
 * count.
 * @a: one verdict.
 * @b: the other.
 *
 * Return: true or false.
 */
bool verdict_same(const struct verdict *a, const struct verdict *b);

/**
 * verdict_lines_write() - write @v as text lines: "verdict OUTCOME TOTAL
 * BROKEN" (BROKEN: the invariants, comma separated, or "-"), then a line
 * "finding CODE EVENT TS during|teardown os|driver DETAIL" for each kept
 * violation. Line breaks in a code or detail become spaces.
 * @f: where to write them.
 * @v: the verdict.
 */
void verdict_lines_write(FILE *f, const struct verdict *v);

/**
 * verdict_line_read() - read one line verdict_lines_write() wrote (without
 * its line break) into @v: a "verdict" line starts it over, each "finding"
 * line adds a kept violation to it.
 * @line: the line.
 * @v: in and out: the verdict read so far.
 *
 * Return: 1 read, 0 not a verdict line (neither word starts it), -EINVAL
 * malformed (or a finding before its verdict, or one too many).
 */
int verdict_line_read(const char *line, struct verdict *v);

#endif
