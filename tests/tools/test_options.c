/* SPDX-License-Identifier: MIT */
/*
 * Every option of the CLI that takes a number takes exactly the numbers its
 * --help describes (README.md, "The command"): a whole number is decimal or
 * hex with 0x, P and PCT a decimal with an optional fraction; no white space
 * before, inside or after it, no sign, no exponent, nothing after it, no
 * overflow. Each bad form is tried on each option, through the command, and
 * must be refused by the option's own message with exit 2; one good form of
 * each gets past it.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "run_gpuiso.h"

#define END NULL

/* Bad forms of a whole number (from 1: "0" is out of every count's range, not bad form). */
static const char *const count_bad[] = {
	"", " 2", "2 ", "\t2", "2\n", " ", "2 2", "+2", "-2", "-0", "2x", "x2", "2.0", "2.", "2e1",
	"0x", "0x 2", "1_0", "2,0", "99999999999999999999999", "18446744073709551616",
	"0x10000000000000000", END,
};

/* --fail-nth POINT:N */
static const char *const fail_nth_bad[] = {
	"iommu/map: 3", "iommu/map:+3", " iommu/map:3", "iommu/map :3", "iommu/map:3 ",
	"iommu/map:-1", "iommu/map:3x", "iommu/map:", "iommu/map:0", "iommu/map", ":3",
	"iommu/map:\t3", "iommu/map:99999999999999999999", "iommu/map:3.0", "iommu/map::3", END,
};

/* --shard I/N */
static const char *const shard_bad[] = {
	"0/ 2", " 0/2", "0 /2", "0/2 ", "0/\t2", "0/+2", "+0/2", "0/-2", "-0/2", "0/2x", "0x/2",
	"0//2", "0/2/3", "/2", "0/", "0", "", "1/1", "0/0", "0/100001", "0/99999999999999999999",
	"18446744073709551616/2", "0.0/2", "0/2.0", END,
};

/* P and PCT */
static const char *const decimal_bad[] = {
	"", " 0.05", "0.05 ", "\t0.05", "0.05\n", "0. 05", "0 .05", "+0.05", "-0", "-0.05", "5e-2",
	"5E-2", "0x0.1p0", "0x1", "nan", "inf", "infinity", ".05", "0.", ".", "0,05", "0.05x",
	"0.05%", "1_0", END,
};

/* --date */
static const char *const date_bad[] = {
	" 2026-11-01T00:00:00Z", "2026-1-01T00:00:00Z ", "2026-11-01T 0:00:00Z",
	"+2026-11-01T00:00:00Z", "2026-11-01T00:00:00 Z", "2026-11-01T00:00:00.Z", END,
};

struct numeric_option {
	const char *words[3]; /* the command, and what it checks before the option, if anything */
	const char *option, *good;
	const char *said;     /* the option's own message */
	const char *const *bad;
};

static const struct numeric_option options[] = {
	{ { "sweep" }, "--jobs", "2", "--jobs takes 1 to 256", count_bad },
	{ { "sweep" }, "--run-timeout", "5", "--run-timeout takes 1 to 86400", count_bad },
	{ { "sweep" }, "--stall-timeout", "5", "--stall-timeout takes 1 to 86400", count_bad },
	{ { "sweep" }, "--shard", "1/2", "--shard takes I/N", shard_bad },
	{ { "campaign", "run" }, "--jobs", "2", "--jobs takes 1 to 256", count_bad },
	{ { "campaign", "run" }, "--run-timeout", "5", "--run-timeout takes 1 to 86400", count_bad },
	{ { "campaign", "run" }, "--stall-timeout", "5", "--stall-timeout takes 1 to 86400",
	  count_bad },
	{ { "campaign", "run" }, "--shard", "0x1/0x2", "--shard takes I/N", shard_bad },
	{ { "merge" }, "--jobs", "2", "--jobs takes 1 to 256", count_bad },
	{ { "replay" }, "--seed", "0x10", "--seed takes a number", count_bad },
	{ { "replay" }, "--repeat", "2", "--repeat takes 1 to 1000", count_bad },
	/* read once the scenario is: after the trace folder is given */
	{ { "replay", "no/such/trace" }, "--fail-nth", "iommu/map:3", "--fail-nth takes POINT:N",
	  fail_nth_bad },
	{ { "trace", "gen" }, "--events", "10", "--events takes 1 to 1000000000", count_bad },
	{ { "trace", "gen" }, "--seed", "7", "--seed takes a number", count_bad },
	{ { "trace", "trim" }, "--fail-nth", "iommu/map:0x3", "--fail-nth takes POINT:N",
	  fail_nth_bad },
	{ { "trace", "trim" }, "--max-replays", "5", "--max-replays takes a number from 1",
	  count_bad },
	{ { "compare" }, "--threshold", "2.5", "bad --threshold", decimal_bad },
	{ { "compare" }, "--alpha", "0.05", "bad --alpha", decimal_bad },
	{ { "changes" }, "--threshold", "20", "bad --threshold", decimal_bad },
	{ { "changes" }, "--alpha", "0.01", "bad --alpha", decimal_bad },
	{ { "dash" }, "--threshold", "007.50", "bad --threshold", decimal_bad },
	{ { "dash" }, "--alpha", "0.5", "bad --alpha", decimal_bad },
	{ { "store", "add" }, "--date", "2026-11-01T00:00:00.125Z", "--date takes a UTC time",
	  date_bad },
};

/* gpuiso WORDS... OPTION VALUE, as one argument each. */
static void run_option(struct run *r, const struct numeric_option *o, const char *value)
{
	const char *args[6];
	size_t n = 0;

	for (size_t i = 0; i < 3 && o->words[i]; i++)
		args[n++] = o->words[i];
	args[n++] = o->option;
	args[n++] = value;
	args[n] = NULL;
	gpuiso(r, args);
}

Test(options, every_numeric_option_refuses_every_bad_form)
{
	static struct run r;
	char huge[400];
	size_t tried = 0;

	for (size_t k = 0; k < sizeof(options) / sizeof(options[0]); k++) {
		const struct numeric_option *o = &options[k];

		/* the good form gets past the option: what fails next is something else */
		run_option(&r, o, o->good);
		cr_assert_null(strstr(r.err, o->said), "%s %s '%s' was refused: %s", o->words[0],
			       o->option, o->good, r.err);
		for (const char *const *bad = o->bad; *bad; bad++, tried++) {
			run_option(&r, o, *bad);
			/* every one tried, each form taken said */
			cr_expect(r.status == 2 && strstr(r.err, o->said) &&
				  strstr(r.err, "usage: gpuiso"), "%s %s '%s' was taken (exit %d): %s",
				  o->words[0], o->option, *bad, r.status, r.err);
		}
	}
	/* a decimal too large for a double */
	memset(huge, '9', sizeof(huge) - 1);
	huge[sizeof(huge) - 1] = '\0';
	RUN(&r, "compare", "--threshold", huge);
	cr_assert(r.status == 2 && strstr(r.err, "bad --threshold"), "%s", r.err);
	cr_assert_gt(tried, 400);
}
