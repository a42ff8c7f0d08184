/* SPDX-License-Identifier: MIT */
/*
 * trace.dat files: ctf_read() on an ftrace recording, as `gpuiso replay`
 * and `trace info` call it on one. An input is the file.
 *
 * The layout walk (ftrace_file_check(), replay/ftrace_file.c) is called
 * here first, so that libFuzzer sees its coverage: it is the part written
 * to say where a file breaks before libtracecmd, in the child, reads it.
 * A walk that accepts a file must leave libtracecmd nothing it dies on in
 * the headers; a death of the decoder must come back as an error all the
 * same. The target aborts if the reader delivers events out of order or
 * more events than it read, fails without a one-line message, or if the
 * walk accepts a file with a layout it cannot have.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "replay/ctf.h"
#include "replay/ftrace.h"

struct fuzz_ftrace {
	uint64_t events, last_index, last_ts;
};

/* Every class, with fields of the kinds a kernel event has: integers, strings, arrays. */
static int fuzz_ftrace_bind(void *ctx, const char *name, struct ctf_binding *b)
{
	static const char *const fields[] = { "common_pid", "pfn", "prev_comm", "order",
					      "dma_addrs[0]", "lengths.sum", "lengths.count",
					      "name" };

	b->tag = (int)(strlen(name) % 4);
	b->n = CTF_MAX_FIELDS;
	for (unsigned int i = 0; i < b->n; i++)
		b->names[i] = fields[i];
	return 0;
}

static int fuzz_ftrace_event(void *ctx, int tag, uint64_t index, uint64_t ts,
			     const struct ctf_value *values)
{
	struct fuzz_ftrace *c = ctx;

	if (tag < 0 || tag > 3 || (c->events && (index <= c->last_index || ts < c->last_ts)))
		abort();
	for (unsigned int i = 0; i < CTF_MAX_FIELDS; i++)
		if (values[i].present && values[i].is_str && !values[i].s)
			abort();
	c->events++;
	c->last_index = index;
	c->last_ts = ts;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ctf_limits lim = { .idle_s = 5, .anon_bytes = 256 << 20 };
	struct fuzz_ftrace c = { 0 };
	struct ftrace_layout lay;
	struct fuzz_file in;
	struct ctf_stats st;
	char err[1024] = "";
	const char *path;
	int rc;

	fuzz_file_write(&in, ".dat", data, size);
	path = in.path;
	rc = ftrace_file_check(path, &lay, err, sizeof(err));
	if (rc && (!err[0] || strchr(err, '\n')))
		abort();
	if (!rc && ((lay.version != 6 && lay.version != 7) || lay.page_size < 4096 ||
		    (lay.page_size & (lay.page_size - 1)) || (lay.long_size != 4 && lay.long_size != 8)))
		abort();
	if (!rc && ftrace_file_is(path)) {
		err[0] = '\0';
		rc = ctf_read(path, fuzz_ftrace_bind, fuzz_ftrace_event, &c, &lim, &st, err,
			      sizeof(err));
		if (rc == 0 && c.events > st.events)
			abort(); /* delivered more events than it read */
		if (rc && (!err[0] || strchr(err, '\n')))
			abort(); /* every failure is said, on one line */
	}
	fuzz_file_remove(&in);
	return 0;
}
