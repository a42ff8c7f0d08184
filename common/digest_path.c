/* SPDX-License-Identifier: MIT */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "array.h"
#include "digest.h"
#include "digest_path.h"

/* Fold the digest of a file's content into @h. */
static int digest_file(const char *path, uint64_t *h)
{
	enum { CHUNK = 1 << 20 };
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	uint8_t *buf = malloc(CHUNK);
	struct digest d;
	ssize_t n = 0;

	if (fd < 0 || !buf) {
		n = fd < 0 ? -errno : -ENOMEM;
		goto close_file;
	}
	digest_init(&d);
	while ((n = read(fd, buf, CHUNK)) > 0)
		digest_update(&d, buf, (size_t)n);
	if (n < 0)
		n = -EIO;
	*h = digest_combine(*h, digest_final(&d));
close_file:
	free(buf);
	if (fd >= 0)
		close(fd);
	return (int)n;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* What the walk folds of a regular file, by its path and stat(): into @ctx. */
typedef int (*digest_file_fn)(const char *path, const struct stat *st, uint64_t *h, void *ctx);

/* digest_file_fn: its content. */
static int fold_content(const char *path, const struct stat *st, uint64_t *h, void *ctx)
{
	(void)st;
	(void)ctx;
	return digest_file(path, h);
}

/* digest_file_fn: its identity, the newest modification time in @ctx (a struct path_identity). */
static int fold_identity(const char *path, const struct stat *st, uint64_t *h, void *ctx)
{
	struct path_identity *id = ctx;

	(void)path;
	*h = DIGEST_FOLD(*h, st->st_dev, st->st_ino, st->st_size, st->st_mtim.tv_sec,
			 st->st_mtim.tv_nsec, st->st_ctim.tv_sec, st->st_ctim.tv_nsec);
	if (st->st_mtim.tv_sec > id->newest.tv_sec ||
	    (st->st_mtim.tv_sec == id->newest.tv_sec && st->st_mtim.tv_nsec > id->newest.tv_nsec))
		id->newest = st->st_mtim;
	return 0;
}

/* Every regular file below @dir, in name order, by relative name and @fn. */
static int digest_tree(const char *dir, const char *rel, uint64_t *h, digest_file_fn fn, void *ctx)
{
	char path[4096], sub[4096];
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *d;
	DIR *dp;
	int rc = 0;

	snprintf(path, sizeof(path), "%s%s%s", dir, *rel ? "/" : "", rel);
	dp = opendir(path);
	if (!dp)
		return -errno;
	while ((d = readdir(dp))) {
		if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
			continue;
		if (array_reserve(&names, &cap, n, sizeof(*names))) {
			rc = -ENOMEM;
			break;
		}
		names[n] = strdup(d->d_name);
		if (!names[n++]) {
			rc = -ENOMEM;
			break;
		}
	}
	closedir(dp);
	if (!rc)
		qsort(names, n, sizeof(*names), cmp_names);
	for (size_t i = 0; !rc && i < n; i++) {
		struct stat st;

		if (snprintf(sub, sizeof(sub), "%s%s%s", rel, *rel ? "/" : "", names[i]) >=
			    (int)sizeof(sub) ||
		    snprintf(path, sizeof(path), "%s/%s", dir, sub) >= (int)sizeof(path)) {
			rc = -ENAMETOOLONG;
			break;
		}
		if (stat(path, &st))
			continue;
		*h = digest_combine(*h, digest_bytes(sub, strlen(sub) + 1));
		if (S_ISDIR(st.st_mode))
			rc = digest_tree(dir, sub, h, fn, ctx);
		else if (S_ISREG(st.st_mode))
			rc = fn(path, &st, h, ctx);
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return rc;
}

/* A file by @fn, or a folder by its walk. */
static int digest_walk(const char *path, uint64_t *h, digest_file_fn fn, void *ctx)
{
	struct stat st;

	if (stat(path, &st))
		return -errno;
	if (S_ISDIR(st.st_mode))
		return digest_tree(path, "", h, fn, ctx);
	if (S_ISREG(st.st_mode))
		return fn(path, &st, h, ctx);
	return -EINVAL;
}

int digest_path(const char *path, uint64_t *h)
{
	return digest_walk(path, h, fold_content, NULL);
}

int digest_path_identity(const char *path, struct path_identity *id)
{
	return digest_walk(path, &id->digest, fold_identity, id);
}

int digest_path_hex(const char *path, char out[DIGEST_HEX_LEN])
{
	uint64_t h = 0;
	int rc = digest_path(path, &h);

	if (!rc)
		snprintf(out, DIGEST_HEX_LEN, "%016llx", (unsigned long long)h);
	return rc;
}
