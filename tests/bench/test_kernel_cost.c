/* SPDX-License-Identifier: MIT */
/*
 * bench/kernel-cost on the checked-in recording of virtio-gpu behind the
 * emulated VT-d (traces/virtio-gpu): every DMA-API call paired with its
 * entry probe, as many as the kernel's events of each, and the bench JSON;
 * parts of the recording cut out with `trace-cmd split` (dma:* events
 * without their entry probes refused; an entry without its end unpaired);
 * bad input (exit 2). No figure of time is checked: they are what the
 * emulation took.
 */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/common/jsonq.h"
#include "tests/tools/run_gpuiso.h"

#define VIRTIO_GPU "traces/virtio-gpu/trace.dat"
#define EVENTS_TXT "traces/virtio-gpu/events.txt"

static const char *const calls[] = { "dma_map_page", "dma_unmap_page", "dma_map_sg", "dma_unmap_sg" };
static const char *const ops[] = { "alloc_contiguous", "free_contiguous", "alloc_mdl", "free_mdl" };

static void slurp(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n = f ? fread(buf, 1, len - 1, f) : 0;

	buf[n] = '\0';
	if (f)
		fclose(f);
}

/* bench/kernel-cost @args (NULL-terminated) from the source root, GPUISO=$GPUISO_BIN. */
static void kernel_cost(struct run *r, const char *const *args)
{
	const char *bin = getenv("GPUISO_BIN");

	cr_assert(bin, "GPUISO_BIN must be set");
	cr_assert_eq(setenv("GPUISO", bin, 1), 0);
	run_script(r, "bench/kernel-cost", args);
}

#define KCOST(r, ...) kernel_cost(r, (const char *const[]){ __VA_ARGS__, NULL })

/* The count of @name (SYSTEM:NAME) in the recording's events.txt (scripts/record-guest). */
static uint64_t recorded(const char *name)
{
	char line[256], n[128];
	uint64_t v, got = 0;
	FILE *f;

	cr_assert_eq(chdir(getenv("GPUISO_SOURCE_ROOT")), 0);
	f = fopen(EVENTS_TXT, "r");
	cr_assert(f, EVENTS_TXT);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%127s %" SCNu64, n, &v) == 2 && !strcmp(n, name))
			got = v;
	fclose(f);
	cr_assert_gt(got, 0, "%s: none in %s", name, EVENTS_TXT);
	return got;
}

/* The table line of @call: its counts and the kernel's figures. */
struct row {
	uint64_t n, p50, p90, max, op_n;
	char op[32];
};

static void row_of(const char *out, const char *call, struct row *w)
{
	char key[64];
	const char *l;

	snprintf(key, sizeof(key), "\n%s ", call);
	l = strstr(out, key);
	cr_assert(l, "no line of %s in:\n%s", call, out);
	cr_assert_eq(sscanf(l + 1, "%*s %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %31s %" SCNu64, &w->n,
			    &w->p50, &w->p90, &w->max, w->op, &w->op_n),
		     6, "%s", l);
}

/* The value of bench JSON metric @name, or -1. */
static double metric(const char *doc, const char *name)
{
	char key[128];
	const char *m, *v;

	snprintf(key, sizeof(key), "\"%s\"", name);
	m = strstr(doc, key);
	v = m ? strstr(m, "\"value\":") : NULL;
	return v ? strtod(v + 8, NULL) : -1;
}

/*
 * The timestamp (s, as `trace-cmd report -t` prints it) of the @nth event
 * named @name, or with @before of the event just before it.
 */
static void ts_of(const char *name, int nth, bool before, char *ts, size_t len)
{
	char line[4096], prev[4096] = "", key[64];
	const char *p, *l;
	FILE *r;

	cr_assert_eq(chdir(getenv("GPUISO_SOURCE_ROOT")), 0);
	r = popen("trace-cmd report -N -t -i " VIRTIO_GPU " 2>/dev/null", "r");
	cr_assert(r);
	snprintf(key, sizeof(key), ": %s:", name);
	ts[0] = '\0';
	while (fgets(line, sizeof(line), r)) {
		if (!strstr(line, key) || --nth > 0) {
			snprintf(prev, sizeof(prev), "%s", line);
			continue;
		}
		l = before ? prev : line;
		p = strstr(l, "]");
		cr_assert(p, "%s", l);
		p += strspn(p + 1, " ") + 1;
		snprintf(ts, len, "%.*s", (int)strcspn(p, ":"), p);
		break;
	}
	pclose(r);
	cr_assert(ts[0], "no %s in %s", name, VIRTIO_GPU);
}

/* The events of the recording from @from to @to (s, both in) into a trace.dat at @out. */
static void cut(const char *from, const char *to, char *out, size_t len)
{
	char cmd[512], dir[] = "/tmp/gpuiso-kcost-XXXXXX";

	cr_assert(mkdtemp(dir));
	snprintf(cmd, sizeof(cmd), "trace-cmd split -i %s -o %s/part.dat %s %s >/dev/null 2>&1", VIRTIO_GPU,
		 dir, from, to);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
	/* trace-cmd numbers its parts */
	snprintf(out, len, "%s/part.dat.1", dir);
	cr_assert_eq(access(out, R_OK), 0, "%s: not written", out);
}

static void cut_done(const char *part)
{
	char dir[256];

	unlink(part);
	snprintf(dir, sizeof(dir), "%.*s", (int)(strrchr(part, '/') - part), part);
	rmdir(dir);
}

Test(kernel_cost, every_call_of_the_recording_is_paired_with_its_entry)
{
	char json[] = "/tmp/gpuiso-kcost-jsonXXXXXX", doc[65536], name[96], v[64];
	struct run r;
	int fd = mkstemp(json);

	cr_assert(fd >= 0);
	close(fd);
	KCOST(&r, VIRTIO_GPU, "--json", json);
	cr_assert_eq(r.status, 0, "%s", r.err);
	for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++) {
		uint64_t want;
		struct row w;

		snprintf(name, sizeof(name), "dma:%s", calls[i]);
		want = recorded(name);
		row_of(r.out, calls[i], &w);
		cr_assert_eq(w.n, want, "%s: %" PRIu64 " paired, the kernel's %" PRIu64, calls[i], w.n, want);
		cr_assert_str_eq(w.op, ops[i]);
		cr_assert_eq(w.op_n, want, "%s: %" PRIu64 " in the replay", ops[i], w.op_n);
		/* no figure is judged: only that they are figures of the calls, in order */
		cr_assert(w.p50 > 0 && w.p50 <= w.p90 && w.p90 <= w.max, "%s: %" PRIu64 " %" PRIu64 " %" PRIu64,
			  calls[i], w.p50, w.p90, w.max);
		snprintf(name, sizeof(name), "kernel_cost.%s.count", calls[i]);
		slurp(json, doc, sizeof(doc));
		cr_assert_eq(metric(doc, name), (double)want, "%s in %s", name, doc);
	}
	cr_assert(strstr(r.out, "\nunpaired: 0 "), "%s", r.out);
	slurp(json, doc, sizeof(doc));
	unlink(json);
	cr_assert(jsonq_valid(doc), "%s", doc);
	cr_assert(jsonq_get(doc, "schema", v, sizeof(v)));
	cr_assert_str_eq(v, "gpuiso-bench/1");
	cr_assert(jsonq_get(doc, "suite", v, sizeof(v)));
	cr_assert_str_eq(v, "kernel-cost");
	cr_assert_eq(metric(doc, "kernel_cost.unpaired"), 0);
	cr_assert_gt(metric(doc, "kernel_cost.dma_map_sg.p50_over_modeled"), 0);
}

/* Without its entry probe a call has no start: the trace is refused, not guessed at. */
Test(kernel_cost, dma_events_without_their_entry_probes_are_refused)
{
	char map[32], end[32], part[128];
	struct run r;

	/* the first dma_map_page's iommu:map and its dma:dma_map_page, not its entry */
	ts_of("dma_map_page", 1, true, map, sizeof(map));
	ts_of("dma_map_page", 1, false, end, sizeof(end));
	cut(map, end, part, sizeof(part));
	KCOST(&r, part);
	cut_done(part);
	cr_assert_eq(r.status, 2, "%d: %s%s", r.status, r.out, r.err);
	cr_assert(strstr(r.err, "1 dma:dma_map_page events but no entry probe") &&
		  strstr(r.err, "dma_map_page_attrs"), "%s", r.err);
}

/* An entry whose end the recording lacks is counted unpaired, not a cost. */
Test(kernel_cost, an_entry_without_its_end_is_unpaired)
{
	char from[32], to[32], part[128];
	struct row w;
	struct run r;

	/* the first dma_map_page call whole, and the second's entry and iommu:map only */
	ts_of("dma_map_page_attrs", 1, false, from, sizeof(from));
	ts_of("dma_map_page_attrs", 2, false, to, sizeof(to));
	cut(from, to, part, sizeof(part));
	KCOST(&r, part);
	cut_done(part);
	cr_assert_eq(r.status, 0, "%s", r.err);
	row_of(r.out, "dma_map_page", &w);
	cr_assert_eq(w.n, 1);
	cr_assert(strstr(r.out, "\nunpaired: 1 (ends without their entry 0, entries left open 1,"), "%s", r.out);
}

Test(kernel_cost, bad_input_exits_2_saying_what)
{
	static const struct {
		const char *args[4];
		const char *says;
	} cases[] = {
		{ { NULL }, "usage: bench/kernel-cost TRACE.dat" },
		{ { VIRTIO_GPU, "--maps", "x" }, "unknown option '--maps'" },
		{ { VIRTIO_GPU, "--map" }, "usage:" },
		{ { VIRTIO_GPU, VIRTIO_GPU }, "usage:" },
		{ { "traces/virtio-gpu/none.dat" }, "traces/virtio-gpu/none.dat: no such file" },
		{ { "traces/virtio-gpu/README.md" }, "README.md: trace-cmd cannot read it as a trace.dat" },
		{ { "tests/data/ftrace/host-v7.dat" }, "host-v7.dat: no DMA-API mapping event" },
		{ { VIRTIO_GPU, "--map", "traces/virtio-gpu/events.txt" }, "gpuiso replay refuses" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct run r;

		kernel_cost(&r, cases[i].args);
		cr_assert_eq(r.status, 2, "case %zu: exit %d: %s%s", i, r.status, r.out, r.err);
		cr_assert(strstr(r.err, cases[i].says), "case %zu: %s", i, r.err);
	}
}
