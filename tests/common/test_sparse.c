/* SPDX-License-Identifier: MIT */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "common/sparse.h"

static struct sparse_mem sm;

static void setup(void)
{
	cr_assert_eq(sparse_init(&sm, (uint64_t)1 << 40), 0);
}

static void teardown(void)
{
	sparse_fini(&sm);
}

TestSuite(sparse, .init = setup, .fini = teardown);

Test(sparse, init_rejects_bad_sizes)
{
	struct sparse_mem m;

	cr_assert_eq(sparse_init(&m, 0), -EINVAL);
	cr_assert_eq(sparse_init(&m, ((uint64_t)1 << 52) + 1), -EINVAL);
	cr_assert_eq(sparse_init(&m, (uint64_t)1 << 52), 0);
	sparse_fini(&m);
}

Test(sparse, unwritten_reads_zero_without_allocating)
{
	uint8_t buf[8192];
	uint64_t avail;

	memset(buf, 0xaa, sizeof(buf));
	cr_assert_eq(sparse_read(&sm, 0x123456789, buf, sizeof(buf)), 0);
	for (size_t i = 0; i < sizeof(buf); i++)
		cr_assert_eq(buf[i], 0);
	cr_assert_null(sparse_peek(&sm, 0x123456789, &avail));
	cr_assert_eq(avail, SPARSE_CHUNK - (0x123456789 & (SPARSE_CHUNK - 1)));
	cr_assert_eq(sm.resident, 0);
}

Test(sparse, write_read_across_chunks)
{
	static uint8_t in[3 * 1024 * 1024], out[sizeof(in)];
	uint64_t addr = SZ_1G - 1000; /* straddles a directory slot and chunk boundaries */

	for (size_t i = 0; i < sizeof(in); i++)
		in[i] = (uint8_t)(i * 7 + 3);
	cr_assert_eq(sparse_write(&sm, addr, in, sizeof(in)), 0);
	cr_assert_eq(sm.resident, 3 * SPARSE_CHUNK);
	cr_assert_eq(sparse_read(&sm, addr, out, sizeof(out)), 0);
	cr_assert_arr_eq(in, out, sizeof(in));
}

Test(sparse, ptr_allocates_and_reports_avail)
{
	uint64_t avail, pavail;
	uint8_t *p = sparse_ptr(&sm, SPARSE_CHUNK + 16, 1, &avail);
	const uint8_t *q;

	cr_assert_not_null(p);
	cr_assert_eq(avail, SPARSE_CHUNK - 16);
	cr_assert_eq(p[0], 0);
	p[0] = 42;
	q = sparse_peek(&sm, SPARSE_CHUNK + 16, &pavail);
	cr_assert_eq(q, p);
	cr_assert_eq(*q, 42);
	cr_assert_eq(sm.resident, SPARSE_CHUNK);
	cr_assert_null(sparse_ptr(&sm, sm.size, 1, &avail), "out of range");
}

Test(sparse, out_of_range_is_erange)
{
	uint8_t b[16] = { 0 };

	cr_assert_eq(sparse_read(&sm, sm.size - 8, b, 16), -ERANGE);
	cr_assert_eq(sparse_write(&sm, sm.size - 8, b, 16), -ERANGE);
	cr_assert_eq(sparse_discard(&sm, sm.size - 8, 16), -ERANGE);
	cr_assert_eq(sparse_write(&sm, UINT64_MAX - 4, b, 16), -ERANGE);
	cr_assert_eq(sparse_write(&sm, sm.size - 16, b, 16), 0);
	cr_assert_eq(sm.resident, SPARSE_CHUNK);
}

Test(sparse, discard_frees_whole_chunks_and_zeroes_partial)
{
	static uint8_t ones[3 * 1024 * 1024];
	uint8_t b[4];
	uint64_t avail;

	memset(ones, 1, sizeof(ones));
	/* Chunks 0, 1 and the first half of 2. */
	cr_assert_eq(sparse_write(&sm, SPARSE_CHUNK / 2, ones, sizeof(ones)), 0);
	cr_assert_eq(sm.resident, 2 * SPARSE_CHUNK);
	cr_assert_eq(sparse_write(&sm, 0, ones, SPARSE_CHUNK / 2), 0);
	cr_assert_eq(sparse_write(&sm, 2 * SPARSE_CHUNK, ones, SPARSE_CHUNK), 0);
	cr_assert_eq(sm.resident, 3 * SPARSE_CHUNK);

	/* Last 4 bytes of chunk 0, all of chunk 1, first 4 bytes of chunk 2. */
	cr_assert_eq(sparse_discard(&sm, SPARSE_CHUNK - 4, SPARSE_CHUNK + 8), 0);
	cr_assert_eq(sm.resident, 2 * SPARSE_CHUNK, "chunk 1 went back to the host");
	cr_assert_null(sparse_peek(&sm, SPARSE_CHUNK, &avail));
	cr_assert_eq(sparse_read(&sm, SPARSE_CHUNK - 4, b, 4), 0);
	cr_assert_eq(b[0] | b[1] | b[2] | b[3], 0);
	cr_assert_eq(sparse_read(&sm, 2 * SPARSE_CHUNK, b, 4), 0);
	cr_assert_eq(b[0] | b[1] | b[2] | b[3], 0);
	cr_assert_eq(sparse_read(&sm, SPARSE_CHUNK - 5, b, 1), 0);
	cr_assert_eq(b[0], 1, "bytes outside the range keep their content");
	cr_assert_eq(sparse_read(&sm, 2 * SPARSE_CHUNK + 4, b, 1), 0);
	cr_assert_eq(b[0], 1);
	/* Discarding never-written space is fine. */
	cr_assert_eq(sparse_discard(&sm, SZ_1G * 100, SZ_1G), 0);
}

Test(sparse, odd_sized_store_frees_its_last_chunk)
{
	struct sparse_mem m;
	uint8_t b = 5;

	cr_assert_eq(sparse_init(&m, SPARSE_CHUNK + 4096), 0);
	cr_assert_eq(sparse_write(&m, SPARSE_CHUNK + 4095, &b, 1), 0);
	cr_assert_eq(m.resident, SPARSE_CHUNK);
	cr_assert_eq(sparse_discard(&m, SPARSE_CHUNK, 4096), 0);
	cr_assert_eq(m.resident, 0);
	sparse_fini(&m);
}

Test(sparse, discarded_pages_read_zero_and_neighbours_keep_content)
{
	static uint8_t ones[SPARSE_CHUNK];
	uint8_t b[3];
	uint64_t avail;

	memset(ones, 1, sizeof(ones));
	cr_assert_eq(sparse_write(&sm, 0, ones, sizeof(ones)), 0);
	/* pages 2 and 3 whole, 10 bytes of page 5 */
	cr_assert_eq(sparse_discard(&sm, 2 * 4096, 2 * 4096), 0);
	cr_assert_eq(sparse_discard(&sm, 5 * 4096 + 100, 10), 0);
	cr_assert_eq(sm.resident, SPARSE_CHUNK, "a partly discarded chunk stays");
	cr_assert_eq(sparse_peek(&sm, 0, &avail) != NULL, true);
	cr_assert_eq(avail, 2 * 4096, "the data run ends where the zero pages start");
	cr_assert_null(sparse_peek(&sm, 2 * 4096 + 8, &avail));
	cr_assert_eq(avail, 2 * 4096 - 8);
	cr_assert_eq(sparse_read(&sm, 4 * 4096 - 1, b, 2), 0);
	cr_assert(b[0] == 0 && b[1] == 1);
	cr_assert_eq(sparse_read(&sm, 5 * 4096 + 99, b, 3), 0);
	cr_assert(b[0] == 1 && b[1] == 0 && b[2] == 0);
	/* a write into a discarded page keeps the rest of that page zero */
	b[0] = 7;
	cr_assert_eq(sparse_write(&sm, 2 * 4096 + 10, b, 1), 0);
	cr_assert_eq(sparse_read(&sm, 2 * 4096 + 9, b, 3), 0);
	cr_assert(b[0] == 0 && b[1] == 7 && b[2] == 0);
}

Test(sparse, a_reused_chunk_reads_zero)
{
	static uint8_t ones[SPARSE_CHUNK], back[SPARSE_CHUNK];
	uint8_t b = 9;

	memset(ones, 0xff, sizeof(ones));
	cr_assert_eq(sparse_write(&sm, 0, ones, sizeof(ones)), 0);
	cr_assert_eq(sparse_discard(&sm, 0, SPARSE_CHUNK), 0);
	cr_assert_eq(sm.resident, 0);
	/* the chunk let go is the one the next write gets: its old bytes must not show */
	cr_assert_eq(sparse_write(&sm, 5 * SPARSE_CHUNK + 4096, &b, 1), 0);
	cr_assert_eq(sparse_read(&sm, 5 * SPARSE_CHUNK, back, sizeof(back)), 0);
	for (size_t i = 0; i < sizeof(back); i++)
		cr_assert_eq(back[i], i == 4096 ? 9 : 0, "byte %zu", i);
}

Test(sparse, whole_chunks_are_shared_and_copied_on_write)
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

Test(sparse, copying_what_is_there_already_keeps_chunks_shared)
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

Test(sparse, a_copy_through_a_bounce_buffer_ends_shared)
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

Test(sparse, borrowed_pages_read_write_discard_and_digest_as_bytes)
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

Test(sparse, a_shared_chunk_with_borrowed_pages_copies_on_write)
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

/* What a fill of @pattern (@plen bytes) from @base puts at @addr. */
static uint8_t filled(const uint8_t *pattern, uint64_t plen, uint64_t base, uint64_t addr)
{
	return pattern[(addr - base) % plen];
}

Test(sparse, fill_repeats_the_pattern_and_shares_whole_periods)
{
	static uint8_t pattern[2 * SPARSE_CHUNK], out[3 * 4096];
	const uint64_t base = 4 * SPARSE_CHUNK, len = 9 * SPARSE_CHUNK + 5000;
	const uint64_t probes[] = { base, base + 4095, base + 2 * SPARSE_CHUNK - 4096,
				    base + 7 * SPARSE_CHUNK - 100, base + len - sizeof(out) };
	uint8_t b = 0x5a;

	for (size_t i = 0; i < sizeof(pattern); i++)
		pattern[i] = (uint8_t)(i * 7 + i / 4096);
	cr_assert_eq(sparse_fill(&sm, base, len, pattern, sizeof(pattern)), 0);
	for (size_t i = 0; i < sizeof(probes) / sizeof(probes[0]); i++) {
		cr_assert_eq(sparse_read(&sm, probes[i], out, sizeof(out)), 0);
		for (size_t j = 0; j < sizeof(out); j++)
			cr_assert_eq(out[j], filled(pattern, sizeof(pattern), base, probes[i] + j),
				     "at %#llx", (unsigned long long)(probes[i] + j));
	}
	/* nothing past the end */
	cr_assert_eq(sparse_read(&sm, base + len, &b, 1), 0);
	cr_assert_eq(b, 0);
	/* each later period holds the first period's chunks */
	for (uint64_t c = 2; c < 9; c++)
		cr_assert_eq(sparse_peek(&sm, base + c * SPARSE_CHUNK, &(uint64_t){ 0 }),
			     sparse_peek(&sm, base + c % 2 * SPARSE_CHUNK, &(uint64_t){ 0 }),
			     "chunk %llu shared", (unsigned long long)c);
	/* writing one copy leaves the others as they were */
	cr_assert_eq(sparse_write(&sm, base + 6 * SPARSE_CHUNK, &b, 1), 0);
	cr_assert_eq(sparse_read(&sm, base, &b, 1), 0);
	cr_assert_eq(b, pattern[0]);
	cr_assert_eq(sparse_read(&sm, base + 8 * SPARSE_CHUNK, &b, 1), 0);
	cr_assert_eq(b, pattern[0]);
}

Test(sparse, fill_from_anywhere_with_any_period)
{
	static const uint8_t pattern[] = { 1, 2, 3, 4, 5, 6, 7 };
	static uint8_t out[SPARSE_CHUNK + 3000];
	const uint64_t base = SPARSE_CHUNK - 1000;

	cr_assert_eq(sparse_fill(&sm, base, sizeof(out), pattern, sizeof(pattern)), 0);
	cr_assert_eq(sparse_read(&sm, base, out, sizeof(out)), 0);
	for (size_t j = 0; j < sizeof(out); j++)
		cr_assert_eq(out[j], pattern[j % sizeof(pattern)], "at +%zu", j);
	cr_assert_eq(sparse_fill(&sm, 0, 5, pattern, 0), -EINVAL);
	cr_assert_eq(sparse_fill(&sm, sm.size - 4, 5, pattern, 1), -ERANGE);
}

Test(sparse, unaligned_copies_move_bytes_and_zero_runs)
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

Test(sparse, digest_follows_content_not_representation)
{
	static uint8_t zeros[SPARSE_CHUNK + 8192];
	uint64_t never, written, discarded, changed, again;
	uint64_t base = 4 * SPARSE_CHUNK - 4096, len = sizeof(zeros);
	uint8_t b = 1;

	cr_assert_eq(sparse_digest(&sm, base, len, &never), 0);
	cr_assert_eq(sparse_write(&sm, base, zeros, len), 0);
	cr_assert_eq(sparse_digest(&sm, base, len, &written), 0);
	cr_assert_eq(written, never, "written zeros read like never-written space");
	cr_assert_eq(sparse_write(&sm, base + 5000, &b, 1), 0);
	cr_assert_eq(sparse_digest(&sm, base, len, &changed), 0);
	cr_assert_neq(changed, written, "one byte changes it");
	cr_assert_eq(sparse_discard(&sm, base + 4096, 4096), 0);
	cr_assert_eq(sparse_digest(&sm, base, len, &discarded), 0);
	cr_assert_eq(discarded, never);
	/* a cached whole-chunk digest is dropped on write */
	cr_assert_eq(sparse_write(&sm, base + 4096 + 123, &b, 1), 0);
	cr_assert_eq(sparse_digest(&sm, base, len, &again), 0);
	cr_assert_neq(again, never);
	cr_assert_eq(sparse_digest(&sm, sm.size - 4, 8, &again), -ERANGE);
}

Test(sparse, state_digest_follows_the_whole_content_not_its_representation)
{
	static uint8_t bytes[SPARSE_CHUNK];
	struct sparse_mem other;
	uint64_t empty = sparse_state_digest(&sm), d;

	for (size_t i = 0; i < sizeof(bytes); i++)
		bytes[i] = (uint8_t)(i * 13 + 1);
	cr_assert_eq(sparse_init(&other, sm.size), 0);
	cr_assert_eq(sparse_state_digest(&other), empty);
	/* the same bytes, written here and shared there, far apart in the space */
	cr_assert_eq(sparse_write(&sm, 700 * SZ_1G, bytes, sizeof(bytes)), 0);
	cr_assert_eq(sparse_copy(&other, 700 * SZ_1G, &sm, 700 * SZ_1G, SPARSE_CHUNK, false), 0);
	d = sparse_state_digest(&sm);
	cr_assert_neq(d, empty);
	cr_assert_eq(sparse_state_digest(&other), d);
	/* the same bytes one chunk further: not the same content */
	cr_assert_eq(sparse_write(&other, 700 * SZ_1G + SPARSE_CHUNK, bytes, 1), 0);
	cr_assert_eq(sparse_discard(&other, 700 * SZ_1G, SPARSE_CHUNK), 0);
	cr_assert_neq(sparse_state_digest(&other), d);
	/* written zeros read as nothing written; a chunk given back too */
	cr_assert_eq(sparse_discard(&sm, 700 * SZ_1G, SPARSE_CHUNK), 0);
	memset(bytes, 0, 4096);
	cr_assert_eq(sparse_write(&sm, 5 * SZ_1G, bytes, 4096), 0);
	cr_assert_eq(sparse_state_digest(&sm), empty);
	cr_assert_eq(sparse_state_digest(&sm), sparse_state_digest_full(&sm));
	cr_assert_eq(sparse_state_digest(&other), sparse_state_digest_full(&other));
	sparse_fini(&other);
}

/* The kept digest follows writes, shares, discards and a device writing pinned memory. */
Test(sparse, the_kept_state_digest_is_the_computed_one)
{
	static uint8_t bytes[3 * 4096];
	struct sparse_mem other;
	uint64_t avail, before;
	uint8_t *p;

	for (size_t i = 0; i < sizeof(bytes); i++)
		bytes[i] = (uint8_t)(i * 7 + 3);
	cr_assert_eq(sparse_init(&other, sm.size), 0);
	cr_assert_eq(sparse_write(&sm, SPARSE_CHUNK + 4096, bytes, sizeof(bytes)), 0);
	(void)sparse_state_digest(&sm); /* kept from here on */
	(void)sparse_state_digest(&other);
	cr_assert_eq(sparse_write(&sm, 5 * SPARSE_CHUNK - 100, bytes, sizeof(bytes)), 0, "two chunks");
	cr_assert_eq(sparse_copy(&other, 0, &sm, SPARSE_CHUNK, SPARSE_CHUNK, false), 0, "shared");
	cr_assert_eq(sparse_copy(&sm, 9 * SPARSE_CHUNK, &sm, SPARSE_CHUNK, 8192, false), 0, "borrowed");
	cr_assert_eq(sparse_state_digest(&sm), sparse_state_digest_full(&sm));
	cr_assert_eq(sparse_state_digest(&other), sparse_state_digest_full(&other));
	cr_assert_eq(sparse_write(&other, 100, bytes, 1), 0, "the share copied");
	cr_assert_eq(sparse_discard(&sm, SPARSE_CHUNK, SPARSE_CHUNK), 0);
	cr_assert_eq(sparse_state_digest(&sm), sparse_state_digest_full(&sm));
	cr_assert_eq(sparse_state_digest(&other), sparse_state_digest_full(&other));
	/* a device writes a pinned chunk behind the store's back: the digest sees it */
	p = sparse_pin(&sm, 3 * SPARSE_CHUNK, SPARSE_CHUNK, &avail);
	cr_assert_not_null(p);
	before = sparse_state_digest(&sm);
	p[12345] = 0x5a;
	cr_assert_neq(sparse_state_digest(&sm), before);
	cr_assert_eq(sparse_state_digest(&sm), sparse_state_digest_full(&sm));
	sparse_unpin(&sm, 3 * SPARSE_CHUNK);
	cr_assert_eq(sparse_state_digest(&sm), sparse_state_digest_full(&sm));
	sparse_fini(&other);
}

Test(sparse, pinned_memory_is_plain_memory)
{
	struct sparse_mem other;
	uint64_t avail, d1, d2;
	uint8_t *p, b = 0;

	cr_assert_eq(sparse_init(&other, (uint64_t)1 << 34), 0);
	p = sparse_pin(&sm, 2 * SPARSE_CHUNK, SPARSE_CHUNK, &avail);
	cr_assert_not_null(p);
	cr_assert_eq(avail, SPARSE_CHUNK);
	cr_assert_eq(p[4096 * 7 + 3], 0, "never written: real zeros");
	cr_assert_eq(sparse_digest(&sm, 2 * SPARSE_CHUNK, SPARSE_CHUNK, &d1), 0);
	p[100] = 0x42; /* a device writing behind the store's back */
	cr_assert_eq(sparse_read(&sm, 2 * SPARSE_CHUNK + 100, &b, 1), 0);
	cr_assert_eq(b, 0x42);
	cr_assert_eq(sparse_digest(&sm, 2 * SPARSE_CHUNK, SPARSE_CHUNK, &d2), 0);
	cr_assert_neq(d1, d2, "no cached digest for pinned memory");
	/* discarding clears bytes, not bits: a later device write shows */
	cr_assert_eq(sparse_discard(&sm, 2 * SPARSE_CHUNK, SPARSE_CHUNK), 0);
	cr_assert_eq(sm.resident, SPARSE_CHUNK, "a pinned chunk is not let go");
	p[200] = 0x43;
	cr_assert_eq(sparse_read(&sm, 2 * SPARSE_CHUNK + 200, &b, 1), 0);
	cr_assert_eq(b, 0x43);
	cr_assert_eq(sparse_read(&sm, 2 * SPARSE_CHUNK + 100, &b, 1), 0);
	cr_assert_eq(b, 0);
	/* a copy of it is a copy, not a share */
	cr_assert_eq(sparse_copy(&other, 0, &sm, 2 * SPARSE_CHUNK, SPARSE_CHUNK, false), 0);
	cr_assert_neq(sparse_peek(&other, 0, &avail), (const void *)p);
	p[200] = 0x44;
	cr_assert_eq(sparse_read(&other, 200, &b, 1), 0);
	cr_assert_eq(b, 0x43);
	sparse_unpin(&sm, 2 * SPARSE_CHUNK);
	cr_assert_eq(sparse_discard(&sm, 2 * SPARSE_CHUNK, SPARSE_CHUNK), 0);
	cr_assert_eq(sm.resident, 0, "unpinned, it goes");
	sparse_fini(&other);
}

/* --- many random operations against a plain array of the same bytes --- */

#define MODEL_BYTES (8 * SPARSE_CHUNK)

static uint64_t rng_next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* An address in the model store: page-aligned, chunk-aligned or anywhere. */
static uint64_t rand_addr(uint64_t *rng, uint64_t len)
{
	uint64_t a = rng_next(rng) % (MODEL_BYTES - len + 1);

	switch (rng_next(rng) % 3) {
	case 0:
		return ALIGN_DOWN(a, SPARSE_CHUNK);
	case 1:
		return ALIGN_DOWN(a, 4096);
	default:
		return a;
	}
}

/* A length: some bytes, some pages, or a whole chunk or two. */
static uint64_t rand_len(uint64_t *rng)
{
	switch (rng_next(rng) % 4) {
	case 0:
		return 1 + rng_next(rng) % 9000;
	case 1:
		return 4096 * (1 + rng_next(rng) % 40);
	case 2:
		return SPARSE_CHUNK * (1 + rng_next(rng) % 2);
	default:
		return 64 * 1024;
	}
}

static void model_check(struct sparse_mem *m, const uint8_t *ref, uint8_t *out, uint64_t *rng)
{
	struct sparse_mem plain;
	uint64_t d1, d2, len = rand_len(rng), at = rand_addr(rng, len);

	cr_assert_eq(sparse_read(m, 0, out, MODEL_BYTES), 0);
	for (uint64_t i = 0; memcmp(out, ref, MODEL_BYTES) && i < MODEL_BYTES; i++)
		cr_assert_eq(out[i], ref[i], "byte %#llx", (unsigned long long)i);
	/* the same bytes, written plainly, digest the same */
	cr_assert_eq(sparse_init(&plain, MODEL_BYTES), 0);
	cr_assert_eq(sparse_write(&plain, 0, ref, MODEL_BYTES), 0);
	cr_assert_eq(sparse_digest(m, at, len, &d1), 0);
	cr_assert_eq(sparse_digest(&plain, at, len, &d2), 0);
	cr_assert_eq(d1, d2, "digest of [%#llx, +%#llx)", (unsigned long long)at,
		     (unsigned long long)len);
	sparse_fini(&plain);
}

Test(sparse, random_operations_keep_the_bytes_of_a_plain_array)
{
	static uint8_t ref[MODEL_BYTES], out[MODEL_BYTES], buf[2 * SPARSE_CHUNK];
	struct sparse_mem m;
	uint64_t rng = 0x9e3779b97f4a7c15ull, pinned = UINT64_MAX;

	cr_assert_eq(sparse_init(&m, MODEL_BYTES), 0);
	for (int op = 0; op < 4000; op++) {
		uint64_t len = rand_len(&rng), a = rand_addr(&rng, len), b, avail;
		uint8_t *p;

		switch (rng_next(&rng) % 6) {
		case 0: /* write */
			for (uint64_t i = 0; i < len; i++)
				buf[i] = (uint8_t)rng_next(&rng);
			cr_assert_eq(sparse_write(&m, a, buf, len), 0);
			memcpy(ref + a, buf, len);
			break;
		case 1: /* copy to a range that does not overlap */
		case 2:
			b = rand_addr(&rng, len);
			if (a < b + len && b < a + len)
				break;
			cr_assert_eq(sparse_copy(&m, b, &m, a, len, rng_next(&rng) & 1), 0);
			memmove(ref + b, ref + a, len);
			break;
		case 3: /* discard */
			cr_assert_eq(sparse_discard(&m, a, len), 0);
			memset(ref + a, 0, len);
			break;
		case 4: /* fill */
			b = 1 + rng_next(&rng) % 5000;
			for (uint64_t i = 0; i < b; i++)
				buf[i] = (uint8_t)rng_next(&rng);
			cr_assert_eq(sparse_fill(&m, a, len, buf, b), 0);
			for (uint64_t i = 0; i < len; i++)
				ref[a + i] = buf[i % b];
			break;
		default: /* a device writes through a pin, later let go */
			if (pinned != UINT64_MAX) {
				sparse_unpin(&m, pinned);
				pinned = UINT64_MAX;
				break;
			}
			p = sparse_pin(&m, a, len, &avail);
			cr_assert_not_null(p);
			cr_assert_arr_eq(p, ref + a, GPUISO_MIN(avail, len));
			p[0] ^= 0x5a;
			ref[a] ^= 0x5a;
			pinned = a;
			break;
		}
		if (op % 200 == 199)
			model_check(&m, ref, out, &rng);
	}
	model_check(&m, ref, out, &rng);
	if (pinned != UINT64_MAX)
		sparse_unpin(&m, pinned);
	sparse_fini(&m);
}
