/* SPDX-License-Identifier: MIT */
/* A scenario's machine on its backend: the factory called with what the scenario says. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/failure.h"
#include "machine.h"

static int machine_backend_name(const struct scenario *scn, const char *name,
				struct hw_backend_name *bn, char *err, size_t errlen)
{
	return hw_backend_parse(name ? name : scn->backend ? scn->backend : "sim", bn, err, errlen);
}

int machine_check(const struct scenario *scn, const char *name, char *err, size_t errlen)
{
	struct hw_backend_name bn;
	int rc = machine_backend_name(scn, name, &bn, err, errlen);

	return rc ? rc : hw_backend_check(&bn, &scn->settings, err, errlen);
}

int machine_load(const char *path, const char *backend, struct scenario *scn, char *err,
		 size_t errlen)
{
	int rc = path ? scenario_load(path, scn, err, errlen) : scenario_defaults(scn);

	if (rc)
		return rc;
	rc = machine_check(scn, backend, err, errlen);
	if (rc)
		scenario_free(scn);
	return rc;
}

int machine_open(const struct scenario *scn, const char *name, struct hw_backend *be, char *err,
		 size_t errlen)
{
	struct hw_backend_name bn;
	struct hw_machine m;
	uint64_t *vram;
	int rc;

	memset(be, 0, sizeof(*be));
	rc = machine_backend_name(scn, name, &bn, err, errlen);
	if (rc)
		return rc;
	rc = scenario_machine(scn, &m, &vram);
	if (rc) {
		snprintf(err, errlen, "out of memory");
		return rc;
	}
	rc = hw_backend_open(&bn, &m, &scn->settings, be, err, errlen);
	free(vram);
	/* past its settings, a backend that does not start is the machine's (common/failure.h) */
	return rc != -EINVAL && failure_of(rc) == FAILURE_INPUT ? -ENODEV : rc;
}
