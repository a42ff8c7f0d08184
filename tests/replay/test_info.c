/* SPDX-License-Identifier: MIT */
/* trace_info() on real traces recorded elsewhere (ctf_fixture.h), as text and as JSON. */
#include <criterion/criterion.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay/info.h"
#include "tests/common/jsonq.h"
#include "tests/replay/ctf_fixture.h"

static char *info(const char *path, bool json)
{
	char *doc = NULL, err[512];
	size_t len = 0;
	FILE *f = open_memstream(&doc, &len);

	cr_assert_not_null(f);
	cr_assert_eq(trace_info(path, json, f, err, sizeof(err)), 0, "%s", err);
	fclose(f);
	return doc;
}

static void expect(const char *doc, const char *path, const char *want)
{
	char got[512];

	cr_assert(jsonq_get(doc, path, got, sizeof(got)), "%s missing in\n%s", path, doc);
	cr_assert_str_eq(got, want, "%s", path);
}

Test(trace_info, text)
{
	char *doc = info(real(UST), false);
	const char *malloc_line, *free_line;

	cr_assert_not_null(strstr(doc, "328056"), "%s", doc);
	cr_assert_not_null(strstr(doc, "1448652394359148425"), "%s", doc);
	cr_assert_not_null(strstr(doc, "0.525960314 s"), "span:\n%s", doc);
	cr_assert_null(strstr(doc, "incomplete"), "%s", doc);
	malloc_line = strstr(doc, "lttng_ust_libc:malloc");
	free_line = strstr(doc, "lttng_ust_libc:free");
	cr_assert_not_null(malloc_line, "%s", doc);
	cr_assert_not_null(free_line, "%s", doc);
	cr_assert_lt(free_line, malloc_line, "not sorted by name:\n%s", doc);
	free(doc);
}

Test(trace_info, json)
{
	char *doc = info(real(UST), true);
	char path[PATH_MAX];

	cr_assert(jsonq_valid(doc), "not valid JSON:\n%s", doc);
	snprintf(path, sizeof(path), "%s", real(UST));
	expect(doc, "schema", "gpuiso-trace-info/1");
	expect(doc, "path", path);
	expect(doc, "traces", "1");
	expect(doc, "events", "328056");
	expect(doc, "discarded", "0");
	expect(doc, "first_ts", "1448652394359148425");
	expect(doc, "last_ts", "1448652394885108739");
	expect(doc, "by_name.lttng_ust_libc:malloc", "164028");
	expect(doc, "by_name.lttng_ust_libc:free", "164028");
	free(doc);
}

Test(trace_info, json_two_traces)
{
	char *doc = info(real_dir(), true);

	cr_assert(jsonq_valid(doc), "not valid JSON:\n%s", doc);
	expect(doc, "traces", "2");
	expect(doc, "events", "359612");
	expect(doc, "by_name.rpm_suspend", "1");
	expect(doc, "by_name.lttng_ust_libc:free", "164028");
	free(doc);
}

Test(trace_info, error_prints_nothing)
{
	char *doc = NULL, err[512] = "";
	size_t len = 0;
	FILE *f = open_memstream(&doc, &len);

	cr_assert_eq(trace_info("/nonexistent/gpuiso", true, f, err, sizeof(err)), -ENOENT);
	fclose(f);
	cr_assert_eq(len, 0);
	cr_assert_neq(err[0], '\0');
	free(doc);
}
