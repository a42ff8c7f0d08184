/* SPDX-License-Identifier: MIT */
/*
 * gpuiso replay and gpuiso trace gen/info as a user runs them: results,
 * what a replay says of its memory, empty, damaged, incomplete and foreign
 * traces, files that cannot be written, bad input that says where.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/common/jsonq.h"
#include "run_gpuiso.h"
#include "scratch.h"
#include "tests/common/traces_real.h"

TestSuite(cli, .fini = scratch_cleanup);

Test(cli, trace_gen_and_info)
{
	const char *dir = tpath("gen");
	char count[32];
	struct run r;

	RUN(&r, "trace", "gen", "--profile", "remap", "--events", "500", "-o", dir);
	cr_assert_eq(r.status, 0, "%s", r.err);
	RUN(&r, "trace", "info", dir, "--json");
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_assert(jsonq_valid(r.out), "%s", r.out);
	cr_assert(jsonq_get(r.out, "events", count, sizeof(count)));
	cr_assert_str_eq(count, "500");
	RUN(&r, "trace", "gen", "--profile", "remap", "--events", "500", "-o", dir);
	cr_assert_eq(r.status, 2, "a non-empty output folder is refused");
	RUN(&r, "trace", "gen", "--profile", "nope", "-o", tpath("x"));
	cr_assert_eq(r.status, 2);
	cr_assert(strstr(r.err, "unknown profile 'nope'"), "%s", r.err);
	RUN(&r, "trace", "gen", "--profile", "desktop");
	cr_assert_eq(r.status, 2);
	RUN(&r, "trace", "gen", "--profile", "desktop", "--events", "18446744073709551615", "-o",
	    tpath("huge"));
	cr_assert_eq(r.status, 2);
	cr_assert(strstr(r.err, "--events takes 1 to 1000000000"), "%s", r.err);
	RUN(&r, "trace", "gen", "--profile", "list");
	cr_assert_eq(r.status, 0);
	cr_assert(strstr(r.out, "power-cycle"), "%s", r.out);
	RUN(&r, "trace");
	cr_assert_eq(r.status, 2);
	cr_assert(strstr(r.err, "gpuiso trace info"), "%s", r.err);
}

Test(cli, replay_a_checked_in_trace_with_results)
{
	const char *json = tpath("r.json");
	char value[64], *doc = calloc(1, 1 << 20);
	struct run r;
	FILE *f;

	RUN(&r, "replay", "traces/power-cycle", "--scenario", "traces/scenarios/lda-chain.yaml",
	    "--json", json);
	cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
	cr_assert(strstr(r.out, "2000 used, 0 ignored, 0 unmatched"), "%s", r.out);
	cr_assert(strstr(r.out, "violations: 0"), "%s", r.out);
	f = fopen(json, "r");
	cr_assert_not_null(f);
	cr_assert_gt(fread(doc, 1, (1 << 20) - 1, f), 0);
	fclose(f);
	cr_assert(jsonq_valid(doc));
	cr_assert(jsonq_get(doc, "power.transitions", value, sizeof(value)));
	cr_assert_neq(strtoull(value, NULL, 10), 0);
	free(doc);
}

/* What `make run` shows: every way a transition ends, the faults, and where the results went. */
Test(cli, the_quick_start_replay_shows_the_job)
{
	const char *json = tpath("quick-start.json");
	unsigned long long pinned = 0, chunked = 0, reset = 0, pins = 0;
	const char *line;
	char want[512];
	struct run r;

	RUN(&r, "replay", "traces/power-cycle", "--scenario", "traces/scenarios/lda-chain.yaml",
	    "--faults", "traces/faults/quick-start.yaml", "--json", json, "--no-cache");
	cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
	line = strstr(r.out, "completed (");
	cr_assert_not_null(line, "%s", r.out);
	cr_assert_eq(sscanf(line, "completed (%llu pinned, %llu chunked), %llu reset", &pinned,
			    &chunked, &reset), 3, "%s", line);
	cr_assert(pinned && chunked && reset, "pinned %llu, chunked %llu, reset %llu", pinned,
		  chunked, reset);
	line = strstr(r.out, "faults injected: fbsave/pin ");
	cr_assert_not_null(line, "%s", r.out);
	cr_assert_eq(sscanf(line, "faults injected: fbsave/pin %llu", &pins), 1);
	cr_assert_gt(pins, 0);
	cr_assert(strstr(r.out, "p99 ns"), "latency per operation: %s", r.out);
	snprintf(want, sizeof(want), "results JSON: %s\n  to a dashboard: gpuiso store add DB %s",
		 json, json);
	cr_assert(strstr(r.out, want), "%s", r.out);
}

Test(cli, replay_json_to_stdout_is_json_alone)
{
	char value[64];
	struct run r;

	RUN(&r, "replay", "traces/power-cycle", "--scenario", "traces/scenarios/lda-chain.yaml",
	    "--no-cache", "--json", "-");
	cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
	cr_assert(jsonq_valid(r.out), "%s", r.out);
	cr_assert(jsonq_get(r.out, "power.transitions", value, sizeof(value)));
	/* the summary is still there, on stderr */
	cr_assert(strstr(r.err, "2000 used, 0 ignored, 0 unmatched"), "%s", r.err);
}

Test(cli, replay_says_the_memory_of_both_its_processes)
{
	double replay_mib = 0, decoder_mib = 0;
	const char *line;
	struct run r;

	RUN(&r, "replay", "traces/desktop", "--no-cache");
	cr_assert_eq(r.status, 0, "%s", r.err);
	line = strstr(r.out, "memory: ");
	cr_assert_not_null(line, "%s", r.out);
	cr_assert_eq(sscanf(line, "memory: peak RSS %lf MiB, and %lf MiB in its trace decoder",
			    &replay_mib, &decoder_mib), 2, "%s", line);
	/* both are real processes: the kernel says each holds at least a MiB */
	cr_assert_gt(replay_mib, 1.0, "%s", line);
	cr_assert_gt(decoder_mib, 1.0, "%s", line);
	/* from the cache, no decoder runs */
	RUN(&r, "replay", "traces/desktop", "--cache-dir", tpath("memcache"));
	RUN(&r, "replay", "traces/desktop", "--cache-dir", tpath("memcache"));
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_assert_not_null(strstr(r.out, "(from the replay cache)"), "%s", r.out);
	line = strstr(r.out, "memory: ");
	cr_assert_not_null(line, "%s", r.out);
	cr_assert_null(strstr(r.out, "trace decoder"), "%s", line);
}

Test(cli, a_trace_without_events_says_so)
{
	char cmd[1024], value[32];
	struct run r;

	snprintf(cmd, sizeof(cmd), "cp -r '%s/traces/desktop' %s && truncate -s 0 %s/stream",
		 getenv("GPUISO_SOURCE_ROOT"), tpath("empty"), tpath("empty"));
	cr_assert_eq(system(cmd), 0);
	RUN(&r, "replay", tpath("empty"), "--no-cache");
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_assert(strstr(r.out, "EMPTY: the trace holds no event"), "%s", r.out);
	RUN(&r, "trace", "info", tpath("empty"), "--json");
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_assert(jsonq_get(r.out, "first_ts", value, sizeof(value)));
	cr_assert_str_eq(value, "null");
}

/*
 * A stream file with bytes that yields no event is damaged, not empty: its
 * event header declares an array of 4e9 bytes, on which babeltrace2 gives
 * up without failing the read (babeltrace2 DIR prints nothing, exit 0).
 */
Test(cli, a_damaged_stream_that_yields_no_event_is_not_an_empty_trace)
{
	char cmd[1024];
	struct run r;

	RUN(&r, "trace", "gen", "--profile", "desktop", "--events", "50", "-o", tpath("huge"));
	cr_assert_eq(r.status, 0, "%s", r.err);
	snprintf(cmd, sizeof(cmd), "sed -i 's/} timestamp;$/} timestamp;\\n\\t\\tinteger "
		 "{ size = 8; align = 8; } pad[4000000000];/' %s/metadata", tpath("huge"));
	cr_assert_eq(system(cmd), 0);
	RUN(&r, "replay", tpath("huge"));
	cr_assert_eq(r.status, 2, "%s%s", r.out, r.err);
	cr_assert(strstr(r.err, "huge: corrupt trace before the first event: babeltrace2 gave up "
			 "on stream file "), "%s", r.err);
	cr_assert(strstr(r.err, "huge/stream at packet 0 (byte 0 of "), "%s", r.err);
	cr_assert_null(strstr(r.out, "EMPTY"), "%s", r.out);
	RUN(&r, "trace", "info", tpath("huge"));
	cr_assert_eq(r.status, 2, "%s%s", r.out, r.err);
	cr_assert(strstr(r.err, "huge/stream at packet 0 (byte 0 of "), "%s", r.err);
}

/*
 * A full file system under trace gen: an environment error, not a crash (in
 * a mount namespace), and nothing leaked (replay/ctf_write.c keeps the
 * failed writer's graph, which babeltrace2 2.0 cannot free).
 */
Test(cli, trace_gen_on_a_full_file_system_says_so)
{
	char cmd[4096], small[256], err[256], rc[256], buf[4096] = "";
	int status;
	FILE *f;

	snprintf(small, sizeof(small), "%s", tpath("small"));
	snprintf(err, sizeof(err), "%s", tpath("err"));
	snprintf(rc, sizeof(rc), "%s", tpath("rc"));
	snprintf(cmd, sizeof(cmd),
		 "mkdir -p %s && unshare -m sh -c 'mount -t tmpfs -o size=300k tmpfs %s && "
		 "\"%s\" trace gen --profile desktop --events 20000 "
		 "-o %s/t 2>%s; echo $? > %s'",
		 small, small, getenv("GPUISO_BIN"), small, err, rc);
	status = system(cmd);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "unshare/mount: %d", status);
	f = fopen(rc, "r");

	cr_assert_not_null(f);
	cr_assert(fgets(buf, sizeof(buf), f));
	fclose(f);
	cr_assert_eq(atoi(buf), 3, "exit status %s", buf);
	f = fopen(err, "r");
	cr_assert_not_null(f);
	buf[fread(buf, 1, sizeof(buf) - 1, f)] = '\0';
	fclose(f);
	cr_assert(strstr(buf, "No space left on device"), "%s", buf);
}

/* How many lines @text has (its last one ended or not). */
static size_t lines_of(const char *text)
{
	size_t n = 0;

	for (const char *l = text; *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : "")
		n++;
	return n;
}

/*
 * trace gen and trace make past a file size limit (RLIMIT_FSIZE, as a full
 * disk, for root as for anyone): the reason, once, exit 3, no folder left,
 * and nothing leaked (under ASan the leak checker would end it otherwise:
 * the failed writer's graph, with its source's data and iterator, used to
 * be dropped).
 */
Test(cli, trace_gen_and_make_past_a_file_size_limit_say_why_and_free_everything)
{
	char text[256], dir[256];
	struct rlimit lim;
	struct run r;
	FILE *f;

	snprintf(text, sizeof(text), "%s", tpath("many.txt"));
	f = fopen(text, "w");
	cr_assert_not_null(f);
	for (int i = 1; i <= 20000; i++)
		fprintf(f, "fence_create ts=%d adapter=0 id=%d\n", i, i);
	cr_assert_eq(fclose(f), 0);
	/* this test's process and the commands it starts: a write past 256 KiB fails with EFBIG */
	cr_assert_neq(signal(SIGXFSZ, SIG_IGN), SIG_ERR);
	cr_assert_eq(getrlimit(RLIMIT_FSIZE, &lim), 0);
	lim.rlim_cur = 256 << 10;
	cr_assert_eq(setrlimit(RLIMIT_FSIZE, &lim), 0);

	snprintf(dir, sizeof(dir), "%s", tpath("big-gen"));
	RUN(&r, "trace", "gen", "--profile", "desktop", "--events", "20000", "-o", dir);
	cr_assert_eq(r.status, 3, "%s", r.err);
	cr_assert(strstr(r.err, "gpuiso: trace gen: ") == r.err &&
		  strstr(r.err, "big-gen: writing the trace failed: File too large"), "%s", r.err);
	cr_assert_eq(lines_of(r.err), 1, "one message: %s", r.err);
	cr_assert_neq(access(dir, F_OK), 0, "a partial trace was left");

	snprintf(dir, sizeof(dir), "%s", tpath("big-make"));
	RUN(&r, "trace", "make", text, "-o", dir);
	cr_assert_eq(r.status, 3, "%s", r.err);
	cr_assert(strstr(r.err, "gpuiso: trace make: ") == r.err &&
		  strstr(r.err, "big-make: writing the trace failed: File too large"), "%s", r.err);
	cr_assert_eq(lines_of(r.err), 1, "one message: %s", r.err);
	cr_assert_neq(access(dir, F_OK), 0, "a partial trace was left");
}

/*
 * trace gen and trace make into a folder that cannot be written: gpuiso's
 * one message, exit 3, no babeltrace2 log line before it. A read-only file
 * system in a mount namespace for root (who may write any folder), a
 * folder of mode 0555 for anyone else.
 */
Test(cli, trace_gen_and_make_into_a_read_only_folder_say_so_once)
{
	static const char *const cmds[][2] = {
		{ "trace gen", "--profile desktop --events 100" },
		{ "trace make", "tests/data/text/unmap-after-free.txt" },
	};
	char ro[256], errf[256], rcf[256], cmd[4096], buf[4096];

	snprintf(ro, sizeof(ro), "%s", tpath("ro"));
	snprintf(errf, sizeof(errf), "%s", tpath("ro-err"));
	snprintf(rcf, sizeof(rcf), "%s", tpath("ro-rc"));
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		char want[512];
		FILE *f;
		int status;

		if (!geteuid())
			snprintf(cmd, sizeof(cmd), "mkdir -p %s && unshare -m sh -c 'mount -t tmpfs -o "
				 "ro,size=64k tmpfs %s && cd \"%s\" && \"%s\" %s %s -o %s/x 2>%s; "
				 "echo $? > %s'", ro, ro, getenv("GPUISO_SOURCE_ROOT"),
				 getenv("GPUISO_BIN"), cmds[i][0], cmds[i][1], ro, errf, rcf);
		else
			snprintf(cmd, sizeof(cmd), "mkdir -p %s && chmod 555 %s && cd \"%s\" && "
				 "\"%s\" %s %s -o %s/x 2>%s; echo $? > %s; chmod 755 %s", ro, ro,
				 getenv("GPUISO_SOURCE_ROOT"), getenv("GPUISO_BIN"), cmds[i][0],
				 cmds[i][1], ro, errf, rcf, ro);
		status = system(cmd);
		cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s: %d", cmd, status);
		f = fopen(rcf, "r");
		cr_assert_not_null(f);
		cr_assert(fgets(buf, sizeof(buf), f));
		fclose(f);
		cr_assert_eq(atoi(buf), 3, "%s: exit status %s", cmds[i][0], buf);
		f = fopen(errf, "r");
		cr_assert_not_null(f);
		buf[fread(buf, 1, sizeof(buf) - 1, f)] = '\0';
		fclose(f);
		snprintf(want, sizeof(want), "gpuiso: %s: %s/x: cannot create the folder: %s\n",
			 cmds[i][0], ro, geteuid() ? "Permission denied" : "Read-only file system");
		cr_assert_str_eq(buf, want, "%s", cmds[i][0]);
	}
}

Test(cli, a_cache_that_cannot_be_written_is_said_and_the_replay_goes_on)
{
	struct run r;
	FILE *f = fopen(tpath("file"), "w");

	cr_assert_not_null(f);
	fclose(f);
	RUN(&r, "replay", "traces/desktop", "--cache-dir", tpath("file"));
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_assert(strstr(r.err, "cannot write the replay cache") && strstr(r.err, "Not a directory"),
		  "%s", r.err);
	cr_assert(strstr(r.out, "2000 used"), "%s", r.out);
}

Test(cli, replay_bad_input_exits_2_and_says_where)
{
	char cmd[1024];
	struct run r;

	RUN(&r, "replay", "no/such/trace");
	cr_assert_eq(r.status, 2);
	RUN(&r, "replay", "traces/desktop", "--pace", "sometimes");
	cr_assert_eq(r.status, 2);
	RUN(&r, "replay", "traces/desktop", "--scenario", "tests/data/scenarios/bad-unknown-key.yaml");
	cr_assert_eq(r.status, 2);
	cr_assert(strstr(r.err, "bad-unknown-key.yaml:3:3"), "%s", r.err);

	/* a truncated stream file */
	snprintf(cmd, sizeof(cmd), "cp -r traces/desktop %s && truncate -s 5000 %s/stream",
		 tpath("trunc"), tpath("trunc"));
	cr_assert_eq(system(cmd), 0);
	RUN(&r, "replay", tpath("trunc"), "--no-cache");
	cr_assert_eq(r.status, 2, "%s", r.err);
	cr_assert(strstr(r.err, "trunc"), "%s", r.err);

	/* an event that lacks a field: the metadata renames alloc_mdl's bytes */
	snprintf(cmd, sizeof(cmd),
		 "cp -r traces/desktop %s && sed -i '/gpuiso_wl:alloc_mdl/,/};/s/_bytes;/_bytez;/' %s/metadata",
		 tpath("nofield"), tpath("nofield"));
	cr_assert_eq(system(cmd), 0);
	RUN(&r, "replay", tpath("nofield"), "--no-cache");
	cr_assert_eq(r.status, 2, "%s%s", r.out, r.err);
	cr_assert(strstr(r.err, "has no integer field 'bytes'"), "%s", r.err);
	cr_assert(strstr(r.err, "event "), "%s", r.err);

	/* foreign traces: last, as the test ends where they are missing */
	RUN(&r, "replay", traces_real("tc-ust-libc-memory"), "--strict");
	cr_assert_eq(r.status, 2);
	cr_assert(strstr(r.err, "lttng_ust_libc"), "%s", r.err);
	RUN(&r, "replay", traces_real("tc-kernel-rpm-kmem"), "--no-cache");
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_assert(strstr(r.out, "NOTHING USED") && strstr(r.out, "--map"), "%s", r.out);
}

/* babeltrace2 aborts on this metadata: the decoder's death is the trace's fault, said so */
Test(cli, a_trace_the_decoder_dies_on_is_bad_input)
{
	char cmd[1024];
	struct run r;

	snprintf(cmd, sizeof(cmd),
		 "cp -r %s/traces/desktop %s && sed -i '/gpuiso_wl:alloc_mdl/,/};/s/_bytes;/_id;/' %s/metadata",
		 getenv("GPUISO_SOURCE_ROOT"), tpath("dup"), tpath("dup"));
	cr_assert_eq(system(cmd), 0);
	RUN(&r, "replay", tpath("dup"), "--no-cache");
	cr_assert_eq(r.status, 2, "%s%s", r.out, r.err);
	cr_assert(strstr(r.err, "dup: cannot open CTF trace: babeltrace2 crashed (Aborted)"), "%s",
		  r.err);
	cr_assert(strstr(r.err, "Duplicate member"), "%s", r.err);
	RUN(&r, "trace", "info", tpath("dup"));
	cr_assert_eq(r.status, 2, "%s%s", r.out, r.err);
	cr_assert(strstr(r.err, "babeltrace2 crashed (Aborted)"), "%s", r.err);
}

Test(cli, replay_of_an_incomplete_trace_says_so)
{
	struct run r;

	RUN(&r, "replay", "tests/data/traces/discarded", "--no-cache");
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_assert(strstr(r.out, "INCOMPLETE: the tracer discarded 5 events"), "%s", r.out);
}

Test(cli, replay_on_an_unavailable_backend_is_an_environment_problem)
{
	struct run r;

	RUN(&r, "replay", "traces/desktop", "--backend", "vfio:0000:77:1f.7");
	cr_assert_eq(r.status, 3);
	cr_assert(strstr(r.err, "0000:77:1f.7: no such PCI device"), "%s", r.err);
	RUN(&r, "replay", "traces/desktop", "--backend", "magic");
	cr_assert_eq(r.status, 2);
	cr_assert(strstr(r.err, "unknown backend 'magic'"), "%s", r.err);
	RUN(&r, "replay", "traces/power-cycle", "--scenario", "traces/scenarios/lda-chain.yaml",
	    "--backend", "vfio:0000:77:1f.7");
	cr_assert_eq(r.status, 2, "three physical adapters cannot be one device");
	cr_assert(strstr(r.err, "drives one device"), "%s", r.err);
}

/*
 * A captured window (LTTng's libc wrapper, 7 mallocs not freed by its end):
 * quietly released by default, leaks when the trace is said to cover the
 * adapters' whole life. The count is shown either way.
 */
Test(cli, replay_trace_covers_says_whether_what_is_left_live_leaked)
{
	const char *json = tpath("life.json");
	char value[64], *doc = calloc(1, 1 << 20);
	struct run r;
	FILE *f;

#define LIBC "replay", traces_real("tc-ust-libc-memory"), "--map", \
	"traces/maps/lttng-ust-libc.yaml", "--cache-dir", tpath("covers")
	RUN(&r, LIBC);
	cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
	cr_assert(strstr(r.out, "left live by the trace: 7 objects, released at the end "
				"(--trace-covers window: a window of a longer run)"), "%s", r.out);
	cr_assert(strstr(r.out, "violations: 0"), "%s", r.out);
	RUN(&r, LIBC, "--trace-covers", "window");
	cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);

	RUN(&r, LIBC, "--trace-covers", "life", "--json", json);
	cr_assert_eq(r.status, 1, "leaks are findings: %s%s", r.out, r.err);
	cr_assert(strstr(r.out, "left live by the trace: 7 objects, leaked "
				"(--trace-covers life: the adapters' whole life)"), "%s", r.out);
	cr_assert(strstr(r.out, "violations: 7"), "%s", r.out);
	cr_assert(strstr(r.out, "HANDLE_LEAK at event 328055: id 164028 created by alloc_mdl at "),
		  "%s", r.out);
	cr_assert(strstr(r.out, "invariant broken: no_leaks"), "%s", r.out);
	f = fopen(json, "r");
	cr_assert_not_null(f);
	cr_assert_gt(fread(doc, 1, (1 << 20) - 1, f), 0);
	fclose(f);
	cr_assert(jsonq_valid(doc), "%s", doc);
	cr_assert(jsonq_get(doc, "run.trace_covers", value, sizeof(value)));
	cr_assert_str_eq(value, "life");
	cr_assert(jsonq_get(doc, "events.left_live", value, sizeof(value)));
	cr_assert_str_eq(value, "7");
	cr_assert(jsonq_get(doc, "invariants.no_leaks", value, sizeof(value)));
	cr_assert_str_eq(value, "false");
	cr_assert(jsonq_get(doc, "faults.violations.0.code", value, sizeof(value)));
	cr_assert_str_eq(value, "HANDLE_LEAK");

	RUN(&r, LIBC, "--trace-covers", "whole");
	cr_assert_eq(r.status, 2, "%s%s", r.out, r.err);
	cr_assert(strstr(r.err, "--trace-covers takes window or life, not 'whole'"), "%s", r.err);
#undef LIBC
	RUN(&r, "replay", "--help");
	cr_assert_eq(r.status, 0);
	cr_assert(strstr(r.out, "[--trace-covers window|life]") &&
		  strstr(r.out, "window (the default)"), "%s", r.out);
	free(doc);
}

Test(cli, replay_with_maps_reports_used_ignored_unmatched)
{
	struct run r;

	RUN(&r, "replay", traces_real("tc-kernel-rpm-kmem"), "--map",
	    "traces/maps/linux-rpm.yaml", "--map", "traces/maps/linux-page-alloc.yaml", "--no-cache");
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_assert(strstr(r.out, "31556 in the trace: 858 used, 30698 ignored, 0 unmatched"), "%s",
		  r.out);
}

/*
 * Foreign events an import map does not match are listed with -v and in the
 * results JSON, each with its index, time, class and why; from the replay
 * cache, which keeps only their count, -v says so.
 */
Test(cli, replay_lists_each_unmatched_event_of_an_import_map)
{
	const char *json = tpath("unmatched.json"), *cache = tpath("unmatched-cache");
	char j[256], c[256], value[160], *doc;
	struct run r;
	FILE *f;

	snprintf(j, sizeof(j), "%s", json);
	snprintf(c, sizeof(c), "%s", cache);
	RUN(&r, "replay", "traces/virtio-gpu/trace.dat", "--map", "tests/data/maps/unmatched-unmap.yaml",
	    "--cache-dir", c, "-v", "--json", j);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_assert(strstr(r.out, "0 used, 1286 ignored, 220 unmatched"), "%s", r.out);
	cr_assert(strstr(r.out, "\nunmatched: event 30 at 2156596545 ns (dma:dma_unmap_page): no "
			 "object was made under its key"), "%s", r.out);
	doc = calloc(1, 1 << 20);
	f = fopen(j, "r");
	cr_assert(doc && f);
	cr_assert_gt(fread(doc, 1, (1 << 20) - 1, f), 0);
	fclose(f);
	cr_assert(jsonq_get(doc, "unmatched_events.0.event", value, sizeof(value)));
	cr_assert_str_eq(value, "30");
	cr_assert(jsonq_get(doc, "unmatched_events.0.name", value, sizeof(value)));
	cr_assert_str_eq(value, "dma:dma_unmap_page");
	cr_assert(jsonq_get(doc, "unmatched_events.219.reason", value, sizeof(value)));
	cr_assert(strstr(value, "no object was made under its key"), "%s", value);
	cr_assert_not(jsonq_get(doc, "unmatched_events.220.event", value, sizeof(value)));
	free(doc);

	RUN(&r, "replay", "traces/virtio-gpu/trace.dat", "--map", "tests/data/maps/unmatched-unmap.yaml",
	    "--cache-dir", c, "-v");
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_assert(strstr(r.out, "(from the replay cache)"), "%s", r.out);
	cr_assert(strstr(r.out, "unmatched: ... 220 more, not listed"), "%s", r.out);
}
