/* SPDX-License-Identifier: MIT */
/* The HLK import scan (lint/lint.h): the rule, and its findings on real driver images. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/failure.h"
#include "images.h"
#include "lint/lint.h"
#include "tests/common/jsonq.h"

Test(lint, the_rules_are_the_seeds_seven)
{
	cr_assert_eq(lint_nrules, 7);
	for (size_t i = 0; i < 7; i++) {
		cr_expect_str_eq(lint_rules[i].name, image_forbidden[i]);
		cr_expect(strstr(lint_rules[i].reason, "Dxgk"), "%s: names what to use instead",
			  lint_rules[i].name);
	}
}

/* Whether @dll!@name (or by ordinal when @name is NULL) is a finding, and of which kind. */
static bool check(const char *dll, const char *name, enum lint_kind *kind, const char **rule)
{
	struct pe_import imp = { .dll = dll, .name = name, .by_ordinal = !name, .ordinal = 7 };
	const struct lint_rule *r;
	bool found = lint_check(&imp, kind, &r);

	*rule = r ? r->name : NULL;
	return found;
}

Test(lint, only_the_kernels_imports_are_checked)
{
	enum lint_kind kind;
	const char *rule;

	cr_assert(check("ntoskrnl.exe", "MmProbeAndLockPages", &kind, &rule));
	cr_assert_eq(kind, LINT_FORBIDDEN);
	cr_assert_str_eq(rule, "MmProbeAndLockPages");
	/* the module's name in any case, as the loader compares it */
	cr_assert(check("NTOSKRNL.EXE", "MmAllocatePagesForMdlEx", &kind, &rule));
	cr_assert_str_eq(rule, "MmAllocatePagesForMdlEx");
	cr_assert(check("NtosKrnl.Exe", "MmFreeContiguousMemory", &kind, &rule));
	/* the function's name exactly, as the loader binds it */
	cr_assert_not(check("ntoskrnl.exe", "mmprobeandlockpages", &kind, &rule));
	cr_assert_not(check("ntoskrnl.exe", "MmProbeAndLockPagesX", &kind, &rule));
	cr_assert_not(check("ntoskrnl.exe", "MmAllocateContiguousNodeMemory", &kind, &rule));
	cr_assert_not(check("ntoskrnl.exe", "MmMapLockedPagesSpecifyCache", &kind, &rule));
	cr_assert_null(rule);
	/* another module, even with one of the seven names */
	cr_assert_not(check("HAL.dll", "MmProbeAndLockPages", &kind, &rule));
	cr_assert_not(check("ntoskrnl.exe.dll", "MmProbeAndLockPages", &kind, &rule));
}

Test(lint, an_import_from_the_kernel_by_ordinal_is_a_finding)
{
	enum lint_kind kind;
	const char *rule;

	cr_assert(check("ntoskrnl.exe", NULL, &kind, &rule));
	cr_assert_eq(kind, LINT_BY_ORDINAL);
	cr_assert_null(rule);
	cr_assert_not(check("HAL.dll", NULL, &kind, &rule), "another module's ordinals are not checked");
}

/* Scans image @name; asserts that it could. */
static void scan(const char *name, struct lint_report *rep)
{
	char path[4096], err[1024] = "";
	int rc;

	image_path(path, sizeof(path), name);
	rc = lint_driver(path, rep, err, sizeof(err));
	cr_assert_eq(rc, 0, "%s: %s", name, err);
}

Test(lint, the_clean_driver_has_no_finding)
{
	struct lint_report rep;

	scan("clean.sys", &rep);
	cr_assert_eq(rep.imports.n, 10);
	cr_assert_eq(rep.nfindings, 0);
	lint_report_free(&rep);
	scan("empty.sys", &rep);
	cr_assert_eq(rep.nfindings, 0);
	lint_report_free(&rep);
}

Test(lint, each_forbidden_function_is_one_finding)
{
	for (size_t f = 0; f < 7; f++) {
		struct lint_report rep;
		char name[64];

		snprintf(name, sizeof(name), "%s.sys", image_forbidden[f]);
		scan(name, &rep);
		cr_assert_eq(rep.nfindings, 1, "%s", name);
		cr_expect_eq(rep.findings[0].kind, LINT_FORBIDDEN);
		cr_expect_eq(rep.findings[0].rule, &lint_rules[f]);
		cr_expect_str_eq(rep.imports.v[rep.findings[0].import].name, image_forbidden[f]);
		lint_report_free(&rep);
	}
}

Test(lint, an_ordinal_and_a_delay_load_import_are_findings)
{
	struct lint_report rep;
	const struct pe_import *imp;

	scan("ordinal.sys", &rep);
	cr_assert_eq(rep.nfindings, 1);
	cr_assert_eq(rep.findings[0].kind, LINT_BY_ORDINAL);
	imp = &rep.imports.v[rep.findings[0].import];
	cr_assert(imp->by_ordinal);
	cr_assert_eq(imp->ordinal, 1027);
	lint_report_free(&rep);

	scan("delay.sys", &rep);
	cr_assert_eq(rep.nfindings, 1);
	cr_assert_eq(rep.findings[0].kind, LINT_FORBIDDEN);
	imp = &rep.imports.v[rep.findings[0].import];
	cr_assert_str_eq(imp->name, "MmFreePagesFromMdl");
	cr_assert(imp->delayed);
	lint_report_free(&rep);
}

/* The text report of image @name into @out (@len bytes). */
static void text_of(const char *name, char *out, size_t len, bool json)
{
	struct lint_report rep;
	FILE *f = fmemopen(out, len, "w");

	cr_assert(f);
	scan(name, &rep);
	if (json)
		cr_assert_eq(lint_print_json(&rep, f), 0);
	else
		lint_print_text(&rep, f);
	cr_assert_lt((size_t)ftell(f), len - 1);
	fclose(f);
	lint_report_free(&rep);
}

Test(lint, the_text_lists_the_kernel_imports_then_a_verdict)
{
	char out[8192], path[4096], line[4300];

	text_of("clean.sys", out, sizeof(out), false);
	image_path(path, sizeof(path), "clean.sys");
	snprintf(line, sizeof(line), "%s: 8 imports from ntoskrnl.exe (2 from other modules)\n", path);
	cr_assert(!strncmp(out, line, strlen(line)), "%s", out);
	cr_assert(strstr(out, "\n  IoCreateDevice\n"), "%s", out);
	cr_assert(strstr(out, "\n  MmMapLockedPagesSpecifyCache\n"), "%s", out);
	cr_assert_null(strstr(out, "KeStallExecutionProcessor"), "HAL's imports are not listed");
	snprintf(line, sizeof(line), "\n%s: clean: imports none of the 7 Mm functions", path);
	cr_assert(strstr(out, line), "%s", out);
	cr_assert_eq(out[strlen(out) - 1], '\n');

	text_of("MmAllocatePagesForMdl.sys", out, sizeof(out), false);
	cr_assert(strstr(out, "\n  MmAllocatePagesForMdl  "), "%s", out);
	cr_assert(strstr(out, "FORBIDDEN: MDL pages the IOMMU does not map: allocate them with DxgkCbAllocatePagesForMdl\n"),
		  "%s", out);
	cr_assert(strstr(out, ".sys: 1 finding: 1 forbidden import\n"), "%s", out);

	text_of("ordinal.sys", out, sizeof(out), false);
	cr_assert(strstr(out, "\n  ordinal 1027 "), "%s", out);
	cr_assert(strstr(out, "imported by ordinal 1027: cannot be checked by name; the scan cannot prove it is not one of the seven\n"),
		  "%s", out);
	cr_assert(strstr(out, ".sys: 1 finding: 1 import by ordinal\n"), "%s", out);

	text_of("delay.sys", out, sizeof(out), false);
	cr_assert(strstr(out, "\n  MmFreePagesFromMdl (delay-load) "), "%s", out);
}

Test(lint, the_json_lists_every_import_and_the_findings)
{
	char out[16384], v[256];

	text_of("ordinal.sys", out, sizeof(out), true);
	cr_assert(jsonq_valid(out), "%s", out);
	cr_assert(jsonq_get(out, "verdict", v, sizeof(v)));
	cr_assert_str_eq(v, "findings");
	cr_assert(jsonq_get(out, "imports.10.dll", v, sizeof(v)), "11 imports: %s", out);
	cr_assert_not(jsonq_get(out, "imports.11", v, sizeof(v)));
	cr_assert(jsonq_get(out, "findings.0.kind", v, sizeof(v)));
	cr_assert_str_eq(v, "by_ordinal");
	cr_assert(jsonq_get(out, "findings.0.ordinal", v, sizeof(v)));
	cr_assert_str_eq(v, "1027");
	cr_assert_not(jsonq_get(out, "findings.1", v, sizeof(v)));
	/* the import by ordinal: neither forbidden nor allowed */
	for (int i = 0; i < 11; i++) {
		char key[64], dll[64];

		snprintf(key, sizeof(key), "imports.%d.ordinal", i);
		if (!jsonq_get(out, key, v, sizeof(v)))
			continue;
		snprintf(key, sizeof(key), "imports.%d.dll", i);
		cr_assert(jsonq_get(out, key, dll, sizeof(dll)));
		cr_assert_str_eq(dll, "ntoskrnl.exe");
		snprintf(key, sizeof(key), "imports.%d.forbidden", i);
		cr_assert(jsonq_get(out, key, v, sizeof(v)));
		cr_assert_str_eq(v, "null");
	}

	text_of("MmProbeAndLockPages.sys", out, sizeof(out), true);
	cr_assert(jsonq_valid(out), "%s", out);
	cr_assert(jsonq_get(out, "findings.0.name", v, sizeof(v)));
	cr_assert_str_eq(v, "MmProbeAndLockPages");
	cr_assert(jsonq_get(out, "findings.0.kind", v, sizeof(v)));
	cr_assert_str_eq(v, "forbidden");

	text_of("clean.sys", out, sizeof(out), true);
	cr_assert(jsonq_get(out, "verdict", v, sizeof(v)));
	cr_assert_str_eq(v, "clean");
	cr_assert_not(jsonq_get(out, "findings.0", v, sizeof(v)));
	cr_assert(jsonq_get(out, "imports.0.forbidden", v, sizeof(v)));
	cr_assert_str_eq(v, "false");
}

Test(lint, a_pe32_driver_is_bad_input)
{
	struct lint_report rep;
	char path[4096], err[1024];
	int rc;

	image_path(path, sizeof(path), "pe32.sys");
	rc = lint_driver(path, &rep, err, sizeof(err));
	cr_assert_eq(rc, -EINVAL);
	cr_assert_eq(failure_of(rc), FAILURE_INPUT);
	cr_assert(strstr(err, "a PE32 (32-bit) image"), "%s", err);
	lint_report_free(&rep);
}
