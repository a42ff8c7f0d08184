/* SPDX-License-Identifier: MIT */
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>

#include "path.h"

/* mkdir -p of the first @len bytes of @path. */
static int mkdir_prefix(const char *path, size_t len)
{
	char buf[PATH_MAX];
	struct stat st;

	if (!len)
		return -ENOENT; /* as mkdir("") */
	if (len >= sizeof(buf))
		return -ENAMETOOLONG;
	memcpy(buf, path, len);
	buf[len] = '\0';
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0755) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(buf, 0755) && errno != EEXIST)
		return -errno;
	/* what exists there must be a folder (mkdir's EEXIST says only that something does) */
	if (stat(buf, &st))
		return -errno;
	return S_ISDIR(st.st_mode) ? 0 : -ENOTDIR;
}

int path_mkdir_p(const char *dir)
{
	return mkdir_prefix(dir, strlen(dir));
}

int path_mkdir_parent(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash && slash != path ? mkdir_prefix(path, (size_t)(slash - path)) : 0;
}

/* nftw() callback: remove each entry once what it holds is gone (FTW_DEPTH). */
static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (remove(path) && errno != ENOENT)
		return errno; /* positive: nftw() returns it, and -1 is its own failure */
	return type == FTW_NS || type == FTW_DNR ? EACCES : 0;
}

int path_remove_tree(const char *dir)
{
	int rc = nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);

	if (rc < 0)
		return errno == ENOENT ? 0 : -errno;
	return -rc;
}

int path_bytes(const char *path, uint64_t *bytes)
{
	char child[PATH_MAX];
	struct dirent *d;
	struct stat st;
	int rc = 0;
	DIR *dp;

	if (lstat(path, &st))
		return -errno;
	if (S_ISREG(st.st_mode))
		*bytes += (uint64_t)st.st_size;
	if (!S_ISDIR(st.st_mode))
		return 0;
	dp = opendir(path);
	if (!dp)
		return -errno;
	while (!rc && (d = readdir(dp))) {
		if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
			continue;
		if ((size_t)snprintf(child, sizeof(child), "%s/%s", path, d->d_name) >= sizeof(child))
			rc = -ENAMETOOLONG;
		else
			rc = path_bytes(child, bytes);
	}
	closedir(dp);
	return rc;
}
