/* SPDX-License-Identifier: MIT */
#include <criterion/criterion.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "faults/campaign/campaign.h"
#include "faults/campaign/shard.h"
#include "tests/common/jsonq.h"

#include "tests/faults/campaign/campaign_fixture.h"

static void work_dir(char *buf, size_t len)
{
	snprintf(buf, len, "/tmp/gpuiso-campaign-%d", (int)getpid());
}

void at(char *buf, size_t len, const char *rel)
{
	char dir[64];

	work_dir(dir, sizeof(dir));
	cr_assert_lt(snprintf(buf, len, "%s/%s", dir, rel), (int)len, "%s: too long", rel);
}

const char *bin(void)
{
	static char path[PATH_MAX];
	const char *b = getenv("GPUISO_BIN");

	cr_assert(b && getenv("GPUISO_SOURCE_ROOT"), "GPUISO_BIN and GPUISO_SOURCE_ROOT must be set");
	cr_assert_not_null(realpath(b, path), "%s", b);
	return path;
}

void setup(void)
{
	char dir[64], cache[128];

	work_dir(dir, sizeof(dir));
	cr_assert_eq(mkdir(dir, 0755), 0, "mkdir %s: %s", dir, strerror(errno));
	/* the replay cache of the generated traces goes away with them */
	at(cache, sizeof(cache), "cache");
	setenv("XDG_CACHE_HOME", cache, 1);
	/* relative paths in campaigns must not find anything from here */
	cr_assert_eq(chdir("/"), 0);
	/*
	 * With LTTNG_UST_REGISTER_TIMEOUT=0, main() runs while LTTng-UST's
	 * listener threads still allocate; a campaign forks its runs within
	 * milliseconds, and GCC 12's ASan allocator is not fork-safe: a child
	 * can inherit its lock held and hang. The default makes main() wait
	 * until those threads are parked (at once when no session daemon runs).
	 */
	unsetenv("LTTNG_UST_REGISTER_TIMEOUT");
}

void teardown(void)
{
	char dir[64], cmd[128];

	work_dir(dir, sizeof(dir));
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd))
		fprintf(stderr, "could not remove %s\n", dir);
}

int sh(const char *cmd, char *out, size_t len)
{
	FILE *p = popen(cmd, "r");
	size_t n = 0;
	int status;

	cr_assert_not_null(p, "popen %s", cmd);
	if (out) {
		n = fread(out, 1, len - 1, p);
		out[n] = '\0';
	}
	while (fgetc(p) != EOF)
		;
	status = pclose(p);
	cr_assert(WIFEXITED(status), "%s: died (status %#x)", cmd, status);
	return WEXITSTATUS(status);
}

void gen_trace(const char *name, unsigned int events)
{
	char dir[PATH_MAX], cmd[CMD_LEN], out[4096];

	at(dir, sizeof(dir), name);
	snprintf(cmd, sizeof(cmd), "%s trace gen --profile power-cycle --events %u --seed 1 -o %s 2>&1",
		 bin(), events, dir);
	cr_assert_eq(sh(cmd, out, sizeof(out)), 0, "%s: %s", cmd, out);
}

void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	cr_assert_not_null(f, "%s: %s", path, strerror(errno));
	fputs(text, f);
	cr_assert_eq(fclose(f), 0);
}

char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t len = 0;
	FILE *m;
	int ch;

	if (!f)
		return NULL;
	m = open_memstream(&buf, &len);
	cr_assert_not_null(m);
	while ((ch = fgetc(f)) != EOF)
		fputc(ch, m);
	fclose(f);
	fclose(m);
	return buf;
}

bool exists(const char *path)
{
	struct stat st;

	return !stat(path, &st);
}

void write_campaign(const char *name, const char *body)
{
	char path[PATH_MAX], *text;

	at(path, sizeof(path), name);
	cr_assert(asprintf(&text, "campaign:\n%s", body) > 0);
	write_text(path, text);
	free(text);
}

int run_lib(const char *file, const char *out, unsigned int jobs, FILE *progress,
	    struct campaign_totals *t, char *err, size_t errlen)
{
	char fpath[PATH_MAX], opath[PATH_MAX];
	struct campaign_opts o = { .file = fpath, .out = opath, .jobs = jobs, .progress = progress };

	at(fpath, sizeof(fpath), file);
	at(opath, sizeof(opath), out);
	return campaign_run(&o, t, err, errlen);
}

void get(const char *doc, const char *path, char *out, size_t len)
{
	cr_assert(jsonq_get(doc, path, out, len), "no %s in %s", path, doc);
}

char *summary_of(const char *out)
{
	char path[PATH_MAX], rel[PATH_MAX];
	char *doc;

	snprintf(rel, sizeof(rel), "%s/summary.json", out);
	at(path, sizeof(path), rel);
	doc = slurp(path);
	cr_assert_not_null(doc, "no %s", path);
	cr_assert(jsonq_valid(doc), "not JSON: %s", doc);
	return doc;
}

void expect_totals(const char *doc, const char *runs, const char *passed,
		   const char *failed)
{
	char v[64];

	get(doc, "schema", v, sizeof(v));
	cr_assert_str_eq(v, "gpuiso-campaign/1");
	get(doc, "runs", v, sizeof(v));
	cr_assert_str_eq(v, runs, "runs: %s in %s", v, doc);
	get(doc, "passed", v, sizeof(v));
	cr_assert_str_eq(v, passed, "passed: %s in %s", v, doc);
	get(doc, "failed", v, sizeof(v));
	cr_assert_str_eq(v, failed, "failed: %s in %s", v, doc);
}

void two_run_campaign(const char *name, const char *seeds)
{
	char trace[PATH_MAX], body[2 * PATH_MAX + 512];

	at(trace, sizeof(trace), "power-cycle");
	snprintf(body, sizeof(body),
		 "  name: two\n"
		 "  traces: [%s]\n"
		 "  scenario: " SCENARIO_FMT "\n"
		 "  seeds: %s\n"
		 "  runs:\n"
		 "    - {name: pin-fails, faults: [{point: fbsave/pin, probability: 1}]}\n"
		 "    - name: unmap-fails\n"
		 "      faults:\n"
		 "        - point: iommu/unmap\n"
		 "          probability: 50%%\n",
		 trace, SCENARIO_ARG, seeds);
	write_campaign(name, body);
}
