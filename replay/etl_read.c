/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "replay/etl.h"
#include "replay/etl_internal.h"

/*
 * Records of an .etl file in time order (etl.h). Each processor logs into
 * buffers of its own, which reach the file in the order they were flushed:
 * one processor's buffers are in time order, but the file interleaves
 * processors arbitrarily. A cursor per processor walks its buffers in file
 * order; the next record is the earliest of the cursors' (the lowest
 * processor first on a tie, so that the order is the file's own).
 */

struct cpu_cursor {
	unsigned int cpu;
	uint64_t *buffers;        /* indexes of this processor's buffers, in file order */
	size_t nbuffers, next;    /* the buffer being read is buffers[next - 1] */
	const uint8_t *buf;       /* it, or NULL when the processor is done */
	uint32_t at, end;         /* the next record's offset in it; its filled bytes */
	uint64_t last_ts;         /* the timestamp of the record it read last */
};

struct etl_reader {
	const uint8_t *base;
	uint64_t size;
	struct etl_layout lay;
	struct cpu_cursor *cur;
	size_t ncur;
	uint64_t index;
};

static unsigned int buffer_cpu(const uint8_t *b)
{
	if (etl_le(b + ETL_BUF_FLAGS, 2) & ETL_BUF_FLAG_PROC_INDEX)
		return (unsigned int)(etl_le(b + ETL_BUF_CONTEXT, 2) & 0x7FF);
	return b[ETL_BUF_CONTEXT];
}

/* Move @c to its next buffer with a record; NULL when it has none left. */
static void cursor_advance(struct etl_reader *r, struct cpu_cursor *c)
{
	while (c->next < c->nbuffers) {
		c->buf = r->base + c->buffers[c->next++] * r->lay.buffer_size;
		c->at = ETL_BUF_HEADER;
		c->end = (uint32_t)etl_le(c->buf + ETL_BUF_SAVED_OFFSET, 4);
		/* the logfile header is the file's, not a record to read */
		if (c->buf == r->base) {
			uint32_t hdr, size;

			etl_record_header(c->buf + c->at, c->end - c->at, &hdr, &size);
			c->at = (c->at + size + 7) & ~7u;
		}
		if (c->at < c->end)
			return;
	}
	c->buf = NULL;
}

/* Whether the record at @p has a trace header (a kind in byte 2), not a WPP message's. */
static bool is_trace_header(const uint8_t *p)
{
	return (p[3] & 0xC0) == 0xC0;
}

/* The timestamp of the record @c is at (the walk checked the record holds it). */
static uint64_t cursor_ts(const struct cpu_cursor *c)
{
	const uint8_t *p = c->buf + c->at;

	/* a WPP message says where its timestamp is in flags of its own: it takes the last one */
	if (!is_trace_header(p))
		return c->last_ts;

	/* PERFINFO headers keep theirs at 8, every other kind at 16 */
	return etl_le(p + (p[2] == 0x10 || p[2] == 0x11 ? 8 : 16), 8);
}

static uint64_t ticks_ns(const struct etl_layout *lay, uint64_t ts)
{
	uint64_t d = ts > lay->start_ticks ? ts - lay->start_ticks : 0;

	if (lay->clock_type == 2)
		return d * 100; /* system time: 100 ns units */
	return d / lay->perf_freq * 1000000000ull + d % lay->perf_freq * 1000000000ull / lay->perf_freq;
}

int etl_open(const char *path, struct etl_reader **out, struct etl_layout *lay, char *err,
	     size_t errlen)
{
	struct etl_reader *r;
	struct stat st;
	void *map;
	int fd, rc;

	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	rc = etl_file_check(path, &r->lay, err, errlen);
	if (rc)
		goto free_reader;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st)) {
		rc = -errno;
		if (fd >= 0)
			close(fd);
		goto free_reader;
	}
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED) {
		rc = -errno;
		goto free_reader;
	}
	r->base = map;
	r->size = (uint64_t)st.st_size;
	if (r->size != r->lay.buffers * r->lay.buffer_size) {
		rc = -EAGAIN; /* changed since the walk */
		goto unmap;
	}
	for (uint64_t b = 0; b < r->lay.buffers; b++) {
		unsigned int cpu = buffer_cpu(r->base + b * r->lay.buffer_size);
		struct cpu_cursor *c = NULL;

		for (size_t i = 0; i < r->ncur && !c; i++)
			if (r->cur[i].cpu == cpu)
				c = &r->cur[i];
		if (!c) {
			struct cpu_cursor *more = realloc(r->cur, (r->ncur + 1) * sizeof(*more));

			if (!more) {
				rc = -ENOMEM;
				goto unmap;
			}
			r->cur = more;
			c = &r->cur[r->ncur++];
			*c = (struct cpu_cursor){ .cpu = cpu };
		}
		/* cppcheck-suppress nullPointerRedundantCheck ; found above, or just made */
		if (!(c->nbuffers & (c->nbuffers - 1))) {
			uint64_t *more = realloc(c->buffers, (c->nbuffers ? 2 * c->nbuffers : 1) *
							     sizeof(*more));

			if (!more) {
				rc = -ENOMEM;
				goto unmap;
			}
			c->buffers = more;
		}
		c->buffers[c->nbuffers++] = b;
	}
	etl_rewind(r);
	if (lay)
		*lay = r->lay;
	*out = r;
	return 0;

unmap:
	munmap(map, r->size);
	r->base = NULL;
free_reader:
	etl_close(r);
	return rc;
}

int etl_next(struct etl_reader *r, struct etl_event *ev)
{
	struct cpu_cursor *c = NULL;
	const uint8_t *p;
	uint32_t hdr, size;

	for (size_t i = 0; i < r->ncur; i++)
		if (r->cur[i].buf && (!c || cursor_ts(&r->cur[i]) < cursor_ts(c) ||
				      (cursor_ts(&r->cur[i]) == cursor_ts(c) && r->cur[i].cpu < c->cpu)))
			c = &r->cur[i];
	if (!c)
		return 0;
	p = c->buf + c->at;
	etl_record_header(p, c->end - c->at, &hdr, &size);
	c->last_ts = cursor_ts(c);
	*ev = (struct etl_event){ .index = r->index++, .ts_ns = ticks_ns(&r->lay, c->last_ts),
				  .cpu = c->cpu, .buffer = c->buffers[c->next - 1],
				  .offset = (uint64_t)(p - r->base),
				  .kind = is_trace_header(p) ? p[2] : 0, .data = p + hdr,
				  .len = size - hdr };
	if (ev->kind == 0x12 || ev->kind == 0x13) {
		uint32_t off = 0x50;

		memcpy(ev->provider, p + 0x18, 16);
		ev->id = (uint16_t)etl_le(p + 0x28, 2);
		ev->version = p[0x2A];
		ev->channel = p[0x2B];
		ev->level = p[0x2C];
		ev->opcode = p[0x2D];
		ev->task = (uint16_t)etl_le(p + 0x2E, 2);
		ev->keyword = etl_le(p + 0x30, 8);
		/* the payload follows the extended data items the walk checked */
		if (etl_le(p + 4, 2) & 1) {
			bool last;

			do {
				last = !(etl_le(p + off + 4, 2) & 1);
				off = (off + 8 + (uint32_t)etl_le(p + off + 6, 2) + 7) & ~7u;
			} while (!last);
		}
		ev->data = p + off;
		ev->len = size - off;
	}
	if (ev->kind && (ev->kind <= 0x04 || ev->kind == 0x12 || ev->kind == 0x13)) {
		ev->tid = (uint32_t)etl_le(p + 8, 4);
		ev->pid = (uint32_t)etl_le(p + 12, 4);
	}
	c->at = (c->at + size + 7) & ~7u;
	if (c->at >= c->end)
		cursor_advance(r, c);
	return 1;
}

void etl_rewind(struct etl_reader *r)
{
	r->index = 0;
	for (size_t i = 0; i < r->ncur; i++) {
		r->cur[i].next = 0;
		r->cur[i].last_ts = 0;
		cursor_advance(r, &r->cur[i]);
	}
}

void etl_close(struct etl_reader *r)
{
	if (!r)
		return;
	if (r->base)
		munmap((void *)r->base, r->size);
	for (size_t i = 0; i < r->ncur; i++)
		free(r->cur[i].buffers);
	free(r->cur);
	free(r);
}
