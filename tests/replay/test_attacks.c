/* SPDX-License-Identifier: MIT */
/*
 * The attack traces (traces/attacks/): each, made from its text and
 * replayed on every scenario traces/attacks/expected.txt names, is blocked
 * with the reasons it lists, or exposes memory where the scenario leaves
 * the device unisolated, and nothing else; every attack trace is listed.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "tests/common/jsonq.h"
#include "tests/tools/run_gpuiso.h"

static const char *const causes[] = { "not_mapped", "beyond_range", "domain_switch", "reserved",
				      "after_unmap", "after_free" };
static const char *const hows[] = { "no_domain", "stale" };

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf = calloc(1, 1 << 20);

	cr_assert(f && buf, "%s", path);
	fread(buf, 1, (1 << 20) - 1, f);
	fclose(f);
	return buf;
}

/* How many times @name is in the comma-separated @list. */
static unsigned int listed(const char *list, const char *name)
{
	unsigned int n = 0;
	size_t len = strlen(name);

	for (const char *p = list; (p = strstr(p, name)); p += len)
		if ((p == list || p[-1] == ',') && (!p[len] || p[len] == ','))
			n++;
	return n;
}

/* The counts of "faults.dma.PREFIX_by.NAME" for each of @names are what @want lists. */
static void expect_counts(const char *doc, const char *what, const char *prefix,
			  const char *const *names, size_t n, const char *want)
{
	char path[96], val[32];

	for (size_t i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "faults.dma.%s_by.%s", prefix, names[i]);
		cr_assert(jsonq_get(doc, path, val, sizeof(val)), "%s: no %s", what, path);
		cr_expect_eq(strtoull(val, NULL, 10), listed(want, names[i]), "%s: %s is %s", what,
			     path, val);
	}
}

Test(attacks, each_is_blocked_or_exposed_as_listed, .timeout = 300)
{
	const char *root = getenv("GPUISO_SOURCE_ROOT");
	char path[4096], line[256], made[64][64], tmp[] = "/tmp/gpuiso-attacks-XXXXXX";
	unsigned int nmade = 0, rows = 0;
	struct dirent *d;
	struct run r;
	FILE *f;
	DIR *dir;

	cr_assert(root && mkdtemp(tmp));
	snprintf(path, sizeof(path), "%s/traces/attacks/expected.txt", root);
	f = fopen(path, "r");
	cr_assert(f, "%s", path);
	while (fgets(line, sizeof(line), f)) {
		char attack[64], scenario[64], outcome[16], reasons[128], trace[128], scn[256];
		char json[256], *doc, val[32];
		bool known = false;

		if (line[0] == '#' || sscanf(line, "%63s %63s %15s %127s", attack, scenario, outcome,
					     reasons) != 4)
			continue;
		rows++;
		snprintf(trace, sizeof(trace), "%s/%s", tmp, attack);
		for (unsigned int i = 0; i < nmade; i++)
			known |= !strcmp(made[i], attack);
		if (!known) {
			char text[256];

			snprintf(text, sizeof(text), "traces/attacks/%s.txt", attack);
			RUN(&r, "trace", "make", text, "-o", trace);
			cr_assert_eq(r.status, 0, "%s: %s", text, r.err);
			snprintf(made[nmade++], sizeof(made[0]), "%s", attack);
		}
		snprintf(scn, sizeof(scn), "traces/scenarios/%s.yaml", scenario);
		snprintf(json, sizeof(json), "%s-%s.json", trace, scenario);
		RUN(&r, "replay", trace, "--scenario", scn, "--no-cache", "--json", json);
		cr_expect_eq(r.status, 1, "%s on %s: exit %d (a finding is exit 1): %s", attack,
			     scenario, r.status, r.err);
		doc = slurp(json);
		cr_assert(jsonq_valid(doc), "%s", json);
		snprintf(path, sizeof(path), "%s on %s", attack, scenario);
		expect_counts(doc, path, "blocked", causes, sizeof(causes) / sizeof(causes[0]),
			      !strcmp(outcome, "blocked") ? reasons : "");
		expect_counts(doc, path, "exposed", hows, sizeof(hows) / sizeof(hows[0]),
			      !strcmp(outcome, "exposed") ? reasons : "");
		/* the summary groups them by reason */
		cr_expect(strstr(r.out, !strcmp(outcome, "blocked") ? "blocked DMA: " : "EXPOSED: "),
			  "%s: %s", path, r.out);
		/* a stale address names the event that unmapped or freed it */
		if (strstr(reasons, "after_")) {
			cr_expect(jsonq_get(doc, "faults.dma.blocked_first.0.by_op", val, sizeof(val)) ||
				  jsonq_get(doc, "faults.dma.blocked_first.1.by_op", val, sizeof(val)),
				  "%s: no by_op", path);
		}
		free(doc);
	}
	fclose(f);
	cr_assert_gt(rows, 0);
	/* every attack trace is replayed */
	snprintf(path, sizeof(path), "%s/traces/attacks", root);
	dir = opendir(path);
	cr_assert(dir);
	while ((d = readdir(dir))) {
		size_t len = strlen(d->d_name);
		bool known = false;

		if (len < 5 || strcmp(d->d_name + len - 4, ".txt") || !strcmp(d->d_name, "expected.txt"))
			continue;
		for (unsigned int i = 0; i < nmade; i++)
			known |= !strncmp(made[i], d->d_name, len - 4) && !made[i][len - 4];
		cr_expect(known, "traces/attacks/%s is in no row of expected.txt", d->d_name);
	}
	closedir(dir);
	snprintf(path, sizeof(path), "rm -rf '%s'", tmp);
	cr_expect_eq(system(path), 0);
}

/* gpu0's device reaches for gpu1's memory: the address it is refused at is gpu1's. */
Test(attacks, cross_adapter_address_is_the_other_adapters, .timeout = 120)
{
	char tmp[] = "/tmp/gpuiso-attacks-XXXXXX", trace[64], json[64], cmd[96];
	char *doc, a[32], b[32], who[32];
	struct run r;

	cr_assert(mkdtemp(tmp));
	snprintf(trace, sizeof(trace), "%s/cross", tmp);
	snprintf(json, sizeof(json), "%s/cross.json", tmp);
	RUN(&r, "trace", "make", "traces/attacks/cross-adapter.txt", "-o", trace);
	cr_assert_eq(r.status, 0, "%s", r.err);
	RUN(&r, "replay", trace, "--scenario", "traces/scenarios/two-adapters.yaml", "--no-cache",
	    "--json", json);
	cr_assert_eq(r.status, 1, "%s", r.err);
	doc = slurp(json);
	cr_assert(jsonq_get(doc, "faults.dma.blocked_first.0.address", a, sizeof(a)));
	cr_assert(jsonq_get(doc, "faults.dma.blocked_first.0.adapter", who, sizeof(who)));
	cr_expect_str_eq(who, "0", "gpu0's device is refused first");
	cr_assert(jsonq_get(doc, "faults.dma.blocked_first.1.address", b, sizeof(b)));
	cr_assert(jsonq_get(doc, "faults.dma.blocked_first.1.adapter", who, sizeof(who)));
	cr_expect_str_eq(who, "1", "then gpu1's own, after its free");
	cr_expect_str_eq(a, b, "the same page: gpu1's");
	cr_expect_str_eq(a, "8192");
	free(doc);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	cr_expect_eq(system(cmd), 0);
}

/*
 * A replay recorded by a real LTTng session (scripts/record): the blocked
 * DMA of the after-free attack is a gpuiso:dma_fault event with its cause
 * (5, after a free) and the event that freed it (2).
 */
Test(attacks, a_recorded_replay_holds_the_dma_fault, .timeout = 300)
{
	const char *root = getenv("GPUISO_SOURCE_ROOT"), *bin = getenv("GPUISO_BIN");
	char tmp[] = "/tmp/gpuiso-attacks-XXXXXX", trace[64], cmd[4096], line[1024];
	unsigned int faults = 0;
	struct run r;
	FILE *f;
	int rc;

	cr_assert(root && bin && mkdtemp(tmp));
	snprintf(trace, sizeof(trace), "%s/after-free", tmp);
	RUN(&r, "trace", "make", "traces/attacks/after-free.txt", "-o", trace);
	cr_assert_eq(r.status, 0, "%s", r.err);
	snprintf(cmd, sizeof(cmd),
		 "cd '%s' && scripts/record -o '%s/rec' --all -- '%s' replay '%s' --no-cache "
		 ">'%s/record.out' 2>&1", root, tmp, bin, trace, tmp);
	rc = system(cmd);
	/* the replay's status: 1, a blocked DMA is a finding (3: no LTTng session daemon here) */
	cr_assert_eq(WEXITSTATUS(rc), 1, "%s: exit %d", cmd, WEXITSTATUS(rc));
	snprintf(cmd, sizeof(cmd), "babeltrace2 '%s/rec' 2>/dev/null", tmp);
	f = popen(cmd, "r");
	cr_assert(f);
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "gpuiso:dma_fault:")) {
			faults++;
			cr_expect(strstr(line, "cause = 5") && strstr(line, "by_event = 2") &&
				  strstr(line, "event = 3,"), "%s", line);
		}
	pclose(f);
	cr_expect_eq(faults, 1, "one blocked DMA, one gpuiso:dma_fault");
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	cr_expect_eq(system(cmd), 0);
}
