/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_COMMON_HOST_H
#define GPUISO_COMMON_HOST_H

#include <stddef.h>

/**
 * host_name() - this machine's name, as run files record it.
 * @buf: where to put it.
 * @len: its size (> 1).
 *
 * Return: @buf: the name (cut to fit), or "unknown".
 */
char *host_name(char *buf, size_t len);

#endif
