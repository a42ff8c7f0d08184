/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_TESTS_TRACES_REAL_H
#define GPUISO_TESTS_TRACES_REAL_H

/*
 * The real traces recorded elsewhere (shared/traces-real, see its README),
 * which are not in this repository: ../shared/traces-real beside the source
 * tree ($GPUISO_SOURCE_ROOT), or the folder $GPUISO_TRACES_REAL names.
 */

/**
 * traces_real() - the path of @name in the folder of the real traces, or
 * the folder itself; skips the calling test, saying which folder is
 * missing, when that folder is not there.
 * @name: e.g. "tc-kernel-rpm-kmem", or NULL for the folder.
 *
 * Return: an absolute path (when $GPUISO_SOURCE_ROOT or $GPUISO_TRACES_REAL
 * is), in a buffer of its own that the next call overwrites.
 */
const char *traces_real(const char *name);

#endif
