/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "host.h"

char *host_name(char *buf, size_t len)
{
	memset(buf, 0, len);
	/* a name that does not fit is cut, and not always terminated: the last byte stays 0 */
	if (gethostname(buf, len - 1) || !buf[0])
		snprintf(buf, len, "unknown");
	return buf;
}
