/* SPDX-License-Identifier: MIT */
#include <dirent.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cache.h"
#include "common/digest.h"

/*
 * File layout: a fixed header, then one record per event, made to be decoded
 * without a branch per value:
 *   u32 head: bits 0-5 the kind, then a 3-bit length code for each of the
 *             REC_VALUES values below (code c: CODE_LEN[c] bytes)
 *   the values, each in as few little-endian bytes as its code says:
 *             index - previous index - 1 (nearly always 0: no bytes; the
 *             "previous index" of the first record is 2^64 - 1),
 *             ts - previous ts, and the kind's catalogue fields in order
 *             (those the kind does not have: code 0).
 * All integers little endian. The checksum covers the records.
 */

#define CACHE_MAGIC "GPUISOWC"
#define CACHE_VERSION 3u
#define REC_VALUES (2 + WL_MAX_FIELDS)
#define REC_MAX (4 + 8 * REC_VALUES) /* the longest record */
#define KIND_BITS 6

static const uint8_t CODE_LEN[8] = { 0, 1, 2, 3, 4, 5, 6, 8 };

_Static_assert(WL_NKINDS <= 1 << KIND_BITS, "a kind must fit the head");
_Static_assert(KIND_BITS + 3 * REC_VALUES <= 32, "the length codes must fit the head");

struct cache_header {
	char magic[8];
	uint32_t version;
	uint32_t header_size;
	uint64_t key;
	uint64_t payload_bytes;
	uint64_t checksum;
	struct cache_meta meta;
};

/* --- the key: a digest of the trace's files, names and contents (common/digest.h) --- */

static uint64_t bytes_digest(const void *p, size_t n)
{
	struct digest d;

	digest_init(&d);
	digest_update(&d, p, n);
	return digest_final(&d);
}

/* Fold the digest of a file's content into @h. */
static int hash_file(const char *path, uint64_t *h)
{
	enum { CHUNK = 1 << 20 };
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	uint8_t *buf = malloc(CHUNK);
	struct digest d;
	ssize_t n = 0;

	if (fd < 0 || !buf) {
		n = fd < 0 ? -errno : -ENOMEM;
		goto close_file;
	}
	digest_init(&d);
	while ((n = read(fd, buf, CHUNK)) > 0)
		digest_update(&d, buf, (size_t)n);
	if (n < 0)
		n = -EIO;
	*h = digest_combine(*h, digest_final(&d));
close_file:
	free(buf);
	if (fd >= 0)
		close(fd);
	return (int)n;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every regular file below @dir, in name order, by relative name and content. */
static int hash_tree(const char *dir, const char *rel, uint64_t *h)
{
	char path[4096], sub[4096];
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *d;
	DIR *dp;
	int rc = 0;

	snprintf(path, sizeof(path), "%s%s%s", dir, *rel ? "/" : "", rel);
	dp = opendir(path);
	if (!dp)
		return -errno;
	while ((d = readdir(dp))) {
		if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
			continue;
		if (n == cap) {
			char **more = realloc(names, (cap = cap ? 2 * cap : 16) * sizeof(*names));

			if (!more) {
				rc = -ENOMEM;
				break;
			}
			names = more;
		}
		names[n] = strdup(d->d_name);
		if (!names[n++]) {
			rc = -ENOMEM;
			break;
		}
	}
	closedir(dp);
	if (!rc)
		qsort(names, n, sizeof(*names), cmp_names);
	for (size_t i = 0; !rc && i < n; i++) {
		struct stat st;

		if (snprintf(sub, sizeof(sub), "%s%s%s", rel, *rel ? "/" : "", names[i]) >=
			    (int)sizeof(sub) ||
		    snprintf(path, sizeof(path), "%s/%s", dir, sub) >= (int)sizeof(path)) {
			rc = -ENAMETOOLONG;
			break;
		}
		if (stat(path, &st))
			continue;
		*h = digest_combine(*h, bytes_digest(sub, strlen(sub) + 1));
		if (S_ISDIR(st.st_mode))
			rc = hash_tree(dir, sub, h);
		else if (S_ISREG(st.st_mode))
			rc = hash_file(path, h);
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return rc;
}

int cache_key(const char *trace, const char *const *extra, size_t nextra, uint64_t *key)
{
	uint64_t h = digest_combine(CACHE_VERSION, 0x6770756973);
	int rc = hash_tree(trace, "", &h);

	for (size_t i = 0; !rc && i < nextra; i++)
		rc = hash_file(extra[i], &h);
	*key = h;
	return rc;
}

int cache_path(const char *dir, uint64_t key, char *out, size_t len)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	int n;

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
 * The payload checksum: Fletcher-style sums over 64-bit little-endian words
 * (a final partial word zero-padded). Two adds a word, so checking a cache
 * file costs little next to decoding it; it catches truncation, flipped and
 * moved bytes, which is all it is for.
 */
struct csum {
	uint64_t s1, s2;
};

static inline void csum_add(struct csum *c, uint64_t w)
{
	c->s1 += w;
	c->s2 += c->s1;
}

static uint64_t csum_final(const struct csum *c, uint64_t key)
{
	return digest_combine(digest_combine(key, c->s1), c->s2);
}

/* --- writing --- */

struct cache_writer {
	char path[4096], tmp[4200];
	FILE *f;
	uint64_t key, bytes;
	struct csum checksum;
	uint64_t prev_index, prev_ts, records;
	uint8_t buf[1 << 16];
	size_t fill;
	uint64_t block;     /* checksum is over 8-byte words: carry the partial one */
	unsigned int nblock;
};

static int mkdirs(const char *path)
{
	char p[4096];

	snprintf(p, sizeof(p), "%s", path);
	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, 0755) && errno != EEXIST)
			return -errno;
		*s = '/';
	}
	return 0;
}

int cache_writer_open(const char *path, uint64_t key, struct cache_writer **out)
{
	struct cache_header hdr = { 0 };
	struct cache_writer *w = calloc(1, sizeof(*w));
	int rc;

	if (!w)
		return -ENOMEM;
	snprintf(w->path, sizeof(w->path), "%s", path);
	snprintf(w->tmp, sizeof(w->tmp), "%s.%d.tmp", path, (int)getpid());
	rc = mkdirs(w->path);
	if (rc)
		goto free_writer;
	w->f = fopen(w->tmp, "wb");
	if (!w->f) {
		rc = -errno;
		goto free_writer;
	}
	w->key = key;
	w->prev_index = UINT64_MAX;
	/* a placeholder header; the real one is written at commit */
	if (fwrite(&hdr, sizeof(hdr), 1, w->f) != 1) {
		rc = -EIO;
		goto close_file;
	}
	*out = w;
	return 0;

close_file:
	fclose(w->f);
	unlink(w->tmp);
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
	if (w->fill && fwrite(w->buf, 1, w->fill, w->f) != w->fill)
		return -EIO;
	w->bytes += w->fill;
	w->fill = 0;
	return 0;
}

/* The shortest length code for @v. */
static unsigned int code_of(uint64_t v)
{
	unsigned int c = 0;

	while (c < 7 && v >> (8 * CODE_LEN[c]))
		c++;
	return c;
}

int cache_writer_add(struct cache_writer *w, uint64_t index, const struct wl_event *e)
{
	uint64_t v[REC_VALUES] = { 0 };
	const struct wl_desc *d;
	uint32_t head;
	int rc;

	if (e->kind >= WL_NKINDS)
		return -EINVAL;
	d = &wl_catalogue[e->kind];
	if (w->fill > sizeof(w->buf) - REC_MAX) {
		rc = flush_buf(w);
		if (rc)
			return rc;
	}
	/* modulo 2^64: an index repeated (import maps do) takes 8 bytes, and decodes right */
	v[0] = index - w->prev_index - 1;
	v[1] = e->ts - w->prev_ts;
	for (unsigned int i = 0; i < d->nfields; i++)
		v[2 + i] = e->v[d->fields[i].slot];
	head = e->kind;
	for (unsigned int i = 0; i < REC_VALUES; i++)
		head |= code_of(v[i]) << (KIND_BITS + 3 * i);
	for (unsigned int b = 0; b < 4; b++)
		w->buf[w->fill++] = (uint8_t)(head >> (8 * b));
	for (unsigned int i = 0; i < REC_VALUES; i++)
		for (unsigned int b = 0; b < CODE_LEN[(head >> (KIND_BITS + 3 * i)) & 7]; b++)
			w->buf[w->fill++] = (uint8_t)(v[i] >> (8 * b));
	w->prev_index = index;
	w->prev_ts = e->ts;
	w->records++;
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
	hdr.checksum = csum_final(&w->checksum, w->key);
	if (!rc && (fseek(w->f, 0, SEEK_SET) || fwrite(&hdr, sizeof(hdr), 1, w->f) != 1))
		rc = -EIO;
	if (fclose(w->f) && !rc)
		rc = -EIO;
	if (!rc && rename(w->tmp, w->path))
		rc = -errno;
	if (rc)
		unlink(w->tmp);
	free(w);
	return rc;
}

void cache_writer_abort(struct cache_writer *w)
{
	if (!w)
		return;
	fclose(w->f);
	unlink(w->tmp);
	free(w);
}

/* --- reading --- */

static uint64_t checksum_of(uint64_t key, const uint8_t *p, size_t n)
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
	return csum_final(&c, key);
}

static inline uint64_t load_le64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return le64toh(v);
}

/*
 * Decode the record at @p into its kind and values; its length. Reads up to
 * REC_MAX + 8 bytes from @p whatever the record's length: the caller makes
 * sure they are there.
 */
static inline size_t record_decode(const uint8_t *p, unsigned int *kind, uint64_t v[REC_VALUES])
{
	static const uint64_t mask[8] = { 0, 0xff, 0xffff, 0xffffff, 0xffffffff, 0xffffffffffull,
					  0xffffffffffffull, ~0ull };
	uint32_t head = (uint32_t)load_le64(p);
	size_t off = 4;

	*kind = head & ((1u << KIND_BITS) - 1);
	for (unsigned int i = 0; i < REC_VALUES; i++) {
		unsigned int c = (head >> (KIND_BITS + 3 * i)) & 7;

		v[i] = load_le64(p + off) & mask[c];
		off += CODE_LEN[c];
	}
	return off;
}

int cache_read(const char *path, uint64_t key, cache_event_fn fn, void *ctx,
	       struct cache_meta *meta)
{
	struct cache_header hdr;
	const uint8_t *base, *p, *end;
	uint64_t index = UINT64_MAX, ts = 0, records = 0;
	uint8_t slots[WL_NKINDS][WL_MAX_FIELDS], tail[REC_MAX + 8];
	struct stat st;
	int fd, rc = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ENOENT : -ESTALE;
	if (fstat(fd, &st) || (size_t)st.st_size < sizeof(hdr)) {
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
	    checksum_of(key, base + sizeof(hdr), hdr.payload_bytes) != hdr.checksum) {
		rc = -ESTALE;
		goto unmap;
	}
	*meta = hdr.meta;
	/*
	 * Each kind's slots, read once here rather than through the catalogue
	 * per field; the fields a kind does not have go to a slot past the end.
	 */
	for (unsigned int k = 0; k < WL_NKINDS; k++)
		for (unsigned int i = 0; i < WL_MAX_FIELDS; i++)
			slots[k][i] = i < wl_catalogue[k].nfields ? (uint8_t)wl_catalogue[k].fields[i].slot
								   : WL_NSLOTS;
	p = base + sizeof(hdr);
	end = p + hdr.payload_bytes;
	while (p < end) {
		uint64_t v[REC_VALUES], slot[WL_NSLOTS + 1] = { 0 };
		const uint8_t *at = p;
		struct wl_event e;
		unsigned int kind;
		size_t len;

		/* the last records: from a copy with room to read past them */
		if ((size_t)(end - p) < REC_MAX + 8) {
			memset(tail, 0, sizeof(tail));
			memcpy(tail, p, (size_t)(end - p));
			at = tail;
		}
		len = record_decode(at, &kind, v);
		if (kind >= WL_NKINDS || len > (size_t)(end - p))
			goto corrupt;
		p += len;
		index += v[0] + 1;
		ts += v[1];
		for (unsigned int i = 0; i < WL_MAX_FIELDS; i++)
			slot[slots[kind][i]] = v[2 + i];
		e.ts = ts;
		e.kind = kind;
		e.pad = 0;
		memcpy(e.v, slot, sizeof(e.v));
		records++;
		if (fn) {
			rc = fn(ctx, index, &e);
			if (rc)
				goto unmap;
		}
	}
	if (records != hdr.meta.records)
		rc = -ESTALE;
	goto unmap;

corrupt:
	rc = -ESTALE;
unmap:
	munmap((void *)base, (size_t)st.st_size);
	return rc;
}
