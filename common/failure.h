/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_COMMON_FAILURE_H
#define GPUISO_COMMON_FAILURE_H

/*
 * Whose fault a failure is. Every function of gpuiso returns 0 or a
 * negative errno, and the errno is its status, as babeltrace2's statuses
 * are one set of values that every function shares: failure_of() is the
 * one table that says which errnos are the user's input, which the
 * machine's and which gpuiso's own. A function that meets a failure whose
 * errno would tell the wrong kind (a child that could not be run reports
 * ENOENT, but the program, not the user's file, is missing) returns an
 * errno of the right kind, and its message keeps the words. The CLI maps
 * the kind to an exit code in one place (tools/cli.c, cli_exit()).
 */

enum failure {
	FAILURE_NONE = 0,
	FAILURE_INPUT,       /* the user's file, folder or argument: the message says where */
	FAILURE_ENVIRONMENT, /* the machine: memory, disk, permissions, a child or library that failed */
	FAILURE_INTERNAL,    /* gpuiso's own: an impossible state (-ENOTRECOVERABLE) */
};

/**
 * failure_of() - whose fault a function's return is.
 * @rc: 0 or a negative errno of any function of gpuiso.
 *
 * The user's input: -EINVAL (what a file or argument says is wrong), the
 * paths the user named (-ENOENT, -ENOTDIR, -EISDIR, -ELOOP, -ENAMETOOLONG,
 * an output that exists: -EEXIST, -ENOTEMPTY), numbers and sizes out of
 * range (-ERANGE, -E2BIG, -EOVERFLOW), files of another format or version
 * (-EPROTO, -EBADMSG, -EILSEQ, -ENOEXEC, -ENODATA). gpuiso's own:
 * -ENOTRECOVERABLE. Every other errno is the machine's (-ENOMEM, -EIO,
 * -ENOSPC, -EACCES, -ECHILD, -ENOSYS, -ENODEV, -EBUSY, ...).
 *
 * Return: FAILURE_NONE for 0 (and for a positive @rc, which is no errno),
 * else the kind.
 */
enum failure failure_of(int rc);

/**
 * failure_output() - the errno to return for an output that could not be
 * made: where it would go is the machine's trouble (a folder that is not
 * there or not a folder, no permission, a full disk), but an output that
 * is there already is the user's choice of name.
 * @rc: the negative errno of making it (mkdir(), opening it).
 *
 * Return: @rc when failure_of() already blames the machine, or it is
 * -EEXIST or -ENOTEMPTY; else -EIO (the caller's message keeps @rc's words).
 */
int failure_output(int rc);

#endif
