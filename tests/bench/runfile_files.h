/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_TESTS_RUNFILE_FILES_H
#define GPUISO_TESTS_RUNFILE_FILES_H

/*
 * The files of the run file tests (test_runfile*.c), each test's in a fresh
 * mkdtemp() directory made and removed by its suite
 * (TestSuite(NAME, .init = setup, .fini = teardown)).
 */

/** setup() - make the test's directory. */
void setup(void);

/** teardown() - remove the test's directory and all in it. */
void teardown(void);

/**
 * file_with() - a file of the test's directory holding @text.
 * @name: the file's name.
 * @text: its content.
 *
 * Return: its path, valid until the next call.
 */
const char *file_with(const char *name, const char *text);

#endif
