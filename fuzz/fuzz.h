/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_FUZZ_FUZZ_H
#define GPUISO_FUZZ_FUZZ_H

#include <stddef.h>
#include <stdint.h>

/*
 * Fuzz targets (docs/fuzzing.md): each fuzz_<loader>.c defines
 * LLVMFuzzerTestOneInput(), which hands one input to the loader the command
 * calls on a user's file. The same source links with libFuzzer (make fuzz)
 * or with driver.c, which replays the corpus and past findings as a test.
 */

/**
 * LLVMFuzzerTestOneInput() - run one input through the target's loader.
 * @data: the input.
 * @size: its length.
 *
 * Return: 0 (libFuzzer keeps an input for the coverage it adds; a crash, a
 * sanitizer report, a leak or a hang is the finding).
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A fuzz input as a file, for loaders that read a path as the command gives them. */
struct fuzz_file {
	char path[4096];
};

/**
 * fuzz_file_write() - write @data to a new file and name it in @f.
 * @f: out: the file.
 * @suffix: the file name's ending (".yaml", ".json", ".wlc"): loaders
 *          choose how to read a file by its name, as they do a user's.
 * @data: the bytes.
 * @size: how many.
 *
 * The file is made under $TMPDIR (or /tmp). One that cannot be written ends
 * the process: that is the harness failing, not the target.
 */
void fuzz_file_write(struct fuzz_file *f, const char *suffix, const uint8_t *data, size_t size);

/** fuzz_file_remove() - remove the file fuzz_file_write() made. @f: the file. */
void fuzz_file_remove(struct fuzz_file *f);

#endif
