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
#include "replay/replay.h"
#include "tests/common/jsonq.h"
#include "tests/faults/campaign/procs.h"
#include "tests/faults/campaign/sweep_fixture.h"

TestSuite(sweep, .init = setup, .fini = teardown, .timeout = 240);

/* tmp/@name-@what */
static char *in_tmp_of(const char *name, const char *what)
{
	char *p = NULL;

	cr_assert(asprintf(&p, "%s/%s-%s", tmp, name, what) > 0);
	return p;
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
			uint64_t v = get_u64(doc, "points.%s.%s", name, outcomes[oc]);

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
	ps = sweep_with_progress(trace, scn, "fbsave/*", PERSIST, per_out, &tp, progress);
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
	ns = sweep_with_progress(trace, scn, "fbsave/*", PERSIST, nocache_out, &tn, progress);
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
	cr_assert_eq(sweep_run(&o, &t, err, sizeof(err)), -ENOENT, "as the loader says: %s", err);
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
