/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_COMMON_ATOMIC_FILE_H
#define GPUISO_COMMON_ATOMIC_FILE_H

#include <limits.h>
#include <stddef.h>
#include <stdio.h>

/*
 * A file replaced at once: written to PATH.PID.tmp, then renamed over PATH,
 * so a reader sees the old file or the new one, never half of one. The PID
 * keeps two processes writing one path from sharing a temporary; on any
 * error the temporary is removed and PATH is left as it was.
 */

struct atomic_file {
	FILE *f;                  /* write the content here */
	char path[PATH_MAX];
	char tmp[PATH_MAX + 24];  /* path.PID.tmp */
};

/**
 * atomic_file_open() - start replacing @path.
 * @a: the state; @a->f is open for writing (binary) on success.
 * @path: the file to replace (its folder must exist).
 *
 * Return: 0; -ENAMETOOLONG; an errno of fopen().
 */
int atomic_file_open(struct atomic_file *a, const char *path);

/**
 * atomic_file_commit() - write out and close @a->f, then rename the
 * temporary over the path; on any error, remove the temporary instead.
 * @a: an open state (closed afterwards, whatever the result).
 *
 * Return: 0; -EIO for an earlier write error on @a->f; an errno of
 * fflush(), fclose() (-ENOSPC) or rename().
 */
int atomic_file_commit(struct atomic_file *a);

/**
 * atomic_file_abort() - close @a->f and remove the temporary: the path is
 * left as it was.
 * @a: an open state, or one whose @a->f is NULL (then nothing is done).
 */
void atomic_file_abort(struct atomic_file *a);

/**
 * atomic_file_write() - replace @path with @len bytes, in one call.
 * @path: the file.
 * @buf: the bytes.
 * @len: how many.
 *
 * Return: as atomic_file_open() and atomic_file_commit().
 */
int atomic_file_write(const char *path, const void *buf, size_t len);

#endif
