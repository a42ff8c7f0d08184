/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_FAULTS_SHARD_H
#define GPUISO_FAULTS_SHARD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/*
 * Shards: a sweep's or a campaign's runs split into N parts that run apart
 * (a Slurm job array: docs/slurm.md), each into the same output folder,
 * then merged (gpuiso merge). The split is a pure function of the runs'
 * expected costs and N, so every shard and the merge compute the same one.
 *
 * Each shard leaves OUT/shards/I-of-N: a header saying what work it is part
 * of (below), then, for a sweep, a record per run (sweep_shard.c); a
 * campaign's records are its runs' outcome files.
 */

#define SHARD_MAX 100000   /* N at most */
#define SHARD_SCHEMA "gpuiso-shard/1"
#define SHARD_MAX_FIELDS 24  /* a sweep's: 8 options and up to 8 maps */
#define SHARD_MISSING_SHOWN 8  /* the most missing runs a merge's line names */

struct shard {
	uint32_t index, count; /* count 0: not sharded */
};

/* A "name value" line of a header: what the merge needs to know of the work. */
struct shard_field {
	char name[24];
	char *value; /* malloc'ed */
};

/* The header of OUT/shards/I-of-N. */
struct shard_header {
	char kind[16];      /* "sweep" or "campaign" */
	uint64_t work;      /* what defines the work: shards of different work do not merge */
	struct shard sh;
	struct shard_field fields[SHARD_MAX_FIELDS];
	size_t nfields;
};

/**
 * shard_parse() - read "I/N" (0 <= I < N <= SHARD_MAX), each a whole
 * number as units_parse_u64() reads it: no space, no sign, nothing after.
 * @arg: the text.
 * @sh: out: the shard.
 *
 * Return: 0, -EINVAL, -ENOMEM.
 */
int shard_parse(const char *arg, struct shard *sh);

/**
 * shard_split() - split runs into @count contiguous parts of about equal
 * expected cost: run i goes to the part its cost's midpoint falls in, so
 * every run is in exactly one part, whatever @count.
 * @cost: each run's expected cost, in the runs' order (all 0: equal costs).
 * @n: how many runs.
 * @count: how many parts (>= 1).
 * @owner: out: each run's part, from 0.
 */
void shard_split(const uint64_t *cost, size_t n, uint32_t count, uint32_t *owner);

/**
 * shard_path() - OUT/shards/I-of-N.
 * @out: the output folder.
 * @sh: the shard.
 * @buf: out: the path.
 * @len: size of @buf.
 *
 * Return: 0 or -ENAMETOOLONG.
 */
int shard_path(const char *out, const struct shard *sh, char *buf, size_t len);

/**
 * shard_field_add() - add a field to a header (its value copied).
 * @h: the header.
 * @name: the field's name (one word).
 * @value: its value, or NULL for none (the field is left out).
 *
 * Return: 0, -EINVAL (a line break in @value, or too many fields), -ENOMEM.
 */
int shard_field_add(struct shard_header *h, const char *name, const char *value);

/**
 * shard_field() - the value of a header's field.
 * @h: the header.
 * @name: the field's name.
 *
 * Return: its value, or NULL when the header has none.
 */
const char *shard_field(const struct shard_header *h, const char *name);

/**
 * shard_header_write() - write a header: the schema, kind, work and shard
 * lines, the fields, then a line "." that ends it.
 * @f: where.
 * @h: the header.
 */
void shard_header_write(FILE *f, const struct shard_header *h);

/**
 * shard_header_read() - read a header shard_header_write() wrote, up to and
 * including its "." line. Its lines must be as that writes them: no other
 * spacing, sign, leading zero or case in their numbers, and a shard of a
 * split of at most SHARD_MAX parts.
 * @f: the file, at its start.
 * @h: out: the header (shard_header_free() it when this returns 0).
 *
 * Return: 0, -EINVAL (not a shard file, or cut short), -ENOMEM.
 */
int shard_header_read(FILE *f, struct shard_header *h);

/**
 * shard_header_free() - free a header's field values.
 * @h: the header.
 */
void shard_header_free(struct shard_header *h);

/**
 * shard_summary_remove() - remove OUT/summary.json and OUT/summary.txt: a
 * summary written before the shards' runs changed is not theirs (the
 * merge writes the next one).
 * @out: the output folder.
 *
 * Return: 0, or the negative errno of a removal that failed (missing ones are fine).
 */
int shard_summary_remove(const char *out);

/**
 * shard_line() - read one line of a shard's file, without its line break.
 * @f: the file.
 * @line: in and out: the line's buffer (getline()'s; free() it after).
 * @cap: in and out: its size.
 *
 * Return: 1, 0 at the end of the file, -EINVAL for a line cut short or
 * holding a NUL byte (which gpuiso never writes).
 */
int shard_line(FILE *f, char **line, size_t *cap);

/**
 * shard_line_as_written() - whether a line of a shard's file is exactly
 * what its writer prints with @fmt of the values sscanf() read from it:
 * sscanf() takes other spacing, a sign, leading zeros and numbers that
 * overflow, none of which a shard's file holds.
 * @line: the line, without its line break.
 * @fmt: the writer's printf format.
 * @...: the values read.
 *
 * Return: true when it is (a line of 127 characters at most).
 */
bool shard_line_as_written(const char *line, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/**
 * shard_missing_begin() - start the list of every missing run, OUT/shards/missing.
 * @out: the output folder.
 *
 * Return: the file to write the list to, or NULL when it cannot be made
 * (the merge's lines then say what they can without it).
 */
FILE *shard_missing_begin(const char *out);

/**
 * shard_missing_say() - add a merge's line on a shard's missing runs to @err:
 * "merge: shard I/N: M of its K runs missing[NOTE]: WHICH".
 * @err: the lines so far (a string).
 * @errlen: size of @err.
 * @sh: the shard.
 * @missing: how many of its runs are missing ...
 * @of: ... of how many.
 * @note: said after "missing" (" (...)"), or "".
 * @which: the first few missing runs (SHARD_MISSING_SHOWN at most).
 */
void shard_missing_say(char *err, size_t errlen, const struct shard *sh, uint64_t missing,
		       uint64_t of, const char *note, const char *which);

/**
 * shard_missing_end() - close the list shard_missing_begin() started, say
 * where it is after @err's lines, and remove a summary of before
 * (shard_summary_remove()): nothing was merged.
 * @all: the list, or NULL.
 * @out: the output folder.
 * @err: the lines so far (a string).
 * @errlen: size of @err.
 *
 * Return: -ENODATA.
 */
int shard_missing_end(FILE *all, const char *out, char *err, size_t errlen);

/**
 * shard_find() - the shard files of an output folder (named I-of-N, as
 * shard_path() names them): the header of the first one (by index) whose
 * header reads, once every header that reads was found to be of the same
 * work (kind and digest) and of the shard its file is named for. A file
 * whose header does not read is a shard whose runs are missing.
 * @out: the output folder.
 * @h: out: that shard's header (shard_header_free() it when this returns 0).
 * @err: out: why there is none: for files of other work, each work (its
 *       header's fields) and its files, and which has the most.
 * @errlen: size of @err.
 *
 * Return: 0, -ENOENT (no shard file), -EINVAL (shard files of different
 * N, of more than one work, a file holding another shard's header, or
 * none that reads), other negative errno.
 */
int shard_find(const char *out, struct shard_header *h, char *err, size_t errlen);

#endif
