/* SPDX-License-Identifier: MIT */
/*
 * ftrace_decode(): a trace.dat's events through libtracecmd, as ctf_decode()
 * hands a CTF trace's over. libtracecmd merges the per-CPU buffers in time
 * order (tracecmd_iterate_events()); each event's class is bound once, by
 * its format's id, and its wanted fields resolved to format fields then, so
 * that each event is read without a lookup by name. Every read of a field
 * is checked against the record's size: a damaged record is an error said
 * where, never a read past it.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <trace-cmd/trace-cmd.h>

#include "common/array.h"
#include "common/u64map.h"
#include "replay/ftrace.h"

/* What a bound name reads of its field. */
enum fsel_kind {
	FS_NONE,   /* no such field (or a bare array): absent */
	FS_INT,    /* an integer field */
	FS_STR,    /* a string or char array field */
	FS_ELEM,   /* element @i of an array field */
	FS_COUNT,  /* an array field's element count */
	FS_SUM,    /* the sum of an array field's elements */
};

struct fsel {
	enum fsel_kind kind;
	struct tep_format_field *f;
	unsigned int i;
};

/* One event class, bound. */
struct fclass {
	bool listed; /* bound before any of its events (asked again at the first if skipped) */
	int tag;
	unsigned int n;
	struct fsel sel[CTF_MAX_FIELDS];
};

struct fdec {
	const char *path;
	struct tep_handle *tep;
	ctf_bind_fn bind;
	ctf_event_fn on_event;
	ctf_mark_fn mark;
	void *ctx;
	struct ctf_stats *st;
	char *err;
	size_t errlen;

	struct u64map classes;      /* format id -> index in @cls, plus one */
	struct fclass *cls;
	size_t ncls, cls_cap;
	uint64_t *page;             /* per CPU: the page last marked, plus one */
	size_t npage;
	unsigned int page_size;
	char *str;                  /* the current event's strings: a page each (no record is longer) */
	int rc;                     /* what stopped the iteration */
};

/* The element size of an array field whose format did not say it (its type does). */
static unsigned int elem_size(const struct tep_format_field *f)
{
	static const struct { const char *prefix; unsigned int size; } types[] = {
		{ "__data_loc u64", 8 }, { "__data_loc s64", 8 }, { "__data_loc u32", 4 },
		{ "__data_loc s32", 4 }, { "__data_loc unsigned int", 4 }, { "__data_loc int", 4 },
		{ "__data_loc u16", 2 }, { "__data_loc u8", 1 }, { "__data_loc unsigned long", 8 },
		{ "__rel_loc u64", 8 }, { "__rel_loc u32", 4 }, { "__rel_loc unsigned int", 4 },
	};

	if (f->elementsize)
		return f->elementsize;
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (!strncmp(f->type, types[i].prefix, strlen(types[i].prefix)))
			return types[i].size;
	return 0;
}

/* A string: char arrays, __string, and a char of no size (old kernels' "char buf;" of print) */
static bool is_char_array(const struct tep_format_field *f)
{
	return (f->flags & TEP_FIELD_IS_STRING) ||
	       ((f->flags & TEP_FIELD_IS_ARRAY) && strstr(f->type, "char") && elem_size(f) <= 1) ||
	       (f->size == 0 && strstr(f->type, "char"));
}

/* "NAME", "NAME[I]", "NAME.count", "NAME.sum" (ctf_name_parse()): what @want reads of @ev. */
static struct fsel resolve(struct tep_event *ev, const char *want)
{
	static const enum fsel_kind of_sel[] = {
		[CTF_SEL_ELEM] = FS_ELEM, [CTF_SEL_COUNT] = FS_COUNT, [CTF_SEL_SUM] = FS_SUM,
	};
	struct fsel s = { .kind = FS_NONE };
	uint32_t i = 0;
	char base[128];
	enum ctf_sel sel = ctf_name_parse(want, base, sizeof(base), &i);
	unsigned int es;

	s.f = base[0] ? tep_find_any_field(ev, base) : NULL;
	if (!s.f)
		return s;
	if (sel == CTF_SEL_WHOLE) {
		if (is_char_array(s.f))
			s.kind = FS_STR;
		else if (!(s.f->flags & TEP_FIELD_IS_ARRAY) && s.f->size >= 1 && s.f->size <= 8)
			s.kind = FS_INT;
		return s;
	}
	es = elem_size(s.f);
	if (!(s.f->flags & TEP_FIELD_IS_ARRAY) || is_char_array(s.f) || es == 0 || es > 8)
		return s;
	s.kind = of_sel[sel];
	s.i = i;
	return s;
}

static int class_bind(struct fdec *d, struct tep_event *ev, bool listed, struct fclass **out)
{
	struct ctf_binding b = { .listed = listed, .tag = -1 };
	uint64_t *slot = u64map_get(&d->classes, (uint64_t)(unsigned int)ev->id);
	char name[256];
	struct fclass *c;
	int rc;

	snprintf(name, sizeof(name), "%s:%s", ev->system ? ev->system : "", ev->name ? ev->name : "");
	rc = d->bind(d->ctx, name, &b);
	if (rc < 0)
		return rc;
	if (!slot && array_reserve(&d->cls, &d->cls_cap, d->ncls, sizeof(*d->cls)))
		return -ENOMEM;
	c = slot ? &d->cls[*slot - 1] : &d->cls[d->ncls];
	*c = (struct fclass){ .listed = listed, .tag = b.tag,
			      .n = b.n > CTF_MAX_FIELDS ? CTF_MAX_FIELDS : b.n };
	for (unsigned int i = 0; b.tag >= 0 && i < c->n; i++)
		c->sel[i] = resolve(ev, b.names[i] ? b.names[i] : "");
	if (!slot) {
		rc = u64map_put(&d->classes, (uint64_t)(unsigned int)ev->id, d->ncls + 1);
		if (rc)
			return rc;
		d->ncls++;
	}
	*out = c;
	return 0;
}

/* Where a field's bytes are in @rec: a dynamic field's are pointed to. Return: false past the end. */
static bool field_bytes(struct fdec *d, const struct tep_record *rec, const struct tep_format_field *f,
			const uint8_t **p, unsigned int *len)
{
	unsigned int off = (unsigned int)f->offset, size = (unsigned int)f->size;

	/* a field of no declared size runs to the record's end (ftrace:print's buf) */
	if (!(f->flags & TEP_FIELD_IS_DYNAMIC) && size == 0 && off <= (unsigned int)rec->size)
		size = (unsigned int)rec->size - off;
	/* a fixed array the record ends inside holds what is there (ftrace:kernel_stack's) */
	if ((f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC)) == TEP_FIELD_IS_ARRAY &&
	    off <= (unsigned int)rec->size && (uint64_t)off + size > (unsigned int)rec->size)
		size = (unsigned int)rec->size - off;
	if ((uint64_t)off + size > (unsigned int)rec->size)
		return false;
	if (f->flags & TEP_FIELD_IS_DYNAMIC) {
		uint32_t loc;

		if (size != 4)
			return false;
		loc = (uint32_t)tep_read_number(d->tep, (const uint8_t *)rec->data + off, 4);
		size = loc >> 16;
		off = (loc & 0xffff) + ((f->flags & TEP_FIELD_IS_RELATIVE) ? off + 4 : 0);
		if ((uint64_t)off + size > (unsigned int)rec->size)
			return false;
	}
	*p = (const uint8_t *)rec->data + off;
	*len = size;
	return true;
}

/* Read one selected value of @rec. Return: false when the record is too short for it. */
static bool read_value(struct fdec *d, const struct tep_record *rec, const struct fsel *s,
		       struct ctf_value *v, char *str, size_t strlen_)
{
	const uint8_t *p;
	unsigned int len, es, count;

	*v = (struct ctf_value){ 0 };
	if (s->kind == FS_NONE)
		return true;
	if (!field_bytes(d, rec, s->f, &p, &len))
		return false;
	switch (s->kind) {
	case FS_INT:
		v->u = tep_read_number(d->tep, p, (int)len);
		if ((s->f->flags & TEP_FIELD_IS_SIGNED) && len < 8 && (v->u >> (len * 8 - 1)) & 1)
			v->u |= ~0ull << (len * 8);
		v->negative = (s->f->flags & TEP_FIELD_IS_SIGNED) && (int64_t)v->u < 0;
		break;
	case FS_STR: {
		size_t n = strnlen((const char *)p, len);

		if (n >= strlen_)
			n = strlen_ - 1;
		memcpy(str, p, n);
		str[n] = '\0';
		v->is_str = true;
		v->s = str;
		break;
	}
	case FS_ELEM:
	case FS_COUNT:
	case FS_SUM:
		es = elem_size(s->f);
		count = len / es;
		if (s->kind == FS_COUNT) {
			v->u = count;
		} else if (s->kind == FS_ELEM) {
			if (s->i >= count)
				return true; /* absent */
			v->u = tep_read_number(d->tep, p + (size_t)s->i * es, (int)es);
		} else {
			for (unsigned int i = 0; i < count; i++)
				v->u += tep_read_number(d->tep, p + (size_t)i * es, (int)es);
		}
		break;
	case FS_NONE:
		break;
	}
	v->present = true;
	return true;
}

/* A new ring buffer page on @cpu: marked, so that a death there can be placed. */
static int mark_page(struct fdec *d, const struct tep_record *rec)
{
	uint64_t page = rec->offset / d->page_size;
	size_t cpu = (size_t)rec->cpu;
	char name[32];

	if (rec->cpu < 0)
		return 0;
	if (cpu >= d->npage) {
		size_t cap = d->npage;

		while (cap <= cpu)
			cap = cap ? cap * 2 : 8;
		if (array_extend_zeroed(&d->page, &d->npage, cap, sizeof(*d->page)))
			return -ENOMEM;
	}
	if (d->page[cpu] == page + 1)
		return 0;
	d->page[cpu] = page + 1;
	snprintf(name, sizeof(name), "cpu %d", rec->cpu);
	d->mark(d->ctx, CTF_MARK_PACKET, name, page);
	return 0;
}

static int on_record(struct tracecmd_input *h, struct tep_record *rec, int cpu, void *data)
{
	struct fdec *d = data;
	struct tep_event *ev = tep_find_event_by_record(d->tep, rec);
	struct ctf_value vals[CTF_MAX_FIELDS] = { 0 };
	struct fclass *c = NULL;
	uint64_t *slot, index;
	int rc;

	(void)h;
	(void)cpu;
	rc = mark_page(d, rec);
	if (rc)
		return d->rc = rc;
	if (rec->missed_events) {
		/* the ring buffer dropped events before this one: how many, or that it did */
		d->st->discarded += rec->missed_events > 0 ? (uint64_t)rec->missed_events : 1;
		d->mark(d->ctx, CTF_MARK_STATS, NULL, 0);
	}
	if (!ev) {
		ctf_err_first(d->err, d->errlen, "%s: corrupt trace: event %" PRIu64 " at %llu ns "
			      "(CPU %d, offset %llu) has type %d, which no event format of the file "
			      "defines", d->path, d->st->events, rec->ts, rec->cpu, rec->offset,
			      tep_data_type(d->tep, rec));
		return d->rc = -EINVAL;
	}
	if (d->st->events && rec->ts < d->st->last_ts) {
		ctf_err_first(d->err, d->errlen, "%s: corrupt trace: event %" PRIu64 " at %llu ns "
			      "(CPU %d, offset %llu) comes after event %" PRIu64 " at %" PRIu64 " ns",
			      d->path, d->st->events, rec->ts, rec->cpu, rec->offset,
			      d->st->events - 1, d->st->last_ts);
		return d->rc = -EINVAL;
	}
	slot = u64map_get(&d->classes, (uint64_t)(unsigned int)ev->id);
	if (slot)
		c = &d->cls[*slot - 1];
	if (!slot || (c->listed && c->tag < 0)) {
		rc = class_bind(d, ev, false, &c);
		if (rc < 0) {
			/* the caller refused it: say where (its message says what) */
			ctf_err_first(d->err, d->errlen, "%s: event %" PRIu64 " at %llu ns", d->path,
				      d->st->events, rec->ts);
			return d->rc = rc;
		}
	}
	index = d->st->events++;
	if (index == 0)
		d->st->first_ts = rec->ts;
	d->st->last_ts = rec->ts;
	if ((index & 4095) == 4095)
		d->mark(d->ctx, CTF_MARK_STATS, NULL, 0);
	if (c->tag < 0)
		return 0;
	for (unsigned int i = 0; i < c->n; i++) {
		if (!read_value(d, rec, &c->sel[i], &vals[i], d->str + (size_t)i * (d->page_size + 1),
				d->page_size + 1)) {
			ctf_err_first(d->err, d->errlen, "%s: corrupt trace: event %" PRIu64 " at %llu "
				      "ns (CPU %d, offset %llu): %s:%s's field '%s' lies beyond its %d "
				      "bytes", d->path, index, rec->ts, rec->cpu, rec->offset,
				      ev->system, ev->name, c->sel[i].f->name, rec->size);
			return d->rc = -EINVAL;
		}
	}
	rc = d->on_event(d->ctx, c->tag, index, rec->ts, vals);
	return rc < 0 ? (d->rc = rc) : 0;
}

/*
 * tracecmd_open(), and the last line libtracecmd printed on stderr while it
 * ran into @words: it says why it refuses a file ("Unsupported file
 * compression zlib"), which its return does not.
 */
static struct tracecmd_input *open_heard(const char *path, char *words, size_t len)
{
	int mem = memfd_create("libtracecmd-said", MFD_CLOEXEC), saved = dup(STDERR_FILENO);
	struct tracecmd_input *h;
	char said[2048];
	ssize_t n = 0;

	words[0] = '\0';
	if (mem >= 0 && saved >= 0)
		dup2(mem, STDERR_FILENO);
	h = tracecmd_open(path, TRACECMD_FL_LOAD_NO_PLUGINS | TRACECMD_FL_LOAD_NO_SYSTEM_PLUGINS);
	if (mem >= 0 && saved >= 0) {
		dup2(saved, STDERR_FILENO);
		n = pread(mem, said, sizeof(said) - 1, 0);
	}
	if (saved >= 0)
		close(saved);
	if (mem >= 0)
		close(mem);
	said[n > 0 ? n : 0] = '\0';
	/* its last line that says something ("trace-cmd: ERRNO" comes first, the why after) */
	for (char *line = strtok(said, "\n"); line; line = strtok(NULL, "\n")) {
		line += strspn(line, " \t");
		if (*line)
			snprintf(words, len, "%s", line);
	}
	return h;
}

int ftrace_decode(const char *path, ctf_bind_fn bind, ctf_event_fn on_event, ctf_mark_fn mark,
		  void *ctx, struct ctf_stats *st, char *err, size_t errlen)
{
	struct fdec d = { .path = path, .bind = bind, .on_event = on_event, .mark = mark,
			  .ctx = ctx, .st = st, .err = err, .errlen = errlen };
	struct ftrace_layout lay;
	struct tracecmd_input *h;
	char words[256];
	int rc;

	if (err && errlen)
		err[0] = '\0';
	*st = (struct ctf_stats){ 0 };
	mark(ctx, CTF_MARK_FOLDER, path, 0);
	rc = ftrace_file_check(path, &lay, err, errlen);
	if (rc)
		return rc;
	h = open_heard(path, words, sizeof(words));
	if (!h) {
		/* (its errno says little: a damaged size makes it allocate too much) */
		ctf_err_first(d.err, d.errlen, "%s: libtracecmd cannot read this trace.dat (version %u, "
			      "compression: %s)%s%s", path, lay.version, lay.compression,
			      words[0] ? ": " : "", words);
		return -EINVAL;
	}
	st->traces = 1;
	d.tep = tracecmd_get_tep(h);
	d.page_size = lay.page_size ? lay.page_size : 4096;
	d.str = malloc((size_t)CTF_MAX_FIELDS * (d.page_size + 1));
	rc = d.str ? u64map_init(&d.classes) : -ENOMEM;
	if (rc) {
		ctf_err_first(d.err, d.errlen, "%s: out of memory", path);
		goto close_handle;
	}
	/* every class the file defines, before any event: what a map names and the file lacks */
	for (int i = 0; i < tep_get_events_count(d.tep); i++) {
		struct tep_event *ev = tep_get_event(d.tep, i);
		struct fclass *c;

		rc = ev ? class_bind(&d, ev, true, &c) : 0;
		if (rc < 0) {
			ctf_err_first(d.err, d.errlen, "%s: the trace's event formats", path);
			goto fini_classes;
		}
	}
	if (tracecmd_iterate_events(h, NULL, 0, on_record, &d) < 0 && !d.rc) {
		ctf_err_first(d.err, d.errlen, "%s: libtracecmd stopped after event %" PRIu64 " at %"
			      PRIu64 " ns", path, st->events ? st->events - 1 : 0, st->last_ts);
		d.rc = -EINVAL;
	}
	rc = d.rc;
	mark(ctx, CTF_MARK_STATS, NULL, 0);
fini_classes:
	u64map_fini(&d.classes);
close_handle:
	free(d.str);
	free(d.cls);
	free(d.page);
	tracecmd_close(h);
	return rc;
}
