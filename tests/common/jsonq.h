/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_TESTS_JSONQ_H
#define GPUISO_TESTS_JSONQ_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Test-only JSON checking: jsonq_valid() parses a whole document strictly
 * (RFC 8259 grammar, in UTF-8); jsonq_get() finds the value at a dotted path such as
 * "adapters.1.physical.0.domain" and copies its text ("null", "true", a
 * number, or a string without quotes) into @out.
 */

bool jsonq_valid(const char *doc);
bool jsonq_get(const char *doc, const char *path, char *out, size_t len);

#endif
