/* SPDX-License-Identifier: MIT */
/*
 * Fail-nth sweeps: hits match an independent count, every hit gets exactly
 * one outcome, forking at each hit agrees with rerunning from scratch, each
 * reproducer gives the outcome the sweep recorded, a killed run is a crash
 * that does not stop the sweep, a stopped one is found and killed as hung,
 * no run outlives a killed sweep, and bad input is refused with a message.
 */
#include <criterion/criterion.h>
#include <limits.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/child.h"
#include "common/json.h"
#include "common/snap.h"
#include "core/scenario.h"
#include "faults/campaign/shard.h"
#include "faults/campaign/sweep.h"
#include "replay/ctf.h"
#include "replay/gen.h"
#include "replay/replay.h"
#include "tests/common/jsonq.h"
#include "tests/faults/campaign/procs.h"

extern char **environ;

static char tmp[] = "/tmp/gpuiso-sweep-XXXXXX";

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

static void setup(void)
{
	cr_assert_not_null(mkdtemp(tmp), "mkdtemp: %s", strerror(errno));
}

static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmp);
	cr_assert_eq(system(cmd), 0);
}

TestSuite(sweep, .init = setup, .fini = teardown, .timeout = 240);

static char *path_in_tmp(const char *name)
{
	char *p = NULL;

	cr_assert(asprintf(&p, "%s/%s", tmp, name) > 0);
	return p;
}

/* tmp/@name-@what */
static char *in_tmp_of(const char *name, const char *what)
{
	char *p = NULL;

	cr_assert(asprintf(&p, "%s/%s-%s", tmp, name, what) > 0);
	return p;
}

/* A power-cycle trace of @events events into tmp/@name (what `trace gen` writes). */
static char *trace_gen(const char *name, uint64_t events, uint64_t seed)
{
	char *dir = path_in_tmp(name), err[256] = "";
	struct gen *g;

	cr_assert_eq(gen_create("power-cycle", events, seed, &g), 0);
	cr_assert_eq(ctf_write(dir, gen_next, g, err, sizeof(err)), 0, "%s", err);
	gen_destroy(g);
	return dir;
}

static char *scenario_write(const char *name, const char *save)
{
	char *path = path_in_tmp(name);
	FILE *f = fopen(path, "w");

	cr_assert_not_null(f);
	fprintf(f, scenario_fmt, save, save, save);
	cr_assert_eq(fclose(f), 0);
	return path;
}

/* @doc with every mention of the output folder @out as "OUT": sweeps into two folders compare. */
static char *without_out(const char *doc, const char *out)
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

static char *slurp(const char *path)
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

/* The hits of every point in a plain replay: nothing armed, nothing observed. */
static void count_hits(const char *trace, const char *scn_path, uint64_t hits[FP_NPOINTS])
{
	struct replay_report *rep = calloc(1, sizeof(*rep));
	struct fp_ctx fp = { 0 };
	struct scenario scn;
	struct replay_opts o = { .trace = trace, .scn = &scn, .cache = true, .fp = &fp };
	struct results res;
	char err[1024] = "";

	cr_assert_not_null(rep);
	cr_assert_eq(scenario_load(scn_path, &scn, err, sizeof(err)), 0, "%s", err);

	cr_assert_eq(replay_run(&o, &res, rep), 0, "%s", rep->error);
	memcpy(hits, fp.hits, sizeof(fp.hits));
	results_fini(&res);
	scenario_free(&scn);
	free(rep);
}

/* How a sweep's runs are done: the default (persistent workers where they can be had), ... */
enum mode { PERSIST, FORK, SCRATCH };

static char *sweep_progress(const char *trace, const char *scn, const char *points, enum mode m,
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

static char *sweep(const char *trace, const char *scn, const char *points, enum mode m,
		   const char *out, struct sweep_totals *t)
{
	return sweep_progress(trace, scn, points, m, out, t, NULL);
}

static uint64_t get_u64(const char *doc, const char *fmt, const char *a)
{
	char path[256], val[64];

	snprintf(path, sizeof(path), fmt, a);
	cr_assert(jsonq_get(doc, path, val, sizeof(val)), "no %s", path);
	return strtoull(val, NULL, 10);
}

/*
 * The summary is valid, lists exactly the points @glob selects, each with the
 * independently counted hits and one outcome per hit; failures[] lists every
 * run that did not recover. Return: how many failures.
 */
static size_t check_summary(const char *doc, const char *glob, const uint64_t hits[FP_NPOINTS],
			    const struct sweep_totals *t)
{
	static const char *const outcomes[] = { "recovered", "reset", "violation", "crash", "hung" };
	uint64_t not_recovered = 0, total = 0, sum[5] = { 0 };
	char path[128], val[2048];
	size_t n;

	cr_assert(jsonq_valid(doc), "%s", doc);
	cr_assert(jsonq_get(doc, "schema", val, sizeof(val)));
	cr_assert_str_eq(val, "gpuiso-sweep/1");
	for (int p = 0; p < FP_NPOINTS; p++) {
		const char *name = fp_point_name((enum fp_point)p);
		uint64_t all = 0;

		snprintf(path, sizeof(path), "points.%s", name);
		if (!fp_point_match(glob, (enum fp_point)p)) {
			cr_assert_not(jsonq_get(doc, path, val, sizeof(val)), "%s is listed", name);
			continue;
		}
		cr_assert_eq(get_u64(doc, "points.%s.hits", name), hits[p], "%s", name);
		for (int oc = 0; oc < 5; oc++) {
			snprintf(path, sizeof(path), "points.%%s.%s", outcomes[oc]);
			uint64_t v = get_u64(doc, path, name);

			all += v;
			sum[oc] += v;
			not_recovered += oc ? v : 0;
		}
		cr_assert_eq(all, hits[p], "%s: %llu outcomes for %llu hits", name,
			     (unsigned long long)all, (unsigned long long)hits[p]);
		total += hits[p];
	}
	cr_assert_eq(t->hits, total);
	cr_assert_eq(t->runs, total);
	cr_assert_eq(t->recovered, sum[0]);
	cr_assert_eq(t->reset, sum[1]);
	cr_assert_eq(t->violation, sum[2]);
	cr_assert_eq(t->crash, sum[3]);
	cr_assert_eq(t->hung, sum[4]);
	for (n = 0;; n++) {
		snprintf(path, sizeof(path), "failures.%zu.outcome", n);
		if (!jsonq_get(doc, path, val, sizeof(val)))
			break;
		cr_assert(strcmp(val, "recovered"), "a recovered run is listed");
		snprintf(path, sizeof(path), "failures.%zu.reproduce", n);
		cr_assert(jsonq_get(doc, path, val, sizeof(val)));
		cr_assert(!strncmp(val, "gpuiso replay ", 14) && strstr(val, " --fail-nth "), "%s", val);
	}
	cr_assert_eq(n, not_recovered);
	return n;
}

/* jsonq_get() gives a string's JSON text: undo its escapes in place. */
static void text_unescape(char *s)
{
	char *bytes;

	cr_assert_eq(json_unescape(s, strlen(s), &bytes), 0, "%s", s);
	strcpy(s, bytes); /* never longer than its escapes */
	free(bytes);
}

/* Run a failure's reproducer with GPUISO_BIN; it must end as the sweep said. */
static void check_reproducer(const char *doc, size_t i)
{
	const char *bin = getenv("GPUISO_BIN");
	char path[64], outcome[32], repro[2048], cmd[4096], line[512];
	bool reset_seen = false;
	unsigned long long resets;
	FILE *p;
	int status;

	cr_assert_not_null(bin, "GPUISO_BIN must be set");
	snprintf(path, sizeof(path), "failures.%zu.outcome", i);
	cr_assert(jsonq_get(doc, path, outcome, sizeof(outcome)));
	snprintf(path, sizeof(path), "failures.%zu.reproduce", i);
	cr_assert(jsonq_get(doc, path, repro, sizeof(repro)));
	text_unescape(repro);
	/* a sweep of gpuiso names the binary; one of the library, gpuiso */
	if (!strncmp(repro, "gpuiso ", 7)) {
		snprintf(cmd, sizeof(cmd), "%s%s 2>&1", bin, repro + strlen("gpuiso"));
	} else {
		char abs[PATH_MAX];

		cr_assert_not_null(realpath(bin, abs));
		cr_assert_eq(strncmp(repro, abs, strlen(abs)), 0, "%s names %s", repro, abs);
		snprintf(cmd, sizeof(cmd), "%s 2>&1", repro);
	}
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	while (fgets(line, sizeof(line), p))
		if (sscanf(line, "power: %*u transitions, %*u completed (%*u pinned, %*u chunked), %llu reset",
			   &resets) == 1)
			reset_seen = resets > 0;
	status = pclose(p);
	cr_assert(WIFEXITED(status), "%s: died", repro);
	if (!strcmp(outcome, "violation")) {
		cr_assert_eq(WEXITSTATUS(status), 1, "%s: exit %d", repro, WEXITSTATUS(status));
	} else {
		cr_assert_str_eq(outcome, "reset", "%s", repro);
		cr_assert_eq(WEXITSTATUS(status), 0, "%s: exit %d", repro, WEXITSTATUS(status));
		cr_assert(reset_seen, "%s: no adapter reset", repro);
	}
}

/* Whether the progress lines in @f say @what. */
static bool progress_says(FILE *f, const char *what)
{
	char line[512];
	bool said = false;

	rewind(f);
	while (fgets(line, sizeof(line), f))
		said |= strstr(line, what) != NULL;
	return said;
}

/*
 * The default mode runs in persistent workers wherever snapshots can be
 * had (common/snap.h: a kernel with userfaultfd asynchronous write-protect
 * and PAGEMAP_SCAN, not a sanitizer build), and says why it forks where
 * they cannot. Return: whether it ran persistent.
 */
static bool check_persistent_said(FILE *progress)
{
	char why[512];
	bool can = snap_probe(why, sizeof(why)) == 0;

	if (can)
		cr_assert(progress_says(progress, "(in persistent workers)"),
			  "snapshots can be had here, but the sweep did not use them");
	else
		cr_assert(progress_says(progress, "persistent workers are not available here"),
			  "the sweep did not say why it forked (%s)", why);
	return can;
}

/* Summaries of two sweeps into @a and @b, the same once their folders are left out. */
static void assert_same(const char *adoc, const char *a, const char *bdoc, const char *b,
			const char *what)
{
	char *f = without_out(adoc, a), *g = without_out(bdoc, b);

	cr_assert_str_eq(f, g, "%s", what);
	free(f);
	free(g);
}

static bool recorded(void)
{
	return true;
}

/*
 * While gpuiso's tracepoints are recorded a child is traced with LTTng-UST's
 * threads of its own, which snapshots refuse: the sweep must see it before
 * it forks a worker (sweep_persist_available()), from child_fork_traced().
 */
Test(sweep, a_recorded_process_forks_traced_children)
{
	child_fork_set_traced(recorded);
	cr_assert(child_fork_traced(), "the tracepoints are recorded, and LTTng-UST is linked");
	child_fork_set_traced(NULL);
	cr_assert_not(child_fork_traced());
}

Test(sweep, fbsave_points_match_the_count_in_every_mode)
{
	char *trace = trace_gen("pc300", 300, 3), *scn = scenario_write("small.yaml", "1MiB");
	char *per_out = path_in_tmp("persist"), *fork_out = path_in_tmp("fork");
	char *scratch_out = path_in_tmp("scratch"), *nocache_out = path_in_tmp("nocache");
	struct sweep_totals tp, tf, ts, tn;
	uint64_t hits[FP_NPOINTS];
	char *ps, *fs, *ss, *ns, *pdoc, *fdoc, *sdoc, *ndoc;
	FILE *progress = tmpfile();

	cr_assert_not_null(progress);
	count_hits(trace, scn, hits);
	cr_assert_gt(hits[FP_FBSAVE_PIN], 0, "the trace has no power transitions");
	ps = sweep_progress(trace, scn, "fbsave/*", PERSIST, per_out, &tp, progress);
	check_persistent_said(progress);
	fclose(progress);
	fs = sweep(trace, scn, "fbsave/*", FORK, fork_out, &tf);
	ss = sweep(trace, scn, "fbsave/*", SCRATCH, scratch_out, &ts);
	pdoc = slurp(ps);
	fdoc = slurp(fs);
	sdoc = slurp(ss);
	check_summary(pdoc, "fbsave/*", hits, &tp);
	check_summary(fdoc, "fbsave/*", hits, &tf);
	check_summary(sdoc, "fbsave/*", hits, &ts);
	assert_same(pdoc, per_out, sdoc, scratch_out, "persistent and from-scratch sweeps differ");
	assert_same(fdoc, fork_out, sdoc, scratch_out, "fork and from-scratch sweeps differ");

	/* no replay cache (its folder cannot be made): the sweep must not branch, and agree */
	progress = tmpfile();
	cr_assert_not_null(progress);
	cr_assert_eq(setenv("XDG_CACHE_HOME", scn, 1), 0); /* a file, not a folder */
	ns = sweep_progress(trace, scn, "fbsave/*", PERSIST, nocache_out, &tn, progress);
	ndoc = slurp(ns);
	assert_same(ndoc, nocache_out, sdoc, scratch_out, "a sweep without the cache differs");
	cr_assert(progress_says(progress, "from scratch instead of forking"),
		  "the sweep branched without a replay cache");
	fclose(progress);
	free(ndoc);
	free(sdoc);
	free(fdoc);
	free(pdoc);
	free(ns);
	free(ss);
	free(fs);
	free(ps);
	free(nocache_out);
	free(scratch_out);
	free(fork_out);
	free(per_out);
	free(scn);
	free(trace);
}

Test(sweep, all_points_agree_and_every_reproducer_reproduces)
{
	/* a name the reproducer must quote for the shell */
	char *trace = trace_gen("pc 100 'q'", 100, 3), *scn = scenario_write("tiny.yaml", "64KiB");
	char *per_out = path_in_tmp("persist"), *fork_out = path_in_tmp("fork");
	char *scratch_out = path_in_tmp("scratch");
	struct sweep_totals tp, tf, ts;
	uint64_t hits[FP_NPOINTS];
	char *ps, *fs, *ss, *pdoc, *fdoc, *sdoc;
	size_t nfail;

	count_hits(trace, scn, hits);
	ps = sweep(trace, scn, NULL, PERSIST, per_out, &tp);
	fs = sweep(trace, scn, NULL, FORK, fork_out, &tf);
	ss = sweep(trace, scn, NULL, SCRATCH, scratch_out, &ts);
	pdoc = slurp(ps);
	fdoc = slurp(fs);
	sdoc = slurp(ss);
	nfail = check_summary(pdoc, "*", hits, &tp);
	check_summary(fdoc, "*", hits, &tf);
	check_summary(sdoc, "*", hits, &ts);
	assert_same(pdoc, per_out, sdoc, scratch_out, "persistent and from-scratch sweeps differ");
	assert_same(fdoc, fork_out, sdoc, scratch_out, "fork and from-scratch sweeps differ");
	/* branched runs stop where they meet the unfailed run, and still end as full runs do */
	for (int i = 0; i < 2; i++) {
		const struct sweep_totals *t = i ? &tf : &tp;

		cr_assert_gt(t->met, 0, "no branched run met the unfailed run");
		cr_assert_lt(t->met, t->runs);
		/* ... or where they meet an earlier run, whose outcome they take */
		cr_assert_gt(t->followed, 0, "no branched run met an earlier one");
		cr_assert_lt(t->met + t->followed, t->runs);
	}
	cr_assert_eq(ts.met, 0, "a from-scratch run stopped early");
	cr_assert_eq(ts.followed, 0, "a from-scratch run followed another");
	/* this trace is known to break the model at some hits: the checks below must see some */
	cr_assert_gt(tp.violation, 0);
	cr_assert_gt(tp.reset, 0);
	for (size_t i = 0; i < nfail; i++)
		check_reproducer(pdoc, i);
	free(pdoc);
	free(fdoc);
	free(sdoc);
	free(ps);
	free(fs);
	free(ss);
	free(per_out);
	free(fork_out);
	free(scratch_out);
	free(scn);
	free(trace);
}

/* Start `gpuiso ARGS` (NULL-terminated) with its output into tmp/cli.out. */
static pid_t gpuiso_spawn(const char *const *args)
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

static int gpuiso_wait(pid_t pid, char **output)
{
	char *out = path_in_tmp("cli.out");
	int status;

	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status), "gpuiso died");
	*output = slurp(out);
	free(out);
	return WEXITSTATUS(status);
}

#define GPUISO(out, ...) gpuiso_wait(gpuiso_spawn((const char *const[]){ __VA_ARGS__, NULL }), out)

static char proc_state(pid_t pid)
{
	char path[64], state = '?';
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return '?';
	/* "pid (comm) state ...": comm has no ')' here (it is gpuiso) */
	if (fscanf(f, "%*d (%*[^)]) %c", &state) != 1)
		state = '?';
	fclose(f);
	return state;
}

/* Whether @pid is a sweep's run (it names itself so), not another child such as a trial parse. */
static bool is_sweep_run(int pid)
{
	char path[64], comm[32] = "";
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	f = fopen(path, "r");
	if (f) {
		if (!fgets(comm, sizeof(comm), f))
			comm[0] = '\0';
		fclose(f);
	}
	return !strncmp(comm, "sweep-run", 9);
}

/*
 * Stop a running child of @pid (a sweep's run) and return it, or 0 when none
 * runs now. Stopping first makes sure it is alive: a kill that found a zombie
 * would do nothing. A persistent worker names itself sweep-run while in a
 * run: one stopped just as its run ended is let go again.
 */
static pid_t stop_a_child(pid_t pid)
{
	char path[64];
	FILE *f;
	int child;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)pid, (int)pid);
	f = fopen(path, "r");
	cr_assert_not_null(f, "%s: %s", path, strerror(errno));
	while (fscanf(f, "%d", &child) == 1) {
		if (proc_state(child) == 'Z' || !is_sweep_run(child) || kill(child, SIGSTOP))
			continue;
		for (int i = 0; i < 1000; i++) {
			char st = proc_state(child);

			if ((st == 'T' || st == 't') && !is_sweep_run(child)) {
				kill(child, SIGCONT);
				break;
			}
			if (st == 'T' || st == 't') {
				fclose(f);
				return child;
			}
			if (st == 'Z' || st == '?')
				break;
			usleep(100);
		}
	}
	fclose(f);
	return 0;
}

/*
 * Kill a run of a sweep (with @mode: --fork, or NULL for the default, in
 * persistent workers where it can): it is a crash, and the other runs go
 * on (in a persistent worker: those of the worker killed, in a fresh one).
 */
static void a_killed_run_is_a_crash(const char *mode, const char *name)
{
	/* bigger save areas: each run (failing one pinning) lasts long enough to be caught */
	char *trace = trace_gen(name, 300, 3), *scn = scenario_write("slow.yaml", "8MiB");
	char *out = in_tmp_of(name, "crash"), *summary = in_tmp_of(name, "crash/summary.json");
	const struct timespec tick = { 0, 200000 };
	char *log, *doc, val[2048];
	pid_t pid, child = 0;
	uint64_t hits;
	int status;

	pid = gpuiso_spawn((const char *const[]){ "sweep", trace, "--scenario", scn, "--points",
						  "fbsave/pin", "-o", out, "--jobs", "2", mode, NULL });
	for (int i = 0; i < 300000 && !child; i++) {
		child = stop_a_child(pid);
		if (!child)
			nanosleep(&tick, NULL);
	}
	cr_assert_neq(child, 0, "the sweep never forked a run");
	cr_assert_eq(kill(child, SIGKILL), 0);
	status = gpuiso_wait(pid, &log);
	cr_assert_eq(status, 1, "exit %d: %s", status, log);
	cr_assert(strstr(log, " 1 crash"), "%s", log);
	doc = slurp(summary);
	cr_assert(jsonq_valid(doc));
	hits = get_u64(doc, "points.%s.hits", "fbsave/pin");
	cr_assert_gt(hits, 1);
	cr_assert_eq(get_u64(doc, "points.%s.crash", "fbsave/pin"), 1);
	/* the other runs went on */
	cr_assert_eq(get_u64(doc, "points.%s.recovered", "fbsave/pin"), hits - 1);
	cr_assert(jsonq_get(doc, "failures.0.outcome", val, sizeof(val)));
	cr_assert_str_eq(val, "crash");
	cr_assert_not(jsonq_get(doc, "failures.1.outcome", val, sizeof(val)));
	cr_assert(jsonq_get(doc, "failures.0.reproduce", val, sizeof(val)));
	cr_assert(strstr(val, "--fail-nth fbsave/pin:"), "%s", val);
	free(doc);
	free(log);
	free(summary);
	free(out);
	free(scn);
	free(trace);
}

Test(sweep, a_killed_run_is_a_crash_and_the_sweep_goes_on)
{
	a_killed_run_is_a_crash(NULL, "pc300");
	a_killed_run_is_a_crash("--fork", "pc300-fork");
}

/* Stop a run of sweep @pid within 60 s (see stop_a_child()). */
static pid_t stop_a_run(pid_t pid)
{
	const struct timespec tick = { 0, 200000 };
	pid_t child = 0;

	for (int i = 0; i < 300000 && !child; i++) {
		child = stop_a_child(pid);
		if (!child)
			nanosleep(&tick, NULL);
	}
	if (!child)
		kill(pid, SIGKILL);
	cr_assert_neq(child, 0, "the sweep never forked a run");
	return child;
}

/*
 * A run stopped by SIGSTOP makes no progress, as one deadlocked would, and
 * nothing but the sweep's watchdog ends it: with --stall-timeout 1 it is
 * killed, counted as hung (not as a crash), listed with its reproducer, and
 * the sweep goes on.
 */
/* A run of a sweep with @mode (as a_killed_run_is_a_crash()) stopped: it is hung. */
static void a_stopped_run_is_hung(const char *mode, const char *name)
{
	char *trace = trace_gen(name, 300, 3), *scn = scenario_write("slow.yaml", "8MiB");
	char *out = in_tmp_of(name, "hung"), *summary = in_tmp_of(name, "hung/summary.json");
	char *cli = path_in_tmp("cli.out"), *log, *doc, val[2048];
	pid_t pid, child;
	uint64_t hits;
	int status;

	pid = gpuiso_spawn((const char *const[]){ "sweep", trace, "--scenario", scn, "--points",
						  "fbsave/pin", "-o", out, "--jobs", "2",
						  "--stall-timeout", "1", mode, NULL });
	child = stop_a_run(pid);
	if (!procs_wait(pid, 30000, &status)) {
		kill(child, SIGKILL);
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		cr_assert_fail("the sweep still waits for its stopped run after 30 s");
	}
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 1, "status %#x", status);
	cr_assert_not(procs_alive(child), "the stopped run %d is still there", (int)child);
	log = slurp(cli);
	cr_assert(strstr(log, " 0 crash, 1 hung"), "%s", log);
	doc = slurp(summary);
	cr_assert(jsonq_valid(doc));
	hits = get_u64(doc, "points.%s.hits", "fbsave/pin");
	cr_assert_gt(hits, 1);
	cr_assert_eq(get_u64(doc, "points.%s.hung", "fbsave/pin"), 1);
	cr_assert_eq(get_u64(doc, "points.%s.crash", "fbsave/pin"), 0);
	cr_assert_eq(get_u64(doc, "points.%s.recovered", "fbsave/pin"), hits - 1);
	cr_assert(jsonq_get(doc, "failures.0.outcome", val, sizeof(val)));
	cr_assert_str_eq(val, "hung");
	cr_assert(jsonq_get(doc, "failures.0.reproduce", val, sizeof(val)));
	cr_assert(strstr(val, "--fail-nth fbsave/pin:"), "%s", val);
	free(doc);
	free(log);
	free(cli);
	free(summary);
	free(out);
	free(scn);
	free(trace);
}

Test(sweep, a_stopped_run_is_killed_as_hung_and_the_sweep_goes_on)
{
	a_stopped_run_is_hung(NULL, "pc300");
	a_stopped_run_is_hung("--fork", "pc300-fork");
}

/*
 * A sweep killed (SIGKILL) while one of its runs is stopped takes that run
 * with it. This process is a child subreaper: the orphan becomes its child,
 * and how it ended can be seen.
 */
Test(sweep, killing_the_sweep_leaves_no_run_behind)
{
	char *trace = trace_gen("pc300", 300, 3), *scn = scenario_write("slow.yaml", "8MiB");
	char *out = path_in_tmp("killed");
	pid_t pid, child;
	int status;

	cr_assert_eq(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
	pid = gpuiso_spawn((const char *const[]){ "sweep", trace, "--scenario", scn, "--points",
						  "fbsave/pin", "-o", out, "--jobs", "2", NULL });
	child = stop_a_run(pid);
	cr_assert_eq(kill(pid, SIGKILL), 0);
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	if (!procs_wait(child, 5000, &status)) {
		kill(child, SIGKILL); /* not left behind by a failing test either */
		waitpid(child, &status, 0);
		cr_assert_fail("run %d outlived its sweep by 5 s", (int)child);
	}
	cr_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL, "status %#x", status);
	free(out);
	free(scn);
	free(trace);
}

Test(sweep, cli_exit_codes)
{
	char *trace = trace_gen("pc100", 100, 3), *scn = scenario_write("tiny.yaml", "64KiB");
	char *out = path_in_tmp("cli"), *log;
	int status;

	/* every fbsave/pin failure recovers (chunks); failing iommu/unmap breaks invariants */
	status = GPUISO(&log, "sweep", trace, "--scenario", scn, "--points", "fbsave/*", "-o", out);
	cr_assert_eq(status, 0, "exit %d: %s", status, log);
	cr_assert(strstr(log, "sweep: "), "%s", log);
	free(log);
	status = GPUISO(&log, "sweep", trace, "--scenario", scn, "--points", "iommu/unmap", "-o", out,
			"--jobs", "3");
	cr_assert_eq(status, 1, "exit %d: %s", status, log);
	cr_assert(strstr(log, " violation"), "%s", log);
	free(log);
	status = GPUISO(&log, "sweep", "/nonexistent/trace", "-o", out);
	cr_assert_eq(status, 2, "exit %d: %s", status, log);
	cr_assert(strstr(log, "/nonexistent/trace"), "%s", log);
	free(log);
	status = GPUISO(&log, "sweep", trace, "--points", "nosuch/*", "-o", out);
	cr_assert_eq(status, 2, "exit %d: %s", status, log);
	cr_assert(strstr(log, "nosuch/*"), "%s", log);
	free(log);
	free(out);
	free(scn);
	free(trace);
}

static int script_next(void *ctx, struct wl_event *e)
{
	static const uint64_t ids[] = { 1, 2 };
	size_t *at = ctx;

	if (*at == sizeof(ids) / sizeof(ids[0]))
		return 0;
	*e = (struct wl_event){ .ts = 1000 * (*at + 1), .kind = WL_ALLOC_MDL,
				.v = { [WL_ID] = ids[*at], [WL_BYTES] = 4096 } };
	++*at;
	return 1;
}

/*
 * A trace that never frees its two MDLs: a window by default (nothing found,
 * whatever fails), leaks with --trace-covers life, which every reproducer
 * then says too.
 */
Test(sweep, trace_covers_reaches_every_run_and_reproducer)
{
	char *trace = path_in_tmp("leaky"), *out = path_in_tmp("life"), *doc, *summary, *log;
	char err[256] = "", val[64];
	struct sweep_opts o = { .trace = trace, .points = "mem/alloc_mdl", .jobs = 1 };
	struct sweep_totals t;
	uint64_t runs;
	size_t at = 0;
	int status;

	cr_assert_eq(ctf_write(trace, script_next, &at, err, sizeof(err)), 0, "%s", err);
	o.out = path_in_tmp("window");
	cr_assert_eq(sweep_run(&o, &t, err, sizeof(err)), 0, "%s", err);
	cr_assert_geq(t.runs, 2, "each allocation of the trace is a hit");
	cr_assert_eq(t.violation, 0, "a window's leftovers are no finding");
	runs = t.runs;
	cr_assert_eq(asprintf(&summary, "%s/summary.json", o.out) > 0, true);
	doc = slurp(summary);
	cr_assert(jsonq_get(doc, "trace_covers", val, sizeof(val)));
	cr_assert_str_eq(val, "window");
	cr_assert(jsonq_get(doc, "baseline", val, sizeof(val)));
	cr_assert_str_eq(val, "recovered");
	free(doc);
	free(summary);
	free((char *)o.out);

	o.out = out;
	o.covers = COVERS_LIFE;
	cr_assert_eq(sweep_run(&o, &t, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(t.runs, runs);
	cr_assert_geq(t.violation, 2, "the other MDL leaks whichever of the trace's allocations fails");
	cr_assert_eq(asprintf(&summary, "%s/summary.json", out) > 0, true);
	doc = slurp(summary);
	cr_assert(jsonq_get(doc, "trace_covers", val, sizeof(val)));
	cr_assert_str_eq(val, "life");
	cr_assert(jsonq_get(doc, "baseline", val, sizeof(val)));
	cr_assert_str_eq(val, "violation");
	for (size_t i = 0; i < t.violation; i++) {
		char path[64], repro[2048];

		snprintf(path, sizeof(path), "failures.%zu.reproduce", i);
		cr_assert(jsonq_get(doc, path, repro, sizeof(repro)), "%s", path);
		cr_assert(strstr(repro, " --trace-covers life "), "%s", repro);
		check_reproducer(doc, i);
	}
	free(doc);
	free(summary);

	status = GPUISO(&log, "sweep", trace, "--trace-covers", "all", "-o", out);
	cr_assert_eq(status, 2, "exit %d: %s", status, log);
	cr_assert(strstr(log, "--trace-covers takes window or life, not 'all'"), "%s", log);
	free(log);
	status = GPUISO(&log, "sweep", trace, "--points", "mem/alloc_mdl", "--trace-covers", "life",
			"-o", out);
	cr_assert_eq(status, 1, "exit %d: %s", status, log);
	free(log);
	free(out);
	free(trace);
}

Test(sweep, bad_input_is_refused_with_a_message)
{
	char *trace = trace_gen("pc100", 100, 3), *out = path_in_tmp("bad");
	char *missing = path_in_tmp("no-such-trace"), *scn = path_in_tmp("no-such.yaml");
	struct sweep_opts o = { .trace = missing, .out = out, .jobs = 1 };
	struct sweep_totals t;
	char err[1024] = "";
	int rc;

	rc = sweep_run(&o, &t, err, sizeof(err));
	cr_assert(rc == -EINVAL || rc == -ENOENT, "rc %d", rc);
	cr_assert(strstr(err, missing), "%s", err);

	o.trace = trace;
	o.points = "iommu/nothing*";
	err[0] = '\0';
	cr_assert_eq(sweep_run(&o, &t, err, sizeof(err)), -EINVAL);
	cr_assert(strstr(err, "iommu/nothing*") && strstr(err, "matches no"), "%s", err);

	o.points = NULL;
	o.scenario = scn;
	err[0] = '\0';
	cr_assert_eq(sweep_run(&o, &t, err, sizeof(err)), -EINVAL);
	cr_assert(strstr(err, "no-such.yaml"), "%s", err);

	o.scenario = NULL;
	o.jobs = 0;
	err[0] = '\0';
	cr_assert_eq(sweep_run(&o, &t, err, sizeof(err)), -EINVAL);
	cr_assert(*err);
	free(scn);
	free(missing);
	free(out);
	free(trace);
}

/* Run a reproduce command (gpuiso replay …): its exit status and whether its output says @what. */
static int run_reproducer(const char *repro, const char *what, bool *said)
{
	const char *bin = getenv("GPUISO_BIN");
	char cmd[8192], line[1024];
	FILE *p;
	int status;

	cr_assert_not_null(bin, "GPUISO_BIN must be set");
	snprintf(cmd, sizeof(cmd), "%s%s 2>&1", bin, repro + strlen("gpuiso"));
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	*said = false;
	while (fgets(line, sizeof(line), p))
		*said |= strstr(line, what) != NULL;
	status = pclose(p);
	cr_assert(WIFEXITED(status), "%s: died", repro);
	return WEXITSTATUS(status);
}

/*
 * Thousands of failing runs, a handful of findings: each titled with its
 * code, its runs adding up to the failures, and a reproducer on a trimmed
 * trace of at most 1% of the events that breaks the same way.
 */
Test(sweep, failing_runs_are_findings_with_trimmed_reproducers)
{
	const char *root = getenv("GPUISO_SOURCE_ROOT");
	char *trace = trace_gen("pc2000", 2000, 1), *out = path_in_tmp("findings"), *scn, *fs, *doc;
	char path[96], val[4096], title[512], code[64], outcome[32];
	uint64_t runs = 0, failures = 0;
	struct sweep_totals t;
	size_t i;

	cr_assert_not_null(root, "GPUISO_SOURCE_ROOT must be set");
	cr_assert(asprintf(&scn, "%s/traces/scenarios/lda-chain.yaml", root) > 0);
	fs = sweep(trace, scn, NULL, PERSIST, out, &t);
	doc = slurp(fs);
	cr_assert(jsonq_valid(doc));
	for (; snprintf(path, sizeof(path), "failures.%llu.point", (unsigned long long)failures),
	       jsonq_get(doc, path, val, sizeof(val)); failures++)
		;
	cr_assert_eq(failures, t.reset + t.violation + t.crash + t.hung);
	cr_assert_gt(failures, 200, "the trace is known to fail hundreds of runs");
	cr_assert(t.findings >= 2 && t.findings <= 12, "%zu findings", t.findings);
	for (i = 0; snprintf(path, sizeof(path), "findings.%zu.title", i),
		    jsonq_get(doc, path, title, sizeof(title)); i++) {
		char repro[4096], trimmed[4096], blame[16];
		uint64_t events, of;
		bool said;
		int rc;

		text_unescape(title);
		snprintf(path, sizeof(path), "findings.%zu.outcome", i);
		cr_assert(jsonq_get(doc, path, outcome, sizeof(outcome)));
		snprintf(path, sizeof(path), "findings.%zu.code", i);
		cr_assert(jsonq_get(doc, path, code, sizeof(code)));
		snprintf(path, sizeof(path), "findings.%zu.blame", i);
		cr_assert(jsonq_get(doc, path, blame, sizeof(blame)));
		cr_assert(!strcmp(blame, "fault") || !strcmp(blame, "driver") ||
			  !strcmp(blame, "model"), "%s", blame);
		runs += get_u64(doc, "findings.%s.runs", (snprintf(val, sizeof(val), "%zu", i), val));
		/* the title names what broke: the code, or the reset */
		if (!strcmp(outcome, "violation")) {
			cr_assert_neq(strcmp(code, "null"), 0, "%s: no code", title);
			text_unescape(code);
			cr_assert(strstr(title, code), "%s does not name %s", title, code);
		} else {
			cr_assert_str_eq(outcome, "reset", "%s", title);
			cr_assert(strstr(title, "adapter reset"), "%s", title);
		}
		/* trimmed to at most 1% of the events, and it reproduces */
		snprintf(path, sizeof(path), "findings.%zu.trimmed.trace", i);
		cr_assert(jsonq_get(doc, path, trimmed, sizeof(trimmed)), "%s: not trimmed", title);
		events = get_u64(doc, "findings.%s.trimmed.events", val);
		of = get_u64(doc, "findings.%s.trimmed.of", val);
		cr_assert_eq(of, 2000);
		cr_assert_leq(events * 100, of, "%s: %llu events kept", title, (unsigned long long)events);
		snprintf(path, sizeof(path), "findings.%zu.reproduce", i);
		cr_assert(jsonq_get(doc, path, repro, sizeof(repro)));
		text_unescape(repro);
		text_unescape(trimmed);
		cr_assert(strstr(repro, trimmed), "%s does not replay %s", repro, trimmed);
		{
			/* its events as text beside it, as trace dump writes them */
			char txt_path[4200], *txt;

			snprintf(txt_path, sizeof(txt_path), "%s.txt", trimmed);
			txt = slurp(txt_path);
			cr_assert_not_null(txt, "no %s", txt_path);
			cr_assert_eq(strncmp(txt, "# gpuiso workload trace, text form", 34), 0, "%s", txt);
			free(txt);
		}
		rc = run_reproducer(repro, !strcmp(outcome, "violation") ? code : "1 reset", &said);
		cr_assert_eq(rc, !strcmp(outcome, "violation") ? 1 : 0, "%s: exit %d", repro, rc);
		cr_assert(said, "%s: does not show %s", repro, code);
	}
	cr_assert_eq(i, t.findings);
	cr_assert_eq(runs, failures, "the findings hold %llu runs of %llu", (unsigned long long)runs,
		     (unsigned long long)failures);
	free(doc);
	free(fs);
	free(scn);
	free(out);
	free(trace);
}

/*
 * Every unmap of a 3,000-event power-cycle trace failed in turn: the leaks
 * they leave are one root cause, whatever operation the unmap was in, so
 * one finding with its contexts (not one per operation); the contexts hold
 * all its runs, and the text names them.
 */
Test(sweep, one_cause_in_many_operations_is_one_finding_with_contexts)
{
	char *trace = trace_gen("pc3000", 3000, 1), *out = path_in_tmp("contexts"), *fs, *doc, *txt;
	char path[96], val[512];
	uint64_t ctx_runs = 0;
	struct sweep_totals t;
	size_t n;

	fs = sweep(trace, NULL, "iommu/unmap", PERSIST, out, &t);
	doc = slurp(fs);
	free(fs);
	cr_assert(jsonq_valid(doc));
	cr_assert_eq(t.findings, 1, "%zu findings: %s", t.findings, doc);
	cr_assert(jsonq_get(doc, "findings.0.code", val, sizeof(val)));
	cr_assert_str_eq(val, "MAPPING_LEAK");
	cr_assert(jsonq_get(doc, "findings.0.key", val, sizeof(val)));
	cr_assert_str_eq(val, "iommu/unmap|violation|MAPPING_LEAK at teardown");
	for (n = 0; snprintf(path, sizeof(path), "findings.0.contexts.%zu.operation", n),
		    jsonq_get(doc, path, val, sizeof(val)); n++)
		ctx_runs += get_u64(doc, "findings.0.contexts.%s.runs",
				    (snprintf(val, sizeof(val), "%zu", n), val));
	cr_assert_geq(n, 5, "only %zu contexts", n);
	cr_assert_eq(ctx_runs, get_u64(doc, "findings.0.%s", "runs"));
	cr_assert_eq(ctx_runs, t.violation, "every failed unmap is in it");
	cr_assert(jsonq_get(doc, "findings.0.title", val, sizeof(val)));
	text_unescape(val);
	cr_assert(strstr(val, "iommu/unmap during ") && strstr(val, " more \u2192 MAPPING_LEAK"),
		  "%s", val);
	free(doc);
	cr_assert(asprintf(&fs, "%s/summary.txt", out) > 0);
	txt = slurp(fs);
	cr_assert(strstr(txt, "\n   in alloc_destroy (") && strstr(txt, "), free_mdl ("), "%s", txt);
	free(txt);
	free(fs);
	free(out);
	free(trace);
}

/* A sweep on a plan where every pin fails reaches the chunked save, and its resets. */
Test(sweep, a_base_plan_reaches_the_chunked_save_and_its_resets)
{
	char *trace = trace_gen("pc300", 300, 3), *scn = scenario_write("small.yaml", "1MiB");
	char *plain = path_in_tmp("plain"), *based = path_in_tmp("based"), *base = path_in_tmp("pin.yaml");
	char err[1024] = "", val[4096], repro[4096], *doc, *fs;
	struct sweep_opts o = { .trace = trace, .scenario = scn, .points = "fbsave/*", .jobs = 2 };
	struct sweep_totals t;
	FILE *f = fopen(base, "w");
	bool said, found = false;

	cr_assert_not_null(f);
	fputs("faults:\n  - {point: fbsave/pin, probability: 1}\n", f);
	cr_assert_eq(fclose(f), 0);
	/* alone, the trace never reaches a chunk: the sweep says so, and what would */
	fs = sweep(trace, scn, "fbsave/*", PERSIST, plain, &t);
	doc = slurp(fs);
	cr_assert_eq(get_u64(doc, "points.%s.hits", "fbsave/map_chunk"), 0);
	cr_assert(jsonq_get(doc, "unreached.0.point", val, sizeof(val)));
	cr_assert_str_eq(val, "fbsave/map_chunk");
	cr_assert(jsonq_get(doc, "unreached.0.hint", val, sizeof(val)));
	cr_assert(strstr(val, "fbsave/pin"), "%s", val);
	free(doc);
	free(fs);
	/* on the base plan it does: each chunk is hit, and failing one resets the adapter */
	o.out = based;
	o.faults = base;
	cr_assert_eq(sweep_run(&o, &t, err, sizeof(err)), 0, "%s", err);
	cr_assert(asprintf(&fs, "%s/summary.json", based) > 0);
	doc = slurp(fs);
	cr_assert_not(jsonq_get(doc, "points.fbsave/pin", val, sizeof(val)),
		      "a point the base plan arms was swept");
	cr_assert_gt(get_u64(doc, "points.%s.hits", "fbsave/map_chunk"), 0);
	cr_assert_gt(get_u64(doc, "points.%s.reset", "fbsave/map_chunk"), 0);
	cr_assert_not(jsonq_get(doc, "unreached.0.point", val, sizeof(val)));
	for (size_t i = 0; !found && snprintf(val, sizeof(val), "findings.%zu.title", i) &&
			   jsonq_get(doc, val, repro, sizeof(repro)); i++) {
		char path[64];

		text_unescape(repro);
		if (strncmp(repro, "fbsave/map_chunk during power", 29) || !strstr(repro, "adapter reset"))
			continue;
		found = true;
		snprintf(path, sizeof(path), "findings.%zu.reproduce", i);
		cr_assert(jsonq_get(doc, path, repro, sizeof(repro)));
		text_unescape(repro);
		cr_assert(strstr(repro, " --faults "), "%s", repro);
		cr_assert_eq(run_reproducer(repro, "1 reset", &said), 0, "%s", repro);
		cr_assert(said, "%s: no reset", repro);
	}
	cr_assert(found, "no finding for the chunk failures: %s", doc);
	/* the base plan's own point is not there to sweep */
	o.points = "fbsave/pin";
	cr_assert_eq(sweep_run(&o, &t, err, sizeof(err)), -EINVAL);
	cr_assert(strstr(err, "base plan"), "%s", err);
	free(doc);
	free(fs);
	free(base);
	free(based);
	free(plain);
	free(scn);
	free(trace);
}

/* ---- shards and their merge ------------------------------------------------ */

/* Shard @i of @n of a sweep into @out; its totals. */
static struct sweep_totals sweep_shard(const char *trace, const char *scn, const char *points,
				       bool scratch, const char *out, uint32_t i, uint32_t n)
{
	struct sweep_opts o = { .trace = trace, .scenario = scn, .points = points, .out = out,
				.jobs = 2, .from_scratch = scratch, .shard = { i, n } };
	struct sweep_totals t;
	char err[1024] = "", *summary = NULL;
	struct stat st;

	cr_assert_eq(sweep_run(&o, &t, err, sizeof(err)), 0, "shard %u/%u: %s", i, n, err);
	cr_assert_eq(t.runs + t.resumed, t.shard_runs);
	/* a shard writes no summary (and leaves none of before): the merge writes it */
	cr_assert(asprintf(&summary, "%s/summary.json", out) > 0);
	cr_assert_neq(stat(summary, &st), 0, "shard %u/%u left %s", i, n, summary);
	free(summary);
	return t;
}

/* gpuiso merge OUT: its return, and its message in @err. */
static int merge(const char *out, struct sweep_totals *t, char *err, size_t errlen)
{
	struct shard_header h;
	int rc;

	*err = '\0';
	rc = shard_find(out, &h, err, errlen);
	if (rc)
		return rc;
	rc = sweep_merge(out, &h, 2, NULL, NULL, NULL, t, err, errlen);
	shard_header_free(&h);
	return rc;
}

/* @out's summaries equal @ref's, once each folder's path is OUT. */
static void same_summaries(const char *out, const char *ref)
{
	static const char *const names[] = { "summary.json", "summary.txt" };

	for (size_t i = 0; i < 2; i++) {
		char *a = NULL, *b = NULL, *x, *y;

		cr_assert(asprintf(&a, "%s/%s", out, names[i]) > 0 && asprintf(&b, "%s/%s", ref, names[i]) > 0);
		x = slurp(a);
		y = slurp(b);
		free(a);
		free(b);
		a = without_out(x, out);
		b = without_out(y, ref);
		cr_assert_str_eq(a, b, "%s of %s and of %s differ", names[i], out, ref);
		free(a);
		free(b);
		free(x);
		free(y);
	}
}

Test(sweep, shards_merge_into_the_summary_of_one_sweep)
{
	char *trace = trace_gen("pc300", 300, 3), *scn = scenario_write("small.yaml", "1MiB");
	char *ref = path_in_tmp("one"), *out, err[4096];
	struct sweep_totals one, t;
	const uint32_t splits[] = { 1, 3, 7 };

	free(sweep(trace, scn, NULL, PERSIST, ref, &one));
	cr_assert_gt(one.findings, 0, "nothing to merge but recovered runs");
	for (size_t k = 0; k < sizeof(splits) / sizeof(splits[0]); k++) {
		uint64_t runs = 0;

		cr_assert(asprintf(&out, "%s/split%u", tmp, splits[k]) > 0);
		for (uint32_t i = 0; i < splits[k]; i++)
			runs += sweep_shard(trace, scn, NULL, false, out, i, splits[k]).shard_runs;
		cr_assert_eq(runs, one.runs, "the shards of %u ran %llu runs, not %llu", splits[k],
			     (unsigned long long)runs, (unsigned long long)one.runs);
		cr_assert_eq(merge(out, &t, err, sizeof(err)), 0, "%s", err);
		cr_assert_eq(t.runs, one.runs);
		cr_assert_eq(t.findings, one.findings);
		same_summaries(out, ref);
		free(out);
	}
	/* from scratch, over some points: the same as forking over them */
	out = path_in_tmp("scratch-ref");
	free(sweep(trace, scn, "fbsave/*", PERSIST, out, &one));
	free(ref);
	ref = out;
	out = path_in_tmp("scratch");
	for (uint32_t i = 0; i < 2; i++)
		sweep_shard(trace, scn, "fbsave/*", true, out, i, 2);
	cr_assert_eq(merge(out, &t, err, sizeof(err)), 0, "%s", err);
	same_summaries(out, ref);
	free(out);
	free(ref);
	free(scn);
	free(trace);
}

/* Cut @path at about @frac of its length (a shard killed while writing). */
static void cut_file(const char *path, double frac)
{
	struct stat st;

	cr_assert_eq(stat(path, &st), 0, "%s", path);
	cr_assert_eq(truncate(path, (off_t)((double)st.st_size * frac)), 0);
}

Test(sweep, a_missing_shard_is_listed_and_a_resumed_one_completes_the_merge)
{
	char *trace = trace_gen("pc300", 300, 3), *scn = scenario_write("small.yaml", "1MiB");
	char *ref = path_in_tmp("one"), *out = path_in_tmp("shards"), *journal, *summary, err[4096];
	struct sweep_totals one, t, again, first;
	struct stat st;

	free(sweep(trace, scn, NULL, PERSIST, ref, &one));
	sweep_shard(trace, scn, NULL, false, out, 0, 3);
	sweep_shard(trace, scn, NULL, false, out, 2, 3);
	cr_assert_eq(merge(out, &t, err, sizeof(err)), -ENODATA, "merged: %s", err);
	cr_assert_not_null(strstr(err, "merge: shard 1/3: "), "%s", err);
	cr_assert_not_null(strstr(err, "(no journal of this work)"), "%s", err);
	cr_assert_null(strstr(err, "shard 0/3"), "%s", err);
	cr_assert_null(strstr(err, "shard 2/3"), "%s", err);
	cr_assert(asprintf(&summary, "%s/summary.json", out) > 0);
	cr_assert_neq(stat(summary, &st), 0, "an incomplete merge wrote a summary");
	cr_assert(asprintf(&journal, "%s/shards/missing", out) > 0);
	cr_assert_eq(stat(journal, &st), 0, "no list of the missing runs");
	free(journal);

	/* shard 1 killed while writing its journal: what it booked whole is kept */
	first = sweep_shard(trace, scn, NULL, false, out, 1, 3);
	cr_assert(asprintf(&journal, "%s/shards/1-of-3", out) > 0);
	cut_file(journal, 0.6);
	cr_assert_eq(merge(out, &t, err, sizeof(err)), -ENODATA, "merged: %s", err);
	cr_assert_not_null(strstr(err, "merge: shard 1/3: "), "%s", err);
	cr_assert_null(strstr(err, "no journal"), "%s", err);
	again = sweep_shard(trace, scn, NULL, false, out, 1, 3);
	cr_assert_eq(again.shard_runs, first.shard_runs);
	cr_assert(again.resumed > 0 && again.runs > 0, "resumed %llu, ran %llu",
		  (unsigned long long)again.resumed, (unsigned long long)again.runs);
	/* once more: nothing left to run */
	t = sweep_shard(trace, scn, NULL, false, out, 1, 3);
	cr_assert_eq(t.runs, 0);
	cr_assert_eq(t.resumed, t.shard_runs);
	cr_assert_eq(merge(out, &t, err, sizeof(err)), 0, "%s", err);
	same_summaries(out, ref);

	/* a journal of other work (a shard run with other points) is named, not merged */
	sweep_shard(trace, scn, "fbsave/*", false, out, 1, 3);
	cr_assert_eq(merge(out, &t, err, sizeof(err)), -EINVAL, "merged: %s", err);
	cr_assert_not_null(strstr(err, "/shards/1-of-3 (other work): sweep work "), "%s", err);
	cr_assert_not_null(strstr(err, "points fbsave/*"), "%s", err);
	cr_assert_not_null(strstr(err, "/shards/2-of-3 (most of them): sweep work "), "%s", err);
	cr_assert_neq(stat(summary, &st), 0, "the summary of other work was left");
	/* ... and is made anew, whole, when the shard of this work runs again */
	t = sweep_shard(trace, scn, NULL, false, out, 1, 3);
	cr_assert_eq(t.resumed, 0);
	cr_assert_eq(merge(out, &t, err, sizeof(err)), 0, "%s", err);
	same_summaries(out, ref);
	free(summary);
	free(journal);
	free(out);
	free(ref);
	free(scn);
	free(trace);
}

/*
 * Shard 0's journal is another sweep's (of other points, into another
 * folder, copied in): the merge names it and the work it is of, and
 * refuses, rather than merge that sweep and call this one's shard 1
 * missing; the shard run again as it should be completes the merge.
 */
Test(sweep, a_foreign_journal_is_named_and_not_taken_on)
{
	char *trace = trace_gen("pc100", 100, 3), *scn = scenario_write("tiny.yaml", "64KiB");
	char *ref = path_in_tmp("one"), *out = path_in_tmp("shards"), *other = path_in_tmp("other");
	char *from = NULL, *to = NULL, *summary = NULL, *log, err[4096];
	struct sweep_totals one, t;
	struct stat st;
	int status;

	free(sweep(trace, scn, "iommu/*", PERSIST, ref, &one));
	sweep_shard(trace, scn, "iommu/*", false, out, 0, 2);
	sweep_shard(trace, scn, "iommu/*", false, out, 1, 2);
	sweep_shard(trace, scn, "fbsave/*", false, other, 0, 2);
	cr_assert(asprintf(&from, "%s/shards/0-of-2", other) > 0);
	cr_assert(asprintf(&to, "%s/shards/0-of-2", out) > 0);
	cr_assert_eq(rename(from, to), 0);

	cr_assert_eq(merge(out, &t, err, sizeof(err)), -EINVAL, "merged: %s", err);
	cr_assert_null(strstr(err, "missing"), "%s", err);
	cr_assert(strstr(err, "/shards/0-of-2: sweep work ") && strstr(err, "points fbsave/*"), "%s",
		  err);
	cr_assert(strstr(err, "/shards/1-of-2: sweep work ") && strstr(err, "points iommu/*"), "%s",
		  err);
	cr_assert(strstr(err, trace), "the trace is not named: %s", err);
	cr_assert(asprintf(&summary, "%s/summary.json", out) > 0);
	cr_assert_neq(stat(summary, &st), 0, "a summary of either work was written");
	/* the command: bad input, said */
	status = GPUISO(&log, "merge", out);
	cr_assert_eq(status, 2, "exit %d: %s", status, log);
	cr_assert(strstr(log, "0-of-2: sweep work ") && strstr(log, "points fbsave/*"), "%s", log);
	free(log);

	/* shard 0 of this sweep run again: its journal is made anew, and the merge is whole */
	t = sweep_shard(trace, scn, "iommu/*", false, out, 0, 2);
	cr_assert_eq(t.resumed, 0);
	cr_assert_eq(merge(out, &t, err, sizeof(err)), 0, "%s", err);
	same_summaries(out, ref);
	free(summary);
	free(to);
	free(from);
	free(other);
	free(out);
	free(ref);
	free(scn);
	free(trace);
}

Test(sweep, a_merge_refuses_shards_of_inputs_that_changed)
{
	char *trace = trace_gen("pc100", 100, 3), *scn = scenario_write("tiny.yaml", "64KiB");
	char *out = path_in_tmp("shards"), err[4096];
	struct sweep_totals t;

	sweep_shard(trace, scn, NULL, false, out, 0, 2);
	sweep_shard(trace, scn, NULL, false, out, 1, 2);
	free(scenario_write("tiny.yaml", "128KiB"));
	cr_assert_eq(merge(out, &t, err, sizeof(err)), -EINVAL, "merged: %s", err);
	cr_assert_not_null(strstr(err, "an input changed"), "%s", err);
	free(out);
	free(scn);
	free(trace);
}

Test(sweep, a_shard_runs_in_one_process_at_a_time)
{
	char *trace = trace_gen("pc100", 100, 3), *scn = scenario_write("tiny.yaml", "64KiB");
	char *out = path_in_tmp("shards"), *journal, err[1024] = "";
	struct sweep_opts o = { .trace = trace, .scenario = scn, .out = out, .jobs = 1,
				.shard = { 0, 2 } };
	struct sweep_totals t;
	int fd;

	sweep_shard(trace, scn, NULL, false, out, 0, 2);
	cr_assert(asprintf(&journal, "%s/shards/0-of-2", out) > 0);
	fd = open(journal, O_RDONLY);
	cr_assert_geq(fd, 0);
	cr_assert_eq(flock(fd, LOCK_EX), 0);
	cr_assert_eq(sweep_run(&o, &t, err, sizeof(err)), -EBUSY, "%s", err);
	cr_assert_not_null(strstr(err, "another process"), "%s", err);
	close(fd);
	free(journal);
	free(out);
	free(scn);
	free(trace);
}

Test(sweep, cli_shards_and_merge)
{
	char *trace = trace_gen("pc100", 100, 3), *scn = scenario_write("tiny.yaml", "64KiB");
	char *out = path_in_tmp("cli"), *log;
	int status;

	status = GPUISO(&log, "sweep", trace, "--scenario", scn, "-o", out, "--shard", "2/2");
	cr_assert_eq(status, 2, "exit %d: %s", status, log);
	cr_assert(strstr(log, "--shard takes I/N"), "%s", log);
	free(log);
	status = GPUISO(&log, "merge", out);
	cr_assert_eq(status, 2, "exit %d: %s", status, log);
	cr_assert(strstr(log, "no shards"), "%s", log);
	free(log);
	/* iommu/unmap failures break invariants: exit 1 for the merge, 0 for a shard */
	status = GPUISO(&log, "sweep", trace, "--scenario", scn, "--points", "iommu/unmap", "-o", out,
			"--shard", "0/2");
	cr_assert_eq(status, 0, "exit %d: %s", status, log);
	cr_assert(strstr(log, "sweep: shard 0/2: "), "%s", log);
	free(log);
	status = GPUISO(&log, "merge", out);
	cr_assert_eq(status, 4, "incomplete, not findings: exit %d: %s", status, log);
	cr_assert(strstr(log, "merge: shard 1/2: ") && strstr(log, " missing"), "%s", log);
	free(log);
	status = GPUISO(&log, "sweep", trace, "--scenario", scn, "--points", "iommu/unmap", "-o", out,
			"--shard", "1/2");
	cr_assert_eq(status, 0, "exit %d: %s", status, log);
	free(log);
	status = GPUISO(&log, "merge", out, "--jobs", "2");
	cr_assert_eq(status, 1, "exit %d: %s", status, log);
	cr_assert(strstr(log, " violation") && strstr(log, "summary.txt"), "%s", log);
	free(log);
	free(out);
	free(scn);
	free(trace);
}
