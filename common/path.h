/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_COMMON_PATH_H
#define GPUISO_COMMON_PATH_H

#include <stdint.h>

/**
 * path_mkdir_p() - make a folder and every missing folder above it, as
 * "mkdir -p" does (mode 0755 before the umask); folders that exist are fine.
 * @dir: the folder.
 *
 * Return: 0; -ENAMETOOLONG; an errno of mkdir() other than EEXIST.
 */
int path_mkdir_p(const char *dir);

/**
 * path_mkdir_parent() - path_mkdir_p() of the folder that holds @path (nothing
 * when @path names no folder: "name" or "/name").
 * @path: a file's path.
 *
 * Return: as path_mkdir_p().
 */
int path_mkdir_parent(const char *path);

/**
 * path_remove_tree() - remove a folder and everything below it, as "rm -r"
 * does, without following symbolic links; a missing one is fine.
 * @dir: the folder.
 *
 * Return: 0, or the negative errno of the first removal that failed.
 */
int path_remove_tree(const char *dir);

/**
 * path_bytes() - add the size of a file, or of every regular file below a
 * folder (symbolic links not followed), to *@bytes.
 * @path: a file or a folder.
 * @bytes: in and out: the running total.
 *
 * Return: 0, or the negative errno of the first stat() or opendir() that failed.
 */
int path_bytes(const char *path, uint64_t *bytes);

#endif
