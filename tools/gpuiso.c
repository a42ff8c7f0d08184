/* SPDX-License-Identifier: MIT */
/*
 * gpuiso: the command line. main() only parses and dispatches; what each
 * command does lives in the libraries, where tests reach it directly.
 */
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench/bench.h"
#include "bench/runfile.h"
#include "bench/suites/suites.h"
#include "cli.h"
#include "common/atomic_file.h"
#include "common/json.h"
#include "common/log.h"
#include "common/path.h"
#include "common/progress.h"
#include "common/units.h"
#include "common/yaml.h"
#include "config.h"
#include "version.h"
#include "core/core.h"
#include "core/scenario.h"
#include "faults/campaign/campaign.h"
#include "faults/campaign/sweep.h"
#include "lint/lint.h"
#include "replay/ctf.h"
#include "replay/gen.h"
#include "replay/info.h"
#include "replay/machine.h"
#include "replay/replay.h"
#include "replay/text.h"
#include "replay/trim.h"

/* The exit code of a failed load of a user's file: the machine's trouble is never bad input. */
static int load_exit(int rc)
{
	return yaml_error_is_environment(rc) ? EXIT_ENV : EXIT_INPUT;
}

/* What every build has (lttng-ust is added when it was compiled in). */
static const char *const version_features[] = { "scenario-yaml", "fault-points", "ctf-replay",
						 "ftrace-replay", "etl-replay", "import-maps" };

static const char version_usage[] =
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

static int cmd_version(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' }, { "help", no_argument, NULL, 'h' }, { 0 },
	};
	bool json = false;
	int opt, rc;

	while ((opt = getopt_long(argc, argv, "hv", opts, NULL)) != -1) {
		if (opt == 'j')
			json = true;
		else if (common_opt(opt, version_usage, &rc))
			return rc;
	}
	if (optind < argc)
		return usage_error(version_usage, "unexpected argument '%s'", argv[optind]);
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

static const char explain_usage[] = "gpuiso scenario explain FILE.yaml [--json] [-v]";

static int cmd_scenario_explain(int argc, char **argv)
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
		else if (common_opt(opt, explain_usage, &rc))
			return rc;
	}
	if (optind + 1 != argc)
		return usage_error(explain_usage, "%s", optind < argc ? "one scenario file, please" :
				   "missing the scenario file");
	rc = machine_load(cli_data("scenarios", argv[optind]), NULL, &scn, err, sizeof(err));
	if (rc) {
		fputs(err, stderr);
		if (!*err || err[strlen(err) - 1] != '\n')
			fputc('\n', stderr);
		return load_exit(rc);
	}
	/* the model explained on the backend the scenario names, or why not */
	rc = machine_open(&scn, NULL, &be, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "gpuiso: scenario explain: %s: backend %s: %s\n", argv[optind],
			scn.backend ? scn.backend : "sim", err);
		scenario_free(&scn);
		return rc == -EINVAL ? EXIT_INPUT : EXIT_ENV;
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

static const char bench_usage[] =
	"gpuiso bench [--suite micro|replay|floor] [--json OUT] [-v]\n"
	"       gpuiso bench --suite NAME --metric NAME=VALUE:UNIT... [--notes TEXT] --json OUT\n"
	"  the second records figures measured outside gpuiso (bench/sweep.sh,\n"
	"  bench/shards.sh) as bench JSON: no suite runs";

static const struct bench_suite bench_suites[] = {
	{ "micro", bench_suite_micro },
	{ "replay", bench_suite_replay },
	{ "floor", bench_suite_floor },
};

/* --metric NAME=VALUE:UNIT into @r; 0, or the exit code after saying why not. */
static int bench_metric_arg(struct bench_report *r, char *arg)
{
	char *eq = strchr(arg, '='), *colon = strrchr(arg, ':'), *end;
	double v;

	/* the name as a report holds it, the unit as a run file's metric does */
	if (!eq || !colon || colon < eq || eq == arg || eq - arg >= (ptrdiff_t)sizeof(r->m[0].name) ||
	    !colon[1] || strlen(colon + 1) >= sizeof(((struct run_metric *)NULL)->unit))
		return usage_error(bench_usage, "--metric takes NAME=VALUE:UNIT, not '%s'", arg);
	if (r->n == BENCH_MAX_METRICS)
		return usage_error(bench_usage, "more --metric than a report holds, from '%s'", arg);
	*colon = '\0';
	v = strtod(eq + 1, &end);
	*colon = ':';
	if (end == eq + 1 || end != colon || !isfinite(v))
		return usage_error(bench_usage, "--metric takes a finite number as VALUE, not '%s'", arg);
	*eq = '\0';
	bench_add(r, arg, v, colon + 1, NULL);
	*eq = '=';
	return EXIT_OK;
}

/* bench --metric: the figures @r holds, as bench JSON at @json. */
static int bench_record(const struct bench_report *r, const char *json)
{
	int rc;

	if (!json)
		return usage_error(bench_usage, "%s", "--metric records into --json OUT");
	if (!r->suite)
		return usage_error(bench_usage, "%s", "--metric records the figures of a --suite NAME");
	if (!r->suite[0] || strpbrk(r->suite, " \t\n="))
		return usage_error(bench_usage, "--suite takes a name (no space, no '='), not '%s'",
				   r->suite);
	rc = bench_write_json(r, json);
	if (rc) {
		fprintf(stderr, "gpuiso: bench: writing %s: %s\n", json, strerror(-rc));
		return EXIT_ENV;
	}
	return EXIT_OK;
}

static int cmd_bench(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "suite", required_argument, NULL, 's' }, { "json", required_argument, NULL, 'j' },
		{ "metric", required_argument, NULL, 'm' }, { "notes", required_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' }, { 0 },
	};
	const char *suite = NULL, *json = NULL;
	struct bench_report given = { 0 }; /* --metric's */
	int opt, rc;

	while ((opt = getopt_long(argc, argv, "hv", opts, NULL)) != -1) {
		if (opt == 's')
			suite = optarg;
		else if (opt == 'j')
			json = optarg;
		else if (opt == 'n')
			given.notes = optarg;
		else if (opt == 'm' && (rc = bench_metric_arg(&given, optarg)))
			return rc;
		else if (opt != 'm' && common_opt(opt, bench_usage, &rc))
			return rc;
	}
	if (optind < argc)
		return usage_error(bench_usage, "unexpected argument '%s'", argv[optind]);
	if (given.notes && !given.n)
		return usage_error(bench_usage, "%s", "--notes goes with --metric");
	if (given.n) {
		given.suite = suite;
		return bench_record(&given, json);
	}
	if (!suite)
		suite = "micro";
	/* a suite takes minutes: a JSON file that cannot be written is said first */
	if (json && strcmp(json, "-")) {
		char dir[4096];
		struct stat st;
		int err = 0;

		snprintf(dir, sizeof(dir), "%s", json);
		if (!stat(json, &st) && S_ISDIR(st.st_mode))
			err = EISDIR;
		else
			err = -path_mkdir_parent(json); /* as writing it will */
		if (!err && access(dirname(dir), W_OK))
			err = errno;
		if (err) {
			fprintf(stderr, "gpuiso: bench: cannot write %s: %s\n", json, strerror(err));
			return EXIT_ENV;
		}
	}
	rc = bench_main(bench_suites, sizeof(bench_suites) / sizeof(bench_suites[0]), suite, json,
			text_out(json));
	if (rc == -ENOENT)
		return usage_error(bench_usage, "unknown suite '%s'", suite);
	if (rc) {
		fprintf(stderr, "gpuiso: bench: %s\n", strerror(-rc));
		return EXIT_ENV;
	}
	return EXIT_OK;
}

/*
 * Load @path (or the built-in default scenario) and check it on @backend
 * (NULL: its own); errors print with file:line:col.
 */
static int load_scenario(const char *path, const char *backend, struct scenario *scn)
{
	char err[4096] = "";
	int rc = machine_load(path, backend, scn, err, sizeof(err));

	if (rc) {
		fputs(err, stderr);
		if (!*err || err[strlen(err) - 1] != '\n')
			fputc('\n', stderr);
	}
	return rc;
}

static const char from_trace_usage[] =
	"gpuiso scenario from-trace TRACE [--base FILE.yaml] [-o OUT.yaml]\n"
	"  the machine TRACE ran on, as a scenario: its adapters from the trace's\n"
	"  DxgKrnl adapter events (an .etl file), the rest from --base (default: the\n"
	"  built-in default.yaml); written to OUT.yaml (default: standard output)";

static int cmd_scenario_from_trace(int argc, char **argv)
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
		else if (common_opt(opt, from_trace_usage, &rc))
			return rc;
	}
	if (optind + 1 != argc)
		return usage_error(from_trace_usage, "%s", optind < argc ? "one trace, please" :
				   "missing the trace");
	rc = load_scenario(base_path, NULL, &base);
	if (rc)
		return load_exit(rc);
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
	if (rc) {
		fprintf(stderr, "gpuiso: scenario from-trace: %s\n", err[0] ? err : strerror(-rc));
		return rc == -ENOENT || !(ctf_error_is_environment(rc) || rc == -EIO ||
					  rc == -ENOSPC) ? EXIT_INPUT : EXIT_ENV;
	}
	/* what was written is a scenario the model takes: say it if not */
	if (out_path && machine_load(out_path, NULL, &check, err, sizeof(err))) {
		fprintf(stderr, "gpuiso: scenario from-trace: %s: the scenario written is not one "
			"gpuiso reads (a defect): %s", out_path, err);
		return EXIT_ENV;
	}
	scenario_free(&check);
	return EXIT_OK;
}

static const char replay_usage[] =
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
		rc = rep->failure == REPLAY_BAD_INPUT ? EXIT_INPUT : EXIT_ENV;
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

static int cmd_replay(int argc, char **argv)
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
				return usage_error(replay_usage, "--cache-dir takes a folder%s", "");
			o.cache_dir = optarg;
			break;
		case 'f': o.faults_path = optarg; break;
		case 'F': fail_nth = optarg; break;
		case 'R':
			if (parse_u64(optarg, &repeats) || !repeats || repeats > 1000)
				return usage_error(replay_usage, "--repeat takes 1 to 1000, not '%s'", optarg);
			break;
		case 'E':
			if (parse_u64(optarg, &o.seed))
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
	rc = load_scenario(o.scenario_path, backend, &scn);
	if (rc)
		return load_exit(rc);
	o.scn = &scn;
	if (o.faults_path) {
		char err[4096] = "";

		rc = fault_plan_load(o.faults_path, &plan, err, sizeof(err));
		if (rc) {
			fputs(err, stderr);
			scenario_free(&scn);
			return load_exit(rc);
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

/* Say @err (on lines of its own) and return @code. */
static int report_error(const char *err, int code)
{
	fputs(err, stderr);
	if (!*err || err[strlen(err) - 1] != '\n')
		fputc('\n', stderr);
	return code;
}

static const char campaign_usage[] =
	"gpuiso campaign run FILE.yaml -o DIR [--jobs N] [--run-timeout SECONDS]\n"
	"                    [--stall-timeout SECONDS] [--shard I/N] [-q] [-v]\n"
	"  a run still going after --run-timeout (default: no limit), or making no progress\n"
	"  for --stall-timeout (default: 60), is killed and fails as hung;\n"
	"  --shard  part I (from 0) of N of the runs, into DIR with the other parts; no\n"
	"           summary: gpuiso merge DIR writes it once every part is done (docs/slurm.md)";

/* --shard I/N. */
static int parse_shard(const char *arg, const char *usage, struct shard *sh)
{
	int rc = shard_parse(arg, sh);

	if (rc == -ENOMEM) {
		fprintf(stderr, "gpuiso: --shard: %s\n", strerror(-rc));
		return EXIT_ENV;
	}
	if (rc)
		return usage_error(usage, "--shard takes I/N, 0 <= I < N <= 100000, not '%s'", arg);
	return 0;
}

static void campaign_totals_print(const struct campaign_totals *t, const char *out)
{
	printf("campaign: %u runs (%u resumed), %u passed, %u failed", t->runs, t->resumed,
	       t->passed, t->failed);
	if (t->hung)
		printf(" (%u hung)", t->hung);
	printf(", %u finding%s; %s/summary.json\n", t->findings, t->findings == 1 ? "" : "s", out);
}

/* --run-timeout and --stall-timeout SECONDS: 1 s to a day. */
static int parse_timeout(const char *name, const char *arg, const char *usage, unsigned int *out)
{
	char fmt[96];
	uint64_t s;

	if (parse_u64(arg, &s) || !s || s > 86400) {
		snprintf(fmt, sizeof(fmt), "--%s takes 1 to 86400 seconds, not '%%s'", name);
		return usage_error(usage, fmt, arg);
	}
	*out = (unsigned int)s;
	return 0;
}

static int cmd_campaign_run(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' }, { "jobs", required_argument, NULL, 'j' },
		{ "run-timeout", required_argument, NULL, 'T' },
		{ "stall-timeout", required_argument, NULL, 'S' }, { "shard", required_argument, NULL, 'I' },
		{ "help", no_argument, NULL, 'h' }, { "quiet", no_argument, NULL, 'q' }, { 0 },
	};
	struct campaign_opts o = { .jobs = 1 };
	struct campaign_totals t = { 0 };
	char err[8192] = "";
	uint64_t jobs;
	int opt, rc;

	while ((opt = getopt_long(argc, argv, "hvqo:j:", opts, NULL)) != -1) {
		if (opt == 'o') {
			o.out = optarg;
		} else if (opt == 'j') {
			if (parse_u64(optarg, &jobs) || !jobs || jobs > 256)
				return usage_error(campaign_usage, "--jobs takes 1 to 256, not '%s'", optarg);
			o.jobs = (unsigned int)jobs;
		} else if (opt == 'T') {
			if ((rc = parse_timeout("run-timeout", optarg, campaign_usage, &o.run_timeout_s)))
				return rc;
		} else if (opt == 'S') {
			if ((rc = parse_timeout("stall-timeout", optarg, campaign_usage,
						&o.stall_timeout_s)))
				return rc;
		} else if (opt == 'I') {
			if ((rc = parse_shard(optarg, campaign_usage, &o.shard)))
				return rc;
		} else if (common_opt(opt, campaign_usage, &rc)) {
			return rc;
		}
	}
	if (optind + 1 != argc || !o.out)
		return usage_error(campaign_usage, "%s", !o.out ? "-o DIR is required" :
				   "one campaign file, please");
	o.file = argv[optind];
	o.progress = progress_out();
	o.program = cli_program();
	rc = campaign_run(&o, &t, err, sizeof(err));
	if (rc)
		return report_error(err, rc == -EINVAL ? EXIT_INPUT : EXIT_ENV);
	if (o.shard.count) {
		/* the findings are the merge's to judge */
		printf("campaign: shard %u/%u: %u runs (%u resumed); once every shard is done: "
		       "gpuiso merge %s\n", o.shard.index, o.shard.count, t.shard_runs, t.resumed, o.out);
		return EXIT_OK;
	}
	campaign_totals_print(&t, o.out);
	return t.failed ? EXIT_FINDINGS : EXIT_OK;
}

static const char sweep_usage[] =
	"gpuiso sweep TRACE [--map FILE.yaml]... [--scenario FILE] [--faults BASE.yaml] [--points GLOB]\n"
	"                 -o OUT [--jobs N] [--fork | --from-scratch] [--run-timeout SECONDS]\n"
	"                 [--stall-timeout SECONDS] [--trace-covers window|life] [--shard I/N] [-q] [-v]\n"
	"  fails each hit of each point in turn, one run each, and groups the runs that do not\n"
	"  recover into findings (OUT/summary.txt, OUT/summary.json); each of --jobs workers\n"
	"  replays the trace once and branches at its hits, restoring a snapshot after each run;\n"
	"  --fork         fork a process at each hit instead (where snapshots are not available,\n"
	"                 the sweep says so and forks);\n"
	"  --from-scratch replay the whole trace for each run (the baseline);\n"
	"  TRACE          a CTF folder (or a folder above several), an ftrace trace.dat or an .etl\n"
	"  --map          an import map for a foreign trace, as for replay (up to 8): every run,\n"
	"                 trim and reproducer replays through them\n"
	"  --faults       a base plan every run replays under (e.g. every pin fails): the points\n"
	"                 it arms are not swept, the paths it opens are;\n"
	"  a run still going after --run-timeout (default: no limit), or making no progress\n"
	"  for --stall-timeout (default: 60), is killed and counts as hung;\n"
	"  --trace-covers as for replay: with life, what the trace leaves live is leaked;\n"
	"  --shard        part I (from 0) of N of the runs, into OUT with the other parts, and\n"
	"                 resumed when run again; no summary: gpuiso merge OUT writes it once\n"
	"                 every part is done (docs/slurm.md)";

/* The totals of a sweep; @ran: how long its runs took, and how many met others (a merge ran none). */
static void sweep_totals_print(const struct sweep_totals *t, const char *out, bool ran)
{
	printf("sweep: %llu hits, %llu runs: %llu recovered, %llu reset, %llu violation, %llu crash, "
	       "%llu hung", (unsigned long long)t->hits, (unsigned long long)t->runs,
	       (unsigned long long)t->recovered, (unsigned long long)t->reset,
	       (unsigned long long)t->violation, (unsigned long long)t->crash,
	       (unsigned long long)t->hung);
	if (ran)
		printf(" (%.2f s; %llu stopped where they met the unfailed run, %llu where they met "
		       "an earlier run)", t->seconds, (unsigned long long)t->met,
		       (unsigned long long)t->followed);
	printf("; %zu finding%s: %s/summary.txt\n", t->findings, t->findings == 1 ? "" : "s", out);
}

static int cmd_sweep(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "scenario", required_argument, NULL, 's' }, { "points", required_argument, NULL, 'P' },
		{ "output", required_argument, NULL, 'o' }, { "jobs", required_argument, NULL, 'j' },
		{ "faults", required_argument, NULL, 'f' },
		{ "from-scratch", no_argument, NULL, 'F' }, { "run-timeout", required_argument, NULL, 'T' },
		{ "stall-timeout", required_argument, NULL, 'S' }, { "fork", no_argument, NULL, 'K' },
		{ "trace-covers", required_argument, NULL, 'L' }, { "shard", required_argument, NULL, 'I' },
		{ "map", required_argument, NULL, 'm' }, { "help", no_argument, NULL, 'h' },
		{ "quiet", no_argument, NULL, 'q' }, { 0 },
	};
	const char *maps[REPLAY_MAX_MAPS];
	enum trace_covers covers;
	struct sweep_opts o = { .jobs = 1 };
	struct sweep_totals t = { 0 };
	char err[4096] = "";
	uint64_t jobs;
	int opt, rc;

	while ((opt = getopt_long(argc, argv, "hvqo:j:", opts, NULL)) != -1) {
		switch (opt) {
		case 's': o.scenario = cli_data("scenarios", optarg); break;
		case 'P': o.points = optarg; break;
		case 'o': o.out = optarg; break;
		case 'f': o.faults = optarg; break;
		case 'F': o.from_scratch = true; break;
		case 'K': o.fork = true; break;
		case 'm':
			if (o.nmaps == sizeof(maps) / sizeof(maps[0]))
				return usage_error(sweep_usage, "%s", "at most 8 --map files");
			maps[o.nmaps++] = cli_data("maps", optarg);
			o.maps = maps;
			break;
		case 'L':
			if (trace_covers_parse(optarg, &covers))
				return usage_error(sweep_usage, "--trace-covers takes window or life, not '%s'",
						   optarg);
			o.covers = covers;
			break;
		case 'j':
			if (parse_u64(optarg, &jobs) || !jobs || jobs > 256)
				return usage_error(sweep_usage, "--jobs takes 1 to 256, not '%s'", optarg);
			o.jobs = (unsigned int)jobs;
			break;
		case 'T':
			if ((rc = parse_timeout("run-timeout", optarg, sweep_usage, &o.run_timeout_s)))
				return rc;
			break;
		case 'S':
			if ((rc = parse_timeout("stall-timeout", optarg, sweep_usage, &o.stall_timeout_s)))
				return rc;
			break;
		case 'I':
			if ((rc = parse_shard(optarg, sweep_usage, &o.shard)))
				return rc;
			break;
		default:
			if (common_opt(opt, sweep_usage, &rc))
				return rc;
		}
	}
	if (optind + 1 != argc || !o.out)
		return usage_error(sweep_usage, "%s", !o.out ? "-o OUT is required" :
				   "one trace, please");
	o.trace = argv[optind];
	o.progress = progress_out();
	o.program = cli_program();
	o.report = stdout;
	rc = sweep_run(&o, &t, err, sizeof(err));
	if (rc)
		return report_error(err, rc == -EINVAL ? EXIT_INPUT : EXIT_ENV);
	if (o.shard.count) {
		/* the findings are the merge's to judge */
		printf("sweep: shard %u/%u: %llu runs (%llu booked before; %llu run now in %.2f s, %llu "
		       "stopped where they met the unfailed run, %llu where they met an earlier run); "
		       "once every shard is done: gpuiso merge %s\n", o.shard.index, o.shard.count,
		       (unsigned long long)t.shard_runs, (unsigned long long)t.resumed,
		       (unsigned long long)t.runs, t.seconds, (unsigned long long)t.met,
		       (unsigned long long)t.followed, o.out);
		return EXIT_OK;
	}
	sweep_totals_print(&t, o.out, true);
	return t.violation || t.crash || t.hung ? EXIT_FINDINGS : EXIT_OK;
}

static const char merge_usage[] =
	"gpuiso merge OUT [--jobs N] [-q] [-v]\n"
	"  the summary of a sweep or campaign run in shards (--shard I/N) into OUT, as one\n"
	"  run of all of it writes it: OUT/summary.json, OUT/summary.txt (and the findings'\n"
	"  trimmed reproducers, --jobs at a time). When a shard's runs are missing, it says\n"
	"  which (all of them in OUT/shards/missing) and writes no summary (docs/slurm.md).\n"
	"  Shard files of more than one work (other options or inputs, another sweep's or\n"
	"  campaign's) are refused: it names each work and its files, and merges nothing.\n"
	"  exit: 0 merged, 1 merged with findings, 2 bad input (shard files of other work\n"
	"  among them), 3 environment, 4 incomplete: runs missing, nothing merged";

static int cmd_merge(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "jobs", required_argument, NULL, 'j' }, { "help", no_argument, NULL, 'h' },
		{ "quiet", no_argument, NULL, 'q' }, { 0 },
	};
	struct campaign_totals ct;
	struct sweep_totals st;
	struct shard_header h;
	char err[8192] = "";
	bool findings;
	FILE *progress;
	uint64_t jobs = 1;
	int opt, rc;

	while ((opt = getopt_long(argc, argv, "hvqj:", opts, NULL)) != -1) {
		if (opt == 'j') {
			if (parse_u64(optarg, &jobs) || !jobs || jobs > 256)
				return usage_error(merge_usage, "--jobs takes 1 to 256, not '%s'", optarg);
		} else if (common_opt(opt, merge_usage, &rc)) {
			return rc;
		}
	}
	if (optind + 1 != argc)
		return usage_error(merge_usage, "%s", "one output folder, please");
	rc = shard_find(argv[optind], &h, err, sizeof(err));
	if (rc)
		return report_error(err, rc == -EINVAL || rc == -ENOENT ? EXIT_INPUT : EXIT_ENV);
	progress = progress_out();
	if (!strcmp(h.kind, "sweep")) {
		rc = sweep_merge(argv[optind], &h, (unsigned int)jobs, progress, stdout, cli_program(),
				 &st, err, sizeof(err));
		if (!rc)
			sweep_totals_print(&st, argv[optind], false);
		findings = st.violation || st.crash || st.hung;
	} else {
		rc = campaign_merge(argv[optind], &h, (unsigned int)jobs, progress, cli_program(), &ct,
				    err, sizeof(err));
		if (!rc)
			campaign_totals_print(&ct, argv[optind]);
		findings = ct.failed;
	}
	shard_header_free(&h);
	/* runs missing: nothing merged, and the user is told which */
	if (rc)
		return report_error(err, rc == -ENODATA ? EXIT_INCOMPLETE :
					 rc == -EINVAL ? EXIT_INPUT : EXIT_ENV);
	return findings ? EXIT_FINDINGS : EXIT_OK;
}

static const char faults_usage[] =
	"gpuiso faults list [--json]\n"
	"  --json  as JSON (gpuiso-faults/1): each point's name and what a failure there means";

static void faults_json(FILE *f)
{
	struct json j;

	json_init(&j, f);
	json_obj_begin(&j, NULL);
	json_str(&j, "schema", "gpuiso-faults/1");
	json_arr_begin(&j, "points");
	for (int p = 0; p < FP_NPOINTS; p++) {
		json_obj_begin(&j, NULL);
		json_str(&j, "name", fp_point_name(p));
		json_str(&j, "means", fp_point_describe(p));
		json_obj_end(&j);
	}
	json_arr_end(&j);
	json_obj_end(&j);
	json_end(&j); /* a write error: output_checked() */
}

static int cmd_faults_list(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' }, { "help", no_argument, NULL, 'h' }, { 0 },
	};
	bool json = false;
	int opt, rc;

	while ((opt = getopt_long(argc, argv, "hv", opts, NULL)) != -1) {
		if (opt == 'j')
			json = true;
		else if (common_opt(opt, faults_usage, &rc))
			return rc;
	}
	if (optind < argc)
		return usage_error(faults_usage, "unexpected argument '%s'", argv[optind]);
	if (json) {
		faults_json(stdout);
		return EXIT_OK;
	}
	for (int p = 0; p < FP_NPOINTS; p++)
		printf("%-22s %s\n", fp_point_name(p), fp_point_describe(p));
	return EXIT_OK;
}

static const char gen_usage[] =
	"gpuiso trace gen --profile NAME [--events N] [--seed S] -o DIR [-q] [-v]\n"
	"profiles: desktop, game, power-cycle, remap, dpc, cpu (gpuiso trace gen --profile list);\n"
	"N from 1 to 1000000000 (10000 by default); a desktop trace takes about 46 bytes an event";

/* The generator, its events counted for a progress report. */
struct gen_feed {
	struct gen *g;
	struct progress progress;
	uint64_t done;
};

static int gen_next_shown(void *ctx, struct wl_event *e)
{
	struct gen_feed *feed = ctx;
	int rc = gen_next(feed->g, e);

	if (rc > 0)
		progress_tick(&feed->progress, ++feed->done);
	return rc;
}

static int cmd_trace_gen(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "profile", required_argument, NULL, 'P' }, { "events", required_argument, NULL, 'n' },
		{ "seed", required_argument, NULL, 'S' }, { "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' }, { "quiet", no_argument, NULL, 'q' }, { 0 },
	};
	const char *profile = NULL, *dir = NULL;
	uint64_t events = 10000, seed = 1;
	struct gen_feed feed = { 0 };
	char err[512] = "";
	int opt, rc;

	while ((opt = getopt_long(argc, argv, "hvqo:", opts, NULL)) != -1) {
		switch (opt) {
		case 'P': profile = optarg; break;
		case 'o': dir = optarg; break;
		case 'n':
			if (parse_u64(optarg, &events) || !events || events > GEN_MAX_EVENTS)
				return usage_error(gen_usage, "--events takes 1 to 1000000000, not '%s'", optarg);
			break;
		case 'S':
			if (parse_u64(optarg, &seed))
				return usage_error(gen_usage, "--seed takes a number, not '%s'", optarg);
			break;
		default:
			if (common_opt(opt, gen_usage, &rc))
				return rc;
		}
	}
	if (profile && !strcmp(profile, "list")) {
		for (const char *const *p = gen_profiles(); *p; p++)
			printf("%-12s %s\n", *p, gen_describe(*p));
		return EXIT_OK;
	}
	if (!profile || !dir || optind < argc)
		return usage_error(gen_usage, "%s", !profile ? "--profile is required" :
				   !dir ? "-o DIR is required" : "unexpected argument");
	rc = gen_create(profile, events, seed, &feed.g);
	if (rc == -ENOENT)
		return usage_error(gen_usage, "unknown profile '%s'", profile);
	if (rc)
		return usage_error(gen_usage, "cannot generate: %s", strerror(-rc));
	progress_begin(&feed.progress, progress_out(), "trace gen", "events", events);
	rc = ctf_write(dir, gen_next_shown, &feed, err, sizeof(err));
	progress_end(&feed.progress);
	gen_destroy(feed.g);
	if (rc) {
		/* (the writer's messages mostly begin with the folder already) */
		fprintf(stderr, "gpuiso: trace gen: %s%s%s\n", strncmp(err, dir, strlen(dir)) ? dir : "",
			strncmp(err, dir, strlen(dir)) ? ": " : "", err[0] ? err : strerror(-rc));
		return rc == -EEXIST || rc == -EINVAL ? EXIT_INPUT : EXIT_ENV;
	}
	return EXIT_OK;
}

static const char info_usage[] =
	"gpuiso trace info TRACE [--json] [-v]\n"
	"  TRACE  a CTF folder (or a folder above several), an ftrace trace.dat or an .etl file";

static int cmd_trace_info(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' }, { "help", no_argument, NULL, 'h' }, { 0 },
	};
	char err[512] = "";
	bool json = false;
	int opt, rc;

	while ((opt = getopt_long(argc, argv, "hv", opts, NULL)) != -1) {
		if (opt == 'j')
			json = true;
		else if (common_opt(opt, info_usage, &rc))
			return rc;
	}
	if (optind + 1 != argc)
		return usage_error(info_usage, "%s", "one trace, please");
	rc = trace_info(argv[optind], json, stdout, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "gpuiso: trace info: %s\n", err[0] ? err : strerror(-rc));
		return ctf_error_is_environment(rc) || rc == -EIO ? EXIT_ENV : EXIT_INPUT;
	}
	return EXIT_OK;
}

static const char dump_usage[] =
	"gpuiso trace dump TRACE [--map FILE.yaml]... [-o FILE] [-v]\n"
	"  the workload events of a trace as text, one line each, read as replay reads them\n"
	"  (through import maps for another tool's trace):\n"
	"    alloc_create ts=1000 adapter=0 id=7 bytes=65536 segment=system flags=0x1\n"
	"  the event, its timestamp (ns), then every field of the catalogue by name; \"lost events=N\"\n"
	"  where the tracer lost events; '#' comments (docs/trace-events.md, \"The text form\")\n"
	"  --map  an import map for a foreign trace, as for replay (up to 8)\n"
	"  -o     the text into FILE (replaced once the whole trace was read), not stdout\n"
	"  exit: 0 ok, 2 bad input (the trace or a map: says where), 3 environment";

static int cmd_trace_dump(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "map", required_argument, NULL, 'M' }, { "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' }, { 0 },
	};
	const char *maps[8], *out = NULL;
	size_t nmaps = 0;
	char err[4096] = "";
	int opt, rc;

	while ((opt = getopt_long(argc, argv, "hvo:", opts, NULL)) != -1) {
		switch (opt) {
		case 'M':
			if (nmaps == sizeof(maps) / sizeof(maps[0]))
				return usage_error(dump_usage, "%s", "at most 8 --map files");
			maps[nmaps++] = cli_data("maps", optarg);
			break;
		case 'o': out = optarg; break;
		default:
			if (common_opt(opt, dump_usage, &rc))
				return rc;
		}
	}
	if (optind + 1 != argc)
		return usage_error(dump_usage, "%s", optind < argc ? "one trace, please" :
				   "missing the trace (a CTF folder, a trace.dat or an .etl file)");
	rc = text_dump_file(argv[optind], maps, nmaps, out, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "gpuiso: trace dump: %s\n", err[0] ? err : strerror(-rc));
		return ctf_error_is_environment(rc) || rc == -EIO || rc == -EACCES ? EXIT_ENV
										  : EXIT_INPUT;
	}
	return EXIT_OK;
}

static const char make_usage[] =
	"gpuiso trace make FILE -o DIR [-v]\n"
	"  a CTF trace (babeltrace2 and gpuiso replay read it) from the text form of one, as\n"
	"  gpuiso trace dump writes it (docs/trace-events.md, \"The text form\"); FILE - reads stdin.\n"
	"  Every line is checked first: nothing is written unless all of it is good, and each\n"
	"  error says FILE:LINE:COL. Every field of an event is required, in any order.\n"
	"  -o     the trace folder to write (must not exist, or be empty)\n"
	"  exit: 0 ok, 2 bad input (the text, or DIR not empty), 3 environment";

static int cmd_trace_make(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' }, { "help", no_argument, NULL, 'h' }, { 0 },
	};
	const char *dir = NULL;
	char err[8192] = "";
	int opt, rc;

	while ((opt = getopt_long(argc, argv, "hvo:", opts, NULL)) != -1) {
		if (opt == 'o')
			dir = optarg;
		else if (common_opt(opt, make_usage, &rc))
			return rc;
	}
	if (!dir || optind + 1 != argc)
		return usage_error(make_usage, "%s", !dir ? "-o DIR is required" :
				   optind < argc ? "one text file (or -), please" :
				   "missing the text file (or - for stdin)");
	rc = text_make(argv[optind], dir, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "%s%s\n", rc == -EINVAL && strstr(err, ": error: ") ? ""
			: "gpuiso: trace make: ", err[0] ? err : strerror(-rc));
		return rc == -EINVAL || rc == -EEXIST || rc == -ENOENT || rc == -EISDIR ||
		       rc == -ENOTDIR ? EXIT_INPUT : EXIT_ENV;
	}
	return EXIT_OK;
}

static const char trim_usage[] =
	"gpuiso trace trim TRACE -o OUT [--scenario FILE] [--faults FILE] [--fail-nth POINT:N]\n"
	"                  [--trace-covers window|life]\n"
	"                  [--map FILE.yaml]... [--max-replays K] [--no-cache] [--cache-dir DIR] [-q] [-v]\n"
	"  the smallest part of TRACE whose replay breaks as TRACE's does (the same outcome,\n"
	"  first violation and broken invariants; with --fail-nth, the failure at the same hit of\n"
	"  the same event), written as a CTF trace to OUT and replayed from there before the\n"
	"  command that reproduces it is printed (docs/trace-events.md, \"Trimming a trace\")\n"
	"  --max-replays  at most K replays to trim (default 50000; two more replay what was\n"
	"                 kept: from memory, and from disk); then the smallest trace found so\n"
	"                 far is the one written\n"
	"  --faults, --map, --no-cache, --cache-dir, --trace-covers: as for replay";

static int cmd_trace_trim(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' }, { "scenario", required_argument, NULL, 's' },
		{ "fail-nth", required_argument, NULL, 'F' }, { "faults", required_argument, NULL, 'f' },
		{ "trace-covers", required_argument, NULL, 'L' }, { "map", required_argument, NULL, 'm' },
		{ "max-replays", required_argument, NULL, 'R' }, { "no-cache", no_argument, NULL, 'N' },
		{ "cache-dir", required_argument, NULL, 'C' }, { "help", no_argument, NULL, 'h' },
		{ "quiet", no_argument, NULL, 'q' },
		{ 0 },
	};
	struct trim_opts o = { .cache = true };
	struct fault_plan plan = { 0 }, base = { 0 };
	struct scenario scn = { 0 };
	struct trim_result r;
	const char *maps[8];
	char err[4096] = "";
	int opt, rc;

	while ((opt = getopt_long(argc, argv, "hvqo:", opts, NULL)) != -1) {
		switch (opt) {
		case 'o': o.out = optarg; break;
		case 's': o.scenario_path = cli_data("scenarios", optarg); break;
		case 'N': o.cache = false; break;
		case 'f': o.base_path = optarg; break;
		case 'F':
			memset(&plan, 0, sizeof(plan));
			if (fault_plan_fail_nth(&plan, optarg))
				return usage_error(trim_usage, "--fail-nth takes POINT:N (gpuiso faults list), not '%s'",
						   optarg);
			for (int p = 0; p < FP_NPOINTS; p++) {
				if (plan.armed[p]) {
					o.fail = true;
					o.point = (enum fp_point)p;
					o.nth = plan.rule[p].nth;
				}
			}
			break;
		case 'L':
			if (trace_covers_parse(optarg, &o.covers))
				return usage_error(trim_usage, "--trace-covers takes window or life, not '%s'",
						   optarg);
			break;
		case 'm':
			if (o.nmaps == sizeof(maps) / sizeof(maps[0]))
				return usage_error(trim_usage, "%s", "at most 8 --map files");
			maps[o.nmaps++] = cli_data("maps", optarg);
			o.maps = maps;
			break;
		case 'R':
			if (parse_u64(optarg, &o.max_replays) || !o.max_replays)
				return usage_error(trim_usage, "--max-replays takes a number from 1, not '%s'",
						   optarg);
			break;
		case 'C':
			if (!*optarg)
				return usage_error(trim_usage, "--cache-dir takes a folder%s", "");
			o.cache_dir = optarg;
			break;
		default:
			if (common_opt(opt, trim_usage, &rc))
				return rc;
		}
	}
	if (optind + 1 != argc || !o.out)
		return usage_error(trim_usage, "%s", !o.out ? "-o OUT is required" :
				   optind < argc ? "one trace, please" :
				   "missing the trace (a CTF folder, a trace.dat or an .etl file)");
	o.trace = argv[optind];
	rc = load_scenario(o.scenario_path, NULL, &scn);
	if (rc)
		return load_exit(rc);
	o.scn = &scn;
	if (o.base_path) {
		rc = fault_plan_load(o.base_path, &base, err, sizeof(err));
		if (rc) {
			fputs(err, stderr);
			scenario_free(&scn);
			return load_exit(rc);
		}
		o.base = &base;
	}
	o.progress = progress_out();
	o.program = cli_program();
	rc = trim_run(&o, &r, err, sizeof(err));
	fault_plan_free(&base);
	scenario_free(&scn);
	if (rc) {
		fprintf(stderr, "gpuiso: %s\n", err[0] ? err : strerror(-rc));
		return rc == -EINVAL || rc == -EEXIST ? EXIT_INPUT : EXIT_ENV;
	}
	printf("trim: %llu -> %llu events in %llu replays (%.1f s)%s; reproduce: ",
	       (unsigned long long)r.events, (unsigned long long)r.kept,
	       (unsigned long long)r.replays, r.seconds,
	       r.budget_spent ? ", the replay budget spent" : "");
	trim_reproducer(&o, &r, stdout); /* a write error: output_checked() */
	printf("\n");
	return EXIT_OK;
}

static const char lint_usage[] =
	"gpuiso lint-driver FILE.sys [--json] [-v]\n"
	"  the HLK import scan of a driver image (PE32+): lists its imports from ntoskrnl.exe and\n"
	"  flags the seven Mm functions a driver opting in to IOMMU isolation must not import,\n"
	"  and imports from ntoskrnl.exe by ordinal, which cannot be checked (docs/lint-driver.md)\n"
	"  exit: 0 clean, 1 findings, 2 bad input (no such file, not a PE32+ image, malformed,\n"
	"  truncated), 3 the file cannot be read (an I/O error, no permission)";

static int cmd_lint_driver(int argc, char **argv)
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
		else if (common_opt(opt, lint_usage, &rc))
			return rc;
	}
	if (optind + 1 != argc)
		return usage_error(lint_usage, "%s", optind < argc ? "one driver image, please" :
				   "missing the driver image");
	rc = lint_driver(argv[optind], &rep, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "gpuiso: lint-driver: %s\n", err[0] ? err : strerror(-rc));
		return lint_error_is_input(rc) ? EXIT_INPUT : EXIT_ENV;
	}
	if (json)
		lint_print_json(&rep, stdout); /* a write error: output_checked() */
	else
		lint_print_text(&rep, stdout);
	rc = rep.nfindings ? EXIT_FINDINGS : EXIT_OK;
	lint_report_free(&rep);
	return rc;
}

static const struct command commands[] = {
	{ "version", cmd_version, version_usage, "version and what was compiled in" },
	{ "scenario explain", cmd_scenario_explain, explain_usage,
	  "validate a scenario and print what the model decides per adapter" },
	{ "scenario from-trace", cmd_scenario_from_trace, from_trace_usage,
	  "the machine a trace ran on (its DxgKrnl adapter events), as a scenario" },
	{ "trace gen", cmd_trace_gen, gen_usage, "write a synthetic CTF trace" },
	{ "trace info", cmd_trace_info, info_usage, "event counts, time span, discarded events" },
	{ "trace dump", cmd_trace_dump, dump_usage, "a trace's workload events as text, one line each" },
	{ "trace make", cmd_trace_make, make_usage, "a CTF trace from that text" },
	{ "trace trim", cmd_trace_trim, trim_usage,
	  "the smallest part of a trace that still breaks the same way" },
	{ "replay", cmd_replay, replay_usage, "replay a trace through the model; summary and results JSON" },
	{ "faults list", cmd_faults_list, faults_usage, "the injection points and what a failure at each means" },
	{ "campaign run", cmd_campaign_run, campaign_usage, "run (or resume) a fault-injection campaign" },
	{ "sweep", cmd_sweep, sweep_usage, "fail every injection-point hit of a trace, one at a time" },
	{ "merge", cmd_merge, merge_usage, "the summary of a sweep or campaign run in shards" },
	{ "bench", cmd_bench, bench_usage, "micro and replay benchmarks (bench JSON with --json)" },
	{ "store add", cmd_store_add, store_add_usage, "add run files to a results store (SQLite)" },
	{ "store list", cmd_store_list, store_list_usage, "the runs in a results store" },
	{ "store findings", cmd_store_findings, store_findings_usage,
	  "findings of stored campaigns and sweeps: new, known, gone" },
	{ "compare", cmd_compare, compare_usage, "series by series: before, after, change, verdict" },
	{ "changes", cmd_changes, changes_usage, "where each stored series changed level, and alarms" },
	{ "ack", cmd_ack, ack_usage, "acknowledge the changes of a revision as expected" },
	{ "dash", cmd_dash, dash_usage, "write the static HTML dashboard of a store" },
	{ "lint-driver", cmd_lint_driver, lint_usage, "the HLK import scan of a driver image (.sys)" },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: gpuiso COMMAND [OPTIONS]   (gpuiso COMMAND --help for more)\n\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-19s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "\nlong work (replay, trace gen, trace trim, sweep, campaign run, merge) reports its\n"
		   "progress on stderr: a bar on a terminal, a line every 10 s elsewhere; -q: none\n");
	fprintf(f, "\nexit codes: 0 ok, 1 violations found, 2 bad input, 3 environment problem,\n"
		   "4 incomplete (merge: runs missing)\n");
}

/* What a command printed must have reached stdout (a full disk, a closed pipe). */
static int output_checked(int rc)
{
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "gpuiso: writing standard output: %s\n",
			errno ? strerror(errno) : "write error");
		return rc == EXIT_OK || rc == EXIT_FINDINGS ? EXIT_ENV : rc;
	}
	return rc;
}

int main(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? EXIT_INPUT : EXIT_OK;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V"))
		argv[1] = "version"; /* the command, with whatever follows (--json) */
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		const struct command *cmd = &commands[i];
		size_t words = strchr(cmd->name, ' ') ? 2 : 1;
		char name[64];

		if ((size_t)argc <= words)
			continue;
		snprintf(name, sizeof(name), words == 2 ? "%s %s" : "%s", argv[1], argv[2]);
		if (strcmp(name, cmd->name))
			continue;
		/* getopt sees "gpuiso scenario explain" as argv[0], and says so in its messages */
		char prog[80];

		snprintf(prog, sizeof(prog), "gpuiso %s", cmd->name);
		argv[words] = prog;
		return output_checked(cmd->run(argc - (int)words, argv + words));
	}
	/*
	 * A known first word: its commands, on stdout when asked for with
	 * --help, else (a missing or wrong second word) as a usage error.
	 */
	bool known = false, help = argc > 2 && (!strcmp(argv[2], "--help") || !strcmp(argv[2], "-h"));

	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		size_t len = strcspn(commands[i].name, " ");

		if (commands[i].name[len] && !strncmp(argv[1], commands[i].name, len) &&
		    !argv[1][len]) {
			fprintf(help ? stdout : stderr, "usage: %s\n", commands[i].usage);
			known = true;
		}
	}
	if (known)
		return help ? EXIT_OK : EXIT_INPUT;
	fprintf(stderr, "gpuiso: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return EXIT_INPUT;
}
