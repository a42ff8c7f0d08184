/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include "atomic_file.h"

int atomic_file_open(struct atomic_file *a, const char *path)
{
	a->f = NULL;
	if (snprintf(a->path, sizeof(a->path), "%s", path) >= (int)sizeof(a->path))
		return -ENAMETOOLONG;
	snprintf(a->tmp, sizeof(a->tmp), "%s.%d.tmp", path, (int)getpid());
	a->f = fopen(a->tmp, "wb");
	return a->f ? 0 : -errno;
}

int atomic_file_commit(struct atomic_file *a)
{
	int rc = 0;

	if (fflush(a->f))
		rc = -errno; /* ENOSPC says more than EIO */
	else if (ferror(a->f))
		rc = -EIO;
	if (fclose(a->f) && !rc)
		rc = -errno;
	a->f = NULL;
	if (!rc && rename(a->tmp, a->path))
		rc = -errno;
	if (rc)
		unlink(a->tmp);
	return rc;
}

void atomic_file_abort(struct atomic_file *a)
{
	if (!a->f)
		return;
	fclose(a->f);
	a->f = NULL;
	unlink(a->tmp);
}

int atomic_file_write(const char *path, const void *buf, size_t len)
{
	struct atomic_file a;
	int rc = atomic_file_open(&a, path);

	if (rc)
		return rc;
	if (len && fwrite(buf, 1, len, a.f) != len) {
		atomic_file_abort(&a);
		return -EIO;
	}
	return atomic_file_commit(&a);
}
