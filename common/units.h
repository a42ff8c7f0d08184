/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_COMMON_UNITS_H
#define GPUISO_COMMON_UNITS_H

#include "types.h"

/**
 * units_parse_u64() - parse a whole unsigned number: decimal, or hex with
 * 0x.
 * @s: the text; all of it must be the number.
 * @out: out: the value.
 *
 * Return: 0, -EINVAL for malformed text, -ERANGE for overflow.
 */
int units_parse_u64(const char *s, uint64_t *out);

/**
 * units_parse_uint_said() - units_parse_u64() of a number at most @max,
 * saying why not in the words every reader of a user's file uses.
 * @s: the text.
 * @max: the largest value taken (UINT64_MAX, UINT32_MAX, ...).
 * @out: out: the value.
 * @why: out: on error, "invalid integer 'x' (expected decimal or 0x hex)",
 *       "integer 'x' does not fit in 64 bits" or "x is larger than MAX".
 * @len: size of @why.
 *
 * Return: 0, -EINVAL for malformed text, -ERANGE for a value above @max.
 */
int units_parse_uint_said(const char *s, uint64_t max, uint64_t *out, char *why, size_t len);

/**
 * units_parse_decimal() - parse a whole unsigned decimal number: digits,
 * then optionally a point and more digits ("20", "0.05", "2.5").
 * @s: the text; all of it must be the number (no sign, no white space, no
 * exponent, no hex, nothing after it).
 * @out: out: the value.
 *
 * Return: 0, -EINVAL for malformed text, -ERANGE when the value is too
 * large for a double.
 */
int units_parse_decimal(const char *s, double *out);

/**
 * units_parse_size() - parse a byte count: "64GiB", "4KiB", "2MiB",
 * "1TiB", "512B", "0x1000" or "4096".
 * @s: the text.
 * @out: out: bytes.
 *
 * Return: 0, -EINVAL for malformed text, -ERANGE for overflow.
 */
int units_parse_size(const char *s, uint64_t *out);

/**
 * units_format_size() - write @bytes as the largest exact binary unit
 * ("64GiB", "4KiB", "4097B").
 * @bytes: the count.
 * @buf: destination.
 * @len: its size (24 is always enough).
 *
 * Return: @buf.
 */
char *units_format_size(uint64_t bytes, char *buf, size_t len);

#endif
