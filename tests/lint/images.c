/* SPDX-License-Identifier: MIT */
/* The mingw-w64 driver images of the lint tests (images.h). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "images.h"

const char *const image_forbidden[7] = {
	"MmAllocateContiguousMemory", "MmAllocateContiguousMemorySpecifyCache",
	"MmFreeContiguousMemory", "MmAllocatePagesForMdl", "MmAllocatePagesForMdlEx",
	"MmFreePagesFromMdl", "MmProbeAndLockPages",
};

void image_path(char *out, size_t len, const char *name)
{
	const char *dir = getenv("GPUISO_TEST_DRIVERS");

	cr_assert(dir && *dir, "GPUISO_TEST_DRIVERS must name the folder of the built images");
	cr_assert_lt((size_t)snprintf(out, len, "%s/%s", dir, name), len);
}

void image_load(const char *name, uint8_t **buf, size_t *len)
{
	char path[4096];
	FILE *f;
	long size;

	image_path(path, sizeof(path), name);
	f = fopen(path, "rb");
	cr_assert(f, "%s: cannot open", path);
	cr_assert_eq(fseek(f, 0, SEEK_END), 0);
	size = ftell(f);
	cr_assert_gt(size, 0);
	rewind(f);
	*buf = malloc((size_t)size);
	cr_assert(*buf);
	cr_assert_eq(fread(*buf, 1, (size_t)size, f), (size_t)size);
	fclose(f);
	*len = (size_t)size;
}

void image_write(char *path, const uint8_t *buf, size_t len)
{
	int fd;

	strcpy(path, "/tmp/gpuiso-lint-XXXXXX.sys");
	fd = mkstemps(path, 4);
	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, buf, len), (ssize_t)len);
	close(fd);
}

uint32_t image_get32(const uint8_t *buf, size_t off)
{
	return (uint32_t)buf[off] | (uint32_t)buf[off + 1] << 8 | (uint32_t)buf[off + 2] << 16 |
	       (uint32_t)buf[off + 3] << 24;
}

void image_put32(uint8_t *buf, size_t off, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		buf[off + i] = (uint8_t)(v >> 8 * i);
}

size_t image_lfanew(const uint8_t *buf)
{
	return image_get32(buf, 0x3c);
}

size_t image_opt(const uint8_t *buf)
{
	return image_lfanew(buf) + 4 + 20;
}

size_t image_section_table(const uint8_t *buf, unsigned int *n)
{
	size_t coff = image_lfanew(buf) + 4;

	*n = buf[coff + 2] | buf[coff + 3] << 8;
	return image_opt(buf) + (buf[coff + 16] | buf[coff + 17] << 8);
}

size_t image_section(const uint8_t *buf, const char *name)
{
	unsigned int n;
	size_t t = image_section_table(buf, &n);

	for (unsigned int i = 0; i < n; i++, t += 40)
		if (!strncmp((const char *)buf + t, name, 8))
			return t;
	cr_assert_fail("no section %s", name);
	return 0;
}

size_t image_rva(const uint8_t *buf, uint32_t rva)
{
	unsigned int n;
	size_t t = image_section_table(buf, &n);

	for (unsigned int i = 0; i < n; i++, t += 40) {
		uint32_t va = image_get32(buf, t + 12), size = image_get32(buf, t + 16);

		if (rva >= va && rva - va < size)
			return image_get32(buf, t + 20) + (rva - va);
	}
	cr_assert_fail("RVA 0x%x in no section", rva);
	return 0;
}

size_t image_dir(const uint8_t *buf, unsigned int dir)
{
	return image_opt(buf) + 112 + 8 * dir;
}
