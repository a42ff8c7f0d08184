// SPDX-License-Identifier: MIT
/* The one table of whose fault an errno is (common/failure.h). */
#include <errno.h>

#include "common/failure.h"

enum failure failure_of(int rc)
{
	switch (-rc) {
	case 0:
		return FAILURE_NONE;
	case EINVAL: case ENOENT: case ENOTDIR: case EISDIR: case ELOOP: case ENAMETOOLONG:
	case EEXIST: case ENOTEMPTY: case ERANGE: case E2BIG: case EOVERFLOW: case EPROTO:
	case EBADMSG: case EILSEQ: case ENOEXEC: case ENODATA:
		return FAILURE_INPUT;
	case ENOTRECOVERABLE:
		return FAILURE_INTERNAL;
	default:
		return rc < 0 ? FAILURE_ENVIRONMENT : FAILURE_NONE;
	}
}

int failure_output(int rc)
{
	return failure_of(rc) != FAILURE_INPUT || rc == -EEXIST || rc == -ENOTEMPTY ? rc : -EIO;
}
