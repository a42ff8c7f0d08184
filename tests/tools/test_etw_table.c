/* SPDX-License-Identifier: MIT */
/*
 * tools/etw-table on manifests written here: the table it prints for two
 * builds of one provider (an event the same in both, fields appended
 * without a version change, fields changed without one), and the manifests
 * it refuses rather than print a layout it cannot know.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/tools/run_gpuiso.h"

#define HEAD "<instrumentationManifest xmlns=\"http://schemas.microsoft.com/win/2004/08/events\">\n" \
	"<instrumentation><events>\n" \
	"<provider name=\"Test-Gpu-Provider\" guid=\"{802ec45a-1e99-4b83-9920-87c98277ba9d}\">\n" \
	"<tasks><task name=\"Alloc\" value=\"21\"/><task name=\"Fence\" value=\"62\"/></tasks>\n"
#define TAIL "</provider></events></instrumentation></instrumentationManifest>\n"

/* The manifest @body (templates and events) in a file of this test's; its path. */
static const char *manifest(const char *name, const char *body)
{
	static char paths[4][128];
	static unsigned int next;
	char *path = paths[next++ % 4];
	FILE *f;

	snprintf(path, 128, "/tmp/gpuiso-etw-%d-%s.xml", (int)getpid(), name);
	f = fopen(path, "w");
	cr_assert(f);
	fprintf(f, "%s%s%s", HEAD, body, TAIL);
	fclose(f);
	return path;
}

Test(etw_table, two_builds_merge_into_one_table)
{
	const char *older = manifest("older",
		"<templates>\n"
		"<template tid=\"a\"><data name=\"hAlloc\" inType=\"win:Pointer\"/>"
		"<data name=\"Size\" inType=\"win:UInt64\"/></template>\n"
		"<template tid=\"f\"><data name=\"Count\" inType=\"win:UInt32\"/>"
		"<data name=\"Values\" inType=\"win:UInt64\" count=\"Count\"/></template>\n"
		"<template tid=\"s\"><data name=\"A\" inType=\"win:UInt32\"/></template>\n"
		"</templates><events>\n"
		"<event value=\"33\" version=\"3\" task=\"Alloc\" opcode=\"win:Start\" template=\"a\" "
		"symbol=\"AllocStart\"/>\n"
		"<event value=\"92\" version=\"0\" task=\"Fence\" opcode=\"win:Start\" template=\"f\" "
		"symbol=\"FenceStart\"/>\n"
		"<event value=\"94\" version=\"0\" task=\"Fence\" opcode=\"win:Stop\" template=\"s\" "
		"symbol=\"FenceStop\"/>\n"
		"</events>\n");
	const char *newer = manifest("newer",
		"<templates>\n"
		"<template tid=\"a\"><data name=\"hAlloc\" inType=\"win:Pointer\"/>"
		"<data name=\"Size\" inType=\"win:UInt64\"/>"
		"<data name=\"Pinned\" inType=\"win:Boolean\"/></template>\n"
		"<template tid=\"f\"><data name=\"Count\" inType=\"win:UInt32\"/>"
		"<data name=\"Values\" inType=\"win:UInt64\" count=\"Count\"/></template>\n"
		"<template tid=\"s\"><data name=\"B\" inType=\"win:UInt64\"/></template>\n"
		"</templates><events>\n"
		"<event value=\"33\" version=\"3\" task=\"Alloc\" opcode=\"win:Start\" template=\"a\" "
		"symbol=\"AllocStart\"/>\n"
		"<event value=\"92\" version=\"0\" task=\"Fence\" opcode=\"win:Start\" template=\"f\" "
		"symbol=\"FenceStart\"/>\n"
		"<event value=\"94\" version=\"0\" task=\"Fence\" opcode=\"win:Stop\" template=\"s\" "
		"symbol=\"FenceStop\"/>\n"
		"</events>\n");
	struct run r;

	run_script(&r, "tools/etw-table", (const char *const[]){ "--label", "builds 1 and 2",
								 older, newer, NULL });
	cr_assert_eq(r.status, 0, "%s", r.err);
	/* the same in both builds, its array counted by an earlier field */
	cr_expect(strstr(r.out, "{ \"Values\", ETL_U64, 0, 0 },"), "%s", r.out);
	cr_expect(strstr(r.out, "{ 92, 0, 1, 62, \"Fence/Start\", \"FenceStart\", 2, 2,"), "%s", r.out);
	/* a field appended: the longer list, the shorter one required */
	cr_expect(strstr(r.out, "{ \"Pinned\", ETL_BOOL, -1, 1 },"), "%s", r.out);
	cr_expect(strstr(r.out, "{ 33, 3, 1, 21, \"Alloc/Start\", \"AllocStart\", 3, 2,"), "%s",
		  r.out);
	/* fields changed without a version change: the later build's, said */
	cr_expect(strstr(r.out, "{ \"B\", ETL_U64, -1, 1 },") && !strstr(r.out, "{ \"A\", ETL_U32"),
		  "%s", r.out);
	cr_expect(strstr(r.err, "FenceStop") && strstr(r.err, "kept"), "%s", r.err);
	cr_expect(strstr(r.out, "Test-Gpu-Provider manifests of builds 1 and 2"), "%s", r.out);
	cr_expect(strstr(r.out, ".guid = { 0x5a, 0xc4, 0x2e, 0x80, 0x99, 0x1e, 0x83, 0x4b,"), "%s",
		  r.out);
	unlink(older);
	unlink(newer);
}

Test(etw_table, a_layout_it_cannot_know_is_refused)
{
	static const struct {
		const char *body, *says;
	} cases[] = {
		{ "<templates><template tid=\"t\"><data name=\"X\" inType=\"win:Mystery\"/></template>"
		  "</templates><events><event value=\"1\" version=\"0\" template=\"t\"/></events>",
		  "win:Mystery" },
		{ "<templates><template tid=\"t\"><data name=\"X\" inType=\"win:UInt64\" count=\"N\"/>"
		  "<data name=\"N\" inType=\"win:UInt32\"/></template>"
		  "</templates><events><event value=\"1\" version=\"0\" template=\"t\"/></events>",
		  "N" },
		{ "<templates><template tid=\"t\"><data name=\"X\" inType=\"win:Binary\"/></template>"
		  "</templates><events><event value=\"1\" version=\"0\" template=\"t\"/></events>",
		  "X" },
		{ "<events><event value=\"1\" version=\"0\" template=\"nowhere\"/></events>",
		  "nowhere" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *m = manifest("bad", cases[i].body);
		struct run r;

		run_script(&r, "tools/etw-table", (const char *const[]){ m, NULL });
		cr_expect_neq(r.status, 0, "case %zu: %s", i, r.out);
		cr_expect(strstr(r.err, m) && strstr(r.err, cases[i].says), "case %zu: %s", i,
			  r.err);
		cr_expect_eq(r.out[0], '\0', "case %zu: nothing printed: %s", i, r.out);
		unlink(m);
	}
}
