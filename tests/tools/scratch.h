/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_TESTS_TOOLS_SCRATCH_H
#define GPUISO_TESTS_TOOLS_SCRATCH_H

/*
 * A scratch folder for the test that runs (Criterion runs each test in a
 * process of its own): /tmp/gpuiso-cli-XXXXXX, made at the first tpath().
 */

/* @name in the scratch folder; each call answers in the next of 8 buffers. */
const char *tpath(const char *name);

/* A suite's .fini: removes the scratch folder if a test made one. */
void scratch_cleanup(void);

#endif
