/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_LINT_LINT_H
#define GPUISO_LINT_LINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "lint/pe.h"

/*
 * The HLK import scan (`gpuiso lint-driver`, docs/lint-driver.md): a driver
 * that opts in to IOMMU-based GPU isolation must not import from
 * ntoskrnl.exe any of seven Mm functions, whose work Dxgkrnl's callbacks do
 * instead. An import from ntoskrnl.exe by ordinal is a finding too: it has
 * no name to check, so the scan cannot prove it is not one of the seven.
 */

/* The module whose imports the scan checks (compared case-insensitively). */
#define LINT_KERNEL "ntoskrnl.exe"

/* One forbidden function, and why (the seed's "Testing" section). */
struct lint_rule {
	const char *name;
	const char *reason;
};

/* The seven rules, in the seed's order. */
extern const struct lint_rule lint_rules[];
extern const size_t lint_nrules;

enum lint_kind {
	LINT_FORBIDDEN,  /* one of the seven, by name */
	LINT_BY_ORDINAL, /* from ntoskrnl.exe by ordinal: cannot be checked */
};

struct lint_finding {
	enum lint_kind kind;
	size_t import;                /* its index in the report's imports */
	const struct lint_rule *rule; /* LINT_FORBIDDEN: which */
};

/* One scanned image. */
struct lint_report {
	const char *path;
	struct pe_imports imports;
	struct lint_finding *findings; /* in the order of the imports */
	size_t nfindings;
};

/**
 * lint_check() - whether one import breaks the scan's rule.
 * @imp: the import.
 * @kind: out: which kind of finding it is, when it is one.
 * @rule: out: for LINT_FORBIDDEN, the function's rule; NULL otherwise.
 *
 * Return: true when @imp is a finding: from ntoskrnl.exe (any case) either
 * one of lint_rules by name (exact case, as the loader binds names) or any
 * import by ordinal.
 */
bool lint_check(const struct pe_import *imp, enum lint_kind *kind, const struct lint_rule **rule);

/**
 * lint_driver() - read a driver image and scan its imports, delay-load ones included.
 * @path: the image (.sys, PE32+).
 * @rep: out: the imports and findings; lint_report_free() it. After an error, empty.
 * @err: out: on error, one line saying where and what (no newline).
 * @errlen: size of @err.
 *
 * Return: 0 (the report may hold findings); as pe_imports_read():
 * -EINVAL for what is not a PE32+ image or a malformed or truncated one, the
 * negative errno of opening or reading the file, -ENOMEM (whose fault each is:
 * failure_of()).
 */
int lint_driver(const char *path, struct lint_report *rep, char *err, size_t errlen);

/**
 * lint_print_text() - the report for a reader: one line per import from
 * ntoskrnl.exe (findings marked, with the reason), then a verdict line.
 * @rep: the report.
 * @f: where to.
 */
void lint_print_text(const struct lint_report *rep, FILE *f);

/**
 * lint_print_json() - the report as one JSON object (docs/lint-driver.md):
 * file, every import with whether it is forbidden, the findings, the verdict.
 * @rep: the report.
 * @f: where to.
 *
 * Return: 0, or the negative errno of a write error.
 */
int lint_print_json(const struct lint_report *rep, FILE *f);

/** lint_report_free() - free what lint_driver() made. @rep: zeroed. */
void lint_report_free(struct lint_report *rep);

#endif
