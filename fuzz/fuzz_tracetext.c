/* SPDX-License-Identifier: MIT */
/*
 * Text traces: text_load(), as `gpuiso trace make FILE` calls it. An input
 * that loads must be a trace make can write: events in time order, kinds of
 * the catalogue, timestamps and losses a CTF trace carries (replay/ctf.h),
 * losses in order and not empty, WL_AFTER_LOSS exactly on
 * the events after the first loss; and its events printed as dump prints
 * them must load again as the same trace. One that does not load must say
 * why, each line naming the file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "replay/text.h"

static void fuzz_text_check(const struct text_trace *t)
{
	struct ctf_loss sum = { 0 };

	for (size_t i = 0; i < t->n; i++) {
		bool after = t->nloss && t->loss[0].before <= i;

		if (t->ev[i].kind >= WL_NKINDS || (i && t->ev[i].ts < t->ev[i - 1].ts) ||
		    t->ev[i].ts > CTF_TS_MAX || !!(t->ev[i].flags & WL_AFTER_LOSS) != after)
			abort();
	}
	for (size_t i = 0; i < t->nloss; i++) {
		const struct ctf_loss *l = &t->loss[i].loss;

		if (t->loss[i].before > t->n || (i && t->loss[i].before <= t->loss[i - 1].before) ||
		    (!l->events && !l->packets))
			abort();
		/* what a CTF trace carries, added up over the trace */
		if (l->events > CTF_LOST_EVENTS_MAX - sum.events ||
		    l->packets > CTF_LOST_PACKETS_MAX - sum.packets)
			abort();
		sum.events += l->events;
		sum.packets += l->packets;
	}
}

/* @t as dump prints it, read again: the same events and losses. */
static void fuzz_text_again(const struct text_trace *t)
{
	char line[TEXT_LINE_MAX + 1], err[256], *text = NULL;
	struct text_trace again;
	size_t len = 0, l = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		abort();
	for (size_t i = 0; i <= t->n; i++) {
		if (l < t->nloss && t->loss[l].before == i) {
			if (text_format_loss(&t->loss[l++].loss, line, sizeof(line)) < 0)
				abort();
			fprintf(f, "%s\n", line);
		}
		if (i == t->n)
			break;
		if (text_format_event(&t->ev[i], line, sizeof(line)) < 0)
			abort();
		fprintf(f, "%s\n", line);
	}
	fclose(f);
	f = fmemopen(text, len, "r");
	if (!f && len)
		abort();
	if (!f)
		f = fopen("/dev/null", "r");
	if (text_parse(f, "again", &again, err, sizeof(err)))
		abort();
	fclose(f);
	if (again.n != t->n || again.nloss != t->nloss ||
	    (t->n && memcmp(again.ev, t->ev, t->n * sizeof(*t->ev))) ||
	    (t->nloss && memcmp(again.loss, t->loss, t->nloss * sizeof(*t->loss))))
		abort();
	text_trace_free(&again);
	free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct text_trace t;
	struct fuzz_file f;
	char err[4096];
	int rc;

	fuzz_file_write(&f, ".txt", data, size);
	err[0] = '\0';
	rc = text_load(f.path, &t, err, sizeof(err));
	if (!rc) {
		fuzz_text_check(&t);
		fuzz_text_again(&t);
	} else if (strncmp(err, f.path, strlen(f.path))) {
		abort();
	}
	text_trace_free(&t);
	fuzz_file_remove(&f);
	return 0;
}
