/* SPDX-License-Identifier: MIT */
/*
 * Replay cache files: cache_read(), as a replay calls it on the file its
 * trace's key names. The header's checksum refuses nearly every mutated
 * file before its records are decoded, so the first byte of an input says
 * what the rest is:
 *   even: the whole file, read with the key its header names (a file found
 *         under its own name); what the header checks see;
 *   odd:  a struct cache_meta and the records after it, which this target
 *         seals with a header that passes those checks, as anyone can write
 *         one (the checksum is not a signature); what the decoder sees.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "replay/cache.h"
#include "replay/cache_format.h"

#define FUZZ_CACHE_KEY 0x66757a7a63616368ull

/* What a replay's model relies on of each event it is given. */
static int fuzz_cache_event(void *ctx, uint64_t index, const struct wl_event *e)
{
	uint64_t *n = ctx;

	if (e->kind >= WL_NKINDS)
		abort();
	(*n)++;
	return 0;
}

/* The file of an odd input: a sealed header, then the records. */
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t key = FUZZ_CACHE_KEY, events = 0;
	struct cache_meta meta;
	struct fuzz_file f;
	uint8_t *sealed = NULL;

	if (!size)
		return 0;
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
	return 0;
}
