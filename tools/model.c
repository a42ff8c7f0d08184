/* SPDX-License-Identifier: MIT */
/*
 * The commands that put a scenario's machine to work: scenario explain,
 * scenario from-trace and replay. Each parses its options and calls replay/
 * and core/.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "common/atomic_file.h"
#include "common/log.h"
#include "common/path.h"
#include "common/units.h"
#include "core/core.h"
#include "core/scenario.h"
#include "replay/ctf.h"
#include "replay/machine.h"
#include "replay/replay.h"

const char scenario_explain_usage[] = "gpuiso scenario explain FILE.yaml [--json] [-v]";

int cmd_scenario_explain(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' }, { "help", no_argument, NULL, 'h' }, { 0 },
	};
	struct scenario scn = { 0 };
	struct hw_backend be = { 0 };
	struct core *core = NULL;
	char err[4096] = "";
	bool json = false;
	int opt, rc;

	while ((opt = getopt_long(argc, argv, "hv", opts, NULL)) != -1) {
		if (opt == 'j')
			json = true;
		else if (common_opt(opt, scenario_explain_usage, &rc))
			return rc;
	}
	if (optind + 1 != argc)
		return usage_error(scenario_explain_usage, "%s",
				   optind < argc ? "one scenario file, please" : "missing the scenario file");
	rc = cli_load_scenario(cli_data("scenarios", argv[optind]), NULL, &scn);
	if (rc)
		return rc;
	/* the model explained on the backend the scenario names, or why not */
	rc = machine_open(&scn, NULL, &be, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "gpuiso: scenario explain: %s: backend %s: %s\n", argv[optind],
			scn.backend ? scn.backend : "sim", err);
		scenario_free(&scn);
		return cli_exit(rc);
	}
	rc = core_create(&scn, &be, &core);
	if (!rc)
		rc = core_start(core);
	if (!rc)
		rc = core_explain(core, stdout, json);
	core_destroy(core);
	hw_backend_close(&be);
	scenario_free(&scn);
	if (rc) {
		fprintf(stderr, "gpuiso: scenario explain: %s\n", strerror(-rc));
		return EXIT_ENV;
	}
	return EXIT_OK;
}

const char scenario_from_trace_usage[] =
	"gpuiso scenario from-trace TRACE [--base FILE.yaml] [-o OUT.yaml]\n"
	"  the machine TRACE ran on, as a scenario: its adapters from the trace's\n"
	"  DxgKrnl adapter events (an .etl file), the rest from --base (default: the\n"
	"  built-in default.yaml); written to OUT.yaml (default: standard output)";

int cmd_scenario_from_trace(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "base", required_argument, NULL, 'b' }, { "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' }, { 0 },
	};
	const char *base_path = NULL, *out_path = NULL;
	struct atomic_file af = { .f = stdout };
	struct scenario base = { 0 }, check = { 0 };
	char err[4096] = "";
	int opt, rc;

	while ((opt = getopt_long(argc, argv, "hvb:o:", opts, NULL)) != -1) {
		if (opt == 'b')
			base_path = cli_data("scenarios", optarg);
		else if (opt == 'o')
			out_path = optarg;
		else if (common_opt(opt, scenario_from_trace_usage, &rc))
			return rc;
	}
	if (optind + 1 != argc)
		return usage_error(scenario_from_trace_usage, "%s", optind < argc ? "one trace, please" :
				   "missing the trace");
	rc = cli_load_scenario(base_path, NULL, &base);
	if (rc)
		return rc;
	rc = out_path ? atomic_file_open(&af, out_path) : 0;
	if (rc) {
		fprintf(stderr, "gpuiso: scenario from-trace: %s: %s\n", out_path, strerror(-rc));
		scenario_free(&base);
		return EXIT_ENV;
	}
	rc = machine_from_trace(argv[optind], &base, base_path ? base_path : "default.yaml", af.f,
				err, sizeof(err));
	if (out_path)
		rc ? atomic_file_abort(&af) : (void)(rc = atomic_file_commit(&af));
	scenario_free(&base);
	if (rc)
		return cli_failed("scenario from-trace", err, rc);
	/* what was written is a scenario the model takes: say it if not */
	if (out_path && machine_load(out_path, NULL, &check, err, sizeof(err))) {
		fprintf(stderr, "gpuiso: scenario from-trace: %s: the scenario written is not one "
			"gpuiso reads (a defect): %s", out_path, err);
		return EXIT_ENV;
	}
	scenario_free(&check);
	return EXIT_OK;
}

const char replay_usage[] =
	"gpuiso replay TRACE [--scenario FILE] [--faults FILE] [--seed S] [--fail-nth POINT:N]\n"
	"                  [--backend sim|vfio:BDF[,iommu=type1|iommufd]] [--pace asap|trace] [--json OUT]\n"
	"                  [--map FILE.yaml]... [--strict] [--no-cache] [--cache-dir DIR] [--repeat N]\n"
	"                  [--trace-covers window|life] [-q] [-v]\n"
	"  TRACE          a CTF folder (or a folder above several), an ftrace trace.dat or an .etl\n"
	"  --scenario     the system and adapters: a file, or a shipped one by name (lda-chain;\n"
	"                 share/gpuiso/scenarios); default: the built-in default.yaml\n"
	"  --faults       a fault plan; --fail-nth fails one point's Nth hit (gpuiso faults list)\n"
	"  --pace         asap, or each event at its trace time (latency from the intended time)\n"
	"  --json         the results JSON (- for stdout; the summary then goes to stderr)\n"
	"  --repeat       replay N times (1..1000), each on a fresh model: repeated samples of the\n"
	"                 wall-clock figures; --json OUT is then a folder of N files, repeat-K.json\n"
	"  --map          an import map turning foreign events into operations (docs/import-maps.md):\n"
	"                 a file, or a shipped one by name (windows-dxgkrnl; share/gpuiso/maps)\n"
	"  --strict       an event of a class that is neither workload nor mapped is an error,\n"
	"                 not skipped and counted as ignored\n"
	"  --no-cache     decode the trace even if the compiled cache holds it\n"
	"                 (cache: --cache-dir, else $XDG_CACHE_HOME/gpuiso or ~/.cache/gpuiso)\n"
	"  --trace-covers what the trace covers: window (the default), a window of a longer run,\n"
	"                 whose objects still live at its end are released quietly; life, the\n"
	"                 adapters' whole life, so each object still live at its end leaked\n"
	"                 (HANDLE_LEAK at the event that created it, no_leaks broken, exit 1)\n"
	"  -v             list each refused and each unmatched event: index, time, name, reason\n"
	"                 (and log more)";

/* One replay: its summary, its results JSON at @json (or none); the exit code. */
static int replay_one(const struct replay_opts *o, struct replay_report *rep, const char *json)
{
	struct results res;
	int rc = replay_run(o, &res, rep);

	if (rc) {
		/* the reader's messages begin with the trace folder already */
		if (!strncmp(rep->error, o->trace, strlen(o->trace)))
			fprintf(stderr, "gpuiso: replay: %s\n", rep->error);
		else
			fprintf(stderr, "gpuiso: replay: %s: %s\n", o->trace, rep->error);
		rc = cli_exit(rc);
		goto out;
	}
	if (o->repeat)
		fprintf(text_out(json), "%srepeat %u\n", o->repeat > 1 ? "\n" : "", o->repeat);
	replay_summary(&res, rep, log_enabled(LOG_INFO), text_out(json));
	if (json) {
		int werr = results_write_json(&res, json);

		if (werr) {
			fprintf(stderr, "gpuiso: replay: writing %s: %s\n", json, strerror(-werr));
			rc = EXIT_ENV;
			goto out;
		}
	}
	rc = replay_findings(&res) ? EXIT_FINDINGS : EXIT_OK;
out:
	results_fini(&res);
	return rc;
}

int cmd_replay(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "scenario", required_argument, NULL, 's' }, { "backend", required_argument, NULL, 'b' },
		{ "pace", required_argument, NULL, 'p' }, { "json", required_argument, NULL, 'j' },
		{ "strict", no_argument, NULL, 'S' }, { "no-cache", no_argument, NULL, 'N' },
		{ "cache-dir", required_argument, NULL, 'C' }, { "map", required_argument, NULL, 'm' },
		{ "faults", required_argument, NULL, 'f' }, { "seed", required_argument, NULL, 'E' },
		{ "fail-nth", required_argument, NULL, 'F' }, { "repeat", required_argument, NULL, 'R' },
		{ "trace-covers", required_argument, NULL, 'L' }, { "help", no_argument, NULL, 'h' },
		{ "quiet", no_argument, NULL, 'q' },
		{ 0 },
	};
	struct fault_plan plan = { 0 };
	uint64_t repeats = 1;
	const char *fail_nth = NULL;
	bool seeded = false;
	struct replay_opts o = { .cache = true };
	const char *maps[8];
	const char *json = NULL, *backend = NULL;
	struct replay_report *rep;
	struct scenario scn = { 0 };
	int opt, rc;

	while ((opt = getopt_long(argc, argv, "hvq", opts, NULL)) != -1) {
		switch (opt) {
		case 's': o.scenario_path = cli_data("scenarios", optarg); break;
		case 'b': backend = optarg; break;
		case 'j': json = optarg; break;
		case 'S': o.strict = true; break;
		case 'N': o.cache = false; break;
		case 'C':
			if (!*optarg)
				return usage_error(replay_usage, "--cache-dir takes a folder");
			o.cache_dir = optarg;
			break;
		case 'f': o.faults_path = optarg; break;
		case 'F': fail_nth = optarg; break;
		case 'R':
			if (units_parse_u64(optarg, &repeats) || !repeats || repeats > 1000)
				return usage_error(replay_usage, "--repeat takes 1 to 1000, not '%s'", optarg);
			break;
		case 'E':
			if (units_parse_u64(optarg, &o.seed))
				return usage_error(replay_usage, "--seed takes a number, not '%s'", optarg);
			seeded = true;
			break;
		case 'm':
			if (o.nmaps == sizeof(maps) / sizeof(maps[0]))
				return usage_error(replay_usage, "%s", "at most 8 --map files");
			maps[o.nmaps++] = cli_data("maps", optarg);
			o.maps = maps;
			break;
		case 'L':
			if (trace_covers_parse(optarg, &o.covers))
				return usage_error(replay_usage, "--trace-covers takes window or life, not '%s'",
						   optarg);
			break;
		case 'p':
			if (!strcmp(optarg, "asap"))
				o.pace = REPLAY_PACE_ASAP;
			else if (!strcmp(optarg, "trace"))
				o.pace = REPLAY_PACE_TRACE;
			else
				return usage_error(replay_usage, "--pace takes asap or trace, not '%s'", optarg);
			break;
		default:
			if (common_opt(opt, replay_usage, &rc))
				return rc;
		}
	}
	if (optind + 1 != argc)
		return usage_error(replay_usage, "%s", optind < argc ? "one trace, please" :
				   "missing the trace (a CTF folder, a trace.dat or an .etl file)");
	if (repeats > 1 && json && !strcmp(json, "-"))
		return usage_error(replay_usage, "%s", "--repeat writes a folder of results: --json DIR, not -");
	o.backend = backend;
	o.trace = argv[optind];
	rc = cli_load_scenario(o.scenario_path, backend, &scn);
	if (rc)
		return rc;
	o.scn = &scn;
	if (o.faults_path) {
		char err[4096] = "";

		rc = fault_plan_load(o.faults_path, &plan, err, sizeof(err));
		if (rc) {
			fputs(err, stderr);
			scenario_free(&scn);
			return cli_exit(rc);
		}
		o.faults = &plan;
	}
	if (fail_nth) {
		if (fault_plan_fail_nth(&plan, fail_nth)) {
			fault_plan_free(&plan);
			scenario_free(&scn);
			return usage_error(replay_usage, "--fail-nth takes POINT:N (gpuiso faults list), not '%s'",
					   fail_nth);
		}
		o.faults = &plan;
	}
	if (seeded)
		fault_plan_seed(&plan, o.seed);
	o.progress = progress_out();
	rep = calloc(1, sizeof(*rep));
	if (!rep) {
		scenario_free(&scn);
		return EXIT_ENV;
	}
	if (repeats > 1 && json && (rc = path_mkdir_p(json))) {
		fprintf(stderr, "gpuiso: replay: making the --json folder %s: %s\n", json, strerror(-rc));
		rc = EXIT_ENV;
		goto out;
	}
	rc = EXIT_OK;
	for (unsigned int i = 1; i <= repeats && rc <= EXIT_FINDINGS; i++) {
		char path[4096];

		o.repeat = repeats > 1 ? i : 0;
		if (json && repeats > 1)
			snprintf(path, sizeof(path), "%s/repeat-%0*u.json", json,
				 repeats >= 100 ? 3 : repeats >= 10 ? 2 : 1, i);
		rc = replay_one(&o, rep, json && repeats > 1 ? path : json) ?: rc;
	}
	/* where the results went, and the way from them to a dashboard */
	if (json && strcmp(json, "-") && rc <= EXIT_FINDINGS)
		printf("\nresults JSON: %s\n  to a dashboard: gpuiso store add DB %s, then gpuiso dash DB -o SITE\n",
		       json, json);
out:
	free(rep);
	fault_plan_free(&plan);
	scenario_free(&scn);
	return rc;
}
