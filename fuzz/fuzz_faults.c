/* SPDX-License-Identifier: MIT */
/* Faults files: fault_plan_load(), as `gpuiso replay --faults` calls it. */
#include "faults/plan.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fault_plan plan;
	struct fp_ctx ctx;
	struct fuzz_file f;
	char err[4096];

	fuzz_file_write(&f, ".yaml", data, size);
	/* a plan that loads is armed next, as a replay does */
	if (!fault_plan_load(f.path, &plan, err, sizeof(err)))
		fault_plan_arm(&plan, &ctx);
	fault_plan_free(&plan);
	fuzz_file_remove(&f);
	return 0;
}
