/* SPDX-License-Identifier: MIT */
/*
 * CTF traces: ctf_read(), as `gpuiso replay` and `trace info` call it on a
 * trace folder. An input is a folder of two files: a little-endian u16
 * length, that many bytes of metadata, and the rest is the one stream file.
 *
 * The decoder (babeltrace2) runs in a child process, whose coverage this
 * process does not see: what is fuzzed with guidance is this side, the
 * checks made before babeltrace2 is given a trace, and the reading of what
 * the decoder sends. A death of the decoder must come back as an error;
 * anything else (this process crashing, hanging, an event out of order) is
 * a finding.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"
#include "replay/ctf.h"

struct fuzz_ctf {
	uint64_t events, last_index, last_ts;
};

/* Every class, with up to CTF_MAX_FIELDS names a trace is likely to use. */
static int fuzz_ctf_bind(void *ctx, const char *name, struct ctf_binding *b)
{
	static const char *const fields[] = { "_adapter", "_id", "_bytes", "_segment",
					      "_flags", "_ref", "_offset", "_phys" };

	b->tag = (int)(strlen(name) % 4);
	b->n = name[0] == 'x' ? 0 : CTF_MAX_FIELDS;
	for (unsigned int i = 0; i < b->n; i++)
		b->names[i] = fields[i];
	return name[0] == '!' ? -EINVAL : 0; /* a refusal, as --strict makes them */
}

/* What the reader promises of each event it delivers. */
static int fuzz_ctf_event(void *ctx, int tag, uint64_t index, uint64_t ts,
			  const struct ctf_value *values)
{
	struct fuzz_ctf *c = ctx;

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

static void fuzz_ctf_put(const char *dir, const char *name, const uint8_t *data, size_t size)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(data, 1, size, f) != size || fclose(f))
		abort(); /* the harness, not the target */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ctf_limits lim = { .idle_s = 5, .anon_bytes = 256 << 20 };
	char dir[4096], path[4200], err[1024];
	struct fuzz_ctf c = { 0 };
	struct ctf_stats st;
	size_t nmeta;
	int rc;

	if (size < 2)
		return 0;
	nmeta = (size_t)data[0] | (size_t)data[1] << 8;
	if (nmeta > size - 2)
		nmeta = size - 2;
	snprintf(dir, sizeof(dir), "%s/gpuiso-fuzz-ctf-XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(dir))
		abort();
	fuzz_ctf_put(dir, "metadata", data + 2, nmeta);
	fuzz_ctf_put(dir, "stream", data + 2 + nmeta, size - 2 - nmeta);
	rc = ctf_read(dir, fuzz_ctf_bind, fuzz_ctf_event, &c, &lim, &st, err, sizeof(err));
	if (rc == 0 && c.events > st.events)
		abort(); /* delivered more events than it read */
	if (rc && (!err[0] || strchr(err, '\n')))
		abort(); /* every failure is said, on one line */
	snprintf(path, sizeof(path), "%s/metadata", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/stream", dir);
	unlink(path);
	rmdir(dir);
	return 0;
}
