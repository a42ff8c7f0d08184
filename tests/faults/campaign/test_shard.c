/* SPDX-License-Identifier: MIT */
/*
 * Shards: "I/N" is read strictly; the split puts every run in exactly one
 * part, in contiguous parts of about equal cost (not of equal count); a
 * header reads back as written, and one cut short does not read; the
 * shard files of an output folder are found, and a mix of splits refused.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "faults/campaign/shard.h"
#include "faults/campaign/sweep.h"

Test(shard, parse_takes_i_of_n_and_nothing_else)
{
	static const char *const bad[] = { "", "1", "4/4", "-1/4", "1/0", "1/4x", " 1/4", "1/-4",
					   "0/100001", "a/b", "1//4", "0/ 2", "0/+2", "0/\t2",
					   "0 /2", "+0/2", "0/2 ", "0/2/3", "/2", "0/",
					   "0/18446744073709551617", "18446744073709551616/2" };
	struct shard sh;

	cr_assert_eq(shard_parse("0/1", &sh), 0);
	cr_assert(sh.index == 0 && sh.count == 1);
	cr_assert_eq(shard_parse("3/4", &sh), 0);
	cr_assert(sh.index == 3 && sh.count == 4);
	cr_assert_eq(shard_parse("99999/100000", &sh), 0);
	/* whole numbers as everywhere else: leading zeros are decimal, 0x is hex */
	cr_assert_eq(shard_parse("007/0x10", &sh), 0);
	cr_assert(sh.index == 7 && sh.count == 16);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		cr_assert_eq(shard_parse(bad[i], &sh), -EINVAL, "'%s' was taken", bad[i]);
}

/* Every run in one part, parts contiguous and in order, for each N up to @max. */
static void check_split(const uint64_t *cost, size_t n, uint32_t max)
{
	uint32_t *owner = calloc(n, sizeof(*owner));

	cr_assert_not_null(owner);
	for (uint32_t count = 1; count <= max; count++) {
		memset(owner, 0xff, n * sizeof(*owner));
		shard_split(cost, n, count, owner);
		for (size_t i = 0; i < n; i++) {
			cr_assert_lt(owner[i], count, "run %zu of %zu in part %u of %u", i, n, owner[i],
				     count);
			if (i)
				cr_assert_geq(owner[i], owner[i - 1], "parts not contiguous");
		}
	}
	free(owner);
}

Test(shard, split_puts_every_run_in_exactly_one_contiguous_part)
{
	uint64_t cost[1000];

	for (size_t i = 0; i < 1000; i++)
		cost[i] = (i * 7919) % 101;
	check_split(cost, 1000, 40);
	check_split(cost, 3, 10);  /* more parts than runs */
	memset(cost, 0, sizeof(cost));
	check_split(cost, 1000, 10);
	check_split(NULL, 0, 4);
	cost[0] = UINT64_MAX;      /* no overflow on huge costs */
	cost[1] = UINT64_MAX;
	check_split(cost, 2, 3);
}

Test(shard, split_balances_cost_not_count)
{
	uint64_t cost[100], sum[4] = { 0 };
	uint32_t owner[100];
	size_t count[4] = { 0 };

	/* the first runs cost ten times as much as the rest */
	for (size_t i = 0; i < 100; i++)
		cost[i] = i < 20 ? 10 : 1;
	shard_split(cost, 100, 4, owner);
	for (size_t i = 0; i < 100; i++) {
		sum[owner[i]] += cost[i];
		count[owner[i]]++;
	}
	/* 280 in all: 70 a part, within a run's cost */
	for (int k = 0; k < 4; k++)
		cr_assert(sum[k] >= 60 && sum[k] <= 80, "part %d costs %llu", k,
			  (unsigned long long)sum[k]);
	cr_assert_lt(count[0], count[3], "the costly runs' part has as many runs: %zu, %zu",
		     count[0], count[3]);

	/* equal costs (or none known): equal counts */
	memset(cost, 0, sizeof(cost));
	memset(count, 0, sizeof(count));
	shard_split(cost, 100, 4, owner);
	for (size_t i = 0; i < 100; i++)
		count[owner[i]]++;
	for (int k = 0; k < 4; k++)
		cr_assert_eq(count[k], 25);
}

Test(shard, header_reads_back_and_a_cut_one_does_not)
{
	struct shard_header h = { .work = 0x0123456789abcdefull, .sh = { 2, 5 } }, back;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	snprintf(h.kind, sizeof(h.kind), "sweep");
	cr_assert_eq(shard_field_add(&h, "trace", "/a trace/with spaces"), 0);
	cr_assert_eq(shard_field_add(&h, "scenario", NULL), 0);  /* left out */
	cr_assert_eq(shard_field_add(&h, "points", "iommu/*"), 0);
	cr_assert_eq(shard_field_add(&h, "bad", "two\nlines"), -EINVAL);
	f = open_memstream(&text, &len);
	cr_assert_not_null(f);
	shard_header_write(f, &h);
	fputs("run 0 iommu/map 1 recovered\n", f);
	cr_assert_eq(fclose(f), 0);

	f = fmemopen(text, len, "r");
	cr_assert_eq(shard_header_read(f, &back), 0);
	cr_assert_str_eq(back.kind, "sweep");
	cr_assert_eq(back.work, h.work);
	cr_assert(back.sh.index == 2 && back.sh.count == 5);
	cr_assert_str_eq(shard_field(&back, "trace"), "/a trace/with spaces");
	cr_assert_str_eq(shard_field(&back, "points"), "iommu/*");
	cr_assert_null(shard_field(&back, "scenario"));
	cr_assert_eq(back.nfields, 2);
	fclose(f);
	shard_header_free(&back);

	/* cut anywhere before its "." line: not a header */
	for (size_t cut = 0; cut < (size_t)(strstr(text, "\n.\n") - text) + 2; cut++) {
		f = fmemopen(text, cut ? cut : 1, "r");
		cr_assert_eq(shard_header_read(f, &back), -EINVAL, "cut at %zu read", cut);
		fclose(f);
	}
	free(text);
	shard_header_free(&h);
}

/* @dir/shards/@name: the header of shard @i/@n of work @work, with a field "trace @trace". */
static void work_file(const char *dir, const char *name, const char *kind, uint32_t i, uint32_t n,
		      uint64_t work, const char *trace)
{
	struct shard_header h = { .sh = { i, n }, .work = work };
	char path[512];
	FILE *f;

	snprintf(h.kind, sizeof(h.kind), "%s", kind);
	cr_assert_eq(shard_field_add(&h, "trace", trace), 0);
	snprintf(path, sizeof(path), "%s/shards/%s", dir, name);
	f = fopen(path, "w");
	cr_assert_not_null(f, "%s", path);
	shard_header_write(f, &h);
	cr_assert_eq(fclose(f), 0);
	shard_header_free(&h);
}

static void shard_file(const char *dir, const char *name, const char *kind, uint32_t i, uint32_t n)
{
	work_file(dir, name, kind, i, n, 7, NULL);
}

/* @dir/shards/@name holding @text. */
static void text_file(const char *dir, const char *name, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/shards/%s", dir, name);
	f = fopen(path, "w");
	cr_assert_not_null(f, "%s", path);
	fputs(text, f);
	cr_assert_eq(fclose(f), 0);
}

/* A fresh @dir/shards, empty. */
static void shards_anew(const char *dir)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf %s/shards && mkdir %s/shards", dir, dir);
	cr_assert_eq(system(cmd), 0);
}

Test(shard, find_reads_the_lowest_shard_and_refuses_a_mix_of_splits)
{
	char dir[] = "/tmp/gpuiso-shard-XXXXXX", path[512], err[512] = "", cmd[600];
	struct shard_header h;

	cr_assert_not_null(mkdtemp(dir));
	cr_assert_eq(shard_find(dir, &h, err, sizeof(err)), -ENOENT);
	cr_assert_not_null(strstr(err, "no shards"), "%s", err);
	snprintf(path, sizeof(path), "%s/shards", dir);
	cr_assert_eq(mkdir(path, 0755), 0);
	cr_assert_eq(shard_find(dir, &h, err, sizeof(err)), -ENOENT);

	shard_file(dir, "3-of-4", "sweep", 3, 4);
	shard_file(dir, "1-of-4", "sweep", 1, 4);
	shard_file(dir, "missing", "sweep", 0, 4);   /* not a shard's name: not read */
	cr_assert_eq(shard_find(dir, &h, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(h.sh.index, 1);
	cr_assert_eq(h.sh.count, 4);
	shard_header_free(&h);

	shard_file(dir, "0-of-2", "sweep", 0, 2);
	cr_assert_eq(shard_find(dir, &h, err, sizeof(err)), -EINVAL);
	cr_assert_not_null(strstr(err, "of 4 parts and of 2 parts"), "%s", err);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	cr_assert_eq(system(cmd), 0);
}

Test(shard, header_lines_read_only_as_written)
{
	/* each one line away from a good header; sscanf() took them all */
	static const char *const bad[] = {
		"kind  sweep\nwork 0000000000000007\nshard 0 2\n.\n",
		"kind sweep \nwork 0000000000000007\nshard 0 2\n.\n",
		"kind sweep\nwork 7\nshard 0 2\n.\n",
		"kind sweep\nwork 0x00000000000007\nshard 0 2\n.\n",
		"kind sweep\nwork 000000000000000A\nshard 0 2\n.\n",
		"kind sweep\nwork  000000000000007\nshard 0 2\n.\n",
		"kind sweep\nwork 10000000000000007\nshard 0 2\n.\n",
		"kind sweep\nwork 0000000000000007\nshard 0 +2\n.\n",
		"kind sweep\nwork 0000000000000007\nshard 0  2\n.\n",
		"kind sweep\nwork 0000000000000007\nshard +0 2\n.\n",
		"kind sweep\nwork 0000000000000007\nshard 00 2\n.\n",
		"kind sweep\nwork 0000000000000007\nshard 0 -1\n.\n",
		"kind sweep\nwork 0000000000000007\nshard 0 4294967298\n.\n",
		"kind sweep\nwork 0000000000000007\nshard 0 100001\n.\n",
		"kind sweep\nwork 0000000000000007\nshard\t0 2\n.\n",
	};
	struct shard_header h;
	char text[256];
	FILE *f;

	for (size_t i = 0; i <= sizeof(bad) / sizeof(bad[0]); i++) {
		/* the last: the good one */
		snprintf(text, sizeof(text), SHARD_SCHEMA "\n%s",
			 i < sizeof(bad) / sizeof(bad[0]) ? bad[i] :
			 "kind sweep\nwork 0000000000000007\nshard 0 2\n.\n");
		f = fmemopen(text, strlen(text), "r");
		cr_assert_not_null(f);
		if (i < sizeof(bad) / sizeof(bad[0])) {
			cr_assert_eq(shard_header_read(f, &h), -EINVAL, "read:\n%s", text);
		} else {
			cr_assert_eq(shard_header_read(f, &h), 0, "%s", text);
			cr_assert(h.work == 7 && h.sh.index == 0 && h.sh.count == 2);
			shard_header_free(&h);
		}
		fclose(f);
	}
}

Test(shard, find_takes_only_names_as_shard_path_makes_them)
{
	char dir[] = "/tmp/gpuiso-shard-XXXXXX", path[512], err[512] = "", cmd[600];
	struct shard_header h;

	cr_assert_not_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/shards", dir);
	cr_assert_eq(mkdir(path, 0755), 0);
	/* sscanf("%u-of-%u") took them all */
	shard_file(dir, "00-of-2", "sweep", 0, 2);
	shard_file(dir, "+0-of-2", "sweep", 0, 2);
	shard_file(dir, " 0-of-2", "sweep", 0, 2);
	shard_file(dir, "0-of- 2", "sweep", 0, 2);
	shard_file(dir, "0-of-+2", "sweep", 0, 2);
	shard_file(dir, "0-of-200000", "sweep", 0, 2);
	cr_assert_eq(shard_find(dir, &h, err, sizeof(err)), -ENOENT, "%s", err);
	shard_file(dir, "1-of-2", "sweep", 1, 2);
	cr_assert_eq(shard_find(dir, &h, err, sizeof(err)), 0, "%s", err);
	cr_assert(h.sh.index == 1 && h.sh.count == 2);
	shard_header_free(&h);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	cr_assert_eq(system(cmd), 0);
}

Test(shard, find_names_a_foreign_journal_and_what_work_it_is_of)
{
	char dir[] = "/tmp/gpuiso-shard-XXXXXX", path[512], err[4096] = "", cmd[600];
	struct shard_header h;

	cr_assert_not_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/shards", dir);
	cr_assert_eq(mkdir(path, 0755), 0);

	/* shard 0's file is another sweep's: not taken on, named with its work */
	work_file(dir, "0-of-2", "sweep", 0, 2, 9, "/the/other/trace");
	work_file(dir, "1-of-2", "sweep", 1, 2, 7, "/this/trace");
	cr_assert_eq(shard_find(dir, &h, err, sizeof(err)), -EINVAL, "taken on");
	cr_assert(strstr(err, "shard files of 2 different works: nothing merged"), "%s", err);
	cr_assert(strstr(err, "/shards/0-of-2: sweep work 0000000000000009: trace /the/other/trace"),
		  "%s", err);
	cr_assert(strstr(err, "/shards/1-of-2: sweep work 0000000000000007: trace /this/trace"),
		  "%s", err);
	cr_assert_null(strstr(err, "(most of them)"), "one of two is no majority: %s", err);

	/* one of three: the one of other work, and the work of most */
	shards_anew(dir);
	work_file(dir, "0-of-3", "sweep", 0, 3, 7, "/this/trace");
	work_file(dir, "1-of-3", "sweep", 1, 3, 9, "/the/other/trace");
	work_file(dir, "2-of-3", "sweep", 2, 3, 7, "/this/trace");
	cr_assert_eq(shard_find(dir, &h, err, sizeof(err)), -EINVAL, "taken on");
	cr_assert(strstr(err, "/shards/1-of-3 (other work): sweep work 0000000000000009: trace "
			      "/the/other/trace"), "%s", err);
	cr_assert(strstr(err, "/shards/0-of-3, ") && strstr(err, "/shards/2-of-3 (most of them): "
							      "sweep work 0000000000000007"),
		  "%s", err);
	cr_assert(strstr(err, "run each shard of other work again"), "%s", err);

	/* the same digest of another kind is other work */
	shards_anew(dir);
	work_file(dir, "0-of-2", "campaign", 0, 2, 7, NULL);
	work_file(dir, "1-of-2", "sweep", 1, 2, 7, "/this/trace");
	cr_assert_eq(shard_find(dir, &h, err, sizeof(err)), -EINVAL, "taken on");
	cr_assert(strstr(err, "/shards/0-of-2: campaign work 0000000000000007\n"), "%s", err);

	/* a file holding another shard's header (copied, renamed) */
	shards_anew(dir);
	work_file(dir, "0-of-2", "sweep", 1, 2, 7, "/this/trace");
	work_file(dir, "1-of-2", "sweep", 1, 2, 7, "/this/trace");
	cr_assert_eq(shard_find(dir, &h, err, sizeof(err)), -EINVAL, "taken on");
	cr_assert(strstr(err, "/shards/0-of-2: the journal of shard 1/2, not of shard 0/2"), "%s",
		  err);

	/* a header that does not read is a shard whose runs are missing, not other work */
	shards_anew(dir);
	text_file(dir, "0-of-2", "");
	work_file(dir, "1-of-2", "sweep", 1, 2, 7, "/this/trace");
	cr_assert_eq(shard_find(dir, &h, err, sizeof(err)), 0, "%s", err);
	cr_assert(h.sh.index == 1 && h.work == 7);
	shard_header_free(&h);

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	cr_assert_eq(system(cmd), 0);
}

static int count_record(void *arg, const struct sweep_record *r)
{
	(*(size_t *)arg)++;
	return 0;
}

Test(shard, journal_records_read_only_as_written)
{
	/* a whole record, then each one changed as sscanf() would have taken it */
	static const char *const bad[] = {
		"run +0 iommu/map 1 recovered\nend 0\n",
		"run 0 iommu/map  1 recovered\nend 0\n",
		"run  0 iommu/map 1 recovered\nend 0\n",
		"run 0 iommu/map 01 recovered\nend 0\n",
		"run 0 iommu/map +1 recovered\nend 0\n",
		"run 0 iommu/map 1 recovered \nend 0\n",
		"run 0 iommu/map 1\trecovered\nend 0\n",
		"run 0 iommu/map 1 recovered\nend +0\n",
		"run 0 iommu/map 1 recovered\nend 00\n",
		"run 0 iommu/map 1 recovered\nend  0\n",
		"run 18446744073709551616 iommu/map 1 recovered\nend 18446744073709551615\n",
		"run 0 iommu/map 18446744073709551616 recovered\nend 0\n",
	};
	char text[256];

	for (size_t i = 0; i <= sizeof(bad) / sizeof(bad[0]); i++) {
		const char *rec = i < sizeof(bad) / sizeof(bad[0]) ? bad[i] :
				  "run 0 iommu/map 1 recovered\nend 0\n";
		size_t n = 0;
		off_t good = -1;
		FILE *f;

		snprintf(text, sizeof(text), "%s", rec);
		f = fmemopen(text, strlen(text), "r");
		cr_assert_not_null(f);
		cr_assert_eq(sweep_journal_records(f, count_record, &n, &good), 0);
		fclose(f);
		if (i < sizeof(bad) / sizeof(bad[0]))
			cr_assert(n == 0 && good == 0, "read %zu records of:\n%s", n, rec);
		else
			cr_assert(n == 1 && good == (off_t)strlen(rec), "%zu records", n);
	}
}
