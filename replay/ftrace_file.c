/* SPDX-License-Identifier: MIT */
/*
 * ftrace_file_check(): a trace.dat's layout, walked before libtracecmd
 * reads it (trace-cmd.dat(5), versions 6 and 7). The file is mapped read
 * only; every read goes through take(), which refuses to pass the end and
 * says which part of the file it was reading and at what offset.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "replay/ftrace.h"

#define FTRACE_MAGIC "\027\010\104tracing"
#define FTRACE_MAGIC_LEN 10
#define RB_COMMIT_MASK ((1u << 27) - 1) /* the ring buffer page's commit, without its flags */

/* The options of the format, as libtracecmd 3.1.6 numbers them. */
enum ftrace_option {
	OPT_DONE, OPT_DATE, OPT_CPUSTAT, OPT_BUFFER, OPT_TRACECLOCK, OPT_UNAME, OPT_HOOK,
	OPT_OFFSET, OPT_CPUCOUNT, OPT_VERSION, OPT_PROCMAPS, OPT_TRACEID, OPT_TIME_SHIFT,
	OPT_GUEST, OPT_TSC2NSEC, OPT_STRINGS, OPT_HEADER_INFO, OPT_FTRACE_EVENTS,
	OPT_EVENT_FORMATS, OPT_KALLSYMS, OPT_PRINTK, OPT_CMDLINES, OPT_BUFFER_TEXT,
	OPT_KNOWN, /* ids from here on are skipped by libtracecmd */
};

static const char *const option_names[OPT_KNOWN] = {
	"DONE", "DATE", "CPUSTAT", "BUFFER", "TRACECLOCK", "UNAME", "HOOK", "OFFSET",
	"CPUCOUNT", "VERSION", "PROCMAPS", "TRACEID", "TIME_SHIFT", "GUEST", "TSC2NSEC",
	"STRINGS", "HEADER_INFO", "FTRACE_EVENTS", "EVENT_FORMATS", "KALLSYMS", "PRINTK",
	"CMDLINES", "BUFFER_TEXT",
};

struct walk {
	const char *path;
	const uint8_t *base;
	uint64_t size;
	uint64_t at;           /* the next byte to read */
	const char *part;      /* what is being read */
	bool big_endian, compressed;
	bool opaque;           /* options libtracecmd decompresses: not walked here */
	struct ftrace_layout *lay;
	unsigned int commit_off, commit_size; /* the ring buffer page header's commit field */
	char *err;
	size_t errlen;
};

static int walk_fail(struct walk *w, uint64_t at, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int walk_fail(struct walk *w, uint64_t at, const char *fmt, ...)
{
	char what[384];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	snprintf(w->err, w->errlen, "%s: not a trace.dat libtracecmd can read: %s at offset %" PRIu64
		 ": %s", w->path, w->part, at, what);
	return -EINVAL;
}

/* @n bytes at the cursor, which moves past them; NULL (and the error said) past the end. */
static const uint8_t *take(struct walk *w, uint64_t n)
{
	const uint8_t *p = w->base + w->at;

	if (n > w->size - w->at) {
		walk_fail(w, w->at, "%" PRIu64 " bytes wanted, the file ends after %" PRIu64, n,
			  w->size - w->at);
		return NULL;
	}
	w->at += n;
	return p;
}

static uint64_t num(const struct walk *w, const uint8_t *p, unsigned int n)
{
	uint64_t v = 0;

	for (unsigned int i = 0; i < n; i++)
		v |= (uint64_t)p[w->big_endian ? n - 1 - i : i] << (8 * i);
	return v;
}

/* A number of @n bytes at the cursor; false past the end. */
static bool take_num(struct walk *w, unsigned int n, uint64_t *v)
{
	const uint8_t *p = take(w, n);

	if (!p)
		return false;
	*v = num(w, p, n);
	return true;
}

/* Up to 16 bytes of @s as C writes them, into @buf: a file's bytes, fit for a one-line error. */
static const char *shown(const char *s, char buf[static 68])
{
	char *o = buf;

	for (unsigned int i = 0; i < 16 && s[i]; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c >= 0x20 && c < 0x7f && c != '\\' && c != '\'')
			*o++ = (char)c;
		else
			o += sprintf(o, "\\%03o", c);
	}
	*o = '\0';
	return buf;
}

/* A NUL-terminated string at the cursor. */
static const char *take_str(struct walk *w)
{
	const uint8_t *p = w->base + w->at;
	const uint8_t *nul = memchr(p, '\0', w->size - w->at);

	if (!nul) {
		walk_fail(w, w->at, "a string runs to the end of the file");
		return NULL;
	}
	w->at += (uint64_t)(nul - p) + 1;
	return (const char *)p;
}

/* A block: its size in @n bytes, then that many bytes. */
static const uint8_t *take_block(struct walk *w, unsigned int n, uint64_t *len)
{
	uint64_t at = w->at;

	if (!take_num(w, n, len))
		return NULL;
	if (*len > w->size - w->at) {
		walk_fail(w, at, "a block of %" PRIu64 " bytes, the file ends after %" PRIu64, *len,
			  w->size - w->at);
		return NULL;
	}
	return take(w, *len);
}

/* The header page format: where the commit field is, so that pages can be checked. */
static void find_commit(struct walk *w, const uint8_t *text, uint64_t len)
{
	char buf[1024];
	const char *f;
	unsigned int off, size;

	snprintf(buf, sizeof(buf), "%.*s", (int)(len < sizeof(buf) ? len : sizeof(buf) - 1), text);
	f = strstr(buf, " commit;");
	if (f && sscanf(f, " commit;\toffset:%u;\tsize:%u;", &off, &size) == 2 && size >= 1 &&
	    size <= 8 && off < 64) {
		w->commit_off = off;
		w->commit_size = size;
	}
}

/* "header_page", "header_event" and their texts. */
static int walk_headers(struct walk *w)
{
	static const char *const names[] = { "header_page", "header_event" };
	uint64_t len;

	for (int i = 0; i < 2; i++) {
		const uint8_t *p, *text;
		uint64_t at = w->at;

		w->part = names[i];
		p = take(w, strlen(names[i]) + 1);
		if (!p)
			return -EINVAL;
		if (memcmp(p, names[i], strlen(names[i]) + 1))
			return walk_fail(w, at, "'%s' expected", names[i]);
		text = take_block(w, 8, &len);
		if (!text)
			return -EINVAL;
		if (i == 0)
			find_commit(w, text, len);
	}
	return 0;
}

/* The ftrace and event format files: counts, system names, sized texts. */
static int walk_formats(struct walk *w, bool ftrace)
{
	uint64_t n, len, systems = 1;

	w->part = ftrace ? "the ftrace event formats" : "the event formats";
	if (!ftrace && !take_num(w, 4, &systems))
		return -EINVAL;
	for (uint64_t s = 0; s < systems; s++) {
		if (!ftrace && !take_str(w))
			return -EINVAL;
		if (!take_num(w, 4, &n))
			return -EINVAL;
		for (uint64_t e = 0; e < n; e++)
			if (!take_block(w, 8, &len))
				return -EINVAL;
	}
	return 0;
}

/* Ring buffer pages of uncompressed data: each page's data must fit in the page. */
static int walk_pages(struct walk *w, unsigned int cpu, uint64_t off, uint64_t size)
{
	unsigned int page = w->lay->page_size, head = w->commit_off + w->commit_size;

	if (!page || !w->commit_size || w->compressed)
		return 0;
	for (uint64_t p = 0; p * page < size; p++) {
		uint64_t at = off + p * page, commit;

		if (at + head > w->size)
			break; /* the CPU's data was checked to lie in the file */
		commit = num(w, w->base + at + w->commit_off, w->commit_size) & RB_COMMIT_MASK;
		if (commit > page - head) {
			w->part = "the ring buffer";
			return walk_fail(w, at, "CPU %u's page %" PRIu64 " says it holds %" PRIu64
					 " bytes of events, a %u-byte page holds at most %u", cpu,
					 p, commit, page, page - head);
		}
	}
	return 0;
}

/* One CPU's data: an offset and a size that lie in the file. */
static int walk_cpu(struct walk *w, unsigned int cpu, bool top)
{
	uint64_t at = w->at, off, size;

	if (!take_num(w, 8, &off) || !take_num(w, 8, &size))
		return -EINVAL;
	if (off > w->size || size > w->size - off)
		return walk_fail(w, at, "CPU %u's data (%" PRIu64 " bytes at %" PRIu64 ") lies "
				 "beyond the file's %" PRIu64 " bytes", cpu, size, off, w->size);
	if (top)
		w->lay->data_bytes += size;
	return walk_pages(w, cpu, off, size);
}

/* A BUFFER option: an instance's data (its CPUs at offsets of the file). */
static int walk_buffer(struct walk *w, uint64_t end)
{
	uint64_t cpus, cpu, section;
	const char *name;

	w->lay->buffers++;
	if (!take_num(w, 8, &section))
		return -EINVAL;
	name = take_str(w);
	if (!name)
		return -EINVAL;
	if (w->lay->version < 7)
		return 0; /* version 6: the instance's CPUs follow its own flyrecord header */
	if (!take_str(w) || !take(w, 4) || !take_num(w, 4, &cpus))
		return -EINVAL;
	for (uint64_t i = 0; i < cpus; i++) {
		if (!take_num(w, 4, &cpu))
			return -EINVAL;
		if (walk_cpu(w, (unsigned int)cpu, !name[0]))
			return -EINVAL;
	}
	if (!name[0])
		w->lay->cpus = (unsigned int)cpus;
	if (w->at > end)
		return walk_fail(w, end, "the BUFFER option is shorter than what it holds");
	return 0;
}

/*
 * One option: known ids with the size libtracecmd reads them with. Another
 * size is another writer's option of that number, which libtracecmd would
 * read as its own.
 */
static int walk_option(struct walk *w, unsigned int id, uint64_t len, uint64_t *next)
{
	static const unsigned int fixed[OPT_KNOWN] = {
		[OPT_CPUCOUNT] = 4, [OPT_TRACEID] = 8, [OPT_TSC2NSEC] = 16, [OPT_HEADER_INFO] = 8,
		[OPT_FTRACE_EVENTS] = 8, [OPT_EVENT_FORMATS] = 8, [OPT_KALLSYMS] = 8,
		[OPT_PRINTK] = 8, [OPT_CMDLINES] = 8,
	};
	uint64_t at = w->at - 6, end = w->at + len;
	const uint8_t *data = w->base + w->at;

	if (id >= OPT_KNOWN) {
		w->at = end; /* libtracecmd skips it too */
		return 0;
	}
	if (id == OPT_DONE) {
		if (w->lay->version >= 7 && len == 8)
			*next = num(w, data, 8);
		w->at = end;
		return 0;
	}
	if (fixed[id] && len != fixed[id])
		return walk_fail(w, at, "option %u (%s) holds %" PRIu64 " bytes, not %u: the file "
				 "was written by another tool's copy of the trace.dat format, whose "
				 "option %u is not libtracecmd's %s, and would be misread. The events "
				 "are not lost: the tool that wrote the file can export them (as CTF, "
				 "or as a trace.dat of trace-cmd 3), which gpuiso reads", id,
				 option_names[id], len, fixed[id], id, option_names[id]);
	if (id == OPT_BUFFER)
		return walk_buffer(w, end) ?: ((w->at = end), 0);
	w->at = end;
	return 0;
}

/* Options: id (2 bytes), size (4 bytes), data; up to DONE. */
static int walk_options(struct walk *w, uint64_t end, uint64_t *next)
{
	uint64_t id, len, at;

	w->part = "the options";
	for (;;) {
		at = w->at;
		if (!take_num(w, 2, &id))
			return -EINVAL;
		if (id == OPT_DONE && w->lay->version < 7)
			return 0;
		if (!take_num(w, 4, &len))
			return -EINVAL;
		if (w->at > end || len > end - w->at)
			return walk_fail(w, at, "option %" PRIu64 " holds %" PRIu64 " bytes, past the "
					 "end of its section", id, len);
		if (walk_option(w, (unsigned int)id, len, next))
			return -EINVAL;
		if (id == OPT_DONE)
			return 0;
	}
}

static int walk_v6(struct walk *w)
{
	uint64_t len, cpus, at;
	const uint8_t *p;

	if (walk_headers(w) || walk_formats(w, true) || walk_formats(w, false))
		return -EINVAL;
	w->part = "the kallsyms";
	if (!take_block(w, 4, &len))
		return -EINVAL;
	w->part = "the trace_printk formats";
	if (!take_block(w, 4, &len))
		return -EINVAL;
	w->part = "the saved command lines";
	if (!take_block(w, 8, &len))
		return -EINVAL;
	w->part = "the CPU count";
	if (!take_num(w, 4, &cpus))
		return -EINVAL;
	w->lay->cpus = (unsigned int)cpus;
	w->part = "the data's kind";
	at = w->at;
	p = take(w, 10);
	if (!p)
		return -EINVAL;
	if (!memcmp(p, "options  ", 10)) {
		uint64_t next = 0;

		if (walk_options(w, w->size, &next))
			return -EINVAL;
		w->part = "the data's kind";
		at = w->at;
		p = take(w, 10);
		if (!p)
			return -EINVAL;
	}
	if (!memcmp(p, "latency  ", 10))
		return walk_fail(w, at, "a latency trace (text): it holds no events to replay");
	if (memcmp(p, "flyrecord", 10))
		return walk_fail(w, at, "'flyrecord' or 'latency' expected");
	w->part = "the flyrecord CPU table";
	w->lay->buffers++;
	for (unsigned int cpu = 0; cpu < cpus; cpu++)
		if (walk_cpu(w, cpu, true))
			return -EINVAL;
	return 0;
}

/* A section header at @off: id, flags, description, size; the cursor after it. */
static int walk_section(struct walk *w, uint64_t off, unsigned int want, uint64_t *len,
			bool *compressed)
{
	uint64_t id, flags;

	if (off > w->size)
		return walk_fail(w, w->at, "a section at offset %" PRIu64 ", past the end of the file",
				 off);
	w->at = off;
	if (!take_num(w, 2, &id) || !take_num(w, 2, &flags) || !take(w, 4) ||
	    !take_num(w, 8, len))
		return -EINVAL;
	if (id != want)
		return walk_fail(w, off, "section %u expected, section %" PRIu64 " found", want, id);
	if (*len > w->size - w->at)
		return walk_fail(w, off, "section %" PRIu64 " of %" PRIu64 " bytes, the file ends "
				 "after %" PRIu64, id, *len, w->size - w->at);
	*compressed = flags & 1;
	return 0;
}

static int walk_v7(struct walk *w)
{
	const char *algo, *algo_version;
	uint64_t next, len = 0;
	bool compressed = false;

	w->part = "the compression header";
	algo = take_str(w);
	algo_version = algo ? take_str(w) : NULL;
	if (!algo_version)
		return -EINVAL;
	snprintf(w->lay->compression, sizeof(w->lay->compression), "%s", algo);
	w->compressed = strcmp(algo, "none") != 0;
	w->part = "the first options' offset";
	if (!take_num(w, 8, &next))
		return -EINVAL;
	for (unsigned int n = 0; next; n++) {
		w->part = "an options section";
		if (n > 4096)
			return walk_fail(w, next, "more than 4096 options sections (a loop?)");
		if (walk_section(w, next, OPT_DONE, &len, &compressed))
			return -EINVAL;
		next = 0;
		if (compressed) {
			w->opaque = true; /* libtracecmd decompresses it, and checks it there */
			break;
		}
		if (walk_options(w, w->at + len, &next))
			return -EINVAL;
	}
	return 0;
}

int ftrace_file_check(const char *path, struct ftrace_layout *lay, char *err, size_t errlen)
{
	struct ftrace_layout own = { 0 };
	struct walk w = { .path = path, .lay = lay ? lay : &own, .err = err, .errlen = errlen,
			  .part = "the file's header" };
	const uint8_t *p;
	const char *version;
	char shown_buf[68];
	uint64_t v;
	struct stat st;
	void *map;
	int fd, rc;

	*w.lay = (struct ftrace_layout){ .compression = "none" };
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st)) {
		rc = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(-rc));
		if (fd >= 0)
			close(fd);
		return rc;
	}
	w.size = (uint64_t)st.st_size;
	if (w.size < FTRACE_MAGIC_LEN) {
		close(fd);
		return walk_fail(&w, 0, "%" PRIu64 " bytes: too short to be a trace.dat", w.size);
	}
	map = mmap(NULL, w.size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED) {
		rc = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(-rc));
		return rc;
	}
	w.base = map;
	p = take(&w, FTRACE_MAGIC_LEN);
	if (memcmp(p, FTRACE_MAGIC, FTRACE_MAGIC_LEN)) {
		rc = walk_fail(&w, 0, "no trace.dat magic (\\027\\010\\104tracing)");
		goto unmap;
	}
	w.part = "the file version";
	rc = -EINVAL;
	version = take_str(&w);
	if (!version)
		goto unmap;
	if (strcmp(version, "6") && strcmp(version, "7")) {
		rc = walk_fail(&w, FTRACE_MAGIC_LEN, "file version '%s': libtracecmd reads "
			       "versions %d and %d", shown(version, shown_buf), FTRACE_VERSION_MIN,
			       FTRACE_VERSION_MAX);
		goto unmap;
	}
	w.lay->version = (unsigned int)(version[0] - '0');
	w.part = "the endianness, long size and page size";
	p = take(&w, 2);
	if (!p)
		goto unmap;
	if (p[0] > 1 || (p[1] != 4 && p[1] != 8)) {
		rc = walk_fail(&w, w.at - 2, "endianness %u and long size %u (0 or 1, and 4 or 8 "
			       "expected)", p[0], p[1]);
		goto unmap;
	}
	w.big_endian = w.lay->big_endian = p[0];
	w.lay->long_size = p[1];
	w.commit_off = 8;
	w.commit_size = p[1];
	if (!take_num(&w, 4, &v))
		goto unmap;
	if (v < 4096 || v > (1u << 20) || (v & (v - 1))) {
		rc = walk_fail(&w, w.at - 4, "page size %" PRIu64 " (a power of two from 4096 to "
			       "1 MiB expected)", v);
		goto unmap;
	}
	w.lay->page_size = (unsigned int)v;
	rc = w.lay->version == 6 ? walk_v6(&w) : walk_v7(&w);
	if (!rc && !w.lay->buffers && !w.opaque)
		rc = walk_fail(&w, w.size, "no BUFFER option: the file holds no events");
unmap:
	munmap(map, w.size);
	return rc;
}

bool ftrace_file_is(const char *path)
{
	char magic[FTRACE_MAGIC_LEN];
	struct stat st;
	bool is;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return false;
	is = !fstat(fd, &st) && S_ISREG(st.st_mode) &&
	     read(fd, magic, sizeof(magic)) == (ssize_t)sizeof(magic) &&
	     !memcmp(magic, FTRACE_MAGIC, sizeof(magic));
	close(fd);
	return is;
}
