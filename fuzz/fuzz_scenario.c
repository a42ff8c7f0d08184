/* SPDX-License-Identifier: MIT */
/* Scenario files: scenario_load(), as `gpuiso scenario explain` and `replay --scenario` call it. */
#include "core/scenario.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct scenario scn;
	struct fuzz_file f;
	char err[4096];

	fuzz_file_write(&f, ".yaml", data, size);
	scenario_load(f.path, &scn, err, sizeof(err));
	scenario_free(&scn);
	fuzz_file_remove(&f);
	return 0;
}
