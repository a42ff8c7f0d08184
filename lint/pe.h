/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_LINT_PE_H
#define GPUISO_LINT_PE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * A bounded reader of the imports of a PE32+ image (a 64-bit Windows driver,
 * .sys): the import directory and the delay-load import directory, as the
 * loader reads them (docs/lint-driver.md). Every offset and size in the file
 * is checked before it is used; an error names the file, the structure and
 * its file offset. Nothing else of the image is interpreted.
 */

/* The largest image read: a driver is a few MiB; more is not one. */
#define PE_MAX_BYTES (256u << 20)
/* The most imports an image may have: drivers have hundreds; descriptors may share tables. */
#define PE_MAX_IMPORTS 65536u
/* The most sections read: each RVA is looked up among them (linkers make a dozen). */
#define PE_MAX_SECTIONS 1024u
/* The longest DLL or function name read (the linker's decorated names are far shorter). */
#define PE_MAX_NAME 4096u

/* One imported function. Names point into the image's bytes. */
struct pe_import {
	const char *dll;   /* the module's name as the image spells it */
	const char *name;  /* the function's name; NULL when imported by ordinal */
	uint16_t ordinal;  /* by ordinal: the ordinal; by name: the hint */
	bool by_ordinal;
	bool delayed;      /* from the delay-load import directory */
};

/* Every import of an image, in the order of the directories (delay-load last). */
struct pe_imports {
	uint8_t *owned;        /* the file's bytes, when pe_imports_read() read them */
	struct pe_import *v;
	size_t n;
};

/**
 * pe_imports_parse() - list the imports of a PE32+ image held in memory.
 * @label: what messages call the image (its path).
 * @data: the image's bytes; the names returned point into them.
 * @size: how many.
 * @imp: out: the imports; pe_imports_free() them. After an error, empty.
 * @err: out: on error, one line "LABEL: where: what" (no newline).
 * @errlen: size of @err.
 *
 * A PE32 (32-bit) image is refused: a driver for a 64-bit system is PE32+.
 *
 * Return: 0; -EINVAL for what is not a PE image, a PE32 image, or a
 * malformed or truncated one (said in @err); -ENOMEM.
 */
int pe_imports_parse(const char *label, const uint8_t *data, size_t size, struct pe_imports *imp,
		     char *err, size_t errlen);

/**
 * pe_imports_read() - read a file and list its imports (pe_imports_parse()).
 * @path: the file.
 * @imp: out: the imports, which own the file's bytes; pe_imports_free() them.
 *       After an error, empty.
 * @err: out: on error, one line "PATH: what" (no newline).
 * @errlen: size of @err.
 *
 * Return: 0; -EINVAL as pe_imports_parse(), or a file larger than
 * PE_MAX_BYTES; the negative errno of opening or reading the file
 * (-ENOENT, -EISDIR, -EACCES, -EIO, ...); -ENOMEM.
 */
int pe_imports_read(const char *path, struct pe_imports *imp, char *err, size_t errlen);

/** pe_imports_free() - free what pe_imports_parse() or pe_imports_read() made. @imp: zeroed. */
void pe_imports_free(struct pe_imports *imp);

#endif
