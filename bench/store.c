/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store_internal.h"

/*
 * Opening a store (store.h): a new one made whole or not at all, an old one
 * brought to this schema (store_schema.c), and the errors of SQLite said
 * as errnos with the store's path.
 */

/* The errno for an SQLite result code, and a message that says which file. */
int store_db_error(struct store *s, int rc, const char *what, char *err, size_t errlen)
{
	/* the connection's own message, unless a later call of it succeeded ("not an error") */
	const char *msg = s->db && (sqlite3_extended_errcode(s->db) & 0xff) == (rc & 0xff)
				  ? sqlite3_errmsg(s->db) : sqlite3_errstr(rc);
	int sys = s->db ? sqlite3_system_errno(s->db) : 0;

	if (err != s->err) /* kept for store_error() too */
		store_db_error(s, rc, what, s->err, sizeof(s->err));

	switch (rc & 0xff) {
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		snprintf(err, errlen, "%s: %s: the store is locked by another writer (%s)", s->path,
			 what, msg);
		return -EBUSY;
	case SQLITE_NOTADB:
	case SQLITE_CORRUPT:
		snprintf(err, errlen, "%s: %s: not a gpuiso store, or corrupt (%s)", s->path, what,
			 msg);
		return -EINVAL;
	case SQLITE_NOMEM:
		snprintf(err, errlen, "%s: %s: out of memory", s->path, what);
		return -ENOMEM;
	case SQLITE_CANTOPEN:
		snprintf(err, errlen, "%s: %s: cannot open (%s%s%s)", s->path, what, msg,
			 sys ? ": " : "", sys ? strerror(sys) : "");
		/* a folder named as a store is the user's; a file it cannot have, the machine's */
		return sys == EISDIR || sys == ENOTDIR ? -EINVAL : -EIO;
	default:
		snprintf(err, errlen, "%s: %s: %s", s->path, what, msg);
		return -EIO;
	}
}

/* Open @file into @s->db as every store is opened: 0, or a negative errno said in @err. */
static int open_db(struct store *s, const char *file, int flags, char *err, size_t errlen)
{
	/* the connection is this process's own and used by one thread: no serialising mutex */
	int rc = sqlite3_open_v2(file, &s->db, flags | SQLITE_OPEN_NOMUTEX, NULL);

	if (rc)
		return store_db_error(s, rc, "open", err, errlen);
	sqlite3_busy_timeout(s->db, 5000);
	sqlite3_extended_result_codes(s->db, 1);
	rc = sqlite3_exec(s->db, "PRAGMA foreign_keys = ON; PRAGMA synchronous = FULL", NULL, NULL,
			  NULL);
	return rc ? store_db_error(s, rc, "open", err, errlen) : 0;
}

/*
 * Make the store @s->path, which does not exist, whole or not at all: its
 * schema is written into PATH.PID.tmp, which then takes the path by link(),
 * so no one sees a store half made; where another writer made the store in
 * the meantime, theirs is kept. A full disk or a folder that cannot be
 * written leaves nothing behind. Return: 0, or a negative errno said in @err.
 */
static int make_store(struct store *s, char *err, size_t errlen)
{
	char tmp[PATH_MAX + 32], journal[PATH_MAX + 48];
	int fd, rc;

	if (snprintf(tmp, sizeof(tmp), "%s.%d.tmp", s->path, (int)getpid()) >= (int)sizeof(tmp)) {
		snprintf(err, errlen, "%s: create: %s", s->path, strerror(ENAMETOOLONG));
		return -EINVAL;
	}
	snprintf(journal, sizeof(journal), "%s-journal", tmp);
	unlink(tmp); /* a temporary of an earlier process of this PID is nobody's */
	unlink(journal);
	/* made here, not by SQLite, whose message would not say why not */
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0) {
		int why = errno;

		snprintf(err, errlen, "%s: create: %s", s->path, strerror(why));
		return why == ENOTDIR ? -EINVAL : -EIO; /* a file named as a folder is the user's */
	}
	close(fd);
	rc = open_db(s, tmp, SQLITE_OPEN_READWRITE, err, errlen);
	if (!rc)
		rc = store_migrate(s, true, err, errlen);
	sqlite3_close(s->db);
	s->db = NULL;
	if (!rc && link(tmp, s->path) && errno != EEXIST) {
		int why = errno;

		snprintf(err, errlen, "%s: create: %s", s->path, strerror(why));
		rc = -EIO;
	}
	unlink(tmp);
	unlink(journal);
	return rc;
}

int store_open(const char *path, bool create, struct store **out, char *err, size_t errlen)
{
	struct store *s;
	struct stat st;
	int rc;

	*out = NULL;
	if (!create && access(path, F_OK)) {
		snprintf(err, errlen, "%s: no such store", path);
		return -ENOENT;
	}
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->path = strdup(path);
	if (!s->path) {
		rc = -ENOMEM;
		goto free_store;
	}
	if (create && lstat(path, &st) && errno == ENOENT) {
		rc = make_store(s, err, errlen);
		if (rc)
			goto free_path;
	}
	/* an empty file (or a link to none) is made a store in place, as before */
	rc = open_db(s, path, SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0), err, errlen);
	if (!rc)
		rc = store_migrate(s, create, err, errlen);
	if (rc)
		goto close_db;
	*out = s;
	return 0;
close_db:
	sqlite3_close(s->db);
free_path:
	free(s->unread);
	free(s->path);
free_store:
	free(s);
	return rc;
}

const char *store_error(const struct store *s)
{
	return s->err;
}

void store_set_busy_wait(struct store *s, int ms)
{
	sqlite3_busy_timeout(s->db, ms);
}

void store_close(struct store *s)
{
	if (!s)
		return;
	sqlite3_close(s->db);
	free(s->unread);
	free(s->path);
	free(s);
}
