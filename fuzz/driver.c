/* SPDX-License-Identifier: MIT */
/*
 * Replays inputs through a fuzz target without libFuzzer: every file named
 * on the command line, and every file of every folder named (in name order;
 * names starting with '.' are skipped). What `make check` runs for each
 * target over its corpus and its past findings (docs/fuzzing.md).
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

/* One input: read whole, then through the target. Return: 0, or -errno. */
static int driver_one(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *data = NULL;
	size_t size = 0, cap = 0, n;

	if (!f)
		return -errno;
	do {
		if (size == cap) {
			uint8_t *more = realloc(data, cap = cap ? 2 * cap : 4096);

			if (!more) {
				free(data);
				fclose(f);
				return -ENOMEM;
			}
			data = more;
		}
		n = fread(data + size, 1, cap - size, f);
		size += n;
	} while (n);
	if (ferror(f)) {
		free(data);
		fclose(f);
		return -EIO;
	}
	fclose(f);
	LLVMFuzzerTestOneInput(data, size);
	free(data);
	return 0;
}

static int driver_select(const struct dirent *e)
{
	return e->d_name[0] != '.';
}

/* Every input of folder @dir; *@count counts them. Return: 0, or -errno. */
static int driver_dir(const char *dir, size_t *count)
{
	struct dirent **names;
	char path[4096];
	int n = scandir(dir, &names, driver_select, alphasort), rc = 0;

	if (n < 0)
		return -errno;
	for (int i = 0; i < n; i++) {
		if (!rc) {
			snprintf(path, sizeof(path), "%s/%s", dir, names[i]->d_name);
			rc = driver_one(path);
			if (rc)
				fprintf(stderr, "%s: %s\n", path, strerror(-rc));
			else
				(*count)++;
		}
		free(names[i]);
	}
	free(names);
	return rc;
}

int main(int argc, char **argv)
{
	size_t count = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: %s FILE|DIR...\n", argv[0]);
		return 2;
	}
	for (int i = 1; i < argc; i++) {
		struct stat st;
		int rc = stat(argv[i], &st) ? -errno
			 : S_ISDIR(st.st_mode) ? driver_dir(argv[i], &count)
					       : driver_one(argv[i]);

		if (rc) {
			fprintf(stderr, "%s: %s\n", argv[i], strerror(-rc));
			return 1;
		}
		if (!S_ISDIR(st.st_mode))
			count++;
	}
	printf("%zu inputs replayed\n", count);
	return 0;
}
