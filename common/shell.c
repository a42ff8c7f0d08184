/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "shell.h"

/* Characters a shell word needs no quotes for. */
static const char safe[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			   "0123456789_./:=@%+,-";

int shell_word(FILE *f, const char *s)
{
	if (*s && !s[strspn(s, safe)]) {
		fputs(s, f);
	} else {
		fputc('\'', f);
		for (; *s; s++) {
			if (*s == '\'')
				fputs("'\\''", f);
			else
				fputc(*s, f);
		}
		fputc('\'', f);
	}
	return ferror(f) ? -EIO : 0;
}
