/* SPDX-License-Identifier: MIT */
/*
 * A CTF trace's files, without babeltrace2: the trace folders below a
 * path, and the checks and hints src.ctf.fs does not give (metadata cut
 * short, a packet index past its stream file, a file that is no stream).
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/array.h"
#include "replay/ctf_internal.h"

/* Folders nested deeper than this below @path are not searched (symlink loops). */
#define WALK_MAX_DEPTH 16

static int folders_add(struct folders *f, const char *dir)
{
	if (array_reserve(&f->v, &f->cap, f->n, sizeof(*f->v)))
		return -ENOMEM;
	f->v[f->n] = strdup(dir);
	if (!f->v[f->n])
		return -ENOMEM;
	f->n++;
	return 0;
}

void ctf_folders_free(struct folders *f)
{
	for (unsigned int i = 0; i < f->n; i++)
		free(f->v[i]);
	free(f->v);
}

static int not_dots(const struct dirent *d)
{
	return strcmp(d->d_name, ".") != 0 && strcmp(d->d_name, "..") != 0;
}

/* Byte order, not alphasort's strcoll: the folder order must not depend on the locale. */
static int by_bytes(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static bool is_file(const char *dir, const char *name)
{
	char p[PATH_MAX];
	struct stat sb;

	if ((size_t)snprintf(p, sizeof(p), "%s/%s", dir, name) >= sizeof(p))
		return false;
	return stat(p, &sb) == 0 && S_ISREG(sb.st_mode);
}

/*
 * A folder holding "metadata" is a trace: it is taken whole and not searched
 * further (its subfolders are LTTng's index/ and the like), and every entry
 * in it must be a subfolder or a regular file: babeltrace2 skips anything
 * else (a FIFO, a socket, a dangling link) without a word, and the trace
 * would replay as if those streams had no events. Otherwise the folder's
 * subfolders are searched in byte order, so the result is deterministic.
 */
static int walk(const char *dir, int depth, struct folders *out, char *err, size_t errlen)
{
	bool trace = is_file(dir, "metadata");
	struct dirent **ents;
	int n, ret = 0;

	if (!trace && depth >= WALK_MAX_DEPTH)
		return 0;
	n = scandir(dir, &ents, not_dots, by_bytes);
	if (n < 0) {
		ret = -errno;
		ctf_err_set(err, errlen, "%s: cannot list folder: %s", dir, strerror(errno));
		return ret;
	}
	for (int i = 0; i < n; i++) {
		char sub[PATH_MAX];
		struct stat sb;
		bool named = !ret && (size_t)snprintf(sub, sizeof(sub), "%s/%s", dir,
						      ents[i]->d_name) < sizeof(sub);
		bool found = named && stat(sub, &sb) == 0;

		if (named && trace && !found) {
			ctf_err_set(err, errlen, "%s: %s", sub, strerror(errno));
			ret = -EINVAL;
		} else if (found && trace && !S_ISDIR(sb.st_mode) && !S_ISREG(sb.st_mode)) {
			ctf_err_set(err, errlen, "%s: not a regular file: its events could not be read", sub);
			ret = -EINVAL;
		} else if (found && !trace && S_ISDIR(sb.st_mode)) {
			ret = walk(sub, depth + 1, out, err, errlen);
		}
		free(ents[i]);
	}
	free(ents);
	return ret || !trace ? ret : folders_add(out, dir);
}

int ctf_find_traces(const char *path, struct folders *out, char *err, size_t errlen)
{
	struct stat sb;
	int ret;

	if (stat(path, &sb) != 0) {
		ret = -errno;
		ctf_err_set(err, errlen, "%s: %s", path, strerror(errno));
		return ret;
	}
	if (!S_ISDIR(sb.st_mode)) {
		ctf_err_set(err, errlen, "%s: neither a trace folder (CTF) nor a trace file (a trace.dat, an .etl file)", path);
		return -ENOENT;
	}
	ret = walk(path, 0, out, err, errlen);
	if (ret == -ENOMEM)
		ctf_err_set(err, errlen, "%s: out of memory", path);
	if (ret)
		return ret;
	if (out->n == 0) {
		ctf_err_set(err, errlen, "%s: no CTF trace (no metadata file) below it", path);
		return -ENOENT;
	}
	return 0;
}

/*
 * src.ctf.fs 2.0 logs why metadata fails but reports only "Cannot create
 * trace": look at the file ourselves to say which kind of failure it is.
 */
/* The first bytes of a metadata packet, and of a stream packet, in either byte order. */
static const unsigned char metadata_magic[2][4] = { { 0x57, 0x1d, 0xd1, 0x75 },
						    { 0x75, 0xd1, 0x1d, 0x57 } };
static const unsigned char packet_magic[2][4] = { { 0xc1, 0x1f, 0xfc, 0xc1 },
						  { 0xc1, 0xfc, 0x1f, 0xc1 } };

/* Whether @head (@n bytes) begins with @magic in either byte order; 0 little, 1 big endian. */
static int magic_order(const unsigned char *head, size_t n, const unsigned char magic[2][4])
{
	for (int o = 0; n >= 4 && o < 2; o++)
		if (!memcmp(head, magic[o], 4))
			return o;
	return -1;
}

const char *ctf_metadata_hint(const char *dir)
{
	unsigned char head[8] = { 0 };
	char p[PATH_MAX];
	size_t n = 0;
	FILE *f;

	snprintf(p, sizeof(p), "%s/metadata", dir);
	f = fopen(p, "rb");
	if (!f)
		return "the metadata file cannot be read";
	n = fread(head, 1, sizeof(head), f);
	fclose(f);
	if (n == 0)
		return "the metadata file is empty";
	if (magic_order(head, n, metadata_magic) >= 0)
		return "its packetized metadata does not decode";
	if (n >= 6 && memcmp(head, "/* CTF", 6) == 0)
		return "its metadata text does not parse";
	return "the metadata file is not CTF (no \"/* CTF\" signature, no metadata packets)";
}

int ctf_metadata_whole(const char *dir, char *why, size_t len)
{
	enum { HEADER = 37, SIZES = 24 }; /* header bytes; content and packet sizes (bits) at 24 */
	unsigned char h[HEADER] = { 0 };
	char p[PATH_MAX];
	uint64_t at = 0, total;
	struct stat st;
	bool le;
	FILE *f;
	int rc = 0;

	snprintf(p, sizeof(p), "%s/metadata", dir);
	f = fopen(p, "rb");
	if (!f || fstat(fileno(f), &st) || magic_order(h, fread(h, 1, 4, f), metadata_magic) < 0) {
		if (f)
			fclose(f);
		return 0; /* text, or src.ctf.fs says what is wrong with it */
	}
	le = magic_order(h, 4, metadata_magic) == 0;
	total = (uint64_t)st.st_size;
	for (unsigned int k = 0; at < total; k++) {
		uint32_t content = 0, packet = 0;

		if (fseek(f, (long)at, SEEK_SET) || fread(h, 1, HEADER, f) != HEADER) {
			snprintf(why, len, "its metadata is cut short in the header of packet %u "
				 "(byte %" PRIu64 " of %" PRIu64 ")", k, at, total);
			rc = -EINVAL;
			break;
		}
		for (int i = 0; i < 4; i++) {
			int b = le ? 3 - i : i;

			content = content << 8 | h[SIZES + b];
			packet = packet << 8 | h[SIZES + 4 + b];
		}
		if (packet / 8 < HEADER || content > packet || packet % 8) {
			snprintf(why, len, "its metadata packet %u (byte %" PRIu64 ") has a bad size",
				 k, at);
			rc = -EINVAL;
			break;
		}
		if (at + packet / 8 > total) {
			snprintf(why, len, "its metadata is cut short: packet %u (byte %" PRIu64
				 ") needs %u bytes, the file has %" PRIu64, k, at, packet / 8,
				 total - at);
			rc = -EINVAL;
			break;
		}
		at += packet / 8;
	}
	fclose(f);
	return rc;
}

static uint64_t load_be64(const unsigned char *p)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

/*
 * One LTTng packet index (index/NAME.idx, big endian): a 16-byte header
 * (magic, major, minor, entry size), then per packet its offset in the
 * stream file and its packet and content sizes in bits, then timestamps and
 * more. src.ctf.fs trusts it and aborts when a packet lies past the stream
 * file's end: check that each one lies within.
 * Return: 0, or -EINVAL with @why said.
 */
static int index_fits(const char *dir, const char *name, char *why, size_t len)
{
	enum { HEADER = 16, ENTRY_MIN = 24 };
	unsigned char h[HEADER], e[ENTRY_MIN];
	char p[PATH_MAX];
	struct stat st;
	uint64_t size, entry;
	FILE *f;
	int rc = 0;

	if ((size_t)snprintf(p, sizeof(p), "%s/%s", dir, name) >= sizeof(p) || stat(p, &st))
		return 0;
	size = (uint64_t)st.st_size;
	snprintf(p, sizeof(p), "%s/index/%s.idx", dir, name);
	f = fopen(p, "rb");
	if (!f)
		return 0; /* no index: src.ctf.fs reads the packets' own headers */
	if (fread(h, 1, HEADER, f) != HEADER || load_be64(h) >> 32 != 0xc1f1dcc1) {
		fclose(f);
		return 0; /* not one it would use */
	}
	entry = load_be64(h + 8) & 0xffffffff;
	for (uint64_t k = 0; entry >= ENTRY_MIN; k++) {
		uint64_t at, bits, content;

		if (fseek(f, (long)(HEADER + k * entry), SEEK_SET) || fread(e, 1, ENTRY_MIN, f) != ENTRY_MIN)
			break;
		at = load_be64(e);
		bits = load_be64(e + 8);
		content = load_be64(e + 16);
		if (at > size || bits / 8 > size - at || content > bits) {
			snprintf(why, len, "stream file %.100s: its index (index/%.100s.idx) says "
				 "packet %" PRIu64 " is at byte %" PRIu64 ", %" PRIu64 " bytes with %"
				 PRIu64 " bits of content: that does not fit the %" PRIu64 "-byte file",
				 name, name, k, at, bits / 8, content, size);
			rc = -EINVAL;
			break;
		}
	}
	fclose(f);
	return rc;
}

bool ctf_packet_offset(const char *path, uint64_t k, uint64_t *at)
{
	enum { HEADER = 16, ENTRY_MIN = 8 };
	const char *slash = strrchr(path, '/');
	unsigned char h[HEADER];
	char p[PATH_MAX];
	uint64_t entry;
	bool known = false;
	FILE *f;

	*at = 0;
	if (!k)
		return true;
	if (!slash || (size_t)snprintf(p, sizeof(p), "%.*s/index/%s.idx", (int)(slash - path),
				       path, slash + 1) >= sizeof(p))
		return false;
	f = fopen(p, "rb");
	if (!f)
		return false;
	if (fread(h, 1, HEADER, f) == HEADER && load_be64(h) >> 32 == 0xc1f1dcc1) {
		entry = load_be64(h + 8) & 0xffffffff;
		known = entry >= ENTRY_MIN && k <= (UINT64_MAX - HEADER) / entry &&
			!fseeko(f, (off_t)(HEADER + k * entry), SEEK_SET) &&
			fread(h, 1, 8, f) == 8;
		if (known)
			*at = load_be64(h);
	}
	fclose(f);
	return known;
}

int ctf_indexes_fit(const char *dir, char *why, size_t len)
{
	struct dirent **names;
	int n = scandir(dir, &names, not_dots, by_bytes), rc = 0;

	for (int k = 0; k < n; k++) {
		if (!rc && strcmp(names[k]->d_name, "metadata") && is_file(dir, names[k]->d_name))
			rc = index_fits(dir, names[k]->d_name, why, len);
		free(names[k]);
	}
	if (n >= 0)
		free(names);
	return rc;
}

int ctf_stream_suspect(const char *dir, char *out, size_t len)
{
	struct dirent **names;
	int n = scandir(dir, &names, not_dots, alphasort), rc = -ENOENT;

	for (int k = 0; k < n; k++) {
		unsigned char head[64] = { 0 };
		const char *what = NULL;
		char p[PATH_MAX];
		size_t got = 0;
		FILE *f;

		if (rc && strcmp(names[k]->d_name, "metadata") && names[k]->d_name[0] != '.' &&
		    is_file(dir, names[k]->d_name)) {
			snprintf(p, sizeof(p), "%s/%s", dir, names[k]->d_name);
			f = fopen(p, "rb");
			if (f) {
				got = fread(head, 1, sizeof(head), f);
				fclose(f);
			}
			/* (an empty file is an empty stream, which is fine) */
			if (got >= 4 && magic_order(head, got, packet_magic) < 0)
				what = "not a CTF stream file (no packet magic)";
			else if (got && got < sizeof(head))
				what = "cut short in its first packet";
		}
		if (what) {
			snprintf(out, len, "%.200s: %s", names[k]->d_name, what);
			rc = 0;
		}
		free(names[k]);
	}
	free(names);
	return rc;
}
