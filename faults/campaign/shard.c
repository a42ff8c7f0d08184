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
	/* each side a whole number (units_parse_u64()): no space, no sign, nothing else */
	left = strndup(arg, (size_t)(slash - arg));
	if (!left)
		return -ENOMEM;
	rc = units_parse_u64(left, &i) || units_parse_u64(slash + 1, &n) ? -EINVAL : 0;
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
	/* gpuiso writes no NUL byte: a line holding one would read as less than it is */
	if (!n || (*line)[n - 1] != '\n' || strlen(*line) != (size_t)n)
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

/* A shard file of a folder: its name, and what its header says. */
struct shard_file {
	struct shard name;
	struct shard said;     /* the shard its header says */
	uint32_t work;         /* the work it is of; UINT32_MAX: no header that reads */
};

/* A work the shard files of a folder are of. */
struct shard_work {
	struct shard_header h; /* of the first file of this work */
	size_t files;          /* how many are of it */
};

/* What shard_find() found: the files, by index once sorted, and their works. */
struct shard_scan {
	struct shard_file *files;
	size_t nfiles, cap;
	struct shard_work *works;
	size_t nworks, works_cap;
};

static void scan_free(struct shard_scan *sc)
{
	for (size_t i = 0; i < sc->nworks; i++)
		shard_header_free(&sc->works[i].h);
	free(sc->works);
	free(sc->files);
}

static int file_cmp(const void *a, const void *b)
{
	const struct shard_file *x = a, *y = b;

	return x->name.index < y->name.index ? -1 : x->name.index > y->name.index;
}

/* Grow the array at *@p of *@cap elements of @size to hold @n + 1. Return: 0, -ENOMEM. */
static int room_for(void **p, size_t *cap, size_t n, size_t size)
{
	size_t more = *cap ? 2 * *cap : 16;
	void *q;

	if (n < *cap)
		return 0;
	q = realloc(*p, more * size);
	if (!q)
		return -ENOMEM;
	*p = q;
	*cap = more;
	return 0;
}

/* Add a file named for @sh to @sc. Return: 0, -ENOMEM. */
static int scan_add(struct shard_scan *sc, const struct shard *sh)
{
	if (room_for((void **)&sc->files, &sc->cap, sc->nfiles, sizeof(*sc->files)))
		return -ENOMEM;
	sc->files[sc->nfiles++] = (struct shard_file){ .name = *sh, .work = UINT32_MAX };
	return 0;
}

/*
 * Read each file's header into the work it is of (a new one when no work
 * before has its kind and digest). Return: 0, -ENOMEM.
 */
static int scan_headers(struct shard_scan *sc, const char *dir)
{
	char name[32];

	for (size_t i = 0; i < sc->nfiles; i++) {
		struct shard_file *file = &sc->files[i];
		struct shard_header h;
		size_t w;
		int rc;

		snprintf(name, sizeof(name), "%u-of-%u", file->name.index, file->name.count);
		rc = header_load(dir, name, &h);
		if (rc == -ENOMEM)
			return rc;
		/* none that reads: a shard that never got so far, whose runs are missing */
		if (rc)
			continue;
		file->said = h.sh;
		for (w = 0; w < sc->nworks; w++)
			if (sc->works[w].h.work == h.work && !strcmp(sc->works[w].h.kind, h.kind))
				break;
		if (w < sc->nworks) {
			shard_header_free(&h);
		} else if (room_for((void **)&sc->works, &sc->works_cap, sc->nworks,
				    sizeof(*sc->works))) {
			shard_header_free(&h);
			return -ENOMEM;
		} else {
			sc->works[sc->nworks++] = (struct shard_work){ .h = h };
		}
		sc->works[w].files++;
		file->work = (uint32_t)w;
	}
	return 0;
}

/* Whether @file's header is another shard's. */
static bool misplaced(const struct shard_file *file)
{
	return file->work != UINT32_MAX && (file->said.index != file->name.index ||
					    file->said.count != file->name.count);
}

/* "sweep work 0123...: trace /t, points fbsave/pin, ...": what a header says the work is. */
static void work_say(char *err, size_t errlen, const struct shard_header *h)
{
	say(err, errlen, "%s work %016llx", h->kind, (unsigned long long)h->work);
	for (size_t i = 0; i < h->nfields; i++)
		say(err, errlen, "%s %s %s", i ? "," : ":", h->fields[i].name, h->fields[i].value);
}

/*
 * Name every file whose header is another shard's, and, when the files are
 * of more than one work, each work and its files, into @err. Return: -EINVAL.
 */
static int scan_refuse(const struct shard_scan *sc, const char *dir, char *err, size_t errlen)
{
	size_t most = 0, shown;
	bool tie = false;

	*err = '\0';
	for (size_t i = 0; i < sc->nfiles; i++) {
		const struct shard *name = &sc->files[i].name, *said = &sc->files[i].said;

		if (misplaced(&sc->files[i]))
			say(err, errlen, "merge: %s/%u-of-%u: the journal of shard %u/%u, not of shard "
			    "%u/%u (copied or renamed?): nothing merged; run shard %u/%u again (its "
			    "file is made anew) or remove the file\n", dir, name->index, name->count,
			    said->index, said->count, name->index, name->count, name->index,
			    name->count);
	}
	if (sc->nworks < 2)
		return -EINVAL;
	/* the work of most files, if one has more than every other */
	for (size_t w = 1; w < sc->nworks; w++)
		if (sc->works[w].files > sc->works[most].files)
			most = w;
	for (size_t w = 0; w < sc->nworks; w++)
		tie |= w != most && sc->works[w].files == sc->works[most].files;
	if (tie)
		most = SIZE_MAX;
	say(err, errlen, "merge: %s: shard files of %zu different works: nothing merged\n", dir,
	    sc->nworks);
	for (size_t w = 0; w < sc->nworks; w++) {
		say(err, errlen, "  ");
		shown = 0;
		for (size_t i = 0; i < sc->nfiles; i++) {
			if (sc->files[i].work != w)
				continue;
			if (shown++ < SHARD_MISSING_SHOWN)
				say(err, errlen, "%s%s/%u-of-%u", shown > 1 ? ", " : "", dir,
				    sc->files[i].name.index, sc->files[i].name.count);
		}
		if (shown > SHARD_MISSING_SHOWN)
			say(err, errlen, ", ... (%zu files)", shown);
		say(err, errlen, "%s: ", w == most ? " (most of them)" :
					 most != SIZE_MAX ? " (other work)" : "");
		work_say(err, errlen, &sc->works[w].h);
		say(err, errlen, "\n");
	}
	if (most != SIZE_MAX)
		say(err, errlen, "merge: run each shard of other work again with the options of the "
		    "work of most of them (its file is made anew), or remove its file; then merge "
		    "again\n");
	else
		say(err, errlen, "merge: run the shards of the work you do not want again with the "
		    "options of the one you want (their files are made anew), or remove their files; "
		    "then merge again\n");
	return -EINVAL;
}

int shard_find(const char *out, struct shard_header *h, char *err, size_t errlen)
{
	struct shard_scan sc = { 0 };
	uint32_t count = 0;
	char dir[4096];
	struct dirent *d;
	struct shard sh;
	bool refuse = false;
	DIR *dp;
	int rc = 0;

	if ((size_t)snprintf(dir, sizeof(dir), "%s/shards", out) >= sizeof(dir))
		return -ENAMETOOLONG;
	dp = opendir(dir);
	if (!dp) {
		rc = -errno;
		snprintf(err, errlen, "%s: %s: no shards to merge here", dir, strerror(-rc));
		return rc;
	}
	while (!rc && (errno = 0, d = readdir(dp))) {
		if (!name_parse(d->d_name, &sh))
			continue;
		if (count && sh.count != count) {
			snprintf(err, errlen, "%s: shards of %u parts and of %u parts: remove the "
				 "files of the split you do not want", dir, count, sh.count);
			rc = -EINVAL;
			break;
		}
		count = sh.count;
		rc = scan_add(&sc, &sh);
	}
	if (!rc && errno)
		rc = -errno;
	closedir(dp);
	if (rc)
		goto free_scan;
	if (!count) {
		snprintf(err, errlen, "%s: no shard files (I-of-N): nothing to merge", dir);
		rc = -ENOENT;
		goto free_scan;
	}
	/* by index: the lowest whose header reads speaks for the work */
	qsort(sc.files, sc.nfiles, sizeof(*sc.files), file_cmp);
	rc = scan_headers(&sc, dir);
	if (rc)
		goto free_scan;
	for (size_t i = 0; i < sc.nfiles; i++)
		refuse |= misplaced(&sc.files[i]);
	if (refuse || sc.nworks > 1) {
		/* another work's journal taken on would report this work's shards as missing */
		rc = scan_refuse(&sc, dir, err, errlen);
	} else if (!sc.nworks) {
		snprintf(err, errlen, "%s: no shard file has a header that reads", dir);
		rc = -EINVAL;
	} else {
		*h = sc.works[0].h;
		sc.works[0].h.nfields = 0; /* now the caller's */
	}
free_scan:
	if (rc && rc != -EINVAL && rc != -ENOENT && !*err)
		snprintf(err, errlen, "%s: %s", dir, strerror(-rc));
	scan_free(&sc);
	return rc;
}
