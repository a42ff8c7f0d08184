/* SPDX-License-Identifier: MIT */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

#include "log.h"

/* Verbosity is the one process-wide setting: it changes no result. */
static enum log_level log_level = LOG_ERROR;

void log_set_level(enum log_level level)
{
	log_level = level;
}

bool log_enabled(enum log_level level)
{
	return level <= log_level;
}

void log_msg(enum log_level level, const char *prefix, const char *fmt, ...)
{
	va_list ap;

	if (!log_enabled(level))
		return;
	fprintf(stderr, "%s: ", prefix);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}
