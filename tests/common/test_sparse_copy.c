/* SPDX-License-Identifier: MIT */
#include <criterion/criterion.h>
#include <string.h>

#include "common/sparse.h"

/* Copies between stores and within one (common/sparse_copy.c): chunks shared, pages borrowed. */

static struct sparse_mem sm;

static void setup(void)
{
	cr_assert_eq(sparse_init(&sm, (uint64_t)1 << 40), 0);
}

static void teardown(void)
{
	sparse_fini(&sm);
}

TestSuite(sparse_copy, .init = setup, .fini = teardown);

Test(sparse_copy, whole_chunks_are_shared_and_copied_on_write)
{
	static uint8_t in[SPARSE_CHUNK], out[SPARSE_CHUNK];
	struct sparse_mem other;
	uint8_t b = 0x55;

	cr_assert_eq(sparse_init(&other, (uint64_t)1 << 34), 0);
	for (size_t i = 0; i < sizeof(in); i++)
		in[i] = (uint8_t)(i * 13);
	cr_assert_eq(sparse_write(&sm, 3 * SPARSE_CHUNK, in, sizeof(in)), 0);
	cr_assert_eq(sparse_copy(&other, SPARSE_CHUNK, &sm, 3 * SPARSE_CHUNK, SPARSE_CHUNK, false), 0);
	cr_assert_eq(sparse_peek(&other, SPARSE_CHUNK, &(uint64_t){ 0 }),
		     sparse_peek(&sm, 3 * SPARSE_CHUNK, &(uint64_t){ 0 }), "shared, not copied");
	cr_assert_eq(other.resident, SPARSE_CHUNK);
	/* writing the copy leaves the source as it was */
	cr_assert_eq(sparse_write(&other, SPARSE_CHUNK + 77, &b, 1), 0);
	cr_assert_neq(sparse_peek(&other, SPARSE_CHUNK, &(uint64_t){ 0 }),
		      sparse_peek(&sm, 3 * SPARSE_CHUNK, &(uint64_t){ 0 }));
	cr_assert_eq(sparse_read(&sm, 3 * SPARSE_CHUNK, out, sizeof(out)), 0);
	cr_assert_arr_eq(in, out, sizeof(in));
	cr_assert_eq(sparse_read(&other, SPARSE_CHUNK, out, sizeof(out)), 0);
	in[77] = 0x55;
	cr_assert_arr_eq(in, out, sizeof(in));
	/* discarding the source keeps the copy */
	cr_assert_eq(sparse_copy(&other, 4 * SPARSE_CHUNK, &sm, 3 * SPARSE_CHUNK, SPARSE_CHUNK, false), 0);
	cr_assert_eq(sparse_discard(&sm, 3 * SPARSE_CHUNK, SPARSE_CHUNK), 0);
	cr_assert_eq(sparse_read(&other, 4 * SPARSE_CHUNK + 1000, &b, 1), 0);
	cr_assert_eq(b, (uint8_t)(1000 * 13));
	sparse_fini(&other);
}

Test(sparse_copy, copying_what_is_there_already_keeps_chunks_shared)
{
	static uint8_t in[SPARSE_CHUNK];
	const void *shared;
	uint8_t b = 0;

	for (size_t i = 0; i < sizeof(in); i++)
		in[i] = (uint8_t)(i * 11 + 1);
	in[5 * 4096] = 0; /* one page holds real zeros */
	cr_assert_eq(sparse_write(&sm, 0, in, sizeof(in)), 0);
	cr_assert_eq(sparse_discard(&sm, 9 * 4096, 4096), 0); /* and one reads as zero */
	cr_assert_eq(sparse_copy(&sm, 2 * SPARSE_CHUNK, &sm, 0, SPARSE_CHUNK, false), 0);
	shared = sparse_peek(&sm, 2 * SPARSE_CHUNK, &(uint64_t){ 0 });
	cr_assert_eq(shared, sparse_peek(&sm, 0, &(uint64_t){ 0 }));
	/* a part copied over itself, from a third place holding the same bytes */
	cr_assert_eq(sparse_write(&sm, 5 * SPARSE_CHUNK, in, sizeof(in)), 0);
	cr_assert_eq(sparse_discard(&sm, 5 * SPARSE_CHUNK + 9 * 4096, 4096), 0);
	cr_assert_eq(sparse_copy(&sm, 2 * SPARSE_CHUNK + 3 * 4096, &sm,
				 5 * SPARSE_CHUNK + 3 * 4096, 10 * 4096, false), 0);
	cr_assert_eq(sparse_discard(&sm, 2 * SPARSE_CHUNK + 9 * 4096, 4096), 0);
	cr_assert_eq(sparse_peek(&sm, 2 * SPARSE_CHUNK, &(uint64_t){ 0 }), shared, "still shared");
	/* real zeros are bytes, not a page that reads as zero: that copy is a change */
	cr_assert_eq(sparse_copy(&sm, 2 * SPARSE_CHUNK + 9 * 4096, &sm, 5 * 4096, 4096, false), 0);
	cr_assert_neq(sparse_peek(&sm, 2 * SPARSE_CHUNK, &(uint64_t){ 0 }), shared);
	/* one byte different is a change too */
	cr_assert_eq(sparse_copy(&sm, 7 * SPARSE_CHUNK, &sm, 0, SPARSE_CHUNK, false), 0);
	in[4096 + 17] ^= 1;
	cr_assert_eq(sparse_write(&sm, 6 * SPARSE_CHUNK, in, sizeof(in)), 0);
	cr_assert_eq(sparse_copy(&sm, 7 * SPARSE_CHUNK, &sm, 6 * SPARSE_CHUNK, 8192, false), 0);
	cr_assert_eq(sparse_read(&sm, 7 * SPARSE_CHUNK + 4096 + 17, &b, 1), 0);
	cr_assert_eq(b, in[4096 + 17]);
	cr_assert_eq(sparse_read(&sm, 4096 + 17, &b, 1), 0);
	cr_assert_eq(b, in[4096 + 17] ^ 1, "the source it was shared with is as it was");
}

/* Copy @len bytes from @src to @dst in @piece-byte steps through a bounce buffer at @bounce. */
static void bounce_copy(uint64_t dst, uint64_t src, uint64_t len, uint64_t bounce, uint64_t piece)
{
	for (uint64_t off = 0; off < len; off += piece) {
		cr_assert_eq(sparse_copy(&sm, bounce, &sm, src + off, piece, false), 0);
		cr_assert_eq(sparse_copy(&sm, dst + off, &sm, bounce, piece, false), 0);
	}
}

static void fill_bytes(uint8_t *buf, size_t n, unsigned int seed)
{
	for (size_t i = 0; i < n; i++)
		buf[i] = (uint8_t)(i * seed + i / 4096 + 1);
}

Test(sparse_copy, a_copy_through_a_bounce_buffer_ends_shared)
{
	static uint8_t in[SPARSE_CHUNK], out[SPARSE_CHUNK];
	const uint64_t a = 2 * SPARSE_CHUNK, c = 6 * SPARSE_CHUNK;
	const uint64_t bounce = 9 * SPARSE_CHUNK + 5 * 4096; /* not where the pages sit in theirs */
	const void *pa;
	uint64_t avail;
	uint8_t b = 0x77;

	fill_bytes(in, sizeof(in), 13);
	cr_assert_eq(sparse_write(&sm, a, in, sizeof(in)), 0);
	bounce_copy(c, a, SPARSE_CHUNK, bounce, 64 << 10);
	pa = sparse_peek(&sm, a, &(uint64_t){ 0 });
	cr_assert_eq(sparse_peek(&sm, c, &avail), pa, "every page came from one place");
	cr_assert_eq(avail, SPARSE_CHUNK, "so it is that chunk, not pages borrowed one by one");
	cr_assert_eq(sparse_read(&sm, c, out, sizeof(out)), 0);
	cr_assert_arr_eq(out, in, sizeof(in));
	/* the bounce buffer's next use, and a write to the source, leave the copy as it is */
	cr_assert_eq(sparse_write(&sm, bounce, &b, 1), 0);
	cr_assert_eq(sparse_write(&sm, a + 100, &b, 1), 0);
	cr_assert_eq(sparse_read(&sm, c, out, sizeof(out)), 0);
	cr_assert_arr_eq(out, in, sizeof(in));
	cr_assert_eq(sparse_read(&sm, a + 100, &b, 1), 0);
	cr_assert_eq(b, 0x77);
}

Test(sparse_copy, borrowed_pages_read_write_discard_and_digest_as_bytes)
{
	static uint8_t in[SPARSE_CHUNK], out[SPARSE_CHUNK];
	const uint64_t a = 0, c = 4 * SPARSE_CHUNK, plain = 8 * SPARSE_CHUNK;
	uint64_t dc, dp, avail;
	uint8_t *pinned, b = 0x99;

	fill_bytes(in, sizeof(in), 29);
	cr_assert_eq(sparse_write(&sm, a, in, sizeof(in)), 0);
	/* pages 3..10 of c borrowed (page-aligned, not from where they sit), plus a part page */
	cr_assert_eq(sparse_copy(&sm, c + 3 * 4096, &sm, a + 40 * 4096, 8 * 4096, false), 0);
	cr_assert_eq(sparse_copy(&sm, c + 20 * 4096 + 10, &sm, a + 10, 100, false), 0);
	cr_assert_eq(sparse_peek(&sm, c + 4 * 4096, &avail), sparse_peek(&sm, a + 41 * 4096, &(uint64_t){ 0 }));
	cr_assert_eq(avail, 7 * 4096, "pages borrowed from consecutive pages read as one stretch");
	memset(out, 0, sizeof(out));
	memcpy(out + 3 * 4096, in + 40 * 4096, 8 * 4096);
	memcpy(out + 20 * 4096 + 10, in + 10, 100);
	/* the same content written as bytes elsewhere digests the same */
	cr_assert_eq(sparse_write(&sm, plain, out, sizeof(out)), 0);
	cr_assert_eq(sparse_digest(&sm, c, SPARSE_CHUNK, &dc), 0);
	cr_assert_eq(sparse_digest(&sm, plain, SPARSE_CHUNK, &dp), 0);
	cr_assert_eq(dc, dp);
	/* a byte written, a page discarded: only here */
	cr_assert_eq(sparse_write(&sm, c + 4 * 4096 + 7, &b, 1), 0);
	out[4 * 4096 + 7] = b;
	cr_assert_eq(sparse_discard(&sm, c + 6 * 4096, 4096), 0);
	memset(out + 6 * 4096, 0, 4096);
	cr_assert_eq(sparse_peek(&sm, c + 6 * 4096, &avail), NULL);
	/* the source goes; what was borrowed stays */
	cr_assert_eq(sparse_discard(&sm, a, SPARSE_CHUNK), 0);
	cr_assert_eq(sparse_read(&sm, c, in, sizeof(in)), 0);
	cr_assert_arr_eq(in, out, sizeof(out));
	/* pinned, the pages are plain memory of the chunk */
	pinned = sparse_pin(&sm, c, SPARSE_CHUNK, &avail);
	cr_assert_not_null(pinned);
	cr_assert_arr_eq(pinned, out, sizeof(out));
	pinned[9 * 4096] ^= 0xff;
	cr_assert_eq(sparse_read(&sm, c + 9 * 4096, &b, 1), 0);
	cr_assert_eq(b, out[9 * 4096] ^ 0xff);
	sparse_unpin(&sm, c);
}

Test(sparse_copy, a_shared_chunk_with_borrowed_pages_copies_on_write)
{
	static uint8_t in[SPARSE_CHUNK], out[SPARSE_CHUNK];
	const uint64_t a = 0, c = 2 * SPARSE_CHUNK, d = 4 * SPARSE_CHUNK;
	uint8_t b = 0x42;

	fill_bytes(in, sizeof(in), 7);
	cr_assert_eq(sparse_write(&sm, a, in, sizeof(in)), 0);
	cr_assert_eq(sparse_copy(&sm, c, &sm, a + 4096, 16 * 4096, false), 0);
	cr_assert_eq(sparse_write(&sm, c + 100 * 4096, in, 4096), 0);
	cr_assert_eq(sparse_copy(&sm, d, &sm, c, SPARSE_CHUNK, false), 0); /* shared whole */
	cr_assert_eq(sparse_write(&sm, d + 2 * 4096, &b, 1), 0);
	cr_assert_eq(sparse_read(&sm, c, out, 16 * 4096), 0);
	cr_assert_arr_eq(out, in + 4096, 16 * 4096, "the chunk it was shared with is as it was");
	cr_assert_eq(sparse_read(&sm, d, out, 16 * 4096), 0);
	in[4096 + 2 * 4096] = b;
	cr_assert_arr_eq(out, in + 4096, 16 * 4096);
	cr_assert_eq(sparse_read(&sm, d + 100 * 4096, out, 4096), 0);
	cr_assert_arr_eq(out, in, 4096);
}

Test(sparse_copy, unaligned_copies_move_bytes_and_zero_runs)
{
	static uint8_t in[3 * 4096], out[sizeof(in)];

	for (size_t i = 0; i < sizeof(in); i++)
		in[i] = (uint8_t)(i + 1);
	cr_assert_eq(sparse_write(&sm, 1000, in, sizeof(in)), 0);
	cr_assert_eq(sparse_discard(&sm, 4096, 4096), 0);
	memset(in + 4096 - 1000, 0, 4096);
	/* across a chunk boundary in the destination, over a zero page in the source */
	cr_assert_eq(sparse_write(&sm, SPARSE_CHUNK * 7 - 5000, (uint8_t[64]){ 1 }, 64), 0);
	cr_assert_eq(sparse_copy(&sm, SPARSE_CHUNK * 7 - 5000, &sm, 1000, sizeof(in), true), 0);
	cr_assert_eq(sparse_read(&sm, SPARSE_CHUNK * 7 - 5000, out, sizeof(out)), 0);
	cr_assert_arr_eq(in, out, sizeof(in));
}
