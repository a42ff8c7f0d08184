/* SPDX-License-Identifier: MIT */
/*
 * CTF writing: byte-identical output for the same events, a trace the
 * babeltrace2 CLI reads back (names, field values, timestamps, packets,
 * trimming), and the error contract.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "replay/ctf.h"
#include "replay/gen.h"

static char tmp[64];

static void tmp_make(void)
{
	snprintf(tmp, sizeof(tmp), "/tmp/gpuiso-ctfw-XXXXXX");
	cr_assert_not_null(mkdtemp(tmp));
}

/* Remove @path and everything below it (two levels is all these tests make). */
static void rm_tree(const char *path)
{
	char sub[4096];
	struct dirent *de;
	struct stat st;
	DIR *d;

	if (lstat(path, &st))
		return;
	if (!S_ISDIR(st.st_mode)) {
		unlink(path);
		return;
	}
	d = opendir(path);
	while (d && (de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", path, de->d_name);
		rm_tree(sub);
	}
	if (d)
		closedir(d);
	rmdir(path);
}

static void tmp_remove(void)
{
	rm_tree(tmp);
}

TestSuite(ctf_write, .init = tmp_make, .fini = tmp_remove);

static char *sub(const char *name)
{
	static char path[4][256];
	static int turn;
	char *p = path[turn++ % 4];

	snprintf(p, 256, "%s/%s", tmp, name);
	return p;
}

static int write_gen(const char *dir, const char *profile, uint64_t events, uint64_t seed,
		     char *err, size_t errlen)
{
	struct gen *g;
	int rc;

	cr_assert_eq(gen_create(profile, events, seed, &g), 0);
	rc = ctf_write(dir, gen_next, g, err, errlen);
	gen_destroy(g);
	return rc;
}

static void *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	cr_assert_not_null(f, "%s", path);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc((size_t)n + 1);
	cr_assert_not_null(buf);
	cr_assert_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	*len = (size_t)n;
	return buf;
}

/* The sorted names of the files in @dir, joined by '\n'. */
static void list_files(const char *dir, char *out, size_t len)
{
	struct dirent **names;
	int n = scandir(dir, &names, NULL, alphasort);
	size_t used = 0;

	cr_assert_geq(n, 0, "%s", dir);
	out[0] = '\0';
	for (int i = 0; i < n; i++) {
		if (names[i]->d_name[0] != '.')
			used += (size_t)snprintf(out + used, len - used, "%s\n", names[i]->d_name);
		free(names[i]);
	}
	free(names);
}

/* Whether every file of @a is in @b with the same bytes, and no other. */
static bool same_tree(const char *a, const char *b)
{
	char la[1024], lb[1024], pa[4096], pb[4096];
	bool same = true;

	list_files(a, la, sizeof(la));
	list_files(b, lb, sizeof(lb));
	if (strcmp(la, lb) || !la[0])
		return false;
	for (char *name = strtok(la, "\n"); name && same; name = strtok(NULL, "\n")) {
		size_t na, nb;
		void *da, *db;

		snprintf(pa, sizeof(pa), "%s/%s", a, name);
		snprintf(pb, sizeof(pb), "%s/%s", b, name);
		da = slurp(pa, &na);
		db = slurp(pb, &nb);
		same = na == nb && !memcmp(da, db, na);
		free(da);
		free(db);
	}
	return same;
}

/* Run the babeltrace2 CLI on @dir: its lines counted, the first and @want'ed copied. */
struct cli_out {
	int status;
	uint64_t lines;
	char first[512];
	char match[512]; /* first line containing every string of @want */
};

static struct cli_out cli_read(const char *args, const char *dir, const char *const *want)
{
	struct cli_out o = { 0 };
	char cmd[4096], line[4096];
	FILE *p;

	snprintf(cmd, sizeof(cmd), "babeltrace2 %s '%s' 2>/dev/null", args, dir);
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	while (fgets(line, sizeof(line), p)) {
		bool all = want != NULL;

		if (!o.lines)
			snprintf(o.first, sizeof(o.first), "%.500s", line);
		for (size_t i = 0; want && want[i]; i++)
			all = all && strstr(line, want[i]);
		if (all && !o.match[0])
			snprintf(o.match, sizeof(o.match), "%.500s", line);
		o.lines++;
	}
	o.status = pclose(p);
	return o;
}

Test(ctf_write, same_events_give_byte_identical_folders)
{
	char err[512];

	cr_assert_eq(write_gen(sub("a"), "desktop", 20000, 1, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(write_gen(sub("b"), "desktop", 20000, 1, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(write_gen(sub("c"), "desktop", 20000, 2, err, sizeof(err)), 0, "%s", err);
	cr_assert(same_tree(sub("a"), sub("b")), "same seed, different bytes");
	cr_assert_not(same_tree(sub("a"), sub("c")), "different seeds, same bytes");
}

/* The trace UUID is the content's, so two different traces never share one. */
Test(ctf_write, trace_uuid_depends_on_the_events_only)
{
	size_t na, nb;
	char err[512], *ma, *mb, *ua, *ub;

	cr_assert_eq(write_gen(sub("a"), "game", 100, 1, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(write_gen(sub("b"), "game", 100, 2, err, sizeof(err)), 0, "%s", err);
	ma = slurp(sub("a/metadata"), &na);
	mb = slurp(sub("b/metadata"), &nb);
	ua = strstr(strstr(ma, "trace {"), "uuid = \"");
	ub = strstr(strstr(mb, "trace {"), "uuid = \"");
	cr_assert(ua && ub);
	cr_assert_neq(strncmp(ua, ub, 44), 0, "two traces, one UUID: %.44s", ua);
	/* nothing host- or time-dependent in the environment */
	cr_assert_not_null(strstr(ma, "tracer_name = \"gpuiso\""));
	cr_assert_null(strstr(ma, "hostname"));
	free(ma);
	free(mb);
}

Test(ctf_write, babeltrace2_reads_it_back)
{
	static const char *const want[] = { "gpuiso_wl:alloc_mdl", "bytes = ", "id = ", NULL };
	struct cli_out o;
	char err[512];

	/* more than two packets' worth */
	cr_assert_eq(write_gen(sub("t"), "desktop", 10000, 3, err, sizeof(err)), 0, "%s", err);
	o = cli_read("", sub("t"), want);
	cr_assert_eq(o.status, 0);
	cr_assert_eq(o.lines, 10000);
	cr_assert(o.match[0], "no alloc_mdl line with its fields; first line: %s", o.first);
}

/* Hand-made events: every field and the timestamp come back as written. */
struct script {
	const struct wl_event *ev;
	size_t n, at;
	int fail_with; /* returned instead of the event at index n (0: end normally) */
};

static int script_next(void *ctx, struct wl_event *e)
{
	struct script *s = ctx;

	if (s->at == s->n)
		return s->fail_with;
	*e = s->ev[s->at++];
	return 1;
}

Test(ctf_write, values_and_timestamps_round_trip)
{
	const struct wl_event ev[] = {
		{ .ts = 1000000000, .kind = WL_DMA,
		  .v = { [WL_ADAPTER] = 1, [WL_PHYS] = 2, [WL_ID] = 3, [WL_OFFSET] = 4,
			 [WL_BYTES] = 5, [WL_ARG] = 1 } },
		{ .ts = 1000000000, .kind = WL_ADL_ALLOC, /* equal timestamps are allowed */
		  .v = { [WL_ADAPTER] = 0, [WL_ID] = 9, [WL_REF] = 8, [WL_OFFSET] = 8192,
			 [WL_BYTES] = 4096 } },
		{ .ts = 2500000001, .kind = WL_MEMORY,
		  .v = { [WL_OFFSET] = UINT64_MAX, [WL_BYTES] = 1ull << 40 } },
	};
	static const char *const dma[] = { "gpuiso_wl:dma", "adapter = 1, phys = 2, id = 3, offset = 4, bytes = 5, write = 1", NULL };
	static const char *const adl[] = { "gpuiso_wl:adl_alloc", "id = 9, pmo = 8, offset = 8192, bytes = 4096", NULL };
	static const char *const mem[] = { "[2.500000001]", "gpuiso_wl:memory",
		"commit_available = 18446744073709551615, lockable_available = 1099511627776", NULL };
	struct script s = { .ev = ev, .n = 3 };
	struct cli_out o;
	char err[512];

	cr_assert_eq(ctf_write(sub("t"), script_next, &s, err, sizeof(err)), 0, "%s", err);
	o = cli_read("--clock-seconds", sub("t"), dma);
	cr_assert_eq(o.lines, 3);
	cr_assert(o.match[0], "%s", o.first);
	cr_assert_not_null(strstr(o.first, "[1.000000000]"), "%s", o.first);
	cr_assert(cli_read("--clock-seconds", sub("t"), adl).match[0]);
	cr_assert(cli_read("--clock-seconds", sub("t"), mem).match[0]);
}

/* Packets carry begin/end snapshots: the trimmer (which needs them) works. */
Test(ctf_write, trimming_works)
{
	struct cli_out all, part;
	char err[512];

	cr_assert_eq(write_gen(sub("t"), "game", 9000, 4, err, sizeof(err)), 0, "%s", err);
	all = cli_read("--clock-seconds", sub("t"), NULL);
	cr_assert_eq(all.lines, 9000);
	part = cli_read("--clock-seconds --begin=1.1 --end=1.2", sub("t"), NULL);
	cr_assert_eq(part.status, 0);
	cr_assert_gt(part.lines, 0);
	cr_assert_lt(part.lines, 9000);
}

Test(ctf_write, an_empty_folder_is_fine)
{
	char err[512];

	cr_assert_eq(mkdir(sub("e"), 0755), 0);
	cr_assert_eq(write_gen(sub("e"), "remap", 50, 1, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(cli_read("", sub("e"), NULL).lines, 50);
}

Test(ctf_write, refuses_a_non_empty_folder_or_a_file)
{
	char err[512] = "";
	int fd;

	cr_assert_eq(mkdir(sub("full"), 0755), 0);
	fd = open(sub("full/keep"), O_CREAT | O_WRONLY, 0644);
	cr_assert_geq(fd, 0);
	close(fd);
	cr_assert_eq(write_gen(sub("full"), "desktop", 10, 1, err, sizeof(err)), -EEXIST);
	cr_assert_not_null(strstr(err, "not empty"), "%s", err);
	cr_assert_eq(access(sub("full/keep"), F_OK), 0, "the existing file was touched");
	cr_assert_neq(access(sub("full/metadata"), F_OK), 0);
	cr_assert_eq(write_gen(sub("full/keep"), "desktop", 10, 1, err, sizeof(err)), -EEXIST);
}

Test(ctf_write, a_timestamp_going_back_is_refused_and_nothing_is_left)
{
	const struct wl_event ev[] = {
		{ .ts = 2000, .kind = WL_FENCE_CREATE, .v = { [WL_ID] = 1 } },
		{ .ts = 1000, .kind = WL_FENCE_DESTROY, .v = { [WL_ID] = 1 } },
	};
	struct script s = { .ev = ev, .n = 2 };
	char err[512] = "";

	cr_assert_eq(ctf_write(sub("t"), script_next, &s, err, sizeof(err)), -EINVAL);
	cr_assert_not_null(strstr(err, "event 1"), "%s", err);
	cr_assert_neq(access(sub("t"), F_OK), 0, "a partial trace was left");
}

Test(ctf_write, an_unknown_kind_is_refused)
{
	const struct wl_event ev[] = { { .ts = 1, .kind = WL_NKINDS } };
	struct script s = { .ev = ev, .n = 1 };
	char err[512] = "";

	cr_assert_eq(ctf_write(sub("t"), script_next, &s, err, sizeof(err)), -EINVAL);
	cr_assert_not_null(strstr(err, "unknown kind"), "%s", err);
}

Test(ctf_write, the_producers_error_is_returned)
{
	const struct wl_event ev[] = { { .ts = 1, .kind = WL_FENCE_CREATE, .v = { [WL_ID] = 1 } } };
	struct script s = { .ev = ev, .n = 1, .fail_with = -EIO };
	char err[512] = "";

	/* an empty folder that existed stays, empty */
	cr_assert_eq(mkdir(sub("t"), 0755), 0);
	cr_assert_eq(ctf_write(sub("t"), script_next, &s, err, sizeof(err)), -EIO);
	cr_assert_neq(err[0], '\0');
	cr_assert_eq(access(sub("t"), F_OK), 0);
	cr_assert_neq(access(sub("t/metadata"), F_OK), 0);
}

Test(ctf_write, bad_arguments)
{
	char err[64];

	cr_assert_eq(ctf_write(NULL, gen_next, NULL, err, sizeof(err)), -EINVAL);
	cr_assert_eq(ctf_write(sub("x"), NULL, NULL, err, sizeof(err)), -EINVAL);
}

/* No events at all: still a trace, with no packets. */
Test(ctf_write, no_events)
{
	struct script s = { .n = 0 };
	char err[512] = "";

	cr_assert_eq(ctf_write(sub("t"), script_next, &s, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(access(sub("t/metadata"), F_OK), 0);
	cr_assert_eq(cli_read("", sub("t"), NULL).lines, 0);
}

/* A lossy producer: the events of @ev, each with the loss before it; @tail after the last. */
struct lossy {
	const struct wl_event *ev;
	const struct ctf_loss *loss;
	size_t n, at;
	struct ctf_loss tail;
};

static int lossy_next(void *ctx, struct wl_event *e, struct ctf_loss *loss)
{
	struct lossy *l = ctx;

	if (l->at == l->n) {
		*loss = l->tail;
		return 0;
	}
	*loss = l->loss[l->at];
	*e = l->ev[l->at++];
	return 1;
}

/* What ctf_read() had counted lost when it delivered each event. */
struct seen {
	const struct ctf_stats *st;
	uint64_t discarded[8], lost[8];
	size_t n;
};

static int seen_bind(void *ctx, const char *name, struct ctf_binding *b)
{
	b->tag = 0;
	b->n = 0;
	return 0;
}

static int seen_event(void *ctx, int tag, uint64_t index, uint64_t ts, const struct ctf_value *v)
{
	struct seen *s = ctx;

	cr_assert_lt(s->n, 8);
	s->discarded[s->n] = s->st->discarded;
	s->lost[s->n++] = s->st->lost_packets;
	return 0;
}

/* Losses before the first event, between two, and after the last are read where they were. */
Test(ctf_write, losses_are_read_back_where_they_were)
{
	const struct wl_event ev[] = {
		{ .ts = 10, .kind = WL_FENCE_CREATE, .v = { [WL_ID] = 1 } },
		{ .ts = 20, .kind = WL_FENCE_CREATE, .v = { [WL_ID] = 2 } },
		{ .ts = 30, .kind = WL_FENCE_DESTROY, .v = { [WL_ID] = 1 } },
		{ .ts = 30, .kind = WL_FENCE_DESTROY, .v = { [WL_ID] = 2 } },
	};
	const struct ctf_loss loss[] = { { 3, 0 }, { 0, 0 }, { 4, 2 }, { 0, 0 } };
	struct lossy l = { .ev = ev, .loss = loss, .n = 4, .tail = { 5, 1 } };
	struct ctf_stats st = { 0 };
	struct seen s = { .st = &st };
	const uint64_t discarded[] = { 3, 3, 7, 7 }, lost[] = { 0, 0, 2, 2 };
	char err[512] = "";

	cr_assert_eq(ctf_write_lossy(sub("t"), lossy_next, &l, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(ctf_read(sub("t"), seen_bind, seen_event, &s, NULL, &st, err, sizeof(err)), 0,
		     "%s", err);
	cr_assert_eq(s.n, 4);
	for (size_t i = 0; i < 4; i++) {
		cr_assert_eq(s.discarded[i], discarded[i], "event %zu: %llu", i,
			     (unsigned long long)s.discarded[i]);
		cr_assert_eq(s.lost[i], lost[i], "event %zu: %llu", i, (unsigned long long)s.lost[i]);
	}
	cr_assert_eq(st.discarded, 12);
	cr_assert_eq(st.lost_packets, 3);
	/* and babeltrace2 sees the trace as one that lost events */
	cr_assert_eq(cli_read("", sub("t"), NULL).lines, 4);
}

/* Nothing lost, or nothing but a loss: both are traces; no producer is an error. */
Test(ctf_write, lossy_writer_edge_cases)
{
	const struct wl_event ev[] = { { .ts = 1, .kind = WL_FENCE_CREATE, .v = { [WL_ID] = 1 } } };
	const struct ctf_loss none[] = { { 0, 0 } };
	struct lossy l = { .ev = ev, .loss = none, .n = 1 };
	struct lossy only = { .tail = { 9, 0 } };
	struct ctf_stats st = { 0 };
	struct seen s = { .st = &st };
	char err[512] = "";

	cr_assert_eq(ctf_write_lossy(sub("t"), lossy_next, &l, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(ctf_read(sub("t"), seen_bind, seen_event, &s, NULL, &st, err, sizeof(err)), 0);
	cr_assert_eq(s.n, 1);
	cr_assert_eq(st.discarded + st.lost_packets, 0);
	cr_assert_eq(ctf_write_lossy(sub("u"), lossy_next, &only, err, sizeof(err)), 0, "%s", err);
	s.n = 0;
	cr_assert_eq(ctf_read(sub("u"), seen_bind, seen_event, &s, NULL, &st, err, sizeof(err)), 0);
	cr_assert_eq(s.n, 0);
	cr_assert_eq(st.discarded, 9);
	cr_assert_eq(ctf_write_lossy(sub("v"), NULL, &l, err, sizeof(err)), -EINVAL);
}

/*
 * The limits of what a CTF trace carries (CTF_TS_MAX, CTF_LOST_*_MAX):
 * at them, the trace reads back; past them, it is refused before anything
 * is left, rather than written for every later read to abort on.
 */
Test(ctf_write, what_a_ctf_trace_cannot_carry_is_refused)
{
	const struct wl_event at_max[] = {
		{ .ts = 0, .kind = WL_FENCE_CREATE, .v = { [WL_ID] = 1 } },
		{ .ts = CTF_TS_MAX, .kind = WL_FENCE_DESTROY, .v = { [WL_ID] = 1 } },
	};
	const struct wl_event past[] = {
		{ .ts = 0, .kind = WL_FENCE_CREATE, .v = { [WL_ID] = 1 } },
		{ .ts = CTF_TS_MAX + 1, .kind = WL_FENCE_DESTROY, .v = { [WL_ID] = 1 } },
	};
	const struct ctf_loss most[] = { { 1, 1 }, { CTF_LOST_EVENTS_MAX - 1, CTF_LOST_PACKETS_MAX - 1 } };
	const struct ctf_loss events[] = { { 1, 0 }, { CTF_LOST_EVENTS_MAX, 0 } };
	const struct ctf_loss packets[] = { { 0, 1 }, { 0, CTF_LOST_PACKETS_MAX } };
	struct script s = { .ev = at_max, .n = 2 };
	struct lossy l = { .ev = at_max, .loss = most, .n = 2 };
	struct ctf_stats st = { 0 };
	struct seen seen = { .st = &st };
	char err[512] = "";

	cr_assert_eq(ctf_write(sub("at"), script_next, &s, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(ctf_read(sub("at"), seen_bind, seen_event, &seen, NULL, &st, err, sizeof(err)),
		     0, "%s", err);
	cr_assert_eq(seen.n, 2);
	cr_assert_eq(st.last_ts, CTF_TS_MAX);
	s = (struct script){ .ev = past, .n = 2 };
	cr_assert_eq(ctf_write(sub("past"), script_next, &s, err, sizeof(err)), -EINVAL);
	cr_assert_not_null(strstr(err, "event 1: timestamp 9223372036854775807 past the largest"),
			   "%s", err);
	cr_assert_neq(access(sub("past"), F_OK), 0, "a trace no reader takes was left");

	cr_assert_eq(ctf_write_lossy(sub("most"), lossy_next, &l, err, sizeof(err)), 0, "%s", err);
	seen.n = 0;
	cr_assert_eq(ctf_read(sub("most"), seen_bind, seen_event, &seen, NULL, &st, err,
			      sizeof(err)), 0, "%s", err);
	cr_assert_eq(seen.n, 2);
	cr_assert_eq(st.discarded, CTF_LOST_EVENTS_MAX);
	cr_assert_eq(st.lost_packets, CTF_LOST_PACKETS_MAX);
	l = (struct lossy){ .ev = at_max, .loss = events, .n = 2 };
	cr_assert_eq(ctf_write_lossy(sub("events"), lossy_next, &l, err, sizeof(err)), -EINVAL);
	cr_assert_not_null(strstr(err, "event 1: the losses add up to more than"), "%s", err);
	cr_assert_neq(access(sub("events"), F_OK), 0);
	l = (struct lossy){ .ev = at_max, .loss = packets, .n = 2 };
	cr_assert_eq(ctf_write_lossy(sub("packets"), lossy_next, &l, err, sizeof(err)), -EINVAL);
	cr_assert_neq(access(sub("packets"), F_OK), 0);
	l = (struct lossy){ .tail = { UINT64_MAX, 0 } };
	cr_assert_eq(ctf_write_lossy(sub("tail"), lossy_next, &l, err, sizeof(err)), -EINVAL);
	cr_assert_neq(access(sub("tail"), F_OK), 0);
}
