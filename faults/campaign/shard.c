/* SPDX-License-Identifier: MIT */
/* Shards (shard.h): the split of runs into parts, and the header of a shard's file. */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/units.h"
#include "faults/campaign/shard.h"

int shard_parse(const char *arg, struct shard *sh)
{
	const char *slash = arg ? strchr(arg, '/') : NULL;
	uint64_t i, n;
	char *left;
	int rc;

	if (!slash)
		return -EINVAL;
	/* each side a whole number (parse_u64()): no space, no sign, nothing else */
	left = strndup(arg, (size_t)(slash - arg));
	if (!left)
		return -ENOMEM;
	rc = parse_u64(left, &i) || parse_u64(slash + 1, &n) ? -EINVAL : 0;
	free(left);
	if (rc || !n || n > SHARD_MAX || i >= n)
		return -EINVAL;
	sh->index = (uint32_t)i;
	sh->count = (uint32_t)n;
	return 0;
}

void shard_split(const uint64_t *cost, size_t n, uint32_t count, uint32_t *owner)
{
	unsigned __int128 total = 0, before = 0;
	bool equal;

	for (size_t i = 0; i < n; i++)
		total += cost[i];
	equal = !total;
	if (equal)
		total = n;
	for (size_t i = 0; i < n; i++) {
		uint64_t c = equal ? 1 : cost[i];
		/* the part its midpoint falls in: (before + c/2) / total of the way */
		unsigned __int128 part = (2 * before + c) * count / (2 * total);

		owner[i] = part < count ? (uint32_t)part : count - 1;
		before += c;
	}
}

int shard_path(const char *out, const struct shard *sh, char *buf, size_t len)
{
	if ((size_t)snprintf(buf, len, "%s/shards/%u-of-%u", out, sh->index, sh->count) >= len)
		return -ENAMETOOLONG;
	return 0;
}

int shard_field_add(struct shard_header *h, const char *name, const char *value)
{
	struct shard_field *f;

	if (!value)
		return 0;
	if (h->nfields == SHARD_MAX_FIELDS || strlen(name) >= sizeof(f->name) ||
	    strpbrk(value, "\r\n"))
		return -EINVAL;
	f = &h->fields[h->nfields];
	f->value = strdup(value);
	if (!f->value)
		return -ENOMEM;
	snprintf(f->name, sizeof(f->name), "%s", name);
	h->nfields++;
	return 0;
}

const char *shard_field(const struct shard_header *h, const char *name)
{
	for (size_t i = 0; i < h->nfields; i++)
		if (!strcmp(h->fields[i].name, name))
			return h->fields[i].value;
	return NULL;
}

void shard_header_write(FILE *f, const struct shard_header *h)
{
	fprintf(f, "%s\nkind %s\nwork %016llx\nshard %u %u\n", SHARD_SCHEMA, h->kind,
		(unsigned long long)h->work, h->sh.index, h->sh.count);
	for (size_t i = 0; i < h->nfields; i++)
		fprintf(f, "%s %s\n", h->fields[i].name, h->fields[i].value);
	fputs(".\n", f);
}

int shard_line(FILE *f, char **line, size_t *cap)
{
	ssize_t n = getline(line, cap, f);

	if (n < 0)
		return 0;
	if (!n || (*line)[n - 1] != '\n')
		return -EINVAL;
	(*line)[n - 1] = '\0';
	return 1;
}

bool shard_line_as_written(const char *line, const char *fmt, ...)
{
	char again[128];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(again, sizeof(again), fmt, ap);
	va_end(ap);
	return n >= 0 && (size_t)n < sizeof(again) && !strcmp(line, again);
}

int shard_header_read(FILE *f, struct shard_header *h)
{
	unsigned long long work;
	char *line = NULL, *sp;
	size_t cap = 0;
	int rc;

	memset(h, 0, sizeof(*h));
	rc = shard_line(f, &line, &cap);
	if (rc != 1 || strcmp(line, SHARD_SCHEMA))
		goto bad;
	if (shard_line(f, &line, &cap) != 1 || sscanf(line, "kind %15s", h->kind) != 1 ||
	    !shard_line_as_written(line, "kind %s", h->kind))
		goto bad;
	if (shard_line(f, &line, &cap) != 1 || sscanf(line, "work %llx", &work) != 1 ||
	    !shard_line_as_written(line, "work %016llx", work))
		goto bad;
	h->work = work;
	if (shard_line(f, &line, &cap) != 1 ||
	    sscanf(line, "shard %u %u", &h->sh.index, &h->sh.count) != 2 ||
	    !shard_line_as_written(line, "shard %u %u", h->sh.index, h->sh.count) ||
	    h->sh.index >= h->sh.count || h->sh.count > SHARD_MAX)
		goto bad;
	while ((rc = shard_line(f, &line, &cap)) == 1 && strcmp(line, ".")) {
		sp = strchr(line, ' ');
		if (!sp || sp == line)
			goto bad;
		*sp = '\0';
		rc = shard_field_add(h, line, sp + 1);
		if (rc)
			goto bad;
	}
	if (rc != 1)
		goto bad;
	free(line);
	return 0;
bad:
	free(line);
	shard_header_free(h);
	return rc == -ENOMEM ? rc : -EINVAL;
}

void shard_header_free(struct shard_header *h)
{
	for (size_t i = 0; i < h->nfields; i++)
		free(h->fields[i].value);
	h->nfields = 0;
}

int shard_summary_remove(const char *out)
{
	static const char *const names[] = { "summary.json", "summary.txt" };
	char path[4096];

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", out, names[i]) >= sizeof(path))
			return -ENAMETOOLONG;
		if (unlink(path) && errno != ENOENT)
			return -errno;
	}
	return 0;
}

/* Append to the string @err what @fmt says. */
static void __attribute__((format(printf, 3, 4)))
say(char *err, size_t errlen, const char *fmt, ...)
{
	size_t at = strnlen(err, errlen);
	va_list ap;

	if (at + 1 >= errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err + at, errlen - at, fmt, ap);
	va_end(ap);
}

static int missing_path(const char *out, char *buf, size_t len)
{
	return (size_t)snprintf(buf, len, "%s/shards/missing", out) >= len ? -ENAMETOOLONG : 0;
}

FILE *shard_missing_begin(const char *out)
{
	char path[4096];

	return missing_path(out, path, sizeof(path)) ? NULL : fopen(path, "w");
}

void shard_missing_say(char *err, size_t errlen, const struct shard *sh, uint64_t missing,
		       uint64_t of, const char *note, const char *which)
{
	say(err, errlen, "merge: shard %u/%u: %llu of its %llu runs missing%s: %s\n", sh->index,
	    sh->count, (unsigned long long)missing, (unsigned long long)of, note, which);
}

int shard_missing_end(FILE *all, const char *out, char *err, size_t errlen)
{
	char path[4096];

	if (all && !fclose(all) && !missing_path(out, path, sizeof(path)))
		say(err, errlen, "merge: every missing run: %s\n", path);
	if (shard_summary_remove(out))
		say(err, errlen, "merge: %s/summary.json: cannot remove it\n", out);
	return -ENODATA;
}

/* The header of @dir/@name into @h: 0, or a negative errno. */
static int header_load(const char *dir, const char *name, struct shard_header *h)
{
	char path[4096];
	FILE *f;
	int rc;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, name) >= sizeof(path))
		return -ENAMETOOLONG;
	f = fopen(path, "r");
	if (!f)
		return -errno;
	rc = shard_header_read(f, h);
	fclose(f);
	return rc;
}

/* "I-of-N", exactly as shard_path() names it (0 <= I < N <= SHARD_MAX), into @sh. */
static bool name_parse(const char *name, struct shard *sh)
{
	return sscanf(name, "%u-of-%u", &sh->index, &sh->count) == 2 &&
	       shard_line_as_written(name, "%u-of-%u", sh->index, sh->count) &&
	       sh->index < sh->count && sh->count <= SHARD_MAX;
}

int shard_find(const char *out, struct shard_header *h, char *err, size_t errlen)
{
	uint32_t count = 0, first = UINT32_MAX;
	struct shard_header got;
	char dir[4096];
	struct dirent *d;
	DIR *dp;
	int rc;

	if ((size_t)snprintf(dir, sizeof(dir), "%s/shards", out) >= sizeof(dir))
		return -ENAMETOOLONG;
	dp = opendir(dir);
	if (!dp) {
		rc = -errno;
		snprintf(err, errlen, "%s: %s: no shards to merge here", dir, strerror(-rc));
		return rc == -ENOTDIR ? -EINVAL : rc;
	}
	while ((d = readdir(dp))) {
		struct shard sh;

		if (!name_parse(d->d_name, &sh))
			continue;
		if (count && sh.count != count) {
			snprintf(err, errlen, "%s: shards of %u parts and of %u parts: remove the "
				 "files of the split you do not want", dir, count, sh.count);
			closedir(dp);
			if (first != UINT32_MAX)
				shard_header_free(h);
			return -EINVAL;
		}
		count = sh.count;
		/* the lowest index whose header reads speaks for the work */
		if (sh.index < first && !header_load(dir, d->d_name, &got)) {
			if (first != UINT32_MAX)
				shard_header_free(h);
			*h = got;
			first = sh.index;
		}
	}
	closedir(dp);
	if (!count) {
		snprintf(err, errlen, "%s: no shard files (I-of-N): nothing to merge", dir);
		return -ENOENT;
	}
	if (first == UINT32_MAX) {
		snprintf(err, errlen, "%s: no shard file has a header that reads", dir);
		return -EINVAL;
	}
	return 0;
}
