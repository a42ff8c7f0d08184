/* SPDX-License-Identifier: MIT */
/* The trace reader suites' fixture (ctf_fixture.h). */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/common/traces_real.h"
#include "tests/replay/ctf_fixture.h"

const char *real_dir(void)
{
	return traces_real(NULL);
}

const char *real(const char *name)
{
	static char p[PATH_MAX];

	cr_assert_lt((size_t)snprintf(p, sizeof(p), "%s/%s", real_dir(), name), sizeof(p));
	return p;
}

void tmpdir(char *buf, size_t len)
{
	snprintf(buf, len, "%s/gpuiso-ctfread-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	cr_assert_not_null(mkdtemp(buf));
}

static int rm_one(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
	return remove(p);
}

void rm_tree(const char *dir)
{
	nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

void copy_file(const char *from, const char *to)
{
	char buf[1 << 16];
	int in = open(from, O_RDONLY), out;
	ssize_t n;

	cr_assert_geq(in, 0, "%s: %s", from, strerror(errno));
	out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	cr_assert_geq(out, 0, "%s: %s", to, strerror(errno));
	while ((n = read(in, buf, sizeof(buf))) > 0)
		cr_assert_eq(write(out, buf, (size_t)n), n);
	close(in);
	close(out);
}

void copy_trace(const char *name, const char *dst)
{
	static const char *const files[] = {
		"metadata", "channel0_0", "channel0_1", "channel0_2", "channel0_3",
	};
	char from[PATH_MAX + 32], to[PATH_MAX + 32];

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(from, sizeof(from), "%s/%s", real(name), files[i]);
		snprintf(to, sizeof(to), "%s/%s", dst, files[i]);
		copy_file(from, to);
	}
}

void write_file(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "wb");

	cr_assert_not_null(f, "%s", path);
	cr_assert_eq(fwrite(data, 1, len, f), len);
	fclose(f);
}

void edit_file(const char *path, const char *from, const char *to)
{
	char *text, *at;
	long n;
	FILE *f = fopen(path, "rb");

	cr_assert_not_null(f, "%s", path);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	text = calloc(1, (size_t)n + 1);
	cr_assert_eq(fread(text, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	at = memmem(text, (size_t)n, from, strlen(from));
	cr_assert_not_null(at, "%s has no \"%s\"", path, from);
	f = fopen(path, "wb");
	fwrite(text, 1, (size_t)(at - text), f);
	fwrite(to, 1, strlen(to), f);
	fwrite(at + strlen(from), 1, (size_t)n - (size_t)(at - text) - strlen(from), f);
	fclose(f);
	free(text);
}

int tag_of(const struct counter *c, const char *name)
{
	for (unsigned int i = 0; i < c->nnames; i++)
		if (strcmp(c->names[i], name) == 0)
			return (int)i;
	return -1;
}

int count_bind(void *ctx, const char *name, struct ctf_binding *b)
{
	struct counter *c = ctx;
	const struct want *w = NULL;
	int tag;

	c->binds++;
	if (c->bind_error)
		return c->bind_error;
	for (const struct want *p = c->wants; p && p->event; p++)
		if (strcmp(p->event, name) == 0)
			w = p;
	if (c->bind_only_wanted && !w) {
		b->tag = -1;
		return 0;
	}
	tag = tag_of(c, name);
	if (tag < 0) {
		cr_assert_lt(c->nnames, MAX_NAMES);
		tag = (int)c->nnames;
		c->names[c->nnames++] = strdup(name);
	}
	b->tag = tag;
	b->n = w ? w->n : 0;
	for (unsigned int i = 0; i < b->n; i++)
		b->names[i] = w->fields[i];
	return 0;
}

int count_event(void *ctx, int tag, uint64_t index, uint64_t ts, const struct ctf_value *v)
{
	struct counter *c = ctx;
	const struct want *w = NULL;

	if (c->calls > 0) {
		c->order_ok = c->order_ok && ts >= c->last_ts;
		c->index_ok = c->index_ok && index > c->last_index;
	} else {
		c->order_ok = c->index_ok = true;
	}
	c->last_ts = ts;
	c->last_index = index;
	c->calls++;
	c->counts[tag]++;
	for (const struct want *p = c->wants; p && p->event; p++)
		if (strcmp(p->event, c->names[tag]) == 0)
			w = p;
	for (unsigned int f = 0; w && f < w->n; f++) {
		if (!c->seen[tag]) {
			c->first[tag][f] = v[f];
			c->first[tag][f].s = NULL; /* valid during the callback only */
			if (v[f].present && v[f].is_str)
				snprintf(c->first_str[tag], sizeof(c->first_str[tag]), "%s", v[f].s);
		}
		if (v[f].present && !v[f].is_str)
			c->sum[tag][f] += v[f].u;
	}
	c->seen[tag] = true;
	if (c->fail_at > 0 && c->calls == (uint64_t)c->fail_at)
		return -ECANCELED;
	return 0;
}

void counter_fini(struct counter *c)
{
	for (unsigned int i = 0; i < c->nnames; i++)
		free(c->names[i]);
}

uint64_t count_of(const struct counter *c, const char *name)
{
	int t = tag_of(c, name);

	return t < 0 ? 0 : c->counts[t];
}

int read_into(const char *path, struct counter *c, struct ctf_stats *st, char *err, size_t errlen)
{
	return ctf_read(path, count_bind, count_event, c, NULL, st, err, errlen);
}

int read_bad(const char *path, char *err, size_t errlen)
{
	struct counter c = { 0 };
	struct ctf_stats st;
	int ret;

	err[0] = '\0';
	ret = read_into(path, &c, &st, err, errlen);
	cr_assert_lt(ret, 0, "reading %s succeeded", path);
	cr_assert_neq(err[0], '\0', "no message for %s", path);
	cr_assert_null(strchr(err, '\n'), "not one line: %s", err);
	counter_fini(&c);
	return ret;
}
