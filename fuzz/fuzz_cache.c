/* SPDX-License-Identifier: MIT */
/*
 * The replay cache's files, as a replay reads them. The header's checksum
 * refuses nearly every mutated file before its records are decoded, so the
 * first byte of an input says what the rest is:
 *   bit 7 clear: a cache file, read by cache_read() as a replay calls it on
 *     the file its trace's key names;
 *     bit 0 clear: the whole file, read with the key its header names (a
 *       file found under its own name); what the header checks see;
 *     bit 0 set: a struct cache_meta and the records after it, which this
 *       target seals with a header that passes those checks, as anyone can
 *       write one (the checksum is not a signature); what the decoder sees;
 *   bit 7 set: an identity file, read by cache_find() for a trace of the
 *     target's own (one file, settled) whose identity names it;
 *     bit 0 clear: the whole file;
 *     bit 0 set: the key and digests of a struct cache_ident, which this
 *       target completes (magic, version, inputs, identity, checksum) so
 *       that only the key's agreement with the digests is left to check.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fuzz.h"
#include "replay/cache.h"
#include "replay/cache_format.h"

#define FUZZ_CACHE_KEY 0x66757a7a63616368ull

/* The trace whose identity files the target reads: made once, removed at exit. */
static struct {
	char dir[64];
	char trace[96];
	struct cache_entry entry; /* hashed: its identity, and its true key and digest */
} fz;

static void fuzz_cache_trace_remove(void)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/%016llx.wli", fz.dir, (unsigned long long)fz.entry.identity);
	unlink(path);
	unlink(fz.trace);
	rmdir(fz.dir);
}

/* A trace file modified an hour ago (settled), and its entry. */
static void fuzz_cache_trace(void)
{
	struct timespec t[2];
	FILE *f;

	if (fz.trace[0])
		return;
	snprintf(fz.dir, sizeof(fz.dir), "/tmp/gpuiso-fuzz-cache-XXXXXX");
	if (!mkdtemp(fz.dir))
		abort();
	snprintf(fz.trace, sizeof(fz.trace), "%s/trace", fz.dir);
	f = fopen(fz.trace, "w");
	if (!f || fputs("a trace of the cache's fuzz target\n", f) < 0 || fclose(f))
		abort();
	clock_gettime(CLOCK_REALTIME, &t[0]);
	t[0].tv_sec -= 3600;
	t[1] = t[0];
	if (utimensat(AT_FDCWD, fz.trace, t, 0) ||
	    cache_find(fz.dir, fz.trace, NULL, 0, &fz.entry) || fz.entry.by_identity ||
	    !fz.entry.settled)
		abort();
	atexit(fuzz_cache_trace_remove);
}

/* What a replay's model relies on of each event it is given. */
static int fuzz_cache_event(void *ctx, uint64_t index, const struct wl_event *e)
{
	uint64_t *n = ctx;

	if (e->kind >= WL_NKINDS)
		abort();
	(*n)++;
	return 0;
}

/* The file of an odd cache input: a sealed header, then the records. */
static uint8_t *fuzz_cache_seal(const uint8_t *data, size_t size, size_t *len)
{
	struct cache_header hdr = {
		.magic = CACHE_MAGIC, .version = CACHE_VERSION, .header_size = sizeof(hdr),
		.key = FUZZ_CACHE_KEY,
	};
	size_t nmeta = size < sizeof(hdr.meta) ? size : sizeof(hdr.meta);
	size_t payload = size - nmeta;
	uint8_t *file = malloc(sizeof(hdr) + payload + 1);

	if (!file)
		abort();
	memcpy(&hdr.meta, data, nmeta);
	hdr.payload_bytes = payload;
	hdr.checksum = cache_checksum(hdr.key, data + nmeta, payload, &hdr.meta);
	memcpy(file, &hdr, sizeof(hdr));
	memcpy(file + sizeof(hdr), data + nmeta, payload);
	*len = sizeof(hdr) + payload;
	return file;
}

static void fuzz_cache_file(const uint8_t *data, size_t size)
{
	uint64_t key = FUZZ_CACHE_KEY, events = 0;
	struct cache_meta meta;
	struct fuzz_file f;
	uint8_t *sealed = NULL;

	if (data[0] & 1) {
		sealed = fuzz_cache_seal(data + 1, size - 1, &size);
		fuzz_file_write(&f, ".wlc", sealed, size);
	} else {
		if (size - 1 >= offsetof(struct cache_header, key) + sizeof(key))
			memcpy(&key, data + 1 + offsetof(struct cache_header, key), sizeof(key));
		fuzz_file_write(&f, ".wlc", data + 1, size - 1);
	}
	if (!cache_read(f.path, key, fuzz_cache_event, &events, &meta) && events != meta.records)
		abort(); /* a read that succeeds delivers every record the header counts */
	fuzz_file_remove(&f);
	free(sealed);
}

static void fuzz_cache_ident(const uint8_t *data, size_t size)
{
	struct cache_ident id = { .magic = CACHE_IDENT_MAGIC, .version = CACHE_VERSION,
				  .ninputs = 1 };
	const uint8_t *file = data + 1;
	size_t len = size - 1;
	struct cache_entry e;
	char path[128];
	FILE *f;

	fuzz_cache_trace();
	id.identity = fz.entry.identity;
	if (data[0] & 1) {
		size_t n = offsetof(struct cache_ident, checksum) - offsetof(struct cache_ident, key);

		memcpy(&id.key, data + 1, len < n ? len : n);
		id.checksum = cache_ident_checksum(&id);
		file = (const uint8_t *)&id;
		len = sizeof(id);
	} else if (len == sizeof(id)) {
		memcpy(&id, file, sizeof(id));
	}
	snprintf(path, sizeof(path), "%s/%016llx.wli", fz.dir, (unsigned long long)fz.entry.identity);
	f = fopen(path, "wb");
	if (!f || fwrite(file, 1, len, f) != len || fclose(f))
		abort();
	if (cache_find(fz.dir, fz.trace, NULL, 0, &e) || e.ninputs != 1)
		abort(); /* the trace is there: it is found, one way or the other */
	if (e.by_identity && (len != sizeof(id) || e.key != id.key || e.digest[0] != id.digest[0]))
		abort(); /* what an identity file gives is what it holds */
	if (!e.by_identity && (e.key != fz.entry.key || e.digest[0] != fz.entry.digest[0]))
		abort(); /* else the trace is hashed */
	unlink(path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!size)
		return 0;
	if (data[0] & 0x80)
		fuzz_cache_ident(data, size);
	else
		fuzz_cache_file(data, size);
	return 0;
}
