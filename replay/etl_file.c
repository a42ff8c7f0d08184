/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "replay/etl.h"
#include "replay/etl_internal.h"

/*
 * The layout walk of an .etl file (etl.h): its buffers and the records in
 * them, every size checked before it is used. The structures are those the
 * public reconstructions of ntwmi.h and evntcons.h describe
 * (docs/trace-events.md, "Windows event traces"); all little-endian.
 */

#define BUF_HEADER 0x48u          /* WMI_BUFFER_HEADER */
#define BUF_SAVED_OFFSET 0x04u    /* bytes of the buffer in use, its header included */
#define BUF_FLAGS 0x34u
#define BUF_FLAG_EVENTS_LOST 0x0002u
#define BUF_FLAG_BUFFER_LOST 0x0004u
#define BUF_FLAG_COMPRESSED 0x0040u

#define REC_TIMESTAMP 0x10u       /* every header kind with a timestamp there */
#define SYS_HOOK_ID 0x06u         /* SYSTEM_TRACE_HEADER: group (high byte) and type */
#define EVH_FLAGS 0x04u           /* EVENT_HEADER */
#define EVH_FLAG_EXTENDED 0x0001u

/* TRACE_LOGFILE_HEADER, the payload of the first record: offsets for 4-byte, 8-byte pointers */
#define LOG_CPUS 0x0Cu
#define LOG_POINTER_SIZE 0x2Cu
#define LOG_EVENTS_LOST 0x30u
static const uint32_t log_perf_freq[2] = { 0xF8, 0x100 };
static const uint32_t log_clock_type[2] = { 0x108, 0x110 };
static const uint32_t log_buffers_lost[2] = { 0x10C, 0x114 };

struct walk {
	const char *path;
	const uint8_t *base;
	uint64_t size;
	uint64_t buffer;          /* the buffer being read */
	struct etl_layout *lay;
	char *err;
	size_t errlen;
};

static int walk_fail(struct walk *w, uint64_t at, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int walk_fail(struct walk *w, uint64_t at, const char *fmt, ...)
{
	char what[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	snprintf(w->err, w->errlen, "%s: not an .etl file gpuiso can read: buffer %" PRIu64
		 " at offset %" PRIu64 ": %s", w->path, w->buffer, at, what);
	return -EINVAL;
}

uint64_t etl_le(const uint8_t *p, unsigned int n)
{
	uint64_t v = 0;

	for (unsigned int i = 0; i < n; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

int etl_record_header(const uint8_t *p, uint64_t room, uint32_t *hdr, uint32_t *size)
{
	uint8_t kind = p[2], flags = p[3];

	if (room < 8)
		return -ENODATA;
	if ((flags & 0xC0) == 0xC0) {
		switch (kind) {
		case 0x01: case 0x02: *hdr = 0x20; *size = (uint32_t)etl_le(p + 4, 2); break; /* SYSTEM */
		case 0x03: case 0x04: *hdr = 0x18; *size = (uint32_t)etl_le(p + 4, 2); break; /* COMPACT */
		case 0x0A: case 0x14: *hdr = 0x30; *size = (uint32_t)etl_le(p, 2); break; /* FULL */
		case 0x0B: case 0x15: *hdr = 0x48; *size = (uint32_t)etl_le(p, 2); break; /* INSTANCE */
		case 0x10: case 0x11: *hdr = 0x10; *size = (uint32_t)etl_le(p + 4, 2); break; /* PERFINFO */
		case 0x12: case 0x13: *hdr = 0x50; *size = (uint32_t)etl_le(p, 2); break; /* EVENT_HEADER */
		default:
			return -EPROTO;
		}
	} else if ((flags & 0x90) == 0x90) {
		*hdr = 8; /* MESSAGE_TRACE_HEADER (WPP) */
		*size = (uint32_t)etl_le(p, 2);
	} else {
		return -EBADMSG;
	}
	return *size < *hdr || *size > room ? -EMSGSIZE : 0;
}

/* etl_record_header(), its failure said with the record's buffer and offset. */
static int record_size(struct walk *w, uint64_t at, const uint8_t *p, uint64_t room,
		       uint32_t *hdr, uint32_t *size)
{
	switch (etl_record_header(p, room, hdr, size)) {
	case 0:
		return 0;
	case -ENODATA:
		return walk_fail(w, at, "a record header of %" PRIu64 " bytes", room);
	case -EPROTO:
		return walk_fail(w, at, "a record of kind 0x%02x, which no ETW writer makes", p[2]);
	case -EBADMSG:
		return walk_fail(w, at, "no trace header here (flags 0x%02x)", p[3]);
	default:
		return walk_fail(w, at, "a record of %u bytes (its header alone is %u, %" PRIu64
				 " bytes are left in the buffer)", *size, *hdr, room);
	}
}

/* An EVENT_HEADER record's extended data items: each inside the record, the last unlinked. */
static int walk_extended(struct walk *w, uint64_t at, const uint8_t *p, uint32_t size)
{
	uint32_t off = 0x50;

	if (!(etl_le(p + EVH_FLAGS, 2) & EVH_FLAG_EXTENDED))
		return 0;
	for (;;) {
		uint32_t item, data;

		if (size - off < 8)
			return walk_fail(w, at + off, "an extended data item past its record");
		data = (uint32_t)etl_le(p + off + 6, 2);
		item = 8 + data;
		if (item > size - off)
			return walk_fail(w, at + off, "an extended data item of %u bytes past its "
					 "record", item);
		if (!(etl_le(p + off + 4, 2) & 1))
			return 0;
		off = (off + item + 7) & ~7u;
		if (off > size)
			return walk_fail(w, at, "extended data items past the record");
	}
}

/* The first record: a SYSTEM header of group 0, type 0, whose payload is the logfile header. */
static int walk_logfile(struct walk *w, const uint8_t *p, uint32_t hdr, uint32_t size)
{
	const uint8_t *h = p + hdr;
	uint32_t len = size - hdr;
	unsigned int wide;

	if ((p[3] & 0xC0) != 0xC0 || (p[2] != 0x01 && p[2] != 0x02) ||
	    etl_le(p + SYS_HOOK_ID, 2) != 0)
		return walk_fail(w, BUF_HEADER, "the first record is not the logfile header (kind "
				 "0x%02x, hook 0x%04x)", p[2], (unsigned int)etl_le(p + SYS_HOOK_ID, 2));
	if (len < LOG_POINTER_SIZE + 4)
		return walk_fail(w, BUF_HEADER, "a logfile header of %u bytes", len);
	w->lay->pointer_size = (unsigned int)etl_le(h + LOG_POINTER_SIZE, 4);
	if (w->lay->pointer_size != 4 && w->lay->pointer_size != 8)
		return walk_fail(w, BUF_HEADER, "pointer size %u (4 or 8 expected)",
				 w->lay->pointer_size);
	wide = w->lay->pointer_size == 8;
	if (len < log_buffers_lost[wide] + 4)
		return walk_fail(w, BUF_HEADER, "a logfile header of %u bytes, %u expected", len,
				 log_buffers_lost[wide] + 4);
	w->lay->cpus = (unsigned int)etl_le(h + LOG_CPUS, 4);
	w->lay->events_lost = etl_le(h + LOG_EVENTS_LOST, 4);
	w->lay->perf_freq = etl_le(h + log_perf_freq[wide], 8);
	w->lay->clock_type = (uint32_t)etl_le(h + log_clock_type[wide], 4);
	w->lay->buffers_lost = etl_le(h + log_buffers_lost[wide], 4);
	w->lay->start_ticks = etl_le(p + REC_TIMESTAMP, 8);
	if (w->lay->clock_type != 1 && w->lay->clock_type != 2)
		return walk_fail(w, BUF_HEADER, "clock type %u: only the performance counter (1) "
				 "and system time (2) are read", w->lay->clock_type);
	if (w->lay->clock_type == 1 && !w->lay->perf_freq)
		return walk_fail(w, BUF_HEADER, "a performance counter of frequency 0");
	return 0;
}

/* One buffer at @start: its header, then its records up to its filled bytes. */
static int walk_buffer(struct walk *w, uint64_t start)
{
	const uint8_t *b = w->base + start;
	uint32_t bsize = w->lay->buffer_size, saved, flags, off = BUF_HEADER;

	if (etl_le(b, 4) != bsize)
		return walk_fail(w, start, "a buffer of %u bytes among buffers of %u",
				 (uint32_t)etl_le(b, 4), bsize);
	saved = (uint32_t)etl_le(b + BUF_SAVED_OFFSET, 4);
	if (saved < BUF_HEADER || saved > bsize)
		return walk_fail(w, start, "%u bytes in use in a buffer of %u", saved, bsize);
	if (!start && saved < BUF_HEADER + 8)
		return walk_fail(w, start, "the first buffer holds no record: no logfile header");
	flags = (uint32_t)etl_le(b + BUF_FLAGS, 2);
	if (flags & BUF_FLAG_COMPRESSED)
		return walk_fail(w, start, "a compressed buffer (a relogged file): not read");
	w->lay->buffers_flagged_lost += !!(flags & (BUF_FLAG_EVENTS_LOST | BUF_FLAG_BUFFER_LOST));
	while (off < saved) {
		uint32_t hdr = 0, size = 0;
		int rc = record_size(w, start + off, b + off, saved - off, &hdr, &size);

		if (rc)
			return rc;
		if (!w->lay->records && (rc = walk_logfile(w, b + off, hdr, size)))
			return rc;
		if ((b[off + 3] & 0xC0) == 0xC0 && (b[off + 2] == 0x12 || b[off + 2] == 0x13)) {
			rc = walk_extended(w, start + off, b + off, size);
			if (rc)
				return rc;
			w->lay->event_records++;
		}
		w->lay->records++;
		off = (off + size + 7) & ~7u;
	}
	return 0;
}

bool etl_file_is(const char *path)
{
	uint8_t head[BUF_HEADER + 8];
	size_t len = strlen(path);
	struct stat st;
	bool is;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return false;
	is = !fstat(fd, &st) && S_ISREG(st.st_mode);
	/* by name, so that a damaged one is told what is wrong with it as an .etl file */
	if (is && !(len >= 4 && !strcasecmp(path + len - 4, ".etl")))
		is = read(fd, head, sizeof(head)) == (ssize_t)sizeof(head) &&
		     (head[BUF_HEADER + 2] == 0x01 || head[BUF_HEADER + 2] == 0x02) &&
		     head[BUF_HEADER + 3] == 0xC0 && !etl_le(head + BUF_HEADER + SYS_HOOK_ID, 2) &&
		     etl_le(head, 4) >= 2 * BUF_HEADER;
	close(fd);
	return is;
}

int etl_file_check(const char *path, struct etl_layout *lay, char *err, size_t errlen)
{
	struct etl_layout own = { 0 };
	struct walk w = { .path = path, .lay = lay ? lay : &own, .err = err, .errlen = errlen };
	struct stat st;
	void *map;
	int fd, rc = 0;

	*w.lay = (struct etl_layout){ 0 };
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st)) {
		rc = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(-rc));
		if (fd >= 0)
			close(fd);
		return rc;
	}
	w.size = (uint64_t)st.st_size;
	if (w.size < BUF_HEADER + 0x20) {
		close(fd);
		return walk_fail(&w, 0, "%" PRIu64 " bytes: too short to be an .etl file", w.size);
	}
	map = mmap(NULL, w.size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED) {
		rc = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(-rc));
		return rc;
	}
	w.base = map;
	w.lay->buffer_size = (uint32_t)etl_le(w.base, 4);
	if (w.lay->buffer_size < 2 * BUF_HEADER || w.lay->buffer_size > (64u << 20)) {
		rc = walk_fail(&w, 0, "buffers of %u bytes (a buffer holds at least its header "
			       "and a record, and at most 64 MiB)", w.lay->buffer_size);
		goto unmap;
	}
	if (w.size % w.lay->buffer_size) {
		w.buffer = w.size / w.lay->buffer_size;
		rc = walk_fail(&w, w.buffer * w.lay->buffer_size, "the file ends %" PRIu64
			       " bytes into this buffer of %u (truncated)",
			       w.size % w.lay->buffer_size, w.lay->buffer_size);
		goto unmap;
	}
	w.lay->buffers = w.size / w.lay->buffer_size;
	for (w.buffer = 0; w.buffer < w.lay->buffers && !rc; w.buffer++)
		rc = walk_buffer(&w, w.buffer * w.lay->buffer_size);
unmap:
	munmap(map, w.size);
	return rc;
}
