/* SPDX-License-Identifier: MIT */
/*
 * Round trip through a real LTTng session: record `gpuiso replay` of a
 * generated trace with scripts/record, then replay the recording. The
 * recorded workload operations must be the original's, in order, field by
 * field, and the recording must replay as cleanly.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "replay/ctf.h"

struct seq {
	struct wl_event *ev;
	size_t n, cap;
};

static int bind_all(void *ctx, const char *name, struct ctf_binding *b)
{
	int kind = wl_kind_lookup(name);

	b->tag = kind;
	if (kind < 0)
		return 0;
	b->n = wl_catalogue[kind].nfields;
	for (unsigned int i = 0; i < b->n; i++)
		b->names[i] = wl_catalogue[kind].fields[i].name;
	return 0;
}

static int collect(void *ctx, int tag, uint64_t index, uint64_t ts, const struct ctf_value *v)
{
	struct seq *s = ctx;
	struct wl_event e = { .kind = (uint32_t)tag };

	for (unsigned int i = 0; i < wl_catalogue[tag].nfields; i++) {
		cr_assert(v[i].present, "event %llu lacks %s", (unsigned long long)index,
			  wl_catalogue[tag].fields[i].name);
		e.v[wl_catalogue[tag].fields[i].slot] = v[i].u;
	}
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 1024;
		s->ev = realloc(s->ev, s->cap * sizeof(*s->ev));
		cr_assert_not_null(s->ev);
	}
	s->ev[s->n++] = e; /* timestamps differ: the tracer has its own clock */
	return 0;
}

static void read_seq(const char *dir, struct seq *s)
{
	char err[512] = "";

	memset(s, 0, sizeof(*s));
	cr_assert_eq(ctf_read(dir, bind_all, collect, s, NULL, NULL, err, sizeof(err)), 0, "%s: %s", dir,
		     err);
}

static int run(const char *cmd, char *out, size_t len)
{
	FILE *p = popen(cmd, "r");
	size_t n;

	cr_assert_not_null(p);
	n = fread(out, 1, len - 1, p);
	out[n] = '\0';
	return WEXITSTATUS(pclose(p));
}

Test(roundtrip, a_recorded_replay_replays_the_same_operations, .timeout = 240)
{
	const char *bin = getenv("GPUISO_BIN"), *root = getenv("GPUISO_SOURCE_ROOT");
	char dir[] = "/tmp/gpuiso-roundtrip-XXXXXX", cmd[2048], out[65536];
	struct seq orig, rec;

	cr_assert(bin && root);
	cr_assert_not_null(mkdtemp(dir));
	snprintf(cmd, sizeof(cmd), "%s trace gen --profile power-cycle --events 3000 --seed 5 -o %s/orig 2>&1",
		 bin, dir);
	cr_assert_eq(run(cmd, out, sizeof(out)), 0, "%s", out);
	snprintf(cmd, sizeof(cmd),
		 "%s/scripts/record -o %s/rec -- %s replay %s/orig --no-cache "
		 "--scenario %s/traces/scenarios/lda-chain.yaml 2>&1",
		 root, dir, bin, dir, root);
	cr_assert_eq(run(cmd, out, sizeof(out)), 0, "recording failed:\n%s", out);
	cr_assert_null(strstr(out, "iscarded"), "events were lost:\n%s", out);

	read_seq(dir, &orig); /* both traces sit below dir: read each on its own */
	free(orig.ev);
	snprintf(cmd, sizeof(cmd), "%s/orig", dir);
	read_seq(cmd, &orig);
	snprintf(cmd, sizeof(cmd), "%s/rec", dir);
	read_seq(cmd, &rec);
	cr_assert_eq(orig.n, 3000);
	cr_assert_eq(rec.n, orig.n, "recorded %zu of %zu operations", rec.n, orig.n);
	for (size_t i = 0; i < orig.n; i++) {
		char a[160], b[160];

		cr_assert_str_eq(wl_format(&rec.ev[i], a, sizeof(a)), wl_format(&orig.ev[i], b, sizeof(b)),
				 "operation %zu differs", i);
	}

	/* the recording is a workload trace: it replays, as cleanly as the original */
	snprintf(cmd, sizeof(cmd), "%s replay %s/rec --no-cache --scenario %s/traces/scenarios/lda-chain.yaml 2>&1",
		 bin, dir, root);
	cr_assert_eq(run(cmd, out, sizeof(out)), 0, "%s", out);
	cr_assert(strstr(out, "3000 used, 0 ignored, 0 unmatched"), "%s", out);
	cr_assert(strstr(out, "violations: 0"), "%s", out);
	free(orig.ev);
	free(rec.ev);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	cr_assert_eq(system(cmd), 0);
}
