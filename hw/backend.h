/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_HW_BACKEND_H
#define GPUISO_HW_BACKEND_H

#include <stddef.h>

#include "hw/iommu.h"
#include "hw/physmem.h"

/*
 * Backend names, as --backend and the scenario's backend key spell them
 * (docs/backends.md): "sim", or "vfio:BDF" with options after commas:
 * "iommu=type1" or "iommu=iommufd" to choose the kernel interface, and
 * "journal=PATH" for a line per IOMMU call the backend makes.
 */

enum hw_backend_kind {
	HW_BACKEND_SIM,
	HW_BACKEND_VFIO,
};

/* Which kernel interface holds a VFIO device's mappings. */
enum hw_iommu_api {
	HW_IOMMU_AUTO = 0, /* iommufd if the kernel offers it for the device, else type1 */
	HW_IOMMU_TYPE1,    /* a type1 container through the device's IOMMU group */
	HW_IOMMU_IOMMUFD,  /* an iommufd IOAS and the device's character device */
};

struct hw_backend_name {
	enum hw_backend_kind kind;
	char bdf[32];            /* HW_BACKEND_VFIO: the PCI address */
	enum hw_iommu_api iommu; /* HW_BACKEND_VFIO: the interface asked for */
	char journal[512];       /* HW_BACKEND_VFIO: where its IOMMU calls are said ("": nowhere) */
};

/**
 * hw_backend_parse() - read a backend name.
 * @name: e.g. "sim", "vfio:0000:00:03.0", "vfio:0000:00:03.0,iommu=iommufd",
 *        "vfio:0000:00:03.0,iommu=type1,journal=/sys/kernel/tracing/trace_marker".
 * @out: out: what it names.
 * @err: out: why not, listing the names there are.
 * @errlen: size of @err.
 *
 * Return: 0, or -EINVAL if @name names no backend.
 */
int hw_backend_parse(const char *name, struct hw_backend_name *out, char *err, size_t errlen);

/*
 * The most GPUs a machine has, and the most VRAM one has: 4 PiB. Each
 * backend takes any machine within them (the simulator's own limits are
 * no lower).
 */
#define HW_MACHINE_MAX_GPUS 64
#define HW_MACHINE_MAX_VRAM ((uint64_t)1 << 52)

/* The machine a backend is made for: what a scenario describes of it. */
struct hw_machine {
	struct physmem_config memory; /* system memory: RAM ranges and limits */
	unsigned int ngpus;           /* one per physical adapter */
	const uint64_t *vram;         /* [ngpus]: bytes of VRAM of each */
};

/*
 * A backend's own settings, as a scenario wrote them (its iommu: and
 * cost_model: sections, docs/scenario-format.md): to everyone but the
 * backend they are text with a place in a file. The backend reads them when
 * it is checked or made (hw_backend_check(), hw_backend_open()): the
 * simulator takes its IOMMU model and cycle costs from them, VFIO none (its
 * IOMMU is the machine's).
 */
struct hw_setting {
	char *key;              /* "iommu.model", "cost_model.pte_write" */
	char *value;            /* the scalar as written */
	int key_line, key_col;  /* where the key is, from 1 */
	int line, col;          /* where the value is */
};

struct hw_settings {
	char *file;             /* where they were written, for messages; or NULL */
	struct hw_setting *v;
	size_t n;
};

/**
 * hw_settings_add() - append a setting.
 * @s: the settings (zeroed when empty).
 * @key: its dotted name; copied.
 * @value: its text; copied.
 * @key_line: the key's line. @key_col: its column.
 * @line: the value's line. @col: its column.
 *
 * Return: 0, or -ENOMEM (@s unchanged).
 */
int hw_settings_add(struct hw_settings *s, const char *key, const char *value, int key_line,
		    int key_col, int line, int col);

/** hw_settings_free() - free what hw_settings_add() made. @s: the settings; zeroed. */
void hw_settings_free(struct hw_settings *s);

/**
 * hw_setting_error() - append a line "FILE:LINE:COL: error: MSG" about @st
 * to @err, as a scenario's other errors read.
 * @s: the settings @st is one of.
 * @st: the setting.
 * @at_key: point at its key (else at its value).
 * @err: the message so far (NUL terminated).
 * @errlen: size of @err.
 * @fmt: printf format of MSG.
 *
 * Return: -EINVAL, for the caller to return.
 */
int hw_setting_error(const struct hw_settings *s, const struct hw_setting *st, bool at_key,
		     char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));

/* An open backend: the IOMMU and devices, and the system memory they reach. */
struct hw_backend {
	struct hw *hw;
	struct physmem pm;
};

/**
 * hw_backend_check() - whether the backend @name says takes @settings,
 * without making it.
 * @name: from hw_backend_parse().
 * @settings: its settings.
 * @err: out: why not: a line per setting it refuses, naming where it is.
 * @errlen: size of @err.
 *
 * Return: 0, or -EINVAL.
 */
int hw_backend_check(const struct hw_backend_name *name, const struct hw_settings *settings,
		     char *err, size_t errlen);

/**
 * hw_backend_open() - the one factory of backends: make the one @name says
 * for machine @m. The simulator builds every GPU; VFIO opens its one device
 * (a machine of one GPU) and gives it the machine's memory.
 * @name: from hw_backend_parse().
 * @m: the machine; copied.
 * @settings: the backend's own settings (hw_backend_check() says what is wrong).
 * @b: out: the backend; hw_backend_close() it.
 * @err: out: why not (a VFIO device that cannot be opened says what failed).
 * @errlen: size of @err.
 *
 * Return: 0, -EINVAL (a setting refused; the machine does not fit the
 * backend), -ENOMEM, or what vfio_create() says.
 */
int hw_backend_open(const struct hw_backend_name *name, const struct hw_machine *m,
		    const struct hw_settings *settings, struct hw_backend *b, char *err,
		    size_t errlen);

/** hw_backend_close() - destroy an open backend and its memory. @b: opened, or zeroed. */
void hw_backend_close(struct hw_backend *b);

#endif
