/* SPDX-License-Identifier: MIT */
/* Shell words (common/shell.h). */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/shell.h"

static void word_is(const char *s, const char *want)
{
	char *out = NULL;
	size_t len;
	FILE *f = open_memstream(&out, &len);

	cr_assert_not_null(f);
	cr_assert_eq(shell_word(f, s), 0);
	cr_assert_eq(fclose(f), 0);
	cr_assert_str_eq(out, want, "word of [%s]", s);
	free(out);
}

Test(shell, plain_words_stay_as_they_are)
{
	word_is("traces/power-cycle", "traces/power-cycle");
	word_is("a_b.c:d=e@f%g+h,i-J0", "a_b.c:d=e@f%g+h,i-J0");
}

Test(shell, others_are_single_quoted)
{
	word_is("", "''");
	word_is("with space", "'with space'");
	word_is("$HOME", "'$HOME'");
	word_is("it's", "'it'\\''s'");
	word_is("a\nb", "'a\nb'");
}

Test(shell, a_long_word_is_never_cut)
{
	static char s[20000];
	char *out = NULL;
	size_t len;
	FILE *f = open_memstream(&out, &len);

	memset(s, '\'', sizeof(s) - 1);
	cr_assert_eq(shell_word(f, s), 0);
	cr_assert_eq(fclose(f), 0);
	cr_assert_eq(strlen(out), 2 + 4 * (sizeof(s) - 1));
	free(out);
}

Test(shell, a_write_error_is_said)
{
	FILE *f = fopen("/dev/full", "w");

	cr_assert_not_null(f);
	setvbuf(f, NULL, _IONBF, 0);
	cr_assert_eq(shell_word(f, "x"), -EIO);
	fclose(f);
}
