/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_COMMON_DIGEST_PATH_H
#define GPUISO_COMMON_DIGEST_PATH_H

#include <stdint.h>

/*
 * The content digest (common/digest.h) of what a path names: a file's bytes,
 * or every regular file below a folder by relative name and content, in name
 * order. It tells whether an input changed (the replay cache's key, the
 * inputs a run file records); like the digest, it is not cryptographic.
 */

/**
 * digest_path() - fold the digest of @path's content into @h.
 * @path: a regular file or a folder.
 * @h: in and out: the running value (digest_combine()).
 *
 * Return: 0; -ENOENT and other errnos of open() and opendir(), -EIO,
 * -ENOMEM, -ENAMETOOLONG, -EINVAL (neither a file nor a folder).
 */
int digest_path(const char *path, uint64_t *h);

/* A digest as run files record it: 16 hex digits and a NUL. */
#define DIGEST_HEX_LEN 17

/**
 * digest_path_hex() - the digest of @path's content (from 0), in hex.
 * @path: a regular file or a folder.
 * @out: out: 16 hex digits.
 *
 * Return: as digest_path().
 */
int digest_path_hex(const char *path, char out[DIGEST_HEX_LEN]);

#endif
