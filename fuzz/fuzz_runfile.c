/* SPDX-License-Identifier: MIT */
/*
 * Run files: runfile_read(), as `gpuiso store add` and `compare` call it,
 * then runfile_parse() of the text a store keeps of a run it took, as
 * reading the store back does.
 */
#include "bench/runfile.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct run_record rec, again;
	struct fuzz_file f;
	char err[4096];

	fuzz_file_write(&f, ".json", data, size);
	if (!runfile_read(f.path, &rec, err, sizeof(err))) {
		if (!runfile_parse("stored run", rec.json, &again, err, sizeof(err)))
			runfile_free(&again);
		runfile_free(&rec);
	}
	fuzz_file_remove(&f);
	return 0;
}
