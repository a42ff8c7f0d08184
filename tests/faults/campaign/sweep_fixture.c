/* SPDX-License-Identifier: MIT */
#include <criterion/criterion.h>
#include <limits.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/json.h"
#include "core/scenario.h"
#include "faults/campaign/shard.h"
#include "faults/campaign/sweep.h"
#include "replay/ctf.h"
#include "replay/gen.h"
#include "replay/replay.h"
#include "tests/common/jsonq.h"

#include "tests/faults/campaign/sweep_fixture.h"

extern char **environ;

char tmp[] = "/tmp/gpuiso-sweep-XXXXXX";

/*
 * lda-chain.yaml with small save areas: transitions cost microseconds, not
 * tens of milliseconds, so a whole sweep stays quick. @save is the size.
 */
static const char scenario_fmt[] =
	"system:\n"
	"  memory: 128GiB\n"
	"  os_memory_map: [{base: 0x0, size: 2GiB}, {base: 0x100000000, size: 126GiB}]\n"
	"  commit_limit: 96GiB\n"
	"  lockable_limit: 32GiB\n"
	"registry:\n"
	"  iommu_flags: 0x07\n"
	"adapters:\n"
	"  - name: lda0\n"
	"    wddm: \"2.9\"\n"
	"    caps: {iommu_secure_mode: true, map_aperture2: true, dma_remapping_compatible: 3}\n"
	"    fb_save_mode: per-adapter\n"
	"    small_buffer: 64KiB\n"
	"    physical:\n"
	"      - {vram: 16GiB, fb_save_size: %s, reserved: [{base: 0xC0000000, size: 16MiB}]}\n"
	"      - {vram: 16GiB, fb_save_size: %s, reserved: [{base: 0xC1000000, size: 16MiB}]}\n"
	"      - {vram: 16GiB, fb_save_size: %s, reserved: [{base: 0xC2000000, size: 8MiB}]}\n";

void setup(void)
{
	cr_assert_not_null(mkdtemp(tmp), "mkdtemp: %s", strerror(errno));
}

void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmp);
	cr_assert_eq(system(cmd), 0);
}

char *path_in_tmp(const char *name)
{
	char *p = NULL;

	cr_assert(asprintf(&p, "%s/%s", tmp, name) > 0);
	return p;
}

char *trace_gen(const char *name, uint64_t events, uint64_t seed)
{
	char *dir = path_in_tmp(name), err[256] = "";
	struct gen *g;

	cr_assert_eq(gen_create("power-cycle", events, seed, &g), 0);
	cr_assert_eq(ctf_write(dir, gen_next, g, err, sizeof(err)), 0, "%s", err);
	gen_destroy(g);
	return dir;
}

char *scenario_write(const char *name, const char *save)
{
	char *path = path_in_tmp(name);
	FILE *f = fopen(path, "w");

	cr_assert_not_null(f);
	fprintf(f, scenario_fmt, save, save, save);
	cr_assert_eq(fclose(f), 0);
	return path;
}

char *without_out(const char *doc, const char *out)
{
	char *abs = realpath(out, NULL), *res, *w;
	size_t n;

	cr_assert_not_null(abs, "%s", out);
	n = strlen(abs);
	res = malloc(strlen(doc) + 1);
	cr_assert_not_null(res);
	for (w = res; *doc;) {
		if (!strncmp(doc, abs, n)) {
			w += sprintf(w, "OUT");
			doc += n;
		} else {
			*w++ = *doc++;
		}
	}
	*w = '\0';
	free(abs);
	return res;
}

char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long n;

	cr_assert_not_null(f, "%s: %s", path, strerror(errno));
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc((size_t)n + 1);
	cr_assert_not_null(buf);
	cr_assert_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

char *sweep_with_progress(const char *trace, const char *scn, const char *points, enum mode m,
			  const char *out, struct sweep_totals *t, FILE *progress)
{
	struct sweep_opts o = { .trace = trace, .scenario = scn, .points = points, .out = out,
				.jobs = 2, .from_scratch = m == SCRATCH, .fork = m == FORK,
				.progress = progress };
	char err[1024] = "", *summary;

	cr_assert_eq(sweep_run(&o, t, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(asprintf(&summary, "%s/summary.json", out) > 0, true);
	return summary;
}

char *sweep(const char *trace, const char *scn, const char *points, enum mode m,
	    const char *out, struct sweep_totals *t)
{
	return sweep_with_progress(trace, scn, points, m, out, t, NULL);
}

uint64_t get_u64(const char *doc, const char *fmt, ...)
{
	char path[256], val[64];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	cr_assert(jsonq_get(doc, path, val, sizeof(val)), "no %s", path);
	return strtoull(val, NULL, 10);
}

void text_unescape(char *s)
{
	char *bytes;

	cr_assert_eq(json_unescape(s, strlen(s), &bytes), 0, "%s", s);
	strcpy(s, bytes); /* never longer than its escapes */
	free(bytes);
}

pid_t gpuiso_spawn(const char *const *args)
{
	const char *bin = getenv("GPUISO_BIN");
	char *argv[32] = { (char *)"gpuiso" }, *out = path_in_tmp("cli.out");
	posix_spawn_file_actions_t fa;
	pid_t pid;
	size_t i;

	cr_assert_not_null(bin, "GPUISO_BIN must be set");
	for (i = 0; args[i] && i < 30; i++)
		argv[i + 1] = (char *)args[i];
	argv[i + 1] = NULL;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	posix_spawn_file_actions_adddup2(&fa, 1, 2);
	cr_assert_eq(posix_spawn(&pid, bin, &fa, NULL, argv, environ), 0);
	posix_spawn_file_actions_destroy(&fa);
	free(out);
	return pid;
}

int gpuiso_wait(pid_t pid, char **output)
{
	char *out = path_in_tmp("cli.out");
	int status;

	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status), "gpuiso died");
	*output = slurp(out);
	free(out);
	return WEXITSTATUS(status);
}
