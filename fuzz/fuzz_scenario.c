/* SPDX-License-Identifier: MIT */
/* Scenario files: machine_load(), as `gpuiso scenario explain` and `replay --scenario` call it. */
#include "replay/machine.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct scenario scn;
	struct fuzz_file f;
	char err[4096];

	fuzz_file_write(&f, ".yaml", data, size);
	machine_load(f.path, NULL, &scn, err, sizeof(err));
	scenario_free(&scn);
	fuzz_file_remove(&f);
	return 0;
}
