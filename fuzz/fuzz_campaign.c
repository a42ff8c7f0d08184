/* SPDX-License-Identifier: MIT */
/*
 * Campaign files: campaign_check(), the reading and checking that
 * `gpuiso campaign run` does before it runs anything. Relative trace and
 * scenario paths are tried from the current folder first: run from the
 * source tree, the corpus names its traces and scenarios.
 */
#include "faults/campaign/campaign.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_file f;
	char err[8192];

	fuzz_file_write(&f, ".yaml", data, size);
	campaign_check(f.path, err, sizeof(err));
	fuzz_file_remove(&f);
	return 0;
}
