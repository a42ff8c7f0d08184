/* SPDX-License-Identifier: MIT */
/* The compiled replay cache (replay/cache.h), in the layout of replay/cache_format.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cache.h"
#include "cache_format.h"
#include "common/atomic_file.h"
#include "common/digest.h"
#include "common/digest_path.h"
#include "common/path.h"
#include "replay/record.h"

/* --- the key: a digest of the trace's files, names and contents (common/digest_path.h) --- */

int cache_key(const char *trace, const char *const *extra, size_t nextra, uint64_t *key)
{
	uint64_t h = digest_combine(CACHE_VERSION, 0x6770756973);
	int rc = digest_path(trace, &h);

	for (size_t i = 0; !rc && i < nextra; i++)
		rc = digest_path(extra[i], &h);
	*key = h;
	return rc;
}

int cache_path(const char *dir, uint64_t key, char *out, size_t len)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	int n;

	if (dir && !*dir)
		return -EINVAL; /* not the root folder */
	if (dir)
		n = snprintf(out, len, "%s/%016llx.wlc", dir, (unsigned long long)key);
	else if (xdg && *xdg)
		n = snprintf(out, len, "%s/gpuiso/%016llx.wlc", xdg, (unsigned long long)key);
	else if (home && *home)
		n = snprintf(out, len, "%s/.cache/gpuiso/%016llx.wlc", home,
			     (unsigned long long)key);
	else
		return -ENOENT;
	return n >= (int)len ? -ENAMETOOLONG : 0;
}

/*
 * The checksum: Fletcher-style sums over the records' 64-bit little-endian
 * words (a final partial word zero-padded), sealed with the key and the
 * header's counts. Two adds a word, so checking a cache file costs little
 * next to decoding it; it catches truncation, flipped and moved bytes, in
 * the records and in the counts, which is all it is for.
 */
struct csum {
	uint64_t s1, s2;
};

static inline void csum_add(struct csum *c, uint64_t w)
{
	c->s1 += w;
	c->s2 += c->s1;
}

/* The file's checksum: the payload's sums, the key, and the header's counts. */
static uint64_t csum_final(const struct csum *c, uint64_t key, const struct cache_meta *meta)
{
	return digest_combine(digest_combine(digest_combine(key, c->s1), c->s2),
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
	uint64_t block;     /* checksum is over 8-byte words: carry the partial one */
	unsigned int nblock;
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
	for (size_t i = 0; i < w->fill; i++) {
		w->block |= (uint64_t)w->buf[i] << (8 * w->nblock);
		if (++w->nblock == 8) {
			csum_add(&w->checksum, w->block);
			w->block = 0;
			w->nblock = 0;
		}
	}
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

	if (!rc && w->nblock)
		csum_add(&w->checksum, w->block);
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
	uint64_t w;

	for (; n >= 8; n -= 8, p += 8) {
		memcpy(&w, p, 8);
		csum_add(&c, w);
	}
	if (n) {
		w = 0;
		memcpy(&w, p, n);
		csum_add(&c, w);
	}
	return csum_final(&c, key, meta);
}

/*
 * Decode every record of @p..@end, calling @fn (when not NULL) with each:
 * 0 after @records of them, -ESTALE when a record does not decode or the
 * count is not @records, or @fn's error.
 */
static int each_record(const uint8_t *p, const uint8_t *end, uint64_t records, cache_event_fn fn,
		       void *ctx)
{
	uint8_t tail[REC_READ];
	struct rec_codec codec;
	uint64_t n = 0;
	int rc;

	rec_codec_init(&codec);
	while (p < end) {
		const uint8_t *at = p;
		struct wl_event e;
		uint64_t index;
		size_t len;

		/* the last records: from a copy with room to read past them */
		if ((size_t)(end - p) < REC_READ) {
			memset(tail, 0, sizeof(tail));
			memcpy(tail, p, (size_t)(end - p));
			at = tail;
		}
		len = rec_decode(&codec, at, &index, &e);
		if (!len || len > (size_t)(end - p) || ++n > records)
			return -ESTALE;
		p += len;
		if (fn && (rc = fn(ctx, index, &e)))
			return rc;
	}
	return n == records ? 0 : -ESTALE;
}

int cache_read(const char *path, uint64_t key, cache_event_fn fn, void *ctx,
	       struct cache_meta *meta)
{
	struct cache_header hdr;
	const uint8_t *base, *p, *end;
	struct stat st;
	int fd, rc;

	/* (not blocking on a FIFO someone left there: anything but a file is rebuilt) */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return errno == ENOENT ? -ENOENT : -ESTALE;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || (size_t)st.st_size < sizeof(hdr)) {
		close(fd);
		return -ESTALE;
	}
	base = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
	close(fd);
	if (base == MAP_FAILED)
		return -ESTALE;
	memcpy(&hdr, base, sizeof(hdr));
	if (memcmp(hdr.magic, CACHE_MAGIC, 8) || hdr.version != CACHE_VERSION ||
	    hdr.header_size != sizeof(hdr) || hdr.key != key ||
	    hdr.payload_bytes != (uint64_t)st.st_size - sizeof(hdr) ||
	    cache_checksum(key, base + sizeof(hdr), hdr.payload_bytes, &hdr.meta) != hdr.checksum) {
		rc = -ESTALE;
		goto unmap;
	}
	*meta = hdr.meta;
	p = base + sizeof(hdr);
	end = p + hdr.payload_bytes;
	/*
	 * The whole file is checked before one event reaches @fn: a caller that
	 * rebuilds from the trace on -ESTALE must not have run half of it.
	 */
	rc = each_record(p, end, hdr.meta.records, NULL, NULL);
	if (!rc && fn)
		rc = each_record(p, end, hdr.meta.records, fn, ctx);
unmap:
	munmap((void *)base, (size_t)st.st_size);
	return rc;
}
