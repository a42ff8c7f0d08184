/* SPDX-License-Identifier: MIT */
#include <errno.h>

#include "core.h"

/* errno stays the currency inside; NTSTATUS names appear only in reports. */
static const struct {
	int err;
	const char *name;
} ntstatus_map[] = {
	{ 0, "STATUS_SUCCESS" },
	{ ENOMEM, "STATUS_NO_MEMORY" },
	{ EINVAL, "STATUS_INVALID_PARAMETER" },
	{ EPERM, "STATUS_ACCESS_DENIED" },
	{ ENOTSUP, "STATUS_NOT_SUPPORTED" },
	{ ENODEV, "STATUS_DEVICE_NOT_READY" },
	{ ENOENT, "STATUS_NOT_FOUND" },
	{ EBUSY, "STATUS_DEVICE_BUSY" },
	{ EFAULT, "STATUS_ACCESS_VIOLATION" },
	{ ENOSPC, "STATUS_INSUFFICIENT_RESOURCES" },
	{ ERANGE, "STATUS_INVALID_ADDRESS" },
	{ EEXIST, "STATUS_CONFLICTING_ADDRESSES" },
	{ EIO, "STATUS_IO_DEVICE_ERROR" },
	{ EALREADY, "STATUS_ALREADY_COMPLETE" },
	{ ESHUTDOWN, "STATUS_SYSTEM_SHUTDOWN" }, /* after a bugcheck */
};

const char *ntstatus_name(int err)
{
	for (unsigned int i = 0; i < ARRAY_SIZE(ntstatus_map); i++)
		if (ntstatus_map[i].err == -err)
			return ntstatus_map[i].name;
	return "STATUS_UNSUCCESSFUL";
}
