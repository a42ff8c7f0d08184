/* SPDX-License-Identifier: MIT */
/* Strict number and size parsing, and size formatting (common/units.h). */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <errno.h>
#include <string.h>

#include "common/units.h"

#define SENTINEL 0x5A5A5A5A5A5A5A5Aull

static void u64_ok(const char *s, uint64_t want)
{
	uint64_t v = SENTINEL;

	cr_expect(eq(int, units_parse_u64(s, &v), 0), "units_parse_u64(\"%s\")", s);
	cr_expect(eq(u64, v, want), "units_parse_u64(\"%s\")", s);
}

static void u64_bad(const char *s, int err)
{
	uint64_t v = SENTINEL;

	cr_expect(eq(int, units_parse_u64(s, &v), err), "units_parse_u64(\"%s\")", s);
	cr_expect(eq(u64, v, SENTINEL), "units_parse_u64(\"%s\") wrote on error", s);
}

static void decimal_ok(const char *s, double want)
{
	double v = -1;

	cr_expect(eq(int, units_parse_decimal(s, &v), 0), "units_parse_decimal(\"%s\")", s);
	cr_expect(eq(dbl, v, want), "units_parse_decimal(\"%s\")", s);
}

static void decimal_bad(const char *s, int err)
{
	double v = -1;

	cr_expect(eq(int, units_parse_decimal(s, &v), err), "units_parse_decimal(\"%s\")", s);
	cr_expect(eq(dbl, v, -1), "units_parse_decimal(\"%s\") wrote on error", s);
}

static void size_ok(const char *s, uint64_t want)
{
	uint64_t v = SENTINEL;

	cr_expect(eq(int, units_parse_size(s, &v), 0), "units_parse_size(\"%s\")", s);
	cr_expect(eq(u64, v, want), "units_parse_size(\"%s\")", s);
}

static void size_bad(const char *s, int err)
{
	uint64_t v = SENTINEL;

	cr_expect(eq(int, units_parse_size(s, &v), err), "units_parse_size(\"%s\")", s);
	cr_expect(eq(u64, v, SENTINEL), "units_parse_size(\"%s\") wrote on error", s);
}

Test(units, u64_decimal_and_hex)
{
	u64_ok("0", 0);
	u64_ok("42", 42);
	u64_ok("007", 7); /* leading zeros are decimal, not octal */
	u64_ok("0x2A", 42);
	u64_ok("0X2a", 42);
	u64_ok("0x0", 0);
	u64_ok("0x0000000000000000001", 1);
	u64_ok("18446744073709551615", UINT64_MAX);
	u64_ok("0xFFFFFFFFFFFFFFFF", UINT64_MAX);
}

Test(units, u64_overflow)
{
	u64_bad("18446744073709551616", -ERANGE);
	u64_bad("99999999999999999999999", -ERANGE);
	u64_bad("0x10000000000000000", -ERANGE);
}

Test(units, u64_malformed)
{
	u64_bad("", -EINVAL);
	u64_bad("0x", -EINVAL);
	u64_bad("x10", -EINVAL);
	u64_bad(" 1", -EINVAL);
	u64_bad("1 ", -EINVAL);
	u64_bad("-1", -EINVAL);
	u64_bad("+1", -EINVAL);
	u64_bad("1a", -EINVAL);
	u64_bad("0x1g", -EINVAL);
	u64_bad("1.0", -EINVAL);
	u64_bad("1_000", -EINVAL);
	u64_bad("4KiB", -EINVAL); /* units are for sizes only */
	u64_bad("99999999999999999999999z", -EINVAL); /* garbage wins over overflow */
	cr_expect(eq(int, units_parse_u64(NULL, &(uint64_t){ 0 }), -EINVAL));
}

Test(units, decimal_digits_and_a_fraction)
{
	decimal_ok("0", 0);
	decimal_ok("20", 20);
	decimal_ok("007", 7);
	decimal_ok("0.05", 0.05);
	decimal_ok("2.5", 2.5);
	decimal_ok("100.000", 100);
	decimal_ok("0.000000000000000000000000000000000000000000000000001", 1e-51);
}

Test(units, decimal_malformed_and_too_large)
{
	static const char *const bad[] = {
		"", " 1", "1 ", "\t1", "1\n", "0. 5", "0 .5", "+1", "-1", "-0", "+0.5", "1e3", "5e-2",
		"1E3", "0x1", "0x1p3", "inf", "nan", "infinity", ".5", "5.", ".", "1.2.3", "1,5",
		"1_000", "20%", "1a",
	};
	char huge[400];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		decimal_bad(bad[i], -EINVAL);
	memset(huge, '9', sizeof(huge) - 1);
	huge[sizeof(huge) - 1] = '\0';
	decimal_bad(huge, -ERANGE);
	cr_expect(eq(int, units_parse_decimal(NULL, &(double){ 0 }), -EINVAL));
}

Test(units, size_units)
{
	size_ok("4096", 4096);
	size_ok("0x1000", 4096);
	size_ok("0", 0);
	size_ok("0B", 0);
	size_ok("0KiB", 0);
	size_ok("512B", 512);
	size_ok("4KiB", 4096);
	size_ok("2MiB", 2ull << 20);
	size_ok("64GiB", 64ull << 30);
	size_ok("1TiB", 1ull << 40);
	size_ok("3073MiB", 3073ull << 20);
	size_ok("0x1B", 0x1B); /* hex digits, not a unit */
	size_ok("0xB", 11);
	size_ok("16777215TiB", 16777215ull << 40);
	size_ok("18446744073709551615B", UINT64_MAX);
	size_ok("17179869183GiB", 17179869183ull << 30);
}

Test(units, size_overflow)
{
	size_bad("16777216TiB", -ERANGE);
	size_bad("17179869184GiB", -ERANGE);
	size_bad("18446744073709551616", -ERANGE);
	size_bad("18446744073709551616B", -ERANGE);
	size_bad("99999999999999999999KiB", -ERANGE);
	size_bad("0x10000000000000000", -ERANGE);
}

Test(units, size_malformed)
{
	size_bad("", -EINVAL);
	size_bad("KiB", -EINVAL);
	size_bad("4kib", -EINVAL); /* units are case-sensitive */
	size_bad("4KB", -EINVAL);  /* only IEC units */
	size_bad("4GB", -EINVAL);
	size_bad("4K", -EINVAL);
	size_bad("4k", -EINVAL);
	size_bad("4 KiB", -EINVAL);
	size_bad(" 4KiB", -EINVAL);
	size_bad("4KiB ", -EINVAL);
	size_bad("4KiBB", -EINVAL);
	size_bad("4PiB", -EINVAL);
	size_bad("1.5GiB", -EINVAL);
	size_bad("-4KiB", -EINVAL);
	size_bad("0x10KiB", -EINVAL); /* hex takes no unit */
	size_bad("0x", -EINVAL);
	size_bad("99999999999999999999XB", -EINVAL);
	cr_expect(eq(int, units_parse_size(NULL, &(uint64_t){ 0 }), -EINVAL));
}

static void fmt_is(uint64_t bytes, const char *want)
{
	char buf[24];

	cr_expect(eq(str, units_format_size(bytes, buf, sizeof(buf)), (char *)want),
		  "units_format_size(%llu)", (unsigned long long)bytes);
}

Test(units, format_largest_exact_unit)
{
	fmt_is(0, "0B");
	fmt_is(1, "1B");
	fmt_is(1023, "1023B");
	fmt_is(1024, "1KiB");
	fmt_is(4096, "4KiB");
	fmt_is(4097, "4097B");
	fmt_is(1ull << 20, "1MiB");
	fmt_is((3ull << 30) + (1ull << 20), "3073MiB");
	fmt_is(64ull << 30, "64GiB");
	fmt_is(1ull << 40, "1TiB");
	fmt_is(1ull << 50, "1024TiB");
	fmt_is(UINT64_MAX, "18446744073709551615B");
	fmt_is(UINT64_MAX - 4095, "18014398509481980KiB");
}

Test(units, format_truncates_safely)
{
	char buf[3] = { 'x', 'x', 'x' };

	cr_expect(eq(ptr, units_format_size(4096, buf, sizeof(buf)), buf));
	cr_expect(eq(str, buf, "4K"));
	cr_expect(eq(ptr, units_format_size(4096, buf, 0), buf));
	cr_expect(eq(ptr, units_format_size(4096, NULL, 8), NULL));
}

Test(units, format_parse_round_trip)
{
	static const uint64_t v[] = {
		0, 1, 4095, 4096, 65536, 3ull << 20, 12345ull << 30, 7ull << 40,
		(1ull << 40) + 4096, UINT64_MAX, UINT64_MAX - 4095,
	};
	char buf[24];
	size_t i;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		uint64_t back = SENTINEL;

		units_format_size(v[i], buf, sizeof(buf));
		cr_expect(eq(int, units_parse_size(buf, &back), 0), "%s", buf);
		cr_expect(eq(u64, back, v[i]), "%s", buf);
	}
}

/* One set of words for a bad number, whoever reads it (YAML fields, a backend's settings). */
Test(units, parse_uint_said_says_why_not)
{
	uint64_t v = 7;
	char why[128];

	cr_expect(eq(int, units_parse_uint_said("0x10", UINT32_MAX, &v, why, sizeof(why)), 0));
	cr_expect(eq(u64, v, 16));
	cr_expect(eq(int, units_parse_uint_said("4294967295", UINT32_MAX, &v, why, sizeof(why)),
		     0));
	cr_expect(eq(int, units_parse_uint_said("4294967296", UINT32_MAX, &v, why, sizeof(why)),
		     -ERANGE));
	cr_expect(eq(str, why, "4294967296 is larger than 4294967295"));
	cr_expect(eq(u64, v, 4294967295u), "unchanged on error");
	cr_expect(eq(int, units_parse_uint_said("18446744073709551616", UINT64_MAX, &v, why,
						sizeof(why)), -ERANGE));
	cr_expect(eq(str, why, "integer '18446744073709551616' does not fit in 64 bits"));
	cr_expect(eq(int, units_parse_uint_said("12x", UINT64_MAX, &v, why, sizeof(why)),
		     -EINVAL));
	cr_expect(eq(str, why, "invalid integer '12x' (expected decimal or 0x hex)"));
}
