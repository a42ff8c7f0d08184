/* SPDX-License-Identifier: MIT */
/*
 * Strict number and size parsing for input files and options. strtoull()
 * is not used: it skips leading white space, accepts a sign and wraps
 * negative numbers, all of which would turn typos in a scenario into
 * silently wrong values. strtod() reads a decimal only once its form was
 * checked.
 */
#include "units.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/*
 * Parse the digits at @s in @base (10 or 16), stopping at the first
 * character that is not a digit. *@end is set to that character.
 * Return: 0, -EINVAL if there is no digit at all, -ERANGE on overflow
 * (the digits are still consumed so the caller's end check stays simple).
 */
static int parse_digits(const char *s, unsigned int base, uint64_t *out, const char **end)
{
	uint64_t v = 0;
	bool overflow = false;
	const char *p = s;
	int d;

	for (; *p; p++) {
		d = hexval(*p);
		if (d < 0 || (unsigned int)d >= base)
			break;
		if (v > (UINT64_MAX - (uint64_t)d) / base)
			overflow = true;
		else
			v = v * base + (uint64_t)d;
	}
	*end = p;
	if (p == s)
		return -EINVAL;
	if (overflow)
		return -ERANGE;
	*out = v;
	return 0;
}

/*
 * The number at the start of @s: "0x"/"0X" then hex digits, or decimal
 * digits. Leading zeros are decimal, never octal.
 */
static int parse_number(const char *s, uint64_t *out, const char **end, bool *hex)
{
	*hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
	if (*hex)
		return parse_digits(s + 2, 16, out, end);
	return parse_digits(s, 10, out, end);
}

int units_parse_u64(const char *s, uint64_t *out)
{
	const char *end;
	uint64_t v;
	bool hex;
	int ret;

	if (!s || !out)
		return -EINVAL;
	ret = parse_number(s, &v, &end, &hex);
	if (ret == -EINVAL || *end)
		return -EINVAL;
	if (ret)
		return ret;
	*out = v;
	return 0;
}

int units_parse_uint_said(const char *s, uint64_t max, uint64_t *out, char *why, size_t len)
{
	uint64_t v;
	int ret = units_parse_u64(s, &v);

	if (ret == -ERANGE)
		snprintf(why, len, "integer '%s' does not fit in 64 bits", s);
	else if (ret)
		snprintf(why, len, "invalid integer '%s' (expected decimal or 0x hex)", s);
	else if (v > max)
		snprintf(why, len, "%s is larger than %llu", s, (unsigned long long)max);
	if (ret)
		return ret;
	if (v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

/* The count of decimal digits at the start of @s. */
static size_t decimal_digits(const char *s)
{
	size_t n = 0;

	while (s[n] >= '0' && s[n] <= '9')
		n++;
	return n;
}

int units_parse_decimal(const char *s, double *out)
{
	size_t whole, frac = 0;
	double v;
	char *end;

	if (!s || !out)
		return -EINVAL;
	/* the form first: strtod() would take a sign, white space, hex, an exponent, "inf" */
	whole = decimal_digits(s);
	if (whole && s[whole] == '.')
		frac = decimal_digits(s + whole + 1);
	if (!whole || (s[whole] == '.' && !frac) || s[whole + (frac ? frac + 1 : 0)])
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (*end)
		return -EINVAL;
	if (!isfinite(v))
		return -ERANGE;
	*out = v;
	return 0;
}

static const struct {
	const char *suffix;
	unsigned int shift;
} size_units[] = {
	{ "B", 0 }, { "KiB", 10 }, { "MiB", 20 }, { "GiB", 30 }, { "TiB", 40 },
};

int units_parse_size(const char *s, uint64_t *out)
{
	const char *end;
	unsigned int shift = 0;
	uint64_t v;
	bool hex, found;
	size_t i;
	int ret;

	if (!s || !out)
		return -EINVAL;
	ret = parse_number(s, &v, &end, &hex);
	if (ret == -EINVAL)
		return -EINVAL;
	if (*end) {
		/* Hex takes no unit: "0x1B" is 27, so a unit could never be told apart. */
		if (hex)
			return -EINVAL;
		found = false;
		for (i = 0; i < ARRAY_SIZE(size_units); i++) {
			if (!strcmp(end, size_units[i].suffix)) {
				shift = size_units[i].shift;
				found = true;
				break;
			}
		}
		if (!found)
			return -EINVAL;
	}
	if (ret)
		return ret;
	if (shift && v > (UINT64_MAX >> shift))
		return -ERANGE;
	*out = v << shift;
	return 0;
}

char *units_format_size(uint64_t bytes, char *buf, size_t len)
{
	size_t i;

	if (!buf || !len)
		return buf;
	for (i = ARRAY_SIZE(size_units) - 1; i > 0; i--) {
		unsigned int shift = size_units[i].shift;

		if (bytes && (bytes & (((uint64_t)1 << shift) - 1)) == 0) {
			snprintf(buf, len, "%llu%s", (unsigned long long)(bytes >> shift),
				 size_units[i].suffix);
			return buf;
		}
	}
	snprintf(buf, len, "%lluB", (unsigned long long)bytes);
	return buf;
}
