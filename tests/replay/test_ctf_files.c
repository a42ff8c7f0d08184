/* SPDX-License-Identifier: MIT */
/*
 * Damaged trace folders: each read is an error of one line that names the
 * folder or the file and says what is wrong with it, checked before
 * babeltrace2 opens them or told from what it says, never a crash.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/replay/ctf_fixture.h"

Test(ctf_read, missing_path)
{
	char err[512];

	cr_assert_eq(read_bad("/nonexistent/gpuiso/trace", err, sizeof(err)), -ENOENT);
	cr_assert_not_null(strstr(err, "/nonexistent/gpuiso/trace"), "%s", err);
}

Test(ctf_read, folder_without_metadata)
{
	char dir[PATH_MAX], err[512];

	tmpdir(dir, sizeof(dir));
	cr_assert_eq(read_bad(dir, err, sizeof(err)), -ENOENT);
	cr_assert_not_null(strstr(err, "no CTF trace"), "%s", err);
	cr_assert_not_null(strstr(err, dir), "%s", err);
	rm_tree(dir);
}

Test(ctf_read, file_instead_of_folder)
{
	char p[PATH_MAX + 16], err[512];

	snprintf(p, sizeof(p), "%s/README.md", real_dir());
	cr_assert_eq(read_bad(p, err, sizeof(err)), -ENOENT);
}

Test(ctf_read, garbage_metadata)
{
	char dir[PATH_MAX], p[PATH_MAX + 16], err[512], junk[3000];

	for (size_t i = 0; i < sizeof(junk); i++)
		junk[i] = (char)(i * 2654435761u >> 13);
	tmpdir(dir, sizeof(dir));
	snprintf(p, sizeof(p), "%s/metadata", dir);
	write_file(p, junk, sizeof(junk));
	cr_assert_eq(read_bad(dir, err, sizeof(err)), -EINVAL);
	cr_assert_not_null(strstr(err, dir), "%s", err);
	cr_assert_not_null(strstr(err, "metadata"), "%s", err);
	rm_tree(dir);
}

Test(ctf_read, metadata_text_that_does_not_parse)
{
	static const char text[] = "/* CTF 1.8 */\ntrace { major = 1; minor = 8; byte_order = ";
	char dir[PATH_MAX], p[PATH_MAX + 16], err[512];

	tmpdir(dir, sizeof(dir));
	snprintf(p, sizeof(p), "%s/metadata", dir);
	write_file(p, text, sizeof(text) - 1);
	cr_assert_eq(read_bad(dir, err, sizeof(err)), -EINVAL);
	cr_assert_not_null(strstr(err, "parse"), "%s", err);
	rm_tree(dir);
}

/* babeltrace2 would spin for ever on these: each packet must be whole. */
Test(ctf_read, packetized_metadata_cut_short)
{
	static const off_t cuts[] = { 4, 100, 4096 + 37 - 1, 4096 + 3000 };
	char dir[PATH_MAX], p[PATH_MAX + 16], whole[PATH_MAX + 16], err[512];

	tmpdir(dir, sizeof(dir));
	copy_trace(UST, dir);
	snprintf(p, sizeof(p), "%s/metadata", dir);
	snprintf(whole, sizeof(whole), "%s/metadata", real(UST));
	for (size_t i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
		copy_file(whole, p);
		cr_assert_eq(truncate(p, cuts[i]), 0);
		cr_assert_eq(read_bad(dir, err, sizeof(err)), -EINVAL, "cut at %lld", (long long)cuts[i]);
		cr_assert_not_null(strstr(err, "metadata is cut short"), "%s", err);
		cr_assert_not_null(strstr(err, cuts[i] > 4096 ? "packet 1 " : "packet 0 "), "%s", err);
	}
	rm_tree(dir);
}

Test(ctf_read, empty_metadata)
{
	char dir[PATH_MAX], p[PATH_MAX + 16], err[512];

	tmpdir(dir, sizeof(dir));
	snprintf(p, sizeof(p), "%s/metadata", dir);
	write_file(p, "", 0);
	cr_assert_eq(read_bad(dir, err, sizeof(err)), -EINVAL);
	cr_assert_not_null(strstr(err, "empty"), "%s", err);
	rm_tree(dir);
}

/* babeltrace2 would skip these silently: the trace would replay with fewer events. */
Test(ctf_read, stream_files_that_are_not_regular_files)
{
	char dir[PATH_MAX], p[PATH_MAX + 16], err[512];

	tmpdir(dir, sizeof(dir));
	copy_trace(UST, dir);
	snprintf(p, sizeof(p), "%s/channel0_1", dir);
	cr_assert_eq(unlink(p), 0);
	cr_assert_eq(mkfifo(p, 0600), 0);
	cr_assert_eq(read_bad(dir, err, sizeof(err)), -EINVAL);
	cr_assert_not_null(strstr(err, "channel0_1: not a regular file"), "%s", err);
	cr_assert_eq(unlink(p), 0);
	cr_assert_eq(symlink("/nonexistent/gpuiso/stream", p), 0);
	cr_assert_eq(read_bad(dir, err, sizeof(err)), -EINVAL);
	cr_assert_not_null(strstr(err, "channel0_1: No such file"), "%s", err);
	rm_tree(dir);
}

Test(ctf_read, truncated_stream_file)
{
	char dir[PATH_MAX], p[PATH_MAX + 16], err[512];

	tmpdir(dir, sizeof(dir));
	copy_trace(UST, dir);
	snprintf(p, sizeof(p), "%s/channel0_1", dir);
	/* Mid-packet: the last packet's header says more than the file holds. */
	cr_assert_eq(truncate(p, 1000123), 0);
	cr_assert_eq(read_bad(dir, err, sizeof(err)), -EINVAL);
	cr_assert_not_null(strstr(err, "channel0_1"), "%s", err);
	rm_tree(dir);
}

/* A packet after the first that is no packet is found while indexing: the file is named. */
Test(ctf_read, a_damaged_later_packet_names_its_stream_file)
{
	char dir[PATH_MAX], p[PATH_MAX + 16], err[1024];
	unsigned char zero[4] = { 0 };
	FILE *f;

	tmpdir(dir, sizeof(dir));
	copy_trace(UST, dir);
	snprintf(p, sizeof(p), "%s/channel0_1", dir);
	f = fopen(p, "r+b");
	cr_assert_not_null(f);
	cr_assert_eq(fseek(f, 1 << 20, SEEK_SET), 0); /* the second packet's magic (packets of 1 MiB) */
	cr_assert_eq(fwrite(zero, 1, sizeof(zero), f), sizeof(zero));
	fclose(f);
	cr_assert_eq(read_bad(dir, err, sizeof(err)), -EINVAL);
	cr_assert_not_null(strstr(err, "stream file "), "%s", err);
	cr_assert_not_null(strstr(err, "/channel0_1: Invalid CTF magic number"), "%s", err);
	rm_tree(dir);
}

/* babeltrace2 does not say which file it could not take for a stream: we do. */
Test(ctf_read, a_file_that_is_no_stream_is_named)
{
	char dir[PATH_MAX], p[PATH_MAX + 16], err[512];

	tmpdir(dir, sizeof(dir));
	copy_trace(UST, dir);
	snprintf(p, sizeof(p), "%s/README.txt", dir);
	write_file(p, "notes\n", 6);
	cr_assert_eq(read_bad(dir, err, sizeof(err)), -EINVAL);
	cr_assert_not_null(strstr(err, "README.txt: not a CTF stream file"), "%s", err);
	cr_assert_eq(unlink(p), 0);
	snprintf(p, sizeof(p), "%s/channel0_1", dir);
	cr_assert_eq(truncate(p, 10), 0);
	cr_assert_eq(read_bad(dir, err, sizeof(err)), -EINVAL);
	cr_assert_not_null(strstr(err, "channel0_1: cut short in its first packet"), "%s", err);
	rm_tree(dir);
}

/* The kernel trace with its index/ (copy_trace() leaves that out). */
static void copy_indexed(const char *dst)
{
	char from[PATH_MAX + 64], to[PATH_MAX + 64];

	copy_trace(KERNEL, dst);
	snprintf(to, sizeof(to), "%s/index", dst);
	cr_assert_eq(mkdir(to, 0755), 0);
	for (int i = 0; i < 4; i++) {
		snprintf(from, sizeof(from), "%s/index/channel0_%d.idx", real(KERNEL), i);
		snprintf(to, sizeof(to), "%s/index/channel0_%d.idx", dst, i);
		copy_file(from, to);
	}
}

/* src.ctf.fs trusts LTTng's index and aborts on a packet past the file's end: checked first. */
Test(ctf_read, index_past_the_stream_file_is_named)
{
	char dir[PATH_MAX], p[PATH_MAX + 32], err[512];
	unsigned char far[8] = { 0, 0, 0, 0, 0, 0x34, 0, 0 };
	FILE *f;

	tmpdir(dir, sizeof(dir));
	copy_indexed(dir);
	snprintf(p, sizeof(p), "%s/index/channel0_0.idx", dir);
	f = fopen(p, "r+b");
	cr_assert_not_null(f);
	cr_assert_eq(fseek(f, 16 + 56, SEEK_SET), 0); /* packet 1's offset (its entries are 56 bytes) */
	cr_assert_eq(fwrite(far, 1, sizeof(far), f), sizeof(far));
	fclose(f);
	cr_assert_eq(read_bad(dir, err, sizeof(err)), -EINVAL);
	cr_assert_not_null(strstr(err, "stream file channel0_0: its index (index/channel0_0.idx) "
				   "says packet 1 is at byte 3407872"), "%s", err);
	rm_tree(dir);
}
