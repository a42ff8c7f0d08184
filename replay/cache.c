/* SPDX-License-Identifier: MIT */
/* The compiled replay cache (replay/cache.h), in the layout of replay/cache_format.h. */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cache.h"
#include "cache_format.h"
#include "common/atomic_file.h"
#include "common/digest.h"
#include "common/digest_path.h"
#include "common/path.h"
#include "replay/record.h"

/* --- finding a trace's cache file: by its files' identity, else by their content --- */

/* The content key of inputs of these content digests. */
static uint64_t content_key(const uint64_t *digest, size_t n)
{
	return digest_fold(digest_combine(CACHE_VERSION, 0x6770756973), digest, n);
}

int cache_hash(const char *trace, const char *const *maps, size_t nmaps, struct cache_entry *e)
{
	int rc = 0;

	if (nmaps >= CACHE_MAX_INPUTS)
		return -E2BIG;
	e->ninputs = nmaps + 1;
	for (size_t i = 0; !rc && i < e->ninputs; i++) {
		e->digest[i] = 0;
		rc = digest_path(i ? maps[i - 1] : trace, &e->digest[i]);
	}
	e->key = content_key(e->digest, e->ninputs);
	e->by_identity = false;
	return rc;
}

int cache_key(const char *trace, const char *const *extra, size_t nextra, uint64_t *key)
{
	struct cache_entry e;
	int rc = cache_hash(trace, extra, nextra, &e);

	*key = e.key;
	return rc;
}

/* Where the cache file (".wlc") or the identity file (".wli") named @key lives. */
static int cache_file_path(const char *dir, uint64_t key, const char *ext, char *out, size_t len)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	int n;

	if (dir && !*dir)
		return -EINVAL; /* not the root folder */
	if (dir)
		n = snprintf(out, len, "%s/%016llx%s", dir, (unsigned long long)key, ext);
	else if (xdg && *xdg)
		n = snprintf(out, len, "%s/gpuiso/%016llx%s", xdg, (unsigned long long)key, ext);
	else if (home && *home)
		n = snprintf(out, len, "%s/.cache/gpuiso/%016llx%s", home, (unsigned long long)key,
			     ext);
	else
		return -ENOENT;
	return n >= (int)len ? -ENAMETOOLONG : 0;
}

int cache_path(const char *dir, uint64_t key, char *out, size_t len)
{
	return cache_file_path(dir, key, ".wlc", out, len);
}

_Static_assert(sizeof(struct cache_ident) == 32 + 8 * CACHE_MAX_INPUTS + 8,
	       "an identity file has no padding: its checksum covers every byte");

uint64_t cache_ident_checksum(const struct cache_ident *id)
{
	return digest_bytes(id, offsetof(struct cache_ident, checksum));
}

/*
 * The key and digests the identity file @path records for @e's identity and
 * number of inputs, into @e: 0, or -ENOENT when there is none that is good
 * (missing, not a file, another size, version or identity, damaged).
 */
static int ident_read(const char *path, struct cache_entry *e)
{
	struct cache_ident id = { 0 };
	struct stat st;
	ssize_t n = -1;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);

	if (fd < 0)
		return -ENOENT;
	if (!fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_size == (off_t)sizeof(id))
		n = pread(fd, &id, sizeof(id), 0);
	close(fd);
	if (n != (ssize_t)sizeof(id) || memcmp(id.magic, CACHE_IDENT_MAGIC, 8) ||
	    id.version != CACHE_VERSION || id.ninputs != e->ninputs || id.identity != e->identity ||
	    id.checksum != cache_ident_checksum(&id) || id.key != content_key(id.digest, e->ninputs))
		return -ENOENT;
	e->key = id.key;
	memcpy(e->digest, id.digest, e->ninputs * sizeof(e->digest[0]));
	return 0;
}

int cache_find(const char *dir, const char *trace, const char *const *maps, size_t nmaps,
	       struct cache_entry *e)
{
	struct path_identity id = { .digest = digest_combine(CACHE_VERSION, 0x6964656e74) };
	struct timespec now;
	char path[4096];
	int rc = 0;

	memset(e, 0, sizeof(*e));
	if (nmaps >= CACHE_MAX_INPUTS)
		return -E2BIG;
	e->ninputs = nmaps + 1;
	for (size_t i = 0; !rc && i < e->ninputs; i++)
		rc = digest_path_identity(i ? maps[i - 1] : trace, &id);
	if (rc)
		return rc;
	e->identity = id.digest;
	/*
	 * Files changed in the last CACHE_SETTLE_S seconds may change again
	 * within the tick of the clock that stamps them, keeping their times:
	 * their identity is neither trusted nor recorded until they settle.
	 */
	clock_gettime(CLOCK_REALTIME, &now);
	e->settled = id.newest.tv_sec + CACHE_SETTLE_S < now.tv_sec;
	if (e->settled && !cache_file_path(dir, e->identity, ".wli", path, sizeof(path)) &&
	    !ident_read(path, e)) {
		e->by_identity = true;
		return 0;
	}
	return cache_hash(trace, maps, nmaps, e);
}

int cache_remember(const char *dir, const struct cache_entry *e)
{
	struct cache_ident id = {
		.magic = CACHE_IDENT_MAGIC, .version = CACHE_VERSION,
		.ninputs = (uint32_t)e->ninputs, .identity = e->identity, .key = e->key,
	};
	char path[4096];
	int rc;

	if (e->by_identity || !e->settled)
		return 0;
	memcpy(id.digest, e->digest, e->ninputs * sizeof(e->digest[0]));
	id.checksum = cache_ident_checksum(&id);
	rc = cache_file_path(dir, e->identity, ".wli", path, sizeof(path));
	if (!rc)
		rc = path_mkdir_parent(path);
	return rc ? rc : atomic_file_write(path, &id, sizeof(id));
}

/*
 * The checksum: Fletcher-style sums over the records' 64-bit little-endian
 * words (a final partial word zero-padded), sealed with the key and the
 * header's counts. Two adds a word, so checking a cache file costs little
 * next to decoding it; it catches truncation, flipped and moved bytes, in
 * the records and in the counts, which is all it is for. The bytes come in
 * pieces of any length (a buffer written, a chunk read): a word they split
 * is carried to the next piece.
 */
struct csum {
	uint64_t s1, s2;
	uint64_t word;      /* the bytes of a word not complete yet, */
	unsigned int nword; /* and how many */
};

static inline void csum_add(struct csum *c, uint64_t w)
{
	c->s1 += w;
	c->s2 += c->s1;
}

/* The next @n bytes of the records at @p. */
static void csum_bytes(struct csum *c, const uint8_t *p, size_t n)
{
	uint64_t w;

	for (; c->nword && n; n--, p++) {
		c->word |= (uint64_t)*p << (8 * c->nword);
		if (++c->nword == 8) {
			csum_add(c, c->word);
			c->word = 0;
			c->nword = 0;
		}
	}
	for (; n >= 8; n -= 8, p += 8) {
		memcpy(&w, p, 8);
		csum_add(c, le64toh(w));
	}
	for (; n; n--, p++)
		c->word |= (uint64_t)*p << (8 * c->nword++);
}

/* The file's checksum: the payload's sums, the key, and the header's counts. */
static uint64_t csum_final(const struct csum *c, uint64_t key, const struct cache_meta *meta)
{
	uint64_t s1 = c->s1, s2 = c->s2;

	if (c->nword) { /* the last word, zero-padded */
		s1 += c->word;
		s2 += s1;
	}
	return digest_combine(digest_combine(digest_combine(key, s1), s2),
			      digest_bytes(meta, sizeof(*meta)));
}

/* --- writing --- */

struct cache_writer {
	struct atomic_file file;
	uint64_t key, bytes;
	struct csum checksum;
	struct rec_codec codec;
	uint8_t buf[1 << 16];
	size_t fill;
};

int cache_writer_open(const char *path, uint64_t key, struct cache_writer **out)
{
	struct cache_header hdr = { 0 };
	struct cache_writer *w = calloc(1, sizeof(*w));
	int rc;

	if (!w)
		return -ENOMEM;
	rc = path_mkdir_parent(path);
	if (!rc)
		rc = atomic_file_open(&w->file, path);
	if (rc)
		goto free_writer;
	w->key = key;
	rec_codec_init(&w->codec);
	/* a placeholder header; the real one is written at commit */
	if (fwrite(&hdr, sizeof(hdr), 1, w->file.f) != 1) {
		atomic_file_abort(&w->file);
		rc = -EIO;
		goto free_writer;
	}
	*out = w;
	return 0;

free_writer:
	free(w);
	return rc;
}

static int flush_buf(struct cache_writer *w)
{
	csum_bytes(&w->checksum, w->buf, w->fill);
	if (w->fill && fwrite(w->buf, 1, w->fill, w->file.f) != w->fill)
		return -EIO;
	w->bytes += w->fill;
	w->fill = 0;
	return 0;
}

int cache_writer_add(struct cache_writer *w, uint64_t index, const struct wl_event *e)
{
	int rc;

	if (e->kind >= WL_NKINDS)
		return -EINVAL;
	if (w->fill > sizeof(w->buf) - REC_MAX) {
		rc = flush_buf(w);
		if (rc)
			return rc;
	}
	w->fill += rec_encode(&w->codec, w->buf + w->fill, index, e);
	return 0;
}

int cache_writer_commit(struct cache_writer *w, const struct cache_meta *meta)
{
	struct cache_header hdr = {
		.magic = CACHE_MAGIC, .version = CACHE_VERSION, .header_size = sizeof(hdr),
		.key = w->key, .meta = *meta,
	};
	int rc = flush_buf(w);

	hdr.payload_bytes = w->bytes;
	hdr.checksum = csum_final(&w->checksum, w->key, meta);
	if (!rc && (fseek(w->file.f, 0, SEEK_SET) ||
		    fwrite(&hdr, sizeof(hdr), 1, w->file.f) != 1))
		rc = -EIO;
	if (rc)
		atomic_file_abort(&w->file);
	else
		rc = atomic_file_commit(&w->file);
	free(w);
	return rc;
}

void cache_writer_abort(struct cache_writer *w)
{
	if (!w)
		return;
	atomic_file_abort(&w->file);
	free(w);
}

/* --- reading --- */

uint64_t cache_checksum(uint64_t key, const uint8_t *p, size_t n, const struct cache_meta *meta)
{
	struct csum c = { 0 };

	csum_bytes(&c, p, n);
	return csum_final(&c, key, meta);
}

/*
 * A cache file's records read in order through a buffer of CACHE_CHUNK
 * bytes, so that reading one costs the same memory whatever its length:
 * each record is decoded from the buffer, with REC_READ bytes readable past
 * it (the file's next bytes, or zeros after its last).
 */
#define CACHE_CHUNK (256u << 10)

struct cache_reader {
	int fd;
	uint64_t off;  /* the file's next byte to read */
	uint64_t left; /* of the records, bytes not read yet */
	size_t at;     /* the next record, in buf */
	size_t have;   /* bytes in buf */
	struct csum sum; /* of the bytes read */
	uint8_t buf[CACHE_CHUNK + REC_READ];
};

/* The records' next bytes after the unread rest of the buffer: 0, or -ESTALE (shorter, unreadable). */
static int reader_fill(struct cache_reader *rd)
{
	size_t want;
	ssize_t n;

	memmove(rd->buf, rd->buf + rd->at, rd->have - rd->at);
	rd->have -= rd->at;
	rd->at = 0;
	want = CACHE_CHUNK - rd->have;
	if (want > rd->left)
		want = (size_t)rd->left;
	do
		n = pread(rd->fd, rd->buf + rd->have, want, (off_t)rd->off);
	while (n < 0 && errno == EINTR);
	if (n <= 0)
		return -ESTALE; /* shorter than its header says, or not readable: rebuilt */
	csum_bytes(&rd->sum, rd->buf + rd->have, (size_t)n);
	rd->have += (size_t)n;
	rd->off += (uint64_t)n;
	rd->left -= (uint64_t)n;
	if (!rd->left) /* the last records: zeros to read past them */
		memset(rd->buf + rd->have, 0, REC_READ);
	return 0;
}

/*
 * Read the records of the file @rd->fd, whose header is @hdr, calling @fn
 * (when not NULL) with each: 0 when all of them decode, they are the
 * header's count and the checksum is the header's; -ESTALE when not (@fn
 * has been called with those before the first record that does not
 * decode), or @fn's error.
 */
static int each_record(struct cache_reader *rd, const struct cache_header *hdr, cache_event_fn fn,
		       void *ctx)
{
	struct rec_codec codec;
	uint64_t n = 0;
	int rc;

	rec_codec_init(&codec);
	rd->off = sizeof(*hdr);
	rd->left = hdr->payload_bytes;
	rd->at = rd->have = 0;
	rd->sum = (struct csum){ 0 };
	memset(rd->buf, 0, REC_READ); /* an empty payload */
	for (;;) {
		struct wl_event e;
		uint64_t index;
		size_t len;

		if (rd->have - rd->at < REC_READ && rd->left) {
			rc = reader_fill(rd);
			if (rc)
				return rc;
			continue;
		}
		if (rd->at == rd->have)
			break;
		/* the checking pass frames the records; the delivering one decodes them */
		len = fn ? rec_decode(&codec, rd->buf + rd->at, &index, &e) : rec_length(rd->buf + rd->at);
		if (!len || len > rd->have - rd->at || ++n > hdr->meta.records)
			return -ESTALE;
		rd->at += len;
		if (fn && (rc = fn(ctx, index, &e)))
			return rc;
	}
	if (n != hdr->meta.records || csum_final(&rd->sum, hdr->key, &hdr->meta) != hdr->checksum)
		return -ESTALE;
	return 0;
}

int cache_read(const char *path, uint64_t key, cache_event_fn fn, void *ctx,
	       struct cache_meta *meta)
{
	struct cache_reader *rd;
	struct cache_header hdr;
	struct stat st;
	int fd, rc = -ESTALE;

	/* (not blocking on a FIFO someone left there: anything but a file is rebuilt) */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return errno == ENOENT ? -ENOENT : -ESTALE;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || (size_t)st.st_size < sizeof(hdr) ||
	    pread(fd, &hdr, sizeof(hdr), 0) != (ssize_t)sizeof(hdr))
		goto close_file;
	if (memcmp(hdr.magic, CACHE_MAGIC, 8) || hdr.version != CACHE_VERSION ||
	    hdr.header_size != sizeof(hdr) || hdr.key != key ||
	    hdr.payload_bytes != (uint64_t)st.st_size - sizeof(hdr))
		goto close_file;
	rd = malloc(sizeof(*rd));
	if (!rd) {
		rc = -ENOMEM;
		goto close_file;
	}
	rd->fd = fd;
	(void)posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	/*
	 * The whole file is checked before one event reaches @fn: a caller that
	 * rebuilds from the trace on -ESTALE must not have run half of it. Then
	 * it is read again to deliver them: cache files are replaced whole
	 * (renamed into place), never written in place, so this reading finds
	 * what the first one checked, and checks it again.
	 */
	rc = each_record(rd, &hdr, NULL, NULL);
	if (!rc)
		*meta = hdr.meta;
	if (!rc && fn)
		rc = each_record(rd, &hdr, fn, ctx);
	free(rd);
close_file:
	close(fd);
	return rc;
}
