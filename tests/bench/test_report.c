/* SPDX-License-Identifier: MIT */
/* The bench JSON contract (gpuiso-bench/1) and the statistics behind it. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/bench.h"
#include "tests/common/jsonq.h"

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = calloc(1, 1 << 16);

	cr_assert(f && buf);
	cr_assert_gt(fread(buf, 1, (1 << 16) - 1, f), 0);
	fclose(f);
	return buf;
}

Test(report, json_follows_the_contract)
{
	char path[] = "/tmp/gpuiso-bench-XXXXXX", tmp[64], value[64];
	struct bench_report r = { 0 };
	int fd = mkstemp(path);
	char *doc;

	cr_assert_geq(fd, 0);
	close(fd);
	bench_add(&r, "sim.map_unmap_4k_ns", 14.5, "ns", "a note that stays out of the JSON");
	bench_add(&r, "fbsave.pinned_ratio", 0.97, "ratio", NULL);
	cr_assert_eq(bench_write_json(&r, path), 0);
	doc = slurp(path);
	cr_assert(jsonq_valid(doc), "%s", doc);
	cr_assert(jsonq_get(doc, "schema", value, sizeof(value)));
	cr_assert_str_eq(value, "gpuiso-bench/1");
	cr_assert(jsonq_get(doc, "host", value, sizeof(value)));
	cr_assert(jsonq_get(doc, "git_rev", value, sizeof(value)));
	cr_assert_null(strstr(doc, "a note"));
	cr_assert(strstr(doc, "\"sim.map_unmap_4k_ns\": {"), "%s", doc);
	cr_assert(strstr(doc, "\"value\": 14.5"), "%s", doc);
	cr_assert(strstr(doc, "\"unit\": \"ratio\""), "%s", doc);
	/* written atomically: no temporary left behind */
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	cr_assert_neq(access(tmp, F_OK), 0);
	free(doc);
	unlink(path);
}

Test(report, unwritable_destination_is_an_error_and_leaves_nothing)
{
	struct bench_report r = { 0 };

	bench_add(&r, "x", 1, "s", NULL);
	/* a folder an output cannot make (the writer makes the ones that are missing) */
	cr_assert_eq(bench_write_json(&r, "/dev/null/out.json"), -ENOTDIR);
	cr_assert_eq(access("/dev/null/out.json", F_OK), -1);
}
