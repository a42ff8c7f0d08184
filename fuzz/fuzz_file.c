/* SPDX-License-Identifier: MIT */
/* A fuzz input as a file (fuzz/fuzz.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"

void fuzz_file_write(struct fuzz_file *f, const char *suffix, const uint8_t *data, size_t size)
{
	const char *tmp = getenv("TMPDIR");
	int fd;

	if (snprintf(f->path, sizeof(f->path), "%s/gpuiso-fuzz-XXXXXX%s", tmp && *tmp ? tmp : "/tmp",
		     suffix) >= (int)sizeof(f->path)) {
		fprintf(stderr, "fuzz: $TMPDIR is too long a path\n");
		abort();
	}
	fd = mkstemps(f->path, (int)strlen(suffix));
	if (fd < 0) {
		perror("fuzz: mkstemps");
		abort();
	}
	for (size_t done = 0; done < size;) {
		ssize_t n = write(fd, data + done, size - done);

		if (n <= 0) {
			perror("fuzz: writing the input file");
			abort();
		}
		done += (size_t)n;
	}
	close(fd);
}

void fuzz_file_remove(struct fuzz_file *f)
{
	unlink(f->path);
}
