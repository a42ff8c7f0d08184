/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_COMMON_DIGEST_PATH_H
#define GPUISO_COMMON_DIGEST_PATH_H

#include <stdint.h>
#include <time.h>

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

/*
 * The identity of what a path names: where its files are and when they
 * last changed, not what they hold. Two paths of the same identity name
 * the same files, unchanged since (as far as their times tell: a file
 * rewritten in place to the same size within one tick of the clock that
 * stamps its times keeps them); reading it costs a stat() a file.
 */
struct path_identity {
	uint64_t digest;        /* in and out: the running value (digest_combine()) */
	struct timespec newest; /* in and out: the latest modification time of a file seen */
};

/**
 * digest_path_identity() - fold the identity of @path's files into @id:
 * of each regular file its device, inode, size, and modification and change
 * times to the nanosecond; of a folder, those of every regular file below it
 * with its relative name, in name order, as digest_path() walks it.
 * @path: a regular file or a folder.
 * @id: in and out: the running identity (start from zeros, or a seed).
 *
 * Return: as digest_path(), without the errors of reading a file.
 */
int digest_path_identity(const char *path, struct path_identity *id);

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
