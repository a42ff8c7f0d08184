/* SPDX-License-Identifier: MIT */
/* gpuiso lint-driver: the HLK import scan of a driver image; lint/ does the work. */
#include <getopt.h>
#include <stdio.h>

#include "cli.h"
#include "lint/lint.h"

const char lint_driver_usage[] =
	"gpuiso lint-driver FILE.sys [--json] [-v]\n"
	"  the HLK import scan of a driver image (PE32+): lists its imports from ntoskrnl.exe and\n"
	"  flags the seven Mm functions a driver opting in to IOMMU isolation must not import,\n"
	"  and imports from ntoskrnl.exe by ordinal, which cannot be checked (docs/lint-driver.md)\n"
	"  exit: 0 clean, 1 findings, 2 bad input (no such file, not a PE32+ image, malformed,\n"
	"  truncated), 3 the file cannot be read (an I/O error, no permission)";

int cmd_lint_driver(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' }, { "help", no_argument, NULL, 'h' }, { 0 },
	};
	struct lint_report rep;
	char err[8192] = "";
	bool json = false;
	int opt, rc;

	while ((opt = getopt_long(argc, argv, "hv", opts, NULL)) != -1) {
		if (opt == 'j')
			json = true;
		else if (common_opt(opt, lint_driver_usage, &rc))
			return rc;
	}
	if (optind + 1 != argc)
		return usage_error(lint_driver_usage, "%s", optind < argc ? "one driver image, please" :
				   "missing the driver image");
	rc = lint_driver(argv[optind], &rep, err, sizeof(err));
	if (rc)
		return cli_failed("lint-driver", err, rc);
	if (json)
		lint_print_json(&rep, stdout); /* a write error: output_checked() */
	else
		lint_print_text(&rep, stdout);
	rc = rep.nfindings ? EXIT_FINDINGS : EXIT_OK;
	lint_report_free(&rep);
	return rc;
}
