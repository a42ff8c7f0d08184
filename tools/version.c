/* SPDX-License-Identifier: MIT */
/* gpuiso version: what this build is and what was compiled in. */
#include <stdio.h>

#include "cli.h"
#include "common/json.h"
#include "config.h"
#include "version.h"

/* What every build has (lttng-ust is added when it was compiled in). */
static const char *const version_features[] = { "scenario-yaml", "fault-points", "ctf-replay",
						 "ftrace-replay", "etl-replay", "import-maps" };

const char version_usage[] =
	"gpuiso version [--json]   (also gpuiso --version, gpuiso -V)\n"
	"  --json  as JSON (gpuiso-version/1): version, revision, build, backends, features";

static void version_json(FILE *f)
{
	struct json j;

	json_init(&j, f);
	json_obj_begin(&j, NULL);
	json_str(&j, "schema", "gpuiso-version/1");
	json_str(&j, "version", GPUISO_VERSION);
	json_str(&j, "git_rev", GPUISO_GIT_REV);
	json_str(&j, "build", GPUISO_BUILD);
	json_arr_begin(&j, "backends");
	json_str(&j, NULL, "sim");
	json_str(&j, NULL, "vfio");
	json_arr_end(&j);
	json_arr_begin(&j, "features");
	for (size_t i = 0; i < sizeof(version_features) / sizeof(version_features[0]); i++)
		json_str(&j, NULL, version_features[i]);
	if (GPUISO_HAVE_TRACING)
		json_str(&j, NULL, "lttng-ust");
	json_arr_end(&j);
	json_obj_end(&j);
	json_end(&j); /* a write error: output_checked() */
}

int cmd_version(int argc, char **argv)
{
	bool json;
	int rc = cli_json_only(argc, argv, version_usage, &json);

	if (rc >= 0)
		return rc;
	if (json) {
		version_json(stdout);
		return EXIT_OK;
	}
	printf("gpuiso %s (%s)\n", GPUISO_VERSION, GPUISO_GIT_REV);
	printf("build: %s\n", GPUISO_BUILD);
	printf("backends: sim vfio (iommufd where the kernel has it, else type1)\n");
	printf("features:");
	for (size_t i = 0; i < sizeof(version_features) / sizeof(version_features[0]); i++)
		printf(" %s", version_features[i]);
	printf("%s\n", GPUISO_HAVE_TRACING ? " lttng-ust" : "");
	return EXIT_OK;
}
