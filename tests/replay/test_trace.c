/* SPDX-License-Identifier: MIT */
/*
 * The tracepoints (replay/trace.h): they return at once when no session
 * wants them (what they cost then is the micro benchmark's, bench/suites/
 * micro.c), and a real LTTng recording of them (scripts/record, a session
 * daemon, babeltrace2) gives back every event with its field values.
 *
 * The recording test needs lttng-tools and babeltrace2 and starts a session
 * daemon when none runs; when that is impossible it FAILS with the reason.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "replay/trace.h"

#if !GPUISO_HAVE_TRACING

Test(trace, compiled_out_calls_are_no_ops)
{
	struct wl_event e = { .kind = WL_ALLOC_MDL };
	struct core_fault f = { 0 };
	struct core_power_record r = { 0 };
	struct core_violation v = { 0 };

	trace_wl(&e);
	trace_op(WL_ALLOC_MDL, 0, 1, 0, 0, 0, 0);
	trace_dma_fault(&f);
	trace_fault_injected(0);
	trace_power(&r);
	trace_violation(&v);
}

#else /* GPUISO_HAVE_TRACING */

#define RECORD_N 1000 /* repetitions of every kind in the recording test */

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The helper executable (tests/replay/emit.c), next to this test binary. */
static void emit_path(char *buf, size_t len)
{
	const char *env = getenv("GPUISO_TRACE_EMIT");
	char self[PATH_MAX];
	ssize_t n;

	if (env) {
		snprintf(buf, len, "%s", env);
		return;
	}
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	cr_assert_gt(n, 0, "readlink /proc/self/exe: %s", strerror(errno));
	self[n] = '\0';
	snprintf(buf, len, "%s/trace_emit", dirname(self));
	cr_assert_eq(access(buf, X_OK), 0, "helper %s: %s (build the trace_emit target)", buf,
		     strerror(errno));
}

/* Runs @cmd with sh; its stdout and stderr into *out (malloc'd). Return: exit status. */
static int run(const char *cmd, char **out)
{
	FILE *p = popen(cmd, "r");
	size_t len = 0, cap = 4096;
	char *buf = malloc(cap);
	size_t n;
	int st;

	cr_assert_not_null(p, "popen %s", cmd);
	cr_assert_not_null(buf);
	while ((n = fread(buf + len, 1, cap - len - 1, p)) > 0) {
		len += n;
		if (cap - len < 2) {
			cap *= 2;
			buf = realloc(buf, cap);
			cr_assert_not_null(buf);
		}
	}
	buf[len] = '\0';
	st = pclose(p);
	*out = buf;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

/* With no session enabling them, every call returns at once (and nothing waits to register). */
Test(trace, untraced_calls_return, .timeout = 60)
{
	struct core_fault f = { .adapter = 1, .iova = 0x1000, .write = true, .reason = 5 };
	struct core_power_record r = { .adapter = 1, .to = POWER_D3, .path = PATH_PINNED };
	struct core_violation v = { .code = CORE_V_BAD_HANDLE, .event = 3 };
	char emit[PATH_MAX + 32], cmd[2 * PATH_MAX], *out;
	uint64_t t0;
	int rc;

	for (uint32_t k = 0; k <= WL_NKINDS + 1; k++) { /* two unknown kinds too */
		struct wl_event e = { .kind = k, .v = { 1, 2, 3, 4, 5, 6, 7, 8 } };

		trace_wl(&e);
	}
	trace_op(WL_DMA, 0, 7, -EFAULT, 10, 20, 30);
	trace_dma_fault(&f);
	trace_fault_injected(FP_IOMMU_MAP);
	trace_power(&r);
	trace_violation(&v);

	/* A fresh process, untraced: starts, emits, exits (LTTNG_UST_REGISTER_TIMEOUT=0). */
	emit_path(emit, sizeof(emit));
	snprintf(cmd, sizeof(cmd), "LTTNG_UST_REGISTER_TIMEOUT=0 '%s' 100 --harness 2>&1", emit);
	t0 = now_ns();
	rc = run(cmd, &out);
	cr_assert_eq(rc, 0, "%s: exit %d: %s", cmd, rc, out);
	fprintf(stderr, "trace: untraced helper run (2100 events) took %.1f ms\n",
		(double)(now_ns() - t0) / 1e6);
	free(out);
}

/* "gpuiso_wl:NAME: {ctx}, { a = 1, b = 2 }" -> "NAME a=1 b=2"; NULL when not @prov's. */
static char *bt_event(const char *line, const char *prov, char *buf, size_t len)
{
	char key[64];
	const char *p, *name, *end, *m;
	size_t n;

	snprintf(key, sizeof(key), " %s:", prov);
	p = strstr(line, ") "); /* after the "(+delta)" */
	p = strstr(p ? p : line, key);
	if (!p)
		return NULL;
	name = p + strlen(key);
	end = strchr(name, ':');
	m = strrchr(line, '{'); /* the payload, the last structure */
	if (!end || !m)
		return NULL;
	n = (size_t)snprintf(buf, len, "%.*s", (int)(end - name), name);
	/* members "a = 1, b = 2 }" */
	for (m++; n < len;) {
		size_t nl, vl;
		const char *eq;

		m += strspn(m, " ,");
		if (*m == '}' || !*m)
			break;
		eq = strstr(m, " = ");
		if (!eq)
			return NULL;
		nl = (size_t)(eq - m);
		vl = strcspn(eq + 3, ", }");
		n += (size_t)snprintf(buf + n, len - n, " %.*s=%.*s", (int)nl, m, (int)vl, eq + 3);
		m = eq + 3 + vl;
	}
	return buf;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

struct lines {
	char **v;
	size_t n, cap;
};

static void lines_add(struct lines *l, const char *s)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 1024;
		l->v = realloc(l->v, l->cap * sizeof(*l->v));
		cr_assert_not_null(l->v);
	}
	l->v[l->n] = strdup(s);
	cr_assert_not_null(l->v[l->n]);
	l->n++;
}

static void lines_free(struct lines *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
}

/*
 * A real recording: scripts/record runs the helper under a session daemon,
 * babeltrace2 reads the trace back, and every event comes back with its
 * values, no more and no less.
 */
Test(trace, recording_gives_back_every_event, .timeout = 300)
{
	static const char *const harness[] = {
		"op kind=5 adapter=1 id=42 status=-12 latency_ns=1000 modeled_ns=2000 event=99",
		("dma_fault adapter=1 phys=2 iova=0xDEAD000 write=1 reason=0x5 domain=3 cause=5 "
		 "event=9 by_event=7"),
		"fault_injected point=8",
		("power adapter=3 phys=1 state=3 path=1 chunks=16 bytes=1048576 completed=1 "
		 "copy_ns=12345"),
		"violation code=4 event=77",
	};
	const char *root = getenv("GPUISO_SOURCE_ROOT");
	char dir[] = "/tmp/gpuiso-test-trace.XXXXXX";
	char emit[PATH_MAX + 32], cmd[4 * PATH_MAX], line[1024], ev[1024], *out;
	struct lines want = { 0 }, got = { 0 };
	size_t per_kind[WL_NKINDS] = { 0 };
	bool seen_harness[ARRAY_SIZE(harness)] = { 0 };
	FILE *f;
	int rc;

	cr_assert_not_null(root, "GPUISO_SOURCE_ROOT is not set (meson's test_env sets it)");
	cr_assert_not_null(mkdtemp(dir), "mkdtemp: %s", strerror(errno));
	emit_path(emit, sizeof(emit));

	snprintf(cmd, sizeof(cmd),
		 "'%s/scripts/record' -o '%s/trace' --all -- '%s' %d '%s/expect' --harness 2>&1",
		 root, dir, emit, RECORD_N, dir);
	rc = run(cmd, &out);
	cr_assert_eq(rc, 0, "recording failed (exit %d%s): %s\ncommand: %s", rc,
		     rc == 3 ? ": no LTTng session daemon / lttng-tools here" : "", out, cmd);
	cr_assert_null(strstr(out, "WARNING"), "scripts/record: %s", out);
	free(out);

	/* What the helper emitted. */
	snprintf(cmd, sizeof(cmd), "%s/expect", dir);
	f = fopen(cmd, "r");
	cr_assert_not_null(f, "%s: %s", cmd, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		lines_add(&want, line);
	}
	fclose(f);
	cr_assert_eq(want.n, (size_t)RECORD_N * WL_NKINDS);

	/* What babeltrace2 reads back; its warnings (discarded events) go to a file. */
	snprintf(cmd, sizeof(cmd), "babeltrace2 '%s/trace' 2>'%s/bt.err'", dir, dir);
	f = popen(cmd, "r");
	cr_assert_not_null(f, "%s", cmd);
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (bt_event(line, "gpuiso_wl", ev, sizeof(ev))) {
			char name[64];
			int k;

			lines_add(&got, ev);
			snprintf(name, sizeof(name), "%.*s", (int)strcspn(ev, " "), ev);
			k = wl_kind_lookup(name);
			cr_assert_geq(k, 0, "unknown event in the recording: %s", line);
			per_kind[k]++;
		} else if (bt_event(line, "gpuiso", ev, sizeof(ev))) {
			size_t i;

			for (i = 0; i < ARRAY_SIZE(harness); i++)
				if (!strcmp(ev, harness[i]))
					break;
			cr_assert_lt(i, ARRAY_SIZE(harness), "unexpected harness event: %s", line);
			cr_assert_not(seen_harness[i], "twice: %s", line);
			seen_harness[i] = true;
		} else {
			cr_assert_fail("not a gpuiso event: %s", line);
		}
	}
	rc = pclose(f);
	cr_assert_eq(rc, 0, "%s: status %d", cmd, rc);
	snprintf(cmd, sizeof(cmd), "cat '%s/bt.err'", dir);
	run(cmd, &out);
	cr_assert_str_empty(out, "babeltrace2 reported: %s", out);
	free(out);

	for (unsigned int k = 0; k < WL_NKINDS; k++)
		cr_assert_eq(per_kind[k], RECORD_N, "%s: %zu events recorded, %d emitted",
			     wl_catalogue[k].name, per_kind[k], RECORD_N);
	for (size_t i = 0; i < ARRAY_SIZE(harness); i++)
		cr_assert(seen_harness[i], "missing harness event: %s", harness[i]);
	cr_assert_eq(got.n, want.n, "%zu workload events recorded, %zu emitted", got.n, want.n);
	qsort(want.v, want.n, sizeof(*want.v), cmp_str);
	qsort(got.v, got.n, sizeof(*got.v), cmp_str);
	for (size_t i = 0; i < want.n; i++)
		cr_assert_str_eq(got.v[i], want.v[i], "recorded event differs from the emitted one");

	lines_free(&want);
	lines_free(&got);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	cr_assert_eq(system(cmd), 0);
}

#endif /* GPUISO_HAVE_TRACING */
