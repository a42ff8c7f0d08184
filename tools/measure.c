/* SPDX-License-Identifier: MIT */
/*
 * The measurement commands: the results store, comparisons, change points
 * over history and the dashboard. Each parses its options and calls bench/.
 */
#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bench/changes.h"
#include "bench/compare.h"
#include "common/array.h"
#include "common/json.h"
#include "common/units.h"
#include "bench/dash.h"
#include "bench/findings.h"
#include "bench/history.h"
#include "bench/store.h"
#include "cli.h"

/* A significance level: 0 < P < 1, a decimal (units_parse_decimal()). */
static int parse_alpha(const char *s, double *out)
{
	double v;

	if (units_parse_decimal(s, &v) || v <= 0 || v >= 1)
		return -EINVAL;
	*out = v;
	return 0;
}

/* A percentage, a decimal (units_parse_decimal()), as a fraction. */
static int parse_pct(const char *s, double *out)
{
	double v;

	if (units_parse_decimal(s, &v))
		return -EINVAL;
	*out = v / 100;
	return 0;
}

/* Say why reading the store @path failed with @rc, for command @cmd; the exit code. */
static int store_failed(const char *cmd, const char *path, const struct store *s, int rc)
{
	if (*store_error(s))
		fprintf(stderr, "gpuiso: %s: %s\n", cmd, store_error(s));
	else
		fprintf(stderr, "gpuiso: %s: %s: %s\n", cmd, path, strerror(-rc));
	return cli_exit(rc);
}

/* Open an existing store for command @cmd; 0, or the exit code after saying why. */
static int open_store(const char *cmd, const char *path, struct store **s)
{
	char err[1024];
	int rc = store_open(path, false, s, err, sizeof(err));

	if (!rc)
		return 0;
	fprintf(stderr, "gpuiso: %s: %s\n", cmd, err);
	return cli_exit(rc);
}

/* Every path's run files into @set; 0, or a negative errno after saying why. */
static int read_paths(const char *cmd, char *const *paths, int n, struct runfile_set *set)
{
	char err[2048] = "";
	int rc = 0;

	for (int i = 0; !rc && i < n; i++)
		rc = runfile_read_path(paths[i], set, err, sizeof(err));
	if (!rc)
		return 0;
	fprintf(stderr, "gpuiso: %s: %s%s", cmd, err,
		err[0] && err[strlen(err) - 1] == '\n' ? "" : "\n");
	return rc;
}

static int set_tag(char **tag, const char *value, bool force)
{
	char *copy;

	if (!value || (*tag && !force))
		return 0;
	copy = strdup(value);
	if (!copy)
		return -ENOMEM;
	free(*tag);
	*tag = copy;
	return 0;
}

/* --- store add / list --- */

const char store_add_usage[] =
	"gpuiso store add DB FILE|DIR... [--rev REV] [--campaign NAME] [--date ISO8601] [-v]\n"
	"  adds results, bench, campaign and sweep JSON (every *.json below a DIR) in one\n"
	"  transaction; a run already stored is left as it is. --rev and --date replace the\n"
	"  files' own; --campaign tags runs that have none.";

int cmd_store_add(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "rev", required_argument, NULL, 'r' }, { "campaign", required_argument, NULL, 'c' },
		{ "date", required_argument, NULL, 'd' }, { "help", no_argument, NULL, 'h' }, { 0 },
	};
	const char *rev = NULL, *campaign = NULL, *date = NULL;
	struct runfile_set fs = { 0 };
	struct progress progress;
	struct store *s = NULL;
	char err[1024];
	size_t added = 0;
	int opt, rc;

	while ((opt = getopt_long(argc, argv, "hv", opts, NULL)) != -1) {
		if (opt == 'r')
			rev = optarg;
		else if (opt == 'c')
			campaign = optarg;
		else if (opt == 'd' && !runfile_date_ok(optarg))
			return usage_error(store_add_usage,
					   "--date takes a UTC time as YYYY-MM-DDTHH:MM:SSZ, not '%s'", optarg);
		else if (opt == 'd')
			date = optarg;
		else if (common_opt(opt, store_add_usage, &rc))
			return rc;
	}
	if (argc - optind < 2)
		return usage_error(store_add_usage, "%s", "a store and at least one file, please");
	/* every file is read and checked before the store is touched */
	fs.progress = &progress;
	progress_begin(&progress, progress_out(), "store add", "files read", 0);
	rc = read_paths("store add", argv + optind + 1, argc - optind - 1, &fs);
	progress_end(&progress);
	if (rc) {
		runfile_set_free(&fs);
		return cli_exit(rc);
	}
	for (size_t i = 0; i < fs.n; i++) {
		rc = set_tag(&fs.r[i].git_rev, rev, true) ?: set_tag(&fs.r[i].date, date, true)
			?: set_tag(&fs.r[i].campaign, campaign, false);
		if (rc) {
			runfile_set_free(&fs);
			return EXIT_ENV;
		}
	}
	rc = store_open(argv[optind], true, &s, err, sizeof(err));
	if (!rc)
		rc = store_add(s, fs.r, fs.n, &added, err, sizeof(err));
	store_close(s);
	if (rc) {
		fprintf(stderr, "gpuiso: store add: %s\n", err);
		runfile_set_free(&fs);
		return cli_exit(rc);
	}
	printf("%zu run%s added, %zu already stored\n", added, added == 1 ? "" : "s", fs.n - added);
	runfile_set_free(&fs);
	return EXIT_OK;
}

const char store_list_usage[] =
	"gpuiso store list DB [--json] [-v]\n"
	"  --json  as JSON (gpuiso-store-list/1): the runs, in the order of their dates";

/* The widths of the columns whose values vary in length (host, backend). */
struct list_widths {
	int host, backend;
};

static const char *or_dash(const char *s)
{
	return s ? s : "-";
}

static int list_measure(const struct store_run *r, void *ctx)
{
	struct list_widths *w = ctx;

	if ((int)strlen(or_dash(r->host)) > w->host)
		w->host = (int)strlen(or_dash(r->host));
	if ((int)strlen(or_dash(r->backend)) > w->backend)
		w->backend = (int)strlen(or_dash(r->backend));
	return 0;
}

static int list_one(const struct store_run *r, void *ctx)
{
	const struct list_widths *w = ctx;

	printf("%5lld  %-20s  %-8s  %-12.12s  %-*s  %-*s  %7lld  %s\n", r->id, r->date, r->kind,
	       or_dash(r->git_rev), w->host, or_dash(r->host), w->backend, or_dash(r->backend),
	       r->nmetrics, r->campaign ? r->campaign : or_dash(r->trace));
	return 0;
}

/* One run as a JSON object (null for what is not known). */
static int list_json_one(const struct store_run *r, void *ctx)
{
	struct json *j = ctx;

	json_obj_begin(j, NULL);
	json_u64(j, "id", (uint64_t)r->id);
	json_str(j, "date", r->date);
	json_str(j, "kind", r->kind);
	json_str(j, "git_rev", r->git_rev);
	json_str(j, "host", r->host);
	json_str(j, "backend", r->backend);
	json_str(j, "benchmark", r->benchmark);
	json_str(j, "campaign", r->campaign);
	json_str(j, "trace", r->trace);
	json_str(j, "scenario", r->scenario);
	json_u64(j, "metrics", (uint64_t)r->nmetrics);
	json_obj_end(j);
	return 0;
}

int cmd_store_list(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' }, { "help", no_argument, NULL, 'h' }, { 0 },
	};
	struct list_widths w = { (int)strlen("host"), (int)strlen("backend") };
	bool as_json = false;
	struct store *s;
	struct json j;
	int opt, rc;

	while ((opt = getopt_long(argc, argv, "hv", opts, NULL)) != -1) {
		if (opt == 'j')
			as_json = true;
		else if (common_opt(opt, store_list_usage, &rc))
			return rc;
	}
	if (argc - optind != 1)
		return usage_error(store_list_usage, "%s", "one store, please");
	rc = open_store("store list", argv[optind], &s);
	if (rc)
		return rc;
	if (as_json) {
		json_init(&j, stdout);
		json_obj_begin(&j, NULL);
		json_str(&j, "schema", "gpuiso-store-list/1");
		json_arr_begin(&j, "runs");
		rc = store_runs(s, list_json_one, &j);
		json_arr_end(&j);
		json_obj_end(&j);
		if (!rc)
			json_end(&j); /* a write error: output_checked() */
	} else {
		rc = store_runs(s, list_measure, &w);
	}
	if (!rc && !as_json) {
		printf("%5s  %-20s  %-8s  %-12s  %-*s  %-*s  %7s  %s\n", "id", "date", "kind", "revision",
		       w.host, "host", w.backend, "backend", "metrics", "campaign or trace");
		rc = store_runs(s, list_one, &w);
	}
	if (rc)
		rc = store_failed("store list", argv[optind], s, rc);
	store_close(s);
	return rc;
}

/* --- store findings --- */

const char store_findings_usage[] =
	"gpuiso store findings DB [--series GLOB] [--all] [-v]\n"
	"  the findings of the stored campaigns and sweeps (their failing runs grouped by what\n"
	"  broke), series by series (a campaign by name, a sweep by trace and scenario, on a\n"
	"  host): those of each series' latest run (--all: of every run), each new (no earlier\n"
	"  run of the series had it), known (since the first that did) or gone (the run before\n"
	"  had it, this one does not). --series picks series by their benchmark's name\n"
	"  (`store list`, e.g. 'campaign name=nightly-pin *'). Exits 1 when the latest run of\n"
	"  a series has a new finding (a gate for CI).\n"
	"  --json  as JSON (gpuiso-store-findings/1)";

/*
 * "in OP (N runs, hits A..B), ...": the contexts of a finding met in more
 * than one operation, as summary.txt lists them under it.
 */
static void findings_print_contexts(const struct run_finding *f)
{
	if (f->ncontexts < 2)
		return;
	printf("           in");
	for (size_t i = 0; i < f->ncontexts; i++) {
		const struct run_context *c = &f->contexts[i];

		printf("%s %s (%lld run%s", i ? "," : "", c->operation, c->runs, c->runs == 1 ? "" : "s");
		if (c->nth_max)
			printf(", hits %lld..%lld", c->nth_min, c->nth_max);
		printf(")");
	}
	printf("\n");
}

/* One run of a series: its findings and their states. */
static void findings_print_run(const struct findings_run *run)
{
	printf("  %s  revision %.12s: ", run->date, run->rev ? run->rev : "?");
	if (!run->recorded) {
		printf("no findings recorded (a summary written before findings)\n");
		return;
	}
	printf("%zu finding%s: %zu new, %zu known, %zu gone\n", run->nnew + run->nknown,
	       run->nnew + run->nknown == 1 ? "" : "s", run->nnew, run->nknown, run->ngone);
	for (size_t i = 0; i < run->n; i++) {
		const struct judged_finding *f = &run->f[i];

		printf("    %-5s  %s  %-6s  %lld run%s", finding_state_name(f->state), f->f.signature,
		       f->f.blame, f->f.runs, f->f.runs == 1 ? "" : "s");
		if (f->f.nth_max)
			printf(" (hits %lld-%lld)", f->f.nth_min, f->f.nth_max);
		printf("  %s", f->f.title);
		if (f->state == FINDING_KNOWN)
			printf("  (since %.12s)", f->since_rev ? f->since_rev : f->since_date);
		else if (f->state == FINDING_GONE)
			printf("  (last in %.12s)", f->since_rev ? f->since_rev : f->since_date);
		printf("\n");
		findings_print_contexts(&f->f);
		printf("           %s\n", f->f.reproduce);
		if (f->f.trimmed)
			printf("           trimmed: %s (%lld of %lld events)\n", f->f.trimmed,
			       f->f.trimmed_events, f->f.trimmed_of);
	}
}

/* A finding's contexts: [{operation, runs, nth_min, nth_max (sweeps)}], or null when unknown. */
static void findings_json_contexts(struct json *j, const struct run_finding *f)
{
	if (!f->ncontexts) {
		json_null(j, "contexts");
		return;
	}
	json_arr_begin(j, "contexts");
	for (size_t i = 0; i < f->ncontexts; i++) {
		json_obj_begin(j, NULL);
		json_str(j, "operation", f->contexts[i].operation);
		json_u64(j, "runs", (uint64_t)f->contexts[i].runs);
		if (f->contexts[i].nth_max) {
			json_u64(j, "nth_min", (uint64_t)f->contexts[i].nth_min);
			json_u64(j, "nth_max", (uint64_t)f->contexts[i].nth_max);
		}
		json_obj_end(j);
	}
	json_arr_end(j);
}

/* One finding of a run as a JSON object. */
static void findings_json_finding(struct json *j, const struct judged_finding *f)
{
	json_obj_begin(j, NULL);
	json_str(j, "state", finding_state_name(f->state));
	json_str(j, "signature", f->f.signature);
	json_str(j, "title", f->f.title);
	json_str(j, "blame", f->f.blame);
	json_str(j, "outcome", f->f.outcome);
	json_str(j, "code", f->f.code);
	json_str(j, "point", f->f.point);
	json_str(j, "operation", f->f.operation);
	json_u64(j, "runs", (uint64_t)f->f.runs);
	if (f->f.nth_max) {
		json_u64(j, "nth_min", (uint64_t)f->f.nth_min);
		json_u64(j, "nth_max", (uint64_t)f->f.nth_max);
	}
	findings_json_contexts(j, &f->f);
	/* known: since the series' first run that had it; gone: last in the run before */
	json_str(j, "since_rev", f->since_rev);
	json_str(j, "since_date", f->since_date);
	json_str(j, "reproduce", f->f.reproduce);
	if (f->f.trimmed) {
		json_obj_begin(j, "trimmed");
		json_str(j, "trace", f->f.trimmed);
		json_u64(j, "events", (uint64_t)f->f.trimmed_events);
		json_u64(j, "of", (uint64_t)f->f.trimmed_of);
		json_obj_end(j);
	} else {
		json_null(j, "trimmed");
	}
	json_obj_end(j);
}

/* One run of a series as a JSON object. */
static void findings_json_run(struct json *j, const struct findings_run *run)
{
	json_obj_begin(j, NULL);
	json_u64(j, "run", (uint64_t)run->id);
	json_str(j, "date", run->date);
	json_str(j, "git_rev", run->rev);
	json_bool(j, "recorded", run->recorded);
	json_u64(j, "new", run->nnew);
	json_u64(j, "known", run->nknown);
	json_u64(j, "gone", run->ngone);
	json_arr_begin(j, "findings");
	for (size_t i = 0; i < run->n; i++)
		findings_json_finding(j, &run->f[i]);
	json_arr_end(j);
	json_obj_end(j);
}

/* The findings as gpuiso-store-findings/1: series, each with its runs (the latest, or all). */
static void findings_json(const struct findings *fs, bool all, size_t new_latest)
{
	struct json j;

	json_init(&j, stdout);
	json_obj_begin(&j, NULL);
	json_str(&j, "schema", "gpuiso-store-findings/1");
	json_u64(&j, "new_in_latest", new_latest);
	json_arr_begin(&j, "series");
	for (size_t i = 0; i < fs->n; i++) {
		bool first = !i || strcmp(fs->runs[i - 1].series, fs->runs[i].series);
		bool last = i + 1 == fs->n || strcmp(fs->runs[i + 1].series, fs->runs[i].series);

		if (first) {
			json_obj_begin(&j, NULL);
			json_str(&j, "series", fs->runs[i].series);
			json_arr_begin(&j, "runs");
		}
		if (all || last)
			findings_json_run(&j, &fs->runs[i]);
		if (last) {
			json_arr_end(&j);
			json_obj_end(&j);
		}
	}
	json_arr_end(&j);
	json_obj_end(&j);
	json_end(&j); /* a write error: output_checked() */
}

int cmd_store_findings(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "series", required_argument, NULL, 's' }, { "all", no_argument, NULL, 'a' },
		{ "json", no_argument, NULL, 'j' }, { "help", no_argument, NULL, 'h' }, { 0 },
	};
	const char *series = NULL;
	bool all = false, as_json = false;
	size_t new_latest = 0;
	struct findings fs;
	struct store *s;
	int opt, rc;

	while ((opt = getopt_long(argc, argv, "hv", opts, NULL)) != -1) {
		if (opt == 's')
			series = optarg;
		else if (opt == 'a')
			all = true;
		else if (opt == 'j')
			as_json = true;
		else if (common_opt(opt, store_findings_usage, &rc))
			return rc;
	}
	if (argc - optind != 1)
		return usage_error(store_findings_usage, "%s", "one store, please");
	rc = open_store("store findings", argv[optind], &s);
	if (rc)
		return rc;
	rc = findings_load(s, series, &fs);
	/* the contexts of the runs shown: the latest of each series, or all */
	for (size_t i = 0; !rc && i < fs.n; i++)
		if (all || i + 1 == fs.n || strcmp(fs.runs[i + 1].series, fs.runs[i].series))
			rc = findings_contexts(s, &fs, &fs.runs[i]);
	if (rc) {
		rc = store_failed("store findings", argv[optind], s, rc);
		goto free_findings;
	}
	for (size_t i = 0; i < fs.n; i++)
		if (i + 1 == fs.n || strcmp(fs.runs[i + 1].series, fs.runs[i].series))
			new_latest += fs.runs[i].nnew;
	if (as_json) {
		findings_json(&fs, all, new_latest);
		rc = new_latest ? EXIT_FINDINGS : EXIT_OK;
		goto free_findings;
	}
	if (!fs.n)
		printf("no campaign or sweep stored%s\n", series ? " in the series asked for" : "");
	for (size_t i = 0; i < fs.n; i++) {
		bool last = i + 1 == fs.n || strcmp(fs.runs[i + 1].series, fs.runs[i].series);

		if (!i || strcmp(fs.runs[i - 1].series, fs.runs[i].series))
			printf("%s%s\n", i ? "\n" : "", fs.runs[i].series);
		if (all || last)
			findings_print_run(&fs.runs[i]);
	}
	if (new_latest)
		printf("\n%zu new finding%s in the latest runs: exit 1\n", new_latest,
		       new_latest == 1 ? "" : "s");
	rc = new_latest ? EXIT_FINDINGS : EXIT_OK;
free_findings:
	findings_free(&fs);
	store_close(s);
	return rc;
}

/* --- compare --- */

const char compare_usage[] =
	"gpuiso compare BEFORE AFTER [--threshold PCT] [--alpha P] [--metric GLOB] [--all] [--json]\n"
	"               [-v]\n"
	"gpuiso compare --db DB REV_BEFORE REV_AFTER [...]\n"
	"  BEFORE and AFTER are run files or folders of them (repeated samples), or with --db\n"
	"  git revisions in a store; series (a metric of a benchmark) are compared one by one.\n"
	"  Exact metrics (modeled time, counts, checks): any difference is a change. Measured\n"
	"  ones (wall clock): judged with 3 or more samples a side, by the Mann-Whitney U test\n"
	"  (with --db also against the history's revision-to-revision noise, and not at all\n"
	"  between runs of the same code on the same inputs), p < P (0.05) after\n"
	"  the Benjamini-Hochberg adjustment, and a change of at least PCT percent (20); with\n"
	"  fewer samples only an explicit --threshold judges them. Exits 1 when a series got worse.\n"
	"  --json: every series compared (--all or not) as gpuiso-compare/1, on stdout";

/* The rows as gpuiso-compare/1 (docs/results-store.md, "compare"); the regressions. */
static size_t compare_json(const struct compare_row *rows, size_t n, FILE *f)
{
	size_t regressions = 0;
	struct json j;

	for (size_t i = 0; i < n; i++)
		regressions += rows[i].verdict == COMPARE_REGRESSED;
	json_init(&j, f);
	json_obj_begin(&j, NULL);
	json_str(&j, "schema", "gpuiso-compare/1");
	json_u64(&j, "regressions", regressions);
	json_arr_begin(&j, "series");
	for (size_t i = 0; i < n; i++) {
		const struct compare_row *r = &rows[i];

		json_obj_begin(&j, NULL);
		json_str(&j, "benchmark", r->benchmark);
		json_str(&j, "metric", r->name);
		json_str(&j, "unit", r->unit);
		json_bool(&j, "exact", r->exact);
		json_double(&j, "before", r->before);
		json_double(&j, "after", r->after);
		json_double(&j, "change", r->change);
		json_double(&j, "ci_lo", r->ci_lo);
		json_double(&j, "ci_hi", r->ci_hi);
		json_double(&j, "p", r->p);
		json_u64(&j, "samples_before", r->nbefore);
		json_u64(&j, "samples_after", r->nafter);
		json_str(&j, "verdict", compare_verdict_name(r->verdict));
		json_bool(&j, "against_history", r->history);
		json_str(&j, "why", r->why[0] ? r->why : NULL);
		json_obj_end(&j);
	}
	json_arr_end(&j);
	json_obj_end(&j);
	json_end(&j); /* a write error: output_checked() */
	return regressions;
}

int cmd_compare(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "db", required_argument, NULL, 'd' },	    { "threshold", required_argument, NULL, 't' },
		{ "alpha", required_argument, NULL, 'a' },  { "metric", required_argument, NULL, 'm' },
		{ "all", no_argument, NULL, 'A' },	    { "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },	    { 0 },
	};
	struct compare_opts o = { .alpha = 0.05, .threshold = METRIC_MEASURED_THRESHOLD };
	bool as_json = false;
	struct history_sides cs;
	struct compare_row *rows = NULL;
	const char *db = NULL;
	struct store *s = NULL;
	char err[2048] = "";
	size_t nrows = 0, regressions;
	int opt, rc;

	while ((opt = getopt_long(argc, argv, "hv", opts, NULL)) != -1) {
		switch (opt) {
		case 'd':
			db = optarg;
			break;
		case 't':
			if (parse_pct(optarg, &o.threshold))
				return usage_error(compare_usage, "bad --threshold '%s' (a percentage)", optarg);
			o.threshold_set = true;
			break;
		case 'a':
			if (parse_alpha(optarg, &o.alpha))
				return usage_error(compare_usage, "bad --alpha '%s' (0 < P < 1)", optarg);
			break;
		case 'm':
			o.glob = optarg;
			break;
		case 'A':
			o.all = true;
			break;
		case 'j':
			as_json = true;
			break;
		default:
			if (common_opt(opt, compare_usage, &rc))
				return rc;
		}
	}
	if (argc - optind != 2)
		return usage_error(compare_usage, "%s", "two sides to compare, please");
	if (db && (rc = open_store("compare", db, &s)))
		return rc;
	rc = history_sides_load(&cs, s, argv + optind, &o, err, sizeof(err));
	if (rc)
		fprintf(stderr, "gpuiso: compare: %s%s", err,
			err[0] && err[strlen(err) - 1] == '\n' ? "" : "\n");
	else if (o.across)
		fprintf(as_json ? stderr : stdout, "comparing two benchmarks: before is %s, after is %s\n",
			cs.across[0], cs.across[1]);
	if (!rc)
		rc = compare_sets(&cs.before, &cs.after, &o, &rows, &nrows);
	if (!rc && o.glob && !nrows) {
		/* a mistyped glob must not pass a gate as "no regression" */
		fprintf(stderr, "gpuiso: compare: --metric '%s' matches no metric of either side\n",
			o.glob);
		rc = -EINVAL;
	}
	if (!rc) {
		regressions = as_json ? compare_json(rows, nrows, stdout)
				      : compare_print(rows, nrows, &o, stdout);
		rc = regressions ? EXIT_FINDINGS : EXIT_OK;
	} else {
		rc = cli_exit(rc);
	}
	free(rows);
	history_sides_free(&cs);
	store_close(s);
	return rc;
}

/* --- changes over history, and acknowledging them --- */

/* The history of the store at @path for command @cmd; 0, or the exit code after saying why. */
static int load_history(const char *cmd, const char *path, struct store *s,
			const struct history_opts *o, struct history *h)
{
	int rc = history_load(s, o, h);

	if (rc)
		return store_failed(cmd, path, s, rc);
	if (!h->n && (o->metric || o->benchmark)) {
		/* a mistyped glob must not pass a gate as "no change" */
		fprintf(stderr, "gpuiso: %s: no stored series matches%s%s%s%s\n", cmd,
			o->metric ? " --metric " : "", o->metric ? o->metric : "",
			o->benchmark ? " --benchmark " : "", o->benchmark ? o->benchmark : "");
		return EXIT_INPUT;
	}
	return 0;
}

const char changes_usage[] =
	"gpuiso changes DB [--metric GLOB] [--benchmark GLOB] [--alpha P] [--threshold PCT]\n"
	"                  [--json OUT] [-v]\n"
	"  where each series (a metric of a benchmark) changed level, revision by revision:\n"
	"  an exact metric wherever its value differs from the revision before; a measured one\n"
	"  by E-divisive means over its per-revision medians (t-test p < P, 0.01, divided by\n"
	"  the number of measured series; at least PCT percent, 20). Exits 1 when the last\n"
	"  change of a series made it worse and was not acknowledged (gpuiso ack).\n"
	"  --json: gpuiso-changes/1, one object per change (- for stdout)";

int cmd_changes(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "metric", required_argument, NULL, 'm' }, { "benchmark", required_argument, NULL, 'b' },
		{ "alpha", required_argument, NULL, 'a' },  { "threshold", required_argument, NULL, 't' },
		{ "json", required_argument, NULL, 'j' },   { "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct history_opts ho = HISTORY_OPTS_DEFAULT;
	const char *json = NULL;
	struct history h = { 0 };
	struct store *s;
	int opt, rc;

	while ((opt = getopt_long(argc, argv, "hv", opts, NULL)) != -1) {
		if (opt == 'm')
			ho.metric = optarg;
		else if (opt == 'b')
			ho.benchmark = optarg;
		else if (opt == 'j')
			json = optarg;
		else if (opt == 'a' && parse_alpha(optarg, &ho.alpha))
			return usage_error(changes_usage, "bad --alpha '%s' (0 < P < 1)", optarg);
		else if (opt == 't' && parse_pct(optarg, &ho.threshold))
			return usage_error(changes_usage, "bad --threshold '%s' (a percentage)", optarg);
		else if (opt != 'a' && opt != 't' && common_opt(opt, changes_usage, &rc))
			return rc;
	}
	if (argc - optind != 1)
		return usage_error(changes_usage, "%s", "one store, please");
	rc = open_store("changes", argv[optind], &s);
	if (rc)
		return rc;
	rc = load_history("changes", argv[optind], s, &ho, &h);
	store_close(s);
	if (!rc) {
		changes_print(&h, text_out(json));
		rc = history_alarms(&h) ? EXIT_FINDINGS : EXIT_OK;
	}
	if (!rc || rc == EXIT_FINDINGS) {
		int werr = json ? changes_write_json(&h, json) : 0;

		if (werr) {
			fprintf(stderr, "gpuiso: changes: writing %s: %s\n", json, strerror(-werr));
			rc = EXIT_ENV;
		}
	}
	history_free(&h);
	return rc;
}

const char ack_usage[] =
	"gpuiso ack DB --metric GLOB --rev REV [--benchmark GLOB] --note TEXT [-v]\n"
	"  records that the changes at revision REV of the series matching the globs are\n"
	"  expected: they no longer raise an alarm (changes, dash); a later change does.";

int cmd_ack(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "metric", required_argument, NULL, 'm' }, { "benchmark", required_argument, NULL, 'b' },
		{ "rev", required_argument, NULL, 'r' },    { "note", required_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },	    { 0 },
	};
	struct store_ack a = { .benchmark = "*" };
	struct history_opts ho = HISTORY_OPTS_DEFAULT;
	struct history h = { 0 };
	char full[128], err[1024];
	size_t matched = 0;
	struct store *s;
	int opt, rc;

	while ((opt = getopt_long(argc, argv, "hv", opts, NULL)) != -1) {
		if (opt == 'm')
			a.metric = optarg;
		else if (opt == 'b')
			a.benchmark = optarg;
		else if (opt == 'r')
			a.rev = optarg;
		else if (opt == 'n')
			a.note = optarg;
		else if (common_opt(opt, ack_usage, &rc))
			return rc;
	}
	if (argc - optind != 1 || !a.metric || !a.rev || !a.note || !*a.note)
		return usage_error(ack_usage, "%s", argc - optind != 1 ? "one store, please" :
				   "--metric, --rev and a --note saying why are required");
	rc = open_store("ack", argv[optind], &s);
	if (rc)
		return rc;
	rc = store_rev_resolve(s, a.rev, full, sizeof(full), err, sizeof(err));
	if (rc) {
		fprintf(stderr, "gpuiso: ack: %s\n", err);
		store_close(s);
		return cli_exit(rc);
	}
	a.rev = full;
	ho.metric = a.metric;
	ho.benchmark = a.benchmark;
	rc = load_history("ack", argv[optind], s, &ho, &h);
	if (!rc)
		matched = changes_at(&h, full, stdout);
	if (!rc && !matched) {
		/* an acknowledgement of nothing is a typo: the alarm it was meant for would stay */
		fprintf(stderr, "gpuiso: ack: no change at revision %.12s of a series matching "
				"--metric '%s' --benchmark '%s' (gpuiso changes lists them)\n",
			full, a.metric, a.benchmark);
		rc = EXIT_INPUT;
	}
	if (!rc) {
		rc = store_ack_add(s, &a, err, sizeof(err));
		if (rc) {
			fprintf(stderr, "gpuiso: ack: %s\n", err);
			rc = cli_exit(rc);
		} else {
			printf("%zu change%s at %.12s acknowledged: %s\n", matched,
			       matched == 1 ? "" : "s", full, a.note);
		}
	}
	history_free(&h);
	store_close(s);
	return rc;
}

/* --- dashboard --- */

const char dash_usage[] = "gpuiso dash DB -o SITE [--alpha P] [--threshold PCT] [--rev-url URL] [-v]\n"
			  "  writes a static HTML dashboard of the store into SITE (index.html first);\n"
			  "  --rev-url links each revision: a URL with %s for the revision\n"
			  "  (https://example.org/repo/commit/%s)";

int cmd_dash(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "alpha", required_argument, NULL, 'a' }, { "threshold", required_argument, NULL, 't' },
		{ "rev-url", required_argument, NULL, 'u' }, { "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct dash_opts o = { .history = HISTORY_OPTS_DEFAULT };
	const char *site = NULL, *pct;
	struct store *s;
	char err[1024];
	size_t pages = 0;
	int opt, rc;

	while ((opt = getopt_long(argc, argv, "ho:v", opts, NULL)) != -1) {
		if (opt == 'o') {
			site = optarg;
		} else if (opt == 'a') {
			if (parse_alpha(optarg, &o.history.alpha))
				return usage_error(dash_usage, "bad --alpha '%s' (0 < P < 1)", optarg);
		} else if (opt == 't') {
			if (parse_pct(optarg, &o.history.threshold))
				return usage_error(dash_usage, "bad --threshold '%s' (a percentage)", optarg);
		} else if (opt == 'u') {
			/* one %s and no other conversion: the URL is a format */
			pct = strchr(optarg, '%');
			if (!pct || strncmp(pct, "%s", 2) || strchr(pct + 2, '%'))
				return usage_error(dash_usage, "--rev-url takes a URL with one %%s, not '%s'",
						   optarg);
			o.rev_url = optarg;
		} else if (common_opt(opt, dash_usage, &rc)) {
			return rc;
		}
	}
	if (argc - optind != 1 || !site)
		return usage_error(dash_usage, "%s", "a store and -o SITE, please");
	rc = open_store("dash", argv[optind], &s);
	if (rc)
		return rc;
	rc = dash_write(s, site, &o, &pages, err, sizeof(err));
	store_close(s);
	if (rc) {
		fprintf(stderr, "gpuiso: dash: %s\n", err);
		/* the site cannot be written where asked: the machine's say, as for other outputs */
		return cli_exit(rc);
	}
	printf("%zu pages in %s/index.html\n", pages, site);
	return EXIT_OK;
}
