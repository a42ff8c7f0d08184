/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench/stats.h"
#include "common/child.h"
#include "common/clock.h"
#include "core/scenario.h"
#include "replay/replay.h"
#include "suites.h"
#include "replay/cache.h"
#include "replay/ctf.h"
#include "replay/gen.h"
#include "replay/machine.h"

/*
 * The replay suite. One generated desktop trace of 1M events is decoded by
 * `babeltrace2 DIR -o dummy` and replayed by `gpuiso replay --no-cache`,
 * alternately, each as its own process; then replayed in this process from
 * CTF and from the compiled cache, with and without tracepoint calls; then
 * a 10M-event trace is replayed in a child process whose peak RSS is read,
 * from CTF and from the cache.
 *
 * The scenario is default.yaml with a 1 MiB frame-buffer save area: a
 * desktop trace's occasional power cycles would otherwise dominate the run
 * with 64 MiB saves, and this suite measures the replay, not the save path
 * (the micro suite measures that).
 */

#define ROUNDS 3

const char bench_replay_scenario[] =
	"system:\n"
	"  memory: 64GiB\n"
	"  os_memory_map: [{base: 0x0, size: 2GiB}, {base: 0x100000000, size: 62GiB}]\n"
	"  commit_limit: 48GiB\n"
	"  lockable_limit: 16GiB\n"
	"registry:\n"
	"  iommu_flags: 0x07\n"
	"adapters:\n"
	"  - name: gpu0\n"
	"    wddm: \"2.9\"\n"
	"    caps: {iommu_secure_mode: true, map_aperture2: true, dma_remapping_compatible: 3}\n"
	"    physical:\n"
	"      - {vram: 8GiB, fb_save_size: 1MiB, reserved: [{base: 0xC0000000, size: 16MiB}]}\n";

struct rig {
	char dir[64];
	char trace[128], trace10m[128], scenario[128], cache[128];
	char self[4096];
	struct scenario scn;
};

static int generate(const char *dir, uint64_t events)
{
	char err[256];
	struct gen *g;
	int rc = gen_create("desktop", events, 1, &g);

	if (rc)
		return rc;
	rc = ctf_write(dir, gen_next, g, err, sizeof(err));
	gen_destroy(g);
	return rc;
}

/*
 * Run @argv, its output to @out (NULL: nowhere); its wall time, and if asked
 * its CPU time. With @own_rss, it is started by a shell that forks it, not
 * exec'd from this process: a process's peak RSS (getrusage(), which a
 * replay's summary says) keeps that of the process it was exec'd from, so
 * a replay exec'd from here would report this process's as its own.
 */
static int spawn(char *const *argv, const char *out, bool own_rss, double *seconds, double *cpu_s)
{
	struct rusage ru;
	double t0 = clock_mono_s();
	pid_t self = getpid();
	int status;
	pid_t pid = child_fork_plain();

	if (pid < 0)
		return -errno;
	if (!pid) {
		/* a benchmark nobody waits for any more ends (the setting survives exec) */
		if (child_tie(self, NULL))
			_exit(126);
		if (!freopen(out ? out : "/dev/null", "w", stdout) ||
		    !freopen("/dev/null", "w", stderr))
			_exit(126);
		if (own_rss) {
			char *sh[16] = { "/bin/sh", "-c", "\"$0\" \"$@\"; exit $?" };
			size_t n = 0;

			while (argv[n] && n + 4 < sizeof(sh) / sizeof(sh[0])) {
				sh[3 + n] = argv[n];
				n++;
			}
			execv(sh[0], sh);
		} else {
			execvp(argv[0], argv);
		}
		_exit(127);
	}
	if (wait4(pid, &status, 0, &ru) != pid)
		return -errno;
	*seconds = clock_mono_s() - t0;
	if (cpu_s)
		*cpu_s = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
			 (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		return WIFEXITED(status) && WEXITSTATUS(status) == 127 ? -ECHILD : -EIO;
	return 0;
}

/* One replay in this process; its wall time. */
static int replay_once(struct rig *rig, bool cache, bool trace, double *seconds, bool *from_cache)
{
	struct replay_opts o = { .trace = rig->trace, .scn = &rig->scn, .cache = cache,
				 .cache_dir = rig->cache, .notrace = !trace };
	struct replay_report *rep = calloc(1, sizeof(*rep));
	struct results res;
	double t0 = clock_mono_s();
	int rc;

	if (!rep)
		return -ENOMEM;
	rc = replay_run(&o, &res, rep);
	*seconds = clock_mono_s() - t0;
	if (from_cache)
		*from_cache = rep->from_cache;
	if (!rc && (res.nviolations || rep->refused))
		rc = -ENOTRECOVERABLE; /* a benchmark of a failing replay measures nothing */
	results_fini(&res);
	free(rep);
	return rc;
}

static int rig_up(struct rig *rig)
{
	char err[1024];
	ssize_t n;
	FILE *f;
	int rc;

	snprintf(rig->dir, sizeof(rig->dir), "/tmp/gpuiso-bench-XXXXXX");
	if (!mkdtemp(rig->dir))
		return -errno;
	snprintf(rig->trace, sizeof(rig->trace), "%s/desktop-1m", rig->dir);
	snprintf(rig->trace10m, sizeof(rig->trace10m), "%s/desktop-10m", rig->dir);
	snprintf(rig->scenario, sizeof(rig->scenario), "%s/scenario.yaml", rig->dir);
	snprintf(rig->cache, sizeof(rig->cache), "%s/cache", rig->dir);
	n = readlink("/proc/self/exe", rig->self, sizeof(rig->self) - 1);
	if (n < 0)
		return -errno;
	rig->self[n] = '\0';
	f = fopen(rig->scenario, "w");
	if (!f)
		return -errno;
	fputs(bench_replay_scenario, f);
	fclose(f);
	rc = machine_load(rig->scenario, NULL, &rig->scn, err, sizeof(err));
	if (!rc)
		rc = generate(rig->trace, 1000000);
	return rc;
}

static void rig_down(struct rig *rig)
{
	char cmd[128];

	scenario_free(&rig->scn);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", rig->dir);
	if (system(cmd))
		fprintf(stderr, "bench: could not remove %s\n", rig->dir);
}

/*
 * gpuiso replay (a process) against babeltrace2's decoding (a process),
 * alternately, and `gpuiso trace info` (the same decoder child, its stream
 * read by a consumer that only counts events): wall and CPU time.
 */
static int bench_ctf_vs_bt2(struct bench_report *r, struct rig *rig)
{
	char *bt2[] = { "babeltrace2", rig->trace, "-o", "dummy", NULL };
	char *ours[] = { rig->self, "replay", rig->trace, "--pace", "asap", "--no-cache",
			 "--scenario", rig->scenario, NULL };
	char *info[] = { rig->self, "trace", "info", rig->trace, NULL };
	double t_bt2[ROUNDS], t_ours[ROUNDS], cpu_ours[ROUNDS], ratio[ROUNDS];
	double cpu_bt2[ROUNDS], cpu_ratio[ROUNDS], t_info[ROUNDS], cpu_info[ROUNDS];
	int rc = 0;

	for (int i = 0; !rc && i < ROUNDS; i++) {
		rc = spawn(bt2, NULL, false, &t_bt2[i], &cpu_bt2[i]);
		if (!rc)
			rc = spawn(ours, NULL, false, &t_ours[i], &cpu_ours[i]);
		if (!rc)
			rc = spawn(info, NULL, false, &t_info[i], &cpu_info[i]);
		if (rc)
			break;
		ratio[i] = t_ours[i] / t_bt2[i];
		cpu_ratio[i] = cpu_ours[i] / cpu_bt2[i];
	}
	if (rc)
		return rc;
	bench_add(r, "replay.bt2_decode_s", stats_median(t_bt2, ROUNDS), "s",
		  "babeltrace2 DIR -o dummy, 1M desktop events");
	bench_add(r, "replay.bt2_decode_cpu_s", stats_median(cpu_bt2, ROUNDS), "s", "its CPU time");
	bench_add(r, "replay.ctf_s", stats_median(t_ours, ROUNDS), "s",
		  "gpuiso replay --no-cache, same trace");
	bench_add(r, "replay.ctf_cpu_s", stats_median(cpu_ours, ROUNDS), "s",
		  "its CPU time and its decoder's (a child process)");
	bench_add(r, "replay.ctf_vs_bt2_ratio", stats_median(ratio, ROUNDS), "ratio",
		  "replay over decoding (target <= 1.2)");
	bench_add(r, "replay.ctf_cpu_vs_bt2_cpu", stats_median(cpu_ratio, ROUNDS), "ratio",
		  "the same in CPU time, per round");
	bench_add(r, "replay.decode_only_cpu_s", stats_median(cpu_info, ROUNDS), "s",
		  "gpuiso trace info: the decoder child, events only counted");
	return 0;
}

/*
 * Finding the trace's cache file by its files' identity (recorded by the
 * cached replays before: the trace was generated long enough ago), against
 * hashing its contents, which a cached replay did twice before issue 35
 * (for the key, and for the digest its run file records).
 */
static int bench_lookup(struct bench_report *r, struct rig *rig)
{
	enum { N = 9 };
	double t_find[N], t_hash[N], find_s, hash_s;
	struct cache_entry e;
	int rc = 0;

	for (int i = 0; !rc && i < N; i++) {
		double t0 = clock_mono_s();

		rc = cache_find(rig->cache, rig->trace, NULL, 0, &e);
		t_find[i] = clock_mono_s() - t0;
		if (!rc && !e.by_identity)
			rc = -ESTALE; /* the identity was not recorded */
		t0 = clock_mono_s();
		if (!rc)
			rc = cache_hash(rig->trace, NULL, 0, &e);
		t_hash[i] = clock_mono_s() - t0;
	}
	if (rc)
		return rc;
	find_s = stats_median(t_find, N);
	hash_s = stats_median(t_hash, N);
	bench_add(r, "replay.cache_lookup_ns", find_s * 1e9, "ns",
		  "finding the 1M trace's cache file by its files' identity");
	bench_add(r, "replay.cache_hash_ns", hash_s * 1e9, "ns", "hashing the 1M trace's contents");
	bench_add(r, "replay.cache_lookup_vs_hash", find_s / (2 * hash_s), "ratio",
		  "the lookup against hashing twice, as each cached replay did before issue 35");
	return 0;
}

/* From CTF and from the cache, in this process. */
static int bench_cache(struct bench_report *r, struct rig *rig)
{
	double t_ctf[ROUNDS], t_cache[ROUNDS], t_decode[ROUNDS], speedup[ROUNDS];
	struct cache_meta meta;
	char path[256];
	uint64_t key = 0;
	bool hit;
	int rc;

	rc = replay_once(rig, true, true, &t_ctf[0], &hit); /* builds the cache */
	if (!rc && hit)
		rc = -EEXIST;
	for (int i = 0; !rc && i < ROUNDS; i++) {
		rc = replay_once(rig, false, true, &t_ctf[i], NULL);
		if (!rc)
			rc = replay_once(rig, true, true, &t_cache[i], &hit);
		if (!rc && !hit)
			rc = -ESTALE;
		if (rc)
			break;
		speedup[i] = t_ctf[i] / t_cache[i];
	}
	if (!rc)
		rc = cache_key(rig->trace, NULL, 0, &key);
	if (!rc)
		rc = cache_path(rig->cache, key, path, sizeof(path));
	for (int i = 0; !rc && i < ROUNDS; i++) {
		double t0 = clock_mono_s();

		rc = cache_read(path, key, NULL, NULL, &meta);
		t_decode[i] = clock_mono_s() - t0;
	}
	if (rc)
		return rc;
	bench_add(r, "replay.cache_speedup", stats_median(speedup, ROUNDS), "ratio",
		  "replay from CTF over replay from the cache (target >= 5)");
	bench_add(r, "replay.cache_decode_meps", (double)meta.records / 1e6 / stats_median(t_decode, ROUNDS),
		  "Mevents/s", "decoded from the cache without executing (target >= 50)");
	bench_add(r, "replay.model_ns_per_event", stats_median(t_cache, ROUNDS) * 1e9 / (double)meta.events,
		  "ns", "a replay from the cache per event: the model's own pace");
	return bench_lookup(r, rig);
}

/* The same cached replay with and without the (disabled) tracepoint calls, alternately. */
static int bench_tracing(struct bench_report *r, struct rig *rig)
{
	enum { N = 5 };
	double on[N], off[N], lost[N];
	int rc = 0;

	for (int i = 0; !rc && i < N; i++) {
		rc = replay_once(rig, true, true, &on[i], NULL);
		if (!rc)
			rc = replay_once(rig, true, false, &off[i], NULL);
		if (rc)
			break;
		lost[i] = 1.0 - off[i] / on[i];
	}
	if (rc)
		return rc;
	bench_add(r, "replay.tracing_disabled_overhead", stats_median(lost, N), "ratio",
		  "throughput lost to disabled tracepoints (target <= 0.02)");
	return 0;
}

/*
 * The peak RSS of a replay and of its decoder, added, as its summary says
 * them ("memory: peak RSS R MiB, and D MiB in its trace decoder ..."): the
 * kernel's figure for the replay (wait4()) is only the larger of the two.
 * A replay from the cache runs no decoder (@decoder false): its line says
 * the replay's alone.
 */
static int summary_rss(const char *path, bool decoder, double *mib)
{
	double replay_mib = 0, decoder_mib = 0;
	int found = 0, want = decoder ? 2 : 1;
	char line[256];
	FILE *f = fopen(path, "r");

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f) && found < 1)
		found = sscanf(line, "memory: peak RSS %lf MiB, and %lf MiB in its trace decoder",
			       &replay_mib, &decoder_mib);
	fclose(f);
	if (found != want)
		return -ENOTRECOVERABLE;
	*mib = replay_mib + decoder_mib;
	return 0;
}

/*
 * Peak RSS of a child replaying 10M events, and of its decoder; then of one
 * replaying them from the cache (a first replay with the cache fills it).
 */
static int bench_rss(struct bench_report *r, struct rig *rig)
{
	char *ours[] = { rig->self, "replay", rig->trace10m, "--no-cache", "--scenario",
			 rig->scenario, NULL };
	char *cached[] = { rig->self, "replay", rig->trace10m, "--cache-dir", rig->cache,
			   "--scenario", rig->scenario, NULL };
	char summary[192];
	double seconds, cached_s, mib = 0, cached_mib = 0;
	int rc;

	snprintf(summary, sizeof(summary), "%s/summary-10m.txt", rig->dir);
	rc = generate(rig->trace10m, 10000000);
	if (!rc)
		rc = spawn(ours, summary, true, &seconds, NULL);
	if (!rc)
		rc = summary_rss(summary, true, &mib);
	if (!rc)
		rc = spawn(cached, summary, true, &cached_s, NULL);
	if (!rc)
		rc = spawn(cached, summary, true, &cached_s, NULL);
	if (!rc)
		rc = summary_rss(summary, false, &cached_mib);
	if (rc)
		return rc;
	bench_add(r, "replay.rss_10m_mib", mib, "MiB",
		  "peak RSS replaying 10M events, replay and decoder added (target <= 64)");
	bench_add(r, "replay.10m_s", seconds, "s", "wall time of that replay");
	bench_add(r, "replay.rss_10m_cached_mib", cached_mib, "MiB",
		  "peak RSS replaying the 10M events from the cache (target <= 64)");
	bench_add(r, "replay.10m_cached_s", cached_s, "s", "wall time of that replay");
	return 0;
}

int bench_suite_replay(struct bench_report *r)
{
	struct rig rig = { 0 };
	int rc;

	bench_progress(r, "replay: generating a 1M-event desktop trace");
	rc = rig_up(&rig);
	if (!rc) {
		bench_progress(r, "replay: gpuiso replay against babeltrace2 decoding");
		rc = bench_ctf_vs_bt2(r, &rig);
	}
	if (!rc) {
		bench_progress(r, "replay: from CTF and from the compiled cache");
		rc = bench_cache(r, &rig);
	}
	if (!rc) {
		bench_progress(r, "replay: with and without tracepoint calls");
		rc = bench_tracing(r, &rig);
	}
	if (!rc) {
		bench_progress(r, "replay: peak memory of a 10M-event replay");
		rc = bench_rss(r, &rig);
	}
	rig_down(&rig);
	return rc;
}
