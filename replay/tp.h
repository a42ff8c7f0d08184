/* SPDX-License-Identifier: MIT */
/*
 * The LTTng-UST tracepoint providers of gpuiso. LTTng-UST wants one provider
 * per header (the header is re-read with LTTNG_UST_TRACEPOINT_PROVIDER set to
 * its provider), so the two live in their own headers and this one includes
 * both:
 *
 *   replay/tp_wl.h       provider gpuiso_wl: the workload events (the catalogue)
 *   replay/tp_harness.h  provider gpuiso:    the harness's own events
 *
 * replay/tp.c includes this with LTTNG_UST_TRACEPOINT_CREATE_PROBES and
 * LTTNG_UST_TRACEPOINT_DEFINE to build both probes; replay/trace.c includes
 * it plainly to call them. Everything else uses replay/trace.h.
 */
#ifndef LTTNG_UST_COMPAT_API_VERSION
#define LTTNG_UST_COMPAT_API_VERSION 1
#endif

/*
 * The probes (tp.c) and every caller (trace.c) end up in the same module (the
 * executable that links libreplay.a): hidden symbols make the enabled test a
 * direct load instead of one through the GOT.
 */
#define LTTNG_UST_TRACEPOINT_HIDDEN_DEFINITION
#define LTTNG_UST_TRACEPOINT_PROVIDER_HIDDEN_DEFINITION

#include "replay/tp_wl.h"
#include "replay/tp_harness.h"
