/* SPDX-License-Identifier: MIT */
/* `gpuiso trace dump` and `gpuiso trace make`: a trace to its text form and back. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#define LOG_PREFIX "trace"
#include "common/atomic_file.h"
#include "common/log.h"
#include "replay/import.h"
#include "replay/source.h"
#include "replay/text.h"

/* The first line of every dump. */
static const char text_header[] =
	"# gpuiso workload trace, text form (docs/trace-events.md, \"The text form\"); "
	"back to CTF: gpuiso trace make FILE -o DIR\n";

/* A dump under way: where it goes, and the losses it has said so far. */
struct text_dumper {
	FILE *out;
	const struct ctf_stats *st; /* the reader's, current during the read */
	struct ctf_loss said;
};

/* What the reader counted lost since the last line that said so, as a line. */
static int text_dump_loss(struct text_dumper *d)
{
	struct ctf_loss l = { d->st->discarded - d->said.events,
			      d->st->lost_packets - d->said.packets };
	char line[128];

	if (!l.events && !l.packets)
		return 0;
	d->said = (struct ctf_loss){ d->st->discarded, d->st->lost_packets };
	if (text_format_loss(&l, line, sizeof(line)) < 0)
		return -ENOSPC;
	fprintf(d->out, "%s\n", line);
	return ferror(d->out) ? -EIO : 0;
}

static int text_dump_event(void *ctx, uint64_t index, struct wl_event *e)
{
	struct text_dumper *d = ctx;
	char line[TEXT_LINE_MAX + 1];
	int rc = text_dump_loss(d);

	if (rc)
		return rc;
	rc = text_format_event(e, line, sizeof(line));
	if (rc < 0)
		return rc;
	fprintf(d->out, "%s\n", line);
	return ferror(d->out) ? -EIO : 0;
}

int text_dump(const char *trace, const char *const *maps, size_t nmaps, FILE *out, char *err,
	      size_t errlen)
{
	struct ctf_stats st = { 0 };
	struct text_dumper d = { .out = out, .st = &st };
	struct wl_source src = { .trace = trace };
	struct wl_source_counts counts = { 0 };
	char why[512] = "";
	int rc;

	err[0] = '\0';
	if (nmaps) {
		rc = import_map_load(maps, nmaps, &src.map, err, errlen);
		if (rc)
			return rc;
	}
	fputs(text_header, out);
	rc = wl_source_read(&src, text_dump_event, &d, &st, &counts, why, sizeof(why));
	if (!rc)
		rc = text_dump_loss(&d);
	import_map_free(src.map);
	if (rc == -EIO || (!rc && (fflush(out) || ferror(out)))) {
		snprintf(err, errlen, "writing the text: %s", strerror(errno ? errno : EIO));
		return -EIO;
	}
	if (rc) {
		/* the reader's messages mostly begin with the trace folder already */
		if (!strncmp(why, trace, strlen(trace)))
			snprintf(err, errlen, "%s", why[0] ? why : strerror(-rc));
		else
			snprintf(err, errlen, "%s: %s", trace, why[0] ? why : strerror(-rc));
		return rc;
	}
	if (st.events && !counts.used && !nmaps)
		log_warn("%s: none of its %llu events is a workload event; another tool's trace "
			 "needs an import map (--map, docs/import-maps.md)", trace,
			 (unsigned long long)st.events);
	return 0;
}

int text_dump_file(const char *trace, const char *const *maps, size_t nmaps, const char *path,
		   char *err, size_t errlen)
{
	struct atomic_file a;
	int rc;

	if (!path || !strcmp(path, "-"))
		return text_dump(trace, maps, nmaps, stdout, err, errlen);
	rc = atomic_file_open(&a, path);
	if (rc) {
		snprintf(err, errlen, "%s: %s", path, strerror(-rc));
		return rc;
	}
	rc = text_dump(trace, maps, nmaps, a.f, err, errlen);
	if (rc) {
		atomic_file_abort(&a);
		return rc;
	}
	rc = atomic_file_commit(&a);
	if (rc)
		snprintf(err, errlen, "%s: %s", path, strerror(-rc));
	return rc;
}

/* The events of a text trace, each with what was lost before it. */
struct text_writer {
	const struct text_trace *t;
	size_t at, loss_at;
};

static int text_next_lossy(void *ctx, struct wl_event *e, struct ctf_loss *loss)
{
	struct text_writer *w = ctx;

	if (w->loss_at < w->t->nloss && w->t->loss[w->loss_at].before == w->at)
		*loss = w->t->loss[w->loss_at++].loss;
	if (w->at == w->t->n)
		return 0;
	*e = w->t->ev[w->at++];
	return 1;
}

static int text_next(void *ctx, struct wl_event *e)
{
	struct ctf_loss none;

	return text_next_lossy(ctx, e, &none);
}

int text_write_ctf(const struct text_trace *t, const char *dir, char *err, size_t errlen)
{
	struct text_writer w = { .t = t };

	/* without a loss, the very trace `trace gen` would write of these events */
	if (!t->nloss)
		return ctf_write(dir, text_next, &w, err, errlen);
	return ctf_write_lossy(dir, text_next_lossy, &w, err, errlen);
}

int text_make(const char *path, const char *dir, char *err, size_t errlen)
{
	struct text_trace t;
	char why[512] = "";
	int rc = text_load(path, &t, err, errlen);

	if (!rc) {
		rc = text_write_ctf(&t, dir, why, sizeof(why));
		if (rc && !strncmp(why, dir, strlen(dir)))
			snprintf(err, errlen, "%s", why);
		else if (rc)
			snprintf(err, errlen, "%s: %s", dir, why[0] ? why : strerror(-rc));
	}
	text_trace_free(&t);
	return rc;
}
