/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LOG_PREFIX "verifier"
#include "common/log.h"
#include "common/array.h"
#include "common/warn.h"
#include "internal.h"

static const char *const violation_names[CORE_V_NVIOLATIONS] = {
	[CORE_V_CB_IRQL] = "CB_IRQL",
	[CORE_V_CB_IN_EXCLUSIVE] = "CB_IN_EXCLUSIVE",
	[CORE_V_DMA_IN_EXCLUSIVE] = "DMA_IN_EXCLUSIVE",
	[CORE_V_WORK_IN_EXCLUSIVE] = "WORK_IN_EXCLUSIVE",
	[CORE_V_UNMAP_AFTER_FREE] = "UNMAP_AFTER_FREE",
	[CORE_V_DEPRECATED_CB] = "DEPRECATED_CALLBACK",
	[CORE_V_BAD_HANDLE] = "BAD_HANDLE",
	[CORE_V_HANDLE_LEAK] = "HANDLE_LEAK",
	[CORE_V_MAPPING_LEAK] = "MAPPING_LEAK",
	[CORE_V_FB_NOT_LEAD] = "FB_NOT_LEAD",
	[CORE_V_FB_RESTORE_MISMATCH] = "FB_RESTORE_MISMATCH",
	[CORE_V_FB_SEQUENCE] = "FB_SEQUENCE",
	[CORE_V_PMO_BUSY] = "PMO_BUSY",
	[CORE_V_STALE_TRANSLATION] = "STALE_TRANSLATION",
	[CORE_V_CPU_ACCESS] = "CPU_ACCESS",
	[CORE_V_CB_VERSION] = "CB_VERSION",
	[CORE_V_FB_SAVE_SIZE] = "FB_SAVE_SIZE",
};

const char *core_violation_name(enum core_violation_code code)
{
	return (unsigned int)code < CORE_V_NVIOLATIONS ? violation_names[code] : "UNKNOWN";
}

enum core_party core_violation_party(enum core_violation_code code)
{
	switch (code) {
	case CORE_V_MAPPING_LEAK:         /* Dxgkrnl maps and unmaps, the driver only asks */
	case CORE_V_STALE_TRANSLATION:    /* ... and flushes the IOTLB */
	case CORE_V_FB_RESTORE_MISMATCH:  /* ... and saves and restores the frame buffer */
		return CORE_PARTY_OS;
	default:
		return CORE_PARTY_DRIVER;
	}
}

int vec_push(struct vec *v, const void *elem)
{
	if (array_reserve(&v->data, &v->cap, v->n, v->elem))
		return -ENOMEM;
	memcpy((char *)v->data + v->n * v->elem, elem, v->elem);
	v->n++;
	return 0;
}

void vec_free(struct vec *v)
{
	free(v->data);
	v->data = NULL;
	v->n = v->cap = 0;
}

static void vviol(struct core *c, enum core_violation_code code, core_handle_t h, const char *fmt,
		  va_list ap) __attribute__((format(printf, 4, 0)));

static void vviol(struct core *c, enum core_violation_code code, core_handle_t h, const char *fmt,
		  va_list ap)
{
	struct core_violation v = { .code = code, .event = c->event, .ts_ns = c->ts_ns, .handle = h,
				    .at_teardown = c->stopped };

	if (c->bugchecked) /* the machine stopped: nothing after it is observed */
		return;
	vsnprintf(v.detail, sizeof(v.detail), fmt, ap);
	log_info("event %llu: %s: %s", (unsigned long long)v.event, core_violation_name(code),
		 v.detail);
	/* Losing a violation to ENOMEM would hide it: say so at least. */
	if (vec_push(&c->violations, &v))
		log_err("out of memory recording %s: %s", core_violation_name(code), v.detail);
}

void viol(struct core *c, enum core_violation_code code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vviol(c, code, 0, fmt, ap);
	va_end(ap);
}

void viol_handle(struct core *c, enum core_violation_code code, core_handle_t h, const char *fmt,
		 ...)
{
	va_list ap;

	va_start(ap, fmt);
	vviol(c, code, h, fmt, ap);
	va_end(ap);
}

/* A finding about an adapter that does not stop it: scenario explain's notes. */
void adapter_error(struct adapter *a, const char *fmt, ...)
{
	va_list ap;

	if (a->nerrors == CORE_MAX_ERRORS)
		return;
	va_start(ap, fmt);
	vsnprintf(a->errors[a->nerrors++], sizeof(a->errors[0]), fmt, ap);
	va_end(ap);
}

void internal_error(struct core *c, const char *fmt, ...)
{
	char detail[sizeof(c->first_internal.detail)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(detail, sizeof(detail), fmt, ap);
	va_end(ap);
	log_err("INTERNAL ERROR (a bug of gpuiso) at event %llu (%llu ns): %s",
		(unsigned long long)c->event, (unsigned long long)c->ts_ns, detail);
	if (!c->internal_errors++) {
		c->first_internal = (struct core_violation){ .event = c->event, .ts_ns = c->ts_ns };
		memcpy(c->first_internal.detail, detail, sizeof(detail));
	}
}

void internal_warn(struct core *c, const char *file, int line, const char *cond)
{
	internal_error(c, "WARN_ON(%s) at %s:%d: a precondition of the model is broken", cond, file,
		       line);
	warn_stop(); /* a debug or sanitizer build: stop where it broke (common/warn.h) */
}

const struct core_violation *core_violations(const struct core *core, size_t *n)
{
	*n = core->violations.n;
	return core->violations.data;
}

const struct core_fault *core_faults(const struct core *core, size_t *n)
{
	*n = core->faults.n;
	return core->faults.data;
}

const struct core_power_record *core_power_records(const struct core *core, size_t *n)
{
	*n = core->power.n;
	return core->power.data;
}
