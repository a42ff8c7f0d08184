/* SPDX-License-Identifier: MIT */
/*
 * Shard files: shard_header_read(), then for a sweep's journal
 * sweep_journal_records(), what `gpuiso merge OUT` and a shard started
 * again read of OUT/shards/I-of-N. A header that reads must say a shard
 * of its split and carry fields with names and no line break, and be
 * exactly what shard_header_write() writes of it (no other spacing, sign
 * or leading zero was taken); each record must name a point, a hit from 1
 * and an outcome, and a verdict only with an outcome a verdict can say;
 * reading ends where the file does or before.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "faults/campaign/shard.h"
#include "faults/campaign/sweep.h"
#include "fuzz.h"

static int fuzz_record(void *arg, const struct sweep_record *r)
{
	size_t *n = arg;

	if ((unsigned int)r->point >= FP_NPOINTS || !r->nth ||
	    (unsigned int)r->outcome >= SWEEP_NOUTCOMES)
		abort();
	if (r->has_verdict && (r->outcome >= SWEEP_CRASH || r->verdict.kept > VERDICT_MAX_FINDINGS ||
			       (int)r->verdict.outcome != (int)r->outcome))
		abort();
	(*n)++;
	return 0;
}

/* Whether the @len bytes at @data are what shard_header_write() writes of @h. */
static bool as_written(const struct shard_header *h, const uint8_t *data, size_t len)
{
	char *text = NULL;
	size_t n = 0;
	bool same;
	FILE *f = open_memstream(&text, &n);

	if (!f)
		return true; /* out of memory: nothing to compare */
	shard_header_write(f, h);
	if (fclose(f)) {
		free(text);
		return true;
	}
	same = n == len && !memcmp(text, data, n);
	free(text);
	return same;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct shard_header h;
	struct fuzz_file ff;
	size_t records = 0;
	off_t good = 0;
	FILE *f;

	fuzz_file_write(&ff, "", data, size);
	f = fopen(ff.path, "r");
	if (f && !shard_header_read(f, &h)) {
		if (h.sh.index >= h.sh.count || h.nfields > SHARD_MAX_FIELDS)
			abort();
		for (size_t i = 0; i < h.nfields; i++)
			if (!h.fields[i].name[0] || strpbrk(h.fields[i].value, "\r\n"))
				abort();
		if (h.sh.count > SHARD_MAX || !as_written(&h, data, (size_t)ftello(f)))
			abort();
		if (!strcmp(h.kind, "sweep") &&
		    (sweep_journal_records(f, fuzz_record, &records, &good) || good < 0 ||
		     (size_t)good > size))
			abort();
		shard_header_free(&h);
	}
	if (f)
		fclose(f);
	fuzz_file_remove(&ff);
	return 0;
}
