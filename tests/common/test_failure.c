/* SPDX-License-Identifier: MIT */
/*
 * common/failure.h: the one table of whose fault an errno is, which every
 * exit code of the CLI comes from.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "common/failure.h"

Test(failure, success_is_no_failure)
{
	cr_assert_eq(failure_of(0), FAILURE_NONE);
	cr_assert_eq(failure_of(1), FAILURE_NONE, "a count is no errno");
}

Test(failure, what_the_user_gave_is_input)
{
	static const int input[] = { EINVAL, ENOENT, ENOTDIR, EISDIR, ELOOP, ENAMETOOLONG, EEXIST,
				     ENOTEMPTY, ERANGE, E2BIG, EOVERFLOW, EPROTO, EBADMSG, EILSEQ,
				     ENOEXEC, ENODATA };

	for (size_t i = 0; i < sizeof(input) / sizeof(input[0]); i++)
		cr_assert_eq(failure_of(-input[i]), FAILURE_INPUT, "%s", strerror(input[i]));
}

Test(failure, what_the_machine_failed_at_is_the_environment)
{
	static const int env[] = { ENOMEM, EIO, ENOSPC, EACCES, EPERM, ECHILD, ENOSYS, ENODEV,
				   EBUSY, EAGAIN, ETIMEDOUT, EMFILE, EOPNOTSUPP };

	for (size_t i = 0; i < sizeof(env) / sizeof(env[0]); i++)
		cr_assert_eq(failure_of(-env[i]), FAILURE_ENVIRONMENT, "%s", strerror(env[i]));
}

Test(failure, an_impossible_state_is_internal)
{
	cr_assert_eq(failure_of(-ENOTRECOVERABLE), FAILURE_INTERNAL);
}

Test(failure, an_output_that_cannot_be_made_is_the_machines)
{
	cr_assert_eq(failure_output(-ENOENT), -EIO, "its folder is not there");
	cr_assert_eq(failure_output(-ENOTDIR), -EIO, "a file where its folder would be");
	cr_assert_eq(failure_output(-EACCES), -EACCES);
	cr_assert_eq(failure_output(-ENOSPC), -ENOSPC);
	cr_assert_eq(failure_output(-EEXIST), -EEXIST, "there already: the user's choice of name");
	cr_assert_eq(failure_output(-ENOTEMPTY), -ENOTEMPTY);
	cr_assert_eq(failure_output(0), 0);
}
