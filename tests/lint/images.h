/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_TESTS_LINT_IMAGES_H
#define GPUISO_TESTS_LINT_IMAGES_H

#include <stddef.h>
#include <stdint.h>

/*
 * The driver images the build makes with mingw-w64 (tests/lint/meson.build),
 * in $GPUISO_TEST_DRIVERS, and what the tests need to cut and patch copies
 * of them: where the PE headers, the section table and a data directory's
 * target are. These trust the image (the build made it); the reader under
 * test does not.
 */

/* The seven functions, in the seed's order (an image <name>.sys calls each). */
extern const char *const image_forbidden[7];

/** image_path() - the path of image @name ("clean.sys") into @out (@len bytes). */
void image_path(char *out, size_t len, const char *name);

/** image_load() - read image @name whole into *@buf (free it), *@len bytes; asserts. */
void image_load(const char *name, uint8_t **buf, size_t *len);

/** image_write() - write @len bytes of @buf to a new temporary file; its path into @path (64 bytes). */
void image_write(char *path, const uint8_t *buf, size_t len);

/** image_get32() - the little-endian 32-bit field at file offset @off of @buf. */
uint32_t image_get32(const uint8_t *buf, size_t off);
/** image_put32() - write @v as the little-endian 32-bit field at file offset @off of @buf. */
void image_put32(uint8_t *buf, size_t off, uint32_t v);

/** image_lfanew() - the file offset of the PE signature. */
size_t image_lfanew(const uint8_t *buf);
/** image_opt() - the file offset of the optional header. */
size_t image_opt(const uint8_t *buf);
/** image_section_table() - the file offset of the section table; *@n its sections. */
size_t image_section_table(const uint8_t *buf, unsigned int *n);
/** image_section() - the file offset of section @name's header (asserts it exists). */
size_t image_section(const uint8_t *buf, const char *name);
/** image_rva() - the file offset of @rva (asserts it is in a section). */
size_t image_rva(const uint8_t *buf, uint32_t rva);
/** image_dir() - the file offset of data directory @dir's entry (its RVA, then its size). */
size_t image_dir(const uint8_t *buf, unsigned int dir);

#endif
