/* SPDX-License-Identifier: MIT */
/* Writing JSON files (common/json.h): atomic for files, written through for anything else. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/json.h"

static char tmp[] = "/tmp/gpuiso-json-XXXXXX";

static void setup(void)
{
	cr_assert_not_null(mkdtemp(tmp));
}

static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmp);
	cr_assert_eq(system(cmd), 0);
}

TestSuite(json, .init = setup, .fini = teardown);

static void fill(struct json *j, const void *ctx)
{
	json_obj_begin(j, NULL);
	json_str(j, "say", ctx);
	json_obj_end(j);
}

/* The document as written to a stream. */
static char *expected(void)
{
	struct json j;
	char *doc = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&doc, &len);

	cr_assert_not_null(f);
	json_init(&j, f);
	fill(&j, "hi");
	cr_assert_eq(json_end(&j), 0);
	fclose(f);
	cr_assert_gt(len, 0);
	return doc;
}

static void expect_file(const char *path)
{
	char buf[256] = "", *want = expected();
	FILE *f = fopen(path, "r");

	cr_assert_not_null(f, "%s", path);
	cr_assert_gt(fread(buf, 1, sizeof(buf) - 1, f), 0);
	fclose(f);
	cr_assert_str_eq(buf, want);
	free(want);
}

Test(json, a_file_is_replaced_and_a_link_is_written_through)
{
	char file[256], link[256], tmpfile[300];
	struct stat st;

	snprintf(file, sizeof(file), "%s/out.json", tmp);
	snprintf(link, sizeof(link), "%s/link.json", tmp);
	cr_assert_eq(json_write_file(file, fill, "hi"), 0);
	expect_file(file);
	snprintf(tmpfile, sizeof(tmpfile), "%s.%d.tmp", file, (int)getpid());
	cr_assert_neq(access(tmpfile, F_OK), 0, "nothing left behind");

	cr_assert_eq(symlink(file, link), 0);
	cr_assert_eq(truncate(file, 0), 0);
	cr_assert_eq(json_write_file(link, fill, "hi"), 0);
	cr_assert_eq(lstat(link, &st), 0);
	cr_assert(S_ISLNK(st.st_mode), "the link is still a link");
	expect_file(file);
}

Test(json, a_fifo_is_written_through_not_replaced)
{
	char fifo[256], buf[256] = "", *want = expected();
	struct stat st;
	pid_t pid;
	int fd, status;

	snprintf(fifo, sizeof(fifo), "%s/fifo", tmp);
	cr_assert_eq(mkfifo(fifo, 0600), 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (!pid)
		_exit(json_write_file(fifo, fill, "hi") ? 1 : 0);
	fd = open(fifo, O_RDONLY);
	cr_assert_geq(fd, 0);
	cr_assert_gt(read(fd, buf, sizeof(buf) - 1), 0);
	close(fd);
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	cr_assert_str_eq(buf, want);
	free(want);
	cr_assert_eq(stat(fifo, &st), 0);
	cr_assert(S_ISFIFO(st.st_mode), "the FIFO is still a FIFO");
}

Test(json, a_full_device_says_no_space)
{
	struct stat st;

	cr_assert_eq(stat("/dev/full", &st), 0);
	cr_assert_eq(json_write_file("/dev/full", fill, "hi"), -ENOSPC);
	cr_assert_eq(stat("/dev/full", &st), 0);
	cr_assert(S_ISCHR(st.st_mode), "the device is still a device");
}

/* Two processes writing one path (two campaigns resuming one folder): neither fails. */
Test(json, two_writers_of_one_path_do_not_collide)
{
	char file[256];
	pid_t pid[2];
	int status;

	snprintf(file, sizeof(file), "%s/both.json", tmp);
	for (int k = 0; k < 2; k++) {
		pid[k] = fork();
		cr_assert_geq(pid[k], 0);
		if (!pid[k]) {
			for (int i = 0; i < 300; i++)
				if (json_write_file(file, fill, "hi"))
					_exit(1);
			_exit(0);
		}
	}
	for (int k = 0; k < 2; k++) {
		cr_assert_eq(waitpid(pid[k], &status, 0), pid[k]);
		cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "writer %d failed", k);
	}
	expect_file(file);
}

/* @s as json_str() writes it, quotes and all (free() it). */
static char *written(const char *s)
{
	struct json j;
	char *doc = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&doc, &len);

	cr_assert_not_null(f);
	json_init(&j, f);
	json_str(&j, NULL, s);
	cr_assert_eq(json_end(&j), 0);
	fclose(f);
	return doc;
}

/* Whether @s is all UTF-8. */
static bool all_utf8(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	for (size_t left = strlen(s), n; left; p += n, left -= n)
		if (!(n = json_utf8_len(p, left)))
			return false;
	return true;
}

/*
 * Paths are bytes: what is not UTF-8 is written as escapes that keep the
 * document UTF-8, and reading the string gives the same bytes back.
 */
Test(json, bytes_that_are_not_utf8_are_escaped_and_read_back)
{
	static const char *const paths[] = {
		"/tmp/tr\xff\xfe",            /* the issue's */
		"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", /* valid UTF-8: as it is */
		"cut\xc3",                    /* a sequence cut short at the end */
		"cut\xe2\x82x",               /* and before another character */
		"over\xc0\xaf",               /* an overlong '/' */
		"surr\xed\xa0\x80",           /* an encoded surrogate */
		"big\xf4\x90\x80\x80",        /* past U+10FFFF */
		"esc\xed\xb3\xbf",            /* the UTF-8 form of U+DCFF itself */
		"\x80\x9f\"\\\n\t\x01",       /* stray continuation bytes, then what JSON escapes */
	};
	char *doc, *back;

	doc = written(paths[0]);
	cr_assert_str_eq(doc, "\"/tmp/tr\\udcff\\udcfe\"\n");
	free(doc);
	doc = written(paths[1]);
	cr_assert_str_eq(doc, "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"\n");
	free(doc);
	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		doc = written(paths[i]);
		cr_assert(all_utf8(doc), "path %zu: %s", i, doc);
		/* between the quotes, before the newline */
		cr_assert_eq(json_unescape(doc + 1, strlen(doc) - 3, &back), 0, "path %zu: %s", i, doc);
		cr_assert_str_eq(back, paths[i], "path %zu: %s", i, doc);
		free(back);
		free(doc);
	}
}

/* Escapes of other writers are read as JSON says; what JSON does not allow is refused. */
Test(json, unescape_reads_json_and_refuses_what_is_not)
{
	static const struct {
		const char *in, *out;
	} good[] = {
		{ "a\\/b\\b\\f\\r", "a/b\b\f\r" },
		{ "\\u00e9\\u20AC", "\xc3\xa9\xe2\x82\xac" },
		{ "\\ud83d\\ude00", "\xf0\x9f\x98\x80" }, /* a surrogate pair: one character */
		{ "\\udcff\\udc80", "\xff\x80" },
	};
	static const char *const bad[] = {
		"\\x41", "\\u12", "\\ud83d", "\\ud83dx", "\\udc7f", "\\ude00", "a\"b", "tab\there", "end\\",
	};
	char *back;

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		cr_assert_eq(json_unescape(good[i].in, strlen(good[i].in), &back), 0, "%s", good[i].in);
		cr_assert_str_eq(back, good[i].out, "%s", good[i].in);
		free(back);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		back = (char *)"untouched";
		cr_assert_eq(json_unescape(bad[i], strlen(bad[i]), &back), -EINVAL, "%s", bad[i]);
		cr_assert_null(back, "%s", bad[i]);
	}
}

/* Masking keeps every position and touches only the escapes of bytes. */
Test(json, masking_keeps_positions_and_pairs)
{
	char text[] = "{\"a\\udcff\": \"\\\\udcff \\ud83d\\udc80 \\uDC80 \\udc7f\"}";

	cr_assert_eq(json_mask_byte_escapes(text), 2);
	cr_assert_str_eq(text, "{\"a\\ufffd\": \"\\\\udcff \\ud83d\\udc80 \\ufffd \\udc7f\"}");
}
