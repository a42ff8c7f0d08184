/* SPDX-License-Identifier: MIT */
/*
 * Driver images: lint_driver(), as `gpuiso lint-driver` calls it on a
 * user's file, then both reports. What it returns must hold together: a
 * failure says why in one line; a success has a module for every import,
 * a name for every import not by ordinal, and findings that point at
 * imports.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "lint/lint.h"

/* Aborts unless @rep is whole. */
static void fuzz_pe_check(const struct lint_report *rep)
{
	for (size_t i = 0; i < rep->imports.n; i++) {
		const struct pe_import *imp = &rep->imports.v[i];

		if (!imp->dll || !*imp->dll || strlen(imp->dll) > PE_MAX_NAME ||
		    imp->by_ordinal != !imp->name || (imp->name && strlen(imp->name) > PE_MAX_NAME))
			abort();
	}
	for (size_t k = 0; k < rep->nfindings; k++)
		if (rep->findings[k].import >= rep->imports.n ||
		    (k && rep->findings[k].import <= rep->findings[k - 1].import))
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lint_report rep;
	struct fuzz_file f;
	char err[8192];
	FILE *null;

	fuzz_file_write(&f, ".sys", data, size);
	if (lint_driver(f.path, &rep, err, sizeof(err))) {
		if (!err[0] || strchr(err, '\n'))
			abort();
	} else {
		fuzz_pe_check(&rep);
		null = fopen("/dev/null", "w");
		if (!null)
			abort();
		lint_print_text(&rep, null);
		lint_print_json(&rep, null);
		fclose(null);
	}
	lint_report_free(&rep);
	fuzz_file_remove(&f);
	return 0;
}
