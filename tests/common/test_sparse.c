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
