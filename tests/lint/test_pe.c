/* SPDX-License-Identifier: MIT */
/*
 * The PE32+ import reader (lint/pe.h) on real mingw-w64 driver images, and
 * on copies of them cut short or patched: every malformed image is an
 * error that says where, never a crash or a silent success.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "images.h"
#include "lint/pe.h"

static const char *const clean_kernel[] = {
	"ExAllocatePoolWithTag", "ExFreePoolWithTag", "IoCreateDevice", "IoDeleteDevice",
	"MmGetSystemRoutineAddress", "MmMapLockedPagesSpecifyCache", "MmUnlockPages",
	"RtlInitUnicodeString",
};
static const char *const clean_hal[] = { "KeQueryPerformanceCounter", "KeStallExecutionProcessor" };

/* How many imports of @imp are @dll!@name (by name, not delay-loaded unless @delayed). */
static size_t count(const struct pe_imports *imp, const char *dll, const char *name, bool delayed)
{
	size_t n = 0;

	for (size_t i = 0; i < imp->n; i++)
		n += !imp->v[i].by_ordinal && !strcmp(imp->v[i].dll, dll) &&
		     !strcmp(imp->v[i].name, name) && imp->v[i].delayed == delayed;
	return n;
}

/* Reads image @name; asserts that it parses. */
static void read_image(const char *name, struct pe_imports *imp)
{
	char path[4096], err[1024] = "";
	int rc;

	image_path(path, sizeof(path), name);
	rc = pe_imports_read(path, imp, err, sizeof(err));
	cr_assert_eq(rc, 0, "%s: %d: %s", name, rc, err);
	cr_assert_eq(err[0], '\0', "%s", err);
}

/* The clean driver's imports, plus @extra from ntoskrnl.exe (by name) when not NULL. */
static void assert_clean_imports(const struct pe_imports *imp, size_t extra)
{
	for (size_t i = 0; i < sizeof(clean_kernel) / sizeof(clean_kernel[0]); i++)
		cr_expect_eq(count(imp, "ntoskrnl.exe", clean_kernel[i], false), 1, "%s", clean_kernel[i]);
	for (size_t i = 0; i < sizeof(clean_hal) / sizeof(clean_hal[0]); i++)
		cr_expect_eq(count(imp, "HAL.dll", clean_hal[i], false), 1, "%s", clean_hal[i]);
	cr_assert_eq(imp->n, 10 + extra);
}

Test(pe, clean_driver_imports_from_ntoskrnl_and_hal)
{
	struct pe_imports imp;

	read_image("clean.sys", &imp);
	assert_clean_imports(&imp, 0);
	for (size_t i = 0; i < imp.n; i++) {
		cr_expect(!imp.v[i].by_ordinal && !imp.v[i].delayed, "%s", imp.v[i].name);
		cr_expect_gt(imp.v[i].ordinal, 0, "%s: the hint the import library gave", imp.v[i].name);
	}
	pe_imports_free(&imp);
	cr_assert_null(imp.v);
}

Test(pe, each_forbidden_image_imports_its_function_by_name)
{
	for (size_t f = 0; f < 7; f++) {
		struct pe_imports imp;
		char name[64];

		snprintf(name, sizeof(name), "%s.sys", image_forbidden[f]);
		read_image(name, &imp);
		cr_expect_eq(count(&imp, "ntoskrnl.exe", image_forbidden[f], false), 1, "%s", name);
		assert_clean_imports(&imp, 1);
		pe_imports_free(&imp);
	}
}

Test(pe, an_import_by_ordinal_has_a_number_and_no_name)
{
	struct pe_imports imp;
	size_t ordinals = 0;

	read_image("ordinal.sys", &imp);
	assert_clean_imports(&imp, 1);
	for (size_t i = 0; i < imp.n; i++) {
		if (!imp.v[i].by_ordinal)
			continue;
		ordinals++;
		cr_expect_str_eq(imp.v[i].dll, "ntoskrnl.exe");
		cr_expect_eq(imp.v[i].ordinal, 1027, "the .def file's @1027");
		cr_expect_null(imp.v[i].name);
	}
	cr_assert_eq(ordinals, 1);
	cr_assert_eq(count(&imp, "ntoskrnl.exe", "MmProbeAndLockPages", false), 0);
	pe_imports_free(&imp);
}

Test(pe, the_delay_load_directory_is_read_too)
{
	struct pe_imports imp;

	read_image("delay.sys", &imp);
	assert_clean_imports(&imp, 1);
	cr_assert_eq(count(&imp, "ntoskrnl.exe", "MmFreePagesFromMdl", true), 1);
	cr_assert_eq(count(&imp, "ntoskrnl.exe", "MmFreePagesFromMdl", false), 0,
		     "only in the delay-load directory");
	pe_imports_free(&imp);
}

Test(pe, an_image_without_imports_has_none)
{
	struct pe_imports imp;

	read_image("empty.sys", &imp);
	cr_assert_eq(imp.n, 0);
	pe_imports_free(&imp);
}

/* Parses @len bytes of @buf; asserts -EINVAL and that the message has each of @want (NULL-ended). */
static void assert_refused(const uint8_t *buf, size_t len, const char *const *want)
{
	struct pe_imports imp;
	char err[1024] = "";
	int rc = pe_imports_parse("x.sys", buf, len, &imp, err, sizeof(err));

	cr_assert_eq(rc, -EINVAL, "%zu bytes: rc %d, %zu imports", len, rc, imp.n);
	cr_assert(!strncmp(err, "x.sys: ", 7), "%s", err);
	cr_assert_null(strchr(err, '\n'), "one line: %s", err);
	for (size_t i = 0; want[i]; i++)
		cr_assert(strstr(err, want[i]), "'%s' not in: %s", want[i], err);
	pe_imports_free(&imp);
}

#define REFUSED(buf, len, ...) assert_refused(buf, len, (const char *const[]){ __VA_ARGS__, NULL })

Test(pe, a_pe32_image_is_refused_as_not_64_bit)
{
	uint8_t *buf;
	size_t len;
	char at[32];

	image_load("pe32.sys", &buf, &len);
	snprintf(at, sizeof(at), "0x10b at 0x%zx", image_opt(buf));
	REFUSED(buf, len, "a PE32 (32-bit) image", at, "a 64-bit driver (PE32+, 0x20b) is expected");
	free(buf);
}

Test(pe, what_is_not_a_pe_image_is_said_so)
{
	uint8_t *buf;
	size_t len;
	char at[64];

	/* an ELF file: this test itself */
	{
		FILE *f = fopen("/proc/self/exe", "rb");
		uint8_t elf[4096];
		size_t n;

		cr_assert(f);
		n = fread(elf, 1, sizeof(elf), f);
		fclose(f);
		cr_assert_eq(n, sizeof(elf));
		REFUSED(elf, n, "not a PE image: no MZ signature at 0x0");
	}
	REFUSED((const uint8_t *)"", 0, "not a PE image: no MZ signature at 0x0");
	REFUSED((const uint8_t *)"hello\n", 6, "not a PE image");
	/* an MZ file without a PE signature (an MS-DOS program) */
	image_load("clean.sys", &buf, &len);
	memcpy(buf + image_lfanew(buf), "NE\0\0", 4);
	snprintf(at, sizeof(at), "no PE signature at 0x%zx (e_lfanew)", image_lfanew(buf));
	REFUSED(buf, len, "not a PE image", at);
	free(buf);
}

Test(pe, a_cut_in_each_structure_is_said_where)
{
	uint8_t *buf;
	size_t len, lfanew, opt, table, idata;
	unsigned int nsect;
	char at[128], sect[128];

	image_load("clean.sys", &buf, &len);
	lfanew = image_lfanew(buf);
	opt = image_opt(buf);
	table = image_section_table(buf, &nsect);
	idata = image_section(buf, ".idata");

	REFUSED(buf, 0x30, "the DOS header at 0x0: truncated", "the file ends at 0x30");
	snprintf(at, sizeof(at), "the PE signature (e_lfanew) at 0x%zx: truncated", lfanew);
	REFUSED(buf, lfanew + 2, at);
	snprintf(at, sizeof(at), "the COFF header at 0x%zx: truncated", lfanew + 4);
	REFUSED(buf, lfanew + 10, at);
	snprintf(at, sizeof(at), "the optional header at 0x%zx: truncated", opt);
	REFUSED(buf, opt + 100, at);
	snprintf(at, sizeof(at), "the section table (%u sections) at 0x%zx: truncated", nsect, table);
	REFUSED(buf, table + 2 * 40 + 5, at, "it needs 0x");
	/* inside the import directory: the section that holds it is cut */
	snprintf(sect, sizeof(sect), "\".idata\" at 0x%zx: raw data 0x%x..", idata,
		 image_get32(buf, idata + 20));
	REFUSED(buf, image_rva(buf, image_get32(buf, image_dir(buf, 1))) + 10, sect,
		"past the end of the file", "truncated");
	free(buf);
}

Test(pe, every_cut_of_every_image_is_an_error)
{
	static const char *const names[] = { "clean.sys", "ordinal.sys", "delay.sys", "empty.sys",
					     "MmProbeAndLockPages.sys" };

	for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++) {
		uint8_t *buf;
		size_t len, end = 0;
		unsigned int nsect;
		size_t t;

		image_load(names[k], &buf, &len);
		/* where the last section's data ends; past it (COFF symbols) is not the image's */
		t = image_section_table(buf, &nsect);
		for (unsigned int i = 0; i < nsect; i++, t += 40) {
			size_t e = image_get32(buf, t + 20) + image_get32(buf, t + 16);

			end = e > end ? e : end;
		}
		cr_assert_leq(end, len);
		for (size_t cut = 0; cut < end; cut++) {
			struct pe_imports imp;
			char err[1024] = "";
			/* a copy of its own, so that ASan sees a read past the cut */
			uint8_t *part = malloc(cut ? cut : 1);

			memcpy(part, buf, cut);
			cr_assert_eq(pe_imports_parse("x.sys", part, cut, &imp, err, sizeof(err)), -EINVAL,
				     "%s cut at 0x%zx", names[k], cut);
			cr_assert(strstr(err, cut >= 2 ? "truncated" : "no MZ signature"),
				  "%s cut at 0x%zx: %s", names[k], cut, err);
			pe_imports_free(&imp);
			free(part);
		}
		free(buf);
	}
}

/* The file offset of the first import descriptor of an image. */
static size_t first_descriptor(const uint8_t *buf)
{
	return image_rva(buf, image_get32(buf, image_dir(buf, 1)));
}

Test(pe, a_name_outside_every_section_is_located)
{
	uint8_t *buf;
	size_t len, desc;
	char at[128];

	image_load("clean.sys", &buf, &len);
	desc = first_descriptor(buf);
	image_put32(buf, desc + 20 + 12, 0x90000); /* descriptor 1's name */
	snprintf(at, sizeof(at), "x.sys: import descriptor 1 at 0x%zx: name RVA 0x90000 outside every section",
		 desc + 20);
	REFUSED(buf, len, at);
	free(buf);
}

Test(pe, a_name_that_is_not_text_is_located)
{
	uint8_t *buf;
	size_t len, name;
	char at[128];

	image_load("clean.sys", &buf, &len);
	name = image_rva(buf, image_get32(buf, first_descriptor(buf) + 12));
	buf[name + 1] = 0x1b;
	snprintf(at, sizeof(at), "byte 0x1b at 0x%zx is not printable ASCII", name + 1);
	REFUSED(buf, len, "import descriptor 0 at 0x", at);
	free(buf);
}

Test(pe, a_thunk_that_is_neither_ordinal_nor_rva_is_located)
{
	uint8_t *buf;
	size_t len, desc, thunk;
	char at[128];

	image_load("clean.sys", &buf, &len);
	desc = first_descriptor(buf);
	thunk = image_rva(buf, image_get32(buf, desc)) + 8; /* the lookup table's second thunk */
	image_put32(buf, thunk + 4, 0x100);
	snprintf(at, sizeof(at), "thunk 1 at 0x%zx: 0x00000100", thunk);
	REFUSED(buf, len, "import descriptor 0 (", at, "neither an ordinal (bit 63) nor a hint/name RVA");
	free(buf);
}

Test(pe, a_lookup_table_without_end_stops_at_its_section)
{
	uint8_t *buf;
	size_t len, desc, text, end;
	uint32_t va, vsize;
	char at[128];

	image_load("clean.sys", &buf, &len);
	desc = first_descriptor(buf);
	text = image_section(buf, ".text");
	va = image_get32(buf, text + 12);
	vsize = image_get32(buf, text + 8);
	cr_assert_leq(vsize, image_get32(buf, text + 16), "the file holds all of .text");
	/* descriptor 0's lookup table moved to the last 8 bytes of .text, its first thunk there */
	end = image_get32(buf, text + 20) + vsize;
	memcpy(buf + end - 8, buf + image_rva(buf, image_get32(buf, desc)), 8);
	image_put32(buf, desc, va + vsize - 8);
	snprintf(at, sizeof(at), "thunk 1: at RVA 0x%x outside every section", va + vsize);
	REFUSED(buf, len, "x.sys: import descriptor 0 (", at);
	free(buf);
}

Test(pe, headers_that_contradict_themselves_are_located)
{
	uint8_t *buf;
	size_t len, opt;
	char at[128];

	image_load("clean.sys", &buf, &len);
	opt = image_opt(buf);
	image_put32(buf, opt + 108, 1000); /* NumberOfRvaAndSizes */
	snprintf(at, sizeof(at), "the optional header at 0x%zx: 1000 data directories do not fit", opt);
	REFUSED(buf, len, at);
	image_put32(buf, opt + 108, 16);
	buf[opt] = 0x07, buf[opt + 1] = 0x01; /* a ROM image */
	REFUSED(buf, len, "magic 0x107 is neither PE32+ (0x20b) nor PE32 (0x10b)");
	buf[opt] = 0x0b, buf[opt + 1] = 0x02;
	buf[image_lfanew(buf) + 6] = 0xd0, buf[image_lfanew(buf) + 7] = 0x07; /* 2000 sections */
	snprintf(at, sizeof(at), "the COFF header at 0x%zx: 2000 sections, more than the 1024",
		 image_lfanew(buf) + 4);
	REFUSED(buf, len, at);
	image_put32(buf, 0x3c, (uint32_t)len + 0x100); /* e_lfanew past the end */
	REFUSED(buf, len, "the PE signature (e_lfanew) at 0x", "truncated");
	free(buf);
}

Test(pe, an_error_fits_whatever_buffer_it_is_given)
{
	struct pe_imports imp;
	char err[12];
	uint8_t *buf;
	size_t len;

	image_load("pe32.sys", &buf, &len);
	memset(err, 'x', sizeof(err));
	cr_assert_eq(pe_imports_parse("x.sys", buf, len, &imp, err, sizeof(err)), -EINVAL);
	cr_assert_eq(err[sizeof(err) - 1], '\0');
	cr_assert_str_eq(err, "x.sys: a PE");
	pe_imports_free(&imp);
	cr_assert_eq(pe_imports_parse("x.sys", buf, len, &imp, NULL, 0), -EINVAL);
	pe_imports_free(&imp);
	free(buf);
}

Test(pe, a_file_that_cannot_be_read_says_why)
{
	struct pe_imports imp;
	char err[256];

	cr_assert_eq(pe_imports_read("/nonexistent/x.sys", &imp, err, sizeof(err)), -ENOENT);
	cr_assert_str_eq(err, "/nonexistent/x.sys: cannot open: No such file or directory");
	pe_imports_free(&imp);
	cr_assert_eq(pe_imports_read("/tmp", &imp, err, sizeof(err)), -EISDIR);
	cr_assert_str_eq(err, "/tmp: cannot open: Is a directory");
	pe_imports_free(&imp);
	/* reading this process's memory at address 0 fails with EIO */
	cr_assert_eq(pe_imports_read("/proc/self/mem", &imp, err, sizeof(err)), -EIO);
	cr_assert_str_eq(err, "/proc/self/mem: cannot read: Input/output error");
	pe_imports_free(&imp);
}
