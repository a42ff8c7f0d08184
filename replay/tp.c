/* SPDX-License-Identifier: MIT */
/*
 * The probes of both tracepoint providers (gpuiso_wl and gpuiso), and the
 * tracepoint definitions with their registration constructor. Built only
 * when LTTng-UST is found (replay/meson.build). replay/trace.c references
 * the tracepoints, which pulls this object out of libreplay.a.
 */
#define LTTNG_UST_COMPAT_API_VERSION 1
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#define LTTNG_UST_TRACEPOINT_DEFINE

#include "replay/tp.h"
