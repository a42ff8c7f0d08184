/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_REPLAY_COMMAND_H
#define GPUISO_REPLAY_COMMAND_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "faults/faults.h"
#include "replay/replay.h"

/*
 * The shell command that replays one run as it was made: what sweeps,
 * campaigns and trimming print as a reproducer. One writer, so that all
 * three say it the same way.
 */

struct replay_command {
	const char *program;       /* the gpuiso that ran (an absolute path), or NULL: "gpuiso" */
	const char *trace;
	const char *const *maps;   /* import maps for a foreign trace (--map each), or NULL */
	size_t nmaps;
	const char *scenario;      /* or NULL: the built-in default */
	const char *faults;        /* a faults file, or NULL */
	bool seeded;               /* --seed @seed */
	uint64_t seed;
	enum trace_covers covers;  /* life is written; window is the default */
	bool fail;                 /* --fail-nth @point:@nth */
	enum fp_point point;
	uint64_t nth;
};

/**
 * replay_command_write() - "PROGRAM replay TRACE [--map M]... [--scenario S]
 * [--faults F] [--seed N] [--trace-covers life] [--fail-nth POINT:N]", each
 * path one shell word (shell_word()), without a line break; PROGRAM is
 * @c->program, or gpuiso.
 * @f: where to write it.
 * @c: the run.
 *
 * Return: 0, or -EIO when @f reports a write error.
 */
int replay_command_write(FILE *f, const struct replay_command *c);

/**
 * replay_command() - replay_command_write() into a string.
 * @c: the run.
 * @out: out: the command (malloc), or NULL on failure.
 *
 * Return: 0 or -ENOMEM.
 */
int replay_command(const struct replay_command *c, char **out);

#endif
