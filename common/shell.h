/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_COMMON_SHELL_H
#define GPUISO_COMMON_SHELL_H

#include <stdio.h>

/**
 * shell_word() - append @s to @f as one POSIX shell word: as it is when it
 * needs no quotes, else in single quotes (a quote inside as '\''). Writing
 * to a stream means it never cuts a word short: with open_memstream() it grows.
 * @f: the stream.
 * @s: the word.
 *
 * Return: 0, or -EIO when @f reports a write error.
 */
int shell_word(FILE *f, const char *s);

#endif
