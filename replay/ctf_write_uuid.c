/* SPDX-License-Identifier: MIT */
/*
 * The UUID of a trace the CTF writer wrote, made from its content:
 * sink.ctf.fs 2.0 gives every trace it writes a random UUID (in the
 * metadata and in every packet header) whatever the trace IR says, so once
 * the graph has run, that UUID is replaced by one derived from a hash of
 * the events written (ctf_write_source.c keeps it).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "replay/ctf_internal.h"

static inline uint64_t cw_mix(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static int cw_hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
		: c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" <-> 16 bytes. */
static int cw_uuid_parse(const char *s, uint8_t out[16])
{
	for (int i = 0, b = 0; b < 16; i++) {
		int hi, lo;

		if (i == 8 || i == 13 || i == 18 || i == 23) {
			if (s[i] != '-')
				return -EINVAL;
			continue;
		}
		hi = cw_hexval(s[i]);
		lo = cw_hexval(s[i + 1]);
		if (hi < 0 || lo < 0)
			return -EINVAL;
		out[b++] = (uint8_t)(hi << 4 | lo);
		i++;
	}
	return 0;
}

static void cw_uuid_format(const uint8_t u[16], char out[37])
{
	snprintf(out, 37,
		 "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12],
		 u[13], u[14], u[15]);
}

/* Bytes read at once when patching a data file: memory stays small whatever the trace size. */
#define CW_PATCH_CHUNK (1u << 20)

/* Replace every occurrence of @from (16 bytes) in file @path by @to. Return: count or -errno. */
static long cw_patch_file(const char *path, const uint8_t from[16], const uint8_t to[16])
{
	uint8_t *buf, *p;
	long count = 0;
	off_t pos = 0;
	int fd = open(path, O_RDWR);

	if (fd < 0)
		return -errno;
	buf = malloc(CW_PATCH_CHUNK + 15);
	if (!buf) {
		count = -ENOMEM;
		goto close_fd;
	}
	for (;;) {
		/* 15 bytes past the chunk, so a match straddling its end is seen here. */
		ssize_t n = pread(fd, buf, CW_PATCH_CHUNK + 15, pos);

		if (n < 0) {
			count = -errno;
			break;
		}
		for (p = buf; n >= 16 && (p = memmem(p, (size_t)(buf + n - p), from, 16)) &&
			      p < buf + CW_PATCH_CHUNK; p += 16) {
			if (pwrite(fd, to, 16, pos + (p - buf)) != 16) {
				count = -EIO;
				goto free_buf;
			}
			count++;
		}
		if (n <= (ssize_t)CW_PATCH_CHUNK)
			break;
		pos += CW_PATCH_CHUNK;
	}
free_buf:
	free(buf);
close_fd:
	if (close(fd) && count >= 0)
		count = -errno;
	return count;
}

int ctf_write_fix_uuid(const char *dir, const struct cw_run *run, char *err, size_t errlen)
{
	uint8_t from[16], to[16];
	char path[4096], text[37];
	struct dirent *de;
	char *meta = NULL, *at;
	long n, total = 0;
	size_t len = 0;
	FILE *f;
	DIR *d;
	int rc = -EIO;

	snprintf(path, sizeof(path), "%s/metadata", dir);
	f = fopen(path, "rb");
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -EIO;
	}
	if (fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
		snprintf(err, errlen, "cannot read %s", path);
		fclose(f);
		return -EIO;
	}
	len = (size_t)n;
	meta = malloc(len + 1);
	if (!meta || fread(meta, 1, len, f) != len) {
		snprintf(err, errlen, "cannot read %s", path);
		fclose(f);
		goto free_meta;
	}
	fclose(f);
	meta[len] = '\0';
	at = strstr(meta, "trace {");
	at = at ? strstr(at, "uuid = \"") : NULL;
	if (!at || cw_uuid_parse(at + 8, from)) {
		snprintf(err, errlen, "%s: no trace UUID found", path);
		goto free_meta;
	}
	for (int i = 0; i < 2; i++)
		for (int b = 0; b < 8; b++)
			to[i * 8 + b] = (uint8_t)(cw_mix(run->hash[i] ^ run->events) >> (8 * b));
	to[6] = (uint8_t)((to[6] & 0x0f) | 0x80); /* RFC 9562 version 8: custom */
	to[8] = (uint8_t)((to[8] & 0x3f) | 0x80); /* variant 10 */
	cw_uuid_format(to, text);
	memcpy(at + 8, text, 36);

	f = fopen(path, "wb");
	if (!f || fwrite(meta, 1, len, f) != len) {
		snprintf(err, errlen, "cannot write %s", path);
		if (f)
			fclose(f);
		goto free_meta;
	}
	if (fclose(f)) {
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
		goto free_meta;
	}
	d = opendir(dir);
	if (!d) {
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		goto free_meta;
	}
	rc = 0;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || !strcmp(de->d_name, "metadata"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		n = cw_patch_file(path, from, to);
		if (n < 0) {
			snprintf(err, errlen, "%s: %s", path, strerror((int)-n));
			rc = -EIO;
			break;
		}
		total += n;
	}
	closedir(d);
	if (!rc && run->events && !total) {
		snprintf(err, errlen, "%s: no packet header carries the trace UUID", dir);
		rc = -EIO;
	}
free_meta:
	free(meta);
	return rc;
}
