/* SPDX-License-Identifier: MIT */
/*
 * `gpuiso lint-driver` as a user runs it, on the mingw-w64 driver images
 * the build makes (tests/lint/meson.build): exit codes, the text and JSON
 * reports, and bad input said with where.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "run_gpuiso.h"
#include "tests/common/jsonq.h"
#include "tests/lint/images.h"

/* How many lines of @s start with @prefix. */
static int lines_starting(const char *s, const char *prefix)
{
	int n = 0;

	for (const char *l = s; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		n += !strncmp(l, prefix, strlen(prefix));
	return n;
}

Test(lint_driver, a_clean_driver_exits_0_with_its_kernel_imports)
{
	char path[4096], want[4200];
	struct run r;

	image_path(path, sizeof(path), "clean.sys");
	RUN(&r, "lint-driver", path);
	cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
	cr_assert_eq(r.err[0], '\0', "%s", r.err);
	snprintf(want, sizeof(want), "%s: 8 imports from ntoskrnl.exe (2 from other modules)\n", path);
	cr_assert(!strncmp(r.out, want, strlen(want)), "%s", r.out);
	cr_assert_eq(lines_starting(r.out, "  "), 8, "one line per kernel import: %s", r.out);
	cr_assert(strstr(r.out, "\n  RtlInitUnicodeString\n"), "%s", r.out);
	cr_assert_null(strstr(r.out, "FORBIDDEN"), "%s", r.out);
	snprintf(want, sizeof(want),
		 "\n%s: clean: imports none of the 7 Mm functions the HLK import scan forbids\n", path);
	cr_assert(strstr(r.out, want), "%s", r.out);
}

Test(lint_driver, each_forbidden_import_exits_1_and_is_marked)
{
	for (size_t f = 0; f < 7; f++) {
		char name[64], path[4096], line[128];
		struct run r;

		snprintf(name, sizeof(name), "%s.sys", image_forbidden[f]);
		image_path(path, sizeof(path), name);
		RUN(&r, "lint-driver", path);
		cr_assert_eq(r.status, 1, "%s: %s%s", name, r.out, r.err);
		snprintf(line, sizeof(line), "\n  %-40s FORBIDDEN: ", image_forbidden[f]);
		cr_assert(strstr(r.out, line), "%s", r.out);
		cr_assert_eq(lines_starting(r.out, "  "), 9, "%s", r.out);
		cr_assert_null(strstr(strstr(r.out, "FORBIDDEN") + 1, "FORBIDDEN"), "one: %s", r.out);
		cr_assert(strstr(r.out, ".sys: 1 finding: 1 forbidden import\n"), "%s", r.out);
	}
}

Test(lint_driver, an_import_by_ordinal_cannot_be_checked_and_exits_1)
{
	char path[4096];
	struct run r;

	image_path(path, sizeof(path), "ordinal.sys");
	RUN(&r, "lint-driver", path);
	cr_assert_eq(r.status, 1, "%s%s", r.out, r.err);
	cr_assert(strstr(r.out, "\n  ordinal 1027 "), "%s", r.out);
	cr_assert(strstr(r.out, "UNCHECKABLE: imported by ordinal 1027: cannot be checked by name; "
			 "the scan cannot prove it is not one of the seven\n"), "%s", r.out);
	cr_assert_null(strstr(r.out, "MmProbeAndLockPages"), "the image does not name it: %s", r.out);
}

Test(lint_driver, a_delay_load_import_is_scanned)
{
	char path[4096];
	struct run r;

	image_path(path, sizeof(path), "delay.sys");
	RUN(&r, "lint-driver", path);
	cr_assert_eq(r.status, 1, "%s%s", r.out, r.err);
	cr_assert(strstr(r.out, "\n  MmFreePagesFromMdl (delay-load) "), "%s", r.out);
	cr_assert(strstr(r.out, "FORBIDDEN: MDL pages come from and go back to Dxgkrnl"), "%s", r.out);
}

Test(lint_driver, json_has_the_file_every_import_and_the_findings)
{
	char path[4096], v[4096];
	struct run r;

	image_path(path, sizeof(path), "MmProbeAndLockPages.sys");
	RUN(&r, "lint-driver", path, "--json");
	cr_assert_eq(r.status, 1, "%s", r.err);
	cr_assert_eq(r.err[0], '\0', "%s", r.err);
	cr_assert(jsonq_valid(r.out), "%s", r.out);
	cr_assert(jsonq_get(r.out, "file", v, sizeof(v)));
	cr_assert_str_eq(v, path);
	cr_assert(jsonq_get(r.out, "imports.10.name", v, sizeof(v)), "%s", r.out);
	cr_assert_not(jsonq_get(r.out, "imports.11", v, sizeof(v)), "%s", r.out);
	cr_assert(jsonq_get(r.out, "findings.0.name", v, sizeof(v)));
	cr_assert_str_eq(v, "MmProbeAndLockPages");
	cr_assert(jsonq_get(r.out, "findings.0.dll", v, sizeof(v)));
	cr_assert_str_eq(v, "ntoskrnl.exe");
	cr_assert(jsonq_get(r.out, "verdict", v, sizeof(v)));
	cr_assert_str_eq(v, "findings");

	image_path(path, sizeof(path), "clean.sys");
	RUN(&r, "lint-driver", "--json", path);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_assert(jsonq_valid(r.out), "%s", r.out);
	cr_assert(jsonq_get(r.out, "verdict", v, sizeof(v)));
	cr_assert_str_eq(v, "clean");
}

/* @path must be refused as bad input (2), on stderr alone, the message having @want. */
static void assert_bad_input(const char *path, const char *want)
{
	char line[4200];
	struct run r;

	RUN(&r, "lint-driver", path);
	cr_assert_eq(r.status, 2, "%s: %s%s", path, r.out, r.err);
	cr_assert_eq(r.out[0], '\0', "nothing on stdout: %s", r.out);
	snprintf(line, sizeof(line), "gpuiso: lint-driver: %s: ", path);
	cr_assert(!strncmp(r.err, line, strlen(line)), "%s", r.err);
	cr_assert(strstr(r.err, want), "'%s' not in: %s", want, r.err);
	cr_assert_eq(strchr(r.err, '\n'), r.err + strlen(r.err) - 1, "one line: %s", r.err);
}

Test(lint_driver, a_pe32_image_is_bad_input)
{
	char path[4096];

	image_path(path, sizeof(path), "pe32.sys");
	assert_bad_input(path, "a PE32 (32-bit) image (optional header magic 0x10b at 0x");
	assert_bad_input(path, "a 64-bit driver (PE32+, 0x20b) is expected");
}

Test(lint_driver, what_is_not_a_pe_image_is_bad_input)
{
	assert_bad_input(getenv("GPUISO_BIN"), "not a PE image: no MZ signature at 0x0");
	assert_bad_input("README.md", "not a PE image: no MZ signature at 0x0");
	assert_bad_input("no/such/driver.sys", "cannot open: No such file or directory");
	assert_bad_input("lint", "cannot open: Is a directory");
}

Test(lint_driver, a_truncated_image_is_bad_input_said_where)
{
	char path[64], want[4][256];
	uint8_t *buf;
	size_t len, cut[4], lfanew, table, idata;
	unsigned int nsect;

	image_load("clean.sys", &buf, &len);
	lfanew = image_lfanew(buf);
	table = image_section_table(buf, &nsect);
	idata = image_section(buf, ".idata");
	/* in the headers, the section table, the import directory */
	cut[0] = 0x30;
	snprintf(want[0], sizeof(want[0]),
		 "the DOS header at 0x0: truncated: it needs 0x40 bytes, the file ends at 0x30");
	cut[1] = lfanew + 10;
	snprintf(want[1], sizeof(want[1]), "the COFF header at 0x%zx: truncated", lfanew + 4);
	cut[2] = table + 40 + 7;
	snprintf(want[2], sizeof(want[2]), "the section table (%u sections) at 0x%zx: truncated",
		 nsect, table);
	cut[3] = image_rva(buf, image_get32(buf, image_dir(buf, 1))) + 20 + 3;
	snprintf(want[3], sizeof(want[3]), "\".idata\" at 0x%zx: raw data 0x%x..0x%x past the end of the file (0x%zx bytes): truncated",
		 idata, image_get32(buf, idata + 20),
		 image_get32(buf, idata + 20) + image_get32(buf, idata + 16), cut[3]);
	for (size_t i = 0; i < 4; i++) {
		image_write(path, buf, cut[i]);
		assert_bad_input(path, want[i]);
		unlink(path);
	}
	free(buf);
}

Test(lint_driver, a_file_the_machine_cannot_read_is_an_environment_problem)
{
	struct run r;

	/* reading a process's memory at address 0 fails with EIO */
	RUN(&r, "lint-driver", "/proc/self/mem");
	cr_assert_eq(r.status, 3, "%s%s", r.out, r.err);
	cr_assert_str_eq(r.err, "gpuiso: lint-driver: /proc/self/mem: cannot read: Input/output error\n");
}

Test(lint_driver, the_command_line_is_checked)
{
	char path[4096];
	struct run r;

	RUN(&r, "lint-driver");
	cr_assert_eq(r.status, 2);
	cr_assert(strstr(r.err, "missing the driver image"), "%s", r.err);
	cr_assert(strstr(r.err, "usage: gpuiso lint-driver FILE.sys"), "%s", r.err);
	image_path(path, sizeof(path), "clean.sys");
	RUN(&r, "lint-driver", path, path);
	cr_assert_eq(r.status, 2);
	cr_assert(strstr(r.err, "one driver image, please"), "%s", r.err);
	RUN(&r, "lint-driver", "--no-such-option", path);
	cr_assert_eq(r.status, 2);
	RUN(&r, "lint-driver", "--help");
	cr_assert_eq(r.status, 0);
	cr_assert(strstr(r.out, "usage: gpuiso lint-driver FILE.sys [--json] [-v]"), "%s", r.out);
	cr_assert(strstr(r.out, "exit: 0 clean, 1 findings, 2 bad input (no such file, not a PE32+ image"), "%s", r.out);
	RUN(&r, "--help");
	cr_assert(strstr(r.out, "  lint-driver "), "%s", r.out);
}
