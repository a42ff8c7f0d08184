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
	uint8_t *p = sparse_ptr(&sm, SPARSE_CHUNK + 16, &avail);
	const uint8_t *q;

	cr_assert_not_null(p);
	cr_assert_eq(avail, SPARSE_CHUNK - 16);
	cr_assert_eq(p[0], 0);
	p[0] = 42;
	q = sparse_peek(&sm, SPARSE_CHUNK + 16, &pavail);
	cr_assert_eq(q, p);
	cr_assert_eq(*q, 42);
	cr_assert_eq(sm.resident, SPARSE_CHUNK);
	cr_assert_null(sparse_ptr(&sm, sm.size, &avail), "out of range");
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
