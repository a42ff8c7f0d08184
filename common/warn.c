/* SPDX-License-Identifier: MIT */
#include <stdlib.h>

#include "config.h"
#include "log.h"
#include "warn.h"

void warn_stop(void)
{
#if GPUISO_WARN_ABORT
	abort(); /* a debug or sanitizer build: stop where it broke */
#endif
}

void warn_report(uint64_t *count, const char *file, int line, const char *cond)
{
	(*count)++;
	log_msg(LOG_ERROR, LOG_PREFIX, "INTERNAL ERROR (a bug of gpuiso): WARN_ON(%s) at %s:%d",
		cond, file, line);
	warn_stop();
}
