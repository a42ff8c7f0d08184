/* SPDX-License-Identifier: MIT */
/*
 * The decoder child (ctf_read()) dies, hangs or grows: an answer about the
 * trace, or about the machine when it is not the trace's doing.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/failure.h"
#include "replay/ctf.h"
#include "tests/replay/ctf_fixture.h"

/* babeltrace2 aborts on a precondition when a structure names a member twice. */
Test(ctf_read, decoder_that_aborts_is_bad_input)
{
	char dir[PATH_MAX], p[PATH_MAX + 16], err[512];

	tmpdir(dir, sizeof(dir));
	copy_trace(KERNEL, dir);
	snprintf(p, sizeof(p), "%s/metadata", dir);
	/* (the same length: its metadata is in packets of a given size) */
	edit_file(p, " _dir_name;", " _dev_name;");
	cr_assert_eq(read_bad(dir, err, sizeof(err)), -EINVAL);
	cr_assert_not_null(strstr(err, dir), "%s", err);
	cr_assert_not_null(strstr(err, "babeltrace2 crashed (Aborted)"), "%s", err);
	cr_assert_not_null(strstr(err, "Duplicate member"), "the decoder's last words: %s", err);
	cr_assert_null(strstr(err, "addr=0x"), "debugger noise left in: %s", err);
	rm_tree(dir);
}

/* The decoder's pid: this process's child named ctf-decode. */
static pid_t decoder_pid(void)
{
	char path[64], stat[512];
	pid_t found = 0;
	DIR *proc = opendir("/proc");
	struct dirent *e;

	cr_assert_not_null(proc);
	while (!found && (e = readdir(proc))) {
		int pid = atoi(e->d_name), ppid = 0;
		char comm[32] = "";
		FILE *f;

		if (pid <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/stat", pid);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(stat, sizeof(stat), f) &&
		    sscanf(stat, "%*d (%31[^)]) %*c %d", comm, &ppid) == 2 && ppid == getpid() &&
		    !strcmp(comm, "ctf-decode"))
			found = pid;
		fclose(f);
	}
	closedir(proc);
	return found;
}

/* At the first event class, stop the decoder dead: it says nothing more. */
static int freeze_bind(void *ctx, const char *name, struct ctf_binding *b)
{
	pid_t pid = decoder_pid();

	cr_assert_gt(pid, 0, "no ctf-decode child");
	cr_assert_eq(kill(pid, SIGSTOP), 0);
	b->tag = -1;
	return 0;
}

static int no_event(void *ctx, int tag, uint64_t index, uint64_t ts, const struct ctf_value *v)
{
	return 0;
}

/*
 * A decoder that neither runs nor decodes anything (stopped here, as one
 * deadlocked on a lock inherited at fork() would be) is killed, and that is
 * not the trace's doing: an environment problem, never a corrupt trace.
 */
Test(ctf_read, a_decoder_that_neither_runs_nor_decodes_is_not_the_traces_doing)
{
	struct ctf_limits lim = { .idle_s = 1 };
	char err[512];
	uint64_t t0 = (uint64_t)time(NULL);

	cr_assert_eq(ctf_read(real(KERNEL), freeze_bind, no_event, NULL, &lim, NULL, err,
			      sizeof(err)), -ECHILD);
	cr_assert_eq(failure_of(-ECHILD), FAILURE_ENVIRONMENT);
	cr_assert_not_null(strstr(err, "the CTF decoder neither ran nor moved on for 1 s (state T"),
			   "%s", err);
	cr_assert_not_null(strstr(err, "(killed) after event"), "%s", err);
	cr_assert_not_null(strstr(err, "not the trace's doing"), "%s", err);
	cr_assert_not_null(strstr(err, real(KERNEL)), "%s", err);
	cr_assert_leq((uint64_t)time(NULL) - t0, 10, "the watchdog took too long");
	cr_assert_eq(decoder_pid(), 0, "the decoder outlived the read");
}

/* Keep the decoder waiting for its first binding long enough for its memory to be looked at. */
static int slow_bind(void *ctx, const char *name, struct ctf_binding *b)
{
	usleep(600 * 1000);
	return count_bind(ctx, name, b);
}

Test(ctf_read, decoder_that_grows_too_big_is_killed)
{
	struct ctf_limits lim = { .anon_bytes = 64 << 10 }; /* it needs about 1 MiB */
	struct counter c = { 0 };
	char err[512];

	cr_assert_eq(ctf_read(real(UST), slow_bind, count_event, &c, &lim, NULL, err, sizeof(err)),
		     -EINVAL);
	cr_assert_not_null(strstr(err, "grew by more than 64KiB of memory (killed)"), "%s", err);
	cr_assert_eq(decoder_pid(), 0, "the decoder outlived the read");
	counter_fini(&c);
}

/* What the decoder dies of at the 1000th event (each test is a process of its own). */
static int crash_signal = SIGSEGV;

/* At the 1000th event, the decoder crashes (as far as anyone can tell). */
static int crash_at_event(void *ctx, int tag, uint64_t index, uint64_t ts,
			  const struct ctf_value *v)
{
	struct counter *c = ctx;

	if (c->calls == 999)
		cr_assert_eq(kill(decoder_pid(), crash_signal), 0);
	return count_event(ctx, tag, index, ts, v);
}

/* Where the decoder was when it died: the stream, its packet, the last event. */
Test(ctf_read, decoder_death_mid_trace_says_where)
{
	struct counter c = { 0 };
	char err[512];

	cr_assert_eq(ctf_read(real(UST), count_bind, crash_at_event, &c, NULL, NULL, err,
			      sizeof(err)), -EINVAL);
	cr_assert_not_null(strstr(err, "corrupt trace after event "), "%s", err);
	cr_assert_not_null(strstr(err, ", in or after packet "), "no packet: %s", err);
	cr_assert_not_null(strstr(err, " of /"), "no stream named: %s", err);
	cr_assert_not_null(strstr(err, "/channel0_"), "no stream named: %s", err);
	cr_assert_not_null(strstr(err, "babeltrace2 crashed (Segmentation fault)"), "%s", err);
	counter_fini(&c);
}

/* Found by fuzzing (fuzz/corpus/ctf): babeltrace2 grows without end on this 4 KiB trace. */
Test(ctf_read, decoder_that_grows_on_a_damaged_trace_is_killed)
{
	struct ctf_limits lim = { .anon_bytes = 64 << 20 };
	char path[PATH_MAX], err[512];
	struct counter c = { 0 };
	time_t t0 = time(NULL);

	snprintf(path, sizeof(path), "%s/tests/data/traces/bt2-grows", getenv("GPUISO_SOURCE_ROOT"));
	cr_assert_eq(ctf_read(path, count_bind, count_event, &c, &lim, NULL, err, sizeof(err)),
		     -EINVAL, "%s", err);
	cr_assert_not_null(strstr(err, "bt2-grows: cannot open CTF trace: babeltrace2 grew by more "
				   "than 64MiB of memory (killed)"), "%s", err);
	cr_assert_leq(time(NULL) - t0, 20, "the limit took too long");
	counter_fini(&c);
}

/* A SIGKILL this process did not send is the machine's doing, not the trace's. */
Test(ctf_read, decoder_killed_from_outside_is_the_machines_fault)
{
	struct counter c = { 0 };
	char err[512];
	int rc;

	crash_signal = SIGKILL; /* as the OOM killer, or kill -9, sends it */
	rc = ctf_read(real(UST), count_bind, crash_at_event, &c, NULL, NULL, err, sizeof(err));

	cr_assert_eq(rc, -ECHILD, "%d: %s", rc, err);
	cr_assert_eq(failure_of(rc), FAILURE_ENVIRONMENT);
	cr_assert_not_null(strstr(err, "the CTF decoder was killed from outside"), "%s", err);
	counter_fini(&c);
}

/* Of two trace folders, the one whose stream the decoder died in is named. */
Test(ctf_read, decoder_death_names_the_folder_it_died_in)
{
	char dir[PATH_MAX], a[PATH_MAX + 8], z[PATH_MAX + 8], p[PATH_MAX + 32], to[PATH_MAX + 32];
	char err[1024];
	struct counter c = { 0 };
	const char *of;

	tmpdir(dir, sizeof(dir));
	snprintf(a, sizeof(a), "%s/a", dir);
	snprintf(z, sizeof(z), "%s/z", dir);
	cr_assert_eq(mkdir(a, 0755), 0);
	cr_assert_eq(mkdir(z, 0755), 0);
	copy_trace(UST, a);
	/* z: a trace without events, opened after a */
	snprintf(p, sizeof(p), "%s/traces/desktop/metadata", getenv("GPUISO_SOURCE_ROOT"));
	snprintf(to, sizeof(to), "%s/metadata", z);
	copy_file(p, to);
	snprintf(to, sizeof(to), "%s/stream", z);
	write_file(to, "", 0);
	cr_assert_eq(ctf_read(dir, count_bind, crash_at_event, &c, NULL, NULL, err, sizeof(err)),
		     -EINVAL);
	cr_assert_eq(strncmp(err, a, strlen(a)), 0, "not named after %s: %s", a, err);
	of = strstr(err, " of ");
	cr_assert_not_null(of, "no stream named: %s", err);
	cr_assert_eq(strncmp(of + 4, a, strlen(a)), 0, "%s", err);
	rm_tree(dir);
	counter_fini(&c);
}

static int skip_bind(void *ctx, const char *name, struct ctf_binding *b)
{
	b->tag = -1;
	return 0;
}

/*
 * A trace whose stream file is one packet (no packet context: CTF makes
 * the whole file the packet) of @n events of one class, "e" {v}.
 */
static void write_one_packet_trace(const char *dir, uint64_t n)
{
	static const char metadata[] =
		"/* CTF 1.8 */\n"
		"typealias integer { size = 8; align = 8; signed = false; } := uint8_t;\n"
		"typealias integer { size = 32; align = 8; signed = false; } := uint32_t;\n"
		"trace { major = 1; minor = 8; byte_order = le;\n"
		"	packet.header := struct { uint32_t magic; }; };\n"
		"clock { name = c; freq = 1000000000; };\n"
		"typealias integer { size = 64; align = 8; signed = false; map = clock.c.value; }"
		" := ts_t;\n"
		"stream { event.header := struct { uint8_t id; ts_t timestamp; }; };\n"
		"event { name = \"e\"; id = 0; fields := struct { uint32_t v; }; };\n";
	static uint8_t rec[13 * 4096];
	char p[PATH_MAX + 16];
	uint32_t magic = 0xC1FC1FC1;
	FILE *f;

	snprintf(p, sizeof(p), "%s/metadata", dir);
	write_file(p, metadata, sizeof(metadata) - 1);
	snprintf(p, sizeof(p), "%s/stream", dir);
	f = fopen(p, "wb");
	cr_assert_not_null(f, "%s", p);
	cr_assert_eq(fwrite(&magic, 4, 1, f), 1); /* (this machine is little-endian) */
	for (uint64_t i = 0; i < n; i += 4096) {
		for (uint64_t k = 0; k < 4096; k++) {
			uint64_t ts = 1000 + i + k;
			uint32_t v = (uint32_t)(i + k);

			rec[13 * k] = 0;
			memcpy(&rec[13 * k + 1], &ts, 8);
			memcpy(&rec[13 * k + 9], &v, 4);
		}
		cr_assert_eq(fwrite(rec, 13, 4096, f), 4096);
	}
	cr_assert_eq(fclose(f), 0);
}

/*
 * A decoder that skips every event still says where it is (every 4096
 * events), also in a trace of one long packet: 10M events take it longer
 * than a second, and none of that is silence.
 */
Test(ctf_read, a_decoder_skipping_every_event_is_not_silent, .timeout = 120)
{
	struct ctf_limits lim = { .idle_s = 1 };
	char dir[PATH_MAX], err[512];
	struct ctf_stats st;

	tmpdir(dir, sizeof(dir));
	write_one_packet_trace(dir, 10 * 1024 * 1024);
	cr_assert_eq(ctf_read(dir, skip_bind, no_event, NULL, &lim, &st, err, sizeof(err)), 0,
		     "%s", err);
	cr_assert_eq(st.events, 10 * 1024 * 1024);
	rm_tree(dir);
}
