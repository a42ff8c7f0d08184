/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_BENCH_RUNFILE_INTERNAL_H
#define GPUISO_BENCH_RUNFILE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "common/yaml.h"
#include "runfile.h"

/*
 * What the files that read a run file share (runfile.c the record, its
 * tags, metrics and failures; runfile_finding.c the findings;
 * runfile_identity.c the benchmark, inputs and code): the reader, and the
 * lookups of its fields.
 */

/* A run file being read into a record. */
struct runfile_reader {
	struct yaml_doc *doc;
	struct run_record *rec;
	size_t cap;
	bool oom;
};

/**
 * runfile_dup() - a copy of @s, noting in @rd when memory ran out.
 * @rd: the reader.
 * @s: the text, or NULL.
 *
 * Return: the copy (free() it), or NULL for NULL or when out of memory.
 */
char *runfile_dup(struct runfile_reader *rd, const char *s);

/**
 * runfile_lookup() - the value of @key in mapping @map.
 * @map: a node, or NULL.
 * @key: the key.
 *
 * Return: the value, or NULL when @map is not a mapping or has no @key.
 */
struct fy_node *runfile_lookup(struct fy_node *map, const char *key);

/**
 * runfile_scalar() - the text of scalar @n: a string's bytes as they were
 * before they were written (common/json.h: a path that is not UTF-8 reads
 * back as the same bytes).
 * @rd: the reader.
 * @n: the node, or NULL.
 *
 * Return: the text, or NULL when @n is not a scalar.
 */
const char *runfile_scalar(struct runfile_reader *rd, struct fy_node *n);

/**
 * runfile_str_at() - a string field of @map.
 * @rd: the reader.
 * @map: the mapping.
 * @key: the field.
 *
 * Return: its text, or NULL (absent, null or not a string).
 */
const char *runfile_str_at(struct runfile_reader *rd, struct fy_node *map, const char *key);

/**
 * runfile_findings_of() - the "findings" of a campaign or sweep summary into
 * the record, checked: wrong types and values are errors with where; a
 * summary without them was written before findings (nothing is known of
 * them then).
 * @rd: the reader.
 * @root: the summary's top object.
 * @sweep: a sweep's (hits, outcomes of sweeps), not a campaign's.
 */
void runfile_findings_of(struct runfile_reader *rd, struct fy_node *root, bool sweep);

/**
 * runfile_identify() - the benchmark a run belongs to, into the record: its
 * kind and the names it was run with, then the host ("results
 * trace=traces/desktop backend=sim host=ci1").
 * @rd: the reader.
 * @root: the file's top object.
 * @kind: the file's kind.
 */
void runfile_identify(struct runfile_reader *rd, struct fy_node *root, enum run_kind kind);

/**
 * runfile_input_digests() - the digests of the input files into the record,
 * "PATH=DIGEST" a line, from an "inputs" object ({PATH: DIGEST}); none when
 * the file records none.
 * @rd: the reader.
 * @inputs: the object, or NULL.
 */
void runfile_input_digests(struct runfile_reader *rd, struct fy_node *inputs);

/**
 * runfile_code_of() - the code that ran into the record, "TREE BUILD", from
 * @map's "code" and "build"; none when unknown (two builds outside git need
 * not be the same code).
 * @rd: the reader.
 * @map: the object that holds them.
 */
void runfile_code_of(struct runfile_reader *rd, struct fy_node *map);

#endif
