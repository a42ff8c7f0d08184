/* SPDX-License-Identifier: MIT */
/*
 * .etl files: the layout walk (etl_file_check()), then the decoder
 * (etl_decode(), replay/etl_decode.c) in this process, as the child of
 * `gpuiso replay` and `trace info` runs it on one. An input is the file.
 *
 * Unlike the CTF and trace.dat decoders, which are libraries gpuiso runs
 * in a child because they may crash, this one is gpuiso's own: it must
 * not crash, so libFuzzer runs it here and sees its coverage. Every class
 * is bound with fields of each kind a DxgKrnl event has (integers, arrays
 * by element, count and sum, strings, GUIDs, binary). The target aborts
 * if events come out of order or with a bad tag, if a failure has no
 * one-line message, or if the walk accepts a layout a file cannot have.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "replay/etl.h"

struct fuzz_etl {
	uint64_t events, last_index, last_ts;
};

static int fuzz_etl_bind(void *ctx, const char *name, struct ctf_binding *b)
{
	static const char *const fields[] = { "hVidMmGlobalAlloc", "ObjectArray[1]",
					      "FenceValue.sum", "ObjectCount", "EventGuid",
					      "Buffer.count", "SinkDeviceInformation",
					      "HighestAcceptableAddress" };

	b->tag = (int)(strlen(name) % 4);
	b->n = CTF_MAX_FIELDS;
	for (unsigned int i = 0; i < b->n; i++)
		b->names[i] = fields[i];
	return 0;
}

static int fuzz_etl_event(void *ctx, int tag, uint64_t index, uint64_t ts,
			  const struct ctf_value *values)
{
	struct fuzz_etl *c = ctx;

	if (tag < 0 || tag > 3 || (c->events && (index <= c->last_index || ts < c->last_ts)))
		abort();
	for (unsigned int i = 0; i < CTF_MAX_FIELDS; i++)
		if (values[i].present && values[i].is_str && (!values[i].s ||
							      strlen(values[i].s) > 65536 / 2 * 3))
			abort();
	c->events++;
	c->last_index = index;
	c->last_ts = ts;
	return 0;
}

static void fuzz_etl_mark(void *ctx, enum ctf_mark mark, const char *name, uint64_t n)
{
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_etl c = { 0 };
	struct etl_layout lay;
	struct fuzz_file in;
	struct ctf_stats st;
	char err[1024] = "";
	int rc;

	fuzz_file_write(&in, ".etl", data, size);
	rc = etl_file_check(in.path, &lay, err, sizeof(err));
	if (rc && (!err[0] || strchr(err, '\n')))
		abort();
	if (!rc && ((lay.pointer_size != 4 && lay.pointer_size != 8) || !lay.buffers ||
		    lay.buffer_size < 0x90 || (lay.clock_type == 1 && !lay.perf_freq)))
		abort();
	if (!rc) {
		err[0] = '\0';
		rc = etl_decode(in.path, fuzz_etl_bind, fuzz_etl_event, fuzz_etl_mark, &c, &st, err,
				sizeof(err));
		if (c.events > st.events)
			abort(); /* delivered more events than it read */
		if (rc && (!err[0] || strchr(err, '\n')))
			abort(); /* every failure is said, on one line */
	}
	fuzz_file_remove(&in);
	return 0;
}
