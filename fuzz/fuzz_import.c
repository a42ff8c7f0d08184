/* SPDX-License-Identifier: MIT */
/* Import maps: import_map_load(), as `gpuiso replay --map` calls it. */
#include "fuzz.h"
#include "replay/import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct import_map *m = NULL;
	struct fuzz_file f;
	const char *paths[1];
	char err[4096];

	fuzz_file_write(&f, ".yaml", data, size);
	paths[0] = f.path;
	if (!import_map_load(paths, 1, &m, err, sizeof(err)))
		import_map_free(m);
	fuzz_file_remove(&f);
	return 0;
}
