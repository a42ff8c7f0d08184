/* SPDX-License-Identifier: MIT */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/array.h"
#include "runfile.h"

/* Run files read from the paths a command line gives: files, and folders of them. */

static int set_add_file(struct runfile_set *set, const char *path, char *err, size_t errlen)
{
	int rc;

	if (array_reserve(&set->r, &set->cap, set->n, sizeof(*set->r)))
		return -ENOMEM;
	rc = runfile_read(path, &set->r[set->n], err, errlen);
	if (!rc)
		set->n++;
	if (set->progress)
		progress_show(set->progress, set->n);
	return rc;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int runfile_read_path(const char *path, struct runfile_set *set, char *err, size_t errlen)
{
	struct dirent **names = NULL;
	char **paths = NULL;
	struct stat st;
	int n, rc = 0;
	size_t np = 0;

	if (stat(path, &st)) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -ENOENT;
	}
	if (!S_ISDIR(st.st_mode))
		return set_add_file(set, path, err, errlen);
	n = scandir(path, &names, NULL, alphasort);
	if (n < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -ENOENT;
	}
	paths = calloc((size_t)n + 1, sizeof(*paths));
	for (int i = 0; paths && i < n; i++) {
		const char *name = names[i]->d_name;
		size_t len = strlen(name);
		char *full;

		if (name[0] == '.' ||
		    (names[i]->d_type != DT_DIR && (len < 5 || strcmp(name + len - 5, ".json"))))
			continue;
		if (asprintf(&full, "%s/%s", path, name) < 0) {
			rc = -ENOMEM;
			break;
		}
		paths[np++] = full;
	}
	if (!paths)
		rc = -ENOMEM;
	else
		qsort(paths, np, sizeof(*paths), cmp_str);
	for (size_t i = 0; !rc && i < np; i++)
		rc = runfile_read_path(paths[i], set, err, errlen);
	for (size_t i = 0; i < np; i++)
		free(paths[i]);
	free(paths);
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
	if (rc == -ENOMEM)
		snprintf(err, errlen, "%s: out of memory", path);
	return rc;
}

void runfile_set_free(struct runfile_set *set)
{
	for (size_t i = 0; i < set->n; i++)
		runfile_free(&set->r[i]);
	free(set->r);
	*set = (struct runfile_set){ 0 };
}
